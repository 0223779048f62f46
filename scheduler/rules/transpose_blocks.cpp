#include "transpose_blocks.h"

#include "alignment.h"
#include "loops.h"

#include <algorithm>
#include <cmath>

namespace tessera::rules {

using analysis::TensorExpr;
using Halide::TailStrategy;

int64_t line_elements(const hal::DeviceSpec &d, const TensorExpr &t) {
    return d.innermost_cache().line_bytes / t.element_bytes;
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
    double bytes = t.element_bytes;  // of the output; the input has as many
    for (const auto &o : dims)
        bytes *= double(o.second);
    if (!d.beyond_llc(2 * bytes) && dims[0].second >= d.vector_lanes &&
        square_rows_storage_dim(t.reads[size_t(read)], size_t(dim)) >= 0) {
        tb.staged = true;
        tb.rows = d.vector_lanes;
    }
    return tb;
}

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

}  // namespace tessera::rules
