// Tensors of a model given as .npy files on a command line: `name=path`, or a bare
// `path` when the model has a single such tensor. Shared by `tessera run` and
// `tessera-bench --model`.
#pragma once

#include "compiled_library.h"
#include "tensor_data.h"

#include <map>
#include <string>
#include <vector>

namespace tessera::cli {

// Binds the arguments of `flag` (e.g. "--input") to `tensors` by name. Throws
// UsageError on a bare path for a model with several tensors or an unknown name.
std::map<std::string, std::string> bind_files(const std::vector<std::string> &args, const std::vector<TensorSpec> &tensors,
                                              const std::string &flag);

// Reads `path` for tensor `t`. Throws graph::GraphError naming the file when it cannot be
// read or does not hold t's shape: float32 for a float tensor, any integer or bool type
// for an integer one.
graph::TensorData read_tensor_file(const std::string &flag, const std::string &path, const TensorSpec &t);

}  // namespace tessera::cli
