#include "stage_schedules.h"

#include "alignment.h"
#include "loops.h"

#include <algorithm>
#include <cmath>

namespace tessera::rules {

using analysis::TensorExpr;
using Halide::TailStrategy;

namespace {

// Input rows a reduction across rows streams at once (see schedule_reduction).
constexpr int64_t kStreamedRows = 16;
// Columns and accumulators at most in a reduction's register tile across columns.
constexpr int64_t kMaxTileColumns = 8;
constexpr int64_t kMaxTileAccumulators = 24;

// Vectors of partial results a reduction vectorised along r0 keeps (see
// vectorize_reduction): one is a chain of dependent adds, a vector per add
// latency; k of them run k chains, but the update then adds k times the lanes one
// by one. With n vectors per output point, n / k + width * k adds in sequence
// are fewest at k = sqrt(n / width), a divisor of r0's vectors, and no more
// than hide the latency. Full vectors only (a partial one is guarded). Only for
// rows read from cache, prefetched by the consumer or computed at the row (the
// exponentials softmax sums): streaming from DRAM, the chain is not what waits
// (tessera-bench side by side, 4 vectors vs 1: softmax 32768x1024's max and sum
// 21.7-26.8 vs 19.4-22.8 ms, reduce_mean 8192x4096 5.4 vs 5.0-5.3 ms; prefetched,
// layer_norm 32768x1024 13.9-14.9 vs 17.0-17.4 ms; softmax's sum alone, twelve
// softmax lines, geomean 1.01x in two runs, 32768x1024 3-5% faster).
int reduction_accumulators(const TensorExpr &u, size_t r0, int width, const hal::DeviceSpec &d) {
    const int64_t e0 = u.dims[r0].extent;
    if (width != d.vector_lanes || e0 % width != 0) return 1;
    int64_t vectors = 1;  // per output point
    for (size_t r : u.reduction_dims())
        vectors *= u.dims[r].extent;
    vectors /= width;
    const int64_t most = std::min<int64_t>(d.min_accumulators(), int64_t(std::sqrt(double(vectors) / width)));
    return int(std::max<int64_t>(1, rtile::largest_divisor(e0 / width, most, 1)));
}

}  // namespace

// Vectorises a reduction along its innermost reduction dim r0 (read contiguously):
// r0 splits into vectors of `width` lanes, an rfactor intermediate keeps one
// partial result per lane, and the update adds the lanes up.
void vectorize_reduction(schedule::ScheduleBuilder &script, const TensorExpr &u, int update, size_t r0, int width,
                         int accumulators, const hal::DeviceSpec &d, bool own_loops,
                         const std::vector<std::pair<std::string, int64_t>> &dims, Attachment &row,
                         const Attachment &consumer) {
    const std::string r = u.dims[r0].name, ro = r + "_vo", ri = r + "_vi", lane = "lane";
    const std::string partial = u.func + "_lanes" + std::to_string(update);
    script.stage(u.func, update).split(r, ro, ri, width * accumulators);
    script.rfactor(u.func, update, ri, lane, partial);
    {
        schedule::StageBuilder s = script.stage(u.func, update);
        std::vector<std::string> order = {ri};
        for (const auto &dim : dims)
            order.push_back(dim.first);
        s.reorder(order);
        if (own_loops) {
            std::vector<std::pair<std::string, int64_t>> outer(dims.begin(), dims.end());
            row.var = parallel_rows(s, outer, u.dims[r0].extent, d.cores, u.func + "_u" + std::to_string(update + 1));
        }
    }
    // A matrix-vector product computed per block of its consumer's rows: the
    // block's partial sums, one vector per row, live in registers (lanes
    // innermost in their storage: strided by the rows, 2-, 4- and 16-row blocks
    // ran 3-8x slower in a harness), the rows unrolled inside the reduction loop
    // so that each vector of the operand shared by the rows is loaded once.
    const int rows_dim = consumer.row_dim;
    if (!own_loops && consumer.register_rows > 0 && accumulators == 1 && rows_dim >= 0 &&
        size_t(rows_dim) < dims.size()) {
        script.compute_at(partial, consumer.consumer, consumer.var);
        script.store_in_registers(partial);
        std::vector<std::string> storage = {lane}, order = {lane};
        for (size_t j = 0; j < dims.size(); j++) {
            script.bound_extent(partial, dims[j].first, int(int(j) == rows_dim ? consumer.register_rows : 1));
            storage.push_back(dims[j].first);
        }
        script.reorder_storage(partial, storage);
        order.push_back(dims[size_t(rows_dim)].first);
        for (size_t j = 0; j < dims.size(); j++) {
            if (int(j) != rows_dim) order.push_back(dims[j].first);
        }
        order.push_back(ro);
        for (size_t j : u.reduction_dims()) {
            if (j != r0) order.push_back(u.dims[j].name);
        }
        script.stage(partial).vectorize(lane).unroll(dims[size_t(rows_dim)].first);
        script.stage(partial, 0).reorder(order).vectorize(lane).unroll(dims[size_t(rows_dim)].first);
        return;
    }
    // The partial results are computed where they are added up: per output point,
    // or per parallel task when the output's loops were fused into tasks.
    script.compute_at(partial, u.func, own_loops && !row.var.empty() ? row.var : dims[0].first);
    script.stage(partial).vectorize(lane);
    schedule::StageBuilder s = script.stage(partial, 0);
    std::vector<std::string> order = {lane, ro};
    for (size_t j : u.reduction_dims()) {
        if (j != r0) order.push_back(u.dims[j].name);
    }
    for (const auto &dim : dims)
        order.push_back(dim.first);
    s.reorder(order);
    s.vectorize(lane);
}

namespace {

// The read of `t` that transposes (see transpose_block) and the output dim
// walking its innermost storage dim; {-1, -1} when there is none.
std::pair<int, int> transposed_read(const TensorExpr &t, const hal::DeviceSpec &d) {
    auto dims = pure_dims(t);
    if (dims[0].second < std::min(4, d.vector_lanes)) return {-1, -1};  // not vectorised (see vector_split)
    for (size_t i = 0; i < t.reads.size(); i++) {
        const analysis::AccessMap &m = t.reads[i];
        if (m.coef.empty() || !m.depends_on(0) || m.coef[0][0] != 0) continue;
        for (size_t j : t.spatial_dims()) {
            if (j == 0 || m.coef[0][j] == 0) continue;
            // At least a vector's worth of input lines per block (an RGB NHWC -> NCHW
            // copy gathers from 3 lines: row by row is already whole lines). Down
            // to 16, not 128 as before: NHWC -> NCHW 8x112x112x64 went from 24.8 ms
            // (3x oneDNN's) to 5.9 ms, 64x4096x32 (perm 0,2,1) from 6.9 to 4.0 ms.
            if (dims[j].second < d.vector_lanes) return {-1, -1};
            return {int(j), int(i)};
        }
    }
    return {-1, -1};
}

// Elements of `t` in a cache line (fp32: 16, one AVX-512 vector, two with AVX2).
int64_t line_elements(const hal::DeviceSpec &d, const TensorExpr &t) {
    return d.innermost_cache().line_bytes / t.element_bytes;
}

// Vectors per row of a transposing block (see schedule_pure_output): the whole row
// when it is at most 8 vectors and the input rows one vector gathers from do not
// share cache sets (a stride that is a multiple of 4 KiB puts them all in one set),
// else kTransposeVectors.
int64_t transpose_block_vectors(const TensorExpr &t, const analysis::AccessMap &m, int64_t vectors) {
    const std::vector<int64_t> full = t.extents();
    int64_t stride = 1;  // elements between the input rows of one vector's lanes
    for (size_t s = 0; s < m.coef.size() && m.coef[s][0] == 0; s++)
        stride *= m.tile_extent(s, full);
    const bool same_sets = stride * t.element_bytes % 4096 == 0;
    return vectors <= 8 && !same_sets ? vectors : std::min(vectors, kTransposeVectors);
}

// The storage dim of `m` that the output's innermost dim walks, when a staged
// square can be loaded along `m`'s innermost storage dim: `dim` moves storage dim 0
// only and the innermost output dim one other storage dim only; else -1.
int square_rows_storage_dim(const analysis::AccessMap &m, size_t dim) {
    int rows_dim = -1;
    for (size_t s = 0; s < m.coef.size(); s++) {
        if (s > 0 && m.coef[s][dim] != 0) return -1;
        if (m.coef[s][0] == 0) continue;
        if (s == 0 || rows_dim >= 0) return -1;
        rows_dim = int(s);
    }
    return rows_dim;
}

}  // namespace

TransposeBlock transpose_block(const TensorExpr &t, const hal::DeviceSpec &d) {
    const auto [dim, read] = transposed_read(t, d);
    if (dim < 0) return {};
    const auto dims = pure_dims(t);
    const int64_t vectors = (dims[0].second + d.vector_lanes - 1) / d.vector_lanes;
    const int64_t e = dims[size_t(dim)].second;
    TransposeBlock tb{
        dim,   read, std::min(kTransposeBlock, e), transpose_block_vectors(t, t.reads[size_t(read)], vectors),
        false, false};
    // Swept: tasks of kTransposeVectors vectors of input rows (and the dims beyond),
    // enough of them to keep every core busy.
    int64_t tasks = (vectors + kTransposeVectors - 1) / kTransposeVectors;
    for (size_t i = size_t(dim) + 1; i < dims.size(); i++)
        tasks *= dims[i].second;
    if (e * t.element_bytes >= kTransposeSweepBytes && tasks >= 2 * d.cores) {
        // One line's floats of each input row per block, used whole while in L1:
        // with 8 lanes, blocks of one vector's 8 used half lines (Zen 3, 4096x8192:
        // 39.7 -> 24.5 ms side by side).
        const int64_t rows = std::max<int64_t>(d.vector_lanes, line_elements(d, t));
        tb.rows = std::min(rows, e);
        tb.vectors = std::min(vectors, kTransposeVectors);
        tb.sweep = true;
    }
    double bytes = 4;  // of the output; the input has as many
    for (const auto &o : dims)
        bytes *= double(o.second);
    if (!d.beyond_llc(2 * bytes) && dims[0].second >= d.vector_lanes &&
        square_rows_storage_dim(t.reads[size_t(read)], size_t(dim)) >= 0) {
        tb.staged = true;
        tb.rows = d.vector_lanes;
    }
    return tb;
}

namespace {

// Loads each lanes x lanes square of a staged transposed read (see
// TransposeBlock::staged) into registers, one vector per input row, at the
// output's loop `at`; the output's vectors then take its columns, which Halide
// turns into shuffles of registers instead of one load per lane. A harness on
// Zen 3 (the output's loops as here, 2 vectors per block row): 512x1024 with 2
// threads 0.44 -> 0.27 ms, 256x1024 with 1 thread 0.32 -> 0.14 ms. Stages nothing
// (the block's rows then gather) when no Function wraps the input buffer.
void stage_transposed_squares(schedule::ScheduleBuilder &script, const TensorExpr &t, const TransposeBlock &tb,
                              const std::string &at) {
    const analysis::AccessMap &m = t.reads[size_t(tb.read)];
    std::string source = m.tensor;
    if (m.is_input) {
        Halide::Internal::Parameter param;
        source = script.input_wrapper(m.tensor, param);
        if (source.empty()) return;
    }
    // A read through a stage inlined into this one (a pooling's output over its
    // window, under a layout conversion) has no call of this stage to wrap.
    if (!Halide::Internal::find_direct_calls(script.func(t.func).function()).count(source)) return;
    const std::string square = t.func + "_square";
    script.wrap(source, t.func, square);
    script.compute_at(square, t.func, at);
    script.store_in_registers(square);
    const std::vector<Halide::Var> args = script.func(square).args();
    const int rows_dim = square_rows_storage_dim(m, size_t(tb.dim));
    // Inside the attach loop only the vector and the block's rows vary: every other
    // dim of the square is one point. Said outright, because when the output's outer
    // dims are fused into tasks (an extent-1 batch, 1x16x4x16 perm 0,2,3,1) Halide's
    // bounds through the fused loop's div/mod are not constant, and a register
    // buffer needs constant extents (it failed to compile).
    for (size_t i = 1; i < args.size(); i++) {
        if (int(i) != rows_dim) script.bound_extent(square, args[i].name(), 1);
    }
    schedule::StageBuilder s = script.stage(square);
    s.vectorize(args[0].name());
    s.unroll(args[size_t(rows_dim)].name());
}

}  // namespace

namespace {

// A pure output's loops while schedule_pure_output shapes them: dim 0 vectorised,
// the outer dims (`outer`, outermost last) still to become rows and tasks, and
// `row_points` points per iteration of the innermost of them.
struct OutputRows {
    OutputRows(schedule::StageBuilder &s, const TensorExpr &t, const hal::DeviceSpec &d)
        : s(s), t(t), d(d), dims(pure_dims(t)) {}

