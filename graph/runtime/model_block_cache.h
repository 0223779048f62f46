// The heap blocks a model's partitions ask Halide for (intermediates computed at
// root, a padded copy of an input), kept by the model from one call to the next.
//
// Why: with Halide's default halide_malloc every call allocates and frees them, and
// the C library hands large freed blocks back to the system (munmap, heap trimming),
// so each call wrote to fresh pages: page faults and zeroing on every run. A 3x3
// stride-2 convolution (128 channels, 56x56 -> 28x28) ran 3.9-4.9 ms so under the JIT
// against 2.3 ms with its blocks kept, and the tuner and the per-layer view measured
// that cost as the kernel's.
//
// A block is reused for any request it can hold (the smallest such); a request that
// no kept block can hold frees the largest of them first, so a model keeps about as
// many blocks as its partitions hold at once, each as large as the largest asked for.
// Safe to call from the pool's tasks (one mutex).
//
// Blocks under kSmallestKept come from the C library and are not kept: they are a
// task's scratch (one channel's padded plane), asked for by every thread at once,
// once per task; the C library serves them from per-thread caches and never returns
// them to the system, while kept ones queued the threads on the mutex (a 5x5
// stride-2 depthwise convolution, 240 tasks on 2 threads: 0.13-0.16 ms kept against
// 0.08-0.10 from the C library). Like model_thread_pool.h, this
// header is compiled into every emitted library; internal linkage throughout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <new>
#include <vector>

namespace {

class ModelBlockCache {
public:
    ModelBlockCache() = default;
    ModelBlockCache(const ModelBlockCache &) = delete;
    ModelBlockCache &operator=(const ModelBlockCache &) = delete;

    ~ModelBlockCache() {
        for (const Block &b : kept_) std::free(b.base);
    }

    // `bytes` aligned to kAlignment (what Halide expects of halide_malloc), with a
    // vector's worth of slack after the end; nullptr when the system has no memory.
    void *allocate(size_t bytes) {
        const size_t capacity = (bytes + 2 * kAlignment - 1) / kAlignment * kAlignment;
        if (capacity < kSmallestKept) {
            void *base = std::aligned_alloc(kAlignment, kAlignment + capacity);
            if (!base) return nullptr;
            *static_cast<size_t *>(base) = 0;
            return static_cast<char *>(base) + kAlignment;
        }
        std::lock_guard<std::mutex> lock(mutex_);
        const size_t none = kept_.size();
        size_t best = none, largest = none;  // the smallest block that fits; the largest kept
        for (size_t i = 0; i < kept_.size(); i++) {
            const size_t c = kept_[i].capacity;
            if (c >= capacity && (best == none || c < kept_[best].capacity)) best = i;
            if (largest == none || c > kept_[largest].capacity) largest = i;
        }
        Block b;
        if (best != none) {
            b = kept_[best];
            kept_.erase(kept_.begin() + std::ptrdiff_t(best));
        } else {
            if (largest != none) {  // too small for this request: make room for a block that is not
                std::free(kept_[largest].base);
                kept_.erase(kept_.begin() + std::ptrdiff_t(largest));
            }
            b.capacity = capacity;
            b.base = std::aligned_alloc(kAlignment, kAlignment + capacity);
            if (!b.base) return nullptr;
        }
        // The header keeps the block's capacity for release().
        *static_cast<size_t *>(b.base) = b.capacity;
        return static_cast<char *>(b.base) + kAlignment;
    }

    void release(void *p) {
        if (!p) return;
        Block b;
        b.base = static_cast<char *>(p) - kAlignment;
        b.capacity = *static_cast<size_t *>(b.base);
        if (b.capacity == 0) {
            std::free(b.base);
            return;
        }
        std::lock_guard<std::mutex> lock(mutex_);
        kept_.push_back(b);
    }

    // Blocks kept for the next request (for tests).
    size_t kept_blocks() {
        std::lock_guard<std::mutex> lock(mutex_);
        return kept_.size();
    }

    static constexpr size_t kAlignment = 64;
    static constexpr size_t kSmallestKept = 64 * 1024;

private:
    struct Block {
        void *base = nullptr;
        size_t capacity = 0;
    };
    std::mutex mutex_;
    std::vector<Block> kept_;  // free for the next request
};

}  // namespace
