#include "alignment.h"

#include <algorithm>

namespace tessera::rtile {

std::vector<int64_t> next_aligned_sizes(int64_t current, int64_t extent, int64_t granule, TailRule rule) {
    std::vector<int64_t> out;
    if (rule == TailRule::Overrun) {
        for (int64_t s = (current / granule + 1) * granule; current < extent; s += granule) {
            out.push_back(s);
            if (s >= extent) break;
        }
        return out;
    }
    if (rule == TailRule::ShiftInwards) {
        for (int64_t s = (current / granule + 1) * granule; s <= extent; s += granule) out.push_back(s);
        return out;
    }
    // The divisors of the extent, found in pairs up to its square root (the
    // construction asks this at every growth step, of extents up to a few thousand).
    for (int64_t d = 1; d * d <= extent; d++) {
        if (extent % d != 0) continue;
        for (int64_t s : {d, extent / d}) {
            if (s > current && s < extent && s % granule == 0) out.push_back(s);
        }
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    if (current < extent) out.push_back(extent);
    return out;
}

int64_t previous_aligned_size(int64_t current, int64_t extent, int64_t granule, TailRule rule) {
    for (int64_t s = current - 1; s >= granule; s--) {
        if (s % granule != 0) continue;
        if (rule != TailRule::Divide || (current % s == 0 && extent % s == 0)) return s;
    }
    return 0;
}

int64_t vector_granule(int64_t extent, int lanes) {
    for (int64_t g = lanes; g >= 4; g /= 2) {
        if (extent % g == 0) return g;
    }
    return 0;
}

int vector_width(int64_t extent, int lanes) {
    if (extent <= lanes) return int(extent);
    int64_t g = vector_granule(extent, lanes);
    return int(g ? g : lanes);
}

int64_t largest_divisor(int64_t extent, int64_t most, int64_t least) {
    for (int64_t d = most; d >= std::max<int64_t>(least, 1); d--) {
        if (extent % d == 0) return d;
    }
    return 0;
}

int reduction_vector_width(int64_t extent, int lanes) {
    if (extent <= lanes) return int(extent);
    const int64_t w = largest_divisor(extent, lanes, (3 * lanes + 3) / 4);
    return w ? int(w) : lanes;
}

namespace {

// Vectors along the register tile's vector dim (a guarded partial one included).
int64_t register_tile_vectors(const RTile &tile, const RProgram &p, const hal::DeviceSpec &d) {
    const int64_t w = vector_width(tile.shape[p.vector_dim], d.vector_lanes);
    return (tile.shape[p.vector_dim] + w - 1) / w;
}

}  // namespace

int register_tile_accumulators(const RTile &tile, const RProgram &p, const hal::DeviceSpec &d) {
    int64_t rows = p.second_dim >= 0 ? tile.shape[p.second_dim] : 1;
    if (p.third_dim >= 0) rows *= tile.shape[p.third_dim];
    return int(register_tile_vectors(tile, p, d) * rows);
}

namespace {

// The vector operand's registers: one set per point of the third dim, each held
// across the second dim's points. Each broadcast feeds one FMA per register.
int64_t operand_vectors(const RTile &tile, const RProgram &p, const hal::DeviceSpec &d) {
    const int64_t operand_sets = p.third_dim >= 0 ? tile.shape[p.third_dim] : 1;
    return register_tile_vectors(tile, p, d) * operand_sets;
}

}  // namespace

bool broadcasts_in_registers(const RTile &tile, const RProgram &p, const hal::DeviceSpec &d) {
    return !d.fma_broadcasts_from_memory || operand_vectors(tile, p, d) >= 2;
}

int register_tile_registers(const RTile &tile, const RProgram &p, const hal::DeviceSpec &d) {
    return register_tile_accumulators(tile, p, d) + int(operand_vectors(tile, p, d)) +
           (d.fma_broadcasts_from_memory ? 0 : 1);
}

namespace {

// A computed operand (a padded input, say) is materialised per tile in a buffer
// Halide allocates from the tile's bounds. When every storage dim inside the one
// the second dim moves is indexed by reduction dims only, whose chunks divide
// their extents, its row stride is a compile-time constant: the tile's rows are
// constant offsets from one address. An input's strides are run-time values unless
// its parameter constrains them all to constants (the graph layer's dense blocked
// values): the blocked 1x1 on 56x56x64 then took 8 output-channel blocks at one
// pixel, one weight vector load per FMA, for want of address registers.
bool constant_row_stride(const analysis::TensorExpr &t, const analysis::AccessMap &m, size_t second) {
    if (m.is_input) return m.constant_strides;
    size_t outer = 0;
    for (size_t s = 0; s < m.coef.size(); s++) {
        if (m.coef[s][second] != 0) outer = s;
    }
    for (size_t s = 0; s < outer; s++) {
        for (size_t j = 0; j < t.dims.size(); j++) {
            if (m.coef[s][j] != 0 && !t.dims[j].reduction) return false;
        }
    }
    return true;
}

}  // namespace

int register_tile_row_streams(const analysis::TensorExpr &t, const RTile &tile, const RProgram &p) {
    if (p.second_dim < 0) return 0;
    const size_t second = size_t(p.second_dim);
    int streams = 0;
    for (const analysis::AccessMap &m : t.reads) {
        if (!m.depends_on(second) || m.depends_on(p.vector_dim)) continue;
        // Moving along the innermost storage dim with the second dim (contiguous,
        // or at a stride: a stride-2 convolution's 7 columns): one pointer and
        // constant offsets.
        if ((!m.coef.empty() && m.coef[0][second] != 0) || constant_row_stride(t, m, second)) {
            streams += 1;
            continue;
        }
        streams += int(tile.shape[second]);
    }
    if (p.third_dim >= 0) {
        // The vector operand's rows along the third dim: one pointer when they lie
        // a constant stride apart.
        const size_t third = size_t(p.third_dim);
        for (const analysis::AccessMap &m : t.reads) {
            if (!m.depends_on(third)) continue;
            streams += constant_row_stride(t, m, third) ? 1 : int(tile.shape[third]);
        }
    }
    return streams;
}

int unrolled_broadcast_window(const analysis::TensorExpr &t, const RTile &tile, const RProgram &p,
                              const hal::DeviceSpec &d) {
    const std::vector<size_t> reductions = t.reduction_dims();
    if (!broadcasts_in_registers(tile, p, d) || reductions.empty() || p.chunk_innermost) return -1;
    const size_t window = reductions.front();  // the micro-kernel's innermost loop
    const int64_t points = t.dims[window].extent;
    if (window == p.split_reduction || points < 2 || points > kUnrolledWindow) return -1;
    return int(window);
}

int hoisted_broadcast_registers(const analysis::TensorExpr &t, const RTile &tile, const RProgram &p,
                                const hal::DeviceSpec &d) {
    if (p.second_dim < 0) return 0;
    const int w = unrolled_broadcast_window(t, tile, p, d);
    if (w < 0) return 0;
    const size_t window = size_t(w);
    const int64_t points = t.dims[window].extent;
    if (operand_vectors(tile, p, d) < 2) return 0;  // each broadcast used once
    const size_t second = size_t(p.second_dim);
    for (const analysis::AccessMap &m : t.reads) {
        if (m.depends_on(p.vector_dim) || !m.depends_on(window) || !m.depends_on(second)) continue;
        // Each distinct element of the unrolled window once (neighbouring points of a
        // stride-1 row share most), beyond the one register_tile_registers counts
        // without FMA broadcasts from memory. With them (AVX-512) LLVM folds most
        // broadcasts into the FMAs; it holds a stride-1 row's, which every point of
        // the window shares, through the unrolled body. (At stride 2, whose points
        // share one element in three, a chain's 8 columns x 3 vectors ran 1.24x
        // faster than the 4 rows the count left room for.)
        std::vector<int64_t> whole = tile.shape;
        whole[window] = points;
        const int64_t distinct = m.touched_elements(whole);
        const bool sliding = tile.shape[second] >= 2 && distinct == tile.shape[second] + points - 1;
        if (!d.fma_broadcasts_from_memory) {
            bool along_second = false;  // the window moves the read along the second dim's storage dim
            for (const std::vector<int64_t> &c : m.coef) along_second = along_second || (c[window] != 0 && c[second] != 0);
            if (sliding || !along_second || tile.shape[second] < 2) return int(distinct) - 1;
            // A window strided along the row: only the inputs two of its points share are held (the
            // rest feed one tap each and are broadcast where they are used). Counted
            // whole, they had left NCHW 3x3 stride-2 56x56x64 -> 128 the chunk-innermost
            // form; 4 points x 2 vectors with the window innermost ran 1.61 -> 1.33 ms
            // on a Zen 3 core, the 112x112 and 227x227 chain stages 1.1-1.9x faster.
            return int(std::max<int64_t>(0, points * tile.shape[second] - distinct));
        }
        return sliding ? int(distinct) : 0;
    }
    return 0;
}

bool register_tile_fits(const analysis::TensorExpr &t, const RTile &tile, const RProgram &p, const hal::DeviceSpec &d) {
    // Transposed programs keep 4 registers free: with the whole file their AVX2
    // NCHW 3x3 tiles measured 1.3-1.6x slower (see README). Where a stride-1
    // window's hoisted broadcasts are counted the file is whole, the count standing
    // in for the margin: with FMA broadcasts from memory (AVX-512) always, without
    // them (AVX2) where the tile holds at most two operand vectors (4 points x 2
    // vectors, 16 registers with its 6 hoisted broadcasts, 28x28x128 1.59 -> 1.35 ms
    // on Zen 3; 2 points x 4 vectors 1.2-1.3x slower than 7 x 1 at 14x14).
    // Elsewhere the margin stays: a 1x1 chain stage measured 1.18x slower with the
    // whole file (docs/experiments.md, "Broadcasts hoisted out of the window").
    const int hoisted = hoisted_broadcast_registers(t, tile, p, d);
    const bool counted = hoisted > 0 && (d.fma_broadcasts_from_memory || operand_vectors(tile, p, d) <= 2);
    const bool margin = p.transposed && !counted;
    const int budget = margin ? d.vector_registers - 4 : d.vector_registers;
    return register_tile_registers(tile, p, d) + hoisted <= budget &&
           register_tile_row_streams(t, tile, p) <= d.row_address_registers;
}

int64_t storage_padding(int64_t row_elements, int element_bytes, int64_t line_bytes) {
    // Rows a whole number of pages apart map to the same cache sets.
    constexpr int64_t kPageBytes = 4096;
    const int64_t page_elements = kPageBytes / element_bytes, line_elements = line_bytes / element_bytes;
    return row_elements % page_elements == 0 ? line_elements : 0;
}

}  // namespace tessera::rtile
