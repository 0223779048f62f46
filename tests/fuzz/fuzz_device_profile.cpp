// Fuzz target: the device-profile JSON loader (scheduler/hal/device_profile.h,
// load_profile) and, for a profile it accepts, what the Tessera scheduler builds
// from it (hal::make_device_spec for pinned AVX2 and AVX-512 targets) and the memory
// layers the scheduler looks up by name and by position.
// Accepted: a profile. Rejected: nullopt with a message.
// Findings: a sanitizer report, an exception out of load_profile, a Halide error in
// make_device_spec or in the layer lookups, or layers other than the perf model's, for
// an accepted profile.
#include "device_spec.h"
#include "fuzz_common.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace {

// load_profile reads a path: the input is written to an in-memory file.
int memory_file = -1;
std::string memory_path;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
    memory_file = memfd_create("tessera_fuzz_profile", 0);
    if (memory_file < 0) {
        std::perror("memfd_create");
        std::abort();
    }
    memory_path = "/proc/self/fd/" + std::to_string(memory_file);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    using namespace tessera;
    if (ftruncate(memory_file, 0) != 0 || pwrite(memory_file, data, size, 0) != ssize_t(size)) {
        std::perror("writing the in-memory profile");
        std::abort();
    }
    std::string error;
    std::optional<hal::DeviceProfile> profile = hal::load_profile(memory_path, &error);
    if (!profile) {
        fuzz::rejected(error);
        return 0;
    }
    try {
        for (const char *target : {"x86-64-linux-avx2-fma", "x86-64-linux-avx512_skylake"}) {
            hal::DeviceSpec spec = hal::make_device_spec(Halide::Target(target), 0, *profile);
            spec.describe();
            spec.innermost_cache();
            spec.beyond_llc(1.0);
            // The perf model reads the layers by position: registers first, DRAM
            // last, a cache between, and rtile.h's three tile levels in increasing
            // layers below DRAM.
            std::string names;
            for (const hal::MemoryLayer &l : spec.layers) names += " " + l.name;
            const auto &tl = spec.tile_layers;
            const bool roles = spec.layers.size() >= 3 && spec.layers.front().role == hal::MemoryRole::Registers &&
                               spec.layers.back().role == hal::MemoryRole::Memory &&
                               spec.layers[1].role != hal::MemoryRole::Memory;
            const bool tiles = tl.size() == 3 && tl[0] == 0 && tl[0] < tl[1] && tl[1] <= tl[2] &&
                               tl[2] + 1 < spec.layers.size();
            if (!roles || !tiles) {
                fuzz::finding("load_profile accepted a profile whose device spec has the layers" + names);
            }
        }
    } catch (const Halide::Error &e) {
        fuzz::finding("load_profile accepted a profile the scheduler cannot use: " + std::string(e.what()));
    }
    fuzz::accepted("profile of " + std::to_string(profile->layers.size()) + " layers");
    return 0;
}
