// Microbenchmarks of the host CPU for the device profile (see README.md of
// apps/profile for what each measures and why it is built this way).
#pragma once

#include <cstddef>
#include <cstdint>

namespace tessera::profile {

// Widest fp32 FMA this CPU runs: 16 lanes (AVX-512F), 8 (AVX2+FMA) or 0 (neither).
int fma_lanes();

// Peak fp32 GFLOP/s of the calling thread (an FMA counts 2 flops), from `seconds`
// of independent FMA chains held in registers.
double fma_gflops_one_core(double seconds);

// Read bandwidth in GB/s of `threads` threads each summing its own `bytes_per_thread`
// buffer repeatedly (best of `trials`, each about `seconds`). Buffers are touched
// first, so a buffer that fits a cache layer is read from it.
double read_gbs(size_t bytes_per_thread, int threads, double seconds, int trials);

// Copy bandwidth in GB/s (bytes read + bytes written) of `threads` threads each
// copying its own `bytes_per_thread` buffer to another, with ordinary stores.
double copy_gbs(size_t bytes_per_thread, int threads, double seconds, int trials);

// Bandwidth in GB/s (bytes read + bytes written) of `threads` threads each
// transposing its own matrix of `cols` columns (about `bytes_per_thread`) with a
// hand-written blocked kernel (8x8 blocks in AVX2 registers, ordinary stores, the
// best of a few tile shapes). What a 2-D transpose can reach on this machine, to
// set a transpose's share of DRAM copy bandwidth against.
double transpose_gbs(size_t bytes_per_thread, size_t cols, int threads, double seconds, int trials);

}  // namespace tessera::profile
