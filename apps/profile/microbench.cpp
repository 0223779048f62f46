#include "microbench.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

namespace tessera::profile {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The compiler must not drop work whose result is unused.
volatile float sink;

// FMA: latency 4 cycles x 2 pipes needs >= 8 independent chains to keep both pipes
// busy; 12 (AVX-512, 32 registers) and 10 (AVX2, 16 registers) leave headroom and
// stay in registers. Each chain is x = x * m + a, which converges and never denormalises.
// Every chain starts at a value of its own, and the empty asm says each may have
// changed after every step: chains that start equal compute equal values, and GCC
// merged them into one, a single latency-bound FMA per iteration counted as twelve
// (the peak reported 12 / 4 = 3 FMAs per cycle: 1.5x too high with two 512-bit pipes,
// 3x on Zen 4's one). ProfileCli.FmaLoopsIssueEveryChainTheyCount reads the loops back.
#define TESSERA_KEEP_CHAINS(...) asm volatile("" : __VA_ARGS__)
__attribute__((target("avx512f"), noinline)) double fma_loop_avx512(uint64_t iters) {
    __m512 m = _mm512_set1_ps(0.999f), a = _mm512_set1_ps(0.001f);
    __m512 x0 = _mm512_set1_ps(1.00f), x1 = _mm512_set1_ps(1.01f), x2 = _mm512_set1_ps(1.02f);
    __m512 x3 = _mm512_set1_ps(1.03f), x4 = _mm512_set1_ps(1.04f), x5 = _mm512_set1_ps(1.05f);
    __m512 x6 = _mm512_set1_ps(1.06f), x7 = _mm512_set1_ps(1.07f), x8 = _mm512_set1_ps(1.08f);
    __m512 x9 = _mm512_set1_ps(1.09f), x10 = _mm512_set1_ps(1.10f), x11 = _mm512_set1_ps(1.11f);
    for (uint64_t i = 0; i < iters; i++) {
        TESSERA_KEEP_CHAINS("+v"(x0), "+v"(x1), "+v"(x2), "+v"(x3), "+v"(x4), "+v"(x5), "+v"(x6), "+v"(x7),
                            "+v"(x8), "+v"(x9), "+v"(x10), "+v"(x11));
        x0 = _mm512_fmadd_ps(x0, m, a);
        x1 = _mm512_fmadd_ps(x1, m, a);
        x2 = _mm512_fmadd_ps(x2, m, a);
        x3 = _mm512_fmadd_ps(x3, m, a);
        x4 = _mm512_fmadd_ps(x4, m, a);
        x5 = _mm512_fmadd_ps(x5, m, a);
        x6 = _mm512_fmadd_ps(x6, m, a);
        x7 = _mm512_fmadd_ps(x7, m, a);
        x8 = _mm512_fmadd_ps(x8, m, a);
        x9 = _mm512_fmadd_ps(x9, m, a);
        x10 = _mm512_fmadd_ps(x10, m, a);
        x11 = _mm512_fmadd_ps(x11, m, a);
    }
    __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(x0, x1), _mm512_add_ps(x2, x3)),
                             _mm512_add_ps(_mm512_add_ps(x4, x5), _mm512_add_ps(x6, x7)));
    s = _mm512_add_ps(s, _mm512_add_ps(_mm512_add_ps(x8, x9), _mm512_add_ps(x10, x11)));
    sink = _mm512_reduce_add_ps(s);
    return double(iters) * 12 * 16 * 2;
}

