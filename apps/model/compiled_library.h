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
    explicit CompiledLibrary(const std::string &dir);
    ~CompiledLibrary();
    CompiledLibrary(const CompiledLibrary &) = delete;
    CompiledLibrary &operator=(const CompiledLibrary &) = delete;

    const std::string &name() const { return name_; }
    const std::string &target() const { return target_; }  // the Halide target it was compiled for
    // Whether its kernels run on a GPU (a CUDA or OpenCL target).
    bool on_gpu() const { return target_.find("cuda") != std::string::npos || target_.find("opencl") != std::string::npos; }
    const std::vector<TensorSpec> &inputs() const { return inputs_; }
    const std::vector<TensorSpec> &outputs() const { return outputs_; }
    void set_threads(int threads);
    // `inputs` and `outputs` in the order of inputs() and outputs(), already sized.
    // Throws std::runtime_error with the library's last error.
    void run(const std::vector<const graph::TensorData *> &inputs, std::vector<graph::TensorData> &outputs);

private:
    std::string name_, target_;
    std::vector<TensorSpec> inputs_, outputs_;
    void *library_ = nullptr;
    void *model_ = nullptr;
    int (*run_arrays_)(void *, const float *const *, float *const *) = nullptr;
    void (*destroy_)(void *) = nullptr;
    void (*set_threads_)(int) = nullptr;
    const char *(*last_error_)() = nullptr;
};

}  // namespace tessera::cli
