// TensorData: a dense row-major host tensor of any graph dtype. Constants of the graph
// (weights, folded shape tensors) and the reference evaluator's values are held this way.
// fp32 lives in `f`; the integer-like dtypes (i64, i32, bool) share `i` so that shape
// arithmetic never loses precision.
#pragma once

#include "dtype.h"
#include "shape.h"

#include <cstdint>
#include <vector>

namespace tessera::graph {

struct TensorData {
    DType dtype = DType::f32;
    Shape shape;
    std::vector<float> f;   // dtype f32
    std::vector<int64_t> i; // dtype i64, i32, bool

    TensorData() = default;
    // Zero-filled.
    TensorData(DType type, Shape s);

    static TensorData floats(Shape s, std::vector<float> values);
    static TensorData ints(Shape s, std::vector<int64_t> values, DType type = DType::i64);

    size_t size() const { return dtype == DType::f32 ? f.size() : i.size(); }
    bool is_float() const { return dtype == DType::f32; }

    // Element k as a double, whatever the dtype.
    double get(size_t k) const { return is_float() ? double(f[k]) : double(i[k]); }
    // Stores v converted to the dtype (integer types truncate, bool is v != 0).
    void set(size_t k, double v);

    // All elements as int64 (floats truncate): for shape-like inputs.
    std::vector<int64_t> as_ints() const;
};

// x with its axes permuted: output axis i is x's axis perm[i] (ONNX Transpose).
TensorData transposed(const TensorData &x, const std::vector<int64_t> &perm);

} // namespace tessera::graph
