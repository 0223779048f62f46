#include "loops.h"

#include <algorithm>

namespace tessera::rules {

using analysis::TensorExpr;
using Halide::TailStrategy;

namespace {

// Fewer points than this per parallel task and the thread pool's overhead shows.
constexpr int64_t kMinTaskPoints = 32768;
constexpr int64_t kTasksPerCore = 4;
// Producers of a row-parallel stage attach at the innermost row loop whose
// iterations cover at least this many points (see parallel_rows).
constexpr int64_t kMinAttachPoints = 128;
// ... unless the outer loop's iterations would cover more than this many: their
// producers' buffers (a padded 226x226 plane, 204 KB) pass glibc's mmap threshold
// and every iteration maps fresh pages (see parallel_rows).
constexpr int64_t kMaxAttachPoints = 8192;

}  // namespace

std::string suffixed(const std::string &v, const std::string &s) {
    return v + "_" + s;
}

void bound_split_output(schedule::ScheduleBuilder &script, const analysis::TensorExpr &t) {
    // With the output's min and extent run-time values, v = min + v_div * k +
    // v_mod hid from Halide's bounds that v % k is v_mod and v / k is v_div: the
    // sums read at v % k were computed k times over per v_mod (a grouped 1x1
    // convolution 4x slower), and with the tail shifted inwards or guarded, v / k
    // spanned two groups (input channels 128-247 of 128 read). Bound, the split
    // is exact.
    if (!t.split) return;
    const int j = t.find_dim(t.split->div);
    const int64_t extent = t.dims[size_t(j)].extent * t.split->factor;
    script.bound(t.func, t.split->var, 0, int(extent));
}

void apply_axis_split(schedule::StageBuilder &s, const analysis::TensorExpr &t) {
    if (t.split) s.split(t.split->var, t.split->div, t.split->mod, int(t.split->factor), Halide::TailStrategy::Auto);
}

std::vector<std::pair<std::string, int64_t>> pure_dims(const TensorExpr &t) {
    std::vector<std::pair<std::string, int64_t>> out;
    for (size_t j : t.spatial_dims()) out.push_back({t.dims[j].name, t.dims[j].extent});
    return out;
}

int64_t task_rows(int64_t rows, int64_t slice_points, int cores) {
    // Tasks: one per core when the rows divide evenly enough (every task costs a
    // wake-up: pad 64x58x58 took 0.109 ms in 6 tasks, 0.060-0.065 in 2), else up to
    // kTasksPerCore per core, each of at least kMinTaskPoints points.
    const int64_t most = std::clamp<int64_t>(slice_points * rows / (kMinTaskPoints * cores), 1, kTasksPerCore);
    int64_t rows_per_task = rows, least_rows = rows * cores;
    for (int64_t per_core = 1; per_core <= most; per_core++) {
        const int64_t size = (rows + per_core * cores - 1) / (per_core * cores);
        const int64_t tasks = (rows + size - 1) / size;
        const int64_t core_rows = (tasks + cores - 1) / cores * size;  // rows the busiest core runs
        if (core_rows < least_rows) {
            least_rows = core_rows;
            rows_per_task = size;
        }
        if (core_rows * cores * 20 <= rows * 21) break;  // within 5% of perfect balance
    }
    return rows_per_task;
}

std::string parallel_rows(schedule::StageBuilder &s, const std::vector<std::pair<std::string, int64_t>> &outer_vars,
                          int64_t points_per_row, int cores, const std::string &prefix, std::string *whole_rows,
                          std::string *outer_of_row, TailStrategy task_tail, int attach_outside) {
    if (outer_vars.empty()) return "";
    size_t first = outer_vars.size();
    int64_t rows = 1;
    while (first > 0 && rows < 2 * int64_t(cores)) rows *= outer_vars[--first].second;
    int64_t slice_points = points_per_row;  // points in one iteration of the task group
    for (size_t i = 0; i < first; i++) slice_points *= outer_vars[i].second;
    std::string row = outer_vars[first].first;
    // Outer dims of extent 1 (a batch of one) stay loops of their own outside the
    // rows: fused in, a root reduction realised over fewer rows than a task (a pool
    // read through a transpose by a blocked convolution's tiles) had Halide's bounds
    // for the split reach the batch at n = -7, out of its input
    // (GraphLowering.NhwcStemFeedsABlockedConvolution).
    size_t end = outer_vars.size();
    while (end > first + 1 && outer_vars[end - 1].second == 1) end--;
    for (size_t i = first + 1; i < end; i++) {
        std::string fused = prefix + "_rows" + std::to_string(i);
        s.fuse(row, outer_vars[i].first, fused);
        row = fused;
    }
    const int64_t rows_per_task = task_rows(rows, slice_points, cores);
    std::string inner = row;
    if (rows_per_task > 1 && rows >= rows_per_task) {
        s.split(row, suffixed(row, "task"), suffixed(row, "r"), int(rows_per_task), task_tail);
        s.parallel(suffixed(row, "task"));
        inner = suffixed(row, "r");
    } else if (rows > 1) {
        s.parallel(row);
    }
    // The loop around all of outer_vars[0] (none when it is part of the tasks).
    if (whole_rows && first >= 1) *whole_rows = first >= 2 ? outer_vars[1].first : inner;
    // Producers constant along outer_vars[attach_outside] attach outside its loop;
    // when it is one of the task loop's dims, there is no such loop but the root.
    if (attach_outside >= int(first)) return "";
    if (first == 0) return inner;
    // Producers attach where an iteration covers at least kMinAttachPoints points:
    // per row of a short row, each row re-pads its window's halo and pays the loop
    // set-up (NCHW avg_pool2d 617x21x21 stride 2, rows of 11 points: 0.77 -> 0.61
    // ms per channel plane; 42x83x83: 0.64 -> 0.49 ms, side by side).
    size_t idx = 0;
    int64_t points = points_per_row;
    // Not past kMaxAttachPoints: per 112x112 plane of an NCHW max_pool2d 8x64x224x224
    // stride 2, each plane's 204 KB padded copy was mapped afresh (13.9 ms); per
    // output row, 12.6 ms side by side.
    while (points < kMinAttachPoints && idx < first && points * outer_vars[idx].second <= kMaxAttachPoints) {
        points *= outer_vars[idx++].second;
    }
    idx = std::max<size_t>(idx, size_t(attach_outside + 1));
    if (idx >= first) return inner;
    if (outer_of_row) *outer_of_row = idx + 1 < first ? outer_vars[idx + 1].first : inner;
    return outer_vars[idx].first;
}

std::string parallel_tiles(schedule::StageBuilder &s, const std::vector<std::string> &tiles, const std::string &prefix) {
    std::string task = tiles[0];
    for (size_t i = 1; i < tiles.size(); i++) {
        s.fuse(task, tiles[i], prefix + std::to_string(i));
        task = prefix + std::to_string(i);
    }
    s.parallel(task);
    return task;
}

std::vector<std::string> with_innermost(const std::vector<Halide::Var> &args, const std::string &first) {
    std::vector<std::string> order = {first};
    for (const Halide::Var &a : args) {
        if (a.name() != first) order.push_back(a.name());
    }
    return order;
}

bool vector_split(schedule::StageBuilder &s, const std::string &v, int64_t e, int lanes, bool pure_output) {
    // Rows narrower than a vector (NCHW 14x14 or 7x7 maps) take half or quarter
    // vectors rather than none: relu on 1x256x14x14 ran 4x slower than oneDNN scalar.
    while (pure_output && e < lanes && lanes > 4) lanes /= 2;
    if (e < lanes) return false;
    TailStrategy tail = e % lanes == 0 ? TailStrategy::Auto
                        : pure_output  ? TailStrategy::ShiftInwards
                                       : TailStrategy::GuardWithIf;
    s.split(v, suffixed(v, "vo"), suffixed(v, "vi"), lanes, tail);
    s.vectorize(suffixed(v, "vi"));
    return true;
}

}  // namespace tessera::rules
