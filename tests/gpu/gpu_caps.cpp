#include "gpu_caps.h"

#include "device_spec.h"
#include "gpu_device.h"

#include <Halide.h>

#include <stdexcept>

namespace tessera::gpu {
namespace {

GpuCaps caps_of(const hal::GpuFigures &g) {
    return GpuCaps{g.register_cap_per_thread, g.registers_per_sm, g.shared_bytes_per_block, g.shared_bytes_per_sm};
}

}  // namespace

// The HAL's figures, as the scheduler sees them: the DeviceSpec of the CUDA target
// the PTX was generated for. Halide 14 has no cuda_capability_90 feature, so sm_90's
// come from the HAL's table directly.
GpuCaps gpu_caps(const std::string &arch) {
    if (arch == "sm_75" || arch == "sm_86") {
        const Halide::Target target("host-cuda-cuda_capability_" + arch.substr(3));
        const hal::DeviceSpec spec = hal::make_device_spec(target, 0, hal::builtin_profile());
        if (!spec.gpu) throw std::logic_error("the HAL's spec for " + target.to_string() + " has no GPU figures");
        return caps_of(*spec.gpu);
    }
    if (arch == "sm_90") return caps_of(hal::cuda_figures(90));
    throw std::invalid_argument("no GPU caps for " + arch);
}

}  // namespace tessera::gpu
