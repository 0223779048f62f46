// avg_pool2d, max_pool2d and global_avg_pool with dnnl::pooling_forward on the
// plain layout (nchw or nhwc) the Halide kernels use.
#include "simple_kernel.h"

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
    const tag act = p.nhwc ? tag::nhwc : tag::nchw;
    dnnl::memory::desc src(dims{p.n, p.c, p.h, p.w}, dnnl::memory::data_type::f32, act);
    dnnl::memory::desc dst(dims{p.n, p.c, oh, ow}, dnnl::memory::data_type::f32, act);
    dnnl::algorithm alg = p.kind == ops::PoolKind::Max ? dnnl::algorithm::pooling_max
                          : p.count_include_pad        ? dnnl::algorithm::pooling_avg_include_padding
                                                       : dnnl::algorithm::pooling_avg_exclude_padding;
    dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, alg, src, dst, dims{stride, stride},
                                     dims{kh, kw}, dims{pad, pad}, dims{pad, pad});
    dnnl::pooling_forward::primitive_desc pd(desc, cpu_engine());
    return std::make_unique<SimpleKernel<dnnl::pooling_forward>>(
        pd, std::vector<int>{DNNL_ARG_SRC, DNNL_ARG_DST}, std::vector<dnnl::memory::desc>{src, dst});
}

}  // namespace tessera::onednn
