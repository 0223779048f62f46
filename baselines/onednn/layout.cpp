// transpose as a dnnl::reorder from a strided view of the input, and pad as the
// closest composition oneDNN allows (it has no pad primitive): fill the output with
// the padding value, then reorder the input into a sub-memory view of the output.
// Both steps are timed.
#include "onednn_common.h"

#include <algorithm>

namespace tessera::onednn {

namespace {

using dims = dnnl::memory::dims;

class ReorderKernel : public Kernel {
public:
    // fill: write `value` over the whole output first (pad's border).
    ReorderKernel(const dnnl::memory::desc &src, const dnnl::memory::desc &dst, bool fill, float value)
        : src_(user_memory(src)), dst_(user_memory(dst)), pd_(src_, dst_), prim_(pd_), fill_(fill), value_(value) {}
    std::string impl() const override {
        return fill_ ? "composite: fill + reorder into sub-memory " + impl_of(pd_) : impl_of(pd_);
    }
    std::string main_impl() const override { return impl_of(pd_); }
    void run(std::vector<Tensor> &in, Tensor &out) override {
        if (fill_) std::fill(out.data.begin(), out.data.end(), value_);
        point(src_, in[0]);
        point(dst_, out);
        prim_.execute(cpu_stream(), src_, dst_);
        cpu_stream().wait();
    }

private:
    dnnl::memory src_, dst_;
    dnnl::reorder::primitive_desc pd_;
    dnnl::reorder prim_;
    bool fill_;
    float value_;
};

}  // namespace

std::unique_ptr<Kernel> make_transpose_kernel(const ops::TransposeParams &p) {
    // The input seen in the output's axis order: out axis i walks input axis perm[i].
    const dims in_strides = row_major_strides(to_dims(p.shape));
    dims strides(p.perm.size());
    for (size_t i = 0; i < p.perm.size(); i++) strides[i] = in_strides[p.perm[i]];
    return std::make_unique<ReorderKernel>(strided_desc(to_dims(p.out_shape), strides), plain_desc(p.out_shape),
                                           false, 0.0f);
}

std::unique_ptr<Kernel> make_pad_kernel(const ops::PadParams &p) {
    dnnl::memory::desc inner = plain_desc(p.out_shape).submemory_desc(to_dims(p.shape), dims(p.before.begin(), p.before.end()));
    return std::make_unique<ReorderKernel>(plain_desc(p.shape), inner, true, float(p.value));
}

}  // namespace tessera::onednn
