// Reference shape ops. Reshape, Flatten, Unsqueeze and Squeeze keep the row-major
// element order, so they copy data under the inferred shape.
#include "kernel.h"

#include <algorithm>

namespace tessera::graph {

namespace {

void copy_data(KernelContext &kc) {
    Shape shape = kc.out[0].shape;
    kc.out[0] = kc.input(0);
    kc.out[0].shape = shape;
}

void shape_of(KernelContext &kc) {
    const Shape &x = kc.input(0).shape;
    int64_t r = int64_t(x.size());
    int64_t start = kc.node().get_int("start", 0);
    start = std::clamp<int64_t>(start < 0 ? start + r : start, 0, r);
    for (size_t k = 0; k < kc.out[0].size(); k++)
        kc.out[0].i[k] = x[start + k];
}

void expand(KernelContext &kc) {
    const TensorData &x = kc.input(0);
    std::vector<int64_t> off = broadcast_offsets(x.shape, kc.out[0].shape);
    for (size_t k = 0; k < off.size(); k++)
        copy_element(x, off[k], kc.out[0], k);
}

void constant_of_shape(KernelContext &kc) {
    const TensorData *v = kc.node().get_tensor("value");
    TensorData &y = kc.out[0];
    for (size_t k = 0; k < y.size(); k++) {
        if (v)
            copy_element(*v, 0, y, k);
        else
            y.f[k] = 0.0f;
    }
}

void range(KernelContext &kc) {
    TensorData &y = kc.out[0];
    for (size_t k = 0; k < y.size(); k++) {
        if (y.is_float())
            y.f[k] = float(double(kc.input(0).f[0]) + double(k) * kc.input(2).f[0]);
        else
            y.i[k] = kc.input(0).i[0] + int64_t(k) * kc.input(2).i[0];
    }
}

} // namespace

void register_shape_op_kernels(KernelTable &table) {
    for (const char *op : {"Reshape", "Flatten", "Unsqueeze", "Squeeze"})
        table[op] = copy_data;
    table["Shape"] = shape_of;
    table["Size"] = [](KernelContext &kc) { kc.out[0].i[0] = num_elements(kc.input(0).shape); };
    table["Expand"] = expand;
    table["ConstantOfShape"] = constant_of_shape;
    table["Range"] = range;
    table["Constant"] = [](KernelContext &kc) { kc.out[0] = constant_node_value(kc.ic); };
}

} // namespace tessera::graph
