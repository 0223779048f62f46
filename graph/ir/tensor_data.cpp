#include "tensor_data.h"

namespace tessera::graph {

TensorData::TensorData(DType type, Shape s) : dtype(type), shape(std::move(s)) {
    size_t n = size_t(num_elements(shape));
    if (dtype == DType::f32)
        f.assign(n, 0.0f);
    else
        i.assign(n, 0);
}

TensorData TensorData::floats(Shape s, std::vector<float> values) {
    TensorData t;
    t.dtype = DType::f32;
    t.shape = std::move(s);
    t.f = std::move(values);
    return t;
}

TensorData TensorData::ints(Shape s, std::vector<int64_t> values, DType type) {
    TensorData t;
    t.dtype = type;
    t.shape = std::move(s);
    t.i = std::move(values);
    return t;
}

void TensorData::set(size_t k, double v) {
    switch (dtype) {
    case DType::f32: f[k] = float(v); break;
    case DType::boolean: i[k] = v != 0; break;
    case DType::i32: i[k] = int64_t(int32_t(v)); break;
    case DType::i64: i[k] = int64_t(v); break;
    }
}

std::vector<int64_t> TensorData::as_ints() const {
    if (!is_float()) return i;
    std::vector<int64_t> out(f.size());
    for (size_t k = 0; k < f.size(); k++)
        out[k] = int64_t(f[k]);
    return out;
}

TensorData transposed(const TensorData &x, const std::vector<int64_t> &perm) {
    Shape shape(perm.size());
    for (size_t a = 0; a < perm.size(); a++)
        shape[a] = x.shape[size_t(perm[a])];
    TensorData y(x.dtype, shape);
    if (y.size() == 0) return y;
    // Walk y in row-major order; `from` follows in x through x's strides.
    const std::vector<int64_t> xs = strides_of(x.shape);
    std::vector<int64_t> idx(shape.size(), 0);
    int64_t from = 0;
    for (size_t to = 0; to < y.size(); to++) {
        if (y.is_float())
            y.f[to] = x.f[size_t(from)];
        else
            y.i[to] = x.i[size_t(from)];
        for (size_t a = shape.size(); a-- > 0;) {
            from += xs[size_t(perm[a])];
            if (++idx[a] < shape[a]) break;
            from -= xs[size_t(perm[a])] * shape[a];
            idx[a] = 0;
        }
    }
    return y;
}

} // namespace tessera::graph