    schedule::StageBuilder &s;
    const TensorExpr &t;
    const hal::DeviceSpec &d;
    std::vector<std::pair<std::string, int64_t>> dims, outer;
    int64_t row_points = 0;
    std::string row, whole_rows, storage;
    int row_dim = -1;

    // The row loop's iterations per task (0 when it is not one dim's loop), its
    // dim and the points of one iteration.
    int64_t row_loop(int &dim, int64_t &slice_points) const {
        int64_t extent = 0;
        slice_points = row_points;
        for (const auto &o : outer) {
            if (row == o.first) extent = o.second;
            if (row == suffixed(o.first, "r")) extent = task_rows(o.second, slice_points, d.cores);
            if (extent > 0) {
                dim = t.find_dim(o.first);
                return extent;
            }
            slice_points *= o.second;
        }
        return extent;
    }

    // Splits the row loop (one dim's loop with at least two blocks per task) into
    // blocks of `size` rows, which producers then attach to.
    bool split_into_blocks(int64_t size, TailStrategy tail) {
        int dim = -1;
        int64_t slice_points = 0;
        if (row_loop(dim, slice_points) < 2 * size || dim < 0) return false;
        const std::string blk = suffixed(row, "blk");
        s.split(row, blk, suffixed(row, "in"), int(size), tail);
        if (whole_rows == row) whole_rows.clear();  // split: no loop covers the rows whole
        row = blk;
        storage.clear();
        row_dim = dim;
        return true;
    }
};

// A transposed read (see transpose_block): the output's loops in blocks.
void block_transposed_rows(schedule::ScheduleBuilder &script, OutputRows &r, const TransposeBlock &tb) {
    schedule::StageBuilder &s = r.s;
    const hal::DeviceSpec &d = r.d;
    const auto &dims = r.dims;
    const int tj = tb.dim;
    // A transposed read: row by row, every vector gathers one float from each
    // of `lanes` input rows and the next row's gather comes back to the same
    // lines after a whole output row (4096x8192 ran at 1 GB/s). Blocks of
    // kTransposeBlock rows x one vector use each input line whole while it is
    // in L1 (44 ms, 6 GB/s; oneDNN 53 ms). Each row of a block writes adjacent
    // vectors (transpose_block_vectors), measured side by side: 4096x8192 with
    // 1, 2, 4 and 7 vectors 44, 35, 35 and 51 ms (its 16 input rows per vector
    // are 32 KiB apart, one cache set); NHWC -> NCHW 8x112x112x64 with 2 and
    // all 7 vectors of a row 8.2 and 5.9 ms, 8x56x56x256 with 2 and 4: 9.7
    // and 6.0 ms (oneDNN 8.8 and 9.7 ms). Long input rows are swept instead
    // (see TransposeBlock::sweep).
    const std::string y = dims[size_t(tj)].first, v = dims[0].first;
    const std::string y_blk = suffixed(y, "blk"), y_in = suffixed(y, "in");
    const int64_t e = dims[size_t(tj)].second, block = tb.rows, blocks = (e + block - 1) / block;
    s.split(y, y_blk, y_in, int(block), e % block == 0 ? TailStrategy::Auto : TailStrategy::ShiftInwards);
    std::string vectors = suffixed(v, "vo"), block_vectors;
    const int64_t count = (dims[0].second + d.vector_lanes - 1) / d.vector_lanes, per_row = tb.vectors;
    if (per_row > 1) {
        block_vectors = suffixed(v, "vw");
        s.split(vectors, suffixed(v, "vb"), block_vectors, int(per_row),
                count % per_row == 0 ? TailStrategy::Auto : TailStrategy::GuardWithIf);
        vectors = suffixed(v, "vb");
    }
    // Swept, each vector's lines are used whole (lanes x lanes points) before
    // the block's next vector; else, or when a vector is narrower than a line
    // (AVX2), each row of the block writes its vectors, its lines whole (Zen 3,
    // 4096x8192, three side-by-side runs: 25.1-28.9 -> 22.6-25.9 ms).
    // Staged, a square's rows are the block's rows, inside each vector.
    const bool vector_per_line = d.vector_lanes >= line_elements(d, r.t);
    std::vector<std::string> order = {suffixed(v, "vi")};
    for (const std::string &inner : (tb.sweep && vector_per_line) || tb.staged
                                        ? std::vector<std::string>{y_in, block_vectors}
                                        : std::vector<std::string>{block_vectors, y_in}) {
        if (!inner.empty()) order.push_back(inner);
    }
    // Dims between the vector dim and the transposed one stay inside the block.
    r.row_points *= block;
    for (size_t i = 1; i < size_t(tj); i++) {
        order.push_back(dims[i].first);
        r.row_points *= dims[i].second;
    }
    r.outer.erase(r.outer.begin(), r.outer.begin() + tj);
    if (tb.sweep) {
        // The blocks run along the input rows; groups of input rows (the
        // output's vectors) and the dims beyond are the rows.
        order.push_back(y_blk);
        r.row_points *= blocks;
        r.outer.insert(r.outer.begin(), {vectors, (count + per_row - 1) / per_row});
    } else {
        // The block's vectors run along the output row; the blocks and the
        // dims beyond are the rows.
        order.push_back(vectors);
        r.outer.insert(r.outer.begin(), {y_blk, blocks});
    }
    for (const auto &o : r.outer)
        order.push_back(o.first);
    s.reorder(order);
    if (tb.staged) {
        s.unroll(y_in);
        stage_transposed_squares(script, r.t, tb, order[2]);
    }
}

}  // namespace

Attachment schedule_pure_output(schedule::ScheduleBuilder &script, const TensorExpr &t, const hal::DeviceSpec &d,
                                const RowNeeds &needs, RowDecisions *decisions) {
    schedule::StageBuilder s = script.stage(t.func);
    OutputRows r(s, t, d);
    const auto &dims = r.dims;
    bool vec = vector_split(s, dims[0].first, dims[0].second, d.vector_lanes, true);
    r.outer.assign(dims.begin() + 1, dims.end());
    r.row_points = dims[0].second;
    int64_t rows = 1;  // of the outer dims together
    for (const auto &o : r.outer)
        rows *= o.second;
    const int64_t vectors = (dims[0].second + d.vector_lanes - 1) / d.vector_lanes;
    const int64_t block_points = kRowBlockVectors * d.vector_lanes;
    if (needs.row_blocks && vec && rows == 1 && !r.outer.empty() && dims[0].second % block_points == 0 &&
        vectors >= 2 * kRowBlockVectors) {
        // One row: its blocks of vectors are the rows (in front of the unit dims),
        // whole blocks only (a reduction computed per block sizes its loops to it).
        const std::string vo = suffixed(dims[0].first, "vo");
        const std::string blk = suffixed(vo, "blk"), in = suffixed(vo, "in");
        s.split(vo, blk, in, int(kRowBlockVectors));
        r.outer.insert(r.outer.begin(), {blk, vectors / kRowBlockVectors});
        const std::string row = parallel_rows(s, r.outer, block_points, d.cores, t.func);
        return {t.func, row, true, block_points, ""};
    }
    const TransposeBlock tb = vec ? transpose_block(t, d) : TransposeBlock{};
    if (decisions) decisions->transpose = tb;
    const int tj = tb.dim;
    if (tj > 0) {
        block_transposed_rows(script, r, tb);
    } else if (r.outer.empty()) {
        // One dimension: its vector-outer loop becomes the row loop.
        if (!vec) return {t.func, ""};
        r.outer = {{suffixed(dims[0].first, "vo"), (dims[0].second + d.vector_lanes - 1) / d.vector_lanes}};
        r.row_points = d.vector_lanes;
    }
    // Rows that stay in the LLC come back from it without help (layer_norm 128x768
    // ran 0.033-0.036 ms without prefetches, 0.036-0.041 with them).
    double bytes = t.element_bytes;
    for (const auto &dim : dims)
        bytes *= double(dim.second);
    const bool prefetch =
        vec && tj <= 0 && (!needs.reread_inputs.empty() || needs.producers_reread) && d.beyond_llc(bytes);
    // A computed Func the output reads without moving along an outer dim (a row
    // statistic along a softmax axis that is not innermost) is computed outside
    // that dim's loop: attached inside it, NCHW softmax 8x64x56x56 axis=1 computed
    // each channel's statistics once per channel, 64 times over (31.7 ms).
    int attach_outside = -1;
    for (size_t p = 0; p < r.outer.size() && tj <= 0; p++) {
        const int j = t.find_dim(r.outer[p].first);
        for (const analysis::AccessMap &m : t.reads) {
            if (j >= 0 && !m.is_input && !m.coef.empty() && !m.depends_on(size_t(j))) attach_outside = int(p);
        }
    }
    r.row = parallel_rows(
        s, r.outer, r.row_points, d.cores, t.func, tj > 0 ? nullptr : &r.whole_rows, tj > 0 ? nullptr : &r.storage,
        prefetch || (needs.matrix_vector && tj <= 0) ? TailStrategy::ShiftInwards : TailStrategy::GuardWithIf,
        attach_outside);
    // One prefetch per vector of the row, a row ahead: spread over the output's
    // pass, the next row arrives while this one computes (layer_norm 32768x1024
    // side by side 14.7-16.8 -> 11.2-13.5 ms with the accumulators of
    // reduction_accumulators; see scheduler/README.md).
    // The row loop must be one dim's (split) loop: along rows fused from several
    // dims, the next iteration's box spans the inner dim whole (div and mod), and
    // layer_norm 2x999x72 prefetched all 999 rows per vector (3.9 ms, 0.02 ms without).
    bool plain_row = false;
    for (const auto &o : r.outer)
        plain_row |= r.row == o.first || r.row == suffixed(o.first, "r");
    bool rows_prefetched = false;
    if (prefetch && plain_row) {
        for (const std::string &input : needs.reread_inputs) {
            if (!s.prefetch_input(input, suffixed(dims[0].first, "vo"), r.row, 1)) continue;
            rows_prefetched = true;
            if (decisions) decisions->prefetched.push_back(input);
        }
    }
    // A producer computed at the row that reads an input again (softmax's
    // exponentials read x after its maximum streamed it) cannot prefetch along the
    // row loop: computed per row, its own row loop has one point, which Halide
    // simplifies away before it places prefetches, and the offset is lost (it
    // fetched the current row). The rows go in blocks instead: computed per block,
    // the producer has a row loop of its own and prefetches the next block's rows
    // (see Attachment::prefetch_block_rows) while its vector loop computes. Side
    // by side (tessera-bench, two runs, a temporary switch back), softmax
    // 32768x1024 16.6-18.2 -> 14.2-14.6 ms, 8192x4096 17.8-19.1 -> 14.6-15.4,
    // 4096x8192 17.7-18.6 -> 14.3, 64x512x1024 18.6-20.0 -> 16.3-20.1; oneDNN
    // 16.2-22.6 (scheduler/README.md has the run with the final splits). The
    // producer's vector split shifts inwards (see the pure producers in
    // tessera_scheduler.cpp), and so does the task split (with a guarded one the
    // last task of 32767 rows ran slower). The reductions reading the prefetched
    // rows keep one vector of partial results: with reduction_accumulators'
    // several, 4 of those 5 lines ran 4-15% slower.
    int64_t block_rows = 0;
    if (prefetch && needs.producers_reread && !rows_prefetched && plain_row) {
        int dim = -1;
        int64_t slice_points = 0;
        r.row_loop(dim, slice_points);
        const int64_t rows_in_half_l1 =
            d.innermost_cache().capacity_bytes / 2 / std::max<int64_t>(1, slice_points * t.element_bytes);
        const int64_t size = std::clamp<int64_t>(rows_in_half_l1, 2, kPrefetchBlockRows);
        if (r.split_into_blocks(size, TailStrategy::GuardWithIf)) block_rows = size;
    }
    // A matrix-vector reduction it reads keeps a partial-sum vector per row of a
    // block of rows in registers (see Attachment::register_rows). Both splits
    // shift inwards: the block's rows are a constant extent, all in the buffer.
    int64_t register_rows = 0;
    if (needs.matrix_vector && tj <= 0 && block_rows == 0 && plain_row &&
        r.split_into_blocks(kRegisterBlockRows, TailStrategy::ShiftInwards)) {
        register_rows = kRegisterBlockRows;
    }
    rows = 1;  // the blocks or vector loops above may have become rows
    for (const auto &o : r.outer)
        rows *= o.second;
    // One dimension: each row is a single vector.
    return {t.func,       r.row,        rows > 1,        dims.size() == 1 ? int64_t(d.vector_lanes) : 0,
            r.whole_rows, r.storage,    rows_prefetched, block_rows,
            r.row_dim,    register_rows};
}

void compute_at_row(schedule::ScheduleBuilder &script, const std::string &f, const Attachment &at) {
    if (at.var.empty()) {
        script.compute_root(f);
        return;
    }
    script.compute_at(f, at.consumer, at.var);
    script.store_on_stack(f);
}

namespace {

// Columns (points of the second pure dim) a reduction's register tile spans when
// an operand ignores that dim (a depthwise convolution's weights, the same for
// every column): up to kMaxTileColumns, else 1.
int64_t reuse_tile_columns(const std::vector<TensorExpr> &stages, const hal::DeviceSpec &d) {
    const auto dims = pure_dims(stages[0]);
    if (dims.size() < 2 || dims[0].second < d.vector_lanes || dims[1].second < 2) return 1;
    for (size_t k = 1; k < stages.size(); k++) {
        const int j1 = stages[k].find_dim(dims[1].first);
        if (j1 < 0) return 1;
        for (const analysis::AccessMap &m : stages[k].reads) {
            if (!m.depends_on(size_t(j1))) return kMaxTileColumns;
        }
    }
    return 1;
}

}  // namespace

std::vector<std::string> schedule_shared_producer(schedule::ScheduleBuilder &script, const std::string &f,
                                                  const std::vector<std::string> &args, int64_t extent0,
                                                  const Attachment &at, bool slides,
                                                  const std::vector<std::string> &reread, const hal::DeviceSpec &d) {
    compute_at_row(script, f, at);
    if (slides) {
        // Stored outside the row loop, each row computes only the rows of the
        // window the previous one did not (Halide's sliding window, with the
        // storage folded to the window's rows). Side by side (tessera-bench,
        // a temporary switch back), NCHW 8x64x224x224 3x3: avg_pool2d stride 1
        // 8.2-8.5 -> 6.7-7.3 ms; max_pool2d stride 2 3.75 -> 3.47 ms in one run,
        // equal in two later ones (3.5-4.0 ms; a Halide harness: 3.5 -> 3.1).
        script.store_at(f, at.consumer, at.storage_var);
    }
    std::vector<std::string> prefetched;
    schedule::StageBuilder s = script.stage(f);
    if (extent0 < d.vector_lanes) return prefetched;
    // Computed per block of its consumer's rows, it prefetches the next block's
    // rows of the inputs it reads again, one prefetch per vector, while its vector
    // loop computes (see schedule_pure_output). Unguarded: the bounds test per
    // vector cost softmax 32768x1024 1.5 ms of 16 (a Halide harness). Its vector
    // split then shifts inwards: guarded, Halide derived the prefetch's box through
    // the guard (a loop of prefetches with a computed count per vector), and with a
    // row count the tasks do not divide (32767x1024) the guarded last task ran the
    // whole softmax slower than without blocks (21.5 against 18.5 ms; shifted: 15.9).
    const std::string &a0 = args[0];
    s.split(a0, a0 + "_vo", a0 + "_vi", d.vector_lanes,
            reread.empty() ? TailStrategy::GuardWithIf : TailStrategy::ShiftInwards);
    s.vectorize(a0 + "_vi");
    for (const std::string &input : reread) {
        if (s.prefetch_input(input, a0 + "_vo", args[size_t(at.row_dim)], int(at.prefetch_block_rows), false)) {
            prefetched.push_back(input);
        }
    }
    return prefetched;
}

namespace {

// A reduction update's vectorised pure dim `v` (`width` points): vectors that
// divide the row where possible (a guarded tail inside an unrolled block is slow)
// in blocks of up to 8 that accumulate in registers across the reduction loops,
// the blocks the outer loop (and the parallel tasks when there is no other dim).
// `reads_computed`: it reads the row only from computed Funcs; `min_vec`: the
// fewest points worth a vector.
struct VectorBlocks {
    std::vector<std::string> order;               // the vector loops, innermost first
    std::string chunk_loop;                       // the loop over blocks
    int64_t chunks = 1, points = 1, vectors = 1;  // blocks; points and vectors per block
};
VectorBlocks split_vector_blocks(schedule::StageBuilder &s, const std::string &v, int64_t width,
                                 const hal::DeviceSpec &d, bool is_output, bool reads_computed, int64_t min_vec) {
    // Computed inside its consumer and reading the row only from computed
    // Funcs (a padded input), the reduction may compute past the row's end:
    // the row rounds up to whole blocks of full vectors. A guarded tail
    // would predicate the accumulators, which then stay in memory behind
    // masked stores (see vectorize_reduction), and a vector that divides
    // the row may be narrow (4 lanes for 100 points). Side by side:
    // avg_pool2d NCHW 42x83x83 0.50 -> 0.34 ms, max_pool2d 8x64x147x147
    // stride 2 10.4 -> 7.1 ms. Reading an input buffer past its end would
    // fail its bounds check, so those keep the guard.
    const bool round_up = !is_output && reads_computed && width >= min_vec;
    // A row of up to 8 vectors that no vector width divides, read from an
    // input (NHWC pooling over 17 channels): one vector of the row's own
    // width, which LLVM splits into whole registers and a short one, instead
    // of a block ending in a guarded vector. Side by side, NHWC avg_pool2d
    // 2x17x129x131 5x5 stride 3 0.53-0.58 -> 0.16-0.18 ms, stride 1 4.8-5.6
    // -> 1.4-1.8 ms; NCHW 168x83x83 1x1 stride 2 (rows of 42) 0.38-0.42 ->
    // 0.27-0.31 ms (medians; oneDNN 0.13, 0.83-0.99, 4.5-5.0 ms).
    const int64_t fitted = rtile::vector_width(width, d.vector_lanes);
    const bool row_vector = !is_output && !round_up && width % fitted != 0 && width <= 8 * int64_t(d.vector_lanes);
    const int64_t vw = round_up ? d.vector_lanes : row_vector ? width : fitted;
    const int64_t vectors = (width + vw - 1) / vw;
    const int64_t most = std::min<int64_t>(8, vectors);
    int64_t block = rtile::largest_divisor(vectors, most, round_up ? std::min<int64_t>(4, vectors) : 1);
    if (block == 0) block = 8;  // rounded up to whole blocks
    TailStrategy tail = width % (vw * block) == 0 ? TailStrategy::Auto
                        : round_up                ? TailStrategy::RoundUp
                                                  : TailStrategy::GuardWithIf;
    s.split(v, suffixed(v, "blk"), suffixed(v, "in"), int(vw * block), tail);
    // The block is whole vectors: only its own split needs a tail strategy.
    s.split(suffixed(v, "in"), suffixed(v, "vo"), suffixed(v, "vi"), int(vw),
            tail == TailStrategy::RoundUp ? TailStrategy::Auto : tail);
    s.vectorize(suffixed(v, "vi"));
    VectorBlocks b;
    b.order = {suffixed(v, "vi"), suffixed(v, "vo")};
    b.chunk_loop = suffixed(v, "blk");
    b.chunks = (width + vw * block - 1) / (vw * block);
    b.points = vw * block;
    b.vectors = block;
    return b;
}

// What schedule_reduction knows of one update when it gives it loops.
struct ReductionUpdate {
    schedule::ScheduleBuilder &script;
    const TensorExpr &u;
    int update;  // Halide's update index
    const hal::DeviceSpec &d;
    const std::vector<std::pair<std::string, int64_t>> &dims;  // the pure dims, dim 0 perhaps bounded
    bool is_output, own_loops, vec, pure_contiguous, reads_computed;
    int64_t min_vec, tile_columns, reduction_points;
    const Attachment &at;
};

// An update whose pure dim 0 is vectorised in blocks (or not vectorised at all),
// the reduction loops inside the blocks: its loops, and with loops of its own the
// parallel ones. Returns its task loop when it runs its own loops, else "".
std::string update_in_vector_blocks(const ReductionUpdate &r) {
    schedule::ScheduleBuilder &script = r.script;
    const TensorExpr &u = r.u;
    const hal::DeviceSpec &d = r.d;
    const auto &dims = r.dims;
    const bool is_output = r.is_output, own_loops = r.own_loops, vec = r.vec, pure_contiguous = r.pure_contiguous;
    const int64_t tile_columns = r.tile_columns, reduction_points = r.reduction_points;
    const Attachment &at = r.at;
    const std::vector<size_t> rdims = u.reduction_dims();
    schedule::StageBuilder s = script.stage(u.func, r.update);
    VectorBlocks blocks;
    if (vec) blocks = split_vector_blocks(s, dims[0].first, dims[0].second, d, is_output, r.reads_computed, r.min_vec);
    std::vector<std::string> order = blocks.order;
    const std::string &chunk_loop = blocks.chunk_loop;
    const int64_t chunks = blocks.chunks, vw_block = blocks.points, block_vectors = blocks.vectors;
    // A reduction across rows (reduce_sum axes=0) whose output row holds several
    // blocks: block by block, each block would read a short piece of every
    // input row in turn (512 bytes of 8192 rows 16 KiB apart), which the
    // hardware prefetchers do not follow. Instead the outermost reduction dim
    // splits into chunks of kStreamedRows rows and every block of a task runs
    // inside a chunk: each input row streams a task's whole segment, and the
    // accumulators go through memory (L1) once per chunk. Side by side,
    // reduce_sum 8192x4096 axes=0 14.9 -> 5.0 ms (a hand-written Halide
    // schedule: 16 rows 5.0 ms, 8 rows 6.6, 32 rows 6.7, 64 rows 13 ms).
    const size_t r_outer = rdims.back();
    const bool stream_rows =
        own_loops && vec && chunks > 1 && pure_contiguous && u.dims[r_outer].extent >= 4 * kStreamedRows;
    const std::string ro_name = u.dims[r_outer].name;
    if (stream_rows) {
        s.split(ro_name, suffixed(ro_name, "o"), suffixed(ro_name, "i"), int(kStreamedRows), TailStrategy::GuardWithIf);
    }
    // An operand that ignores the next pure dim (a depthwise convolution's
    // weights, the same for every column) is reused across a register tile of
    // a few points of it: block vectors x columns accumulate together, each
    // weight vector loaded once per tap for all of them. The accumulators and
    // the block's weight vectors (and an input vector and a spare) must fit the
    // registers, or LLVM keeps the accumulators in memory, a load and a store
    // per FMA; and the row's buffer takes constant extents (the scheduler's
    // bound_attached_region), without which LLVM keeps them there anyway. In a
    // Halide harness (Zen 3, AVX2), NHWC depthwise 3x3 32x112x112: 16
    // accumulators 0.37 ms, 8 without constant extents 0.42, both 0.22. Side by side (tessera-bench,
    // five NHWC depthwise lines): 1.61x geomean, 0.45x -> 0.72x of oneDNN.
    std::string tile_inner, tile_outer;
    int64_t tile_points = 1;
    if (vec && tile_columns > 1 && block_vectors <= 4) {
        const int64_t accumulators = std::min<int64_t>(kMaxTileAccumulators, d.vector_registers - block_vectors - 2);
        const int64_t most = std::min<int64_t>(tile_columns, accumulators / block_vectors);
        const int64_t points = rtile::largest_divisor(dims[1].second, most, 2);
        if (points > 1) {
            tile_outer = suffixed(dims[1].first, "ro");
            tile_inner = suffixed(dims[1].first, "ri");
            s.split(dims[1].first, tile_outer, tile_inner, int(points), TailStrategy::Auto);
            order.push_back(tile_inner);
            tile_points = points;
        }
    }
    for (size_t r : rdims)
        order.push_back(stream_rows && r == r_outer ? suffixed(ro_name, "i") : u.dims[r].name);
    order.push_back(vec ? chunk_loop : dims[0].first);
    if (stream_rows) order.push_back(suffixed(ro_name, "o"));
    for (size_t i = 1; i < dims.size(); i++)
        order.push_back(i == 1 && !tile_outer.empty() ? tile_outer : dims[i].first);
    s.reorder(order);
    if (vec) s.unroll(suffixed(dims[0].first, "vo"));
    if (!tile_inner.empty()) s.unroll(tile_inner);
    const std::string task_prefix = u.func + "_u" + std::to_string(r.update + 1);
    // The blocks of vectors as parallel rows (grouped into tasks per core).
    auto parallel_blocks = [&]() {
        return parallel_rows(s, {{chunk_loop, chunks}}, vw_block * reduction_points, d.cores, task_prefix);
    };
    if (!own_loops && !at.in_parallel_loop && vec && chunks > 1) {
        // Its consumer has a single row (global_avg_pool of one image): the
        // blocks of this reduction are the parallelism.
        parallel_blocks();
    }
    if (own_loops) {
        std::vector<std::pair<std::string, int64_t>> outer(dims.begin() + 1, dims.end());
        // Tiled columns: their outer loop is the row (gemm_chain's first GEMM of K=6,
        // a reduction here, once handed the split dim to fuse and failed to compile).
        if (!tile_outer.empty()) outer[0] = {tile_outer, dims[1].second / tile_points};
        if (outer.empty() && stream_rows) {
            // One task per core, each a segment of the row, outside the chunks.
            const int64_t per_task = (chunks + d.cores - 1) / d.cores;
            const std::string task = suffixed(chunk_loop, "task"), rest = suffixed(chunk_loop, "r");
            s.split(chunk_loop, task, rest, int(per_task), TailStrategy::GuardWithIf);
            std::vector<std::string> inner(order.begin(), order.end() - 2);
            inner.insert(inner.end(), {rest, suffixed(ro_name, "o"), task});
            s.reorder(inner);
            s.parallel(task);
            return task;
        } else if (outer.empty() && vec && chunks > 1) {
            return parallel_blocks();
        } else {
            return parallel_rows(s, outer, dims[0].second * reduction_points, d.cores, task_prefix);
        }
    }
    return "";
}

}  // namespace

Attachment schedule_reduction(schedule::ScheduleBuilder &script, const std::vector<TensorExpr> &stages,
                              const hal::DeviceSpec &d, bool is_output, const Attachment &at) {
    Attachment row{stages[0].func, ""};
    const TensorExpr &init = stages[0];
    // A tile along the consumer's second dim needs all of it: attach around its
    // whole rows (or at root); without such a loop there is no tile.
    const bool whole_rows = at.var.empty() || !at.whole_rows_var.empty();
    const int64_t tile_columns = is_output || !whole_rows ? 1 : reuse_tile_columns(stages, d);
    Attachment where = at;
    if (tile_columns > 1 && !at.var.empty()) where.var = at.whole_rows_var;
    if (!is_output) compute_at_row(script, init.func, where);
    // An output, or a reduction computed at root, runs its own loops in parallel.
    const bool own_loops = is_output || at.var.empty();
    auto dims = pure_dims(init);
    // Computed per block of its consumer's row (see schedule_pure_output): loops
    // and buffer of the block's constant extent. (With the extent left to bounds
    // inference, the update's rounded-up loop over a block starting at a run-time
    // offset was bounded past the input's end.)
    if (!own_loops && at.row_width > 0) {
        dims[0].second = std::min(dims[0].second, at.row_width);
        script.bound_extent(init.func, dims[0].first, int(dims[0].second));
    }
    {
        schedule::StageBuilder s = script.stage(init.func);
        vector_split(s, dims[0].first, dims[0].second, d.vector_lanes, false);
        if (own_loops) {
            std::vector<std::pair<std::string, int64_t>> outer(dims.begin() + 1, dims.end());
            parallel_rows(s, outer, dims[0].second, d.cores, init.func + "_init");
        }
    }
    for (size_t k = 1; k < stages.size(); k++) {
        const TensorExpr &u = stages[k];
        // The innermost pure dim must be written with coefficient 1 to vectorise it,
        // and read contiguously to be worth it.
        // Of the reads that move along it: are they all contiguous, and all of
        // computed Funcs (which may be read past the row's end)?
        int j0 = u.find_dim(dims[0].first);
        bool pure_contiguous = true, reads_computed = true;
        for (const analysis::AccessMap &m : u.reads) {
            if (j0 < 0 || !m.depends_on(size_t(j0))) continue;
            pure_contiguous &= !m.coef.empty() && m.coef[0][j0] == 1;
            reads_computed &= !m.is_input;
        }
        // A row that may be rounded up (below) is worth a vector from half a
        // vector's points: NCHW avg_pool2d stride 2 rows of 11 and 14 points,
        // 617x21x21 0.41 -> 0.36 ms, 8x256x28x28 2.97 -> 2.40 ms side by side.
        const int64_t min_vec = !is_output && reads_computed ? d.vector_lanes / 2 : d.vector_lanes;
        bool vec = j0 >= 0 && !u.write.coef.empty() && u.write.coef[0][j0] == 1 && dims[0].second >= min_vec;
        // A reduction running along the rows it reads (softmax and layer_norm
        // statistics, an inner-axis reduce): vectorise the reduction itself.
        std::vector<size_t> rdims = u.reduction_dims();
        const size_t r0 = rdims.front();
        // Vectorising the reduction keeps one partial sum per lane and adds the
        // lanes up per output point. Its vectors divide the row where they can
        // (rtile::reduction_vector_width): a 14-point row takes 14-lane vectors. A
        // guarded last vector predicates the partial sums' update, and LLVM keeps
        // them in memory behind masked stores that do not forward to the next
        // load: global_avg_pool NCHW 14x14 ran 6.8 ms with 16-lane guarded vectors,
        // 3.3 ms with 14 lanes (28x28 0.90 -> 0.46 ms, 10x10 0.28 -> 0.07 ms, where
        // gathers across rows had been the faster choice). A row that needs a
        // guarded vector still takes it when the lanes are nearly all used and the
        // lane sums are amortised (rows of 9-24 points, 56-75% of the lanes, ran
        // 2.3-5x slower than the gathers).
        const int64_t e0 = u.dims[r0].extent, lanes = d.vector_lanes;
        int64_t reduction_points = 1;  // per output point
        for (size_t r : rdims)
            reduction_points *= u.dims[r].extent;
        const int width = rtile::reduction_vector_width(e0, d.vector_lanes);
        const bool unguarded = width >= 4 && e0 % width == 0;
        const double used = double(e0) / double((e0 + lanes - 1) / lanes * lanes);
        // A pure dim that is not vectorised (a GEMV's single column) competes with
        // nothing: the reduction then takes a nearly full guarded vector too (K=1000
        // with 16 lanes once fell back to scalar sums on AVX-512 hosts).
        bool reduction_contiguous =
            (e0 >= lanes && e0 % lanes == 0) ||
            ((!vec || !pure_contiguous) && (unguarded || used >= 0.85) && reduction_points >= 4 * lanes);
        bool reads_along_r0 = false, reads_inputs_along_r0 = false;
        for (const analysis::AccessMap &m : u.reads) {
            reads_along_r0 |= !m.coef.empty() && m.coef[0][r0] == 1;
            reads_inputs_along_r0 |= m.is_input && m.depends_on(r0);
        }
        if (reduction_contiguous && reads_along_r0 && (!vec || !pure_contiguous)) {
            // Rows in cache: computed at this row (softmax's exponentials) or prefetched.
            const bool cached = !own_loops && (at.rows_prefetched || !reads_inputs_along_r0);
            const int accumulators = cached ? reduction_accumulators(u, r0, width, d) : 1;
            vectorize_reduction(script, u, int(k) - 1, r0, width, accumulators, d, own_loops, dims, row, at);
            continue;
        }
        const std::string task =
            update_in_vector_blocks({script, u, int(k) - 1, d, dims, is_output, own_loops, vec, pure_contiguous,
                                     reads_computed, min_vec, tile_columns, reduction_points, at});
        if (own_loops) row.var = task;
    }
    // Computed inside its consumer: producers attach where it is computed.
    if (!own_loops) row = where;
    return row;
}

void schedule_safe(schedule::ScheduleBuilder &script, const Halide::Internal::Function &f,
                   const std::vector<int64_t> &extents, const hal::DeviceSpec &d) {
    script.compute_root(f.name());
    const std::vector<std::string> &args = f.args();
    const int64_t innermost_extent = extents.empty() ? 0 : extents[0];
    // The innermost pure var is vectorised, guarded (pure vars of an update are
    // data-parallel by Halide's rules). Side by side, a grouped NCHW 3x3
    // convolution 32x56x56 groups=4 5.4 -> 2.3 ms (Mullapudi2016 0.46, oneDNN
    // 0.31 ms), NHWC 64x28x28 groups=32 0.30 -> 0.25 ms (Mullapudi2016 0.13).
    // Not a short row ending in a guarded vector: the roller suite's NCHW 21x21
    // groups=84 1x1 (2 vectors and 5 points) ran 0-8% slower vectorised.
    const int64_t lanes = d.vector_lanes;
    const bool vectorize =
        innermost_extent >= lanes && (innermost_extent % lanes == 0 || innermost_extent >= 8 * lanes);
    const std::string vi = suffixed(args[0], "vi");
    auto split_vector = [&](schedule::StageBuilder &s) {
        s.split(args[0], suffixed(args[0], "vo"), vi, int(lanes), TailStrategy::GuardWithIf).vectorize(vi);
    };
    {
        schedule::StageBuilder s = script.stage(f.name());
        if (vectorize) split_vector(s);
        // A batch of one left one core idle: a packed convolution's channel-blocked
        // sums back to NCHW (conv2d packed=1, c % 16 and c / 16) ran on one core.
        std::string task = args.size() > 1 ? args.back() : "";
        int64_t tasks = extents.size() == args.size() && !task.empty() ? extents.back() : 2 * int64_t(d.cores);
        for (size_t k = args.size() - 1; k > 1 && tasks < 2 * int64_t(d.cores); k--) {
            const std::string fused = args[k - 1] + "_" + task;
            s.fuse(args[k - 1], task, fused);
            task = fused;
            tasks *= extents[k - 1];
        }
        if (!task.empty()) s.parallel(task);
    }
    // Updates run in parallel over the outermost pure variable when it indexes the
    // update's own output directly (no two iterations write the same place); a
    // scatter runs serially, as written.
    for (size_t k = 0; k < f.updates().size(); k++) {
        schedule::StageBuilder s = script.stage(f.name(), int(k));
        const std::vector<Halide::Expr> &uargs = f.updates()[k].args();
        const Halide::Internal::Variable *v = uargs.back().as<Halide::Internal::Variable>();
        const Halide::Internal::Variable *v0 = uargs[0].as<Halide::Internal::Variable>();
        const bool pure_inner = vectorize && v0 && v0->name == args[0];
        if (pure_inner) {
            // The vector innermost, inside the reduction loops.
            split_vector(s);
            std::vector<std::string> order = {vi};
            // The loops after the split: the builder's copy of f has them.
            const Halide::Internal::Function split_f = script.func(f.name()).function();
            for (const Halide::Internal::Dim &dim : split_f.updates()[k].schedule().dims()) {
                const std::string name = dim.var.substr(dim.var.rfind('.') + 1);
                if (name != vi && name != Halide::Var::outermost().name()) order.push_back(name);
            }
            s.reorder(order);
        }
        if (args.size() > 1 && v && v->name == args.back()) {
            s.parallel(args.back());
        } else if (!pure_inner) {
            s.unscheduled();
        }
    }
}

}  // namespace tessera::rules
