#include "gpu_caps.h"

#include <stdexcept>

namespace tessera::gpu {

// The figures of NVIDIA's CUDA C++ Programming Guide (technical specifications per
// compute capability). To be read from the HAL's GPU DeviceSpec
// (tessera::hal::make_device_spec on a host-cuda-cuda_capability_XX target, its
// `gpu` figures) once the scheduler has one: this function is the one place to change.
GpuCaps gpu_caps(const std::string &arch) {
    constexpr int64_t KiB = 1024;
    if (arch == "sm_75") return GpuCaps{255, 64 * KiB, 64 * KiB, 64 * KiB};
    if (arch == "sm_86") return GpuCaps{255, 64 * KiB, 99 * KiB, 100 * KiB};
    if (arch == "sm_90") return GpuCaps{255, 64 * KiB, 227 * KiB, 228 * KiB};
    throw std::invalid_argument("no GPU caps for " + arch);
}

}  // namespace tessera::gpu
