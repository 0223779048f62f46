#include "perf_model.h"

#include "alignment.h"
#include "cache_sets.h"
#include "program_family.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>

namespace tessera::rtile {

namespace {
// Cycles each row of a padded copy made per L2 tile costs beyond its elements:
// the select over its boundary and the guarded last vector. NCHW depthwise 3x3
// 32x112x112, tiles of 16x28, 56x28, 112x28 points (30 copied rows each): 0.32,
// 0.20 and 0.16 ms (a Halide harness), about 35 cycles per copied row. With the
// charge (tessera-bench side by side, two runs) the depthwise layers pick whole
// rows: 32x112x112 0.32 -> 0.17 ms (Mullapudi2016 0.17, oneDNN 0.24), 144x56x56
// 0.62 -> 0.31, 2x24x57x61 0.10 -> 0.08; strided and 5x5 depthwise lines
// unchanged.
constexpr double kCopyRowCycles = 35;
// The same per copied row for a convolution's padded input (a window and a channel
// reduction), whose rows are copied whole: on an Intel Xeon (AVX-512) a 3x3 64 -> 64
// at 56x56 copied 52K rows of 10 floats per call in L2 tiles 8 points wide (0.141 ms,
// Halide's profiler) and 4K rows of 58 in tiles of whole rows (0.032 ms), about 8
// cycles a row beyond half a cycle an element. Uncharged, the two programs tied and
// the narrow one ran 0.99 ms against 0.76.
constexpr double kConvCopyRowCycles = 8;
constexpr double kLoadsPerCycle = 2;    // two load ports on Skylake-class cores
// Of a cache, for one tile's data (the rest: other data, prefetch). L1 holds only
// the two operand panels of the micro-kernel, so more of it is usable.
constexpr double kUsableFractionL1 = 0.75, kUsableFraction = 0.5;
// An L2 tile under this many bytes refetches its streamed operands from the LLC
// too often: a small L2 (Zen 3's 512 KiB) gives tiles up to 3/4 of itself, up to
// this. Half of Zen 3's L2 copied matmul 2048^3's B 32 times and cut NCHW 7x7x512
// into tiles of one output row, each regathering its weights; side by side at 3/4,
// 2048^3 168 -> 136 ms, 7x7x512 3.12 -> 1.92 ms, 1024^3 4% faster, NCHW 28x28x128
// 16% and four others 2-8% slower (geomean over the eight 4% faster). Half of a
// 1 MiB L2 (Zen 5, the Xeon) is already this much, as measured there.
constexpr int64_t kMinUsableL2Bytes = 384 * 1024;
constexpr double kUsableFractionSmallL2 = 0.75;

int64_t tile_count(const analysis::TensorExpr &t, const RTile &tile) {
    int64_t n = 1;
    for (size_t j = 0; j < t.dims.size(); j++) n *= (t.dims[j].extent + tile.shape[j] - 1) / tile.shape[j];
    return n;
}
}  // namespace

double PerfModel::ghz() const {
    return d_.peak_gflops_per_core / (2.0 * d_.vector_lanes * d_.fma_pipes);
}

int64_t PerfModel::capacity(TileLevel level, const RProgram &p) const {
    if (level == kRegisterTile) return int64_t(d_.vector_registers);
    if (level == kL1Tile && p.transposed) level = kL2Tile;
    const int64_t bytes = d_.tile_layer(level).capacity_bytes;
    if (level == kL1Tile) return int64_t(bytes * kUsableFractionL1);
    const int64_t usable = int64_t(bytes * kUsableFraction);
    if (level != kL2Tile) return usable;
    return std::max(usable, std::min(int64_t(bytes * kUsableFractionSmallL2), kMinUsableL2Bytes));
}

namespace {

// Elements of every read's and the write's data tile: what a tile keeps resident.
int64_t resident_elements(const analysis::TensorExpr &t, const RTile &tile) {
    int64_t elems = tile.write_tile(t);
    for (int64_t e : tile.read_tiles(t)) elems += e;
    return elems;
}

}  // namespace

// Measured side by side on Zen 3 (3x3 stride 2, 7x7 outputs, 512 channels): NCHW
// L2 tiles of one output row fitted the L2 and regathered the weights for every
// row (4.25 ms), NHWC tiles of 3-4 rows repacked them per tile (3.1 ms); tiles of
// all 7 rows, swept panel by panel past the L2, 1.9 and 2.0 ms (oneDNN 1.9).
// Tiles that fit keep the resident model: with panels re-read from the LLC, a
// 1x1 stride-2 layer took tiles of one panel and ran 15% slower.
std::optional<PerfModel::PanelSweep> PerfModel::panel_sweep(const RTile &tile, const RProgram &p,
                                                            int64_t resident) const {
    const int packed_read = packed_read_of(t_, p, tile);
    if (packed_read < 0 || size_t(packed_read) >= t_.reads.size()) return std::nullopt;
    if (resident * t_.element_bytes <= capacity(kL2Tile, p)) return std::nullopt;
    const analysis::AccessMap &packed = t_.reads[size_t(packed_read)];
    const RTile &l1 = p.tiles[kL1Tile];
    PanelSweep sweep{packed_read, tile, 1};
    bool still = false;
    for (size_t j : t_.spatial_dims()) {
        if (tile.shape[j] <= l1.shape[j]) continue;
        if (packed.depends_on(j)) sweep.panels *= (tile.shape[j] + l1.shape[j] - 1) / l1.shape[j];
        else still = true;
        sweep.piece.shape[j] = l1.shape[j];
    }
    if (!still) return std::nullopt;
    return sweep;
}

int64_t PerfModel::mem_footprint(const RTile &tile, TileLevel level, const RProgram &p) const {
    if (level == kRegisterTile) return alignment_->register_tile_registers(tile, p);
    const int64_t resident = resident_elements(t_, tile);
    // The L1 tile's output is the register tile's accumulators: not in L1.
    if (level == kL1Tile) return (resident - tile.write_tile(t_) + line_waste(tile, p)) * t_.element_bytes;
    if (const std::optional<PanelSweep> sweep = panel_sweep(tile, p, resident)) {
        // Per panel the L2 holds the panel, one L1 tile's piece of the other
        // reads and the tile's outputs.
        const RTile &piece = sweep->piece;
        return (resident_elements(t_, piece) - piece.write_tile(t_) + tile.write_tile(t_)) * t_.element_bytes;
    }
    return resident * t_.element_bytes;
}

int64_t PerfModel::line_waste(const RTile &tile, const RProgram &p) const {
    if (p.transposed) return 0;  // its operand is packed with the vector dim innermost
    const int64_t line = d_.tile_layer(kL1Tile).line_bytes / t_.element_bytes;
    const std::vector<int64_t> full = t_.extents();
    const std::vector<size_t> spatial = t_.spatial_dims();
    int64_t waste = 0;
    for (const analysis::AccessMap &m : t_.reads) {
        if (m.coef.empty() ||
            std::none_of(spatial.begin(), spatial.end(), [&](size_t j) { return m.coef[0][j] != 0; }))
            continue;  // stored with a reduction dim innermost (or a constant)
        // The tile's data comes in contiguous pieces: the innermost storage dims it
        // covers whole, times its extent along the first it does not (a row of 7
        // points of a 7x7 map per channel: 7 floats, 196 bytes apart).
        int64_t piece = 1, step = 1;  // step: between the starts of two pieces
        for (size_t d = 0; d < m.coef.size(); d++) {
            const int64_t e = m.tile_extent(d, tile.shape), whole = m.tile_extent(d, full);
            piece *= e;
            step *= whole;
            if (e < whole) break;
        }
        if (piece >= line) continue;
        // A piece starts at a multiple of g in its line (rows and the tile's origins
        // step so) and holds the lines it straddles: averaged over those starts, 7
        // floats of a 7x7 plane hold 1.375 lines (counted as one, a 1x1 convolution
        // at 7x7 kept 256 input channels per L1 tile, past Zen 3's L1); 8 of a
        // 56-float row, or of a 32-float panel, one.
        const int64_t g = std::gcd(std::gcd(step, piece), line);
        int64_t lines = 0;  // summed over the line / g starts
        for (int64_t start = 0; start < line; start += g) lines += (start + piece + line - 1) / line;
        const int64_t held = g * lines;  // line * lines / (line / g): elements per piece
        waste += m.tile_elements(tile.shape) / piece * (held - piece);
    }
    return waste;
}

PerfModel::RegisterLoads PerfModel::register_loads(const RTile &tile, const RProgram &p, int only_read) const {
    double loads = 0, broadcasts = 0, shuffles = 0;
    // Over an unrolled window of a few taps, where broadcasts live in registers
    // (broadcasts_in_registers), the unrolled body shares those that read one element.
    const int window = unrolled_broadcast_window(t_, tile, p, d_);
    for (size_t i = 0; i < t_.reads.size(); i++) {
        if (only_read >= 0 && int(i) != only_read) continue;
        const analysis::AccessMap &m = t_.reads[i];
        if (!m.depends_on(p.vector_dim)) {
            // One broadcast per element read: a stride skips the others (an
            // NCHW 3x3 stride-2 tile of 7 points broadcasts 7 inputs per tap,
            // not the 13 its box spans; counted as 13, x=7 x 8 channels was
            // ranked below x=2 x 16 channels, which ran 1.43x slower).
            double b = double(m.touched_elements(tile.shape));
            if (window >= 0 && m.depends_on(size_t(window))) {
                // Over the unrolled window LLVM loads each element once: a
                // transposed 3x3 tile of 7 points broadcasts 9 inputs per 3 taps.
                std::vector<int64_t> whole = tile.shape;
                whole[size_t(window)] = t_.dims[size_t(window)].extent;
                b = double(m.touched_elements(whole)) * double(tile.shape[size_t(window)]) /
                    double(whole[size_t(window)]);
            }
            loads += b;
            broadcasts += b;
            continue;
        }
        const double elems = double(m.tile_elements(tile.shape));
        // A stride along the vectorised storage dim (2x + r.x) in vectors of
        // an odd width: LLVM assembles each lane by lane, a load and an insert
        // per lane (NCHW 3x3 stride 2 with 7-wide rows kept x=7 x 4 channels,
        // predicted 2.07 ms and measured 5.5; charged so, it yields to a
        // transposed program that ran 1.9-2.5, side by side on Zen 3).
        // Power-of-two widths load whole vectors and shuffle them.
        const int64_t stride = m.coef.empty() ? 1 : std::abs(m.coef[0][p.vector_dim]);
        const int64_t v = tile.shape[p.vector_dim];
        const int w = alignment_->vector_width(v);
        if (stride == 0 && !(p.transposed && int(i) == p.packed_read)) {
            // The vectorised dim moves only an outer storage dim (W(k, n) read along
            // n): every lane is a load of its own and an insert (a transposed
            // program's packed operand is stored with the vector dim innermost).
            // Counted as whole vectors, BERT's out-projection (K innermost in both
            // operands) took such a direct program over the transposed one and
            // ran 7x slower.
            loads += elems * 2.0;
            continue;
        }
        const double rows = elems / double(std::max<int64_t>(1, m.tile_extent(0, tile.shape)));
        if (stride >= 2 && (w & (w - 1)) != 0) {
            loads += rows * double((v + w - 1) / w) * 2.0 * w;
            continue;
        }
        // A window sliding along the vectorised storage dim (x + r.x) makes
        // most vector loads unaligned; a full-width unaligned load spans two
        // cache lines and costs two loads.
        loads += std::ceil(elems / d_.vector_lanes) * (t_.slides_innermost(m) ? 2 : 1);
        // At a stride, each vector is assembled from `stride` loaded ones by
        // stride - 1 two-source permutes (vpermt2ps), issued on a pipe the FMAs use.
        if (stride >= 2) shuffles += rows * double((v + w - 1) / w) * double(stride - 1);
    }
    return {loads, broadcasts, shuffles};
}

std::vector<double> PerfModel::l1_set_overflow(const RTile &tile, const RProgram &p) const {
    std::vector<double> out(t_.reads.size(), 0.0);
    if (p.transposed || d_.gpu) return out;  // a packed copy; a GPU has no such L1
    const hal::MemoryLayer &l1 = d_.tile_layer(kL1Tile);
    const int64_t line = l1.line_bytes / t_.element_bytes, ways = l1.capacity_bytes / kL1IndexBytes;
    if (line <= 0 || ways <= 0) return out;
    const std::vector<int64_t> full = t_.extents();
    std::vector<StridedBox> boxes;
    std::vector<size_t> which;
    for (size_t i = 0; i < t_.reads.size(); i++) {
        const analysis::AccessMap &m = t_.reads[i];
        if (!m.is_input || !m.affine || m.coef.empty() || int(i) == p.packed_read) continue;
        // A dense input: each storage dim's stride is the whole extents inside it.
        StridedBox box;
        int64_t stride = 1;
        for (size_t s = 0; s < m.coef.size(); s++) {
            box.extents.push_back(m.tile_extent(s, tile.shape));
            box.strides.push_back(stride);
            stride *= std::max<int64_t>(1, m.tile_extent(s, full));
        }
        boxes.push_back(std::move(box));
        which.push_back(i);
    }
    const std::vector<SetOccupancy> occupancy = set_occupancy(boxes, line, kL1IndexBytes / l1.line_bytes, ways);
    for (size_t b = 0; b < which.size(); b++) {
        if (occupancy[b].lines > 0) out[which[b]] = double(occupancy[b].in_overfull_sets) / double(occupancy[b].lines);
    }
    return out;
}

double PerfModel::mem_traffic(const RTile &tile, TileLevel level, const RProgram &p) const {
    const double tiles = double(tile_count(t_, tile));
    if (level == kRegisterTile) {
        return tiles * register_loads(tile, p).loads;
    }
    // Partial sums go out and come back once per reduction chunk.
    bool chunked = false;
    for (size_t j : t_.reduction_dims()) chunked = chunked || tile.shape[j] < t_.dims[j].extent;
    const int64_t write = tile.write_tile(t_);
    const std::vector<int64_t> reads = tile.read_tiles(t_);
    const std::optional<PanelSweep> sweep =
        level == kL2Tile ? panel_sweep(tile, p, std::accumulate(reads.begin(), reads.end(), write)) : std::nullopt;
    double elems = double(write) * (chunked ? 2 : 1);
    for (size_t i = 0; i < reads.size(); i++) {
        // Swept once per panel, the other reads stream from the LLC that often.
        const bool again = sweep && int(i) != sweep->packed_read;
        elems += double(reads[i]) * double(again ? sweep->panels : 1);
    }
    return tiles * elems * t_.element_bytes;
}

double PerfModel::mem_time_ms(const RTile &tile, TileLevel level, const RProgram &p) const {
    if (level == kRegisterTile) {
        const RegisterLoads per_tile = register_loads(tile, p);
        const double tiles = double(tile_count(t_, tile));
        double cycles = tiles * per_tile.loads / kLoadsPerCycle;
        if (d_.broadcasts_per_cycle > 0) {
            // Broadcasts issue slower than the load ports where they are instructions
            // of their own (AVX2: about one per cycle beside the FMAs; a direct NCHW
            // 3x3 tile of 8 points x 8 channels, 8 broadcasts per vector load, ran at
            // 55% of the peak on Zen 3, the model's 80% before).
            cycles = std::max(cycles, tiles * per_tile.broadcasts / d_.broadcasts_per_cycle);
        }
        return cycles / (ghz() * 1e9 * d_.cores) * 1e3;
    }
    double traffic = mem_traffic(tile, level, p);
    // Tiles of a level are filled from the layer outside theirs; an L2 tile comes
    // from the LLC share when the stage's data fits there, otherwise from DRAM.
    size_t source = d_.tile_layers.at(level) + 1;
    if (level == kL2Tile) {
        double data = 0;
        const std::vector<int64_t> full = t_.extents();
        for (const analysis::AccessMap &m : t_.reads) data += double(m.tile_elements(full)) * t_.element_bytes;
        if (d_.beyond_llc(data)) source = d_.layers.size() - 1;
    }
    return traffic / (d_.layers[source].gbs_per_core * 1e9 * d_.cores) * 1e3;
}

double PerfModel::compute_time_ms(const RProgram &p) const {
    const RTile &register_tile = p.tiles[kRegisterTile];
    // One FMA per point per vector lane; a narrow register tile leaves pipes idle.
    double vector_fmas = double(t_.points()) / d_.vector_lanes;
    // A register tile vectorised narrower than the hardware leaves lanes idle.
    const int64_t extent = register_tile.shape[p.vector_dim];
    const int w = alignment_->vector_width(extent);
    // Points past the last whole vector are a guarded partial vector, which Halide
    // predicates and LLVM executes point by point: each costs a vector operation
    // (an NCHW 1x1 convolution 14 wide with 8 lanes ran 9.9 ms so, 1.3 transposed).
    const int64_t whole_vectors = extent / w, guarded_points = extent % w;
    double lanes_used = double(extent) / (double(whole_vectors + guarded_points) * d_.vector_lanes);
    // Register tiles that overrun the loop extent compute padding points too, and
    // shifted L2 tiles their overlap.
    for (size_t j : t_.spatial_dims()) {
        const double e = double(t_.dims[j].extent), r = double(register_tile.shape[j]);
        double covered = std::ceil(e / r) * r;
        if (l2_shifts(j)) {
            // Whole L2 tiles of whole register tiles (an epilogue's L2 tiles of 10 on
            // a 14-wide blocked stride-2 map recompute 6 columns: 20 for 14, where
            // the register tiles alone would compute 15; ResNet-50's layer3 3x3 ran
            // 1.5x slower inside the model than alone, which took one tile of 15).
            const double l2 = double(p.tiles[kL2Tile].shape[j]);
            if (l2 < e) covered = std::ceil(e / l2) * (std::ceil(l2 / r) * r);
        }
        lanes_used *= e / covered;
    }
    int acc = alignment_->register_tile_accumulators(register_tile, p);
    double latency_bound = std::max(1.0, double(d_.min_accumulators()) / std::max(1, acc));
    // Shuffles assembling strided vectors take FMA issue slots (Intel's port 5,
    // Zen 4's pipe 1): an NCHW 7x7 stride-2 stem vectorised along its output
    // columns (2 of them per 16 FMAs) ran 1.54-1.60 ms against 1.46-1.48 with the
    // channels in the vectors, which the model without them ranked second.
    const double shuffles = double(tile_count(t_, register_tile)) * register_loads(register_tile, p).shuffles;
    return (vector_fmas / lanes_used * latency_bound + shuffles) / (d_.fma_pipes * ghz() * 1e9 * d_.cores) * 1e3;
}

int64_t PerfModel::task_count(const RTile &l2) const {
    int64_t n = 1;
    for (size_t j : t_.spatial_dims()) n *= (t_.dims[j].extent + l2.shape[j] - 1) / l2.shape[j];
    return n;
}

double PerfModel::parallel_efficiency(const RTile &l2) const {
    const int64_t tasks = task_count(l2), cores = std::max(1, d_.cores);
    // Many tasks: balance is not the question, only the last round.
    if (tasks > 4096) return double(tasks) / double((tasks + cores - 1) / cores * cores);
    // Points of the tasks, grouped: per dim, whole tiles and a ragged last one, so
    // at most two sizes per dim (size -> count).
    std::map<double, int64_t, std::greater<double>> groups = {{1.0, 1}};
    double total = 1;
    for (size_t j : t_.spatial_dims()) {
        const int64_t e = t_.dims[j].extent, s = std::min(l2.shape[j], e);
        // A shifted last tile is whole (its overlap is charged as compute).
        const int64_t whole = l2_shifts(j) ? (e + s - 1) / s : e / s, ragged = l2_shifts(j) ? 0 : e % s;
        total *= double(whole * s + ragged);
        std::map<double, int64_t, std::greater<double>> next;
        for (const auto &[size, count] : groups) {
            next[size * double(s)] += count * whole;
            if (ragged) next[size * double(ragged)] += count;
        }
        groups.swap(next);
    }
    // Largest first, each to the least loaded core (LPT). While the cores are level,
    // a group's whole rounds go to every core at once: what one task at a time
    // would do, without a step per task.
    std::vector<double> load(size_t(cores), 0.0);
    for (const auto &[size, count] : groups) {
        int64_t left = count;
        while (left > 0) {
            const auto [lo, hi] = std::minmax_element(load.begin(), load.end());
            if (*lo == *hi && left >= cores) {
                const int64_t rounds = left / cores;
                for (double &l : load) l += double(rounds) * size;
                left -= rounds * cores;
                continue;
            }
            *lo += size;
            left--;
        }
    }
    return total / (double(cores) * *std::max_element(load.begin(), load.end()));
}

int64_t PerfModel::copied_row_elements(const analysis::AccessMap &m, const RTile &tile) const {
    // The storage dims up to the first a window slides along: their points are one
    // row between boundary checks (NCHW: x; a channel-blocked image: its lanes and x,
    // whose 8-float blocks counted as rows made a blocked 3x3 depthwise predicted
    // 1.16 ms where it ran 0.28).
    int64_t row = 1;
    for (size_t s = 0; s < m.coef.size(); s++) {
        row *= std::max<int64_t>(1, m.tile_extent(s, tile.shape));
        bool window = false;
        for (size_t j = 0; j < m.coef[s].size() && j < t_.dims.size(); j++) {
            window = window || (m.coef[s][j] != 0 && t_.dims[j].reduction);
        }
        if (window) break;
    }
    return row;
}

double PerfModel::copy_row_cycles(const analysis::AccessMap &m) const {
    // Per storage dim: does it move with a spatial dim, with a reduction dim?
    bool channel_reduction = false, window = false;
    for (const std::vector<int64_t> &row : m.coef) {
        bool spatial = false, reduction = false;
        for (size_t j = 0; j < row.size() && j < t_.dims.size(); j++) {
            if (row[j] != 0) (t_.dims[j].reduction ? reduction : spatial) = true;
        }
        channel_reduction = channel_reduction || (reduction && !spatial);
        window = window || (reduction && spatial);
    }
    if (!channel_reduction) return kCopyRowCycles;
    return window ? kConvCopyRowCycles : 0;
}

void PerfModel::predict(RProgram &p) const {
    hal::ModelTerms &terms = p.terms;
    terms.family = program_family(t_);
    terms.compute_ms = compute_time_ms(p);
    terms.registers_ms = mem_time_ms(p.tiles[kRegisterTile], kRegisterTile, p);
    terms.l1_ms = mem_time_ms(p.tiles[kL1Tile], kL1Tile, p);
    // Lines that L1 set conflicts evict (l1_set_overflow) come from the L2 each time
    // a register tile reads them: once per line, however many of its vector loads
    // read it (AVX2's two per 64-byte line: a GEMM's B 64 floats wide, 4 rows x 16
    // columns, was charged twice the lines it fetches and ranked below 8 x 8, which
    // ran 1.25x slower: 512x64x256 0.217 against 0.173-0.181 ms on a Zen 3 core).
    const std::vector<double> overflow = l1_set_overflow(p.tiles[kL1Tile], p);
    const int64_t line_bytes = d_.tile_layer(kL1Tile).line_bytes;
    for (size_t i = 0; i < overflow.size(); i++) {
        if (overflow[i] <= 0) continue;
        const RTile &reg = p.tiles[kRegisterTile];
        const analysis::AccessMap &m = t_.reads[i];
        const int64_t run = std::max<int64_t>(1, m.tile_extent(0, reg.shape));
        const double lines_per_tile = double(m.tile_elements(reg.shape)) / double(run) *
                                      std::ceil(double(run * t_.element_bytes) / double(line_bytes));
        const double loads_per_tile = register_loads(reg, p, int(i)).loads;
        const double fetches = double(tile_count(t_, reg)) * std::min(loads_per_tile, lines_per_tile);
        const double bytes = fetches * overflow[i] * line_bytes;
        terms.l1_ms += bytes / (d_.layers[d_.tile_layers.at(kL1Tile) + 1].gbs_per_core * 1e9 * d_.cores) * 1e3;
    }
    terms.l2_ms = mem_time_ms(p.tiles[kL2Tile], kL2Tile, p);
    terms.overhead_ms = 0;
    p.register_ms = terms.registers_ms;
    // A transposed program writes its outputs by scatter once per reduction chunk:
    // a scalar load and store per output point, on the load/store ports.
    if (p.transposed) {
        const RTile &l1 = p.tiles[kL1Tile];
        double chunks = 1, outputs = 1;
        for (size_t j = 0; j < t_.dims.size(); j++) {
            if (t_.dims[j].reduction) chunks *= std::ceil(double(t_.dims[j].extent) / l1.shape[j]);
            else outputs *= double(t_.dims[j].extent);
        }
        terms.overhead_ms += outputs * chunks * 2 / (kLoadsPerCycle * ghz() * 1e9 * d_.cores) * 1e3;
        // Its packed operand is gathered (the vector dim's storage dim moved
        // innermost) per L2 tile and reduction chunk (DeviceSpec::gathered_per_cycle):
        // L2 tiles of one output row each regathered NCHW 7x7x512's weights 7 times
        // (16.5 M elements; 3.4-3.8 ms on Zen 3 against 2.8 for the next program).
        if (p.packed_read >= 0 && size_t(p.packed_read) < t_.reads.size()) {
            const double gathered = per_tile_elements(t_, p, t_.reads[size_t(p.packed_read)]);
            terms.overhead_ms += gathered / (d_.gathered_per_cycle * ghz() * 1e9 * d_.cores) * 1e3;
        }
    }
    // A computed input (a padded copy) is made per chunk of every L2 tile (see
    // schedule_compute); each of its rows costs boundary code beyond its elements
    // (kCopyRowCycles for a depthwise window, kConvCopyRowCycles for a convolution's
    // input, whose elements are spread over its channel reduction's FMAs), which
    // steers such stages to L2 tiles of long rows.
    for (const analysis::AccessMap &m : t_.reads) {
        if (m.is_input || !m.affine || m.coef.empty()) continue;
        const double cycles = copy_row_cycles(m);
        if (cycles == 0) continue;
        const double row = double(copied_row_elements(m, p.tiles[kL2Tile]));
        terms.overhead_ms += per_tile_elements(t_, p, m) / row * cycles / (ghz() * 1e9 * d_.cores) * 1e3;
    }
    // Uneven spread of tasks over cores.
    terms.parallel_efficiency = parallel_efficiency(p.tiles[kL2Tile]);
    // The slowest bound names the bottleneck, with this machine's factors (if fitted).
    const hal::FamilyCalibration f = hal::family_factors(d_.calibration, terms.family);
    const std::pair<double, const char *> bounds[] = {{terms.compute_ms * f.compute, "compute"},
                                                      {terms.registers_ms * f.registers, "L1->registers"},
                                                      {terms.l1_ms * f.l1, "L2->L1"},
                                                      {terms.l2_ms * f.l2, "LLC/DRAM->L2"}};
    p.bottleneck = bounds[0].second;
    double slowest = bounds[0].first;
    for (const auto &[ms, name] : bounds) {
        if (ms > slowest) {
            slowest = ms;
            p.bottleneck = name;
        }
    }
    p.predicted_ms = hal::calibrated_ms(terms, f);
    const RTile &l2 = p.tiles[kL2Tile];
    const std::optional<PanelSweep> sweep = panel_sweep(l2, p, resident_elements(t_, l2));
    p.swept_panels = sweep ? sweep->panels : 0;
}

}  // namespace tessera::rtile
