#include "onnx_tensor.h"

#include "graph_error.h"
#include "onnx_dtype.h"

#include <onnx/onnx_pb.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tessera::graph {

namespace {

// Little-endian element k of raw_data (the hosts we build for are little-endian).
template <typename T> T raw_element(const std::string &raw, size_t k) {
    T v;
    std::memcpy(&v, raw.data() + k * sizeof(T), sizeof(T));
    return v;
}

} // namespace

TensorData tensor_from_proto(const onnx::TensorProto &proto, const std::string &what) {
    auto dtype = dtype_from_onnx(proto.data_type());
    if (!dtype)
        throw GraphError(what + " has dtype " + onnx_dtype_name(proto.data_type()) +
                         ", which is not supported (supported: " + supported_onnx_dtypes() + ")");
    if (proto.data_location() == onnx::TensorProto::EXTERNAL)
        throw GraphError(what + " keeps its data in an external file, which is not supported");
    Shape shape(proto.dims().begin(), proto.dims().end());
    for (int64_t d : shape)
        if (d < 0) throw GraphError(what + " has a negative dimension");
    TensorData t(*dtype, shape);
    size_t n = t.size();
    const size_t widths[] = {4, 8, 4, 1}; // f32, i64, i32, bool
    size_t width = widths[int(*dtype)];
    if (proto.has_raw_data()) {
        const std::string &raw = proto.raw_data();
        if (raw.size() != n * width)
            throw GraphError(what + " holds " + std::to_string(raw.size()) + " bytes of raw data for " +
                             std::to_string(n) + " elements of " + dtype_name(*dtype));
        for (size_t k = 0; k < n; k++) {
            switch (*dtype) {
            case DType::f32: t.f[k] = raw_element<float>(raw, k); break;
            case DType::i64: t.i[k] = raw_element<int64_t>(raw, k); break;
            case DType::i32: t.i[k] = raw_element<int32_t>(raw, k); break;
            case DType::boolean: t.i[k] = raw_element<uint8_t>(raw, k) != 0; break;
            }
        }
        return t;
    }
    // Typed storage: float_data for FLOAT, int64_data for INT64, int32_data for INT32/BOOL.
    size_t have = *dtype == DType::f32   ? size_t(proto.float_data_size())
                  : *dtype == DType::i64 ? size_t(proto.int64_data_size())
                                         : size_t(proto.int32_data_size());
    if (have != n)
        throw GraphError(what + " holds " + std::to_string(have) + " values for shape " + shape_string(shape));
    for (size_t k = 0; k < n; k++) {
        if (*dtype == DType::f32)
            t.f[k] = proto.float_data(int(k));
        else if (*dtype == DType::i64)
            t.i[k] = proto.int64_data(int(k));
        else
            t.i[k] = *dtype == DType::boolean ? proto.int32_data(int(k)) != 0 : proto.int32_data(int(k));
    }
    return t;
}

std::string read_file_bytes(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw GraphError(path + ": cannot open (" + std::strerror(errno) + ")");
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

TensorData read_tensor_file(const std::string &path, std::string *name) {
    onnx::TensorProto proto;
    if (!proto.ParseFromString(read_file_bytes(path)))
        throw GraphError(path + ": not an ONNX tensor (protobuf parse failed)");
    if (name) *name = proto.name();
    return tensor_from_proto(proto, path + ": tensor '" + proto.name() + "'");
}

} // namespace tessera::graph
