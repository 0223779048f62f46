// Shape helpers. A shape is written outermost axis first (row-major, like numpy and
// ONNX); an empty shape is a scalar.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera::graph {

using Shape = std::vector<int64_t>;

int64_t num_elements(const Shape &shape);

// Row-major strides in elements.
std::vector<int64_t> strides_of(const Shape &shape);

// "1x3x224x224"; "scalar" for rank 0.
std::string shape_string(const Shape &shape);

// Numpy (multidirectional) broadcasting; nullopt when the shapes do not broadcast.
std::optional<Shape> broadcast_shapes(const Shape &a, const Shape &b);

// For every element of `out` (row-major), the offset of the element of a tensor of
// shape `in` that broadcasts to it. `in` must broadcast to `out`.
std::vector<int64_t> broadcast_offsets(const Shape &in, const Shape &out);

} // namespace tessera::graph
