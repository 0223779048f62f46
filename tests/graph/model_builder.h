// ModelBuilder: small ONNX models written with the protobuf API, so that the import tests
// need no Python and no files from elsewhere.
#pragma once

#include "compare.h"
#include "tensor_data.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace tessera::graph::testing {

class ModelBuilder {
public:
    explicit ModelBuilder(int opset = 13);

    // A dim of -1 becomes the symbolic dim_param `symbol`.
    ModelBuilder &input(const std::string &name, std::vector<int64_t> dims, int elem_type = 1,
                        const std::string &symbol = "N");
    ModelBuilder &output(const std::string &name, int elem_type = 1);
    ModelBuilder &initializer(const std::string &name, const TensorData &value);

    // Adds a node; attributes are added on the returned proto.
    onnx::NodeProto &node(const std::string &op, std::vector<std::string> inputs, std::vector<std::string> outputs,
                          const std::string &name = "");

    std::string bytes() const;
    // Writes the model under the test temp dir and returns the path.
    std::string save(const std::string &file_name) const;

    onnx::ModelProto model;
};

void set_int(onnx::NodeProto &n, const std::string &key, int64_t v);
void set_float(onnx::NodeProto &n, const std::string &key, float v);
void set_string(onnx::NodeProto &n, const std::string &key, const std::string &v);
void set_ints(onnx::NodeProto &n, const std::string &key, const std::vector<int64_t> &v);
void set_tensor(onnx::NodeProto &n, const std::string &key, const TensorData &v);

onnx::TensorProto to_proto(const std::string &name, const TensorData &t);

// Uniform random floats in [lo, hi), seeded.
TensorData random_floats(const Shape &shape, uint64_t seed, float lo = -1.0f, float hi = 1.0f);

// The graph layer's comparison (graph/run/compare.h).
using graph::relative_error;

std::string temp_path(const std::string &file_name);

} // namespace tessera::graph::testing
