// A kernel made of one primitive whose arguments are all caller tensors in a fixed
// order (inputs, then the output), the common case for memory-bound ops.
//
// The caller's tensors are described by their plain (user) descriptors; where the
// primitive was made on another layout (a blocked one, see prefer_optimised), the
// argument is reordered into it before the primitive (inputs) or out of it after
// (the output), inside run() and so timed, and impl() names the reorder.
#pragma once

#include "onednn_common.h"

#include <unordered_map>
#include <utility>

namespace tessera::onednn {

// "src", "dst", ... as impl() names a reordered argument.
inline std::string arg_name(int arg) {
    switch (arg) {
    case DNNL_ARG_SRC: return "src";
    case DNNL_ARG_DST: return "dst";
    case DNNL_ARG_SRC_1: return "src1";
    default: return "arg " + std::to_string(arg);
    }
}

template <typename Primitive>
class SimpleKernel : public Kernel {
public:
    using PrimitiveDesc = typename Primitive::primitive_desc;
    // arg_ids[i] is the DNNL_ARG_* of inputs[i], user_descs[i] its layout in the
    // caller's tensor; the last entry is the output.
    SimpleKernel(const PrimitiveDesc &pd, const std::vector<int> &arg_ids,
                 const std::vector<dnnl::memory::desc> &user_descs)
        : pd_(pd), prim_(pd), arg_ids_(arg_ids) {
        bridges_.reserve(arg_ids.size());
        for (size_t i = 0; i < arg_ids.size(); i++) {
            dnnl::memory::desc primitive_md = pd.query_md(dnnl::query::exec_arg_md, arg_ids[i]);
            if (primitive_md.is_zero()) primitive_md = user_descs[i];
            const bool input = i + 1 < arg_ids.size();
            bridges_.emplace_back(user_descs[i], primitive_md, input);
            args_[arg_ids[i]] = bridges_.back().primitive_memory();
        }
    }
    std::string impl() const override {
        std::string s = impl_of(pd_);
        for (size_t i = 0; i < bridges_.size(); i++) {
            if (bridges_[i].reorders()) s += " +" + arg_name(arg_ids_[i]) + " reorder " + bridges_[i].impl();
        }
        return s;
    }
    std::string main_impl() const override { return impl_of(pd_); }
    void run(std::vector<Tensor> &in, Tensor &out) override {
        for (size_t i = 0; i + 1 < bridges_.size(); i++) {
            bridges_[i].bind(in[i]);
            bridges_[i].convert();
        }
        bridges_.back().bind(out);
        prim_.execute(cpu_stream(), args_);
        bridges_.back().convert();
        cpu_stream().wait();
    }

private:
    PrimitiveDesc pd_;
    Primitive prim_;
    std::vector<int> arg_ids_;
    std::vector<LayoutBridge> bridges_;
    std::unordered_map<int, dnnl::memory> args_;  // handles shared with bridges_
};

}  // namespace tessera::onednn
