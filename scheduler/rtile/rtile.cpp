#include "rtile.h"

namespace tessera::rtile {

int64_t RTile::points() const {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
}

std::vector<int64_t> RTile::read_tiles(const analysis::TensorExpr &t) const {
    std::vector<int64_t> out;
    for (const analysis::AccessMap &m : t.reads) out.push_back(m.tile_elements(shape));
    return out;
}

int64_t RTile::write_tile(const analysis::TensorExpr &t) const {
    return t.write.tile_elements(shape);
}

std::string RTile::to_string(const analysis::TensorExpr &t) const {
    std::string s;
    for (size_t j = 0; j < shape.size(); j++) {
        if (!s.empty()) s += " ";
        s += t.dims[j].name + "=" + std::to_string(shape[j]);
    }
    return s;
}

analysis::TensorExpr program_expr(const analysis::TensorExpr &t, const RProgram &p) {
    return p.fusion ? analysis::fuse_axes(t, *p.fusion) : t;
}

int packed_read_of(const analysis::TensorExpr &t, const RProgram &p, const RTile &l2) {
    if (p.transposed) return p.packed_read;
    for (size_t i = 0; i < t.reads.size(); i++) {
        const analysis::AccessMap &m = t.reads[i];
        if (!m.is_input || m.coef.empty() || m.coef[0][p.vector_dim] != 1) continue;
        if (p.second_dim >= 0 && m.depends_on(size_t(p.second_dim))) continue;  // not reused across the tile
        // matmul M=1 N=1000 K=4032 packed its B, read once, 16 MB per call.
        if (!t.reused(m)) continue;
        if (m.tile_extent(0, l2.shape) != m.tile_extent(0, t.extents())) return int(i);
    }
    return -1;
}

double per_tile_elements(const analysis::TensorExpr &t, const RProgram &p, const analysis::AccessMap &m) {
    const RTile &l2 = p.tiles[kL2Tile];
    const int64_t e = t.dims[p.split_reduction].extent, kc = l2.shape[p.split_reduction];
    const int64_t chunks = (e + kc - 1) / kc;
    return double(p.parallel_tasks) * double(chunks) * double(m.tile_elements(l2.shape));
}

double per_tile_recompute_factor(const analysis::TensorExpr &t, const RProgram &p, const analysis::AccessMap &m) {
    return per_tile_elements(t, p, m) / double(m.tile_elements(t.extents()));
}

}  // namespace tessera::rtile
