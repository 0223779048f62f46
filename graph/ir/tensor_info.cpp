#include "tensor_info.h"

namespace tessera::graph {

TensorInfo TensorInfo::constant(std::string name, TensorData value) {
    TensorInfo t;
    t.name = std::move(name);
    t.dtype = value.dtype;
    t.shape = value.shape;
    t.shape_known = true;
    t.data = std::make_shared<const TensorData>(std::move(value));
    return t;
}

std::string TensorInfo::type_string() const {
    return std::string(dtype_name(dtype)) + "[" + (shape_known ? shape_string(shape) : "?") + "]";
}

} // namespace tessera::graph
