// Calibration of the rTile performance model (rtile/perf_model.h) against this
// machine's measurements. The model predicts a stage from a few terms (arithmetic,
// loads into the registers, traffic into L1 and into L2, and the costs it adds by
// count: scatters, gathers, copied rows), each from a device figure. How close those
// figures come to what a program really reaches differs per program family and per
// machine: a factor per term and family, fitted to the candidates `tessera compile
// --tune` timed (its tuning log), corrects them. `tessera-profile --calibrate`
// fits the factors and writes them into the device profile; the construction then
// ranks its programs with them. Halide-free: the profile tool links it.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <map>
#include <string>
#include <vector>

namespace tessera::hal {

// One stage's prediction before calibration (rtile::PerfModel::predict fills it).
struct ModelTerms {
    std::string family;       // rtile::program_family: "matmul", "conv", "depthwise", "reduction"
    double compute_ms = 0;    // arithmetic at the FMA peak (latency-bound register tiles slowed)
    double registers_ms = 0;  // loads and broadcasts into the registers, on the load ports
    double l1_ms = 0;         // traffic into L1 tiles from L2
    double l2_ms = 0;         // traffic into L2 tiles from the LLC or DRAM
    double overhead_ms = 0;   // costs added to the bound: scatters, gathers, copied rows
    double parallel_efficiency = 1;  // tasks over cores (1: even)
    // The stage's share of its pipeline's predicted time: 1, or a producer computed per
    // band of a fused chain's consumer, predicted for one band: bands over cores.
    double weight = 1;
};

// Multipliers on one family's terms (1: the model as built).
struct FamilyCalibration {
    double compute = 1, registers = 1, l1 = 1, l2 = 1, overhead = 1;
    int partitions = 0;  // measured partitions the factors were fitted to
};

// Per program family; a family without an entry is predicted uncalibrated.
using ModelCalibration = std::map<std::string, FamilyCalibration>;

// A family's factors in `calibration` (none: the model as built).
FamilyCalibration family_factors(const ModelCalibration &calibration, const std::string &family);

// The stage's time: the slowest of its bounds, plus the added costs, over the
// parallel efficiency, each term scaled by its factor.
double calibrated_ms(const ModelTerms &t, const FamilyCalibration &f);
// With the family's factors from `calibration` (none: uncalibrated).
double calibrated_ms(const ModelTerms &t, const ModelCalibration &calibration);

// What the fit learns from: the candidates of one tuned partition, each with its
// stages' terms and its measured time.
struct CalibrationCandidate {
    std::string name;  // "Tessera:N"
    std::vector<ModelTerms> stages;
    double measured_ms = 0;
};
struct CalibrationSample {
    std::string partition, ops;
    std::vector<CalibrationCandidate> candidates;
};

// A candidate's predicted time: its stages' calibrated times, weighted.
double predicted_ms(const CalibrationCandidate &c, const ModelCalibration &calibration);
// The family a partition counts under: its heaviest stage's (candidate 0's).
std::string sample_family(const CalibrationSample &s);

// Fits the factors of every family with at least `min_partitions` partitions: in log
// space, minimising the squared log ratio of predicted to measured time over every
// candidate, plus the same for each candidate's time relative to its partition's
// first (so the order inside a partition counts as much as the scale), plus the log
// of the predicted-best candidate's measured time over the best's (what an untuned
// compile loses), plus a weak pull of every factor towards 1 (so a term the data never
// bind keeps 1), by coordinate descent on a grid of factors from 1/16 to 16. A
// family whose fitted factors would pick worse than the model as built takes one
// factor for every term instead (its order kept, its times scaled). Families with
// fewer partitions keep no entry (uncalibrated).
ModelCalibration fit_calibration(const std::vector<CalibrationSample> &samples, int min_partitions = 3);

// How well a calibration predicts one family's partitions.
struct FamilyAgreement {
    std::string family;
    int partitions = 0, candidates = 0;
    double rank_correlation = 0;  // Spearman's, within each partition (of 2+ candidates), averaged
    double median_ratio = 0;      // predicted / measured over every candidate
    double best_found = 0;        // share of partitions whose predicted-best candidate measured best
    // Over partitions: the measured time of the predicted best over the best measured
    // (1: the untuned pick is the tuned one), its median.
    double median_pick_over_best = 0;
};
std::vector<FamilyAgreement> model_agreement(const std::vector<CalibrationSample> &samples,
                                             const ModelCalibration &calibration);

// The JSON forms of a stage list (a tuning log's candidate) and of a calibration (a
// device profile's "calibration"). The readers throw std::runtime_error for a missing
// or negative term, or a factor that is not a positive finite number.
nlohmann::json model_terms_json(const std::vector<ModelTerms> &stages);
std::vector<ModelTerms> model_terms_list_from_json(const nlohmann::json &j);
nlohmann::json calibration_json(const ModelCalibration &calibration);
ModelCalibration calibration_from_json(const nlohmann::json &j);

// Spearman's rank correlation of two equally long series (ties share their mean
// rank); 0 when either is constant or shorter than 2.
double spearman(const std::vector<double> &a, const std::vector<double> &b);

// The measurements in tuning logs (JSON Lines, apps/model/tuning_log.h) made under
// the device figures `figures` (profile_fingerprint of the profile without its
// calibration) on any target: one sample per record with the stages' terms. Records
// for other figures and records without terms (older logs) are skipped and counted in
// *skipped. Throws std::runtime_error "PATH:LINE: ..." for a malformed line or a file
// that cannot be read.
std::vector<CalibrationSample> read_calibration_samples(const std::string &path, const std::string &figures,
                                                        int *skipped);

}  // namespace tessera::hal
