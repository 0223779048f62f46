// conv2d and depthwise_conv2d with dnnl::convolution_forward (direct algorithm).
//
// Weights use format_tag::any and are reordered once per weight buffer outside the
// timed region. Activations: oneDNN is first asked for a primitive on the plain
// layout itself; if it only offers a slow fallback there (gemm, or an impl that
// is_optimised_impl rejects), the primitive picks its layout (any) and the reorders
// from and to the plain layout are timed.
#include "onednn_common.h"

namespace tessera::onednn {

using dims = dnnl::memory::dims;
using tag = dnnl::memory::format_tag;

dnnl::memory::desc conv_user_weights_desc(const ops::ConvParams &p) {
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

bool conv_slow_fallback(const std::string &impl) {
    return !is_optimised_impl(impl) || impl.find("gemm") != std::string::npos;
}

dnnl::convolution_forward::primitive_desc conv_primitive_desc(const ops::ConvParams &p, const dnnl::memory::desc &src,
                                                              const dnnl::memory::desc &dst, bool bias,
                                                              const dnnl::primitive_attr &attr) {
    dnnl::memory::desc any_wei(conv_user_weights_desc(p).dims(), dnnl::memory::data_type::f32, tag::any);
    dnnl::memory::desc bias_md =
        bias ? dnnl::memory::desc(dims{p.oc}, dnnl::memory::data_type::f32, tag::x) : dnnl::memory::desc();
    dnnl::convolution_forward::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src,
                                         any_wei, bias_md, dst, dims{p.stride, p.stride},
                                         dims{p.dilation - 1, p.dilation - 1}, dims{p.pad, p.pad}, dims{p.pad, p.pad});
    return dnnl::convolution_forward::primitive_desc(desc, attr, cpu_engine());
}

ConstantWeights::ConstantWeights(const dnnl::memory::desc &user, const dnnl::memory::desc &primitive)
    : user_(user_memory(user)), primitive_(primitive, cpu_engine()), reorder_(user_, primitive_) {}

dnnl::memory &ConstantWeights::prepare(const Tensor &w) {
    if (prepared_for_ != w.data.data()) {
        point(user_, w);
        reorder_.execute(cpu_stream(), user_, primitive_);
        cpu_stream().wait();
        prepared_for_ = w.data.data();
    }
    return primitive_;
}

namespace {

class ConvKernel : public Kernel {
public:
    explicit ConvKernel(const ops::ConvParams &p) {
        const int64_t oc = p.depthwise ? p.c : p.oc;
        const tag act = image_tag(p.nhwc, p.blocked, p.block);
        dnnl::memory::desc src(dims{p.n, p.c, p.h, p.w}, dnnl::memory::data_type::f32, act);
        dnnl::memory::desc dst(dims{p.n, oc, p.oh, p.ow}, dnnl::memory::data_type::f32, act);
        pd_ = conv_primitive_desc(p, src, dst, false);
        if (conv_slow_fallback(impl_of(pd_))) {
            dnnl::memory::desc any_src(src.dims(), dnnl::memory::data_type::f32, tag::any);
            dnnl::memory::desc any_dst(dst.dims(), dnnl::memory::data_type::f32, tag::any);
            dnnl::convolution_forward::primitive_desc blocked = conv_primitive_desc(p, any_src, any_dst, false);
            if (!conv_slow_fallback(impl_of(blocked))) pd_ = blocked;
        }
        prim_ = dnnl::convolution_forward(pd_);
        src_ = LayoutBridge(src, pd_.src_desc(), true);
        dst_ = LayoutBridge(dst, pd_.dst_desc(), false);
        weights_ = ConstantWeights(conv_user_weights_desc(p), pd_.weights_desc());
    }

    std::string impl() const override {
        std::string s = impl_of(pd_);
        if (src_.reorders()) s += " +src reorder " + src_.impl();
        if (dst_.reorders()) s += " +dst reorder " + dst_.impl();
        return s;
    }
    std::string main_impl() const override { return impl_of(pd_); }

    void run(std::vector<Tensor> &in, Tensor &out) override {
        dnnl::memory &wei = weights_.prepare(in[1]);
        dnnl::memory &src = src_.bind(in[0]);
        dnnl::memory &dst = dst_.bind(out);
        src_.convert();
        prim_.execute(cpu_stream(), {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}});
        dst_.convert();
        cpu_stream().wait();
    }

private:
    dnnl::convolution_forward::primitive_desc pd_;
    dnnl::convolution_forward prim_;
    LayoutBridge src_, dst_;
    ConstantWeights weights_;
};

}  // namespace

std::unique_ptr<Kernel> make_conv_kernel(const ops::ConvParams &p) {
    // Panels, one output channel per lane of a block: conv2d's [oc/block][c][kh][kw][block]
    // -> OIHW, a blocked depthwise's [c/block][kh][kw][block] -> [c][kh][kw] (its
    // activations stay blocked).
    const bool depthwise_panels = p.blocked && p.depthwise;
    if (!p.packed && !depthwise_panels) return std::make_unique<ConvKernel>(p);
    ops::ConvParams plain = p;
    plain.packed = false;
    const int64_t cg = p.depthwise ? 1 : p.c / p.groups;  // a grouped conv's panels hold its group's channels
    const int64_t per_channel = cg * p.kh * p.kw, block = p.block;
    const ops::Shape plain_shape = p.depthwise ? ops::Shape{p.c, p.kh, p.kw} : ops::Shape{p.oc, cg, p.kh, p.kw};
    return with_unpacked_weights(std::make_unique<ConvKernel>(plain), 1, plain_shape,
                                 [per_channel, block](const Tensor &packed, Tensor &out) {
                                     for (int64_t o = 0; o < out.shape[0]; o++)
                                         for (int64_t i = 0; i < per_channel; i++)
                                             out.data[size_t(o * per_channel + i)] =
                                                 packed.data[size_t((o / block * per_channel + i) * block + o % block)];
                                 });
}

}  // namespace tessera::onednn
