#include "stage_roles.h"

#include "read_patterns.h"

namespace tessera {

const char *to_string(StageRole role) {
    switch (role) {
    case StageRole::Scalar: return "scalar";
    case StageRole::Unanalysable: return "unanalysable";
    case StageRole::Compute: return "compute";
    case StageRole::EpilogueOutput: return "epilogue output";
    case StageRole::MemoryOutput: return "memory-bound output";
    case StageRole::Reduction: return "reduction";
    case StageRole::SharedProducer: return "shared producer";
    }
    return "?";
}

std::vector<StageAssignment> assign_roles(const analysis::FunctionDag &dag, const analysis::StagePlan &plan) {
    std::vector<StageAssignment> roles;
    for (auto it = dag.nodes().rbegin(); it != dag.nodes().rend(); ++it) {
        const analysis::FunctionNode &node = *it;
        const std::string &name = node.func.name();
        if (plan.inlined.count(name)) continue;  // Halide inlines by default
        const std::vector<analysis::TensorExpr> &stages = plan.stages.at(name);
        StageAssignment a;
        a.node = &node;
        a.unanalysable = analysis::unanalysable_reason(stages);
        // A stage affine only with a dim seen split is scheduled so as an output
        // (its loops split first); elsewhere it keeps the safe schedule.
        if (a.unanalysable.empty() && stages[0].split && !node.is_output) {
            a.unanalysable = "non-affine access " + stages[0].split->access;
        }
        if (node.func.args().empty()) {
            a.role = StageRole::Scalar;
        } else if (!a.unanalysable.empty()) {
            a.role = StageRole::Unanalysable;
        } else if (analysis::compute_stage(stages) && node.func.updates().size() == 1) {
            a.role = StageRole::Compute;
        } else if (node.is_output && node.func.updates().empty()) {
            a.producer = analysis::epilogue_producer(stages[0], dag, plan);
            a.role = a.producer ? StageRole::EpilogueOutput : StageRole::MemoryOutput;
        } else if (!node.func.updates().empty()) {
            a.role = StageRole::Reduction;
        } else {
            a.role = StageRole::SharedProducer;
        }
        if (a.role != StageRole::Unanalysable) a.unanalysable.clear();
        roles.push_back(a);
    }
    return roles;
}

}  // namespace tessera
