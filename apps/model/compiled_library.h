// A model compiled by `tessera compile`, loaded back from its folder: plan.json for
// the name and the tensors, lib<name>.so through dlopen, <name>.weights through
// <name>_create. What `tessera run out/` and tessera-bench --model run.
#pragma once

#include "tensor_data.h"

#include <string>
#include <vector>

namespace tessera::cli {

struct TensorSpec {
    std::string name;
    graph::Shape shape;
};

class CompiledLibrary {
public:
    // Throws std::runtime_error naming the file that is missing or wrong.
    // `threads`: the model's thread pool (0: the cores this process may run on).
    explicit CompiledLibrary(const std::string &dir, int threads = 0);
    ~CompiledLibrary();
    CompiledLibrary(const CompiledLibrary &) = delete;
    CompiledLibrary &operator=(const CompiledLibrary &) = delete;

    const std::string &name() const { return name_; }
    const std::string &target() const { return target_; }  // the Halide target it was compiled for
    // Whether its kernels run on a GPU (a CUDA or OpenCL target).
    bool on_gpu() const { return target_.find("cuda") != std::string::npos || target_.find("opencl") != std::string::npos; }
    const std::vector<TensorSpec> &inputs() const { return inputs_; }
    const std::vector<TensorSpec> &outputs() const { return outputs_; }
    int threads() const { return threads_; }
    // `inputs` and `outputs` in the order of inputs() and outputs(), already sized.
    // Throws std::runtime_error with the library's last error.
    void run(const std::vector<const graph::TensorData *> &inputs, std::vector<graph::TensorData> &outputs);
    // The same on raw arrays (row-major float32 of the shapes above), written in place.
    void run_arrays(const float *const *inputs, float *const *outputs);

private:
    std::string name_, target_;
    std::vector<TensorSpec> inputs_, outputs_;
    void *library_ = nullptr;
    void *model_ = nullptr;
    int threads_ = 0;
    int (*run_arrays_)(void *, const float *const *, float *const *) = nullptr;
    void (*destroy_)(void *) = nullptr;
    const char *(*last_error_)() = nullptr;
};

}  // namespace tessera::cli
