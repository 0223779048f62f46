// Views of host Tensors as Halide buffers. A row-major logical shape (outermost
// first) is the same memory as a Halide buffer with the dimensions reversed.
#pragma once

#include "tensor.h"

#include <Halide.h>

namespace tessera {

// Wraps (does not copy) the tensor's storage; the tensor must outlive the view.
Halide::Buffer<float> as_halide_buffer(Tensor &t);

// Same, for the runtime buffer type used by AOT-compiled pipelines.
Halide::Runtime::Buffer<float> as_runtime_buffer(Tensor &t);

}  // namespace tessera
