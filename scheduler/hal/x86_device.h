// The x86 HAL: vector ISAs and core figures (hal/x86_device.cpp has the table and
// its sources), the memory layers from a DeviceProfile.
#pragma once

#include "device_spec.h"

namespace tessera::hal {

DeviceSpec make_x86_device_spec(const Halide::Target &target, int parallelism, const DeviceProfile &profile,
                                int element_bytes);

}  // namespace tessera::hal
