// CPU alignment rules (Roller (OSDI'22) §3.1 mapped onto a CPU):
// - register tile: the vectorised dim a multiple of the vector lanes; at least
//   fma_pipes x latency independent accumulators when the shape allows, and
//   accumulators + operand registers within the register file;
// - cache tiles: sizes that divide the loop extent (Halide computes the register
//   tile's accumulator inside the tile loops, which must not overrun the tensor:
//   the padding bound epsilon is 0 here, see scheduler/README.md), or, under a
//   pure epilogue, L2 tiles whose last one shifts inwards, and the
//   vectorised dim's data tiles a multiple of the 64-byte line where possible;
//   and the rows of a broadcast operand within the address registers;
// - storage padding: a packed tile whose row stride is a multiple of 4 KiB gets a
//   line of padding so its rows do not alias in the same cache sets.
#pragma once

#include "device_spec.h"
#include "rtile.h"

namespace tessera::rtile {

// How the tiles along a loop dim meet its extent: they divide it; they may overrun
// it (every read along the dim can be evaluated anywhere); or the last one shifts
// inwards and recomputes an overlap (the stage is computed per tile of a pure
// epilogue whose tails shift inwards, so every tile is whole and in bounds).
enum class TailRule { Divide, Overrun, ShiftInwards };

// Candidate sizes for a loop dim larger than `current`, smallest first, multiples
// of `granule`: Divide, those dividing the extent (and the full extent); Overrun,
// every one up to the first that covers the extent; ShiftInwards, every one up to
// the extent (and the extent when it is one of them).
std::vector<int64_t> next_aligned_sizes(int64_t current, int64_t extent, int64_t granule,
                                        TailRule rule = TailRule::Divide);

// The largest size below `current` that `next_aligned_sizes` would allow, or 0.
int64_t previous_aligned_size(int64_t current, int64_t extent, int64_t granule, TailRule rule);

// Step of the vectorised dim's register tile: the vector lanes, or the largest
// power-of-two fraction of them (at least 4) dividing the extent; 0 when none does.
int64_t vector_granule(int64_t extent, int lanes);

// Width the micro-kernel vectorises a register tile of `extent` points with: the
// vector granule of that extent, or full vectors with a guarded tail when none.
int vector_width(int64_t extent, int lanes);

// The largest divisor of `extent` in [least, most]; 0 when there is none.
int64_t largest_divisor(int64_t extent, int64_t most, int64_t least);

// Lanes a reduction vectorised along its reduction dim of `extent` points (one
// partial sum per lane) splits that dim by: the whole dim when it fits in a vector,
// else the largest divisor of at least 3/4 of a vector, else the full vector (the last
// one then guarded). A guarded tail predicates the partial sums' update, which
// keeps them in memory behind masked stores (see scheduler/README.md).
int reduction_vector_width(int64_t extent, int lanes);

// Vector registers a register tile needs: accumulators plus one operand vector per
// vector of the tile, and one broadcast register unless the FMAs read broadcasts
// from memory (AVX-512: LLVM folds them, or holds the one a few FMAs share, into
// the FMAs' operands; NCHW16c 1x1 tiles of 7 pixels x 4 blocks, 28 accumulators
// and 4 weight vectors, ran fastest). An unrolled window's broadcasts are counted
// apart (hoisted_broadcast_registers).
int register_tile_registers(const RTile &tile, const RProgram &p, const hal::DeviceSpec &d);
int register_tile_accumulators(const RTile &tile, const RProgram &p, const hal::DeviceSpec &d);

// Rows of broadcast operands a register tile reads at run-time strides (each needs
// its own address register): the second dim's extent for every read that depends
// on it but not on the vector dim, is not contiguous along it and is not a computed
// operand with compile-time row strides (see constant_row_stride).
int register_tile_row_streams(const analysis::TensorExpr &t, const RTile &tile, const RProgram &p);

// Whether the tile's broadcasts live in registers: always without FMAs that
// broadcast from memory (AVX2); with them (AVX-512) when each broadcast feeds two
// or more FMAs (vectors of the tile, or operand sets along its third dim), which
// LLVM then loads once into a register rather than once per FMA.
bool broadcasts_in_registers(const RTile &tile, const RProgram &p, const hal::DeviceSpec &d);

// LLVM fully unrolls a micro-kernel's innermost reduction loop of at most
// kUnrolledWindow points (a 3-wide window) and, where its broadcasts live in
// registers and each feeds two or more vectors, loads every distinct broadcast of
// the unrolled body up front: the registers beyond those register_tile_registers
// counts. (NCHW 3x3 with 4 channel rows x 2 vectors held 12 broadcasts and spilled
// 5: 14x14x256 ran 2.11 ms on Zen 3. AVX-512, packed 3x3 at 7 columns x 4 panels:
// 28 accumulators, 4 weight vectors and the 9 inputs of the 3 taps spilled 5
// accumulators and ran 1.3x slower than 7 columns x 2 panels.)
constexpr int64_t kUnrolledWindow = 4;
// That window: the innermost reduction dim when LLVM unrolls it and the tile's
// broadcasts live in registers; -1 if none.
int unrolled_broadcast_window(const analysis::TensorExpr &t, const RTile &tile, const RProgram &p,
                              const hal::DeviceSpec &d);
int hoisted_broadcast_registers(const analysis::TensorExpr &t, const RTile &tile, const RProgram &p,
                                const hal::DeviceSpec &d);

// The register tile fits the register file: vector registers and address registers.
bool register_tile_fits(const analysis::TensorExpr &t, const RTile &tile, const RProgram &p, const hal::DeviceSpec &d);

// Padding (in elements of `element_bytes` bytes) for rows of `row_elements`
// elements so that consecutive rows do not map to the same cache sets: a line
// (`line_bytes`) when the row stride is a multiple of a 4 KiB page.
int64_t storage_padding(int64_t row_elements, int element_bytes, int64_t line_bytes);

}  // namespace tessera::rtile
