#include "program_family.h"

namespace tessera::rtile {

std::string program_family(const analysis::TensorExpr &t) {
    // Per reduction dim: whether some read moves it with a spatial dim in one storage dim.
    std::vector<bool> windowed(t.dims.size(), false);
    for (const analysis::AccessMap &m : t.reads) {
        for (const std::vector<int64_t> &row : m.coef) {
            bool spatial = false;
            for (size_t j = 0; j < row.size() && j < t.dims.size(); j++) spatial = spatial || (row[j] && !t.dims[j].reduction);
            for (size_t j = 0; j < row.size() && j < t.dims.size(); j++) {
                if (row[j] && t.dims[j].reduction && spatial) windowed[j] = true;
            }
        }
    }
    // A reduction dim of one point (a 1x1 kernel's taps) is neither.
    bool window = false, channels = false;
    for (size_t j : t.reduction_dims()) {
        if (t.dims[j].extent > 1) (windowed[j] ? window : channels) = true;
    }
    if (window) return channels ? "conv" : "depthwise";
    return t.reads.size() >= 2 ? "matmul" : "reduction";
}

}  // namespace tessera::rtile
