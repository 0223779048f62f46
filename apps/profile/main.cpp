// tessera-profile: measures this CPU's peak fp32 FMA throughput, the read
// bandwidth of every memory layer, DRAM copy and 2-D transpose bandwidth, and
// writes the device profile the Tessera scheduler and tessera-bench read
// (scheduler/hal/device_profile.h).
// With --calibrate it measures nothing: it fits the performance model's factors to
// tuning logs and writes them into the profile (calibrate.h).
// Exit status: 0 written, 1 measurement or write failed, 2 usage error or a bad
// input file.
#include "calibrate.h"
#include "device_profile.h"
#include "microbench.h"
#include "options_from_environment.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace {

void usage(std::FILE *to) {
    std::fprintf(to, "usage: tessera-profile [--output FILE] [--quick] [--if-missing]\n"
                     "       tessera-profile --calibrate LOG [--calibrate LOG...] [--output FILE]\n"
                     "                       [--min-partitions N] [--report-only]\n"
                     "  --output          where to write the JSON profile (default %s)\n"
                     "  --quick           short, smaller measurements (for tests; less accurate)\n"
                     "  --if-missing      do nothing when the output already holds a loadable profile (one\n"
                     "                    measured by an older tessera-profile is measured again)\n"
                     "  --calibrate       fit the performance model to a tuning log of `tessera compile --tune`\n"
                     "                    run under the profile FILE holds, and write the factors into it\n"
                     "  --min-partitions  measured partitions a program family needs to be fitted (default 3)\n"
                     "  --report-only     print the fit, write nothing\n",
                 tessera::default_profile_path().c_str());
}

struct Plan {
    double seconds;  // per measurement trial
    int trials;
    uint64_t dram_total_bytes;
};

}  // namespace

