// tessera-bench's "Tessera-unfused" contender: a chain op (attention, gemm_chain,
// conv_chain) run as its separate stages, each a catalogued op JIT-compiled and
// scheduled by Tessera on its own, timed as the sequence; the fused op, one pipeline
// scheduled as a whole, is the "Tessera" contender beside it. Stages:
//   attention:  batch_matmul (trans_b=1: q k^T), mul by the scale (a [1] constant;
//               none when scale=1), add the mask (mask=1), softmax over L, batch_matmul
//   gemm_chain: batch_matmul, relu | gelu | mul by the scale (between), batch_matmul
//   conv_chain: conv2d, bias_add, relu, conv2d, bias_add
// The stages' outputs are scratch tensors made when it is built.
#pragma once

#include "jit_op.h"
#include "op_config.h"
#include "tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace tessera::bench {

// Where a stage's input comes from.
struct StageSource {
    enum Kind { Input, Stage, Constant } kind;
    int index;  // into the op's inputs, the earlier stages, or UnfusedPlan::constants
};

struct UnfusedStage {
    ops::OpConfig config;
    std::vector<StageSource> sources;  // in the order of the stage op's inputs
};

struct UnfusedPlan {
    std::vector<UnfusedStage> stages;  // the last one writes the chain's output
    std::vector<Tensor> constants;
};

// True for the ops that have an unfused plan.
bool is_chain_op(const std::string &op);
// The stages of a chain op; throws std::invalid_argument for any other op.
UnfusedPlan unfused_plan(const ops::OpConfig &config);

class UnfusedChain {
public:
    // Builds and compiles every stage with `scheduler`. Throws as JitOp does.
    UnfusedChain(const ops::OpConfig &config, const SchedulerChoice &scheduler);

    double schedule_ms() const { return schedule_ms_; }  // the stages' sums
    double compile_ms() const { return compile_ms_; }
    // "Tessera per stage: batch_matmul, mul, softmax, batch_matmul"
    std::string impl() const;

    // inputs follow ops::describe_op(config).inputs; every stage on `pool` where
    // one is given (JitOp::run).
    void run(std::vector<Tensor> &inputs, Tensor &output, graph::JitThreadPool *pool = nullptr);

private:
    struct Stage {
        std::unique_ptr<JitOp> op;
        std::vector<StageSource> sources;
        Tensor out;                // scratch (unused by the last stage)
        std::vector<Tensor> args;  // the sources while the stage runs
    };
    std::string scheduler_;
    std::vector<Stage> stages_;
    std::vector<Tensor> constants_;
    double schedule_ms_ = 0, compile_ms_ = 0;
};

}  // namespace tessera::bench