__attribute__((target("avx2,fma"), noinline)) double fma_loop_avx2(uint64_t iters) {
    __m256 m = _mm256_set1_ps(0.999f), a = _mm256_set1_ps(0.001f);
    __m256 x0 = _mm256_set1_ps(1.00f), x1 = _mm256_set1_ps(1.01f), x2 = _mm256_set1_ps(1.02f);
    __m256 x3 = _mm256_set1_ps(1.03f), x4 = _mm256_set1_ps(1.04f), x5 = _mm256_set1_ps(1.05f);
    __m256 x6 = _mm256_set1_ps(1.06f), x7 = _mm256_set1_ps(1.07f), x8 = _mm256_set1_ps(1.08f);
    __m256 x9 = _mm256_set1_ps(1.09f);
    for (uint64_t i = 0; i < iters; i++) {
        TESSERA_KEEP_CHAINS("+x"(x0), "+x"(x1), "+x"(x2), "+x"(x3), "+x"(x4), "+x"(x5), "+x"(x6), "+x"(x7),
                            "+x"(x8), "+x"(x9));
        x0 = _mm256_fmadd_ps(x0, m, a);
        x1 = _mm256_fmadd_ps(x1, m, a);
        x2 = _mm256_fmadd_ps(x2, m, a);
        x3 = _mm256_fmadd_ps(x3, m, a);
        x4 = _mm256_fmadd_ps(x4, m, a);
        x5 = _mm256_fmadd_ps(x5, m, a);
        x6 = _mm256_fmadd_ps(x6, m, a);
        x7 = _mm256_fmadd_ps(x7, m, a);
        x8 = _mm256_fmadd_ps(x8, m, a);
        x9 = _mm256_fmadd_ps(x9, m, a);
    }
    __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(x0, x1), _mm256_add_ps(x2, x3)),
                             _mm256_add_ps(_mm256_add_ps(x4, x5), _mm256_add_ps(x6, x7)));
    s = _mm256_add_ps(s, _mm256_add_ps(x8, x9));
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, s);
    sink = lanes[0] + lanes[7];
    return double(iters) * 10 * 8 * 2;
}
#undef TESSERA_KEEP_CHAINS

// Sums a buffer with 8 independent vector accumulators (add latency x pipes), so the
// loads, not the adds, are the limit.
__attribute__((target("avx512f"))) void read_avx512(const float *p, size_t n) {
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
    for (size_t i = 0; i + 128 <= n; i += 128) {
        s0 = _mm512_add_ps(s0, _mm512_load_ps(p + i));
        s1 = _mm512_add_ps(s1, _mm512_load_ps(p + i + 16));
        s2 = _mm512_add_ps(s2, _mm512_load_ps(p + i + 32));
        s3 = _mm512_add_ps(s3, _mm512_load_ps(p + i + 48));
        s4 = _mm512_add_ps(s4, _mm512_load_ps(p + i + 64));
        s5 = _mm512_add_ps(s5, _mm512_load_ps(p + i + 80));
        s6 = _mm512_add_ps(s6, _mm512_load_ps(p + i + 96));
        s7 = _mm512_add_ps(s7, _mm512_load_ps(p + i + 112));
    }
    __m512 s = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(s0, s1), _mm512_add_ps(s2, s3)),
                             _mm512_add_ps(_mm512_add_ps(s4, s5), _mm512_add_ps(s6, s7)));
    sink = _mm512_reduce_add_ps(s);
}

__attribute__((target("avx2"))) void read_avx2(const float *p, size_t n) {
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0, s4 = s0, s5 = s0, s6 = s0, s7 = s0;
    for (size_t i = 0; i + 64 <= n; i += 64) {
        s0 = _mm256_add_ps(s0, _mm256_load_ps(p + i));
        s1 = _mm256_add_ps(s1, _mm256_load_ps(p + i + 8));
        s2 = _mm256_add_ps(s2, _mm256_load_ps(p + i + 16));
        s3 = _mm256_add_ps(s3, _mm256_load_ps(p + i + 24));
        s4 = _mm256_add_ps(s4, _mm256_load_ps(p + i + 32));
        s5 = _mm256_add_ps(s5, _mm256_load_ps(p + i + 40));
        s6 = _mm256_add_ps(s6, _mm256_load_ps(p + i + 48));
        s7 = _mm256_add_ps(s7, _mm256_load_ps(p + i + 56));
    }
    __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3)),
                             _mm256_add_ps(_mm256_add_ps(s4, s5), _mm256_add_ps(s6, s7)));
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, s);
    sink = lanes[0] + lanes[7];
}

