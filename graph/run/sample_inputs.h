// Made-up inputs for a run without input files (`tessera run`, tessera-run-library,
// the tuner's timings): integer inputs must hold values the model can take, e.g.
// token ids below the vocabulary size, or a run with random ids reads past a table
// and stops with an error.
#pragma once

#include "graph.h"
#include "tensor_data.h"

#include <cstdint>
#include <string>

namespace tessera::graph {

// The values [lo, hi) an integer-like value may hold.
struct ValueRange {
    int64_t lo = 0, hi = 2;
};

// Where `value` (followed through reshapes, slices, concatenations and the like)
// indexes a Gather, [0, the gathered axis's extent) (the smallest over several);
// otherwise [0, 2): a mask or flag.
ValueRange sample_range(const Graph &g, const std::string &value);

// Uniform random integers in `range` (dtype i64, i32 or bool; a bool's range is [0, 2)).
TensorData random_integers(DType dtype, const Shape &shape, ValueRange range, uint64_t seed);

}  // namespace tessera::graph
