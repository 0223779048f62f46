// This machine's Halide target, with the features Halide 14's detection claims but
// the CPU lacks taken out: it names AMD Zen 4 (AVX-512 with BF16 and VNNI)
// avx512_sapphirerapids, whose LLVM CPU also emits VEX-encoded AVX-VNNI
// (vpdpwssd on xmm registers), an illegal instruction there.
#pragma once

#include <Halide.h>

#include <string>

namespace tessera::hal {

Halide::Target host_target();

// `target` as this CPU can run it: the same correction applied to a target that
// Halide's detection produced ("host", HL_JIT_TARGET unset).
Halide::Target runnable_here(Halide::Target target);

// The target a string names ("host" or "host-<features>": this machine, corrected;
// anything else as written). Throws Halide::CompileError on a bad string.
Halide::Target target_named(const std::string &name);

}  // namespace tessera::hal
