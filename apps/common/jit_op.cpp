#include "jit_op.h"

#include "halide_io.h"
#include "halide_axes.h"
#include "op_builder.h"
#include "schedulers.h"
#include "stopwatch.h"

namespace tessera {

JitOp::JitOp(const ops::OpConfig &config, const std::string &scheduler)
    : config_(config), signature_(ops::describe_op(config)), target_(Halide::get_host_target()) {
    std::vector<Halide::Func> inputs;
    for (const ops::TensorSpec &spec : signature_.inputs) {
        Halide::ImageParam param(Halide::Float(32), int(spec.shape.size()), spec.name);
        param.set_estimates(ops::halide_region(spec.shape));
        params_.push_back(param);
        inputs.push_back(param);
    }
    Halide::Func out = ops::build_op(config_, inputs);
    out.set_estimates(ops::halide_region(signature_.output.shape));
    pipeline_ = Halide::Pipeline(out);

    Stopwatch watch;
    apply_scheduler(pipeline_, scheduler, target_, host_machine_params());
    schedule_ms_ = watch.lap_ms();
    pipeline_.compile_jit(target_);
    compile_ms_ = watch.lap_ms();
}

void JitOp::run(std::vector<Tensor> &inputs, Tensor &output) {
    for (size_t i = 0; i < params_.size(); i++) params_[i].set(as_halide_buffer(inputs[i]));
    Halide::Buffer<float> out = as_halide_buffer(output);
    pipeline_.realize(out, target_);
}

std::vector<Tensor> make_inputs(const ops::OpSignature &sig, uint64_t seed) {
    std::vector<Tensor> inputs;
    for (size_t i = 0; i < sig.inputs.size(); i++) {
        const ops::TensorSpec &spec = sig.inputs[i];
        inputs.push_back(random_tensor(spec.shape, seed * 1000003 + i, spec.lo, spec.hi));
    }
    return inputs;
}

Tensor make_poisoned_output(const ops::OpSignature &sig) {
    Tensor out(sig.output.shape);
    poison(out);
    return out;
}

}  // namespace tessera
