// BenchRecord: one (op, scheduler) row of a tessera-bench run, and the reports made
// from a list of them (JSON array, CSV, geomean summary).
#pragma once

#include "device_profile.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace tessera::bench {

// The name tessera-bench uses for the oneDNN baseline in --schedulers and reports.
inline const std::string kOnednn = "oneDNN";
// The GPU baselines (baselines/cublas, baselines/cudnn), in builds that found CUDA.
inline const std::string kCublas = "cuBLAS";
inline const std::string kCudnn = "cuDNN";
// The contender running a chain op's stages each scheduled by Tessera on its own
// (unfused_chain.h), beside "Tessera", the chain scheduled as one pipeline.
inline const std::string kTesseraUnfused = "Tessera-unfused";

struct BenchRecord {
    std::string op, shape, scheduler;
    // "ok", "mismatch" (ran, wrong result), "failed" (threw), "crashed" (signal or
    // timeout in the isolated child), "n/a" (the baseline does not support the op).
    std::string status = "failed";
    std::string error;  // why, for every status but ok
    std::string impl;   // Halide scheduler or oneDNN impl_info_str()
    // oneDNN ran an optimised kernel (a JIT or brgemm implementation); false for its
    // slow paths (ref:, simple_*, gemm:ref), whose rows stay out of the headline
    // geomeans. Always true for Halide contenders.
    bool optimised_impl = true;
    bool ok = false;
    double rel_error = 0;
    double schedule_ms = 0, compile_ms = 0;
    double time_ms_min = 0, time_ms_median = 0;
    int rounds = 0, threads = 0;
    double flops = 0, bytes = 0;
    bool compute_bound = false;
    double gflops = 0, gbytes_per_s = 0;
    double percent_of_peak = 0;     // of peak FMA (compute-bound) or DRAM copy bandwidth (otherwise)
    double speedup_vs_onednn = 0;   // oneDNN median / this median; 0 when either is not ok
    // Ceilings for the roofline (threads used), and where they came from.
    double peak_gflops = 0, peak_dram_gbs = 0, peak_llc_gbs = 0;
    // What a hand-written blocked 2-D transpose reaches past the LLC (0: not in the profile).
    double peak_transpose_gbs = 0;
    std::string profile_source;
};

nlohmann::json to_json(const BenchRecord &r);
BenchRecord record_from_json(const nlohmann::json &j);

// Fills the derived fields (rates, % of peak, ceilings) from the times, the device
// profile and the thread count.
void derive_rates(BenchRecord &r, const hal::DeviceProfile &profile, int threads);
// Sets speedup_vs_onednn on every record that has an ok oneDNN row for the same op and shape.
void derive_speedups(std::vector<BenchRecord> &records);

void write_json(const std::vector<BenchRecord> &records, const std::string &path);
void write_csv(const std::vector<BenchRecord> &records, const std::string &path);

// Human-readable rows of one op's records; for a transpose, a last line with the
// machine's transpose ceiling when the profile has it.
std::string format_rows(const std::vector<BenchRecord> &records);
// Each scheduler's speedup over oneDNN: geomeans over compute-bound and over
// memory-bound ops, and the median, counting only ops where oneDNN ran an
// optimised kernel (the others are listed with their impl); then Tessera over
// each other scheduler (only ops where both sides are correct).
std::string format_summary(const std::vector<BenchRecord> &records, const std::vector<std::string> &schedulers);

}  // namespace tessera::bench