// Ordinary (not streaming) stores, as compiled kernels write their outputs.
__attribute__((target("avx512f"))) void copy_avx512(float *dst, const float *src, size_t n) {
    for (size_t i = 0; i + 64 <= n; i += 64) {
        __m512 a = _mm512_load_ps(src + i), b = _mm512_load_ps(src + i + 16);
        __m512 c = _mm512_load_ps(src + i + 32), d = _mm512_load_ps(src + i + 48);
        _mm512_store_ps(dst + i, a);
        _mm512_store_ps(dst + i + 16, b);
        _mm512_store_ps(dst + i + 32, c);
        _mm512_store_ps(dst + i + 48, d);
    }
}

__attribute__((target("avx2"))) void copy_avx2(float *dst, const float *src, size_t n) {
    for (size_t i = 0; i + 32 <= n; i += 32) {
        __m256 a = _mm256_load_ps(src + i), b = _mm256_load_ps(src + i + 8);
        __m256 c = _mm256_load_ps(src + i + 16), d = _mm256_load_ps(src + i + 24);
        _mm256_store_ps(dst + i, a);
        _mm256_store_ps(dst + i + 8, b);
        _mm256_store_ps(dst + i + 16, c);
        _mm256_store_ps(dst + i + 24, d);
    }
}

