// Tensor: a dense row-major fp32 host tensor (logical shape, outermost axis first).
// The references, the runners and the tests exchange data in this form; Halide
// sees the same memory with its dimensions reversed (see apps/common/halide_io.h).
#pragma once

#include "op_config.h"

#include <cstdint>
#include <new>
#include <utility>
#include <vector>

namespace tessera {

// Allocates on 128-byte boundaries: compiled kernels may use aligned vector loads
// and stores on buffer storage, and it keeps timings free of split cache lines.
template <typename T>
struct AlignedAllocator {
    using value_type = T;
    static constexpr std::align_val_t alignment{128};
    AlignedAllocator() = default;
    template <typename U>
    AlignedAllocator(const AlignedAllocator<U> &) {}
    T *allocate(size_t n) { return static_cast<T *>(::operator new(n * sizeof(T), alignment)); }
    void deallocate(T *p, size_t) { ::operator delete(p, alignment); }
    bool operator==(const AlignedAllocator &) const { return true; }
    bool operator!=(const AlignedAllocator &) const { return false; }
};

struct Tensor {
    ops::Shape shape;
    std::vector<float, AlignedAllocator<float>> data;

    Tensor() = default;
    explicit Tensor(ops::Shape s) : shape(std::move(s)), data(ops::num_elements(shape), 0.0f) {}

    size_t size() const { return data.size(); }
    // Row-major strides in elements.
    std::vector<int64_t> strides() const;
};

// Uniform values in [lo, hi) from a seeded generator (deterministic per seed).
Tensor random_tensor(const ops::Shape &shape, uint64_t seed, float lo = -1.0f, float hi = 1.0f);

// Fills with quiet NaN so an element the kernel never writes cannot pass a check.
void poison(Tensor &t);

// Lends `tensors` to a callee taking a std::vector<Tensor>& without copying them:
// each is swapped into its slot of `args` (resized to fit), f(args) is called, and
// they are swapped back, also when f throws. For kernels run in sequence, each on
// some of an op's inputs and its predecessors' outputs. No tensor may appear twice.
template <typename F>
void with_lent_tensors(const std::vector<Tensor *> &tensors, std::vector<Tensor> &args, F &&f) {
    struct Lease {
        const std::vector<Tensor *> &tensors;
        std::vector<Tensor> &args;
        ~Lease() {
            for (size_t i = 0; i < tensors.size(); i++) std::swap(*tensors[i], args[i]);
        }
    };
    args.resize(tensors.size());
    for (size_t i = 0; i < tensors.size(); i++) std::swap(*tensors[i], args[i]);
    Lease lease{tensors, args};
    f(args);
}

// max_i |actual_i - expected_i| / max(max_i |expected_i|, tiny): a norm-wise relative
// error. Returns +infinity when shapes differ or any element of `actual` is NaN/inf.
double relative_error(const Tensor &actual, const Tensor &expected);

}  // namespace tessera
