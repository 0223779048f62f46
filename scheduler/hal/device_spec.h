// DeviceSpec: Tessera's hardware abstraction layer (Roller's HAL, seed 000 Fig. 9).
// Memory layers run from the registers outward, each with a role, a capacity, a
// line size and a per-core bandwidth, in any number; execution units are cores x
// vector lanes x FMA pipes. The rTile construction reads only this: the x86 spec
// is built from the Halide Target, the parallelism Halide gives the autoscheduler
// and a DeviceProfile (hal/x86_device.cpp); other architectures add a builder.
#pragma once

#include "device_profile.h"

#include <Halide.h>

#include <string>
#include <vector>

namespace tessera::hal {

enum class MemoryRole {
    Registers,     // the vector register file
    PrivateCache,  // a core's own cache (L1, L2)
    SharedCache,   // shared by the cores; capacity is one core's share
    Memory,        // DRAM
};

struct MemoryLayer {
    std::string name;          // "registers", "L1", "L2", "LLC", "DRAM"
    MemoryRole role;
    int64_t capacity_bytes;    // usable by one core's tiles (a shared cache: its share); DRAM: effectively unbounded
    int64_t line_bytes;        // transfer granularity
    double gbs_per_core;       // bandwidth into the layer above when every core streams at once
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

// The profile the HAL uses for `target`: the host's (hal::host_profile: a
// measured or $TESSERA_DEVICE_PROFILE file, else built-in figures) for an x86
// target, whose vector width it scales to the target's. A user error names any
// other architecture.
DeviceProfile profile_for_target(const Halide::Target &target);

// The spec for `target` (the element size of the pipeline's values; `parallelism`
// cores, 0: the profile's). x86 only for now; other targets get a user error
// naming the target.
DeviceSpec make_device_spec(const Halide::Target &target, int parallelism, const DeviceProfile &profile,
                            int element_bytes = 4);

}  // namespace tessera::hal
