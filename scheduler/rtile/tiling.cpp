#include "tiling.h"

namespace tessera::rtile {

TilingContext fuse_tiling(const TilingContext &c, const analysis::AxisFusion &f, size_t fused_dims) {
    const size_t a = f.inner, b = f.inner + 1;
    TilingContext out;
    out.overrun_ok.assign(fused_dims, false);
    out.shift_ok.assign(fused_dims, false);
    out.shift_ok[a] = true;
    for (size_t j = 0; j < fused_dims; j++) {
        if (j == a) continue;
        const size_t from = j < b ? j : j + 1;
        out.overrun_ok[j] = c.overruns(from);
        out.shift_ok[j] = c.shifts(from);
    }
    return out;
}

}  // namespace tessera::rtile
