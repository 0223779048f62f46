// StagePlan: which of a pipeline's Functions are folded into their consumers and
// which stay stages of their own, and every stage's tensor expressions under that
// folding (the first thing the scheduler decides; everything after reads it).
#pragma once

#include "function_dag.h"
#include "tensor_expr.h"

#include <Halide.h>

#include <map>
#include <set>
#include <string>
#include <vector>

namespace tessera::analysis {

// An input buffer's hidden pure wrapper Function (what an ImageParam or a
// generator Input reaches definitions through).
bool is_input_wrapper(const Halide::Internal::Function &f);

struct StagePlan {
    std::map<std::string, Halide::Internal::Function> env;
    // Input name -> its hidden wrapper Func. Usually "<input>_im", but Halide
    // renames Funcs when a process builds a second pipeline with the same names
    // ("weights_im$1"), so it is found by what it does, not by its name.
    std::map<std::string, std::string> input_wrappers;
    std::set<std::string> inlined;
    std::map<std::string, std::vector<TensorExpr>> stages;
    // Per stage (same order) and loop dim: every read along the dim can be
    // evaluated at any coordinate (it reads boundary conditions only), so tiles
    // may overrun the extent there.
    std::map<std::string, std::vector<std::vector<bool>>> evaluable_anywhere;
};

// Pure producers are folded into their consumers, except (a) those feeding a
// compute-intensive stage (computed per tile, as packed operands), (b) expensive
// ones read by several consumers or at several points (computed once per row) and
// (c) boundary conditions under a window sliding along the innermost storage dim.
// It also says along which dims each stage's tiles may overrun.
StagePlan plan_stages(const FunctionDag &dag);

}  // namespace tessera::analysis
