#include "compute_schedules.h"

#include "alignment.h"
#include "diagnostics.h"
#include "loops.h"
#include "program_family.h"

#include <algorithm>

namespace tessera::rules {

using analysis::TensorExpr;
using Halide::TailStrategy;

namespace {

// Splits the epilogue's dims by the L2 tile (dims in the stage's order: it reads
// the stage at the point it writes). Tails shift inwards: every tile is whole, so
// the stage inside it has constant extents. Returns per dim the loop inside the
// tile with its extent, and the tile loops (innermost first).
struct EpilogueL2Split {
    std::vector<std::pair<std::string, int64_t>> inner;
    std::vector<std::string> tasks;
};
// Dims in `always` are split even when the tile is the whole extent: the stage
// inside then sees a compile-time extent along them (the output's is a run-time
// value).
EpilogueL2Split split_epilogue_l2(schedule::StageBuilder &s, const TensorExpr &e, const std::vector<int64_t> &tile,
                                  const std::vector<bool> &always = {}) {
    EpilogueL2Split out;
    apply_axis_split(s, e);
    for (size_t j : e.spatial_dims()) {
        const std::string v = e.dims[j].name;
        const int64_t n = e.dims[j].extent;
        // A dim past the stage's own (a batch of one around a product, see
        // analysis::epilogue_producer) stays whole.
        // So does the inner part of an axis the epilogue reads split (v % factor: a
        // packed product's lanes within its panels): a tile of part of it spans
        // several panels' worth of v, for which Halide bounds the stage's region to
        // every lane (each task computed the whole panel) and, with the panels tiled
        // too, the input's region past its end (a 576 -> 1024 matrix-vector product
        // with a relu failed its bounds check on its 16 panels).
        if (j >= tile.size() || (e.split && v == e.split->mod)) {
            out.inner.push_back({v, n});
            continue;
        }
        if (tile[j] < n || (j < always.size() && always[j])) {
            s.split(v, v + "_2", v + "_2i", int(tile[j]), n % tile[j] == 0 ? TailStrategy::Auto : TailStrategy::ShiftInwards);
            out.tasks.push_back(v + "_2");
            out.inner.push_back({v + "_2i", tile[j]});
        } else {
            out.inner.push_back({v, n});
        }
    }
    return out;
}

// Vectorises `points` points of loop `v` in vectors of `vw` lanes: split into
// v_vo x v_vi (the tail guarded when vw does not divide them) when there are more,
// v_vi vectorised. Returns the loops innermost first, {v_vi, v_vo} or {v}; the
// caller unrolls v_vo once it has ordered its loops.
std::vector<std::string> vectorize_points(schedule::StageBuilder &s, const std::string &v, int64_t points, int vw) {
    if (points <= vw) {
        s.vectorize(v);
        return {v};
    }
    s.split(v, v + "_vo", v + "_vi", vw, points % vw == 0 ? TailStrategy::Auto : TailStrategy::GuardWithIf);
    s.vectorize(v + "_vi");
    return {v + "_vi", v + "_vo"};
}

// The epilogue of a compute-intensive stage cut into the stage's L2 tiles, the
// tiles fused into the parallel task loop, each tile vectorised along dim 0.
Attachment epilogue_tiles(schedule::ScheduleBuilder &script, const TensorExpr &e, const std::vector<int64_t> &tile,
                          const hal::DeviceSpec &d, const std::vector<bool> &always = {}) {
    bound_split_output(script, e);
    schedule::StageBuilder s = script.stage(e.func);
    const EpilogueL2Split l2 = split_epilogue_l2(s, e, tile, always);
    const std::string first = l2.inner[0].first;
    std::vector<std::string> order;
    if (vector_split(s, first, l2.inner[0].second, d.vector_lanes, true)) {
        order = {suffixed(first, "vi"), suffixed(first, "vo")};
    } else {
        order = {first};
    }
    for (size_t i = 1; i < l2.inner.size(); i++) order.push_back(l2.inner[i].first);
    order.insert(order.end(), l2.tasks.begin(), l2.tasks.end());
    s.reorder(order);
    return {e.func, parallel_tiles(s, l2.tasks, e.func + "_tiles")};
}

// Steps of an innermost reduction chunk loop unrolled in the micro-kernel.
constexpr int64_t kChunkUnroll = 4;

// The widest window whose taps a register tile unrolls (ConvNeXt's 7x7 depthwise).
constexpr int64_t kMaxUnrolledTaps = 7;

// Whether `t` sums windows only (rtile::program_family's "depthwise": no channel
// sum), each tap dim at most kMaxUnrolledTaps: unrolled, the taps that read the
// same input vector (neighbouring rows of a tile, shifted columns) load it once,
// as LLVM numbers their addresses alike. Zen 4, one thread, side by side: NCHW16c
// 3x3 144x56x56 0.24-0.27 -> 0.15 ms, 7x7 96x56x56 0.37 -> 0.32; NCHW 5x5
// 240x28x28 0.20-0.22 -> 0.17; strided and 14x14 ones unchanged.
bool unrolls_window_taps(const TensorExpr &t) {
    const std::vector<size_t> taps = t.reduction_dims();
    return rtile::program_family(t) == "depthwise" &&
           std::all_of(taps.begin(), taps.end(), [&](size_t r) { return t.dims[r].extent <= kMaxUnrolledTaps; });
}

// A computed operand (a boundary condition's padded copy) read by tiles that may
// overrun their stage's extent (register tiles computed whole past it): computed
// over all that one iteration of its loop reads, each of its storage dims that an
// overrunning dim moves bound to that footprint (the L2 tile in whole register
// tiles, the reduction's chunk or all of it). Halide sized the copy by the points
// the stage needs, so the overrunning lanes read memory no one wrote: results
// thrown away, but stale heap bytes are often denormal floats, each a microcode
// assist (a grouped NCHW 3x3 28x28x128 at 9.1 ms on the main thread's heap,
// 0.21 ms with denormals flushed; x = 32 tiles over 28 columns).
void cover_overrunning_tiles(schedule::ScheduleBuilder &script, const TensorExpr &t, const rtile::RProgram &p,
                             const std::vector<TileOperand> &operands, bool whole_reduction) {
    const std::vector<int64_t> &reg = p.tiles[rtile::kRegisterTile].shape, &l1 = p.tiles[rtile::kL1Tile].shape,
                               &l2 = p.tiles[rtile::kL2Tile].shape;
    std::vector<int64_t> tile(t.dims.size());
    std::vector<bool> overruns(t.dims.size(), false);
    for (size_t j = 0; j < t.dims.size(); j++) {
        if (t.dims[j].reduction) {
            tile[j] = whole_reduction ? l2[j] : l1[j];
            continue;
        }
        tile[j] = (std::min(l2[j], t.dims[j].extent) + reg[j] - 1) / reg[j] * reg[j];
        overruns[j] = p.anywhere(j) && tile[j] > t.dims[j].extent;
    }
    for (const TileOperand &operand : operands) {
        if (operand.input_copy) continue;
        for (const analysis::AccessMap &m : t.reads) {
            if (m.tensor != operand.func) continue;
            const std::vector<Halide::Var> args = script.func(operand.func).args();
            for (size_t s = 0; s < m.coef.size() && s < args.size(); s++) {
                bool moves = false;
                for (size_t j = 0; j < t.dims.size(); j++) moves = moves || (overruns[j] && m.coef[s][j] != 0);
                if (moves) script.bound_extent(operand.func, args[s].name(), int(m.tile_extent(s, tile)));
            }
            break;
        }
    }
}

// A micro-kernel's loops, innermost first, and the ones it unrolls, in order: the
// register tile's vectors (vectorised, the vector-outer loop unrolled), its other
// points (unrolled), the reduction loops (a chunk loop unrolled by kChunkUnroll)
// and whatever lies outside.
struct KernelLoops {
    std::vector<std::string> order, unrolled;

