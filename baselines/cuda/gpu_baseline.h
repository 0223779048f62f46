// GpuBaseline: a vendor library (cuBLAS, cuDNN) running one catalogued op on the
// GPU, for tessera-bench and tessera-gpu-bench. Built only where CMake finds the CUDA
// toolkit; constructing one on a machine without a GPU gives an unsupported baseline
// whose reason says so.
#pragma once

#include "op_config.h"
#include "tensor.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::cuda {

class GpuBaseline {
public:
    virtual ~GpuBaseline() = default;
    bool supported() const { return why_not_.empty(); }
    const std::string &why_not() const { return why_not_; }
    const std::string &impl() const { return impl_; }

    // Copies the inputs to the device buffers made at construction.
    virtual void upload(const std::vector<Tensor> &inputs) = 0;
    // Queues the library's kernels on the uploaded inputs; returns before they finish
    // (synchronize() waits). Kernel time alone: what tessera-gpu-bench times.
    virtual void launch() = 0;
    // Waits for the kernels and copies the output back.
    virtual void download(Tensor &output) = 0;

    // Upload, launch, download: what a Halide pipeline compiled for a GPU target does
    // when called on host buffers (tessera-bench's GPU rows).
    void run(const std::vector<Tensor> &inputs, Tensor &output) {
        upload(inputs);
        launch();
        download(output);
    }

protected:
    std::string why_not_, impl_;
};

// A baseline that cannot run here (another op, no GPU): `why` says so; running it throws.
class UnsupportedGpuBaseline : public GpuBaseline {
public:
    UnsupportedGpuBaseline(std::string library, std::string why) : library_(std::move(library)) {
        why_not_ = std::move(why);
    }
    void upload(const std::vector<Tensor> &) override { refuse(); }
    void launch() override { refuse(); }
    void download(Tensor &) override { refuse(); }

private:
    [[noreturn]] void refuse() const { throw std::logic_error(library_ + ": " + why_not_); }
    std::string library_;
};

}  // namespace tessera::cuda
