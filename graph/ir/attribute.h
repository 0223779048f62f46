// Attribute: one node attribute as ONNX spells it (ints, floats, strings, int lists,
// float lists, tensors). Graph and sparse-tensor attributes are never imported.
#pragma once

#include "tensor_data.h"

#include <memory>
#include <string>
#include <vector>

namespace tessera::graph {

struct Attribute {
    enum class Kind { Int, Float, String, Ints, Floats, Tensor };
    Kind kind = Kind::Int;
    int64_t i = 0;
    float f = 0;
    std::string s;
    std::vector<int64_t> ints;
    std::vector<float> floats;
    std::shared_ptr<const TensorData> tensor;

    static Attribute make_int(int64_t v);
    static Attribute make_float(float v);
    static Attribute make_string(std::string v);
    static Attribute make_ints(std::vector<int64_t> v);
    static Attribute make_floats(std::vector<float> v);
    static Attribute make_tensor(TensorData v);

    // Short rendering for the printer, e.g. "3", "[1,1,1,1]", "tensor f32[3]".
    std::string to_string() const;
};

const char *attribute_kind_name(Attribute::Kind kind);

} // namespace tessera::graph
