#include "device_spec.h"

#include "diagnostics.h"
#include "gpu_device.h"
#include "x86_device.h"

#include <sstream>

namespace tessera::hal {

const MemoryLayer &DeviceSpec::layer(const std::string &name) const {
    for (const MemoryLayer &l : layers) {
        if (l.name == name) return l;
    }
    internal_error << "no memory layer " << name << "\n";
    return layers.front();
}

std::string DeviceSpec::describe() const {
    std::ostringstream s;
    if (gpu) {
        s << arch << ": " << gpu->name << ", " << cores << " SMs, warp " << gpu->warp << ", " << gpu->register_cap_per_thread
          << " registers per thread (cap), " << gpu->shared_bytes_per_block << " shared bytes per block, "
          << gpu->shared_banks << " banks x " << gpu->bank_bytes << " B, " << gpu->transaction_bytes
          << " B transactions, peak " << peak_gflops_per_core << " GFLOP/s per SM (" << profile_source << ")\n";
    } else {
    s << arch << ": " << cores << " cores, " << vector_lanes << " lanes of " << element_bytes << " bytes, "
      << vector_registers << " vector registers, " << fma_pipes << " FMA pipes x latency " << fma_latency
      << ", peak " << peak_gflops_per_core << " GFLOP/s per core (profile: " << profile_source << ")\n";
    }
    for (const MemoryLayer &l : layers) {
        s << "  " << l.name << ": " << l.capacity_bytes << " bytes, line " << l.line_bytes << ", " << l.gbs_per_core
          << " GB/s per core\n";
    }
    return s.str();
}

DeviceSpec make_device_spec(const Halide::Target &target, int parallelism, const DeviceProfile &profile,
                            int element_bytes, const std::string &gpu_profile) {
    user_assert(element_bytes == 1 || element_bytes == 2 || element_bytes == 4 || element_bytes == 8)
        << "Tessera: values of " << element_bytes << " bytes cannot be vectorised\n";
    if (target.has_feature(Halide::Target::CUDA) || target.has_feature(Halide::Target::OpenCL)) {
        return make_gpu_device_spec(target, gpu_figures_for_target(target, gpu_profile), element_bytes);
    }
    user_assert(target.arch == Halide::Target::X86 && !target.has_gpu_feature())
        << "Tessera: target " << target.to_string()
        << " is not supported (x86 CPUs, CUDA and OpenCL GPUs are)\n";
    return make_x86_device_spec(target, parallelism, profile, element_bytes);
}

}  // namespace tessera::hal
