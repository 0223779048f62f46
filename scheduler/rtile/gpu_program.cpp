#include "gpu_program.h"

#include "alignment_policy.h"
#include "diagnostics.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace tessera::rtile {

using analysis::AccessMap;
using analysis::TensorExpr;

namespace {

// Warps an SM needs resident to hide its pipelines' and memory's latency (the
// CUDA programming guide's rule of thumb: a quarter to a half of the SM's slots;
// eight warps on every part of the table).
constexpr int kSaturatingWarps = 8;
// L2 serves re-reads at about three times the DRAM bandwidth on the parts of the
// HAL's table (A100: 4.8 vs 1.6 TB/s; T4: ~1 vs 0.32 TB/s).
constexpr double kL2OverDram = 3.0;

// The dim the threads' x runs along: the output's contiguous dim (coalesced
// stores, and loads of the operands that move along it), else the innermost
// spatial dim with more than one point.
int choose_x(const TensorExpr &t) {
    const int c = t.contiguous_write_dim();
    if (c >= 0 && t.dims[c].extent > 1) return c;
    for (size_t j : t.spatial_dims()) {
        if (t.dims[j].extent > 1) return int(j);
    }
    return t.spatial_dims().empty() ? -1 : int(t.spatial_dims().front());
}

// The dim of the threads' y: the spatial dim the most reads do not depend on
// (their elements serve every thread along it: the rows of a GEMM's A for its
// columns), the larger on a tie.
int choose_y(const TensorExpr &t, int x) {
    int best = -1, best_score = -1;
    for (size_t j : t.spatial_dims()) {
        if (int(j) == x || t.dims[j].extent <= 1) continue;
        int score = 0;
        for (const AccessMap &m : t.reads) score += m.depends_on(j) ? 0 : 1;
        if (score > best_score || (score == best_score && t.dims[j].extent > t.dims[best].extent)) {
            best = int(j), best_score = score;
        }
    }
    return best;
}

std::vector<int64_t> block_tile(const TensorExpr &t, const GpuProgram &p) {
    std::vector<int64_t> tile(t.dims.size());
    for (size_t j = 0; j < t.dims.size(); j++) tile[j] = p.block_extent(t, j);
    return tile;
}

// Predicted time and bottleneck (Roller's micro-performance model on a GPU): the
// slowest of the FMAs, the re-reads of the blocks' tiles (L2) and the compulsory
// traffic (DRAM), each over the SMs the blocks keep busy.
void predict(const TensorExpr &t, const hal::DeviceSpec &d, GpuProgram &p) {
    const hal::GpuFigures &g = *d.gpu;
    const std::vector<int64_t> tile = block_tile(t, p);
    int64_t blocks = 1;
    for (size_t j : t.spatial_dims()) blocks *= (t.dims[j].extent + tile[j] - 1) / tile[j];
    p.blocks = blocks;

    const int64_t threads = p.threads();
    const int64_t warps_per_block = (threads + g.warp - 1) / g.warp;
    int64_t resident = std::max<int64_t>(1, g.max_threads_per_sm / (warps_per_block * g.warp));
    resident = std::min<int64_t>(resident, std::max<int64_t>(1, g.registers_per_sm / (int64_t(p.registers) * warps_per_block * g.warp)));
    const double sms_used = std::min(1.0, double(blocks) / g.sms);
    const int64_t per_sm = std::min<int64_t>(resident, (blocks + g.sms - 1) / g.sms);
    const double occupancy = std::min(1.0, double(per_sm * warps_per_block) / kSaturatingWarps);
    const int64_t slots = int64_t(g.sms) * resident, waves = (blocks + slots - 1) / slots;
    const double last_wave = blocks > slots ? double(blocks) / double(waves * slots) : 1.0;
    const double lanes_used = double(threads) / double(warps_per_block * g.warp);
    p.efficiency = sms_used * occupancy * last_wave;

    const double points = double(t.points()), clock = g.clock_ghz * 1e9;
    const double compute_s = points * std::max<int64_t>(1, t.ops_per_point) / 2.0 /
                             (double(g.fp32_lanes_per_sm) * g.sms * clock * p.efficiency * lanes_used);
    // Loads per point (through L1): each read's value serves the register-tile
    // points that do not move it.
    double loads = 0;
    for (const AccessMap &m : t.reads) {
        double reuse = 1;
        if (p.x_dim >= 0 && !m.depends_on(p.x_dim)) reuse *= double(p.reg_x);
        if (p.y_dim >= 0 && !m.depends_on(p.y_dim)) reuse *= double(p.reg_y);
        loads += points / reuse;
    }
    // Bytes the blocks read from L2: every block's data tiles.
    double block_bytes = 0, compulsory = 0;
    for (const AccessMap &m : t.reads) {
        block_bytes += double(m.tile_elements(tile)) * blocks * t.element_bytes;
        std::vector<int64_t> whole = t.extents();
        compulsory += double(m.tile_elements(whole)) * t.element_bytes;
    }
    block_bytes += loads * t.element_bytes / std::max(1.0, double(g.transaction_bytes) / t.element_bytes);
    int64_t reduction_points = 1;
    for (size_t j : t.reduction_dims()) reduction_points *= t.dims[j].extent;
    compulsory += points / double(reduction_points) * t.element_bytes;
    const double dram_gbs = g.dram_gbs * 1e9 * std::min(1.0, p.efficiency * 2);
    const double l2_s = block_bytes / (kL2OverDram * dram_gbs), dram_s = compulsory / dram_gbs;
    const std::pair<double, const char *> times[] = {{compute_s, "compute"}, {l2_s, "L2"}, {dram_s, "DRAM"}};
    const auto worst = std::max_element(std::begin(times), std::end(times));
    p.predicted_ms = worst->first * 1e3;
    p.bottleneck = worst->second;
}

std::vector<int64_t> powers_of_two_up_to(int64_t limit) {
    std::vector<int64_t> v;
    for (int64_t s = 1; s <= limit; s *= 2) v.push_back(s);
    return v;
}

}  // namespace

