// Machines that schedule-shape tests pin, whatever the host: a Halide target string
// and a device profile (tests/profiles/). The constructor's choices depend on the
// vector width and the cache sizes, so a test that asserts a schedule's shape
// under the host's own figures passes on one CPU and fails on another. Tests
// assert shapes under every machine here (two CPU shapes: AVX2 with a 512 KiB L2,
// AVX-512 with a 2 MiB L2 and a large L3); only correctness runs on the host.
#pragma once

#include <string>
#include <vector>

namespace tessera::test {

struct PinnedMachine {
    std::string name;     // short, for messages
    std::string target;   // Halide target string
    std::string profile;  // device profile JSON (TESSERA_DEVICE_PROFILE)
    int lanes;            // fp32 lanes of the target's vectors
};

inline const char *const kAvx2Target = "x86-64-linux-avx-avx2-fma-f16c-sse41";
inline const char *const kAvx512Target = "x86-64-linux-avx-avx2-f16c-fma-sse41-avx512-avx512_skylake";

inline std::string test_profile(const std::string &file) {
    return std::string(TESSERA_TEST_PROFILES) + "/" + file;
}

// AMD Zen 3 (AVX2, 32 KiB L1d, 512 KiB L2, 32 MiB L3) and Intel Xeon (AVX-512,
// 48 KiB L1d, 2 MiB L2, 105 MiB L3).
inline const std::vector<PinnedMachine> &pinned_machines() {
    static const std::vector<PinnedMachine> machines = {
        {"avx2-zen3", kAvx2Target, test_profile("avx2_zen3.json"), 8},
        {"avx512-xeon", kAvx512Target, test_profile("avx512_xeon.json"), 16},
    };
    return machines;
}

}  // namespace tessera::test
