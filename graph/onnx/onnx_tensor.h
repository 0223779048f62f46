// Reading ONNX TensorProtos: initializers, tensor attributes and the input_*.pb /
// output_*.pb files of ONNX's test data. Raw (little-endian) and typed storage are
// both read; external data is not.
#pragma once

#include "tensor_data.h"

#include <string>

namespace onnx {
class TensorProto;
}

namespace tessera::graph {

// `what` names the tensor in error messages, e.g. "initializer 'conv1.weight'".
// Throws GraphError for an unsupported dtype, external data or a size mismatch.
TensorData tensor_from_proto(const onnx::TensorProto &proto, const std::string &what);

// Reads a serialized TensorProto file; `name` receives the tensor's name. Errors name
// the file.
TensorData read_tensor_file(const std::string &path, std::string *name = nullptr);

// Reads a whole file into a string; throws GraphError "<path>: cannot open (...)".
std::string read_file_bytes(const std::string &path);

} // namespace tessera::graph
