// The tuning log of `tessera compile --tune`: JSON Lines, one record per tuned
// partition, so a later compile of the same partition (the same ops, attributes and
// shapes, in this model or another) on the same target and device profile takes the
// measured choice without measuring again. Default: <out>/<name>.tune.jsonl beside the
// library; --tune-log F names another.
//
//   {"signature": "9f3c...", "ops": "Conv+Relu", "shape": "1x64x56x56", "partition": "p3_conv1",
//    "target": "x86-64-linux-avx512...", "profile": "<device profile fingerprint>",
//    "figures": "<fingerprint of its measured figures, without the calibration>",
//    "candidates": [{"name": "Tessera:0", "predicted_ms": 0.35, "measured_ms": 0.97,
//                    "stages": [<the model's terms per compute stage>]}, ...], "chosen": 1}
// The terms (hal/model_calibration.h) are what `tessera-profile --calibrate` fits to.
#pragma once

#include "graph.h"
#include "model_calibration.h"
#include "partition.h"

#include <string>
#include <vector>

namespace tessera::cli {

struct TuningRecord {
    std::string signature;  // partition_signature
    std::string ops, shape, partition;  // for people reading the log
    std::string target, profile;
    std::string figures;  // hal::figures_fingerprint of the profile ("" in older logs)
    std::vector<std::string> names;                 // per candidate: "Tessera:N" or a Halide autoscheduler
    std::vector<double> predicted_ms, measured_ms;  // per candidate (predicted 0: no prediction)
    // Per candidate, the model's terms of its compute stages (empty: a Halide
    // autoscheduler's, or an older log's).
    std::vector<std::vector<hal::ModelTerms>> stages;
    int chosen = 0;
};

// A partition's identity for the log: its nodes' op types, attributes and the shapes
// they read and write (inputs from outside marked as constants or activations), in
// order, hashed (64-bit FNV-1a, hex). Names and weight values are left out.
std::string partition_signature(const graph::Graph &g, const graph::Partition &p);

struct TuningLog {
    std::vector<TuningRecord> records;  // for the target and profile asked for
    int elsewhere = 0;                  // records for another target or device profile, ignored
    // The record for a signature (the last one written), or nullptr.
    const TuningRecord *find(const std::string &signature) const;
};

// Reads `path` (a missing file is an empty log), keeping the records for `target`
// and `profile`. Throws graph::GraphError "PATH:LINE: ..." for a malformed line (the
// tools' error for a bad input file: exit status 2).
TuningLog read_tuning_log(const std::string &path, const std::string &target, const std::string &profile);

// Appends the records, one line each. Throws std::runtime_error when it cannot write.
void append_tuning_log(const std::string &path, const std::vector<TuningRecord> &records);

}  // namespace tessera::cli