    void vector_points(schedule::StageBuilder &s, const std::string &v, int64_t points, int vw) {
        const std::vector<std::string> vec = vectorize_points(s, v, points, vw);
        order.insert(order.end(), vec.begin(), vec.end());
        unrolled.insert(unrolled.end(), vec.begin() + 1, vec.end());
    }
    void unrolled_loop(const std::string &v) {
        order.push_back(v);
        unrolled.push_back(v);
    }
    void loop(const std::string &v) { order.push_back(v); }
    void loops(const std::vector<std::string> &vs) { order.insert(order.end(), vs.begin(), vs.end()); }
    // The reduction chunk loop `ki` of `kc` steps. Unrolled by kChunkUnroll where
    // that divides it (and `may_unroll`): the loop's own add, compare and branch,
    // and the pointer bumps, once per four steps (Zen 3 side by side, without ->
    // with: matmul 1024^3 15.3 -> 14.9 ms, 512^3 1.84 -> 1.77, batch_matmul
    // 12x128x128x64 0.238 -> 0.217; convolutions, whose innermost loop is the
    // window, unchanged).
    void chunk(schedule::StageBuilder &s, const std::string &ki, int64_t kc, bool may_unroll) {
        if (!may_unroll || kc % kChunkUnroll != 0 || kc <= kChunkUnroll) {
            loop(ki);
            return;
        }
        s.split(ki, ki + "_s", ki + "_u", int(kChunkUnroll));
        unrolled_loop(ki + "_u");
        loop(ki + "_s");
    }
    // The stage's loops put in this order (unless `reorder` is false), then unrolled.
    void apply(schedule::StageBuilder &s, bool reorder = true) const {
        if (reorder) s.reorder(order);
        for (const std::string &u : unrolled) s.unroll(u);
    }
};

// The output's contiguous dim when the register tile spans a whole vector or half
// of one along it; -1 otherwise.
int dense_output_point(const TensorExpr &t, const rtile::RTile &reg, const hal::DeviceSpec &d) {
    const int j = t.contiguous_write_dim();
    if (j < 0) return -1;
    const int64_t points = reg.shape[size_t(j)];
    return points == d.vector_lanes || points == d.vector_lanes / 2 ? j : -1;
}

// Whether `t` reads computed operand `func` with storage dim 0 indexed by the vector
// dim alone: a vector of it is one point's channel block (NCHW[b]c), which a
// boundary condition keeps or zeroes whole.
bool reads_channel_block(const TensorExpr &t, const rtile::RProgram &p, const std::string &func) {
    for (const analysis::AccessMap &m : t.reads) {
        if (m.tensor != func || m.coef.empty()) continue;
        for (size_t j = 0; j < m.coef[0].size(); j++) {
            if (m.coef[0][j] != (int(j) == p.vector_dim ? 1 : 0)) return false;
        }
        return true;
    }
    return false;
}

// The operands of a compute stage's tiles (packed input copies, computed
// producers) computed at `at_func`.`at_var`, vectorised; an input is copied
// through a wrapper Func read by `consumer`.
// An input copy goes to `panel_var` instead when that is given (see panel_packing).
void place_operands(schedule::ScheduleBuilder &script, const TensorExpr &t, const rtile::RProgram &p,
                    const hal::DeviceSpec &d, const std::vector<TileOperand> &operands, const std::string &consumer,
                    const std::string &at_func, const std::string &at_var, const std::string &panel_var = "") {
    for (const TileOperand &operand : operands) {
        std::string packed = operand.func;
        const bool input_copy = operand.input_copy;
        if (input_copy) {
            packed = operand.func + "_packed";  // an input: copy it through a wrapper
            script.wrap(operand.func, consumer, packed);
        }
        script.compute_at(packed, at_func, input_copy && !panel_var.empty() ? panel_var : at_var);
        const std::vector<Halide::Var> args = script.func(packed).args();
        std::string a0 = args[0].name();
        std::vector<std::string> gather_order;
        if (input_copy && p.transposed && p.packed_storage_dim > 0 && size_t(p.packed_storage_dim) < args.size()) {
            // The vector dim's storage dim goes innermost: the micro-kernel's
            // operand becomes whole vectors (the packing itself gathers).
            a0 = args[size_t(p.packed_storage_dim)].name();
            const std::vector<std::string> order = with_innermost(args, a0);
            script.reorder_storage(packed, order);
            script.stage(packed).reorder(order);
            gather_order = order;
        }
        if (input_copy && p.padding_elements > 0) {
            // Rows a multiple of 4 KiB apart would share cache sets: pad each row.
            script.align_storage(packed, a0, int(p.packed_row + p.padding_elements));
        }
        schedule::StageBuilder s = script.stage(packed);
        // Guarded: a rounded-up tile would read past the end of the input.
        // A computed producer (a boundary condition's padded copy) at half the lanes:
        // each row's edge vectors take the boundary's select with clamped (gathered)
        // loads, so narrower vectors put fewer of the row's points there (depthwise
        // NCHW 3x3 144x56x56 0.189 -> 0.141 ms, NCHW 3x3 conv 1.27 -> 1.21 ms).
        // Since those loads are masked (hal/masked_boundary_loads.h) full vectors
        // measured within a few percent either way (docs/experiments.md): kept.
        // Where a vector is one point's channel block, no vector straddles an edge:
        // whole vectors (NCHW16c depthwise 3x3 144x56x56 stride 2 on Zen 4, one
        // thread: 0.087 -> 0.073 ms, stride 1 0.154 -> 0.146).
        const bool whole_vectors = input_copy || reads_channel_block(t, p, operand.func);
        const int w = whole_vectors ? d.vector_lanes : std::max(1, d.vector_lanes / 2);
        s.split(a0, a0 + "_vo", a0 + "_vi", w, TailStrategy::GuardWithIf);
        s.vectorize(a0 + "_vi");
        if (!gather_order.empty()) {
            // One vector's rows at a time: each gather reads one line from each of
            // `lanes` input rows, used whole over the next steps while it stays in
            // L1. Rows a multiple of 2 KiB apart (OIHW 512x3x3: 18 KiB) share two
            // cache sets, and the 32 rows of two vectors overflowed them (NCHW
            // 7x7x512: packing took 38% of the time). Side by side, one vector at a
            // time ran NCHW 3x3 7x7x512 2.61 -> 2.33 and 2.24 -> 2.03 ms, 14x14x256
            // 3.06 -> 2.76 and 2.44 -> 2.36 ms.
            gather_order.front() = a0 + "_vi";
            gather_order.push_back(a0 + "_vo");
            s.reorder(gather_order);
        }
    }
}

// The update's tile loops, split per spatial dim: the L2 tile when `split_l2`
// (a stage not computed per L2 tile of an epilogue), the L1 tile, and the
// register tile's points, always split (their loop needs a constant extent to
// unroll). Tiles that do not divide (allowed where every read can be evaluated
// anywhere) get guarded tails.
struct TileLoops {
    std::vector<std::string> points, regs, l1s, tasks;  // each innermost first
    std::vector<size_t> l1_dims;                          // the dim of each l1s loop
    std::string vector_point;                             // the vector dim's points ("": one point)
};
TileLoops split_tile_loops(schedule::StageBuilder &s, const TensorExpr &t, const rtile::RProgram &p, bool split_l2) {
    const rtile::RTile &reg = p.tiles[rtile::kRegisterTile], &l1 = p.tiles[rtile::kL1Tile],
                       &l2 = p.tiles[rtile::kL2Tile];
    auto tail = [](int64_t outer, int64_t inner) {
        return outer % inner == 0 ? TailStrategy::Auto : TailStrategy::GuardWithIf;
    };
    TileLoops loops;
    for (size_t j : t.spatial_dims()) {
        const std::string v = t.dims[j].name;
        const int64_t e = t.dims[j].extent;
        std::string cur = v;
        if (l2.shape[j] < e && split_l2) {
            s.split(cur, v + "_2", v + "_2i", int(l2.shape[j]), tail(e, l2.shape[j]));
            loops.tasks.push_back(v + "_2");
            cur = v + "_2i";
        }
        const int64_t l2_extent = std::min(l2.shape[j], e);
        if (l1.shape[j] < l2_extent) {
            s.split(cur, v + "_1", v + "_1i", int(l1.shape[j]), tail(l2_extent, l1.shape[j]));
            loops.l1s.push_back(v + "_1");
            loops.l1_dims.push_back(j);
            cur = v + "_1i";
        }
        if (reg.shape[j] == 1) {
            loops.regs.push_back(cur);  // not part of the register tile: a loop around it
            continue;
        }
        s.split(cur, v + "_r", v + "_p", int(reg.shape[j]), tail(std::min(l1.shape[j], e), reg.shape[j]));
        loops.regs.push_back(v + "_r");
        loops.points.push_back(v + "_p");
        if (j == p.vector_dim) loops.vector_point = v + "_p";
    }
    return loops;
}

// Panel packing, as BLIS keeps a micro-panel of B in L1: when the one packed input
// (B of a GEMM, the weights of an NHWC convolution) does not move with some dims
// of the L1 tile loops (m), those loops go innermost and the input is packed per
// iteration of the innermost loop it moves with (n): each panel is copied once per
// L2 tile as before, but now lies contiguous (rows one L1 tile wide instead of one
// L2 tile wide, which a few cache sets held) and stays in L1 while the register
// tiles sweep the other dims. Returns that loop, "" when it does not apply;
// reorders `l1s` (innermost first; l1_dims[i] is the dim of l1s[i]).
// Side by side on Zen 3 (AVX2), matmul 1024^3: 15.2 -> 13.7 ms. Transposed
// programs too (their weights packed with the output channels innermost, a
// panel per register tile of channels instead of rows an L2 tile of channels
// long): NCHW 1x1 7x7 512->2048 1.61 -> 1.21 ms, 3x3 28x28x128 1.80-2.01 ->
// 1.60-1.67 ms, 3x3 stride 2 58x58x128 3.28 -> 3.05 ms, the other 3x3 ResNet
// layers within 2% (three runs).

std::string panel_packing(const TensorExpr &t, const rtile::RProgram &p, const std::vector<TileOperand> &operands,
                          std::vector<std::string> &l1s, const std::vector<size_t> &l1_dims) {
    if (l1s.size() < 2 || p.packed_read < 0 || size_t(p.packed_read) >= t.reads.size()) return "";
    const int copies = int(std::count_if(operands.begin(), operands.end(), [](const TileOperand &o) { return o.input_copy; }));
    if (copies != 1) return "";
    const analysis::AccessMap &packed = t.reads[size_t(p.packed_read)];
    std::vector<std::string> still, moving;
    for (size_t i = 0; i < l1s.size(); i++) (packed.depends_on(l1_dims[i]) ? moving : still).push_back(l1s[i]);
    if (still.empty() || moving.empty()) return "";
    l1s = still;
    l1s.insert(l1s.end(), moving.begin(), moving.end());
    return moving.front();
}

}  // namespace

bool register_epilogue_applies(const TensorExpr &t, const rtile::RProgram &p, const hal::DeviceSpec &d) {
    if (p.fusion) return false;  // its tiles do not index t's dims
    const rtile::RTile &reg = p.tiles[rtile::kRegisterTile], &l1 = p.tiles[rtile::kL1Tile],
                       &l2 = p.tiles[rtile::kL2Tile];
    if (p.transposed || p.vector_dim != 0) return false;
    for (size_t r : t.reduction_dims()) {
        if (l1.shape[r] < t.dims[r].extent) return false;
    }
    const int64_t v = reg.shape[p.vector_dim];
    if (v % rtile::vector_width(v, d.vector_lanes) != 0) return false;
    for (size_t j : t.spatial_dims()) {
        if (reg.shape[j] > std::min(l2.shape[j], t.dims[j].extent)) return false;
    }
    return true;
}

namespace {

// See register_epilogue_applies. The epilogue: L2 tiles (parallel), register
// tiles, the tile's points (vectorised and unrolled); tails of both shift inwards,
// so every tile is whole. The stage: computed at the innermost register-tile loop,
// the reduction loops outside its points.
Attachment schedule_register_epilogue(schedule::ScheduleBuilder &script, const std::vector<TensorExpr> &stages,
                                      const rtile::RProgram &p, const hal::DeviceSpec &d,
                                      const std::vector<TileOperand> &operands, const TensorExpr &e) {
    const TensorExpr &t = stages[1];
    const std::string f = t.func;
    const rtile::RTile &reg = p.tiles[rtile::kRegisterTile];
    const int vw = rtile::vector_width(reg.shape[p.vector_dim], d.vector_lanes);

    // The epilogue: its points, register-tile loops and L2 tiles, innermost first.
    bound_split_output(script, e);
    schedule::StageBuilder s = script.stage(e.func);
    const EpilogueL2Split l2 = split_epilogue_l2(s, e, p.tiles[rtile::kL2Tile].shape);
    std::vector<std::string> points, regs;
    for (size_t j : e.spatial_dims()) {
        const auto &[cur, extent] = l2.inner[j];
        if (j >= reg.shape.size() || reg.shape[j] == 1) {
            regs.push_back(cur);  // tiles of one point along j
            continue;
        }
        // Split even when the tile is the whole extent: the points need a constant
        // extent to unroll, and the output's own extent is a run-time value.
        const std::string v = e.dims[j].name;
        s.split(cur, v + "_r", v + "_p", int(reg.shape[j]),
                extent % reg.shape[j] == 0 ? TailStrategy::Auto : TailStrategy::ShiftInwards);
        regs.push_back(v + "_r");
        points.push_back(v + "_p");
    }
    // The register tile's points: vectors along dim 0, the rest unrolled.
    KernelLoops tile;
    tile.vector_points(s, points[0], reg.shape[p.vector_dim], vw);
    for (size_t i = 1; i < points.size(); i++) tile.unrolled_loop(points[i]);
    tile.loops(regs);
    tile.loops(l2.tasks);
    tile.apply(s);
    const std::string task = parallel_tiles(s, l2.tasks, e.func + "_tiles");
    script.compute_at(f, e.func, regs.empty() ? task : regs.front());

    // The stage over one register tile: initial value and update in registers,
    // the reduction loops outside the tile's points.
    const std::string vname = t.dims[p.vector_dim].name;
    for (int stage = -1; stage < 1; stage++) {
        schedule::StageBuilder k = stage < 0 ? script.stage(f) : script.stage(f, stage);
        KernelLoops kernel;
        kernel.vector_points(k, vname, reg.shape[p.vector_dim], vw);
        // The third dim innermost of the unrolled ones (see RProgram::third_dim).
        if (p.third_dim >= 0 && reg.shape[p.third_dim] > 1) kernel.unrolled_loop(t.dims[p.third_dim].name);
        for (size_t j : t.spatial_dims()) {
            if (j != p.vector_dim && int(j) != p.third_dim && reg.shape[j] > 1) kernel.unrolled_loop(t.dims[j].name);
        }
        const bool unroll_taps = stage == 0 && unrolls_window_taps(t);
        for (size_t r : t.reduction_dims()) {
            if (unroll_taps) kernel.unrolled_loop(t.dims[r].name);
            else kernel.loop(t.dims[r].name);
        }
        kernel.apply(k, stage == 0);
    }
    place_operands(script, t, p, d, operands, f, e.func, task);
    cover_overrunning_tiles(script, t, p, operands, true);
    return {e.func, task};
}

// A fused program (RProgram::fusion): the epilogue is cut into L2 tiles along
// the two original dims, the inner one whole and the outer in rows of the fused
// tile, both split so the stage inside has compile-time extents; the stage is
// computed per L2 tile, its two dims fused into one loop in both definitions. Its
// update runs the register tiles along the fused loop with the reduction chunk
// inside them (the accumulators live in registers across the chunk and in the
// tile's buffer between chunks: no rfactor, whose per-register-tile buffer Halide
// would bound by a box of whole rows), and the packed input copy is computed per
// chunk, [inner extent x rows x chunk] with no padding, so the fused index
// addresses both densely. Side by side on Zen 3 (hand-written Halide harness, NCHW
// 1x1 256->1024 channels, 2 threads): a 16 x 16 plane 0.90 ms (149 GFLOP/s), the
// same kernel on 14 x 14 with a guarded 4-point tail tile 1.19 ms: masked
// accumulators stay in memory, hence whole rows and shifted L2 tiles instead.
Attachment schedule_fused_compute(schedule::ScheduleBuilder &script, const std::vector<TensorExpr> &stages,
                                  const rtile::RProgram &p, const hal::DeviceSpec &d,
                                  const std::vector<TileOperand> &operands, const TensorExpr &e) {
    const analysis::AxisFusion &fusion = *p.fusion;
    const TensorExpr t = rtile::program_expr(stages[1], p);
    const std::string f = t.func, fused = fusion.fused_name();
    const size_t a = fusion.inner, b = a + 1;
    const rtile::RTile &reg = p.tiles[rtile::kRegisterTile], &l1 = p.tiles[rtile::kL1Tile],
                       &l2 = p.tiles[rtile::kL2Tile];

    // The L2 tile over the original dims: whole inner rows, outer rows of the
    // fused tile's size.
    std::vector<int64_t> tile;
    for (size_t j = 0; j < stages[1].dims.size(); j++) {
        tile.push_back(j < a ? l2.shape[j] : j == a ? fusion.inner_extent
                                           : j == b ? l2.shape[a] / fusion.inner_extent
                                                    : l2.shape[j - 1]);
    }
    std::vector<bool> always(tile.size(), false);
    always[a] = always[b] = true;
    const Attachment row = epilogue_tiles(script, e, tile, d, always);
    script.compute_at(f, e.func, row.var);

    const int64_t fused_points = l2.shape[a];
    {
        schedule::StageBuilder s = script.stage(f);
        s.fuse(fusion.inner_name, fusion.outer_name, fused);
        vector_split(s, fused, fused_points, d.vector_lanes, false);
    }

    // The update, innermost first: the register tile's points, the chunk's
    // reduction loops, the register tiles, the L1 tiles, the chunk loop.
    const std::string kvar = t.dims[p.split_reduction].name;
    const int64_t kc = l1.shape[p.split_reduction];
    const std::string ko = kvar + "_o", ki = kvar + "_i";
    schedule::StageBuilder s = script.stage(f, 0);
    s.fuse(fusion.inner_name, fusion.outer_name, fused);
    s.split(kvar, ko, ki, int(kc));
    const TileLoops loops = split_tile_loops(s, t, p, false);
    KernelLoops kernel;
    kernel.vector_points(s, loops.vector_point, reg.shape[p.vector_dim], d.vector_lanes);
    for (const std::string &point : loops.points) {
        if (point != loops.vector_point) kernel.unrolled_loop(point);
    }
    for (size_t r : t.reduction_dims()) {
        if (r == p.split_reduction) kernel.chunk(s, ki, kc, true);
        else kernel.loop(t.dims[r].name);
    }
    kernel.loops(loops.regs);
    kernel.loops(loops.l1s);
    kernel.loop(ko);
    kernel.apply(s);
    place_operands(script, t, p, d, operands, f, f, ko);
    return row;
}

}  // namespace

Attachment schedule_compute_output(schedule::ScheduleBuilder &script, const std::vector<TensorExpr> &stages,
                                   const rtile::RProgram &p, const hal::DeviceSpec &d,
                                   const std::vector<TileOperand> &operands, const TensorExpr *epilogue,
                                   EpilogueTiles *tiles) {
    const TensorExpr &t = stages[1];  // the reduction update
    EpilogueTiles scratch;
    EpilogueTiles &chosen = tiles ? *tiles : scratch;
    chosen = epilogue ? EpilogueTiles::L2 : EpilogueTiles::None;
    const std::string f = t.func;
    const rtile::RTile &reg = p.tiles[rtile::kRegisterTile], &l1 = p.tiles[rtile::kL1Tile],
                       &l2 = p.tiles[rtile::kL2Tile];
    const std::string kvar = t.dims[p.split_reduction].name;
    const int64_t kc = l1.shape[p.split_reduction];

    if (p.fusion) {
        internal_assert(epilogue) << "fused program for " << f << " without an epilogue\n";
        return schedule_fused_compute(script, stages, p, d, operands, *epilogue);
    }
    if (epilogue && register_epilogue_applies(t, p, d)) {
        chosen = EpilogueTiles::Register;
        return schedule_register_epilogue(script, stages, p, d, operands, *epilogue);
    }
    // Fused under the epilogue: the epilogue's tiles are the L2 tiles.
    const bool fused = epilogue != nullptr;
    Attachment row{f, ""};
    if (fused) {
        row = epilogue_tiles(script, *epilogue, l2.shape, d);
        script.compute_at(f, epilogue->func, row.var);
    }

    // Initial value: vectorised; at root also parallel over rows.
    {
        auto dims = pure_dims(stages[0]);
        schedule::StageBuilder s = script.stage(f);
        vector_split(s, dims[0].first, dims[0].second, d.vector_lanes, false);
        std::vector<std::pair<std::string, int64_t>> outer(dims.begin() + 1, dims.end());
        if (!fused) parallel_rows(s, outer, dims[0].second, d.cores, f + "_init");
    }

    // Chunk the reduction and move the in-register accumulation into an rfactor
    // intermediate: intm(..., u) sums one chunk; the update adds the chunks up.
    // (Split even when the chunk is the whole extent: the chunk loop then runs once.)
    const std::string intm = f + "_acc";
    const std::string u = "u";
    const std::string ko = kvar + "_o", ki = kvar + "_i";
    script.stage(f, 0).split(kvar, ko, ki, int(kc));
    script.rfactor(f, 0, ko, u, intm);

    // Tile loops of the update, innermost first: register-tile points, register
    // tiles, L1 tiles, the chunk loop, L2 tiles (the parallel tasks).
    std::string panel_var;
    TileLoops loops;
    {
        schedule::StageBuilder s = script.stage(f, 0);
        loops = split_tile_loops(s, t, p, !fused);
        panel_var = panel_packing(t, p, operands, loops.l1s, loops.l1_dims);
        const std::string &vector_point = loops.vector_point;
        std::vector<std::string> order = loops.points;
        order.insert(order.end(), loops.regs.begin(), loops.regs.end());
        order.insert(order.end(), loops.l1s.begin(), loops.l1s.end());
        order.push_back(ko);
        order.insert(order.end(), loops.tasks.begin(), loops.tasks.end());
        s.reorder(order);
        // A transposed program adds its accumulators into the output across channel
        // planes: vectorised along the vector dim that is a gather and a scatter per
        // vector. When the register tile holds a whole vector (or half) along the
        // output's contiguous dim, vectorise along that instead: dense output rows,
        // gathers only from the accumulators in L1 (NCHW 3x3 56x56x64, x=8:
        // 2.07 -> 1.84 ms side by side; 7-wide rows measured neutral, not taken).
        const int dense = p.transposed ? dense_output_point(t, reg, d) : -1;
        if (dense >= 0) {
            s.vectorize(t.dims[size_t(dense)].name + "_p");
            s.unroll(vector_point);
        } else if (!vector_point.empty()) {
            const int w = rtile::vector_width(reg.shape[p.vector_dim], d.vector_lanes);
            if (reg.shape[p.vector_dim] > w) {
                s.split(vector_point, vector_point + "_vo", vector_point + "_vi", w, TailStrategy::GuardWithIf);
                s.vectorize(vector_point + "_vi");
            } else {
                s.vectorize(vector_point);
            }
        }
        // Parallel over the L2 tiles (fused); the chunk loop stays inside a task.
        if (!loops.tasks.empty()) parallel_tiles(s, loops.tasks, f + "_tasks");
    }
    // Tiles that overrun a dim of a stage computed at root inside the pipeline: its
    // storage padded to whole tiles. Halide 14 sizes the allocation by the region its
    // consumers need, and the rfactor merge of the last tile wrote past it (a MatMul
    // into MaxViT's window-to-image reshapes). An output's tails stay guarded by Halide.
    if (!fused && !script.is_output(f)) {
        for (size_t j : t.spatial_dims()) {
            const int64_t e = t.dims[j].extent;
            const int64_t outer = l2.shape[j] < e ? l2.shape[j] : l1.shape[j] < e ? l1.shape[j] : reg.shape[j];
            if (!p.anywhere(j) || e % outer == 0) continue;
            const int64_t padded = (e + outer - 1) / outer * outer + l1.shape[j] + reg.shape[j];
            script.bound_storage(f, t.dims[j].name, int(padded));
        }
    }
    // The register tile: computed inside the innermost loop around it, its
    // accumulators vectorised along the vector dim and unrolled along the other.
    const std::string attach = !loops.regs.empty() ? loops.regs.front() : !loops.l1s.empty() ? loops.l1s.front() : ko;
    script.compute_at(intm, f, attach);
    if (p.transposed) {
        // Accumulators stored with the vector dim innermost: whole-vector stores.
        script.reorder_storage(intm, with_innermost(script.func(intm).args(), t.dims[p.vector_dim].name));
    }
    // Along dims whose tiles may overrun, a guarded tail would shrink the register
    // tile to a run-time extent; keep it whole (Roller's tensor padding: the extra
    // points read boundary-condition producers and are never stored).
    for (size_t j : t.spatial_dims()) {
        if (reg.shape[j] > 1 && p.anywhere(j)) {
            script.bound_extent(intm, t.dims[j].name, int(reg.shape[j]));
        }
    }
    const std::string vname = t.dims[p.vector_dim].name;
    // Vector width: one that divides the register tile, else full vectors with a guarded tail.
    const int vw = rtile::vector_width(reg.shape[p.vector_dim], d.vector_lanes);
    // A register-tile dim's loop name, "" when the tile has one point along it.
    auto tile_dim = [&](int dim) { return dim >= 0 && reg.shape[size_t(dim)] > 1 ? t.dims[size_t(dim)].name : ""; };
    const std::string second = tile_dim(p.second_dim), third = tile_dim(p.third_dim);
    auto micro_kernel = [&](schedule::StageBuilder &s, bool update) {
        KernelLoops kernel;
        kernel.vector_points(s, vname, reg.shape[p.vector_dim], vw);
        // The third dim inside the second: each broadcast serves the third dim's
        // vectors, held in registers across the second dim's points.
        if (!third.empty()) kernel.unrolled_loop(third);
        if (!second.empty()) kernel.unrolled_loop(second);
        if (update) {
            // The chunk loop is unrolled only where it runs innermost (a GEMM's k).
            std::vector<size_t> reductions = t.reduction_dims();
            if (p.chunk_innermost) {
                std::stable_partition(reductions.begin(), reductions.end(),
                                      [&](size_t r) { return r == p.split_reduction; });
            }
            for (size_t r : reductions) {
                if (r == p.split_reduction) kernel.chunk(s, ki, kc, r == reductions.front());
                else kernel.loop(t.dims[r].name);
            }
            for (size_t j : t.spatial_dims()) {
                if (j != p.vector_dim && t.dims[j].name != second && t.dims[j].name != third) kernel.loop(t.dims[j].name);
            }
            kernel.loop(u);
        }
        kernel.apply(s, update);
    };
    {
        schedule::StageBuilder s = script.stage(intm);
        micro_kernel(s, false);
    }
    {
        schedule::StageBuilder s = script.stage(intm, 0);
        micro_kernel(s, true);
    }
    place_operands(script, t, p, d, operands, intm, f, ko, panel_var);
    cover_overrunning_tiles(script, t, p, operands, false);
    return row;
}

}  // namespace tessera::rules
