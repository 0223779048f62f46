// tessera-bench's `--op NAME --shape K=V,...`: the op name and the key list the user
// typed, turned into a validated OpConfig. Header-only so tests/fuzz links it as is.
#pragma once

#include "op_catalog.h"
#include "op_config.h"

#include <cctype>
#include <string>
#include <vector>

namespace tessera {

// "M=512,N=1024,K=64" (commas or spaces between keys). A piece without '=' continues
// the previous value, so list values survive: "shape=4x8,axes=0,1".
// Throws ops::OpError for an unknown op or key, a missing key or a bad value.
inline ops::OpConfig parse_shape_option(const std::string &op, const std::string &shape) {
    std::string line = op;
    std::string token;
    std::vector<std::string> tokens;
    for (char c : shape + ",") {
        if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
            if (token.empty()) continue;
            if (token.find('=') == std::string::npos && !tokens.empty()) {
                tokens.back() += "," + token;
            } else {
                tokens.push_back(token);
            }
            token.clear();
        } else {
            token += c;
        }
    }
    for (const std::string &t : tokens) line += " " + t;
    ops::OpConfig config = ops::parse_op_line(line);
    ops::describe_op(config);  // unknown op or key, missing key, bad value
    return config;
}

}  // namespace tessera
