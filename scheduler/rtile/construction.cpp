#include "construction.h"

#include "alignment.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace tessera::rtile {

namespace {

using analysis::TensorExpr;

// The register tile vectorises the loop dim that is innermost in the output's
// storage; the stage must write with coefficient 1 along it.
size_t choose_vector_dim(const TensorExpr &t) {
    const int j = t.contiguous_write_dim();
    return j >= 0 ? size_t(j) : t.spatial_dims().front();
}

// The reduction dim chunked at the cache levels: the outermost one with more than
// one point (RVars are innermost first, so the last).
size_t choose_split_reduction(const TensorExpr &t) {
    std::vector<size_t> r = t.reduction_dims();
    for (auto it = r.rbegin(); it != r.rend(); ++it) {
        if (t.dims[*it].extent > 1) return *it;
    }
    return r.back();
}

// Step of the tiles beyond the registers along dim j, whose tile one level in is
// `inner` points: that tile, or for a fused dim the least multiple of it that is
// whole rows of the inner dim (the schedule splits the fused stage's epilogue
// along the two original dims).
int64_t tile_granule(const TensorExpr &t, size_t j, int64_t inner) {
    const int64_t row = t.dims[j].fused_row;
    return row > 0 ? std::lcm(inner, row) : inner;
}

// L2 growth keeps the tasks' spread over the cores at least this efficient
// (see PerfModel::parallel_efficiency): 8 of 9 cycles busy.
constexpr double kMinParallelEfficiency = 0.89;

struct Growth {
    RTile tile;
    size_t dim;
    double score;
};

// Every one-step enlargement of `tile` at `level` that stays within the layer's
// capacity, scored by data reuse.
std::vector<Growth> enlargements(const TensorExpr &t, const PerfModel &model, const RProgram &p, const RTile &tile,
                                 TileLevel level, const RTile &inner, int lanes) {
    std::vector<Growth> out;
    const double q = model.mem_traffic(tile, level, p);
    const int64_t f = model.mem_footprint(tile, level, p);
    for (size_t j = 0; j < t.dims.size(); j++) {
        const bool reduction = t.dims[j].reduction;
        if (level == kRegisterTile) {
            if (reduction) continue;
            // Two register dims at most: the vector dim and one more.
            if (j != p.vector_dim && p.second_dim >= 0 && int(j) != p.second_dim) continue;
        }
        // The L1 tile is the register tile plus a chunk of the reduction: the
        // micro-kernel's operand panels live in L1, the register tiles around them
        // stream from L2 (a CPU's GEMM blocking; Chimera's (HPCA'23) micro kernel).
        if (level == kL1Tile && (!reduction || j != p.split_reduction)) continue;
        if (level == kL2Tile && reduction) continue;
        const TailRule rule = model.tiling().tail_rule(j);
        int64_t granule = level == kL2Tile ? tile_granule(t, j, inner.shape[j]) : inner.shape[j];
        if (level == kRegisterTile && j == p.vector_dim) {
            granule = rule != TailRule::Divide ? lanes : model.alignment().vector_granule(t.dims[j].extent);
            if (granule == 0) continue;  // no aligned size: the start tile is the whole extent
        }
        std::vector<int64_t> sizes = next_aligned_sizes(tile.shape[j], t.dims[j].extent, granule, rule);
        if (sizes.empty()) continue;
        RTile bigger = tile;
        bigger.shape[j] = sizes.front();
        if (rule != TailRule::Divide && level != kRegisterTile) {
            // The next size with fewer tiles along j: one step of 4 -> 5 on an
            // extent of 7 still leaves two tiles, scores no reuse and stopped the
            // growth (NHWC 7x7x512 kept y=4 and read its weights twice).
            const int64_t e = t.dims[j].extent, now = (e + tile.shape[j] - 1) / tile.shape[j];
            for (int64_t s : sizes) {
                bigger.shape[j] = s;
                if ((e + s - 1) / s < now) break;
            }
        }
        RProgram trial = p;
        if (level == kRegisterTile && j != p.vector_dim) trial.second_dim = int(j);
        int64_t f2 = model.mem_footprint(bigger, level, trial);
        if (f2 > model.capacity(level, trial)) continue;
        if (level == kRegisterTile && !model.alignment().register_tile_fits(t, bigger, trial)) continue;
        if (level == kL2Tile) {
            // The L2 tiles are the parallel tasks: keep two per core, spread within
            // kMinParallelEfficiency (or no worse than now).
            const double eff = model.parallel_efficiency(bigger);
            if (model.task_count(bigger) < 2 * int64_t(model.device().cores)) continue;
            if (eff < kMinParallelEfficiency && eff < model.parallel_efficiency(tile)) continue;
        }
        double q2 = model.mem_traffic(bigger, level, trial);
        double score = (q - q2) / std::max<double>(1, double(f2 - f));
        out.push_back({bigger, j, score});
    }
    std::sort(out.begin(), out.end(), [](const Growth &a, const Growth &b) {
        return a.score != b.score ? a.score > b.score : a.dim < b.dim;  // deterministic ties
    });
    return out;
}

// A window dim: a reduction dim of more than one point other than the one chunked
// at the cache levels (a convolution's kernel taps, not its input channels).
bool window_dim(const TensorExpr &t, size_t j, size_t split_reduction) {
    return t.dims[j].reduction && j != split_reduction && t.dims[j].extent > 1;
}

// Floats of a row an L2 tile reads at least from an operand it streams (one read
// once in all, a GEMV's matrix), where the extent allows: growing such a tile adds
// no reuse, so the construction left it one register tile wide, and matmul M=1
// N=1000 K=4032 ran as 25 tasks each walking a 160-byte strip of B down 4032 rows
// 4000 bytes apart, past the prefetchers (0.36 ms; with rows of 280 floats 0.28-0.29
// ms, oneDNN 0.24, side by side on Zen 3).
constexpr int64_t kStreamRowFloats = 256;

// `l2` grown along the vector dim to kStreamRowFloats (in whole L1 tiles) when
// a read that is neither reused nor windowed is contiguous along it; scale-out
// may shrink it back.
RTile streamed_rows(const TensorExpr &t, const RProgram &p, const RTile &l1, RTile l2) {
    const size_t v = p.vector_dim;
    const int64_t e = t.dims[v].extent, g = l1.shape[v];
    for (const analysis::AccessMap &m : t.reads) {
        if (t.reused(m) || m.coef.empty() || m.coef[0][v] != 1) continue;
        // A window slides over it (a depthwise convolution's input): read again
        // by neighbouring points, not streamed.
        bool window = false;
        for (size_t r : t.reduction_dims()) window = window || (window_dim(t, r, p.split_reduction) && m.depends_on(r));
        if (window) continue;
        const int64_t want = std::min(e, (kStreamRowFloats + g - 1) / g * g);
        l2.shape[v] = std::max(l2.shape[v], want);
    }
    return l2;
}

// Scale-up at one layer: greedy growth along the best-score axis until no step
// adds reuse within the layer's capacity (and, at L2, keeps the tasks balanced).
// `branch` picks the n-th best first step (the beam).
// Unlike Roller, the L2 tile does not stop once it is compute-bound: on a CPU every
// L2 tile also repacks its operands and refetches them from the LLC, costs the model
// does not charge. Side by side with that stop, NCHW 3x3 56/28/14 went 0.68-0.84x ->
// 0.80-1.06x of oneDNN and NHWC 14x14x256 0.60-0.62x -> 0.65-0.78x; GEMMs unchanged.
RTile enlarge(const TensorExpr &t, const PerfModel &model, RProgram &p, RTile tile, TileLevel level,
              const RTile &inner, int lanes, size_t branch, bool *branched) {
    for (int step = 0; step < 256; step++) {
        std::vector<Growth> g = enlargements(t, model, p, tile, level, inner, lanes);
        if (g.empty() || g.front().score <= 0) break;
        size_t pick = step == 0 ? branch : 0;
        if (pick >= g.size()) {
            *branched = false;
            return tile;
        }
        tile = g[pick].tile;
        if (level == kRegisterTile && g[pick].dim != p.vector_dim) p.second_dim = int(g[pick].dim);
    }
    return tile;
}

// Shrink the L2 tile until there are enough tasks for every core (Roller's
// shrinking for parallelism), along the axis whose shrinking costs least traffic.
void scale_out(const TensorExpr &t, const PerfModel &model, RProgram &p, int cores) {
    const int64_t wanted = 2 * int64_t(cores);
    RTile &outer = p.tiles[kL2Tile];
    while (model.task_count(outer) < wanted) {
        int best = -1;
        double best_cost = std::numeric_limits<double>::infinity();
        RTile best_tile;
        for (size_t j : t.spatial_dims()) {
            // Largest aligned size below the current one that still contains the L1 tile.
            int64_t smaller = previous_aligned_size(outer.shape[j], t.dims[j].extent,
                                                    tile_granule(t, j, p.tiles[kL1Tile].shape[j]), model.tiling().tail_rule(j));
            if (smaller == 0) continue;
            RTile trial = outer;
            trial.shape[j] = smaller;
            double cost = model.mem_traffic(trial, kL2Tile, p) - model.mem_traffic(outer, kL2Tile, p);
            if (cost < best_cost) {
                best_cost = cost;
                best = int(j);
                best_tile = trial;
            }
        }
        if (best < 0) break;  // cannot shrink further: fewer tasks than wanted
        outer = best_tile;
    }
    p.parallel_tasks = model.task_count(outer);
}

// Whether read i may be packed: `packable` names the reads the caller has a copy
// to pack into (empty: all).
bool may_pack(const std::vector<bool> &packable, size_t i) {
    return packable.empty() || (i < packable.size() && packable[i]);
}

// Pack the operand packed_read_of names, where the caller can: it becomes a dense tile.
void choose_packing(const TensorExpr &t, RProgram &p, const AlignmentPolicy &alignment,
                    const std::vector<bool> &packable) {
    const int i = packed_read_of(t, p, p.tiles[kL2Tile]);
    if (i < 0 || !may_pack(packable, size_t(i))) return;
    p.packed_read = i;
    p.packed_row = t.reads[size_t(i)].tile_extent(0, p.tiles[kL2Tile].shape);
    p.padding_elements = alignment.storage_padding(p.packed_row, t.element_bytes);
}

// Dims that may be a register tile's third dim beside vector dim v and `second`:
// every read that moves with one also moves with v (the vector operand: a
// blocked convolution's weights along its output-channel blocks) and no read
// moves with both it and `second`, so the tile reuses the vector operand across
// `second` and the other operand's broadcasts across the third dim.
std::vector<size_t> third_dims(const TensorExpr &t, size_t v, size_t second) {
    std::vector<size_t> out;
    for (size_t j : t.spatial_dims()) {
        if (j == v || j == second || t.dims[j].extent < 2) continue;
        bool reuses = true, moves = false;
        for (const analysis::AccessMap &m : t.reads) {
            if (!m.depends_on(j)) continue;
            moves = true;
            reuses = reuses && m.depends_on(v) && !m.depends_on(second);
        }
        if (moves && reuses) out.push_back(j);
    }
    return out;
}

// Whether `result` already holds a program of `p`'s vector dim and tiles.
bool holds_program(const ConstructionResult &result, const RProgram &p) {
    return std::any_of(result.programs.begin(), result.programs.end(), [&](const RProgram &q) {
        if (q.vector_dim != p.vector_dim) return false;
        for (int l = 0; l < kTileLevels; l++) {
            if (q.tiles[l].shape != p.tiles[l].shape) return false;
        }
        return true;
    });
}

// The programs of one choice of vector dim (base.vector_dim), appended to `result`.
void construct_for_vector_dim(const TensorExpr &t, const hal::DeviceSpec &d, const PerfModel &model,
                              const RProgram &base, const std::vector<bool> &packable, ConstructionResult &result) {
    RTile start;
    start.shape.assign(t.dims.size(), 1);
    // The vectorised dim starts at one (possibly partial) vector that divides its
    // extent; an extent with no such divisor (a prime) is taken whole.
    const size_t v = base.vector_dim;
    const int64_t vext = t.dims[v].extent;
    const TailRule v_rule = model.tiling().tail_rule(v);
    const int64_t v_granule = v_rule != TailRule::Divide ? d.vector_lanes : model.alignment().vector_granule(vext);
    start.shape[v] = vext <= d.vector_lanes ? vext : v_granule ? v_granule : vext;

    // Register tiles: Roller's growth by reuse score (its best and second-best first
    // step), plus every other aligned register tile that fits the register file.
    // The register layer is small enough to enumerate, and what separates its
    // candidates most is the L1 traffic of the operand panels streamed per register
    // tile, which only the next layer sees.
    struct RegisterTile {
        RTile tile;
        int second = -1, third = -1;
    };
    std::vector<RegisterTile> registers;
    auto add_register_tile = [&](const RTile &tile, int second, int third = -1) {
        for (const RegisterTile &r : registers) {
            if (r.tile.shape == tile.shape) return;
        }
        registers.push_back({tile, second, third});
    };
    for (size_t b0 = 0; b0 < 2; b0++) {
        RProgram p = base;
        bool ok = true;
        RTile reg = enlarge(t, model, p, start, kRegisterTile, start, d.vector_lanes, b0, &ok);
        if (ok) add_register_tile(reg, p.second_dim);
    }
    std::vector<int64_t> v_sizes = {start.shape[v]};
    if (v_granule > 0) {
        for (int64_t s : next_aligned_sizes(start.shape[v], vext, v_granule, v_rule)) v_sizes.push_back(s);
    }
    std::vector<int> seconds = {-1};
    // Third register dims only where the vector dim holds one vector (a
    // channel-blocked output's block): elsewhere the tile grows along the vector
    // dim instead. NCHW 3x3 7x7x512, whose channels split 32 x 16, ran 1.43 ms
    // with 16 channels x 7 pixels x 4 channel groups against 0.81 ms with 32 x 7
    // (side by side on an Intel Xeon); ResNet-50 in NCHW16c 36.4 -> 32.7 ms.
    const bool one_vector = vext <= d.vector_lanes;
    for (size_t j : t.spatial_dims()) {
        if (j != v && t.dims[j].extent > 1) seconds.push_back(int(j));
    }
    for (int second : seconds) {
        std::vector<int64_t> s_sizes = {1};
        if (second >= 0) {
            for (int64_t s : next_aligned_sizes(1, t.dims[second].extent, 1, model.tiling().tail_rule(size_t(second)))) {
                s_sizes.push_back(s);
            }
        }
        for (int64_t vs : v_sizes) {
            for (int64_t ss : s_sizes) {
                if (second >= 0 && ss == 1) continue;  // the same as no second dim
                RTile tile = start;
                tile.shape[v] = vs;
                if (second >= 0) tile.shape[second] = ss;
                RProgram p = base;
                p.second_dim = second;
                if (!model.alignment().register_tile_fits(t, tile, p)) break;  // larger ss only grows
                add_register_tile(tile, second);
                if (second < 0 || base.transposed || !one_vector) continue;
                for (size_t third : third_dims(t, v, size_t(second))) {
                    p.third_dim = int(third);
                    for (int64_t ts : next_aligned_sizes(1, t.dims[third].extent, 1, model.tiling().tail_rule(third))) {
                        RTile deeper = tile;
                        deeper.shape[third] = ts;
                        if (!model.alignment().register_tile_fits(t, deeper, p)) break;
                        add_register_tile(deeper, second, int(third));
                    }
                }
            }
        }
    }

    // Alignment rule: at least latency x pipes independent accumulators, so the FMA
    // pipes never wait on a result. Narrower tiles stay only when no tile has that
    // many (small outputs). The model sees their latency bound, but where a memory
    // layer bounds every candidate it cannot rank them below wider tiles (an NHWC
    // 7x7x512 variant picked c=16 x=4 and ran 1.25x slower than c=64 x=4). A tile
    // within kLatencyCover of the count stays: a row of a 7x7 map, one vector of
    // output channels wide (7 of AVX2's 8), is the only tile of a 1x1 convolution
    // there that reuses a weight vector across points (320 -> 1280 channels: 0.93 ->
    // 0.57-0.73 ms on Zen 3).
    constexpr double kLatencyCover = 7.0 / 8.0;
    {
        auto accumulators = [&](const RegisterTile &r) {
            RProgram p = base;
            p.second_dim = r.second;
            p.third_dim = r.third;
            return model.alignment().register_tile_accumulators(r.tile, p);
        };
        const bool enough = std::any_of(registers.begin(), registers.end(),
                                        [&](const auto &r) { return accumulators(r) >= d.min_accumulators(); });
        if (enough) {
            registers.erase(std::remove_if(registers.begin(), registers.end(),
                                           [&](const auto &r) { return accumulators(r) < kLatencyCover * d.min_accumulators(); }),
                            registers.end());
        }
    }

    // Then Roller's growth at L1 and L2, a beam of two first steps at each.
    for (size_t r = 0; r < registers.size(); r++) {
        const size_t beam = r < 2 ? 2 : 1;  // the grown tiles get the wider beam
        for (size_t b1 = 0; b1 < beam; b1++) {
            for (size_t b2 = 0; b2 < beam; b2++) {
                RProgram p = base;
                bool ok = true;
                const RTile &reg = registers[r].tile;
                p.second_dim = registers[r].second;
                p.third_dim = registers[r].third;
                p.tiles = {reg, reg, reg};
                // L1 starts with every inner reduction dim whole.
                RTile l1 = reg;
                for (size_t j : t.reduction_dims()) {
                    if (j != p.split_reduction) l1.shape[j] = t.dims[j].extent;
                }
                l1 = enlarge(t, model, p, l1, kL1Tile, reg, d.vector_lanes, b1, &ok);
                if (!ok) continue;
                p.tiles[kL1Tile] = l1;
                // A fused dim's L2 tile starts at whole rows, if any fit.
                RTile l2_start = l1;
                bool rows = true;
                for (size_t j : t.spatial_dims()) {
                    if (t.dims[j].fused_row == 0) continue;
                    l2_start.shape[j] = tile_granule(t, j, l1.shape[j]);
                    rows = rows && l2_start.shape[j] <= t.dims[j].extent;
                }
                if (!rows) continue;
                RTile l2 = enlarge(t, model, p, l2_start, kL2Tile, l1, d.vector_lanes, b2, &ok);
                if (!ok) continue;
                l2 = streamed_rows(t, p, l1, l2);
                p.tiles[kL2Tile] = l2;
                scale_out(t, model, p, d.cores);
                if (!p.transposed) choose_packing(t, p, model.alignment(), packable);
                model.predict(p);
                if (!holds_program(result, p)) result.programs.push_back(p);
            }
        }
    }
}

// Points computed over points needed when a dim of `extent` is cut into whole
// vectors of `lanes`: 1.14 for 56 with 16 lanes, 1.008 for 1000.
double whole_vector_waste(int64_t extent, int lanes) {
    return double((extent + lanes - 1) / lanes * lanes) / double(extent);
}

// Whole vectors wasting this much or more make transposed programs worth
// considering; below it, under an epilogue, shifted ones.
constexpr double kTransposeWaste = 1.10;

// Register-tile rows worth having along a dim other than the vector dim: a dim
// with no divisor in this range (a prime past it) is a candidate for shifted tiles.
constexpr int64_t kMinTileRows = 4, kMaxTileRows = 16;

// The dims along which shifted programs (see construct_programs) may cut L2 tiles
// that do not divide the extent: the vector dim when whole vectors do not divide it
// but waste under kTransposeWaste, another dim with no divisor of kMinTileRows to
// kMaxTileRows points. Dims whose tiles may overrun already need neither.
std::vector<bool> shift_dims(const TensorExpr &t, const TilingContext &tiling, const hal::DeviceSpec &d,
                             size_t vector_dim) {
    std::vector<bool> shift(t.dims.size(), false);
    for (size_t j : t.spatial_dims()) {
        const int64_t e = t.dims[j].extent;
        if (tiling.tail_rule(j) != TailRule::Divide) continue;
        shift[j] = j == vector_dim ? e > d.vector_lanes && e % d.vector_lanes != 0 &&
                                         whole_vector_waste(e, d.vector_lanes) < kTransposeWaste
                                   : e > kMaxTileRows && largest_divisor(e, kMaxTileRows, kMinTileRows) == 0;
    }
    return shift;
}

// The dims other than the vector dim longer than kMaxTileRows that do have a
// divisor there: shifting along them is worth it only for register tiles that no
// divisor allows (see construct_programs).
std::vector<bool> divisible_shift_dims(const TensorExpr &t, const TilingContext &tiling, size_t vector_dim) {
    std::vector<bool> shift(t.dims.size(), false);
    for (size_t j : t.spatial_dims()) {
        const int64_t e = t.dims[j].extent;
        shift[j] = j != vector_dim && tiling.tail_rule(j) == TailRule::Divide && e > kMaxTileRows &&
                   largest_divisor(e, kMaxTileRows, kMinTileRows) != 0;
    }
    return shift;
}

// The programs of `base` whose L2 tiles shift inwards along `shift` (only valid
// computed per tile of a pure epilogue), if any dim is one.
void construct_shifted_programs(const TensorExpr &t, const TilingContext &tiling, const hal::DeviceSpec &d,
                                const RProgram &base, const std::vector<bool> &packable, ConstructionResult &result,
                                const std::vector<bool> &shift) {
    if (std::find(shift.begin(), shift.end(), true) == shift.end()) return;
    TilingContext shifted_tiling = tiling;
    shifted_tiling.shift_ok = shift;
    PerfModel shifted_model(t, d, shifted_tiling);
    RProgram sb = base;
    sb.shifted = shift;
    construct_for_vector_dim(t, d, shifted_model, sb, packable, result);
}

void construct_shifted_programs(const TensorExpr &t, const TilingContext &tiling, const hal::DeviceSpec &d,
                                const RProgram &base, const std::vector<bool> &packable, ConstructionResult &result) {
    construct_shifted_programs(t, tiling, d, base, packable, result, shift_dims(t, tiling, d, base.vector_dim));
}

// Shifted programs along dims that have divisors, kept only where their register
// tiles hold more accumulators than the best predicted program built so far with
// the same vector dim: with 16 vector registers the dividing tiles of two vectors
// stop at 4 rows (8 accumulators, one broadcast per two FMAs) where 6 rows fit
// (12). Side by side on a
// Zen 3 core, batch_matmul 8x512x64x512 (attention's second product): 16 x 4 3.34
// ms, 16 x 6 with the last L2 tile shifted 2.90 (oneDNN 2.78). Only where
// broadcasts are instructions of their own (AVX2, broadcasts_per_cycle): with
// AVX-512's 32 registers and broadcasts folded into the FMAs the dividing tiles
// hold as many (the rule's one change there, 3 x 5 vectors for 4 x 4 at a
// predicted 0.04% gain, was left out unmeasured).
void construct_wider_shifted_programs(const TensorExpr &t, const TilingContext &tiling, const hal::DeviceSpec &d,
                                      const RProgram &base, const std::vector<bool> &packable,
                                      ConstructionResult &result) {
    if (d.broadcasts_per_cycle <= 0) return;  // broadcasts folded into the FMAs
    const std::vector<bool> divisible = divisible_shift_dims(t, tiling, base.vector_dim);
    if (std::find(divisible.begin(), divisible.end(), true) == divisible.end()) return;
    std::vector<bool> shift = shift_dims(t, tiling, d, base.vector_dim);
    for (size_t j = 0; j < shift.size(); j++) shift[j] = shift[j] || divisible[j];
    const PerfModel model(t, d, tiling);
    const RProgram *best = nullptr;
    for (const RProgram &q : result.programs) {
        if (q.vector_dim == base.vector_dim && !q.fusion && (!best || q.predicted_ms < best->predicted_ms)) best = &q;
    }
    if (!best) return;
    const int most = model.alignment().register_tile_accumulators(best->tiles[kRegisterTile], *best);
    ConstructionResult more;
    construct_shifted_programs(t, tiling, d, base, packable, more, shift);
    for (const RProgram &q : more.programs) {
        if (model.alignment().register_tile_accumulators(q.tiles[kRegisterTile], q) > most && !holds_program(result, q)) {
            result.programs.push_back(q);
        }
    }
}

// Whether a read slides a window over an output dim at a stride of 2 or more
// (`2x + r.x`). A transposed micro-kernel with the window innermost broadcasts
// (points - 1) x stride + window inputs per unrolled window, all hoisted into
// registers with AVX2; at stride 1 neighbouring points share most of them, at
// stride 2 few, so the register tiles shrink to 4 accumulators (NCHW 3x3 stride 2
// 58x58x128: x=2 x 16 channels, 2.8-3.1 ms). With the reduction chunk innermost
// instead nothing is hoisted: x=4 x 16 channels, 2.05 ms (oneDNN 1.57), side by
// side on Zen 3. At stride 1 the same order measured 3-60% slower (window reuse
// lost), so it is kept for strided windows, and there for tiles it makes larger.
bool strided_window(const TensorExpr &t, size_t split_reduction) {
    for (const analysis::AccessMap &m : t.reads) {
        for (const std::vector<int64_t> &row : m.coef) {
            bool strided = false, window = false;
            for (size_t j = 0; j < t.dims.size(); j++) {
                if (!t.dims[j].reduction && row[j] >= 2) strided = true;
                if (window_dim(t, j, split_reduction) && row[j] != 0) window = true;
            }
            if (strided && window) return true;
        }
    }
    return false;
}

// Transposed micro-kernels: when the output's contiguous dim cannot fill whole
// vectors (an NCHW convolution 56, 28, 14 or 7 wide), vectorise instead along a
// dim whose extent is a multiple of the lanes and that only one reused input
// varies with (the output channels of the weights); that input is packed with the
// dim innermost. Measured (NCHW 3x3, 2 threads): 28x28x128 3.2 -> 1.6 ms.
std::vector<RProgram> transposed_bases(const TensorExpr &t, const hal::DeviceSpec &d, const RProgram &base,
                                       const std::vector<bool> &packable) {
    std::vector<RProgram> out;
    const size_t v = base.vector_dim;
    // Worth its packing and scatter only when whole vectors along the output's
    // contiguous dim waste a tenth of the lanes or more (56: 14%, 7: 129%; a GEMM
    // with N=1000: 0.8%, where the transposed program measured 2x slower), or when
    // a window slides along it, whose unaligned loads the transposed program's
    // broadcasts replace (NCHW 3x3 56x56x64 with 8 lanes: 2.3 -> 1.6 ms).
    bool slides = false;
    for (const analysis::AccessMap &m : t.reads) slides = slides || (m.depends_on(v) && t.slides_innermost(m));
    if (!slides && whole_vector_waste(t.dims[v].extent, d.vector_lanes) < kTransposeWaste) return out;
    for (size_t j : t.spatial_dims()) {
        if (j == v || t.dims[j].extent % d.vector_lanes != 0) continue;
        int read = -1, readers = 0;
        for (size_t i = 0; i < t.reads.size(); i++) {
            const analysis::AccessMap &m = t.reads[i];
            if (!m.depends_on(j)) continue;
            readers++;
            if (m.is_input && !m.depends_on(v) && may_pack(packable, i)) {
                read = int(i);
            }
        }
        if (read < 0 || readers != 1) continue;
        // The storage dim the vector dim indexes (with coefficient 1: a plain copy).
        const analysis::AccessMap &m = t.reads[size_t(read)];
        int storage = -1;
        for (size_t s = 0; s < m.coef.size(); s++) {
            if (m.coef[s][j] == 1) storage = int(s);
        }
        if (storage < 0) continue;
        RProgram p = base;
        p.vector_dim = j;
        p.transposed = true;
        p.packed_read = read;
        p.packed_storage_dim = storage;
        out.push_back(p);
    }
    return out;
}

// Fused programs (Roller's axis fusion, analysis/axis_fusion.h): when the
// output's contiguous dim fuses with the next dim (an NCHW 1x1 convolution's x
// and y), the fused dim is tiled like a GEMM's columns, ranked with the other
// programs (on Zen 3, 56-wide rows, which 8-lane vectors divide, ran 0.72-1.06x
// of oneDNN unfused and 0.91-1.27x fused). Halide addresses the fused dim
// densely only in buffers whose rows hold exactly the inner extent, so the one
// read that moves with it must be a packed input copy, per L2 tile of whole rows
// (no row padding), and the stage is computed per tile of its pure epilogue
// (under_epilogue).
void construct_fused_programs(const TensorExpr &t, const TilingContext &tiling, const hal::DeviceSpec &d,
                              const RProgram &base,
                              const std::vector<bool> &packable, ConstructionResult &result) {
    const size_t v = base.vector_dim;
    const std::optional<analysis::AxisFusion> fusion = analysis::find_axis_fusion(t, tiling.overrun_ok, v);
    if (!fusion) return;
    int read = -1, readers = 0;
    for (size_t i = 0; i < t.reads.size(); i++) {
        if (!t.reads[i].depends_on(v)) continue;
        readers++;
        if (t.reads[i].is_input && may_pack(packable, i)) read = int(i);
    }
    if (readers != 1 || read < 0) return;
    const TensorExpr fused = analysis::fuse_axes(t, *fusion);
    const TilingContext fused_tiling = fuse_tiling(tiling, *fusion, fused.dims.size());
    PerfModel model(fused, d, fused_tiling);
    RProgram fb = base;
    fb.split_reduction = choose_split_reduction(fused);
    fb.fusion = fusion;
    fb.shifted = fused_tiling.shift_ok;
    ConstructionResult built;
    construct_for_vector_dim(fused, d, model, fb, packable, built);
    const analysis::AccessMap &m = fused.reads[size_t(read)];
    for (RProgram &p : built.programs) {
        if (p.parallel_tasks < 2) continue;  // nothing to cut the epilogue into
        p.packed_read = read;
        p.packed_row = m.tile_extent(0, p.tiles[kL2Tile].shape);
        p.padding_elements = 0;
        model.predict(p);
        result.programs.push_back(p);
    }
}

}  // namespace

