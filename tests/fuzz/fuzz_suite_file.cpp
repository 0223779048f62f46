// Fuzz target: suite files (apps/common/suite_file.h), i.e. the line splitter, '#'
// comments, `op key=value` tokenising (ops::parse_op_line) and the validation of
// every line against the catalogue (ops::describe_op).
// Accepted: parse_suite returns entries. Rejected: tessera::SuiteError.
// Invariants: every accepted line prints back (OpConfig::to_string) to a line that
// parses to the same configuration; no accepted value holds a NUL byte.
#include "fuzz_common.h"
#include "suite_file.h"

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    using namespace tessera;
    std::istringstream in(std::string(reinterpret_cast<const char *>(data), size));
    std::vector<SuiteEntry> entries;
    try {
        entries = parse_suite(in, "fuzz.suite");
    } catch (const SuiteError &e) {
        fuzz::rejected(e.what());
        return 0;
    }
    for (const SuiteEntry &e : entries) {
        const std::string printed = e.config.to_string();
        ops::OpConfig again;
        try {
            again = ops::parse_op_line(printed);
        } catch (const ops::OpError &err) {
            fuzz::finding("accepted line " + std::to_string(e.line) + " prints as '" + printed +
                          "', which does not parse: " + err.what());
        }
        if (again.op != e.config.op || again.attrs != e.config.attrs) {
            fuzz::finding("line " + std::to_string(e.line) + ": '" + printed + "' parses to '" + again.to_string() + "'");
        }
        for (const auto &[key, value] : e.config.attrs) {
            // Every value the catalogue accepts is printable text: a NUL byte would
            // have cut an integer or a number short.
            if (value.find('\0') != std::string::npos) {
                fuzz::finding("line " + std::to_string(e.line) + ": key '" + key + "' accepted with a NUL byte in its value");
            }
        }
        fuzz::accepted(printed);
    }
    return 0;
}
