// conv2d and depthwise_conv2d with dnnl::convolution_forward (direct algorithm).
//
// Weights use format_tag::any and are reordered once per weight buffer outside the
// timed region. Activations: oneDNN is first asked for a primitive on the plain
// layout itself; if it only offers a slow fallback there (gemm, or an impl that
// is_optimised_impl rejects), the primitive picks its layout (any) and the reorders
// from and to the plain layout are timed.
#include "onednn_common.h"

namespace tessera::onednn {

namespace {

using dims = dnnl::memory::dims;
using tag = dnnl::memory::format_tag;

// The user's weights as oneDNN's logical [g,] o, i, kh, kw.
dnnl::memory::desc user_weights_desc(const ops::ConvParams &p) {
    const int64_t g = p.depthwise ? p.c : p.groups;
    const int64_t cg = p.depthwise ? 1 : p.c / p.groups, ocg = p.depthwise ? 1 : p.oc / p.groups;
    const int64_t oc = p.depthwise ? p.c : p.oc;
    dims d = {g, ocg, cg, p.kh, p.kw}, s;
    if (p.nhwc) {
        // HWIO [kh, kw, cg, oc] (depthwise: [kh, kw, c]); the group is the outer part of o.
        s = {ocg, 1, oc, p.kw * cg * oc, cg * oc};
    } else {
        // OIHW [oc, cg, kh, kw] (depthwise: [c, kh, kw]).
        s = {ocg * cg * p.kh * p.kw, cg * p.kh * p.kw, p.kh * p.kw, p.kw, 1};
    }
    if (g == 1) {
        d.erase(d.begin());
        s.erase(s.begin());
    }
    return strided_desc(d, s);
}

// Not an optimised kernel, or gemm-based: im2col + gemm ("gemm:jit" on nchw) is a
// fallback for convolutions, which oneDNN's direct JIT kernels beat on their layout.
bool slow_fallback(const std::string &impl) {
    return !is_optimised_impl(impl) || impl.find("gemm") != std::string::npos;
}

class ConvKernel : public Kernel {
public:
    explicit ConvKernel(const ops::ConvParams &p) {
        const int64_t oc = p.depthwise ? p.c : p.oc;
        const tag act = p.nhwc ? tag::nhwc : tag::nchw;
        dnnl::memory::desc src(dims{p.n, p.c, p.h, p.w}, dnnl::memory::data_type::f32, act);
        dnnl::memory::desc dst(dims{p.n, oc, p.oh, p.ow}, dnnl::memory::data_type::f32, act);
        dnnl::memory::desc user_wei = user_weights_desc(p);
        dnnl::memory::desc any_wei(user_wei.dims(), dnnl::memory::data_type::f32, tag::any);

        auto make_pd = [&](const dnnl::memory::desc &s, const dnnl::memory::desc &d) {
            dnnl::convolution_forward::desc desc(
                dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, s, any_wei, d,
                dims{p.stride, p.stride}, dims{p.dilation - 1, p.dilation - 1}, dims{p.pad, p.pad},
                dims{p.pad, p.pad});
            return dnnl::convolution_forward::primitive_desc(desc, cpu_engine());
        };
        pd_ = make_pd(src, dst);
        if (slow_fallback(impl_of(pd_))) {
            dnnl::memory::desc any_src(src.dims(), dnnl::memory::data_type::f32, tag::any);
            dnnl::memory::desc any_dst(dst.dims(), dnnl::memory::data_type::f32, tag::any);
            dnnl::convolution_forward::primitive_desc blocked = make_pd(any_src, any_dst);
            if (!slow_fallback(impl_of(blocked))) pd_ = blocked;
        }
        prim_ = dnnl::convolution_forward(pd_);
        src_ = LayoutBridge(src, pd_.src_desc(), true);
        dst_ = LayoutBridge(dst, pd_.dst_desc(), false);
        user_wei_ = user_memory(user_wei);
        wei_ = dnnl::memory(pd_.weights_desc(), cpu_engine());
        wei_reorder_ = dnnl::reorder(user_wei_, wei_);
    }

    std::string impl() const override {
        std::string s = impl_of(pd_);
        if (src_.reorders()) s += " +src reorder " + src_.impl();
        if (dst_.reorders()) s += " +dst reorder " + dst_.impl();
        return s;
    }
    std::string main_impl() const override { return impl_of(pd_); }

    void run(std::vector<Tensor> &in, Tensor &out) override {
        prepare_weights(in[1]);
        dnnl::memory &src = src_.bind(in[0]);
        dnnl::memory &dst = dst_.bind(out);
        src_.convert();
        prim_.execute(cpu_stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei_}, {DNNL_ARG_DST, dst}});
        dst_.convert();
        cpu_stream().wait();
    }

private:
    // Weights are constants: reorder once per buffer (not part of the kernel's time).
    void prepare_weights(const Tensor &w) {
        if (prepared_for_ == w.data.data()) return;
        point(user_wei_, w);
        wei_reorder_.execute(cpu_stream(), user_wei_, wei_);
        cpu_stream().wait();
        prepared_for_ = w.data.data();
    }

    dnnl::convolution_forward::primitive_desc pd_;
    dnnl::convolution_forward prim_;
    LayoutBridge src_, dst_;
    dnnl::memory user_wei_, wei_;
    dnnl::reorder wei_reorder_;
    const float *prepared_for_ = nullptr;
};

}  // namespace

std::unique_ptr<Kernel> make_conv_kernel(const ops::ConvParams &p) {
    return std::make_unique<ConvKernel>(p);
}

}  // namespace tessera::onednn
