// Tensor: a dense row-major fp32 host tensor (logical shape, outermost axis first).
// The references, the runners and the tests exchange data in this form; Halide
// sees the same memory with its dimensions reversed (see apps/common/halide_io.h).
#pragma once

#include "op_config.h"

#include <cstdint>
#include <vector>

namespace tessera {

struct Tensor {
    ops::Shape shape;
    std::vector<float> data;

    Tensor() = default;
    explicit Tensor(ops::Shape s) : shape(std::move(s)), data(ops::num_elements(shape), 0.0f) {}

    size_t size() const { return data.size(); }
    // Row-major strides in elements.
    std::vector<int64_t> strides() const;
};

// Uniform values in [lo, hi) from a seeded generator (deterministic per seed).
Tensor random_tensor(const ops::Shape &shape, uint64_t seed, float lo = -1.0f, float hi = 1.0f);

// Fills with quiet NaN so an element the kernel never writes cannot pass a check.
void poison(Tensor &t);

// max_i |actual_i - expected_i| / max(max_i |expected_i|, tiny): a norm-wise relative
// error. Returns +infinity when shapes differ or any element of `actual` is NaN/inf.
double relative_error(const Tensor &actual, const Tensor &expected);

}  // namespace tessera