// One 8x8 block transposed in registers: 8 row loads, 24 shuffles (unpack pairs,
// shuffle quads, swap 128-bit halves), 8 ordinary stores of the columns.
__attribute__((target("avx2"))) void transpose_8x8_avx2(const float *src, size_t src_stride, float *dst,
                                                        size_t dst_stride) {
    __m256 r[8], t[8], q[8];
    for (int i = 0; i < 8; i++) r[i] = _mm256_loadu_ps(src + i * src_stride);
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {
        q[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
        q[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
        q[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
        q[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
    }
    for (int i = 0; i < 4; i++) {
        _mm256_storeu_ps(dst + i * dst_stride, _mm256_permute2f128_ps(q[i], q[i + 4], 0x20));
        _mm256_storeu_ps(dst + (i + 4) * dst_stride, _mm256_permute2f128_ps(q[i], q[i + 4], 0x31));
    }
}

// dst (cols x rows) = src (rows x cols) transposed, in tiles of tile_rows x
// tile_cols source elements (both multiples of 8 dividing the matrix), 8x8 blocks
// row by row within a tile.
__attribute__((target("avx2"))) void transpose_tiled_avx2(const float *src, float *dst, size_t rows, size_t cols,
                                                         size_t tile_rows, size_t tile_cols) {
    for (size_t ti = 0; ti < rows; ti += tile_rows) {
        for (size_t tj = 0; tj < cols; tj += tile_cols) {
            for (size_t i = ti; i < ti + tile_rows; i += 8) {
                for (size_t j = tj; j < tj + tile_cols; j += 8) {
                    transpose_8x8_avx2(src + i * cols + j, cols, dst + j * rows + i, rows);
                }
            }
        }
    }
}

struct AlignedBuffer {
    explicit AlignedBuffer(size_t bytes)
        : n(bytes / sizeof(float)), p(static_cast<float *>(::operator new(n * sizeof(float), std::align_val_t(4096)))) {
        // Touch every page (first-touch places it near the thread that will read it).
        for (size_t i = 0; i < n; i++) p[i] = float(i & 1023) * 1e-3f;
    }
    ~AlignedBuffer() { ::operator delete(p, std::align_val_t(4096)); }
    AlignedBuffer(const AlignedBuffer &) = delete;
    AlignedBuffer &operator=(const AlignedBuffer &) = delete;
    size_t n;
    float *p;
};

// A source and a destination buffer of the same size (copy, transpose).
struct BufferPair {
    explicit BufferPair(size_t bytes) : src(bytes), dst(bytes) {}
    AlignedBuffer src, dst;
};

// Runs body(thread_index) on `threads` threads, each repeating until `seconds` have
// passed since a common start; returns the longest per-thread (passes, seconds) as
// total passes / slowest time, i.e. sustained aggregate passes per second.
template <typename Setup, typename Body>
double parallel_rate(int threads, double seconds, Setup setup, Body body) {
    std::atomic<int> ready{0};
    std::atomic<bool> go{false};
    std::vector<double> passes(threads), elapsed(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; t++) {
        pool.emplace_back([&, t] {
            auto state = setup(t);
            body(state);  // warm: pull the buffer into the layer it fits
            ready++;
            while (!go.load()) {
            }
            auto t0 = Clock::now();
            uint64_t k = 0;
            do {
                body(state);
                k++;
            } while (seconds_since(t0) < seconds);
            passes[t] = double(k);
            elapsed[t] = seconds_since(t0);
        });
    }
    while (ready.load() < threads) {
    }
    go = true;
    for (std::thread &th : pool) th.join();
    double total = 0;
    for (int t = 0; t < threads; t++) total += passes[t] / elapsed[t];
    return total;
}

}  // namespace

int fma_lanes() {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return 16;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 8;
    return 0;
}

double fma_gflops_one_core(double seconds) {
    const int lanes = fma_lanes();
    if (lanes == 0) return 0;
    auto loop = lanes == 16 ? fma_loop_avx512 : fma_loop_avx2;
    loop(1 << 16);  // warm up (and let the core reach its vector frequency)
    double best = 0;
    for (int trial = 0; trial < 3; trial++) {
        uint64_t iters = 1 << 20;
        auto t0 = Clock::now();
        double flops = 0;
        do {
            flops += loop(iters);
        } while (seconds_since(t0) < seconds / 3);
        best = std::max(best, flops / seconds_since(t0) / 1e9);
    }
    return best;
}

double read_gbs(size_t bytes_per_thread, int threads, double seconds, int trials) {
    const bool wide = fma_lanes() == 16;
    double best = 0;
    for (int trial = 0; trial < trials; trial++) {
        double passes = parallel_rate(
            threads, seconds, [&](int) { return std::make_unique<AlignedBuffer>(bytes_per_thread); },
            [&](std::unique_ptr<AlignedBuffer> &b) { wide ? read_avx512(b->p, b->n) : read_avx2(b->p, b->n); });
        best = std::max(best, passes * double(bytes_per_thread) / 1e9);
    }
    return best;
}

double copy_gbs(size_t bytes_per_thread, int threads, double seconds, int trials) {
    const bool wide = fma_lanes() == 16;
    double best = 0;
    for (int trial = 0; trial < trials; trial++) {
        double passes = parallel_rate(
            threads, seconds,
            [&](int) { return std::make_unique<BufferPair>(bytes_per_thread); },
            [&](std::unique_ptr<BufferPair> &b) {
                wide ? copy_avx512(b->dst.p, b->src.p, b->src.n) : copy_avx2(b->dst.p, b->src.p, b->src.n);
            });
        best = std::max(best, passes * 2.0 * double(bytes_per_thread) / 1e9);
    }
    return best;
}

double transpose_gbs(size_t bytes_per_thread, size_t cols, int threads, double seconds, int trials) {
    if (fma_lanes() == 0) return 0;
    // Tile shapes tried (source rows x columns); the best one counts. Small enough
    // that a tile's lines stay cached while its 8x8 blocks are written out.
    const size_t tiles[][2] = {{32, 256}, {64, 64}, {128, 128}};
    const size_t rows = std::max<size_t>(128, bytes_per_thread / sizeof(float) / cols / 128 * 128);
    const size_t bytes = rows * cols * sizeof(float);
    std::atomic<bool> wrong{false};
    double best = 0;
    for (const auto &tile : tiles) {
        for (int trial = 0; trial < trials; trial++) {
            double passes = parallel_rate(
                threads, seconds, [&](int) { return std::make_unique<BufferPair>(bytes); },
                [&](std::unique_ptr<BufferPair> &b) {
                    transpose_tiled_avx2(b->src.p, b->dst.p, rows, cols, tile[0], tile[1]);
                    // A wrong kernel would measure nothing: check a few elements.
                    for (size_t k = 0; k < 64; k++) {
                        size_t i = (k * 7919) % rows, j = (k * 104729) % cols;
                        if (b->dst.p[j * rows + i] != b->src.p[i * cols + j]) wrong = true;
                    }
                });
            if (wrong) throw std::logic_error("transpose microbenchmark: wrong result");
            best = std::max(best, passes * 2.0 * double(bytes) / 1e9);
        }
    }
    return best;
}

}  // namespace tessera::profile
