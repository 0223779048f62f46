// ModelRecord: one (model, contender) row of `tessera-bench --model`: Tessera's
// compiled library, onnxruntime or PyTorch on one model, its times and its error
// against the reference peer's outputs; and the reports made from a list of them
// (the table, JSON).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tessera::bench {

// The contenders' names, as --against and the reports write them.
inline const std::string kTessera = "tessera";
inline const std::string kOnnxRuntime = "onnxruntime";
inline const std::string kPyTorch = "pytorch";

struct ModelRecord {
    std::string model;      // the .onnx file
    std::string scheduler;  // kTessera, kOnnxRuntime or kPyTorch
    // "ok"; "mismatch" (ran, outputs off the reference or not finite; still timed);
    // "failed" (did not compile, load or run); "crashed" (a peer process that died or
    // timed out); "skipped" (a peer that is not installed or has no model file: `error`
    // says how to get it).
    std::string status = "failed";
    std::string error;
    std::string impl;       // e.g. "onnxruntime 1.17.1", "Tessera, 22 kernels"
    std::string reference;  // whose outputs rel_error is measured against ("" when none ran)
    bool ok = false;
    double rel_error = 0;   // max over the outputs (graph::relative_error); +inf for NaN
    double time_ms_min = 0, time_ms_median = 0;
    int rounds = 0, threads = 0;
    std::string timing;     // "interleaved" (rounds) or "alone" (each contender's runs back to back)
    double compile_s = 0;   // Tessera: tessera compile's wall time; a peer: its model load
    double speedup_vs_onnxruntime = 0;  // onnxruntime median / this median; 0 when either is not ok
};

nlohmann::json to_json(const ModelRecord &r);
ModelRecord model_record_from_json(const nlohmann::json &j);

// Sets speedup_vs_onnxruntime on every record whose model has an ok onnxruntime row.
void derive_model_speedups(std::vector<ModelRecord> &records);

// A status for a contender that ran: "ok" when rel_error <= tolerance (NaN and
// infinity never pass), "mismatch" otherwise.
std::string model_status(double rel_error, double tolerance);

// Writes the records as one JSON array. Throws std::runtime_error when it cannot.
void write_model_json(const std::vector<ModelRecord> &records, const std::string &path);

// The table of one model's records: contender, min ms, median ms, rel err, ok, speedup
// vs onnxruntime, impl; skipped and failed contenders on a line with the reason.
std::string format_model_table(const std::vector<ModelRecord> &records);

// One line per model and contender over several models: the median ms and the speedup
// vs onnxruntime, and the geomean of each contender's speedup.
std::string format_model_summary(const std::vector<ModelRecord> &records);

}  // namespace tessera::bench
