// A kernel made of one primitive whose arguments are all caller tensors in a fixed
// order (inputs, then the output), the common case for memory-bound ops.
#pragma once

#include "onednn_common.h"

#include <utility>

namespace tessera::onednn {

template <typename Primitive>
class SimpleKernel : public Kernel {
public:
    using PrimitiveDesc = typename Primitive::primitive_desc;
    // arg_ids[i] is the DNNL_ARG_* of inputs[i] (descs[i]); the last entry is the output.
    SimpleKernel(const PrimitiveDesc &pd, const std::vector<int> &arg_ids,
                 const std::vector<dnnl::memory::desc> &descs)
        : pd_(pd), prim_(pd) {
        for (size_t i = 0; i < arg_ids.size(); i++) {
            mems_.push_back(user_memory(descs[i]));
            args_[arg_ids[i]] = mems_.back();
        }
    }
    std::string impl() const override { return impl_of(pd_); }
    std::string main_impl() const override { return impl_of(pd_); }
    void run(std::vector<Tensor> &in, Tensor &out) override {
        for (size_t i = 0; i + 1 < mems_.size(); i++) point(mems_[i], in[i]);
        point(mems_.back(), out);
        prim_.execute(cpu_stream(), args_);
        cpu_stream().wait();
    }

private:
    PrimitiveDesc pd_;
    Primitive prim_;
    std::vector<dnnl::memory> mems_;
    std::unordered_map<int, dnnl::memory> args_;
};

}  // namespace tessera::onednn
