#include "gpu_schedules.h"

#include "diagnostics.h"

#include <algorithm>
#include <set>

namespace tessera::rules {

using namespace Halide;
using analysis::TensorExpr;
using schedule::ScheduleBuilder;
using schedule::StageBuilder;

namespace {

// A Halide name as part of a loop's name ("k$x" -> "kx").
std::string clean(const std::string &name) {
    std::string s;
    for (char ch : name) {
        if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') s += ch;
    }
    return s;
}

// The Functions a definition calls directly.
class DirectCalls : public Internal::IRVisitor {
public:
    std::set<std::string> names;

private:
    using Internal::IRVisitor::visit;
    void visit(const Internal::Call *op) override {
        if (op->call_type == Internal::Call::Halide) names.insert(op->name);
        Internal::IRVisitor::visit(op);
    }
};

// The loops one dim is tiled into: blocks, the threads within a block and each
// thread's register tile (empty when the tile has one point).
struct TiledDim {
    std::string block, thread, reg;
};

TiledDim tile_dim(StageBuilder &s, const std::string &var, int64_t threads, int64_t reg, TailStrategy tail) {
    const std::string base = clean(var);
    TiledDim t{base + "_block", base + "_thread", reg > 1 ? base + "_reg" : ""};
    if (reg > 1) {
        s.split(var, t.block, base + "_in", int(threads * reg), tail);
        s.split(base + "_in", t.thread, t.reg, int(reg), TailStrategy::Auto);
    } else {
        s.split(var, t.block, t.thread, int(threads), tail);
    }
    return t;
}

// The loops of `tiled` (or of f itself): block tiles, threads, register tiles
// unrolled; the remaining pure dims are blocks too, up to Halide's three.
void schedule_tiles(StageBuilder &s, const std::vector<std::string> &args, const rtile::GpuProgram &p,
                    TailStrategy tail, const std::vector<std::string> &inner_loops, std::string *innermost_thread) {
    std::vector<std::string> reg, threads, blocks;
    auto tile = [&](int dim, int64_t t, int64_t r) {
        if (dim < 0) return;
        const TiledDim d = tile_dim(s, args[dim], t, r, tail);
        if (!d.reg.empty()) reg.push_back(d.reg);
        threads.push_back(d.thread);
        blocks.push_back(d.block);
    };
    tile(p.x_dim, p.threads_x, p.reg_x);
    tile(p.y_dim, p.threads_y, p.reg_y);
    std::vector<std::string> others;
    for (size_t i = 0; i < args.size(); i++) {
        if (int(i) != p.x_dim && int(i) != p.y_dim) others.push_back(args[i]);
    }
    std::vector<std::string> order = inner_loops;
    order.insert(order.end(), reg.begin(), reg.end());
    order.insert(order.end(), threads.begin(), threads.end());
    order.insert(order.end(), blocks.begin(), blocks.end());
    order.insert(order.end(), others.begin(), others.end());
    s.reorder(order);
    for (const std::string &r : reg) s.unroll(r);
    for (const std::string &t : threads) s.gpu_threads(t);
    // Halide has three block dimensions; further dims stay serial loops around
    // the kernel (fusing them would leave the per-block Funcs without constant
    // bounds).
    for (const std::string &b : blocks) s.gpu_blocks(b);
    for (size_t i = 0; i < others.size() && blocks.size() + i < 3; i++) s.gpu_blocks(others[i]);
    if (innermost_thread) *innermost_thread = threads.empty() ? "" : threads.front();
}

// A reduction over one long RDom with few outputs (a softmax's row maxima and
// sums, a layer norm's moments): one block per output, the reduction split over
// the block's threads through rfactor, each thread a strided part, the partial
// results in shared memory and summed by one thread. Returns false (nothing done)
// when the stage is not such a reduction.
bool reduce_across_threads(ScheduleBuilder &b, const std::string &f, int update, const std::vector<size_t> &pure,
                           const std::vector<std::string> &args, int64_t points, int64_t block_threads) {
    const Internal::Function fn = b.func(f).function();
    const std::vector<Internal::ReductionVariable> &rvars = fn.updates()[update].schedule().rvars();
    if (rvars.size() != 1 || pure.empty() || pure.size() > 3) return false;  // Halide has three block dims
    const int64_t *extent = Internal::as_const_int(rvars[0].extent);
    // Enough outputs for a thread each on every SM, or too short a reduction to share.
    if (!extent || *extent < block_threads || points >= 64 * block_threads) return false;
    const std::string r = rvars[0].var, lanes = clean(r) + "_lanes", steps = clean(r) + "_steps";
    const std::string partial = f + "_partial" + std::to_string(update), lane = "lane";
    {
        StageBuilder s = b.stage(f, update);
        s.split(r, steps, lanes, int(block_threads), TailStrategy::GuardWithIf);
    }
    b.rfactor(f, update, lanes, lane, partial);
    // The outputs: one block each, a block dim per pure dim (fused into one, the
    // pure dims' bounds per block became ranges and Halide sized the shared
    // partials at run time: the online attention's block maxima), the lanes
    // summed serially.
    const std::string block = args[pure[0]];
    {
        StageBuilder s = b.stage(f, update);
        for (size_t i : pure) s.gpu_blocks(args[i]);
    }
    b.compute_at(partial, f, block);
    b.store_in_shared(partial);
    b.stage(partial).gpu_threads(lane);
    b.stage(partial, 0).gpu_threads(lane);
    return true;
}

}  // namespace

bool schedule_gpu_transpose(ScheduleBuilder &b, const TensorExpr &out, int read, const std::string &callee) {
    const analysis::AccessMap &m = out.reads[size_t(read)];
    if (out.dims.size() < 2 || !m.affine || m.coef.size() < 2 || m.coef[0][0] != 0) return false;
    // Only a Function the stage calls directly can be wrapped for it.
    DirectCalls calls;
    for (const Expr &e : b.func(out.func).function().values()) e.accept(&calls);
    if (!calls.names.count(callee)) return false;
    // The loop the read's innermost storage dim moves with (by one), and the
    // storage dim the output's innermost loop moves.
    int across = -1, row_dim = -1;
    for (size_t j = 1; j < out.dims.size(); j++) {
        if (m.coef[0][j] == 1 && across < 0) across = int(j);
        else if (m.coef[0][j] != 0) return false;
    }
    for (size_t d = 1; d < m.coef.size(); d++) {
        if (m.coef[d][0] == 1) row_dim = int(d);
    }
    if (across < 0 || row_dim < 0) return false;
    // Square tiles of a power of two: the copy's threads (along the read's rows) and
    // the output's (along its own) then have the same extents, 8 x 8, 16 x 16 or
    // 32 x 8 (four rows each), which Halide fuses into one block of at most 256.
    int64_t tile = 32;
    while (tile > out.dims[0].extent || tile > out.dims[across].extent) tile /= 2;
    if (tile < 8) return false;  // too narrow to gain from a staged tile
    const int64_t tx = tile, ty = tile, rows_per_thread = tile == 32 ? 4 : 1;
    const std::vector<std::string> args = b.func(out.func).function().args();
    const std::string x = args[0], y = args[size_t(across)];
    {
        StageBuilder s = b.stage(out.func);
        s.split(x, "x_block", "x_thread", int(tx), TailStrategy::ShiftInwards);
        s.split(y, "y_block", "y_in", int(ty), TailStrategy::ShiftInwards);
        s.split("y_in", "y_thread", "y_rows", int(rows_per_thread), TailStrategy::Auto);
        std::vector<std::string> order = {"y_rows", "x_thread", "y_thread", "x_block", "y_block"};
        std::vector<std::string> others;
        for (size_t i = 1; i < args.size(); i++) {
            if (int(i) != across) others.push_back(args[i]);
        }
        order.insert(order.end(), others.begin(), others.end());
        s.reorder(order);
        s.unroll("y_rows");
        s.gpu_threads("x_thread").gpu_threads("y_thread");
        s.gpu_blocks("x_block").gpu_blocks("y_block");
        if (!others.empty()) s.gpu_blocks(others[0]);
    }
    const std::string copy = callee + "_tile";
    b.wrap(callee, out.func, copy);
    b.compute_at(copy, out.func, "x_block");
    b.store_in_shared(copy);
    const std::vector<std::string> cargs = b.func(copy).function().args();
    b.bound_storage(copy, cargs[0], int(ty + 1));  // one bank word: a column spreads over the banks
    StageBuilder s = b.stage(copy);
    // The read's rows: threads along its innermost dim, the other threads (and the
    // unrolled rows) along the dim the output's columns index.
    s.split(cargs[size_t(row_dim)], "row_thread", "row", int(rows_per_thread), TailStrategy::Auto);
    s.reorder({"row", cargs[0], "row_thread"});
    s.unroll("row");
    s.gpu_threads(cargs[0]).gpu_threads("row_thread");
    return true;
}

void schedule_gpu_compute(ScheduleBuilder &b, const TensorExpr &compute, const rtile::GpuProgram &p,
                          const std::string &tiled) {
    const std::string &f = compute.func;
    const std::vector<std::string> fargs = b.func(f).function().args();
    std::vector<std::string> rvars;  // innermost first
    for (size_t j : compute.reduction_dims()) rvars.push_back(compute.dims[j].name);

    if (tiled.empty()) {
        // f is an output: its pure stage and its update carry the tiles; each
        // thread runs its points' whole reductions in turn.
        { StageBuilder s = b.stage(f); schedule_tiles(s, fargs, p, TailStrategy::GuardWithIf, {}, nullptr); }
        StageBuilder u = b.stage(f, 0);
        schedule_tiles(u, fargs, p, TailStrategy::GuardWithIf, rvars, nullptr);
        return;
    }

    std::string thread_loop;
    {
        const std::vector<std::string> targs = b.func(tiled).function().args();
        StageBuilder s = b.stage(tiled);
        schedule_tiles(s, targs, p, TailStrategy::ShiftInwards, {}, &thread_loop);
    }
    // The accumulators per thread: its register tile, computed inside the thread
    // loops (Halide gives a Func computed per block and stored in registers the
    // whole block tile in every thread: local memory), unrolled so that they stay
    // in registers through the whole reduction.
    b.compute_at(f, tiled, thread_loop);
    b.store_in_registers(f);
    std::vector<std::string> tile;
    if (p.x_dim >= 0) tile.push_back(fargs[p.x_dim]);
    if (p.y_dim >= 0) tile.push_back(fargs[p.y_dim]);
    {
        StageBuilder s = b.stage(f);
        s.reorder(tile);
        for (const std::string &v : tile) s.unroll(v);
    }
    // The register tile innermost: one operand load serves a row or column of it.
    StageBuilder u = b.stage(f, 0);
    std::vector<std::string> order = tile;
    order.insert(order.end(), rvars.begin(), rvars.end());
    u.reorder(order);
    for (const std::string &v : tile) u.unroll(v);
}

int schedule_gpu_pointwise(ScheduleBuilder &b, const std::string &f, const std::vector<int64_t> &extents,
                            int64_t block_threads) {
    const Internal::Function fn = b.func(f).function();
    const std::vector<std::string> args = fn.args();
    int across_threads = 0;
    for (int update = -1; update < int(fn.updates().size()); update++) {
        // The stage's pure loops (an update's: the pure vars it writes at).
        std::vector<size_t> pure;
        for (size_t i = 0; i < args.size(); i++) {
            if (update < 0) {
                pure.push_back(i);
                continue;
            }
            const Internal::Variable *v = fn.updates()[update].args()[i].as<Internal::Variable>();
            if (v && v->name == args[i]) pure.push_back(i);
        }
        if (update >= 0) {
            int64_t points = 1;
            for (size_t i : pure) points *= extents.at(i);
            if (reduce_across_threads(b, f, update, pure, args, points, block_threads)) {
                across_threads++;
                continue;
            }
        }
        StageBuilder s = b.stage(f, update);
        if (pure.empty()) {
            s.gpu_single_thread();
            continue;
        }
        // Threads along the innermost dim, fused with the next while it is short.
        std::string threads_of = args[pure[0]];
        int64_t points = extents.at(pure[0]);
        size_t next = 1;
        for (; next < pure.size() && points < block_threads; next++) {
            const std::string fused = threads_of + "_" + clean(args[pure[next]]);
            s.fuse(threads_of, args[pure[next]], fused);
            threads_of = fused;
            points *= extents.at(pure[next]);
        }
        int64_t threads = 1;
        while (threads < std::min(points, block_threads)) threads *= 2;
        const std::string block = clean(threads_of) + "_block", thread = clean(threads_of) + "_thread";
        // A pure stage: four consecutive points per thread where the innermost dim
        // allows (more loads in flight per thread: gelu 4096x4096 on an H200, 2.2 ->
        // 3.7 TB/s).
        if (update < 0 && extents.at(pure[0]) % 4 == 0 && points >= 4 * threads) {
            const std::string vec = clean(threads_of) + "_vec";
            s.split(threads_of, threads_of + "_o", vec, 4, TailStrategy::GuardWithIf);
            s.vectorize(vec);
            s.split(threads_of + "_o", block, thread, int(threads), TailStrategy::GuardWithIf);
        } else {
            s.split(threads_of, block, thread, int(threads), TailStrategy::GuardWithIf);
        }
        s.gpu_threads(thread);
        std::vector<std::string> blocks = {block};
        for (size_t i = next; i < pure.size(); i++) blocks.push_back(args[pure[i]]);
        if (blocks.size() > 3) {
            std::string outer = blocks[2];
            for (size_t i = 3; i < blocks.size(); i++) {
                const std::string fused = outer + "_" + clean(blocks[i]);
                s.fuse(outer, blocks[i], fused);
                outer = fused;
            }
            blocks.resize(2);
            blocks.push_back(outer);
        }
        for (const std::string &bl : blocks) s.gpu_blocks(bl);
    }
    return across_threads;
}

}  // namespace tessera::rules
