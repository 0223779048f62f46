#include "lowering_passes.h"

#include "masked_boundary_loads.h"
#include "strided_load_alignment.h"

namespace tessera::hal {

void add_lowering_passes(Halide::Pipeline &pipeline) {
    // Masked loads first: the dense loads they make have no known alignment, which
    // the guard then leaves alone.
    pipeline.add_custom_lowering_pass(new_masked_boundary_loads_pass());
    pipeline.add_custom_lowering_pass(new_strided_load_alignment_guard());
}

}  // namespace tessera::hal
