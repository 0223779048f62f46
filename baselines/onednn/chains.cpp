// The chains unfused: each as the sequence of its oneDNN primitives (oneDNN 2.6 has
// no fused attention or GEMM chain), the epilogues fused into the primitive before
// them as a framework would (output scale, post-ops):
//   attention:  matmul q k^T (keys read transposed, as strides) with the output scale
//               and, with a mask, a binary add post-op; softmax_forward over L;
//               matmul with v
//   gemm_chain: matmul with an eltwise post-op (relu, gelu_tanh, or linear for
//               between=scale); matmul
//   conv_chain: convolution with bias and a relu post-op; convolution with bias
// The GEMMs' intermediates are plain row-major scratch buffers made in the
// constructor. The convolutions keep theirs in the layout oneDNN chose: plain when
// both have optimised direct kernels on plain activations, else (as ConvKernel) both
// on format_tag::any, the second reading the first's layout, with the reorders from
// and to the caller's plain tensors timed. Weights are constants (ConstantWeights).
#include "onednn_common.h"

#include <unordered_map>

namespace tessera::onednn {

namespace {

using dims = dnnl::memory::dims;
using tag = dnnl::memory::format_tag;

// Kernels run one after the other: each stage reads some of the op's inputs and
// earlier stages' outputs (scratch tensors made when it is added), passed without copies.
class KernelSequence : public Kernel {
public:
    // A source: input i of the op (>= 0), or the output of stage s (stage(s) < 0).
    static int stage(int s) { return -1 - s; }

    // The last stage added writes the op's output; `out_shape` sizes the others'.
    void add(const std::string &name, std::unique_ptr<Kernel> kernel, std::vector<int> sources,
             const ops::Shape &out_shape) {
        stages_.push_back({name, std::move(kernel), std::move(sources), Tensor(out_shape), {}});
    }

    std::string impl() const override {
        std::string s;
        for (const Stage &st : stages_) s += (s.empty() ? "" : "; ") + st.name + " " + st.kernel->impl();
        return s;
    }
    // The first stage that is not an optimised kernel, else every stage's.
    std::string main_impl() const override {
        std::string all;
        for (const Stage &st : stages_) {
            if (!is_optimised_impl(st.kernel->main_impl())) return st.kernel->main_impl();
            all += (all.empty() ? "" : " + ") + st.kernel->main_impl();
        }
        return all;
    }

    void run(std::vector<Tensor> &in, Tensor &out) override {
        for (size_t i = 0; i < stages_.size(); i++) {
            Stage &st = stages_[i];
            std::vector<Tensor *> sources;
            for (int s : st.sources) sources.push_back(s >= 0 ? &in[size_t(s)] : &stages_[size_t(-1 - s)].out);
            Tensor &dst = i + 1 == stages_.size() ? out : st.out;
            with_lent_tensors(sources, st.args, [&](std::vector<Tensor> &args) { st.kernel->run(args, dst); });
        }
    }

private:
    struct Stage {
        std::string name;
        std::unique_ptr<Kernel> kernel;
        std::vector<int> sources;
        Tensor out;                // scratch (unused by the last stage)
        std::vector<Tensor> args;  // the sources while the stage runs
    };
    std::vector<Stage> stages_;
};

// relu(conv(x, w1) + b1), then conv(., w2) + b2; see the file's comment for layouts.
class ConvChainKernel : public Kernel {
public:
    explicit ConvChainKernel(const ops::ConvChainParams &p) {
        const ops::ConvParams first = p.first(), second = p.second();
        const tag act = p.nhwc ? tag::nhwc : tag::nchw;
        const auto f32 = dnnl::memory::data_type::f32;
        const dnnl::memory::desc src(dims{p.n, p.c, p.h, p.w}, f32, act), mid(dims{p.n, p.oc1, p.h1, p.w1}, f32, act),
            dst(dims{p.n, p.oc2, p.oh, p.ow}, f32, act);
        dnnl::post_ops relu;
        relu.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
        dnnl::primitive_attr with_relu;
        with_relu.set_post_ops(relu);
        pd1_ = conv_primitive_desc(first, src, mid, true, with_relu);
        pd2_ = conv_primitive_desc(second, mid, dst, true);
        if (conv_slow_fallback(impl_of(pd1_)) || conv_slow_fallback(impl_of(pd2_))) {
            auto any = [&](const dnnl::memory::desc &md) { return dnnl::memory::desc(md.dims(), f32, tag::any); };
            auto blocked1 = conv_primitive_desc(first, any(src), any(mid), true, with_relu);
            auto blocked2 = conv_primitive_desc(second, blocked1.dst_desc(), any(dst), true);
            if (!conv_slow_fallback(impl_of(blocked1)) && !conv_slow_fallback(impl_of(blocked2))) {
                pd1_ = blocked1;
                pd2_ = blocked2;
            }
        }
        if (pd2_.src_desc() != pd1_.dst_desc()) {
            throw Unsupported("conv_chain: the second convolution's source layout differs");
        }
        prim1_ = dnnl::convolution_forward(pd1_);
        prim2_ = dnnl::convolution_forward(pd2_);
        src_ = LayoutBridge(src, pd1_.src_desc(), true);
        dst_ = LayoutBridge(dst, pd2_.dst_desc(), false);
        mid_ = dnnl::memory(pd1_.dst_desc(), cpu_engine());
        w1_ = ConstantWeights(conv_user_weights_desc(first), pd1_.weights_desc());
        w2_ = ConstantWeights(conv_user_weights_desc(second), pd2_.weights_desc());
        b1_ = user_memory(plain_desc(dims{p.oc1}));
        b2_ = user_memory(plain_desc(dims{p.oc2}));
    }

