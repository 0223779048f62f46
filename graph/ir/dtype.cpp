#include "dtype.h"

namespace tessera::graph {

const char *dtype_name(DType t) {
    switch (t) {
    case DType::f32: return "f32";
    case DType::i64: return "i64";
    case DType::i32: return "i32";
    case DType::boolean: return "bool";
    }
    return "?";
}

} // namespace tessera::graph
