#include "shape.h"

#include <algorithm>

namespace tessera::graph {

int64_t num_elements(const Shape &shape) {
    int64_t n = 1;
    for (int64_t d : shape)
        n *= d;
    return n;
}

std::vector<int64_t> strides_of(const Shape &shape) {
    std::vector<int64_t> s(shape.size(), 1);
    for (int i = int(shape.size()) - 2; i >= 0; i--)
        s[i] = s[i + 1] * shape[i + 1];
    return s;
}

std::string shape_string(const Shape &shape) {
    if (shape.empty()) return "scalar";
    std::string s;
    for (size_t i = 0; i < shape.size(); i++)
        s += (i ? "x" : "") + std::to_string(shape[i]);
    return s;
}

std::optional<Shape> broadcast_shapes(const Shape &a, const Shape &b) {
    size_t rank = std::max(a.size(), b.size());
    Shape out(rank);
    for (size_t i = 0; i < rank; i++) {
        // Align from the innermost axis; a missing axis counts as 1.
        int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da != db && da != 1 && db != 1) return std::nullopt;
        out[i] = da == 1 ? db : da;
    }
    return out;
}

std::vector<int64_t> broadcast_offsets(const Shape &in, const Shape &out) {
    size_t lead = out.size() - in.size();
    std::vector<int64_t> in_strides = strides_of(in);
    // Stride per output axis: 0 where the input is broadcast along it.
    std::vector<int64_t> step(out.size(), 0);
    for (size_t i = 0; i < in.size(); i++)
        step[lead + i] = in[i] == 1 ? 0 : in_strides[i];
    int64_t n = num_elements(out);
    std::vector<int64_t> offsets(n);
    std::vector<int64_t> idx(out.size(), 0);
    int64_t off = 0;
    for (int64_t k = 0; k < n; k++) {
        offsets[k] = off;
        // Odometer increment, keeping `off` in step.
        for (int axis = int(out.size()) - 1; axis >= 0; axis--) {
            off += step[axis];
            if (++idx[axis] < out[axis]) break;
            off -= step[axis] * out[axis];
            idx[axis] = 0;
        }
    }
    return offsets;
}

} // namespace tessera::graph
