#include "chain_schedules.h"

#include "loops.h"
#include "read_patterns.h"
#include "stage_schedules.h"

#include <algorithm>
#include <functional>

namespace tessera::rules {

using analysis::TensorExpr;
using Halide::TailStrategy;

namespace {

// Rows of a register tile, and its vectors, within the register file: R x V
// accumulators, V operand vectors and a broadcast.
void register_tile(const hal::DeviceSpec &d, int64_t vectors, int64_t &rows, int64_t &tile_vectors) {
    tile_vectors = std::min<int64_t>(vectors, d.vector_registers >= 32 ? 4 : 2);
    rows = std::max<int64_t>(1, (d.vector_registers - tile_vectors - 1) / tile_vectors);
    rows = std::min<int64_t>(rows, 6);
}

// A GEMM's update (Function `f`, update 0): dim 0 (`v`, `ve` points) in register
// tiles of vectors, dim `m` in register tiles of rows, the loops outside the tile
// after them (innermost first; `before` adds splits those need; `m` is a loop split
// from f's var `m_var` there, or that var). The tile's sums
// over the reduction `k` (`ke` points) accumulate in registers: an rfactor
// intermediate f_acc computed per register tile, vectorised and unrolled with the
// reduction inside (the single-op rules' micro-kernel, rules/compute_schedules);
// the update then adds one partial sum per point.
void gemm_micro_kernel(schedule::ScheduleBuilder &script, const std::string &f, const std::string &v, int64_t ve,
                       const std::string &m, const std::string &m_var, const std::string &k, int64_t ke,
                       const std::vector<std::string> &outside, const hal::DeviceSpec &d,
                       const std::function<void(schedule::StageBuilder &)> &before) {
    const int64_t lanes = d.vector_lanes, vectors = (ve + lanes - 1) / lanes;
    int64_t rows = 1, tile_vectors = 1;
    register_tile(d, vectors, rows, tile_vectors);
    const std::string acc = f + "_acc", ko = k + "_o", ki = k + "_i";
    script.stage(f, 0).split(k, ko, ki, int(ke));  // one chunk: the whole reduction per tile
    script.rfactor(f, 0, ko, "u", acc);
    const std::string vt = suffixed(v, "t"), vin = suffixed(v, "in"), mro = suffixed(m, "ro"),
                      mri = suffixed(m, "ri");
    {
        schedule::StageBuilder s = script.stage(f, 0);
        before(s);
        s.split(v, vt, vin, int(tile_vectors * lanes), TailStrategy::GuardWithIf);
        s.split(m, mro, mri, int(rows), TailStrategy::GuardWithIf);
        s.vectorize(vin);
        std::vector<std::string> order = {vin, mri, ko, vt, mro};
        order.insert(order.end(), outside.begin(), outside.end());
        s.reorder(order);
    }
    script.compute_at(acc, f, vt);
    // Constant storage extents: the guarded tails leave Halide's bounds of the tile
    // symbolic, and with symbolic strides LLVM keeps the accumulators in memory (a
    // load and a store around every FMA: attention G4 2.08 -> 1.52 ms bounded).
    script.bound_storage(acc, v, int(tile_vectors * lanes));
    script.bound_storage(acc, m_var, int(rows));
    for (int stage = -1; stage < 1; stage++) {
        schedule::StageBuilder s = stage < 0 ? script.stage(acc) : script.stage(acc, 0);
        s.split(v, suffixed(v, "vo"), suffixed(v, "vi"), int(lanes), TailStrategy::GuardWithIf);
        s.vectorize(suffixed(v, "vi"));
        if (stage == 0) s.reorder({suffixed(v, "vi"), suffixed(v, "vo"), m_var, ki});
        s.unroll(suffixed(v, "vo"));
        s.unroll(m_var);
    }
}

}  // namespace

bool schedule_fused_gemm_chain(schedule::ScheduleBuilder &script, const chain::OperatorChain &c,
                               const analysis::FunctionDag &dag,
                               const analysis::StagePlan &plan, const hal::DeviceSpec &d, std::string *why_not,
                               std::string *epilogue) {
    auto refuse = [&](const std::string &why) {
        if (why_not) *why_not = why;
        return false;
    };
    const analysis::FunctionNode *consumer = dag.find(c.consumer);
    const analysis::FunctionNode *copy = nullptr;  // a pure output reading the consumer at the point
    if (consumer && !consumer->is_output && consumer->consumers.size() == 1) {
        // Its one reader, seen through the pure Funcs the plan inlines (a graph
        // partition's output reads the op's pure output, inlined, which reads it).
        const analysis::FunctionNode *e = dag.find(consumer->consumers[0]);
        while (e && plan.inlined.count(e->func.name()) && e->consumers.size() == 1) e = dag.find(e->consumers[0]);
        if (e && e->is_output && e->func.updates().empty() &&
            analysis::epilogue_producer(plan.stages.at(e->func.name())[0], dag, plan) == consumer) {
            copy = e;
        }
    }
    if (!consumer) return refuse("the consumer is not a stage of the pipeline");
    // Without a row statistic between, the ops one by one keep their own rTile
    // programs, which this schedule's micro-kernels do not match: gemm_chain fused
    // ran at 0.54x its ops one by one (G2 7.78 vs 4.23 ms, G12 2.21 vs 1.18 ms),
    // while an attention gains from keeping its scores' rows on chip (1.08-1.36x).
    if (!c.row_statistic_between) {
        return refuse("no softmax between: the ops' own programs beat this fused schedule's micro-kernels");
    }
    const TensorExpr &u2 = plan.stages.at(c.consumer)[1], &u1 = plan.stages.at(c.producer)[1];
    if (u2.reduction_dims().size() != 1 || u1.reduction_dims().size() != 1) {
        return refuse("an op with more than one reduction loop (a convolution chain)");
    }
    const size_t r2 = u2.reduction_dims()[0];
    const std::vector<size_t> pure2 = u2.spatial_dims(), pure1 = u1.spatial_dims();
    if (pure2.size() < 2 || pure1.size() < 2 || !c.loops[r2].in_producer) {
        return refuse("the consumer does not reduce over the producer's output columns");
    }
    // Rows: the consumer's dim 1, which the producer has as its own dim 1.
    const std::string &n = u2.dims[pure2[0]].name, &m = u2.dims[pure2[1]].name;
    if (!c.loops[pure2[1]].in_producer || u1.dims[pure1[1]].extent != u2.dims[pure2[1]].extent) {
        return refuse("the consumer's rows are not the producer's");
    }
    std::vector<std::string> batch;  // the consumer's dims beyond the rows, innermost first
    int64_t batches = 1;
    for (size_t i = 2; i < pure2.size(); i++) {
        batch.push_back(u2.dims[pure2[i]].name);
        batches *= u2.dims[pure2[i]].extent;
    }
    // The tasks: the outermost batch dim when the batches give every core one,
    // else the blocks of rows (a batch of 1 ran on one core: G10-G12 2x slower
    // fused than one by one).

    // Rows per block: every row of the block holds the producer's whole row (the
    // consumer's reduction is not blocked: a softmax between needs its rows whole,
    // and Halide schedules cannot turn it into the online form), so the block is
    // as many rows as keep the block's materialised stages (the producer's and
    // each full-size stage between) within half of the outermost private cache,
    // in whole register tiles of rows. (The analysis's blocks along the rows
    // assume the reduction blocked too: on G1 they put all 512 rows in a block.)
    int64_t materialised = 1;
    for (const std::string &f : c.between) {
        const std::vector<TensorExpr> &stages = plan.stages.at(f);
        if (stages.size() == 1 && stages[0].dims.size() == pure1.size()) materialised++;
    }
    const int64_t row_bytes = u1.dims[pure1[0]].extent * u1.element_bytes * materialised;
    const int64_t budget = d.tile_layer(2).capacity_bytes / 2;
    int64_t rows = 1, tile_vectors = 1;
    register_tile(d, (u2.dims[pure2[0]].extent + d.vector_lanes - 1) / d.vector_lanes, rows, tile_vectors);
    int64_t block = rows;
    while (block * 2 * row_bytes <= budget && block * 2 <= u2.dims[pure2[1]].extent) block *= 2;
    block = std::max(rows, block / rows * rows);
    // Blocks of rows as the tasks: at least one per core.
    const int64_t m_extent = u2.dims[pure2[1]].extent;
    while (batches < d.cores && block / 2 >= rows && (m_extent + block - 1) / block < d.cores) block = block / 2 / rows * rows;

    // The consumer: initial value vectorised; update in blocks of rows, each block
    // a loop over register tiles with the producer's block computed first. Under
    // a final copy, at root, the copy's rows vectorised in parallel tasks; read by
    // anything else (attention's heads transposed back, as a graph partition ends),
    // at root, its readers scheduled as usual.
    if (copy) {
        script.compute_root(c.consumer);
        schedule_pure_output(script, plan.stages.at(copy->func.name())[0], d);
        if (epilogue) *epilogue = copy->func.name();
    } else if (!consumer->is_output) {
        script.compute_root(c.consumer);
    }
    {
        schedule::StageBuilder s = script.stage(c.consumer);
        vector_split(s, n, u2.dims[pure2[0]].extent, d.vector_lanes, true);
        if (!batch.empty() && batches >= d.cores) s.parallel(batch.back());
    }
    const std::string m_blk = suffixed(m, "blk"), m_in = suffixed(m, "in");
    {
        std::vector<std::string> outside = {m_blk};
        outside.insert(outside.end(), batch.begin(), batch.end());
        gemm_micro_kernel(script, c.consumer, n, u2.dims[pure2[0]].extent, m_in, m, u2.dims[r2].name,
                          u2.dims[r2].extent, outside, d, [&](schedule::StageBuilder &s) {
                              s.split(m, m_blk, m_in, int(block), TailStrategy::GuardWithIf);
                          });
        script.stage(c.consumer, 0).parallel(batch.empty() || batches < d.cores ? m_blk : batch.back());
    }
    // The producer and the stages between, per block of rows.
    for (const std::string &f : c.between)
        script.compute_at(f, c.consumer, m_blk);
    script.compute_at(c.producer, c.consumer, m_blk);
    for (const std::string &f : c.between) {
        const std::vector<TensorExpr> &stages = plan.stages.at(f);
        if (stages.size() != 1) continue;  // a row statistic: its loops as written
        schedule::StageBuilder s = script.stage(f);
        vector_split(s, stages[0].dims[0].name, stages[0].dims[0].extent, d.vector_lanes, true);
    }
    const std::string &l = u1.dims[pure1[0]].name, &pm = u1.dims[pure1[1]].name;
    {
        schedule::StageBuilder s = script.stage(c.producer);
        vector_split(s, l, u1.dims[pure1[0]].extent, d.vector_lanes, true);
    }
    {
        std::vector<std::string> outside;
        for (size_t i = 2; i < pure1.size(); i++) outside.push_back(u1.dims[pure1[i]].name);
        const size_t r1 = u1.reduction_dims()[0];
        gemm_micro_kernel(script, c.producer, l, u1.dims[pure1[0]].extent, pm, pm, u1.dims[r1].name, u1.dims[r1].extent,
                          outside, d, [](schedule::StageBuilder &) {});
    }
    // An input the producer reads across its columns (k of q.k^T, stored with the
    // reduction innermost): copied once per batch with the columns innermost, so
    // the micro-kernel loads whole vectors instead of gathering.
    for (const analysis::AccessMap &r : u1.reads) {
        if (!r.is_input || r.coef.empty() || !r.depends_on(pure1[0]) || r.coef[0][pure1[0]] != 0) continue;
        auto wrapper = plan.input_wrappers.find(r.tensor);
        if (wrapper == plan.input_wrappers.end()) continue;
        const std::string packed = wrapper->second + "_columns";
        script.wrap(wrapper->second, c.producer + "_acc", packed);  // read in the accumulating intermediate
        script.compute_at(packed, c.consumer, batch.empty() ? m_blk : batch.front());
        const std::vector<Halide::Var> args = script.func(packed).args();
        int column_dim = -1;  // the storage dim the producer's columns index
        for (size_t s = 0; s < r.coef.size(); s++) {
            if (r.coef[s][pure1[0]] != 0) column_dim = int(s);
        }
        if (column_dim < 0 || size_t(column_dim) >= args.size()) continue;
        const std::vector<std::string> order = with_innermost(args, args[size_t(column_dim)].name());
        script.reorder_storage(packed, order);
        schedule::StageBuilder s = script.stage(packed);
        s.reorder(order);
        s.split(order[0], suffixed(order[0], "vo"), suffixed(order[0], "vi"), d.vector_lanes,
                TailStrategy::GuardWithIf);
        s.vectorize(suffixed(order[0], "vi"));
    }
    return true;
}

}  // namespace tessera::rules
