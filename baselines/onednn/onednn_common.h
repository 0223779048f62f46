// Internal pieces shared by the oneDNN kernels: the CPU engine and stream, memory
// descriptors for Tensors, the Kernel interface, and a timed layout bridge.
#pragma once

#include "op_params.h"
#include "tensor.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::onednn {

// Thrown while building a kernel when oneDNN cannot run the op; the message says why.
class Unsupported : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// One op's primitives, built once; run() only re-points memory and executes.
class Kernel {
public:
    virtual ~Kernel() = default;
    virtual std::string impl() const = 0;
    // The main primitive's impl_info_str() (reorders excluded).
    virtual std::string main_impl() const = 0;
    virtual void run(std::vector<Tensor> &inputs, Tensor &output) = 0;
};

dnnl::engine &cpu_engine();
dnnl::stream &cpu_stream();

// ops::Shape and dnnl::memory::dims are both std::vector<int64_t>; this names the intent.
dnnl::memory::dims to_dims(const ops::Shape &shape);
// Row-major (plain) descriptor of a logical shape.
dnnl::memory::desc plain_desc(const dnnl::memory::dims &dims);
dnnl::memory::desc strided_desc(const dnnl::memory::dims &dims, const dnnl::memory::dims &strides);
// Row-major strides of dims.
dnnl::memory::dims row_major_strides(const dnnl::memory::dims &dims);

// A memory object over caller storage, re-pointed on every run (cheap) so the
// object itself is made outside the timed region.
dnnl::memory user_memory(const dnnl::memory::desc &md);
void point(dnnl::memory &mem, const Tensor &t);

template <typename PrimitiveDesc>
std::string impl_of(const PrimitiveDesc &pd) {
    return pd.impl_info_str();
}

// True for oneDNN's optimised JIT kernels: impl strings containing "jit" (jit:avx2,
// jit:avx512_core, jit:uni, bnorm_jit:..., gemm:jit) or "brg"/"brdgmm" (brgconv,
// brgemm, brg:..., brdgmm_dw). False for its C++ fallbacks: "ref:any", "gemm:ref",
// "simple_nchw", "ncsp_bnorm", "simple_layer_normalization", ...
bool is_optimised_impl(const std::string &impl);

// The channel block oneDNN's JIT kernels use on this machine: 16 where the CPU has
// AVX-512 (avx512_core), 8 otherwise.
int64_t channel_block();
// The channel-blocked layout of that block for an activation of rank 3, 4 or 5
// (channels on axis 1): nCw16c / nChw16c / nCdhw16c, or nCw8c / nChw8c / nCdhw8c.
dnnl::memory::format_tag blocked_channel_tag(int ndims);
// The 4-D activation tag of an op's layout: nchw, nhwc, or nChw16c / nChw8c for a
// channel-blocked one (block 16 or 8).
dnnl::memory::format_tag image_tag(bool nhwc, bool blocked, int64_t block);

// `plain` (the primitive made on the caller's layout) when its implementation is
// optimised; otherwise the first of `alternatives` (other layouts, reordered to and
// from in run()) whose implementation is, skipping layouts oneDNN rejects; `plain`
// when none is.
template <typename PrimitiveDesc>
PrimitiveDesc prefer_optimised(const PrimitiveDesc &plain,
                               const std::vector<std::function<PrimitiveDesc()>> &alternatives) {
    if (is_optimised_impl(impl_of(plain))) return plain;
    for (const auto &make : alternatives) {
        try {
            PrimitiveDesc alternative = make();
            if (is_optimised_impl(impl_of(alternative))) return alternative;
        } catch (const dnnl::error &) {
            // oneDNN has no implementation for this layout: try the next one.
        }
    }
    return plain;
}

// Converts between the user's plain layout and the layout a primitive chose.
// When they agree it does nothing and the primitive reads/writes user storage;
// otherwise it owns a scratch buffer and a reorder that run() executes (timed).
class LayoutBridge {
public:
    LayoutBridge() = default;
    LayoutBridge(const dnnl::memory::desc &user, const dnnl::memory::desc &primitive, bool into_primitive);

