// GpuBaseline: a vendor library (cuBLAS, cuDNN) running one catalogued op on the
// GPU, for tessera-bench. Built only where CMake finds the CUDA toolkit; constructing
// one on a machine without a GPU gives an unsupported baseline whose reason says so.
#pragma once

#include "op_config.h"
#include "tensor.h"

#include <string>
#include <vector>

namespace tessera::cuda {

class GpuBaseline {
public:
    virtual ~GpuBaseline() = default;
    bool supported() const { return why_not_.empty(); }
    const std::string &why_not() const { return why_not_; }
    const std::string &impl() const { return impl_; }
    // Copies the inputs to the device, runs the library's kernels, copies the output
    // back and waits for it: what a Halide pipeline compiled for a GPU target does
    // when called on host buffers.
    virtual void run(std::vector<Tensor> &inputs, Tensor &output) = 0;

protected:
    std::string why_not_, impl_;
};

}  // namespace tessera::cuda
