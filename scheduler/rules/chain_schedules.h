// The fused schedule of a GEMM chain (GEMM -> memory-bound stages -> GEMM, the
// attention form included) chosen by the block-order analysis: the consumer's
// rows in blocks, the producer and every stage between computed per block of
// rows, so the intermediate (a block of rows of the scores) stays in cache. In
// the online-softmax form (the consumer read by a running combine over its
// blocks of keys) the keys stream through each block of rows instead.
#pragma once

#include "device_spec.h"
#include "operator_chain.h"
#include "schedule_builder.h"
#include "stage_plan.h"

#include <string>
#include <vector>

namespace tessera::rules {

// Applies the fused schedule and returns true, or returns false (applying
// nothing) with the reason in `why_not` when the chain is not of that form: a
// row statistic between the ops (an attention's softmax), the consumer an
// output, or read only by a pure output at the point it writes (an op's final
// copy, computed at root then), or only by a running combine over one of its
// batch dims (the online-softmax form), with one reduction, over a pure dim of
// the producer, and its second dim the rows both share. `also` gets the Funcs
// beyond the chain it scheduled (the final copy, the combine and what else the
// combine reads of the block), `form` what it built, for TESSERA_EXPLAIN.
bool schedule_fused_gemm_chain(schedule::ScheduleBuilder &script, const chain::OperatorChain &c,
                               const analysis::FunctionDag &dag, const analysis::StagePlan &plan,
                               const hal::DeviceSpec &d, std::string *why_not, std::vector<std::string> *also,
                               std::string *form);

// Whether a convolution chain (either op with more than one reduction loop, no
// row statistic between) is fused by bands: the consumer takes a program whose
// L2 tiles are bands of whole rows, and the producer's pure epilogue and the
// producer are computed per band (stage_steps, schedule_compute_stage). Only
// where the intermediate outgrows the cores' L2 caches together: within them the
// ops one by one keep it there, and the band programs cost more than they save
// (side by side on C1-C8: docs/results.md, "Chains"). Else false, with the reason.
bool convolution_chain(const chain::OperatorChain &c, const analysis::StagePlan &plan);
bool fuse_by_bands(const chain::OperatorChain &c, const analysis::StagePlan &plan, const hal::DeviceSpec &d,
                   std::string *why_not);

}  // namespace tessera::rules
