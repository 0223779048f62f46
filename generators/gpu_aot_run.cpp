#include "gpu_aot_run.h"

#include <HalideRuntime.h>

namespace tessera {

namespace {

thread_local std::string halide_message;

void record_halide_error(void *, const char *message) { halide_message = message; }

}  // namespace

Halide::Runtime::Buffer<float> runtime_view(Tensor &t) {
    std::vector<halide_dimension_t> dims;
    const std::vector<int64_t> strides = t.strides();
    for (int i = int(t.shape.size()) - 1; i >= 0; i--) {
        dims.push_back(halide_dimension_t(0, int32_t(t.shape[i]), int32_t(strides[i])));
    }
    return Halide::Runtime::Buffer<float>(t.data.data(), int(dims.size()), dims.data());
}

GpuAotRun::GpuAotRun(const GpuAotKernel &kernel, std::vector<Tensor> &inputs, Tensor &output) : kernel_(kernel) {
    halide_set_error_handler(record_halide_error);
    for (Tensor &t : inputs) {
        buffers_.push_back(runtime_view(t));
        buffers_.back().set_host_dirty();  // written on the host: the first call copies it to the device
    }
    buffers_.push_back(runtime_view(output));
    for (auto &b : buffers_) args_.push_back(b.raw_buffer());
}

GpuAotRun::~GpuAotRun() {
    for (auto &b : buffers_) b.device_free();
}

int GpuAotRun::run() { return kernel_.argv_entry(args_.data()); }

int GpuAotRun::sync() { return buffers_.back().device_sync(); }

bool GpuAotRun::output_on_device() const {
    const Halide::Runtime::Buffer<float> &out = buffers_.back();
    return out.raw_buffer()->device != 0 && out.device_dirty();
}

int GpuAotRun::copy_output_to_host() { return buffers_.back().copy_to_host(); }

std::string GpuAotRun::take_error_message() {
    std::string m = std::move(halide_message);
    halide_message.clear();
    while (!m.empty() && m.back() == '\n') m.pop_back();
    return m;
}

}  // namespace tessera
