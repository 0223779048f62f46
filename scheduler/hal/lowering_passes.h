// The passes Tessera adds to the end of Halide's lowering of every pipeline it
// makes (graph partitions, JIT-compiled ops, the generators): boundary conditions
// read by masked loads instead of gathers (masked_boundary_loads.h), then the guard
// against Halide 14's misaligned strided loads (strided_load_alignment.h).
#pragma once

#include <Halide.h>

namespace tessera::hal {

// Call once, where the pipeline is made: each call adds the passes again.
void add_lowering_passes(Halide::Pipeline &pipeline);

}  // namespace tessera::hal
