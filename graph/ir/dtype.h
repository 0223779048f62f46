// DType: the element types the graph layer carries. Models compute in fp32; int64
// (and the int32/bool an exporter emits around it) only flows through shape arithmetic.
#pragma once

namespace tessera::graph {

enum class DType { f32, i64, i32, boolean };

const char *dtype_name(DType t); // "f32", "i64", "i32", "bool"

// Integer-like types share one storage (int64) in TensorData.
inline bool is_integer(DType t) {
    return t != DType::f32;
}

} // namespace tessera::graph
