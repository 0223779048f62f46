// A model compiled by `tessera compile`, loaded back from its folder: plan.json for
// the name and the tensors, lib<name>.so through dlopen, <name>.weights through
// <name>_create. What `tessera run out/` and tessera-bench --model run.
#pragma once

#include "graph.h"
#include "sample_inputs.h"
#include "tensor_data.h"

#include <string>
#include <vector>

namespace tessera::cli {

struct TensorSpec {
    std::string name;
    graph::Shape shape;
    graph::DType dtype = graph::DType::f32;  // a library's: f32, or i64 for every integer-like one
    graph::ValueRange range;                 // an integer input's values for a made-up run
    bool is_float() const { return dtype == graph::DType::f32; }
    // "float32[1x3x224x224]", "int64[1x128]" (as the library's arrays hold them).
    std::string describe() const;
};

// Graph value `name` as a tensor a run takes or gives (its dtype; an integer input's range).
TensorSpec graph_tensor_spec(const graph::Graph &g, const std::string &name);

// Made-up values for input `t`: normal fp32 values, or integers in its range.
graph::TensorData random_input(const TensorSpec &t, unsigned seed);

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
    // The same on raw arrays (row-major, float32 or int64 as inputs()/outputs() say), written in place.
    void run_arrays(const void *const *inputs, void *const *outputs);

private:
    std::string name_, target_;
    std::vector<TensorSpec> inputs_, outputs_;
    void *library_ = nullptr;
    void *model_ = nullptr;
    int threads_ = 0;
    int (*run_arrays_)(void *, const void *const *, void *const *) = nullptr;
    void (*destroy_)(void *) = nullptr;
    const char *(*last_error_)() = nullptr;
};

}  // namespace tessera::cli
