// JitOp: one catalogued operator JIT-compiled for the host with a chosen
// autoscheduler. Estimates for every input and the output come from the op's
// signature, so any autoscheduler can run on it.
#pragma once

#include "jit_thread_pool.h"
#include "op_catalog.h"
#include "schedulers.h"
#include "tensor.h"

#include <Halide.h>

#include <string>
#include <vector>

namespace tessera {

class JitOp {
public:
    // Builds, schedules and compiles for choice.target. Throws ops::OpError for a bad
    // configuration and std::exception (Halide::CompileError included) when scheduling
    // or compilation fails. With the Tessera scheduler and `measured_candidates` > 0,
    // compiles and times each of its top `measured_candidates` rPrograms and keeps the
    // fastest, as Roller's kernel profiler does (schedule_ms and compile_ms then cover
    // all of them), timed on `measure_on` where given (the pool the op will run on).
    JitOp(const ops::OpConfig &config, const SchedulerChoice &choice, int measured_candidates = 0,
          graph::JitThreadPool *measure_on = nullptr);

    const ops::OpConfig &config() const { return config_; }
    const ops::OpSignature &signature() const { return signature_; }
    double schedule_ms() const { return schedule_ms_; }  // autoscheduler time
    double compile_ms() const { return compile_ms_; }    // lowering + LLVM code generation

    // Runs on `inputs` (shapes as in signature().inputs) into `output` (already sized),
    // on Halide's thread pool, or on `pool` (a model's own) where one is given.
    void run(std::vector<Tensor> &inputs, Tensor &output, graph::JitThreadPool *pool = nullptr);

private:
    // A fresh pipeline (new Funcs and ImageParams) scheduled by `choice` and compiled.
    void build(const SchedulerChoice &choice);

    ops::OpConfig config_;
    ops::OpSignature signature_;
    Halide::Target target_;
    std::vector<Halide::ImageParam> params_;
    Halide::Pipeline pipeline_;
    double schedule_ms_ = 0, compile_ms_ = 0;
};

// Fresh random inputs for a signature (seeded per input), and a NaN-poisoned output.
std::vector<Tensor> make_inputs(const ops::OpSignature &sig, uint64_t seed);
Tensor make_poisoned_output(const ops::OpSignature &sig);

}  // namespace tessera
