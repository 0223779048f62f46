#include "x86_device.h"

#include <algorithm>
#include <limits>

namespace tessera::hal {

namespace {

// The vector ISAs Tessera schedules for, widest first. Sources: Intel's and AMD's
// optimisation manuals (register counts, embedded broadcasts), and measurements
// here (gathers: scheduler/README.md).
struct VectorIsa {
    const char *name;
    int vector_bytes;
    int vector_registers;
    // AVX-512 FMAs take a broadcast operand straight from memory (an embedded
    // {1to16} broadcast), so a micro-kernel needs no register for it; AVX2 first
    // broadcasts into a register (vbroadcastss).
    bool fma_broadcasts_from_memory;
    // Elements a core gathers per cycle (a transposed program packs its operand by
    // gathers): about one with AVX2 (Zen 3, NCHW 7x7x512). With AVX-512 infinite,
    // i.e. not charged: Zen 5's transposed programs were measured without this term
    // and their gathers never showed as the cost; charging even a quarter of the AVX2
    // figure moved four NCHW choices there that no machine at hand can measure.
    double gathered_per_cycle;
    // Broadcasts from memory a core issues per cycle beside its FMAs (0: as any
    // load). AVX2's vbroadcastss is an instruction of its own: on Zen 3 a direct NCHW
    // 3x3 register tile of 8 points x 8 channels (8 broadcasts and one vector load
    // per 8 FMAs) ran at 50-55% of the peak, in Halide's code and in a hand-written
    // loop, every run, where 2 vectors x 6 channels ran at 85%: about one per cycle.
    // AVX-512 folds them into its FMAs (loads as any other).
    double broadcasts_per_cycle;
};
constexpr double kNotCharged = std::numeric_limits<double>::infinity();
const VectorIsa kAvx512 = {"AVX-512", 64, 32, true, kNotCharged, 0};
const VectorIsa kAvx2 = {"AVX2", 32, 16, false, 1.0, 1.0};
const VectorIsa kSse = {"SSE", 16, 16, false, 1.0, 1.0};

// Core figures every x86 core Tessera has met shares (a profile may override each):
// Skylake-SP and later server cores, Zen 3-5: two FMA pipes of four cycles, so 8
// independent accumulators hide the latency.
constexpr int kFmaPipes = 2, kFmaLatency = 4;
// General-purpose registers a micro-kernel can give to the row addresses of a
// broadcast operand whose row stride is only known at run time: x86-64 has 16, and
// the stack pointer, loop counters, the vector operand's and the output's pointers
// and the outer loops' live values take the rest. Beyond this, LLVM computes the
// addresses with vector integer ops on the FMA ports (measured: 8 rows run 25%
// slower than 6 at the same register-tile size).
constexpr int kRowAddressRegisters = 6;

const VectorIsa &isa_of(const Halide::Target &target) {
    const bool avx512 = target.has_feature(Halide::Target::AVX512_Skylake) ||
                        target.has_feature(Halide::Target::AVX512_Cannonlake) ||
                        target.has_feature(Halide::Target::AVX512_SapphireRapids) ||
                        target.has_feature(Halide::Target::AVX512);
    // A target string may name avx2 without avx (Halide's parser implies nothing);
    // every AVX2 machine has AVX's 256-bit vectors.
    const bool avx = target.has_feature(Halide::Target::AVX) || target.has_feature(Halide::Target::AVX2);
    return avx512 ? kAvx512 : avx ? kAvx2 : kSse;
}

template <typename T>
T or_default(T profile_value, T table_value) {
    return profile_value > 0 ? profile_value : table_value;
}

}  // namespace

DeviceSpec make_x86_device_spec(const Halide::Target &target, int parallelism, const DeviceProfile &profile,
                                int element_bytes) {
    const VectorIsa &isa = isa_of(target);
    DeviceSpec d;
    d.arch = "x86";
    d.cores = parallelism > 0 ? parallelism : profile.cores;
    d.element_bytes = element_bytes;
    d.vector_bytes = isa.vector_bytes;
    d.vector_lanes = isa.vector_bytes / element_bytes;
    d.vector_registers = or_default(profile.vector_registers, isa.vector_registers);
    d.fma_pipes = or_default(profile.fma_pipes, kFmaPipes);
    d.fma_latency = or_default(profile.fma_latency, kFmaLatency);
    d.row_address_registers = or_default(profile.row_address_registers, kRowAddressRegisters);
    d.fma_broadcasts_from_memory = isa.fma_broadcasts_from_memory;
    d.gathered_per_cycle = isa.gathered_per_cycle;
    d.profile_source = profile.source;
    d.calibration = profile.calibration;
    // The profile measured the host's own vector width (fp32 lanes); scale to the target's.
    const double lanes_ratio = double(isa.vector_bytes / 4) / std::max(1, profile.vector_lanes_fp32);
    d.peak_gflops_per_core = profile.fma_gflops_per_core * std::min(1.0, lanes_ratio);
    d.broadcasts_per_cycle = or_default(profile.broadcasts_per_cycle, isa.broadcasts_per_cycle);

    const int64_t line = 64;
    d.layers.push_back({"registers", MemoryRole::Registers, int64_t(d.vector_registers) * d.vector_bytes,
                        d.vector_bytes, 0});
    for (const MemoryLayerProfile &l : profile.layers) {
        // Shared layers (LLC, DRAM) split their all-core bandwidth evenly over the cores in use.
        const MemoryRole role = l.name == "DRAM" ? MemoryRole::Memory
                                : l.name == "LLC" ? MemoryRole::SharedCache
                                                  : MemoryRole::PrivateCache;
        const bool shared = role != MemoryRole::PrivateCache;
        double per_core = shared ? std::min(l.read_gbs_per_core, l.read_gbs_all_cores / d.cores) : l.read_gbs_per_core;
        int64_t capacity = role == MemoryRole::Memory ? (int64_t(1) << 40)
                           : shared                   ? int64_t(l.capacity_bytes / std::max(1, d.cores))
                                                      : int64_t(l.capacity_bytes);
        d.layers.push_back({l.name, role, capacity, line, per_core});
    }
    // Tiles: registers, the innermost cache, and the outermost private cache (the
    // task's tile; the innermost again on a core with one private cache).
    size_t outer_private = 1;
    for (size_t i = 1; i < d.layers.size(); i++) {
        if (d.layers[i].role == MemoryRole::PrivateCache) outer_private = i;
    }
    d.tile_layers = {0, 1, outer_private};
    return d;
}

}  // namespace tessera::hal
