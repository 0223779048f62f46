// A guard against a Halide 14 code generation bug. A load at a constant stride of
// 2 to 4 becomes a dense load of the covering lanes and a shuffle; when its index is
// a constant (alignment modulus 0), Halide shifts the base to a multiple of the
// stride and computes the new remainder modulo 0, which its arithmetic defines as
// 0: the dense load is then marked aligned to the native vector, and LLVM emits an
// aligned move (vmovaps) at an address that is not. It happens where a per-row
// buffer is small enough that a whole row's index folds to constants (an NCHW max
// pool's taps over a 3x9 padded window: a general-protection fault). The pass
// forgets the alignment of exactly those loads, so they are emitted unaligned.
#pragma once

#include <Halide.h>

namespace tessera::hal {

// `s` with those loads' alignment unknown.
Halide::Internal::Stmt forget_constant_strided_load_alignment(const Halide::Internal::Stmt &s);

// The pass as a custom lowering pass (owned by the pipeline it is added to).
Halide::Internal::IRMutator *new_strided_load_alignment_guard();

}  // namespace tessera::hal
