// Fuzz target: tessera-bench's `--op NAME --shape K=V,...` (apps/common/shape_option.h).
// Input: the first line is --op's value, the rest --shape's.
// Accepted: a validated OpConfig. Rejected: ops::OpError (tessera-bench exits 2).
#include "fuzz_common.h"
#include "shape_option.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const std::string input(reinterpret_cast<const char *>(data), size);
    const size_t newline = input.find('\n');
    const std::string op = input.substr(0, newline);
    const std::string shape = newline == std::string::npos ? "" : input.substr(newline + 1);
    try {
        tessera::ops::OpConfig config = tessera::parse_shape_option(op, shape);
        tessera::fuzz::accepted(config.to_string());
    } catch (const tessera::ops::OpError &e) {
        tessera::fuzz::rejected(e.what());
    }
    return 0;
}
