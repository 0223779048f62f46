// One call of a GPU ahead-of-time library (gpu_aot_registry.h) on host tensors,
// without libHalide: the inputs marked as written on the host (the pipeline copies
// them to the device on its first call and keeps them there), the output left on
// the device until asked for. The PoCL test runs each library once; tessera-gpu-bench
// calls run() again and again on the device-resident buffers to time the kernels.
#pragma once

#include "gpu_aot_registry.h"
#include "tensor.h"

#include <HalideBuffer.h>

#include <string>
#include <vector>

namespace tessera {

// The tensor's storage seen by Halide: dimensions reversed (dimension 0 innermost).
Halide::Runtime::Buffer<float> runtime_view(Tensor &t);

class GpuAotRun {
public:
    // `inputs` and `output` must outlive this object (their storage is shared).
    GpuAotRun(const GpuAotKernel &kernel, std::vector<Tensor> &inputs, Tensor &output);
    ~GpuAotRun();
    GpuAotRun(const GpuAotRun &) = delete;
    GpuAotRun &operator=(const GpuAotRun &) = delete;

    // The pipeline's return code (0: success). Kernels may still be running.
    int run();
    // Waits for the pipeline's kernels (halide_device_sync).
    int sync();
    // True when the output has a device allocation holding newer data than the host's:
    // the pipeline wrote it in a kernel.
    bool output_on_device() const;
    // Copies the output back to the host tensor (a no-op when the host has the newest).
    int copy_output_to_host();
    // What Halide's runtime last reported on this thread ("" if nothing), then cleared:
    // errors are recorded for this instead of the default handler's abort.
    static std::string take_error_message();

private:
    const GpuAotKernel &kernel_;
    std::vector<Halide::Runtime::Buffer<float>> buffers_;  // the inputs, then the output
    std::vector<void *> args_;
};

}  // namespace tessera