int main(int argc, char **argv) {
    namespace hal = tessera::hal;
    namespace prof = tessera::profile;
    std::string output = tessera::default_profile_path();
    bool quick = false, if_missing = false;
    prof::CalibrateSettings calibration;
    bool calibration_options = false;  // --min-partitions or --report-only given
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        const bool has_value = i + 1 < argc;
        if (arg == "--calibrate" && has_value) {
            calibration.logs.push_back(argv[++i]);
        } else if (arg == "--min-partitions" && has_value) {
            const std::string v = argv[++i];
            char *end = nullptr;
            const long n = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || n < 1 || n > 1000000) {
                std::fprintf(stderr, "tessera-profile: --min-partitions wants a positive integer, got '%s'\n", v.c_str());
                return 2;
            }
            calibration.min_partitions = int(n);
            calibration_options = true;
        } else if (arg == "--report-only") {
            calibration.write = false;
            calibration_options = true;
        } else if (arg == "--quick") {
            quick = true;
        } else if (arg == "--if-missing") {
            if_missing = true;
        } else if (arg == "--output" && i + 1 < argc) {
            output = argv[++i];
        } else if (arg == "--help" || arg == "-h") {
            usage(stdout);
            return 0;
        } else {
            const bool wants_value = arg == "--output" || arg == "--calibrate" || arg == "--min-partitions";
            std::fprintf(stderr, "tessera-profile: %s '%s'\n", wants_value ? "missing value for" : "unknown argument",
                         arg.c_str());
            usage(stderr);
            return 2;
        }
    }
    if (!calibration.logs.empty()) {
        if (quick || if_missing) {
            std::fprintf(stderr, "tessera-profile: --calibrate measures nothing: --quick and --if-missing do not apply\n");
            return 2;
        }
        calibration.profile_path = output;
        return prof::calibrate(calibration);
    }
    if (calibration_options) {
        std::fprintf(stderr, "tessera-profile: --min-partitions and --report-only go with --calibrate\n");
        return 2;
    }
    std::string why;
    if (if_missing) {
        if (const std::optional<hal::DeviceProfile> old = hal::load_profile(output, &why)) {
            if (!hal::peak_measured_by_an_old_loop(*old)) {
                std::printf("tessera-profile: %s holds a profile already (remove it to measure again)\n",
                            output.c_str());
                return 0;
            }
            std::printf("tessera-profile: %s was measured by an older tessera-profile, whose FMA peak was 1.5-3x "
                        "too high: measuring again\n", output.c_str());
        }
    }
    if (prof::fma_lanes() == 0) {
        std::fprintf(stderr, "tessera-profile: this CPU has neither AVX-512F nor AVX2+FMA; nothing to measure\n");
        return 1;
    }

    // Capacities, core count and vector width come from sysfs/cpuid (the built-in
    // profile); every throughput figure below is measured.
    hal::DeviceProfile p = hal::builtin_profile();
    p.source = quick ? "measured (quick)" : "measured";
    p.vector_lanes_fp32 = prof::fma_lanes();
    const int cores = p.cores;
    const uint64_t l1 = p.layer("L1")->capacity_bytes, l2 = p.layer("L2")->capacity_bytes;
    const uint64_t llc = p.layer("LLC")->capacity_bytes;
    // DRAM: several times the LLC so it cannot be served from cache (quick: smaller).
    Plan plan = quick ? Plan{0.02, 1, 64ull << 20} : Plan{0.15, 3, std::clamp<uint64_t>(4 * llc, 256ull << 20, 2ull << 30)};

    std::printf("tessera-profile: %s, %d cores, %d fp32 lanes (%s)%s\n", p.cpu_model.c_str(), cores,
                p.vector_lanes_fp32, p.vector_lanes_fp32 == 16 ? "AVX-512" : "AVX2", quick ? ", quick" : "");
    p.fma_gflops_per_core = prof::fma_gflops_one_core(quick ? 0.06 : 0.6);
    p.fma_peak_revision = hal::kFmaPeakRevision;

    // Buffer per thread for each layer: half a private cache (the other half holds
    // the stack and code); for the LLC a buffer past the private L2 but well inside
    // the LLC's share (an eighth: in a VM or under other tenants the usable LLC is
    // much smaller than sysfs says); for DRAM a slice of a buffer several LLCs large.
    auto layer_buffer = [&](const std::string &name, int threads) -> uint64_t {
        if (name == "L1") return l1 / 2;
        if (name == "L2") return l2 / 2;
        if (name == "LLC") return std::clamp<uint64_t>(llc / (8 * threads), 2 * l2, 16ull << 20);
        return plan.dram_total_bytes / threads;
    };
    for (hal::MemoryLayerProfile &layer : p.layers) {
        const uint64_t one = layer_buffer(layer.name, 1) & ~uint64_t(4095);
        const uint64_t each = layer_buffer(layer.name, cores) & ~uint64_t(4095);
        layer.read_gbs_per_core = prof::read_gbs(one, 1, plan.seconds, plan.trials);
        layer.read_gbs_all_cores = prof::read_gbs(each, cores, plan.seconds, plan.trials);
    }
    p.dram_copy_gbs = prof::copy_gbs((plan.dram_total_bytes / 2 / cores) & ~uint64_t(4095), cores, plan.seconds,
                                     plan.trials);
    // Columns: a power of two, as deep-learning tensors' rows usually are (the
    // strides then alias in the caches, which is part of what a transpose costs).
    try {
        p.dram_transpose_gbs = prof::transpose_gbs((plan.dram_total_bytes / 2 / cores) & ~uint64_t(4095), 8192,
                                                   cores, plan.seconds, plan.trials);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tessera-profile: %s\n", e.what());
        return 1;
    }

    std::printf("  peak fp32 FMA   %8.1f GFLOP/s per core, %.1f all cores\n", p.fma_gflops_per_core,
                p.fma_gflops_per_core * cores);
    std::printf("  %-5s %12s %18s %18s\n", "layer", "capacity", "read GB/s 1 core", "read GB/s all");
    for (const hal::MemoryLayerProfile &layer : p.layers) {
        std::string cap = layer.capacity_bytes ? std::to_string(layer.capacity_bytes >> 10) + " KiB" : "-";
        std::printf("  %-5s %12s %18.1f %18.1f\n", layer.name.c_str(), cap.c_str(), layer.read_gbs_per_core,
                    layer.read_gbs_all_cores);
    }
    std::printf("  DRAM copy (read + write, all cores) %.1f GB/s\n", p.dram_copy_gbs);
    std::printf("  DRAM 2-D transpose (read + write, all cores, blocked AVX2 kernel) %.1f GB/s, %.0f%% of copy\n",
                p.dram_transpose_gbs, p.dram_copy_gbs > 0 ? 100 * p.dram_transpose_gbs / p.dram_copy_gbs : 0.0);
    try {
        hal::save_profile(p, output);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tessera-profile: %s\n", e.what());
        return 1;
    }
    std::printf("wrote %s\n", output.c_str());
    return 0;
}
