#include "npy.h"

#include "graph_error.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tessera::graph {

namespace {

const char magic[] = "\x93NUMPY";

struct Descr {
    const char *text;
    DType dtype;
    size_t width;
};
const Descr descrs[] = {
    {"<f4", DType::f32, 4}, {"<i8", DType::i64, 8}, {"<i4", DType::i32, 4}, {"|b1", DType::boolean, 1}};

// The value text after 'key': in the header dict, e.g. "'<f4'" or "(2, 3)".
std::string dict_value(const std::string &header, const std::string &key, const std::string &path) {
    size_t at = header.find("'" + key + "'");
    if (at == std::string::npos) throw GraphError(path + ": .npy header has no '" + key + "'");
    at = header.find(':', at);
    size_t start = header.find_first_not_of(' ', at + 1);
    size_t end = header[start] == '(' ? header.find(')', start) + 1 : header.find_first_of(",}", start);
    return header.substr(start, end - start);
}

Shape parse_shape(const std::string &text, const std::string &path) {
    Shape shape;
    std::string inner = text.substr(1, text.size() - 2);
    std::stringstream ss(inner);
    std::string item;
    while (std::getline(ss, item, ',')) {
        if (item.find_first_not_of(' ') == std::string::npos) continue;
        try {
            shape.push_back(std::stoll(item));
        } catch (const std::exception &) {
            throw GraphError(path + ": bad shape " + text + " in .npy header");
        }
    }
    return shape;
}

} // namespace

TensorData read_npy(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw GraphError(path + ": cannot open (" + std::strerror(errno) + ")");
    char head[8];
    if (!in.read(head, 8) || std::memcmp(head, magic, 6) != 0) throw GraphError(path + ": not a .npy file");
    uint32_t header_len = 0;
    unsigned char len_bytes[4] = {0, 0, 0, 0};
    int len_size = head[6] == 1 ? 2 : 4;
    if (!in.read(reinterpret_cast<char *>(len_bytes), len_size)) throw GraphError(path + ": truncated .npy header");
    for (int k = len_size - 1; k >= 0; k--)
        header_len = header_len * 256 + len_bytes[k];
    std::string header(header_len, '\0');
    if (!in.read(header.data(), header_len)) throw GraphError(path + ": truncated .npy header");

    std::string descr = dict_value(header, "descr", path);
    if (dict_value(header, "fortran_order", path) != "False")
        throw GraphError(path + ": Fortran-order arrays are not supported (save with C order)");
    const Descr *d = nullptr;
    for (const Descr &c : descrs)
        if (descr == "'" + std::string(c.text) + "'") d = &c;
    if (!d) throw GraphError(path + ": dtype " + descr + " is not supported (supported: '<f4', '<i8', '<i4', '|b1')");
    TensorData t(d->dtype, parse_shape(dict_value(header, "shape", path), path));
    std::string bytes(t.size() * d->width, '\0');
    if (!in.read(bytes.data(), std::streamsize(bytes.size())))
        throw GraphError(path + ": truncated data (expected " + std::to_string(bytes.size()) + " bytes for " +
                         shape_string(t.shape) + ")");
    for (size_t k = 0; k < t.size(); k++) {
        const char *p = bytes.data() + k * d->width;
        if (d->dtype == DType::f32) {
            std::memcpy(&t.f[k], p, 4);
        } else if (d->dtype == DType::i64) {
            std::memcpy(&t.i[k], p, 8);
        } else if (d->dtype == DType::i32) {
            int32_t v;
            std::memcpy(&v, p, 4);
            t.i[k] = v;
        } else {
            t.i[k] = *p != 0;
        }
    }
    return t;
}

void write_npy(const std::string &path, const TensorData &t) {
    const Descr &d = descrs[t.dtype == DType::f32 ? 0 : t.dtype == DType::i64 ? 1 : t.dtype == DType::i32 ? 2 : 3];
    // numpy spells shapes as Python tuples: (), (2,), (2, 3).
    std::string shape;
    for (int64_t dim : t.shape)
        shape += std::to_string(dim) + ", ";
    if (t.shape.size() > 1) shape.resize(shape.size() - 2);
    if (t.shape.size() == 1) shape.pop_back();
    shape = "(" + shape + ")";
    std::string header = std::string("{'descr': '") + d.text + "', 'fortran_order': False, 'shape': " + shape + ", }";
    // Pad with spaces so the data starts on a 64-byte boundary; the header ends in '\n'.
    size_t total = 10 + header.size() + 1;
    header.append((64 - total % 64) % 64, ' ');
    header += '\n';
    std::ofstream out(path, std::ios::binary);
    if (!out) throw GraphError(path + ": cannot write (" + std::strerror(errno) + ")");
    out.write(magic, 6);
    char version[2] = {1, 0};
    out.write(version, 2);
    uint16_t len = uint16_t(header.size());
    char len_bytes[2] = {char(len & 0xff), char(len >> 8)};
    out.write(len_bytes, 2);
    out << header;
    for (size_t k = 0; k < t.size(); k++) {
        if (t.dtype == DType::f32) {
            out.write(reinterpret_cast<const char *>(&t.f[k]), 4);
        } else if (t.dtype == DType::i64) {
            out.write(reinterpret_cast<const char *>(&t.i[k]), 8);
        } else if (t.dtype == DType::i32) {
            int32_t v = int32_t(t.i[k]);
            out.write(reinterpret_cast<const char *>(&v), 4);
        } else {
            char v = t.i[k] != 0;
            out.write(&v, 1);
        }
    }
    if (!out) throw GraphError(path + ": write failed");
}

} // namespace tessera::graph
