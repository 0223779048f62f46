// pack_panels: an axis split into blocks with the position within a block moved
// innermost, the layout of packed weights (the panels a register tile reads) and
// of channel-blocked activations (NCHW[x]c).
#pragma once

#include "op_params.h"

#include <Halide.h>

namespace tessera::ops {

// Also unpack_panels (p.unpack), the inverse.
Halide::Func pack_panels(const PackParams &p, const Halide::Func &input);

}  // namespace tessera::ops