ConstructionResult construct_programs(const TensorExpr &t, const hal::DeviceSpec &d, int top_k,
                                      const std::vector<bool> &packable, bool under_epilogue,
                                      const TilingContext &given) {
    ConstructionResult result;
    TilingContext tiling = given;
    tiling.under_epilogue = under_epilogue;
    PerfModel model(t, d, tiling);
    RProgram base;
    base.vector_dim = choose_vector_dim(t);
    base.split_reduction = choose_split_reduction(t);
    construct_for_vector_dim(t, d, model, base, packable, result);
    // Transposed programs use only tiles that divide their extents: measured at
    // 28x28x128 NCHW, tiles with guarded tails (x=6 or 10 on 28) ran 2.5-4x slower
    // than x=7 (interleaved TESSERA_MEASURE).
    const std::vector<RProgram> transposed = transposed_bases(t, d, base, packable);
    if (!transposed.empty()) {
        const TensorExpr &exact = t;
        TilingContext exact_tiling = tiling;
        exact_tiling.overrun_ok.assign(tiling.overrun_ok.size(), false);
        PerfModel exact_model(exact, d, exact_tiling);
        for (const RProgram &tb : transposed) {
            construct_for_vector_dim(exact, d, exact_model, tb, packable, result);
            // Under an epilogue, shifted too along dims with no divisor for register
            // tiles (a stride-2 output 74 wide: only tiles of 2 divide it). Side by
            // side, NCHW 3x3: 147x147x32 -> 64 /2 2.89 -> 2.46 ms (x=11), 75x75x8 ->
            // 32 /2 0.091 -> 0.079, 2x45x39x8 -> 48 /2 0.092 -> 0.082; 37x37 same;
            // 227x227x16 -> 64 /4 0.58 -> 0.62 (x=3 divides its 57).
            if (under_epilogue) construct_shifted_programs(exact, exact_tiling, d, tb, packable, result);
            // A strided window (AVX2 only: on AVX-512 its broadcasts fold into the
            // FMAs, none is hoisted) also gets micro-kernels with the chunk
            // innermost, kept only where they hold more accumulators than any
            // with the window innermost: with the same tile the window order
            // measured faster (NCHW 3x3 stride 2 30x30x256: 3.6 against 4.4 ms).
            if (d.fma_broadcasts_from_memory || !strided_window(t, tb.split_reduction)) continue;
            int most = 0;
            for (const RProgram &q : result.programs) {
                if (q.transposed && q.vector_dim == tb.vector_dim) {
                    most = std::max(most, model.alignment().register_tile_accumulators(q.tiles[kRegisterTile], q));
                }
            }
            RProgram chunk = tb;
            chunk.chunk_innermost = true;
            ConstructionResult more;
            construct_for_vector_dim(exact, d, exact_model, chunk, packable, more);
            for (const RProgram &q : more.programs) {
                if (model.alignment().register_tile_accumulators(q.tiles[kRegisterTile], q) > most) result.programs.push_back(q);
            }
        }
    }
    // Shifted programs, when the stage is computed per tile of a pure epilogue:
    // along a dim with no good divisor (shift_dims: N=1000, where only half
    // vectors divide it; M=197, where only register tiles of one row do) its L2
    // tiles are whole register tiles, the last one shifted inwards to recompute an
    // overlap (charged as compute). Side by side on Zen 5:
    // matmul 128x1000x4032 4.81 -> 2.66 ms, 512x1000x1024 4.41 -> 2.51 ms,
    // 197x200x768 0.528 -> 0.189 ms (oneDNN 2.48, 2.29, 0.176 ms).
    if (under_epilogue) construct_shifted_programs(t, tiling, d, base, packable, result);
    if (under_epilogue) construct_wider_shifted_programs(t, tiling, d, base, packable, result);
    if (under_epilogue) construct_fused_programs(t, tiling, d, base, packable, result);
    // Equal predictions (both compute-bound, say) go first to L2 tiles that cut
    // their dims evenly: a ragged last L2 tile leaves the loops inside it run-time
    // extents (NHWC 28x28x128: x=18 over 28 ran 1.67 ms, the equally predicted
    // x=30 y=7 1.34 ms, side by side). Then fewer loads per FMA in the micro-kernel
    // leave more headroom.
    // (Counted once per program: a fused program's dims are those of its fused form.)
    std::vector<int> ragged;
    for (const RProgram &p : result.programs) {
        const TensorExpr pt = program_expr(t, p);
        int n = 0;
        for (size_t j : pt.spatial_dims()) {
            const int64_t e = pt.dims[j].extent, s = p.tiles[kL2Tile].shape[j];
            n += s < e && e % s != 0 && !p.shifts(j);  // shifted: whole tiles
        }
        ragged.push_back(n);
    }
    std::vector<size_t> order(result.programs.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t k) {
        const RProgram &a = result.programs[i], &b = result.programs[k];
        if (a.predicted_ms != b.predicted_ms) return a.predicted_ms < b.predicted_ms;
        if (ragged[i] != ragged[k]) return ragged[i] < ragged[k];
        return a.register_ms < b.register_ms;
    });
    std::vector<RProgram> sorted;
    for (size_t i : order) sorted.push_back(std::move(result.programs[i]));
    result.programs.swap(sorted);
    // A first choice with too few accumulators to cover the FMA latency (one
    // 8-lane vector for a GEMV with N=1000) yields to a program predicted within
    // 2% that has more: the model lets a memory-bound stage's single dependent
    // FMA chain hide behind the stream, which it does not (matmul M=1 N=1000
    // K=4032: 1.0 ms with 1 accumulator, 0.73 ms with 5; oneDNN 0.75 ms).
    if (!result.programs.empty()) {
        // The model's margin within which two programs count as equally fast.
        constexpr double kPredictedTie = 1.02;
        auto accumulators = [&](const RProgram &p) {
            return model.alignment().register_tile_accumulators(p.tiles[kRegisterTile], p);
        };
        const RProgram &first = result.programs.front();
        size_t best = 0;
        for (size_t i = 1; i < result.programs.size(); i++) {
            const RProgram &p = result.programs[i];
            if (p.predicted_ms > first.predicted_ms * kPredictedTie) break;
            if (accumulators(first) < d.min_accumulators() && accumulators(p) > accumulators(result.programs[best])) best = i;
        }
        std::rotate(result.programs.begin(), result.programs.begin() + best, result.programs.begin() + best + 1);
    }
    if (int(result.programs.size()) > top_k) result.programs.resize(top_k);
    for (RProgram &p : result.programs) p.evaluable_anywhere = tiling.overrun_ok;
    return result;
}

}  // namespace tessera::rtile
