// softmax (dnnl::softmax_forward, max-subtracting), layer_norm
// (dnnl::layer_normalization_forward over the last axis, gamma/beta as scale/shift)
// and inference batch_norm (dnnl::batch_normalization_forward with global stats).
//
// Each is first made on the caller's plain layout. Where oneDNN only offers a C++
// fallback there, another layout its JIT kernels take is tried, with the reorders
// from and to the plain layout in run() (timed): for softmax along axis 1 of a rank
// 3-5 tensor, the channel-blocked layout (nChw16c / nChw8c), otherwise (or if that
// gives no JIT kernel) the same tensor with the softmax axis innermost; for
// batch_norm, the channel-blocked layout (its data descriptor may not be
// format_tag::any), but over an nchw-like plain layout only when the channels fill
// whole blocks: with padded channels, the blocked kernel and its two reorders were
// slower than ncsp_bnorm (C = 3 ... 33 on AVX-512), and faster without (C = 48, 64,
// 256). Over channels-last data it beat nspc_bnorm at every C tried.
// layer_norm has no other layout in oneDNN 2.6 (its data must be plain with the
// normalised axis innermost, and format_tag::any is rejected).
#include "simple_kernel.h"

#include <functional>
#include <numeric>

namespace tessera::onednn {

namespace {

using dims = dnnl::memory::dims;

int64_t product(const ops::Shape &shape, size_t begin, size_t end) {
    return std::accumulate(shape.begin() + begin, shape.begin() + end, int64_t(1), std::multiplies<int64_t>());
}

}  // namespace

namespace {

// softmax_forward or logsoftmax_forward (the same descriptors) in its fastest layout.
template <typename Primitive>
std::unique_ptr<Kernel> make_softmax_primitive(const ops::SoftmaxParams &p) {
    const dims shape = to_dims(p.shape);
    const dnnl::memory::desc md = plain_desc(shape);
    using PD = typename Primitive::primitive_desc;
    auto make_pd = [&](const dnnl::memory::desc &data) {
        return PD(typename Primitive::desc(dnnl::prop_kind::forward_inference, data, p.axis), cpu_engine());
    };
    std::vector<std::function<PD()>> alternatives;
    if (p.axis == 1 && shape.size() >= 3 && shape.size() <= 5) {
        alternatives.push_back([&] {
            return make_pd(dnnl::memory::desc(shape, dnnl::memory::data_type::f32, blocked_channel_tag(int(shape.size()))));
        });
    }
    alternatives.push_back([&] {
        // The other axes in their order, the softmax axis innermost.
        dims strides(shape.size());
        int64_t stride = shape[p.axis];
        strides[p.axis] = 1;
        for (int a = int(shape.size()) - 1; a >= 0; a--) {
            if (a == p.axis) continue;
            strides[a] = stride;
            stride *= shape[a];
        }
        return make_pd(strided_desc(shape, strides));
    });
    const PD pd = prefer_optimised<PD>(make_pd(md), alternatives);
    return std::make_unique<SimpleKernel<Primitive>>(pd, std::vector<int>{DNNL_ARG_SRC, DNNL_ARG_DST},
                                                     std::vector<dnnl::memory::desc>{md, md});
}

}  // namespace

std::unique_ptr<Kernel> make_softmax_kernel(const ops::SoftmaxParams &p) {
    return p.log ? make_softmax_primitive<dnnl::logsoftmax_forward>(p) : make_softmax_primitive<dnnl::softmax_forward>(p);
}

std::unique_ptr<Kernel> make_norm_kernel(const ops::NormParams &p) {
    const float eps = float(p.epsilon);
    if (!p.batch_norm) {
        // Rows of the last axis: [outer, C] is the same memory.
        const int64_t c = p.shape.back();
        dnnl::memory::desc md = plain_desc(dims{product(p.shape, 0, p.shape.size() - 1), c});
        dnnl::memory::desc vec = plain_desc(dims{c});
        dnnl::layer_normalization_forward::primitive_desc pd(
            dnnl::layer_normalization_forward::desc(dnnl::prop_kind::forward_inference, md, eps,
                                                    dnnl::normalization_flags::use_scale |
                                                        dnnl::normalization_flags::use_shift),
            cpu_engine());
        // Inputs: input, gamma, beta.
        return std::make_unique<SimpleKernel<dnnl::layer_normalization_forward>>(
            pd, std::vector<int>{DNNL_ARG_SRC, DNNL_ARG_SCALE, DNNL_ARG_SHIFT, DNNL_ARG_DST},
            std::vector<dnnl::memory::desc>{md, vec, vec, md});
    }
    // [outer, C, inner, 1] puts the channel axis where oneDNN expects it (4-D: 3-D
    // layouts fall back to its reference kernel). With the channels innermost
    // (inner == 1) the same memory is [outer, C, 1, 1] in nhwc, for which oneDNN has a
    // JIT kernel when C fills its vectors (nspc_bnorm otherwise); else it is nchw.
    const int64_t c = p.shape[p.axis], inner = product(p.shape, p.axis + 1, p.shape.size());
    const dims data{product(p.shape, 0, p.axis), c, inner, 1};
    const dnnl::memory::desc md = inner == 1 ? dnnl::memory::desc(data, dnnl::memory::data_type::f32,
                                                                  dnnl::memory::format_tag::nhwc)
                                             : plain_desc(data);
    const dnnl::memory::desc vec = plain_desc(dims{c});
    using PD = dnnl::batch_normalization_forward::primitive_desc;
    auto make_pd = [&](const dnnl::memory::desc &d) {
        return PD(dnnl::batch_normalization_forward::desc(dnnl::prop_kind::forward_inference, d, eps,
                                                          dnnl::normalization_flags::use_global_stats |
                                                              dnnl::normalization_flags::use_scale |
                                                              dnnl::normalization_flags::use_shift),
                  cpu_engine());
    };
    std::vector<std::function<PD()>> alternatives;
    if (inner == 1 || c % channel_block() == 0) {
        alternatives.push_back(
            [&] { return make_pd(dnnl::memory::desc(data, dnnl::memory::data_type::f32, blocked_channel_tag(4))); });
    }
    const PD pd = prefer_optimised<PD>(make_pd(md), alternatives);
    // Inputs: input, scale, bias, mean, var.
    return std::make_unique<SimpleKernel<dnnl::batch_normalization_forward>>(
        pd,
        std::vector<int>{DNNL_ARG_SRC, DNNL_ARG_SCALE, DNNL_ARG_SHIFT, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE,
                         DNNL_ARG_DST},
        std::vector<dnnl::memory::desc>{md, vec, vec, vec, vec, md});
}

}  // namespace tessera::onednn
