#include "op_config.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace tessera::ops {

namespace {

std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(s);
    while (std::getline(in, part, sep)) {
        parts.push_back(part);
    }
    if (!s.empty() && s.back() == sep) {
        parts.push_back("");
    }
    return parts;
}

int64_t parse_int(const std::string &key, const std::string &text) {
    if (text.empty()) {
        throw OpError("key '" + key + "': empty value, expected an integer");
    }
    errno = 0;
    char *end = nullptr;
    long long v = std::strtoll(text.c_str(), &end, 10);
    // end must reach the value's end: a NUL byte inside it cut it short ("7\0junk"
    // read as 7; tests/fuzz).
    if (end != text.c_str() + text.size() || errno == ERANGE) {
        throw OpError("key '" + key + "': '" + text + "' is not an integer");
    }
    return v;
}

}  // namespace

bool OpConfig::has(const std::string &key) const {
    for (const auto &kv : attrs) {
        if (kv.first == key) return true;
    }
    return false;
}

const std::string &OpConfig::value(const std::string &key) const {
    for (const auto &kv : attrs) {
        if (kv.first == key) return kv.second;
    }
    throw OpError(op + ": missing key '" + key + "'");
}

int64_t OpConfig::get_int(const std::string &key) const {
    return parse_int(key, value(key));
}

int64_t OpConfig::get_int(const std::string &key, int64_t fallback) const {
    return has(key) ? get_int(key) : fallback;
}

double OpConfig::get_float(const std::string &key, double fallback) const {
    if (!has(key)) return fallback;
    const std::string &text = value(key);
    char *end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) {
        throw OpError("key '" + key + "': '" + text + "' is not a number");
    }
    return v;
}

bool OpConfig::get_bool(const std::string &key, bool fallback) const {
    if (!has(key)) return fallback;
    const std::string &text = value(key);
    if (text == "1" || text == "true" || text == "on") return true;
    if (text == "0" || text == "false" || text == "off") return false;
    throw OpError("key '" + key + "': '" + text + "' is not a boolean (use 0/1, true/false, on/off)");
}

std::string OpConfig::get_string(const std::string &key, const std::string &fallback) const {
    return has(key) ? value(key) : fallback;
}

std::vector<int64_t> OpConfig::get_int_list(const std::string &key) const {
    std::vector<int64_t> out;
    for (const std::string &part : split(value(key), ',')) {
        out.push_back(parse_int(key, part));
    }
    return out;
}

Shape OpConfig::get_shape(const std::string &key) const {
    Shape shape;
    for (const std::string &part : split(value(key), 'x')) {
        int64_t extent = parse_int(key, part);
        if (extent <= 0) {
            throw OpError("key '" + key + "': extent " + part + " in shape '" + value(key) +
                          "' must be positive");
        }
        shape.push_back(extent);
    }
    return shape;
}

void OpConfig::set(const std::string &key, const std::string &v) {
    for (auto &kv : attrs) {
        if (kv.first == key) {
            kv.second = v;
            return;
        }
    }
    attrs.emplace_back(key, v);
}

OpConfig OpConfig::of(const std::string &op) {
    OpConfig c;
    c.op = op;
    return c;
}

OpConfig &OpConfig::with(const std::string &key, const std::string &value) {
    set(key, value);
    return *this;
}

OpConfig &OpConfig::with(const std::string &key, int64_t value) {
    return with(key, std::to_string(value));
}

OpConfig &OpConfig::with_float(const std::string &key, double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", value);
    return with(key, std::string(text));
}

OpConfig &OpConfig::with_shape(const std::string &key, const Shape &shape) {
    return with(key, shape_to_string(shape));
}

OpConfig &OpConfig::with_list(const std::string &key, const std::vector<int64_t> &values) {
    std::string list;
    for (int64_t v : values) list += (list.empty() ? "" : ",") + std::to_string(v);
    return with(key, list);
}

std::string OpConfig::attrs_string() const {
    std::string s;
    for (const auto &kv : attrs) {
        if (!s.empty()) s += " ";
        s += kv.first + "=" + kv.second;
    }
    return s;
}

std::string OpConfig::to_string() const {
    std::string a = attrs_string();
    return a.empty() ? op : op + " " + a;
}

OpConfig parse_op_line(const std::string &line) {
    // A NUL byte cut values short and then the error message (tests/fuzz).
    if (size_t nul = line.find('\0'); nul != std::string::npos) {
        throw OpError("NUL byte at column " + std::to_string(nul + 1) + " (not a line of text)");
    }
    std::istringstream in(line);
    OpConfig config;
    if (!(in >> config.op)) {
        throw OpError("empty operator description");
    }
    if (config.op.find('=') != std::string::npos) {
        throw OpError("expected an operator name first, got '" + config.op + "'");
    }
    std::string token;
    while (in >> token) {
        size_t eq = token.find('=');
        if (eq == std::string::npos || eq == 0) {
            throw OpError("malformed token '" + token + "' (expected key=value)");
        }
        std::string key = token.substr(0, eq);
        if (config.has(key)) {
            throw OpError("key '" + key + "' given twice");
        }
        config.attrs.emplace_back(key, token.substr(eq + 1));
    }
    return config;
}

std::string shape_to_string(const Shape &shape) {
    std::string s;
    for (size_t i = 0; i < shape.size(); i++) {
        if (i) s += "x";
        s += std::to_string(shape[i]);
    }
    return s;
}

int64_t num_elements(const Shape &shape) {
    int64_t n = 1;
    for (int64_t e : shape) {
        // A count past int64 was signed overflow (tests/fuzz).
        if (__builtin_mul_overflow(n, e, &n)) {
            throw OpError("shape " + shape_to_string(shape) + " has too many elements to count in 64 bits");
        }
    }
    return n;
}

}  // namespace tessera::ops
