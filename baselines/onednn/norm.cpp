// softmax (dnnl::softmax_forward, max-subtracting), layer_norm
// (dnnl::layer_normalization_forward over the last axis, gamma/beta as scale/shift)
// and inference batch_norm (dnnl::batch_normalization_forward with global stats).
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

std::unique_ptr<Kernel> make_softmax_kernel(const ops::SoftmaxParams &p) {
    dnnl::memory::desc md = plain_desc(p.shape);
    dnnl::softmax_forward::primitive_desc pd(
        dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, md, p.axis), cpu_engine());
    return std::make_unique<SimpleKernel<dnnl::softmax_forward>>(pd, std::vector<int>{DNNL_ARG_SRC, DNNL_ARG_DST},
                                                                 std::vector<dnnl::memory::desc>{md, md});
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
    // [outer, C, inner, 1] puts the channel axis where oneDNN expects it; 4-D plain
    // (nchw) gets oneDNN's jit kernel, where 3-D falls back to its reference one.
    const int64_t c = p.shape[p.axis];
    dnnl::memory::desc md =
        plain_desc(dims{product(p.shape, 0, p.axis), c, product(p.shape, p.axis + 1, p.shape.size()), 1});
    dnnl::memory::desc vec = plain_desc(dims{c});
    dnnl::batch_normalization_forward::primitive_desc pd(
        dnnl::batch_normalization_forward::desc(dnnl::prop_kind::forward_inference, md, eps,
                                                dnnl::normalization_flags::use_global_stats |
                                                    dnnl::normalization_flags::use_scale |
                                                    dnnl::normalization_flags::use_shift),
        cpu_engine());
    // Inputs: input, scale, bias, mean, var.
    return std::make_unique<SimpleKernel<dnnl::batch_normalization_forward>>(
        pd,
        std::vector<int>{DNNL_ARG_SRC, DNNL_ARG_SCALE, DNNL_ARG_SHIFT, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE,
                         DNNL_ARG_DST},
        std::vector<dnnl::memory::desc>{md, vec, vec, vec, vec, md});
}

}  // namespace tessera::onednn
