#include "cuda_device.h"

#include <cuda_runtime.h>

#include <stdexcept>
#include <utility>

namespace tessera::cuda {

std::string why_no_gpu() {
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess) return std::string("no GPU (cudaGetDeviceCount: ") + cudaGetErrorString(status) + ")";
    if (count == 0) return "no GPU (cudaGetDeviceCount found none)";
    return "";
}

std::string device_summary() {
    cudaDeviceProp prop{};
    check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
    return std::string(prop.name) + ", " + std::to_string(prop.multiProcessorCount) + " SMs, " +
           std::to_string(prop.totalGlobalMem >> 30) + " GiB, L2 " + std::to_string(prop.l2CacheSize >> 20) +
           " MiB, compute capability " + std::to_string(prop.major) + "." + std::to_string(prop.minor);
}

void check_cuda(int status, const char *what) {
    if (status != cudaSuccess) {
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(cudaError_t(status)));
    }
}

void synchronize() { check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); }

DeviceArray::DeviceArray(size_t count) : count_(count) {
    if (count > 0) check_cuda(cudaMalloc(reinterpret_cast<void **>(&data_), count * sizeof(float)), "cudaMalloc");
}

DeviceArray::~DeviceArray() {
    if (data_) cudaFree(data_);
}

DeviceArray::DeviceArray(DeviceArray &&other) noexcept
    : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}

DeviceArray &DeviceArray::operator=(DeviceArray &&other) noexcept {
    std::swap(data_, other.data_);
    std::swap(count_, other.count_);
    return *this;
}

void DeviceArray::upload(const Tensor &t) {
    if (t.size() != count_) throw std::logic_error("DeviceArray::upload: size mismatch");
    check_cuda(cudaMemcpy(data_, t.data.data(), count_ * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy to device");
}

void DeviceArray::download(Tensor &t) const {
    if (t.size() != count_) throw std::logic_error("DeviceArray::download: size mismatch");
    check_cuda(cudaMemcpy(t.data.data(), data_, count_ * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy to host");
}

}  // namespace tessera::cuda
