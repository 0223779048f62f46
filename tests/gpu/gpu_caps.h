// The per-architecture limits a CUDA kernel's ptxas figures are checked against:
// the HAL's (scheduler/hal/gpu_device.h), the caps Tessera's GPU schedules are built within.
#pragma once

#include <cstdint>
#include <string>

namespace tessera::gpu {

struct GpuCaps {
    int register_cap_per_thread = 0;     // the HAL's cap for Tessera's tiles, below the hardware's 255
    int64_t registers_per_sm = 0;        // the register file: a block's threads x registers must fit
    int64_t shared_bytes_per_block = 0;  // static + dynamic shared memory one block may use
    int64_t shared_bytes_per_sm = 0;
};

// For "sm_75", "sm_86" or "sm_90"; throws std::invalid_argument for another.
GpuCaps gpu_caps(const std::string &arch);

}  // namespace tessera::gpu
