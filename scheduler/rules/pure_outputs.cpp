#include "pure_outputs.h"

#include "alignment.h"
#include "loops.h"

#include <algorithm>
#include <cmath>

namespace tessera::rules {

using analysis::TensorExpr;
using Halide::TailStrategy;

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
    bound_split_output(script, t);
    schedule::StageBuilder s = script.stage(t.func);
    apply_axis_split(s, t);
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

namespace {
// Rows of fewer points than this (a 1x1 or 2x2 plane padded) stay scalar: too short to measure a gain.
constexpr int64_t kShortRowMinLanes = 4;
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
    const std::string &a0 = args[0];
    if (extent0 < d.vector_lanes) {
        // Rows shorter than a vector (a 7x7 or 14x14 plane's padded copy, 9 or 15
        // columns): vectors of the widest power of two they hold, the last shifted
        // inwards to overlap the one before (a pure producer may compute a point
        // twice). Scalar until then; side by side (tessera-bench, a temporary
        // switch), avg_pool2d 512x14x14 3x3/2 0.062-0.087 -> 0.037-0.062 ms,
        // max_pool2d 832x7x7 3x3 0.059 -> 0.035, larger planes unchanged.
        int64_t width = 1;
        while (width * 2 <= extent0) width *= 2;
        if (width < kShortRowMinLanes) return prefetched;
        s.split(a0, a0 + "_vo", a0 + "_vi", int(width), TailStrategy::ShiftInwards);
        s.vectorize(a0 + "_vi");
        return prefetched;
    }
    // Computed per block of its consumer's rows, it prefetches the next block's
    // rows of the inputs it reads again, one prefetch per vector, while its vector
    // loop computes (see schedule_pure_output). Unguarded: the bounds test per
    // vector cost softmax 32768x1024 1.5 ms of 16 (a Halide harness). Its vector
    // split then shifts inwards: guarded, Halide derived the prefetch's box through
    // the guard (a loop of prefetches with a computed count per vector), and with a
    // row count the tasks do not divide (32767x1024) the guarded last task ran the
    // whole softmax slower than without blocks (21.5 against 18.5 ms; shifted: 15.9).
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

}  // namespace tessera::rules
