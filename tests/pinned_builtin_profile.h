// The built-in device profile with what it reads from the host pinned (its vector
// lanes, which set its peak, its core count and its cache sizes from sysfs), for
// tests that assert a construction's choice on hand-built machines: under the
// host's own figures a choice held on one CPU and not on another (a 32 KiB L1 took
// another register tile than 48 KiB).
#pragma once

#include "device_profile.h"

namespace tessera::test {

inline hal::DeviceProfile pinned_builtin_profile(int lanes, uint64_t l2_bytes = 1 << 20) {
    hal::DeviceProfile profile = hal::builtin_profile();
    profile.cores = 2;
    profile.vector_lanes_fp32 = lanes;
    profile.fma_gflops_per_core = 2.0 * 2 * lanes * 2.0;  // builtin_profile's own formula
    for (hal::MemoryLayerProfile &layer : profile.layers) {
        if (layer.name == "L1") layer.capacity_bytes = 48 << 10;
        if (layer.name == "L2") layer.capacity_bytes = l2_bytes;
        if (layer.name == "LLC") layer.capacity_bytes = 32ull << 20;
    }
    return profile;
}

}  // namespace tessera::test