    std::string impl() const override {
        std::string s = "conv " + impl_of(pd1_) + " +relu post-op; conv " + impl_of(pd2_);
        if (src_.reorders()) s += " +src reorder " + src_.impl();
        if (dst_.reorders()) s += " +dst reorder " + dst_.impl();
        return s;
    }
    // As KernelSequence's: the first that is not an optimised kernel, else both.
    std::string main_impl() const override {
        for (const std::string &impl : {impl_of(pd1_), impl_of(pd2_)}) {
            if (!is_optimised_impl(impl)) return impl;
        }
        return impl_of(pd1_) + " + " + impl_of(pd2_);
    }

    void run(std::vector<Tensor> &in, Tensor &out) override {
        dnnl::memory &w1 = w1_.prepare(in[1]);
        dnnl::memory &w2 = w2_.prepare(in[3]);
        point(b1_, in[2]);
        point(b2_, in[4]);
        dnnl::memory &src = src_.bind(in[0]);
        dnnl::memory &dst = dst_.bind(out);
        src_.convert();
        prim1_.execute(cpu_stream(),
                       {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, w1}, {DNNL_ARG_BIAS, b1_}, {DNNL_ARG_DST, mid_}});
        prim2_.execute(cpu_stream(),
                       {{DNNL_ARG_SRC, mid_}, {DNNL_ARG_WEIGHTS, w2}, {DNNL_ARG_BIAS, b2_}, {DNNL_ARG_DST, dst}});
        dst_.convert();
        cpu_stream().wait();
    }

private:
    dnnl::convolution_forward::primitive_desc pd1_, pd2_;
    dnnl::convolution_forward prim1_, prim2_;
    LayoutBridge src_, dst_;
    dnnl::memory mid_, b1_, b2_;
    ConstantWeights w1_, w2_;
};

}  // namespace

std::unique_ptr<Kernel> make_attention_kernel(const ops::AttentionParams &p) {
    const ops::Shape scores{p.batch, p.m, p.l};
    auto seq = std::make_unique<KernelSequence>();
    Epilogue scale_mask;
    scale_mask.scale = float(p.scale);
    scale_mask.add_input = p.mask;
    // Inputs q, k, v (, mask).
    seq->add("matmul", make_matmul_stage(ops::batched_product(p.batch, p.m, p.l, p.k, true), scale_mask),
             p.mask ? std::vector<int>{0, 1, 3} : std::vector<int>{0, 1}, scores);
    ops::SoftmaxParams rows;
    rows.shape = scores;
    rows.axis = 2;
    seq->add("softmax", make_softmax_kernel(rows), {KernelSequence::stage(0)}, scores);
    seq->add("matmul", make_matmul_kernel(ops::batched_product(p.batch, p.m, p.n, p.l)), {KernelSequence::stage(1), 2},
             {p.batch, p.m, p.n});
    return seq;
}

std::unique_ptr<Kernel> make_gemm_chain_kernel(const ops::GemmChainParams &p) {
    Epilogue between;
    switch (p.between) {
    case ops::ChainBetween::None: break;
    case ops::ChainBetween::Relu: between.eltwise = dnnl::algorithm::eltwise_relu; break;
    case ops::ChainBetween::Gelu: between.eltwise = dnnl::algorithm::eltwise_gelu_tanh; break;
    case ops::ChainBetween::Scale:
        between.eltwise = dnnl::algorithm::eltwise_linear;
        between.alpha = float(p.scale);
        break;
    }
    auto seq = std::make_unique<KernelSequence>();
    // Inputs a, b1, b2.
    seq->add("matmul", make_matmul_stage(ops::batched_product(p.batch, p.m, p.l, p.k), between), {0, 1},
             {p.batch, p.m, p.l});
    seq->add("matmul", make_matmul_kernel(ops::batched_product(p.batch, p.m, p.n, p.l)), {KernelSequence::stage(0), 2},
             {p.batch, p.m, p.n});
    return seq;
}

std::unique_ptr<Kernel> make_conv_chain_kernel(const ops::ConvChainParams &p) {
    return std::make_unique<ConvChainKernel>(p);
}

}  // namespace tessera::onednn
