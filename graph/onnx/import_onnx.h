// import_onnx: an ONNX model file -> Graph. Default domain, opsets 1 to 21, fp32
// compute with int64 shape tensors. Initializers and Constant nodes become constants;
// every node is checked against its OpRule and shapes are inferred.
#pragma once

#include "graph.h"

#include <map>
#include <string>
#include <vector>

namespace tessera::graph {

// Opsets 1-6 are read as their opset-7 forms (upgrade_legacy_opset.h).
constexpr int min_supported_opset = 1;
constexpr int max_supported_opset = 21;

// `input_shapes` overrides the declared shapes of graph inputs by name; an input with a
// symbolic or unknown dimension needs one. Shapes that depend on computed values (a
// Reshape fed by a Shape chain) stay unknown until fold_constants.
// Throws GraphError: missing or unreadable file, not an ONNX model, unsupported opset,
// op, attribute or dtype, symbolic input dimension without an override.
Graph import_onnx(const std::string &path, const std::map<std::string, std::vector<int64_t>> &input_shapes = {});

// The same from serialized ModelProto bytes; `source` names them in messages.
Graph import_onnx_bytes(const std::string &bytes, const std::string &source,
                        const std::map<std::string, std::vector<int64_t>> &input_shapes = {});

} // namespace tessera::graph
