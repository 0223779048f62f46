// ONNX's TensorProto.DataType codes and their mapping onto DType, without protobuf (Cast
// and ConstantOfShape carry these codes in attributes).
#pragma once

#include "dtype.h"

#include <optional>
#include <string>

namespace tessera::graph {

// nullopt for the element types the graph layer does not carry (double, float16, ...).
std::optional<DType> dtype_from_onnx(int code);
int onnx_code(DType t);
// "FLOAT", "DOUBLE", "FLOAT16", ... ("type 42" for codes ONNX 1.12 does not define).
std::string onnx_dtype_name(int code);
// "FLOAT, INT64, INT32, BOOL": for error messages.
const char *supported_onnx_dtypes();

} // namespace tessera::graph
