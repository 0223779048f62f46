// rProgram construction for a compute-intensive stage (Roller (OSDI'22) Fig. 8,
// mapped onto a CPU): scale up an rTile layer by layer from the registers outward,
// growing it along the axis with the best data-reuse score
//   S_i = (Q(T) - Q(T'_i)) / (F(T'_i) - F(T)),
// moving to the next layer when the layer's capacity is hit or the tile becomes
// compute-bound there; then scale out over the cores, shrinking the outer tile
// along its lowest-score axis while there are too few tasks. A small beam keeps
// the top K rPrograms, ranked by predicted time.
#pragma once

#include "perf_model.h"
#include "tiling.h"

#include <vector>

namespace tessera::rtile {

struct ConstructionResult {
    std::vector<RProgram> programs;  // best first
};

// `packable[i]`: read i can be packed into a reordered copy (an input with a
// wrapper Func); empty means every input read can. Without one, no transposed
// program (vectorised along a dim other than the output's contiguous one).
// `under_epilogue`: the stage will be computed per L2 tile of a pure epilogue
// whose tails shift inwards, so shifted programs (RProgram::shifted) are valid.
// `tiling`: the dims whose tiles may overrun (analysis::StagePlan::evaluable_anywhere).
ConstructionResult construct_programs(const analysis::TensorExpr &t, const hal::DeviceSpec &d, int top_k,
                                      const std::vector<bool> &packable = {}, bool under_epilogue = false,
                                      const TilingContext &tiling = {});

}  // namespace tessera::rtile
