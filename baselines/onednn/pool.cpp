// avg_pool2d, max_pool2d and global_avg_pool with dnnl::pooling_forward.
//
// oneDNN is first asked for a primitive on the plain layout (nchw or nhwc) the Halide
// kernels use. If it only offers a C++ fallback there (e.g. simple_nchw for few
// channels), the source is given in the channel-blocked layout its JIT kernels take
// (nChw16c / nChw8c; pooling does not accept format_tag::any for its source) and the
// destination as any; the reorders from and to the plain layout run in run() (timed).
#include "simple_kernel.h"

#include <algorithm>

namespace tessera::onednn {

namespace {

using dims = dnnl::memory::dims;
using tag = dnnl::memory::format_tag;

}  // namespace

std::unique_ptr<Kernel> make_pool_kernel(const ops::PoolParams &p) {
    const bool global = p.kind == ops::PoolKind::GlobalAvg;
    const int64_t kh = global ? p.h : p.kh, kw = global ? p.w : p.kw;
    const int64_t stride = global ? 1 : p.stride, pad = global ? 0 : p.pad;
    // Global pooling writes [n, c], the same memory as [n, c, 1, 1] in either layout.
    const int64_t oh = global ? 1 : p.oh, ow = global ? 1 : p.ow;
    // A ceil_mode window past the edge: oneDNN's right padding reaches it.
    const int64_t pad_bottom = global ? 0 : std::max(pad, (oh - 1) * stride + kh - p.h - pad);
    const int64_t pad_right = global ? 0 : std::max(pad, (ow - 1) * stride + kw - p.w - pad);
    // oneDNN divides by the whole window there, PyTorch and ONNX by the padded input's part.
    if (p.count_include_pad && (pad_bottom > pad || pad_right > pad)) {
        throw Unsupported("oneDNN counts a ceil_mode window's overhang as padding");
    }
    // Blocked global pooling writes [n, c/b, b]: the memory of nChw[b]c with h = w = 1.
    const tag act = image_tag(p.nhwc, p.blocked, p.block);
    const dims src_dims{p.n, p.c, p.h, p.w}, dst_dims{p.n, p.c, oh, ow};
    const dnnl::memory::desc src(src_dims, dnnl::memory::data_type::f32, act);
    const dnnl::memory::desc dst(dst_dims, dnnl::memory::data_type::f32, act);
    const dnnl::algorithm alg = p.kind == ops::PoolKind::Max ? dnnl::algorithm::pooling_max
                                : p.count_include_pad        ? dnnl::algorithm::pooling_avg_include_padding
                                                             : dnnl::algorithm::pooling_avg_exclude_padding;
    using PD = dnnl::pooling_forward::primitive_desc;
    auto make_pd = [&](const dnnl::memory::desc &s, const dnnl::memory::desc &d) {
        dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, alg, s, d, dims{stride, stride},
                                         dims{kh, kw}, dims{pad, pad}, dims{pad_bottom, pad_right});
        return PD(desc, cpu_engine());
    };
    const PD pd = prefer_optimised<PD>(make_pd(src, dst), {[&] {
                                           return make_pd(
                                               dnnl::memory::desc(src_dims, dnnl::memory::data_type::f32,
                                                                  blocked_channel_tag(4)),
                                               dnnl::memory::desc(dst_dims, dnnl::memory::data_type::f32, tag::any));
                                       }});
    return std::make_unique<SimpleKernel<dnnl::pooling_forward>>(pd, std::vector<int>{DNNL_ARG_SRC, DNNL_ARG_DST},
                                                                 std::vector<dnnl::memory::desc>{src, dst});
}

}  // namespace tessera::onednn
