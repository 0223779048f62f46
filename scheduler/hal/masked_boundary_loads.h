// Boundary conditions without gathers. Halide's constant_exterior reads its source
// as select(outside, fill, source(clamp(x))): a vector whose lanes straddle the
// image's edge has a clamped index, which is no longer a ramp, so the load becomes a
// gather (one scalar load and insert per lane). Where a row is a few vectors wide
// (a padded copy of a 17x17 plane, 19 points per row) every vector straddles an
// edge. On the lanes the select keeps, the clamp changes nothing; this pass proves
// that from the select's condition, drops the clamp and reads the dense ramp as a
// masked load, predicated on those lanes (the others read nothing, so no address
// past the image is touched).
#pragma once

#include <Halide.h>

namespace tessera::hal {

// `s` with every host load under a vector select rewritten as above where the
// proof holds and the unclamped index is a dense ramp; everything else, GPU kernels
// included, as it was.
Halide::Internal::Stmt mask_boundary_loads(const Halide::Internal::Stmt &s);

// The pass as a custom lowering pass (owned by the pipeline it is added to).
Halide::Internal::IRMutator *new_masked_boundary_loads_pass();

}  // namespace tessera::hal
