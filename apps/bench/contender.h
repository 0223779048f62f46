// Contender: one way of running an op that tessera-bench times: the op JIT-compiled
// with a Halide autoscheduler, the oneDNN baseline, the cuBLAS or cuDNN baseline, or (chain ops only) the chain's
// stages each compiled and scheduled by Tessera on its own ("Tessera-unfused").
#pragma once

#include "jit_op.h"

#include <memory>
#include <string>
#include <vector>

namespace tessera::onednn {
class OnednnOp;
}
namespace tessera::cuda {
class GpuBaseline;
}

namespace tessera::bench {

class UnfusedChain;

// A contender name with settings: "Tessera+candidate=1" is Tessera scheduled with
// that option (SchedulerOptions, set_scheduler_option), timed side by side with
// plain "Tessera".
struct Variant {
    std::string base;                                            // the scheduler's name
    std::vector<std::pair<std::string, std::string>> settings;  // option=value
};
// Throws std::invalid_argument on a setting without '='.
Variant split_variant(const std::string &contender);
// `base` with the variant's options set. Throws std::invalid_argument naming an
// unknown option or a bad value.
SchedulerChoice apply_variant(const Variant &variant, const SchedulerChoice &base);

// A contender's own setting, not a scheduler option: `Tessera+measure=K` times Tessera's
// top K rPrograms and keeps the fastest (JitOp's measured pick; what --tune adds).
inline constexpr const char *kMeasureSetting = "measure";
// The variant's measure=K, else `fallback`. Throws std::invalid_argument for a bad K.
int measured_candidates_of(const Variant &variant, int fallback);

class Contender {
public:
    // Builds (schedules and compiles, or creates oneDNN primitives). A Halide contender
    // is scheduled with `base`'s target and options, under the variant's settings;
    // `measured_candidates` as JitOp's, measured on `pool` (the one run() will be
    // given). Throws on failure.
    Contender(const ops::OpConfig &config, const std::string &scheduler, const SchedulerChoice &base,
              int measured_candidates = 0, graph::JitThreadPool *pool = nullptr);
    ~Contender();

    // False (with the reason) when the baseline cannot run this op.
    bool supported() const { return why_not_.empty(); }
    const std::string &why_not() const { return why_not_; }
    std::string impl() const;
    // False when oneDNN runs one of its slow paths (see BenchRecord::optimised_impl).
    bool optimised_impl() const;
    double schedule_ms() const { return schedule_ms_; }
    double compile_ms() const { return compile_ms_; }

    // A Halide contender runs its parallel loops on `pool` where one is given (the
    // pool a compiled model runs its partitions on), else on Halide's own; the
    // baselines ignore it.
    void run(std::vector<Tensor> &inputs, Tensor &output, graph::JitThreadPool *pool = nullptr);

private:
    std::unique_ptr<JitOp> halide_;
    std::unique_ptr<onednn::OnednnOp> onednn_;
    std::unique_ptr<cuda::GpuBaseline> gpu_;  // cuBLAS or cuDNN
    std::unique_ptr<UnfusedChain> unfused_;
    std::string scheduler_, why_not_;
    double schedule_ms_ = 0, compile_ms_ = 0;
};

// True when this build has the oneDNN baseline.
bool have_onednn();
// The GPU baselines this build has (cuBLAS, cuDNN) that can run here: a GPU is present.
std::vector<std::string> usable_gpu_baselines();

}  // namespace tessera::bench
