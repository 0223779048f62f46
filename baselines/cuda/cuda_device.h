// The CUDA runtime pieces the GPU baselines share: is there a GPU, device memory.
#pragma once

#include "tensor.h"

#include <cstddef>
#include <string>

namespace tessera::cuda {

// "" when a CUDA device can be used, else why not, starting "no GPU" (cudaGetDeviceCount
// failed or found none: no driver, no device).
std::string why_no_gpu();

// The first device's name, multiprocessor count and memory ("NVIDIA H200, 132 SMs, 139 GiB").
std::string device_summary();

// Throws std::runtime_error naming `what` unless `status` is cudaSuccess (an int, so
// that callers need not include the CUDA headers).
void check_cuda(int status, const char *what);

// Waits for every kernel queued on the device (cudaDeviceSynchronize), checked.
void synchronize();

// Device memory for `count` floats.
class DeviceArray {
public:
    explicit DeviceArray(size_t count = 0);
    ~DeviceArray();
    DeviceArray(const DeviceArray &) = delete;
    DeviceArray &operator=(const DeviceArray &) = delete;
    DeviceArray(DeviceArray &&other) noexcept;
    DeviceArray &operator=(DeviceArray &&other) noexcept;

    float *data() const { return data_; }
    size_t count() const { return count_; }
    void upload(const Tensor &t);
    void download(Tensor &t) const;

private:
    float *data_ = nullptr;
    size_t count_ = 0;
};

}  // namespace tessera::cuda
