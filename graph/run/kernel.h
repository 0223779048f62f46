// Reference kernels: one plain C++ function per op type, registered per op family
// (eval_conv.cpp, eval_elementwise.cpp, ...) in one table. Straightforward loops with
// double accumulation, sharing no code with Halide: the oracle for compiled models.
// A kernel receives outputs already allocated with the shapes the op's OpRule
// inferred, and reads resolved attributes through the same helpers as the rule.
#pragma once

#include "resolved_params.h"

#include <functional>
#include <map>
#include <string>

namespace tessera::graph {

struct KernelContext {
    const InferContext &ic;             // node, opset, inputs' infos (all with data)
    std::vector<const TensorData *> in; // nullptr where an optional input is omitted
    std::vector<TensorData> &out;

    const Node &node() const { return ic.node; }
    const TensorData &input(size_t k) const { return *in.at(k); }
};

using Kernel = std::function<void(KernelContext &)>;
using KernelTable = std::map<std::string, Kernel>;

const KernelTable &kernels();

void register_conv_kernels(KernelTable &table);
void register_pool_kernels(KernelTable &table);
void register_linear_kernels(KernelTable &table);
void register_elementwise_kernels(KernelTable &table);
void register_normalization_kernels(KernelTable &table);
void register_shape_op_kernels(KernelTable &table);
void register_data_movement_kernels(KernelTable &table);

// Calls fn(index) for every multi-index of `shape` in row-major order.
template <typename F> void for_each_index(const Shape &shape, F &&fn) {
    if (num_elements(shape) == 0) return;
    std::vector<int64_t> idx(shape.size(), 0);
    while (true) {
        fn(idx);
        int axis = int(shape.size()) - 1;
        while (axis >= 0 && ++idx[axis] == shape[axis])
            idx[axis--] = 0;
        if (axis < 0) return;
    }
}

// dst[d] = src[s] for tensors of the same dtype.
inline void copy_element(const TensorData &src, size_t s, TensorData &dst, size_t d) {
    if (src.is_float())
        dst.f[d] = src.f[s];
    else
        dst.i[d] = src.i[s];
}

} // namespace tessera::graph
