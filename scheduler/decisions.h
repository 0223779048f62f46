// Decisions as data: what the scheduler chose for each stage and each chain of
// compute-intensive stages, with the alternatives it weighed and why, returned in
// ScheduleOutcome beside the steps that carry them out. The explanation renders
// chains from these records, the tests assert on them, and a tuner reads the
// candidates and their predicted times from them (a candidate is re-applied with
// SchedulerOptions::candidate).
#pragma once

#include "compute_schedules.h"
#include "pure_outputs.h"
#include "rtile.h"
#include "stage_roles.h"

#include <string>
#include <vector>

namespace tessera {

// Why a compute stage runs the program it runs.
enum class ProgramChoice {
    BestPredicted,     // the model's first
    CandidateOption,   // SchedulerOptions::candidate picked another
    BandsOfWholeRows,  // a fused convolution chain's consumer: the best program whose L2 tiles are bands of rows
};
const char *to_string(ProgramChoice choice);

struct StageDecision {
    std::string func;  // the Func scheduled (a compute stage for Compute and EpilogueOutput)
    StageRole role = StageRole::SharedProducer;
    std::string epilogue;  // EpilogueOutput: the pure output computed per tile of `func`
    // Compute and EpilogueOutput on a CPU: the constructed rPrograms, best predicted
    // first, and the one applied.
    std::vector<rtile::RProgram> candidates;
    int chosen = -1;
    // The chosen program's share of the pipeline's predicted time: 1, or a producer
    // computed per band of a fused chain's consumer (predicted for one band): bands
    // over cores. ScheduleOutcome::predicted_ms sums predicted_ms x this.
    double prediction_weight = 1;
    ProgramChoice choice = ProgramChoice::BestPredicted;
    analysis::TensorExpr compute;  // the stage the candidates tile (rtile::program_expr: each one's dims)
    // Which tiles of its epilogue the stage is computed per (None: at root, the
    // epilogue after it, or no epilogue).
    rules::EpilogueTiles epilogue_tiles = rules::EpilogueTiles::None;
    bool chain_member = false;  // computed inside a fused chain's schedule (by bands)
    rules::RowDecisions rows;   // MemoryOutput: what its rows chose (prefetches, transposed blocks)
    // Reduction: the loop it is computed at, "consumer.var"; empty at root (or an output).
    std::string computed_at;

    const rtile::RProgram *chosen_program() const { return chosen >= 0 ? &candidates[size_t(chosen)] : nullptr; }
};

enum class ChainOutcome {
    Fused,             // one fused schedule (rules/chain_schedules)
    FusedByBands,      // the consumer's L2 tiles in bands of rows, the producer computed per band
    NotFused,          // fusion predicted a gain but was refused (`why_not` says why)
    FusionOff,         // SchedulerOptions::fuse_chains is off
    NoGainPredicted,   // the block-order analysis predicts no gain: one by one
    PartOfFusedChain,  // runs through stages another fused chain already scheduled
};
const char *to_string(ChainOutcome outcome);

struct ChainDecision {
    std::string producer, consumer;
    ChainOutcome outcome = ChainOutcome::NoGainPredicted;
    double predicted_gain = 0;  // the one-by-one movement cost over the best fused order's
    int orders_considered = 0;
    std::string form;     // Fused / FusedByBands: the form built
    std::string why_not;  // NotFused: why the fused schedule was refused
};

struct ScheduleDecisions {
    std::vector<StageDecision> stages;  // in the order they were decided (consumers first)
    std::vector<ChainDecision> chains;  // producers first

    // The decision for Func `func`; null when none was recorded.
    const StageDecision *stage(const std::string &func) const;
    // The chosen programs' model terms, weighted as predicted_ms sums them: what a
    // tuning log records for the calibration (hal/model_calibration.h).
    std::vector<hal::ModelTerms> chosen_terms() const;
};

}  // namespace tessera
