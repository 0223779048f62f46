// Measured selection for a model's partitions, as Roller profiles its top-K kernels on
// the device: each partition with a convolution or a matrix product is scheduled with each of Tessera's top
// rPrograms (and Halide's Mullapudi2016), JIT-compiled (`jobs` at once) and timed on this machine (the model's thread count, random
// inputs of the partition's shapes, the candidates in interleaved rounds), and the
// fastest is kept. Candidate 0, the untuned choice, is always among them, so a tuned
// partition is never slower than the untuned one beyond noise. `tessera compile --tune`.
#pragma once

#include "emit_model.h"
#include "opened_model.h"

#include <functional>
#include <string>
#include <vector>

namespace tessera::cli {

struct TuneSettings {
    // Each fused partition timed against its pieces first, the slower form split
    // (tune_fusion.h); false with --no-tune-graph.
    bool fusion = true;
    int candidates = kDefaultTuneCandidates;  // Tessera's top rPrograms timed per partition (at least 1)
    // Halide's autoschedulers that join as candidates ("Mullapudi2016", "Adams2019", ...),
    // so the pick is never slower than theirs.
    std::vector<std::string> halide_schedulers = {"Mullapudi2016"};
    int threads = 0;     // the model's thread pool (0: every core this process may use)
    int rounds = 5;      // timed interleaved rounds, after one warm-up round
    int jobs = 0;        // candidates JIT-compiled at once (threads); 0: one per core
    std::string log_path;  // the tuning log read and appended to (tuning_log.h); empty: none
    double budget_s = 0;   // measuring stops once this is spent (the rest untuned); 0: no limit
    // Replaces the timing of the candidates (each still scheduled and compiled): given the
    // partition's and the candidate's names, the milliseconds to rank it by. For tests,
    // which need a choice that does not depend on the machine's noise.
    std::function<double(const std::string &partition, const std::string &candidate)> timer_override;
};

// Tunes every partition of `model` with a convolution or a matrix product (the others
// keep candidate 0). A partition the log has a record for (same signature, target and
// device profile) takes the record's choice unmeasured, and one with the signature of a
// partition measured earlier in the run (a repeated block) takes its choice; the new measurements are
// appended to the log. Throws graph::GraphError for a malformed log (file and line).
// Only the Tessera scheduler has candidates: with another, returns nothing. `progress`
// gets a line per partition.
std::vector<graph::MeasuredCandidates> tune_partitions(const OpenedModel &model, const TuneSettings &settings,
                                             const std::function<void(const std::string &)> &progress = {});

// The schedule a candidate name stands for: "Tessera:N" (Tessera's N-th rProgram for
// every compute stage, under base's options) or a Halide autoscheduler's name. Throws
// graph::GraphError for any other name (a log written by another build).
SchedulerChoice candidate_choice(const SchedulerChoice &base, const std::string &name);

// The schedule of partition k with its tuned candidate (the untuned one where none).
std::function<void(Halide::Pipeline &, size_t)> tuned_schedule(const OpenedModel &model,
                                                              const std::vector<graph::MeasuredCandidates> &tuning);

}  // namespace tessera::cli
