#include "attribute.h"

#include <sstream>

namespace tessera::graph {

Attribute Attribute::make_int(int64_t v) {
    Attribute a;
    a.kind = Kind::Int;
    a.i = v;
    return a;
}

Attribute Attribute::make_float(float v) {
    Attribute a;
    a.kind = Kind::Float;
    a.f = v;
    return a;
}

Attribute Attribute::make_string(std::string v) {
    Attribute a;
    a.kind = Kind::String;
    a.s = std::move(v);
    return a;
}

Attribute Attribute::make_ints(std::vector<int64_t> v) {
    Attribute a;
    a.kind = Kind::Ints;
    a.ints = std::move(v);
    return a;
}

Attribute Attribute::make_floats(std::vector<float> v) {
    Attribute a;
    a.kind = Kind::Floats;
    a.floats = std::move(v);
    return a;
}

Attribute Attribute::make_tensor(TensorData v) {
    Attribute a;
    a.kind = Kind::Tensor;
    a.tensor = std::make_shared<const TensorData>(std::move(v));
    return a;
}

std::string Attribute::to_string() const {
    std::ostringstream os;
    switch (kind) {
    case Kind::Int: os << i; break;
    case Kind::Float: os << f; break;
    case Kind::String: os << '\'' << s << '\''; break;
    case Kind::Ints:
        os << '[';
        for (size_t k = 0; k < ints.size(); k++)
            os << (k ? "," : "") << ints[k];
        os << ']';
        break;
    case Kind::Floats:
        os << '[';
        for (size_t k = 0; k < floats.size(); k++)
            os << (k ? "," : "") << floats[k];
        os << ']';
        break;
    case Kind::Tensor: os << "tensor " << dtype_name(tensor->dtype) << '[' << shape_string(tensor->shape) << ']'; break;
    }
    return os.str();
}

const char *attribute_kind_name(Attribute::Kind kind) {
    switch (kind) {
    case Attribute::Kind::Int: return "int";
    case Attribute::Kind::Float: return "float";
    case Attribute::Kind::String: return "string";
    case Attribute::Kind::Ints: return "ints";
    case Attribute::Kind::Floats: return "floats";
    case Attribute::Kind::Tensor: return "tensor";
    }
    return "?";
}

} // namespace tessera::graph
