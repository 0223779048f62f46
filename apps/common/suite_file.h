// Suite files: one operator per line in the OpConfig form
//   conv2d n=1 c=64 h=56 w=56 oc=64 kh=3 kw=3 stride=1 pad=1 layout=nchw
// '#' starts a comment; blank lines are ignored. Every line is validated against
// the operator catalogue when the file is read.
#pragma once

#include "op_config.h"

#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera {

// "FILE:LINE: message"; tools report it and exit with code 2.
class SuiteError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct SuiteEntry {
    int line = 0;
    ops::OpConfig config;
};

std::vector<SuiteEntry> parse_suite(std::istream &in, const std::string &source_name);
std::vector<SuiteEntry> load_suite_file(const std::string &path);

// Path of a built-in suite ("default", ...); throws SuiteError for an unknown name.
std::string builtin_suite_path(const std::string &name);

}  // namespace tessera