int64_t GpuProgram::block_extent(const TensorExpr &t, size_t j) const {
    if (int(j) == x_dim) return threads_x * reg_x;
    if (int(j) == y_dim) return threads_y * reg_y;
    return t.dims[j].reduction ? t.dims[j].extent : 1;
}

std::string GpuProgram::to_string(const TensorExpr &t) const {
    std::ostringstream s;
    auto name = [&](int j) { return j < 0 ? std::string("-") : t.dims[j].name; };
    s << "threads " << name(x_dim) << "=" << threads_x << " " << name(y_dim) << "=" << threads_y << ", registers "
      << name(x_dim) << "=" << reg_x << " " << name(y_dim) << "=" << reg_y << " (" << registers
      << " per thread), block tile " << name(x_dim) << "=" << threads_x * reg_x << " " << name(y_dim) << "="
      << threads_y * reg_y << ", operands through L1, " << blocks << " blocks, efficiency " << efficiency << ", predicted " << predicted_ms << " ms (" << bottleneck << ")";
    return s.str();
}

GpuProgram construct_gpu_program(const TensorExpr &t, const hal::DeviceSpec &d) {
    internal_assert(d.gpu) << "construct_gpu_program needs a GPU spec\n";
    const hal::GpuFigures &g = *d.gpu;
    const std::unique_ptr<AlignmentPolicy> align = alignment_policy(d);
    GpuProgram base;
    base.x_dim = choose_x(t);
    base.y_dim = choose_y(t, base.x_dim);
    const int64_t ex = base.x_dim >= 0 ? t.dims[base.x_dim].extent : 1;
    const int64_t ey = base.y_dim >= 0 ? t.dims[base.y_dim].extent : 1;

    GpuProgram best;
    bool found = false;
    for (int64_t tx : powers_of_two_up_to(std::min(ex, kMaxBlockThreads))) {
        for (int64_t ty : powers_of_two_up_to(std::min(ey, kMaxBlockThreads / tx))) {
            if (tx * ty > std::min<int64_t>(kMaxBlockThreads, g.max_threads_per_block)) continue;
            for (int64_t rx : {1, 2, 4}) {
                if (tx * rx > ex) continue;
                for (int64_t ry : {1, 2, 4, 8}) {
                    if (ty * ry > ey) continue;
                    RTile reg;
                    reg.shape.assign(t.dims.size(), 1);
                    if (base.x_dim >= 0) reg.shape[base.x_dim] = rx;
                    if (base.y_dim >= 0) reg.shape[base.y_dim] = ry;
                    if (!align->register_tile_fits(t, reg, RProgram{})) continue;
                    GpuProgram p = base;
                    p.threads_x = tx, p.threads_y = ty, p.reg_x = rx, p.reg_y = ry;
                    p.registers = align->register_tile_registers(reg, RProgram{});
                    predict(t, d, p);
                    // Least time; on a tie the larger block tile (fewer re-reads).
                    const bool better = !found || p.predicted_ms < best.predicted_ms * (1 - 1e-9) ||
                                        (p.predicted_ms <= best.predicted_ms * (1 + 1e-9) &&
                                         tx * rx * ty * ry > best.threads_x * best.reg_x * best.threads_y * best.reg_y);
                    if (better) best = p, found = true;
                }
            }
        }
    }
    internal_assert(found) << "no GPU program fits " << t.func << "\n";
    return best;
}

}  // namespace tessera::rtile
