#include "device_spec.h"

#include "diagnostics.h"

#include <algorithm>
#include <limits>
#include <sstream>

namespace tessera::hal {

const MemoryLayer &DeviceSpec::layer(const std::string &name) const {
    for (const MemoryLayer &l : layers) {
        if (l.name == name) return l;
    }
    internal_error << "no memory layer " << name << "\n";
    return layers.front();
}

std::string DeviceSpec::describe() const {
    std::ostringstream s;
    s << arch << ": " << cores << " cores, " << vector_lanes << " fp32 lanes, " << vector_registers
      << " vector registers, " << fma_pipes << " FMA pipes x latency " << fma_latency << ", peak "
      << peak_gflops_per_core << " GFLOP/s per core (profile: " << profile_source << ")\n";
    for (const MemoryLayer &l : layers) {
        s << "  " << l.name << ": " << l.capacity_bytes << " bytes, line " << l.line_bytes << ", "
          << l.gbs_per_core << " GB/s per core\n";
    }
    return s.str();
}

DeviceSpec make_device_spec(const Halide::Target &target, int parallelism, const DeviceProfile &profile) {
    user_assert(target.arch == Halide::Target::X86)
        << "Tessera: target " << target.to_string() << " is not supported yet (x86 only)\n";
    DeviceSpec d;
    d.cores = parallelism > 0 ? parallelism : profile.cores;
    const bool avx512 = target.has_feature(Halide::Target::AVX512_Skylake) ||
                        target.has_feature(Halide::Target::AVX512_Cannonlake) ||
                        target.has_feature(Halide::Target::AVX512_SapphireRapids) ||
                        target.has_feature(Halide::Target::AVX512);
    // A target string may name avx2 without avx (Halide's parser implies nothing);
    // every AVX2 machine has AVX's 256-bit vectors.
    const bool avx = target.has_feature(Halide::Target::AVX) || target.has_feature(Halide::Target::AVX2);
    d.vector_lanes = avx512 ? 16 : avx ? 8 : 4;
    d.vector_registers = avx512 ? 32 : 16;
    d.fma_broadcasts_from_memory = avx512;
    d.gathered_per_cycle = avx512 ? std::numeric_limits<double>::infinity() : 1.0;
    d.profile_source = profile.source;
    // The profile measured the host's own vector width; scale to the target's.
    double lanes_ratio = double(d.vector_lanes) / std::max(1, profile.vector_lanes_fp32);
    d.peak_gflops_per_core = profile.fma_gflops_per_core * std::min(1.0, lanes_ratio);

    const int64_t line = 64;
    d.layers.push_back({"registers", int64_t(d.vector_registers) * d.vector_lanes * 4, d.vector_lanes * 4, 0});
    for (const MemoryLayerProfile &l : profile.layers) {
        // Shared layers (LLC, DRAM) split their all-core bandwidth evenly over the cores in use.
        bool shared = l.name == "LLC" || l.name == "DRAM";
        double per_core = shared ? std::min(l.read_gbs_per_core, l.read_gbs_all_cores / d.cores) : l.read_gbs_per_core;
        int64_t capacity = l.name == "DRAM" ? (int64_t(1) << 40)
                           : shared         ? int64_t(l.capacity_bytes / std::max(1, d.cores))
                                            : int64_t(l.capacity_bytes);
        d.layers.push_back({l.name, capacity, line, per_core});
    }
    return d;
}

}  // namespace tessera::hal
