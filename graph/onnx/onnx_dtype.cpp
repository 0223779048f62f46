#include "onnx_dtype.h"

namespace tessera::graph {

// Codes from onnx.proto's TensorProto.DataType.
std::optional<DType> dtype_from_onnx(int code) {
    switch (code) {
    case 1: return DType::f32;
    case 6: return DType::i32;
    case 7: return DType::i64;
    case 9: return DType::boolean;
    default: return std::nullopt;
    }
}

int onnx_code(DType t) {
    switch (t) {
    case DType::f32: return 1;
    case DType::i32: return 6;
    case DType::i64: return 7;
    case DType::boolean: return 9;
    }
    return 0;
}

std::string onnx_dtype_name(int code) {
    static const char *names[] = {"UNDEFINED", "FLOAT",  "UINT8",     "INT8",       "UINT16",  "INT16",
                                  "INT32",     "INT64",  "STRING",    "BOOL",       "FLOAT16", "DOUBLE",
                                  "UINT32",    "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16"};
    if (code >= 0 && code < int(sizeof(names) / sizeof(names[0]))) return names[code];
    return "type " + std::to_string(code);
}

const char *supported_onnx_dtypes() {
    return "FLOAT, INT64, INT32, BOOL";
}

} // namespace tessera::graph
