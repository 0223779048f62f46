#include "reductions.h"

#include "alignment.h"
#include "loops.h"
#include "pure_outputs.h"

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
}  // namespace

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
// `whole_row`: each iteration computes the whole row (or `width` points of it), so a
// split that divides `width` needs no tail.
VectorBlocks split_vector_blocks(schedule::StageBuilder &s, const std::string &v, int64_t width,
                                 const hal::DeviceSpec &d, bool is_output, bool reads_computed, int64_t min_vec,
                                 bool whole_row) {
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
    // Where an iteration may need fewer points than `width` (read per channel
    // through a max pool's windows: a squeeze-excite's channel sums), an update's
    // untailed split rounds its few points up to the vector and reads an input
    // past its end (channel 16 of 9): guarded.
    TailStrategy tail = width % (vw * block) == 0 && (whole_row || reads_computed) ? TailStrategy::Auto
                        : round_up                                              ? TailStrategy::RoundUp
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
    if (vec)
        blocks = split_vector_blocks(s, dims[0].first, dims[0].second, d, is_output, r.reads_computed, r.min_vec,
                                     !r.at.read_through_other_stage);
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
        // The share of a guarded vector's lanes in use from which it beats gathers
        // (the 56-75% rows above lost to them).
        constexpr double kNearlyFullVector = 0.85;
        bool reduction_contiguous =
            (e0 >= lanes && e0 % lanes == 0) ||
            ((!vec || !pure_contiguous) && (unguarded || used >= kNearlyFullVector) && reduction_points >= 4 * lanes);
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

}  // namespace tessera::rules
