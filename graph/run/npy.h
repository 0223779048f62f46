// .npy files (numpy's format, versions 1-3): float32 and int64 (also int32 and bool)
// tensors in C order, little-endian. Model inputs and reference outputs travel this way
// between the tessera CLI, numpy and the tests.
#pragma once

#include "tensor_data.h"

#include <string>

namespace tessera::graph {

// Throws GraphError naming the file: cannot open, not a .npy file, Fortran order,
// big-endian or unsupported dtype, truncated data.
TensorData read_npy(const std::string &path);

// Writes a version 1.0 file ('<f4', '<i8', '<i4' or '|b1'). Throws GraphError naming the
// file when it cannot be written.
void write_npy(const std::string &path, const TensorData &tensor);

} // namespace tessera::graph
