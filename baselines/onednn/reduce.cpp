// reduce_sum and reduce_mean with dnnl::reduction. The destination keeps the reduced
// axes as extent 1, which is the same memory as the catalogue's dropped-axes shape.
#include "simple_kernel.h"

namespace tessera::onednn {

std::unique_ptr<Kernel> make_reduce_kernel(const ops::ReduceParams &p) {
    dnnl::memory::dims src = to_dims(p.shape), dst = src;
    for (int axis : p.axes) dst[axis] = 1;
    dnnl::memory::desc src_md = plain_desc(src), dst_md = plain_desc(dst);
    dnnl::algorithm alg = p.mean ? dnnl::algorithm::reduction_mean : dnnl::algorithm::reduction_sum;
    dnnl::reduction::primitive_desc pd(dnnl::reduction::desc(alg, src_md, dst_md, 0.f, 0.f), cpu_engine());
    return std::make_unique<SimpleKernel<dnnl::reduction>>(pd, std::vector<int>{DNNL_ARG_SRC, DNNL_ARG_DST},
                                                           std::vector<dnnl::memory::desc>{src_md, dst_md});
}

}  // namespace tessera::onednn
