// OnednnOp: one catalogued operator implemented with oneDNN 2.6 primitives, the
// baseline tessera-bench measures Halide schedules against.
//
// Fair use: primitive descriptors, primitives and weight reorders are made outside
// run(); activations come in and go out in the same plain row-major layout the Halide
// kernels use, so any reorder to or from a blocked layout the primitive prefers is
// part of run() and therefore timed. Convolution weights are treated as constants:
// they are reordered to the primitive's layout (format_tag::any) once per weight
// buffer, as an inference framework does.
#pragma once

#include "op_config.h"
#include "tensor.h"

#include <memory>
#include <string>
#include <vector>

namespace tessera::onednn {

class Kernel;

class OnednnOp {
public:
    // Throws ops::OpError for a bad configuration. An op oneDNN cannot run is not an
    // error: supported() is false and why_not() says why.
    explicit OnednnOp(const ops::OpConfig &config);
    ~OnednnOp();
    OnednnOp(const OnednnOp &) = delete;
    OnednnOp &operator=(const OnednnOp &) = delete;

    bool supported() const { return kernel_ != nullptr; }
    std::string why_not() const { return why_not_; }
    // The primitives' impl_info_str(), e.g. "brg:avx512_core", plus any timed reorders.
    std::string impl() const;
    // True when oneDNN fell back to a reference implementation ("ref:...").
    bool reference_impl() const;
    // True when the main primitive (reorders aside) is one of oneDNN's optimised JIT
    // kernels (is_optimised_impl: "jit", "brg" in its impl string), false for its C++
    // fallbacks ("ref:any", "simple_nchw", "ncsp_bnorm", ...) and unsupported ops.
    bool optimised_impl() const;

    // inputs follow ops::describe_op(config).inputs; output is already sized.
    void run(std::vector<Tensor> &inputs, Tensor &output);

private:
    std::unique_ptr<Kernel> kernel_;
    std::string why_not_;
};

}  // namespace tessera::onednn
