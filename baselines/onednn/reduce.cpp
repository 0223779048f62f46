// Reductions with dnnl::reduction (log_sum and log_sum_exp: none in oneDNN). The destination keeps the reduced
// axes as extent 1, which is the same memory as the catalogue's dropped-axes shape.
//
// oneDNN 2.6 has a JIT reduction only for a plain source reduced along its innermost
// axes (on blocked layouts, nChw16c included, it offers only ref:any). So when the
// plain source gives ref (e.g. reducing the channels of nchw, or axis 0), the source
// is transposed by a reorder (timed, in run()) into the plain layout of the same
// tensor with its axes reordered: the kept axes in order, then the reduced ones. The
// destination of that primitive, the kept axes in order then extent-1 axes, is the
// caller's output memory as it is: no reorder out.
#include "simple_kernel.h"

#include <algorithm>

namespace tessera::onednn {

namespace {

using dims = dnnl::memory::dims;
using PD = dnnl::reduction::primitive_desc;

std::unique_ptr<Kernel> simple(const PD &pd, const dnnl::memory::desc &src, const dnnl::memory::desc &dst) {
    return std::make_unique<SimpleKernel<dnnl::reduction>>(pd, std::vector<int>{DNNL_ARG_SRC, DNNL_ARG_DST},
                                                           std::vector<dnnl::memory::desc>{src, dst});
}

}  // namespace

std::unique_ptr<Kernel> make_reduce_kernel(const ops::ReduceParams &p) {
    const dims src = to_dims(p.shape);
    dims dst = src;
    for (int axis : p.axes) dst[axis] = 1;
    // oneDNN's algorithm and its p for the Lp forms (l1: sum |x|, l2: sqrt(sum x^2),
    // sum_square: sum |x|^2); log_sum and log_sum_exp have none (their table entry says so).
    using A = dnnl::algorithm;
    A alg = A::reduction_sum;
    float power = 0.f;
    switch (p.kind) {
    case ops::ReduceKind::Sum: alg = A::reduction_sum; break;
    case ops::ReduceKind::Mean: alg = A::reduction_mean; break;
    case ops::ReduceKind::Max: alg = A::reduction_max; break;
    case ops::ReduceKind::Min: alg = A::reduction_min; break;
    case ops::ReduceKind::Prod: alg = A::reduction_mul; break;
    case ops::ReduceKind::L1: alg = A::reduction_norm_lp_power_p_sum, power = 1.f; break;
    case ops::ReduceKind::L2: alg = A::reduction_norm_lp_sum, power = 2.f; break;
    case ops::ReduceKind::SumSquare: alg = A::reduction_norm_lp_power_p_sum, power = 2.f; break;
    case ops::ReduceKind::LogSum:
    case ops::ReduceKind::LogSumExp: throw Unsupported("oneDNN has no log-sum reduction");
    }
    auto make_pd = [&](const dnnl::memory::desc &s, const dnnl::memory::desc &d) {
        return PD(dnnl::reduction::desc(alg, s, d, power, 0.f), cpu_engine());
    };
    const dnnl::memory::desc src_md = plain_desc(src), dst_md = plain_desc(dst);
    const PD plain = make_pd(src_md, dst_md);
    if (is_optimised_impl(impl_of(plain))) return simple(plain, src_md, dst_md);

    // The kept axes in order, then the reduced ones.
    std::vector<int> order;
    for (int a = 0; a < int(src.size()); a++) {
        if (std::find(p.axes.begin(), p.axes.end(), a) == p.axes.end()) order.push_back(a);
    }
    order.insert(order.end(), p.axes.begin(), p.axes.end());
    if (std::is_sorted(order.begin(), order.end())) return simple(plain, src_md, dst_md);  // already innermost
    const dims strides = row_major_strides(src);
    dims moved_src, moved_dst, view_strides;
    for (int a : order) {
        moved_src.push_back(src[a]);
        moved_dst.push_back(dst[a]);
        view_strides.push_back(strides[a]);
    }
    // The caller's source seen in the new axis order (what the reorder reads), and the
    // caller's output, whose memory order the new axis order keeps.
    const dnnl::memory::desc src_view = strided_desc(moved_src, view_strides), dst_view = plain_desc(moved_dst);
    try {
        const PD moved = make_pd(plain_desc(moved_src), dst_view);
        if (is_optimised_impl(impl_of(moved))) return simple(moved, src_view, dst_view);
    } catch (const dnnl::error &) {
        // no implementation for the transposed problem: keep the plain one
    }
    return simple(plain, src_md, dst_md);
}

}  // namespace tessera::onednn
