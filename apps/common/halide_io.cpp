#include "halide_io.h"

namespace tessera {

namespace {
std::vector<int> halide_sizes(const Tensor &t) {
    return std::vector<int>(t.shape.rbegin(), t.shape.rend());
}
}  // namespace

Halide::Buffer<float> as_halide_buffer(Tensor &t) {
    return Halide::Buffer<float>(t.data.data(), halide_sizes(t));
}

Halide::Runtime::Buffer<float> as_runtime_buffer(Tensor &t) {
    return Halide::Runtime::Buffer<float>(t.data.data(), halide_sizes(t));
}

}  // namespace tessera
