// DeviceSpec: Tessera's hardware abstraction layer (the HAL of Roller (OSDI'22), Fig. 9).
// Memory layers run from the registers outward, each with a role, a capacity, a
// line size and a per-core bandwidth, in any number; execution units are cores x
// vector lanes x FMA pipes. The rTile construction reads only this: the x86 spec
// is built from the Halide Target, the parallelism Halide gives the autoscheduler
// and a DeviceProfile (hal/x86_device.cpp); a GPU's from the target's compute
// capability or OpenCL device (hal/gpu_device.cpp), a "core" being an SM.
#pragma once

#include "device_profile.h"

#include <Halide.h>

#include <optional>
#include <string>
#include <vector>

namespace tessera::hal {

enum class MemoryRole {
    Registers,     // the vector register file
    PrivateCache,  // a core's own cache (L1, L2)
    SharedCache,   // shared by the cores; capacity is one core's share
    Scratchpad,    // on-chip memory the program manages (a GPU's shared memory)
    Memory,        // DRAM
};

struct MemoryLayer {
    std::string name;          // "registers", "L1", "L2", "LLC", "DRAM"
    MemoryRole role;
    int64_t capacity_bytes;    // usable by one core's tiles (a shared cache: its share); DRAM: effectively unbounded
    int64_t line_bytes;        // transfer granularity
    double gbs_per_core;       // bandwidth into the layer above when every core streams at once
};

// What a GPU schedule is built from (Roller (OSDI'22) §4: warps, 32-byte transactions,
// 32 banks of 4 bytes, shared memory and registers per SM), one SM's figures
// unless named otherwise.
struct GpuFigures {
    std::string name;                   // "CUDA sm_86 (NVIDIA A10)", "PoCL CPU device"
    int sms = 1;                        // streaming multiprocessors (OpenCL: compute units)
    int fp32_lanes_per_sm = 64;         // FP32 FMAs per cycle per SM
    double clock_ghz = 1.0;
    int warp = 32;                      // threads issued together; thread tiles are multiples of it
    int max_threads_per_block = 1024;
    int max_threads_per_sm = 1024;
    int registers_per_sm = 65536;       // 32-bit registers
    int max_registers_per_thread = 255;
    // The registers per thread Tessera's tiles keep within: two blocks of
    // kBlockThreads threads resident per SM (hal/gpu_device.cpp).
    int register_cap_per_thread = 128;
    int64_t shared_bytes_per_sm = 64 << 10;
    int64_t shared_bytes_per_block = 48 << 10;  // without an opt-in launch attribute
    int shared_banks = 32;
    int bank_bytes = 4;
    int transaction_bytes = 32;         // a memory sector: coalescing granularity
    int64_t l2_bytes = 4 << 20;         // the chip's
    double dram_gbs = 300;              // the chip's
    std::string source;                 // where the figures come from
};

struct DeviceSpec {
    std::string arch = "x86";
    int cores = 1;
    int element_bytes = 4;     // of the values the pipeline computes (its output type)
    int vector_bytes = 32;
    int vector_lanes = 8;      // elements per vector register: vector_bytes / element_bytes
    int vector_registers = 16;
    int fma_pipes = 2;
    int fma_latency = 4;
    // General-purpose registers a micro-kernel can give to the row addresses of a
    // broadcast operand whose row stride is only known at run time (see
    // hal/x86_device.cpp).
    int row_address_registers = 6;
    // FMAs take a broadcast operand straight from memory (no register for it).
    bool fma_broadcasts_from_memory = false;
    // Broadcasts from memory a core issues per cycle beside its FMAs; 0: as any load.
    double broadcasts_per_cycle = 0;
    // Elements a core gathers per cycle (a transposed program packs its operand by
    // gathers); infinity: not charged.
    double gathered_per_cycle = 1.0;
    double peak_gflops_per_core = 0;
    std::vector<MemoryLayer> layers;  // registers first, DRAM last
    // The layer each tile level of an rProgram must fit (rtile.h's TileLevel:
    // registers, the innermost cache, the outermost private cache), as indices
    // into `layers`. The layers around them are read from their positions.
    std::vector<size_t> tile_layers;
    std::string profile_source;
    // The profile's fitted factors on the performance model's terms, per program family.
    ModelCalibration calibration;
    // Set on a GPU (arch "cuda" or "opencl"): what its schedules are built from.
    std::optional<GpuFigures> gpu;

    // The accumulators that keep every FMA pipe busy.
    int min_accumulators() const { return fma_pipes * fma_latency; }
    const MemoryLayer &tile_layer(size_t level) const { return layers.at(tile_layers.at(level)); }
    const MemoryLayer &innermost_cache() const { return layers.at(1); }
    // The last cache before DRAM (the LLC share on x86).
    const MemoryLayer &outermost_cache() const { return layers.at(layers.size() - 2); }
    // Whether `bytes` of data outgrow the outermost cache (all cores' shares): they stream from DRAM.
    bool beyond_llc(double bytes) const { return bytes > double(outermost_cache().capacity_bytes) * cores; }
    const MemoryLayer &layer(const std::string &name) const;

    // One line per field, for TESSERA_EXPLAIN and scheduler/README.md.
    std::string describe() const;
};

// The spec for `target` (the element size of the pipeline's values; `parallelism`
// cores, 0: the profile's): x86's from the CPU `profile` (its vector width scaled to
// the target's), or a GPU's when the target has CUDA or OpenCL (its figures from
// hal/gpu_device.h: the table's, or those `gpu_profile` names); other targets get a
// user error naming it.
DeviceSpec make_device_spec(const Halide::Target &target, int parallelism, const DeviceProfile &profile,
                            int element_bytes = 4, const std::string &gpu_profile = "");

}  // namespace tessera::hal
