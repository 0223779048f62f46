// The planning pass: what each stage the schedule must place is, its role, decided
// once from the analysis before any loop is shaped. The CPU and the GPU drivers
// both walk these roles (consumers first) and record what they chose for each in
// decisions.h.
#pragma once

#include "function_dag.h"
#include "stage_plan.h"

#include <string>
#include <vector>

namespace tessera {

enum class StageRole {
    Scalar,          // no dims (a full reduction, a 0-D output)
    Unanalysable,    // the analysis cannot read it: the safe schedule
    Compute,         // compute-intensive with one update: an rProgram (an output, or a producer at root)
    EpilogueOutput,  // a pure output computed per tile of the compute stage it finishes
    MemoryOutput,    // a pure output no compute stage feeds as its epilogue
    Reduction,       // a reduction without reuse
    SharedProducer,  // a pure producer kept out of line
};
const char *to_string(StageRole role);

struct StageAssignment {
    const analysis::FunctionNode *node = nullptr;
    StageRole role = StageRole::SharedProducer;
    const analysis::FunctionNode *producer = nullptr;  // EpilogueOutput: the compute stage it finishes
    std::string unanalysable;                          // Unanalysable: why
};

// The role of every stage that is not inlined, consumers before producers (a
// producer attaches to its consumer's loops).
std::vector<StageAssignment> assign_roles(const analysis::FunctionDag &dag, const analysis::StagePlan &plan);

}  // namespace tessera
