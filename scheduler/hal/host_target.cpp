#include "host_target.h"

#include <cpuid.h>

namespace tessera::hal {

namespace {

// CPUID leaf 7, sub-leaf 1, EAX bit 4: AVX-VNNI (the VEX-encoded dot products).
bool cpu_has_avx_vnni() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_max(0, nullptr) < 7) return false;
    __cpuid_count(7, 1, eax, ebx, ecx, edx);
    return (eax >> 4) & 1u;
}

}  // namespace

Halide::Target runnable_here(Halide::Target target) {
    if (target.arch == Halide::Target::X86 && target.has_feature(Halide::Target::AVX512_SapphireRapids) &&
        !cpu_has_avx_vnni()) {
        target = target.without_feature(Halide::Target::AVX512_SapphireRapids);
    }
    return target;
}

Halide::Target host_target() { return runnable_here(Halide::get_host_target()); }

Halide::Target target_named(const std::string &name) {
    const Halide::Target target(name);
    return name.rfind("host", 0) == 0 ? runnable_here(target) : target;
}

}  // namespace tessera::hal
