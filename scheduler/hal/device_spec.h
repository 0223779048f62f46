// DeviceSpec: Tessera's hardware abstraction layer (Roller's HAL, seed 000 Fig. 9)
// for CPUs. Memory layers run from the vector registers outward (registers, L1,
// L2, LLC share, DRAM), each with a capacity, line size and per-core bandwidth;
// execution units are cores x vector lanes x FMA pipes. Built from the Halide
// Target, the parallelism Halide gives the autoscheduler and a DeviceProfile.
#pragma once

#include "device_profile.h"

#include <Halide.h>

#include <string>
#include <vector>

namespace tessera::hal {

struct MemoryLayer {
    std::string name;          // "registers", "L1", "L2", "LLC", "DRAM"
    int64_t capacity_bytes;    // usable by one core's tiles (LLC: its share); DRAM: effectively unbounded
    int64_t line_bytes;        // transfer granularity
    double gbs_per_core;       // bandwidth into the layer above when every core streams at once
};

struct DeviceSpec {
    std::string arch = "x86";
    int cores = 1;
    int vector_lanes = 8;      // fp32 lanes per vector register
    int vector_registers = 16;
    int fma_pipes = 2;         // Skylake-SP and later server cores: two FMA ports,
    int fma_latency = 4;       // four cycles each: 8 independent accumulators hide it
    // General-purpose registers a micro-kernel can give to the row addresses of a
    // broadcast operand whose row stride is only known at run time: x86-64 has 16,
    // and the stack pointer, loop counters, the vector operand's and the output's
    // pointers and the outer loops' live values take the rest. Beyond this, LLVM
    // computes the addresses with vector integer ops on the FMA ports (measured:
    // 8 rows run 25% slower than 6 at the same register-tile size).
    int row_address_registers = 6;
    // AVX-512 FMAs take a broadcast operand straight from memory (an embedded
    // {1to16} broadcast), so a micro-kernel needs no register for it; AVX2 first
    // broadcasts into a register (vbroadcastss).
    bool fma_broadcasts_from_memory = false;
    // Elements a core gathers per cycle (a transposed program packs its operand by
    // gathers): about one with AVX2 (Zen 3, NCHW 7x7x512). With AVX-512 infinite,
    // i.e. not charged: Zen 5's transposed programs were measured without this term
    // and their gathers never showed as the cost; charging even a quarter of the AVX2
    // figure moved four NCHW choices there that no machine at hand can measure.
    double gathered_per_cycle = 1.0;
    double peak_gflops_per_core = 0;
    std::vector<MemoryLayer> layers;  // registers first, DRAM last
    std::string profile_source;

    // The accumulators that keep every FMA pipe busy.
    int min_accumulators() const { return fma_pipes * fma_latency; }
    // Whether `bytes` of data outgrow the LLC (all cores' shares): they stream from DRAM.
    bool beyond_llc(double bytes) const { return bytes > double(layer("LLC").capacity_bytes) * cores; }
    const MemoryLayer &layer(const std::string &name) const;

    // One line per field, for TESSERA_EXPLAIN and scheduler/README.md.
    std::string describe() const;
};

// x86 only for now; other targets get a user error naming the target.
DeviceSpec make_device_spec(const Halide::Target &target, int parallelism, const DeviceProfile &profile);

}  // namespace tessera::hal