    bool reorders() const { return reorder_ != nullptr; }
    std::string impl() const { return impl_; }
    // The memory the primitive uses (user storage, or the scratch buffer when reordering).
    dnnl::memory &primitive_memory() { return primitive_; }
    // The memory the primitive uses, after pointing the user side at t.
    dnnl::memory &bind(const Tensor &t);
    // Executes the reorder if there is one (before the primitive for inputs, after it for outputs).
    void convert();

private:
    dnnl::memory user_, primitive_;
    std::unique_ptr<dnnl::reorder> reorder_;
    bool into_primitive_ = true;
    std::string impl_;
};

// What a chain's stage fuses into its matmul or convolution primitive: an output
// scale (attr), then an eltwise post-op, then a binary add post-op of one more input
// of the output's shape (after the primitive's own inputs).
struct Epilogue {
    float scale = 1.0f;
    dnnl::algorithm eltwise = dnnl::algorithm::undef;
    float alpha = 0.0f, beta = 0.0f;  // the eltwise post-op's parameters
    bool add_input = false;
};

// A matmul (inputs a, b, bias when p.bias, then the added input) with an epilogue.
std::unique_ptr<Kernel> make_matmul_stage(const ops::MatmulParams &p, const Epilogue &epilogue);

// Convolution pieces shared by conv2d and conv_chain (conv.cpp).
// A direct convolution on the given activation descriptors (format_tag::any lets
// oneDNN choose), weights format_tag::any, a plain bias[oc] when `bias`, and `attr`.
dnnl::convolution_forward::primitive_desc conv_primitive_desc(const ops::ConvParams &p, const dnnl::memory::desc &src,
                                                              const dnnl::memory::desc &dst, bool bias,
                                                              const dnnl::primitive_attr &attr = {});
// The caller's weights (OIHW or HWIO, see ops::ConvParams) as oneDNN's logical [g,] o, i, kh, kw.
dnnl::memory::desc conv_user_weights_desc(const ops::ConvParams &p);
// Not an optimised kernel, or gemm-based: im2col + gemm ("gemm:jit" on nchw) is a
// fallback for convolutions, which oneDNN's direct JIT kernels beat on their layout.
bool conv_slow_fallback(const std::string &impl);

// Constant weights in a primitive's layout: reordered from the caller's tensor once
// per weight buffer (outside the timed runs, as an inference framework does; a
// weight tensor must not be changed in place between runs).
class ConstantWeights {
public:
    ConstantWeights() = default;
    ConstantWeights(const dnnl::memory::desc &user, const dnnl::memory::desc &primitive);
    // The weights in the primitive's layout, reordered first if `w` is a new buffer.
    dnnl::memory &prepare(const Tensor &w);

private:
    dnnl::memory user_, primitive_;
    dnnl::reorder reorder_;
    const float *prepared_for_ = nullptr;
};

// Factories, one per family; each throws Unsupported when oneDNN cannot run the op.
// A kernel over plain weights run on packed ones: `unpack` fills the plain weights
// (input `input`, shape `plain_shape`) from the packed, once per weight buffer.
using Unpack = std::function<void(const Tensor &packed, Tensor &plain)>;
std::unique_ptr<Kernel> with_unpacked_weights(std::unique_ptr<Kernel> plain, size_t input, ops::Shape plain_shape,
                                              Unpack unpack);

std::unique_ptr<Kernel> make_matmul_kernel(const ops::MatmulParams &p);
std::unique_ptr<Kernel> make_conv_kernel(const ops::ConvParams &p);
std::unique_ptr<Kernel> make_pool_kernel(const ops::PoolParams &p);
std::unique_ptr<Kernel> make_reduce_kernel(const ops::ReduceParams &p);
std::unique_ptr<Kernel> make_unary_kernel(const ops::UnaryParams &p);
std::unique_ptr<Kernel> make_binary_kernel(const ops::BinaryParams &p);
std::unique_ptr<Kernel> make_bias_add_kernel(const ops::BiasAddParams &p);
std::unique_ptr<Kernel> make_softmax_kernel(const ops::SoftmaxParams &p);
std::unique_ptr<Kernel> make_norm_kernel(const ops::NormParams &p);
std::unique_ptr<Kernel> make_transpose_kernel(const ops::TransposeParams &p);
std::unique_ptr<Kernel> make_pad_kernel(const ops::PadParams &p);
std::unique_ptr<Kernel> make_attention_kernel(const ops::AttentionParams &p);
std::unique_ptr<Kernel> make_gemm_chain_kernel(const ops::GemmChainParams &p);
std::unique_ptr<Kernel> make_conv_chain_kernel(const ops::ConvChainParams &p);

}  // namespace tessera::onednn
