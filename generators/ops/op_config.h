// OpConfig: one operator instance as the user writes it, e.g.
//   conv2d n=1 c=64 h=56 w=56 oc=64 kh=3 kw=3 stride=1 pad=1 layout=nchw
// Parsing and typed attribute access live here; nothing here knows Halide, so the
// plain C++ references and the apps share it with the generators.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace tessera::ops {

// A user-caused error in an operator description (unknown op or key, bad value).
// The message always names the culprit.
class OpError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

using Shape = std::vector<int64_t>;  // logical shape, outermost axis first (row-major)

struct OpConfig {
    std::string op;
    std::vector<std::pair<std::string, std::string>> attrs;  // in the order written

    bool has(const std::string &key) const;
    // Raw value; throws OpError if absent.
    const std::string &value(const std::string &key) const;

    // Typed access. Each throws OpError naming the key and the bad value.
    int64_t get_int(const std::string &key) const;
    int64_t get_int(const std::string &key, int64_t fallback) const;
    double get_float(const std::string &key, double fallback) const;
    bool get_bool(const std::string &key, bool fallback) const;
    std::string get_string(const std::string &key, const std::string &fallback) const;
    std::vector<int64_t> get_int_list(const std::string &key) const;  // "1,2,3"
    Shape get_shape(const std::string &key) const;                    // "2x3x4"

    void set(const std::string &key, const std::string &value);

    // An op configured in code (the graph lowering), its attributes in the order
    // added, with no text to parse: OpConfig::of("conv2d").with("n", 1).with("layout", "nhwc").
    static OpConfig of(const std::string &op);
    OpConfig &with(const std::string &key, const std::string &value);
    OpConfig &with(const std::string &key, const char *value) { return with(key, std::string(value)); }
    OpConfig &with(const std::string &key, int64_t value);
    OpConfig &with(const std::string &key, int value) { return with(key, int64_t(value)); }
    OpConfig &with_float(const std::string &key, double value);                       // 9 significant digits
    OpConfig &with_shape(const std::string &key, const Shape &shape);                 // "2x3x4"
    OpConfig &with_list(const std::string &key, const std::vector<int64_t> &values);  // "1,2,3"
    // "op k=v k=v" in the order written.
    std::string to_string() const;
    // "k=v k=v" without the op name.
    std::string attrs_string() const;
};

// Parses "op k=v k=v ...". Throws OpError on a malformed token or a repeated key.
OpConfig parse_op_line(const std::string &line);

std::string shape_to_string(const Shape &shape);  // "2x3x4"
int64_t num_elements(const Shape &shape);  // throws OpError past int64

}  // namespace tessera::ops
