// transpose as a dnnl::reorder from a strided view of the input, and pad as the
// closest composition oneDNN allows (it has no pad primitive), all of it reorders:
// the input is reordered into the sub-memory view of the output's interior, and
// each border region (a sub-memory view of the output) is filled by a reorder from
// a constant buffer holding the padding value (made once, like any constant). Every
// output element is written once, by oneDNN, inside run() (timed).
#include "onednn_common.h"

#include <algorithm>

namespace tessera::onednn {

namespace {

using dims = dnnl::memory::dims;

class ReorderKernel : public Kernel {
public:
    ReorderKernel(const dnnl::memory::desc &src, const dnnl::memory::desc &dst)
        : src_(user_memory(src)), dst_(user_memory(dst)), pd_(src_, dst_), prim_(pd_) {}
    std::string impl() const override { return impl_of(pd_); }
    std::string main_impl() const override { return impl_of(pd_); }
    void run(std::vector<Tensor> &in, Tensor &out) override {
        point(src_, in[0]);
        point(dst_, out);
        prim_.execute(cpu_stream(), src_, dst_);
        cpu_stream().wait();
    }

private:
    dnnl::memory src_, dst_;
    dnnl::reorder::primitive_desc pd_;
    dnnl::reorder prim_;
};

class PadKernel : public Kernel {
public:
    explicit PadKernel(const ops::PadParams &p) {
        const dims in = to_dims(p.shape), out = to_dims(p.out_shape);
        const dims before(p.before.begin(), p.before.end());
        const dnnl::memory::desc out_md = plain_desc(out);
        interior_ = Copy(user_memory(plain_desc(in)), user_memory(out_md.submemory_desc(in, before)));

        // The border, cut into boxes along each padded axis a: the axes before a span
        // the interior (the earlier boxes cover the rest), a spans the pad, the axes
        // after a span the whole output.
        std::vector<std::pair<dims, dims>> boxes;  // extents, offsets
        for (size_t a = 0; a < in.size(); a++) {
            for (bool after : {false, true}) {
                const int64_t width = after ? p.after[a] : p.before[a];
                if (width == 0) continue;
                dims extents(in.begin(), in.begin() + a), offsets(before.begin(), before.begin() + a);
                extents.push_back(width);
                offsets.push_back(after ? before[a] + in[a] : 0);
                extents.insert(extents.end(), out.begin() + a + 1, out.end());
                offsets.resize(out.size(), 0);
                boxes.push_back({extents, offsets});
            }
        }
        size_t largest = 0;
        for (const auto &box : boxes) largest = std::max(largest, plain_desc(box.first).get_size());
        if (largest == 0) return;
        // The padding value, in a buffer as large as the largest box (filled here,
        // once: a constant, not work of the timed run).
        constant_ = dnnl::memory(plain_desc(dims{int64_t(largest / sizeof(float))}), cpu_engine());
        float *value = static_cast<float *>(constant_.get_data_handle());
        std::fill(value, value + largest / sizeof(float), float(p.value));
        for (const auto &box : boxes) {
            borders_.push_back(Copy(dnnl::memory(plain_desc(box.first), cpu_engine(), value),
                                    user_memory(out_md.submemory_desc(box.first, box.second))));
        }
    }

    std::string impl() const override {
        std::string s = "composite: reorder into the interior sub-memory " + impl_of(interior_.pd);
        if (borders_.empty()) return s;
        std::vector<std::string> kinds;
        for (const Copy &border : borders_) {
            const std::string k = impl_of(border.pd);
            if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) kinds.push_back(k);
        }
        s += " + " + std::to_string(borders_.size()) + " border reorder" + (borders_.size() > 1 ? "s" : "") +
             " from a constant";
        for (size_t i = 0; i < kinds.size(); i++) s += (i ? ", " : " ") + kinds[i];
        return s;
    }
    std::string main_impl() const override { return impl_of(interior_.pd); }

    void run(std::vector<Tensor> &in, Tensor &out) override {
        point(interior_.src, in[0]);
        point(interior_.dst, out);
        interior_.prim.execute(cpu_stream(), interior_.src, interior_.dst);
        for (Copy &border : borders_) {
            point(border.dst, out);
            border.prim.execute(cpu_stream(), border.src, border.dst);
        }
        cpu_stream().wait();
    }

private:
    struct Copy {
        Copy() = default;
        Copy(dnnl::memory s, dnnl::memory d) : src(s), dst(d), pd(src, dst), prim(pd) {}
        dnnl::memory src, dst;
        dnnl::reorder::primitive_desc pd;
        dnnl::reorder prim;
    };
    Copy interior_;
    std::vector<Copy> borders_;
    dnnl::memory constant_;  // owns the padding value the border reorders read
};

}  // namespace

std::unique_ptr<Kernel> make_transpose_kernel(const ops::TransposeParams &p) {
    // The input seen in the output's axis order: out axis i walks input axis perm[i].
    const dims in_strides = row_major_strides(to_dims(p.shape));
    dims strides(p.perm.size());
    for (size_t i = 0; i < p.perm.size(); i++) strides[i] = in_strides[p.perm[i]];
    return std::make_unique<ReorderKernel>(strided_desc(to_dims(p.out_shape), strides), plain_desc(p.out_shape));
}

std::unique_ptr<Kernel> make_pad_kernel(const ops::PadParams &p) {
    return std::make_unique<PadKernel>(p);
}

}  // namespace tessera::onednn
