// TESSERA_EXPLAIN: the scheduler's decisions in words, from what the steps chose
// (rPrograms and the rules' decisions) and the finished PipelineSchedule.
#pragma once

#include "block_order.h"
#include "construction.h"
#include "decisions.h"
#include "pipeline_schedule.h"
#include "pure_outputs.h"
#include "tensor_expr.h"

#include <ostream>
#include <string>

namespace tessera {

// One rProgram: predicted time, bottleneck, tiles per level, packing and panels.
void explain_program(std::ostream &out, const analysis::TensorExpr &t, const rtile::RProgram &p, const char *label);

// A compute stage's candidates from its decision: the one applied (and why), then
// the others, best predicted first.
void explain_candidates(std::ostream &out, const StageDecision &decision);

// A memory-intensive output: its row loop, prefetches, row blocks and transposed blocks.
void explain_memory_output(std::ostream &out, const std::string &name, const rules::Attachment &row,
                           const rules::RowDecisions &decisions, const analysis::TensorExpr &t, int vector_lanes);

// A chain of compute-intensive stages: the orders the block-order analysis ranks
// with their predicted movement per level, the ops one by one, and what the
// driver decided.
void explain_chain(std::ostream &out, const chain::OperatorChain &c, const chain::ChainAnalysis &a,
                   double analysis_ms, const ChainDecision &decision);

// The finished schedule's loop nests, under a heading.
void explain_schedule(std::ostream &out, const schedule::PipelineSchedule &s);

}  // namespace tessera
