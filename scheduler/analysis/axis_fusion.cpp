#include "axis_fusion.h"

namespace tessera::analysis {

namespace {

// The storage dim that indexes loop dim j, when exactly one does, with
// coefficient 1; -1 when none does; -2 otherwise.
int storage_of(const AccessMap &m, size_t j) {
    int found = -1;
    for (size_t s = 0; s < m.coef.size(); s++) {
        if (m.coef[s][j] == 0) continue;
        if (m.coef[s][j] != 1 || found != -1) return -2;
        found = int(s);
    }
    return found;
}

// Whether access m allows fusing loop dims a and a + 1 (see find_axis_fusion).
bool fusable(const TensorExpr &t, const AccessMap &m, size_t a) {
    if (!m.affine) return false;
    const int sa = storage_of(m, a), sb = storage_of(m, a + 1);
    if (sa == -1 && sb == -1) return true;
    if (sa < 0 || sb != sa + 1) return false;
    for (int s : {sa, sb}) {
        if (size_t(s) < m.clamped.size() && m.clamped[size_t(s)]) return false;
        for (size_t j = 0; j < t.dims.size(); j++) {
            if (j != a && j != a + 1 && m.coef[size_t(s)][j] != 0 && t.dims[j].extent != 1) return false;
        }
    }
    return true;
}

// m with the fusion applied: storage dims s (inner) and s + 1 merged when m
// uses the two loop dims, and the outer loop dim's column dropped.
AccessMap fused_access(const AccessMap &m, const AxisFusion &f) {
    AccessMap out = m;
    const size_t a = f.inner, b = f.inner + 1;
    const int s = storage_of(m, a);
    if (s >= 0) {
        const size_t si = size_t(s);
        // An element (u, v) of the two storage dims is element u + v * inner_extent
        // of the fused one; other loop dims there have one point (see fusable).
        for (size_t j = 0; j < out.coef[si].size(); j++) {
            out.coef[si][j] += out.coef[si + 1][j] * f.inner_extent;
        }
        out.coef[si][a] = 1;
        out.coef[si][b] = 0;
        out.offset[si] += out.offset[si + 1] * f.inner_extent;
        out.coef.erase(out.coef.begin() + long(si) + 1);
        out.offset.erase(out.offset.begin() + long(si) + 1);
        if (si + 1 < out.clamped.size()) out.clamped.erase(out.clamped.begin() + long(si) + 1);
    }
    for (std::vector<int64_t> &row : out.coef) row.erase(row.begin() + long(b));
    return out;
}

}  // namespace

std::optional<AxisFusion> find_axis_fusion(const TensorExpr &t, const std::vector<bool> &overrun_ok, size_t inner) {
    const size_t outer = inner + 1;
    if (outer >= t.dims.size() || t.dims[inner].reduction || t.dims[outer].reduction) return std::nullopt;
    if (t.dims[inner].min != 0 || t.dims[outer].min != 0) return std::nullopt;
    for (size_t j : {inner, outer}) {
        if (j < overrun_ok.size() && overrun_ok[j]) return std::nullopt;
    }
    if (!fusable(t, t.write, inner)) return std::nullopt;
    for (const AccessMap &m : t.reads) {
        if (!fusable(t, m, inner)) return std::nullopt;
    }
    AxisFusion f;
    f.inner = inner;
    f.inner_name = t.dims[inner].name;
    f.outer_name = t.dims[outer].name;
    f.inner_extent = t.dims[inner].extent;
    f.outer_extent = t.dims[outer].extent;
    return f;
}

TensorExpr fuse_axes(const TensorExpr &t, const AxisFusion &f) {
    TensorExpr out = t;
    const size_t a = f.inner, b = f.inner + 1;
    out.dims[a].name = f.fused_name();
    out.dims[a].extent = f.inner_extent * f.outer_extent;
    out.dims[a].fused_row = f.inner_extent;
    out.dims.erase(out.dims.begin() + long(b));
    out.write = fused_access(t.write, f);
    for (size_t i = 0; i < t.reads.size(); i++) out.reads[i] = fused_access(t.reads[i], f);
    return out;
}

}  // namespace tessera::analysis
