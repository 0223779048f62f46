#include "chain_schedules.h"

#include "loops.h"
#include "read_patterns.h"
#include "pure_outputs.h"

#include <algorithm>
#include <functional>
#include <iomanip>
#include <optional>
#include <sstream>

namespace tessera::rules {

using analysis::LoopDim;
using analysis::TensorExpr;
using Halide::TailStrategy;

namespace {

// Rows of a register tile, and its vectors, within the register file: R x V
// accumulators, V operand vectors and a broadcast.
void register_tile(const hal::DeviceSpec &d, int64_t vectors, int64_t &rows, int64_t &tile_vectors) {
    tile_vectors = std::min<int64_t>(vectors, d.vector_registers >= 32 ? 4 : 2);
    // Five or six vectors in one tile rather than four and a guarded remainder of
    // one or two: attention N=80 (G6) 3.03 -> 2.27 ms side by side (G9 within 4%).
    if (d.vector_registers >= 32 && vectors <= 6) tile_vectors = vectors;
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
    // The rows unrolled through a split of the register tile's height: a tile's rows
    // are `rows` or, in the last tile of a block whose rows Halide knows (a graph
    // partition's static shapes), fewer; a guarded split unrolls both.
    const std::string m_tile = suffixed(m_var, "t"), m_row = suffixed(m_var, "r");
    for (int stage = -1; stage < 1; stage++) {
        schedule::StageBuilder s = stage < 0 ? script.stage(acc) : script.stage(acc, 0);
        s.split(v, suffixed(v, "vo"), suffixed(v, "vi"), int(lanes), TailStrategy::GuardWithIf);
        s.vectorize(suffixed(v, "vi"));
        s.split(m_var, m_tile, m_row, int(rows), TailStrategy::GuardWithIf);
        if (stage == 0) s.reorder({suffixed(v, "vi"), suffixed(v, "vo"), m_row, ki, m_tile});
        s.unroll(suffixed(v, "vo"));
        s.unroll(m_row);
    }
}

// What the fused schedules need to know of a GEMM chain's two ops: the consumer
// u2 (dims n, its rows m, batch dims beyond; one reduction r2 over the producer's
// columns) and the producer u1 (columns l, rows pm, one reduction).
struct GemmChainShape {
    const TensorExpr *u1 = nullptr, *u2 = nullptr;
    size_t r2 = 0;
    std::vector<size_t> pure1, pure2;
    std::string n, m;
    std::vector<std::string> batch;  // the consumer's dims beyond the rows, innermost first
    int64_t batches = 1;
};

std::string gemm_chain_shape(const chain::OperatorChain &c, const analysis::StagePlan &plan, GemmChainShape &g) {
    g.u2 = &plan.stages.at(c.consumer)[1];
    g.u1 = &plan.stages.at(c.producer)[1];
    if (g.u2->reduction_dims().size() != 1 || g.u1->reduction_dims().size() != 1) {
        return "an op with more than one reduction loop (a convolution chain)";
    }
    g.r2 = g.u2->reduction_dims()[0];
    g.pure2 = g.u2->spatial_dims();
    g.pure1 = g.u1->spatial_dims();
    if (g.pure2.size() < 2 || g.pure1.size() < 2 || !c.loops[g.r2].in_producer) {
        return "the consumer does not reduce over the producer's output columns";
    }
    // Rows: the consumer's dim 1, which the producer has as its own dim 1.
    g.n = g.u2->dims[g.pure2[0]].name;
    g.m = g.u2->dims[g.pure2[1]].name;
    if (!c.loops[g.pure2[1]].in_producer || g.u1->dims[g.pure1[1]].extent != g.u2->dims[g.pure2[1]].extent) {
        return "the consumer's rows are not the producer's";
    }
    for (size_t i = 2; i < g.pure2.size(); i++) {
        g.batch.push_back(g.u2->dims[g.pure2[i]].name);
        g.batches *= g.u2->dims[g.pure2[i]].extent;
    }
    return "";
}

// Bytes per row of a block of the producer's rows: the producer's and each
// full-size stage between materialised.
int64_t materialised_row_bytes(const chain::OperatorChain &c, const analysis::StagePlan &plan,
                               const GemmChainShape &g) {
    int64_t materialised = 1;
    for (const std::string &f : c.between) {
        const std::vector<TensorExpr> &stages = plan.stages.at(f);
        if (stages.size() == 1 && stages[0].dims.size() == g.pure1.size()) materialised++;
    }
    return g.u1->dims[g.pure1[0]].extent * g.u1->element_bytes * materialised;
}

// The producer, the stages between and `also` (other readers of the stages
// between) computed at `at` (a loop of `at_func`), the producer with its
// micro-kernel; an input the producer reads across its columns copied at
// `copy_at` (a loop of `at_func`; empty: at root).
void schedule_producer_block(schedule::ScheduleBuilder &script, const chain::OperatorChain &c,
                             const analysis::StagePlan &plan, const GemmChainShape &g, const std::string &at_func,
                             const std::string &at, const std::vector<std::string> &also, const std::string &copy_at,
                             const hal::DeviceSpec &d) {
    for (const std::string &f : c.between)
        script.compute_at(f, at_func, at);
    for (const std::string &f : also)
        script.compute_at(f, at_func, at);
    script.compute_at(c.producer, at_func, at);
    for (const std::string &f : c.between) {
        const std::vector<TensorExpr> &stages = plan.stages.at(f);
        if (stages.size() != 1) continue;  // a row statistic: its loops as written
        schedule::StageBuilder s = script.stage(f);
        vector_split(s, stages[0].dims[0].name, stages[0].dims[0].extent, d.vector_lanes, true);
    }
    const TensorExpr &u1 = *g.u1;
    const std::string &l = u1.dims[g.pure1[0]].name, &pm = u1.dims[g.pure1[1]].name;
    {
        schedule::StageBuilder s = script.stage(c.producer);
        vector_split(s, l, u1.dims[g.pure1[0]].extent, d.vector_lanes, true);
    }
    {
        std::vector<std::string> outside;
        for (size_t i = 2; i < g.pure1.size(); i++) outside.push_back(u1.dims[g.pure1[i]].name);
        const size_t r1 = u1.reduction_dims()[0];
        gemm_micro_kernel(script, c.producer, l, u1.dims[g.pure1[0]].extent, pm, pm, u1.dims[r1].name,
                          u1.dims[r1].extent, outside, d, [](schedule::StageBuilder &) {});
    }
    // An input the producer reads across its columns (k of q.k^T, stored with the
    // reduction innermost): copied once per batch with the columns innermost, so
    // the micro-kernel loads whole vectors instead of gathering.
    for (const analysis::AccessMap &r : u1.reads) {
        if (!r.is_input || r.coef.empty() || !r.depends_on(g.pure1[0]) || r.coef[0][g.pure1[0]] != 0) continue;
        auto wrapper = plan.input_wrappers.find(r.tensor);
        if (wrapper == plan.input_wrappers.end()) continue;
        const std::string packed = wrapper->second + "_columns";
        script.wrap(wrapper->second, c.producer + "_acc", packed);  // read in the accumulating intermediate
        if (copy_at.empty()) {
            script.compute_root(packed);
        } else {
            script.compute_at(packed, at_func, copy_at);
        }
        const std::vector<Halide::Var> args = script.func(packed).args();
        int column_dim = -1;  // the storage dim the producer's columns index
        for (size_t s = 0; s < r.coef.size(); s++) {
            if (r.coef[s][g.pure1[0]] != 0) column_dim = int(s);
        }
        if (column_dim < 0 || size_t(column_dim) >= args.size()) continue;
        const std::vector<std::string> order = with_innermost(args, args[size_t(column_dim)].name());
        script.reorder_storage(packed, order);
        // A vector of columns outside the dims it is stored across: its gathers
        // read a vector's rows of the input, in L1 (the other way round, each
        // gather touched a new line: the copy of L = 32768 keys took 23% of the
        // online attention's time). At root, the vectors of columns in parallel.
        const std::string vo = suffixed(order[0], "vo"), vi = suffixed(order[0], "vi");
        std::vector<std::string> loops = {vi};
        loops.insert(loops.end(), order.begin() + 1, order.end() - 1);
        loops.push_back(vo);
        loops.push_back(order.back());
        schedule::StageBuilder s = script.stage(packed);
        s.split(order[0], vo, vi, d.vector_lanes, TailStrategy::GuardWithIf);
        s.vectorize(vi);
        s.reorder(loops);
        if (copy_at.empty()) s.parallel(vo);
    }
}

// A pure output reading `f` at the point it writes (an op's final copy), seen
// through the pure Funcs the plan inlines (a graph partition's output reads the
// op's pure output, inlined, which reads it); null if f has other readers.
const analysis::FunctionNode *final_copy(const analysis::FunctionNode &f, const analysis::FunctionDag &dag,
                                         const analysis::StagePlan &plan) {
    if (f.is_output || f.consumers.size() != 1) return nullptr;
    const analysis::FunctionNode *e = dag.find(f.consumers[0]);
    while (e && plan.inlined.count(e->func.name()) && e->consumers.size() == 1) e = dag.find(e->consumers[0]);
    if (e && e->is_output && e->func.updates().empty() &&
        analysis::epilogue_producer(plan.stages.at(e->func.name())[0], dag, plan) == &f) {
        return e;
    }
    return nullptr;
}

// `f` at root unless it is an output; its final copy (if any) scheduled as an
// output and added to `also`.
void at_root_with_final_copy(schedule::ScheduleBuilder &script, const analysis::FunctionNode &f,
                             const analysis::FunctionDag &dag, const analysis::StagePlan &plan,
                             const hal::DeviceSpec &d, std::vector<std::string> *also) {
    if (!f.is_output) script.compute_root(f.func.name());
    if (const analysis::FunctionNode *copy = final_copy(f, dag, plan)) {
        schedule_pure_output(script, plan.stages.at(copy->func.name())[0], d);
        if (also) also->push_back(copy->func.name());
    }
}

// The online-softmax form's running combine: the consumer's one reader, a
// reduction whose one reduction loop reads the consumer along one of its batch
// dims (an attention's key blocks) at the point its pure dims write.
struct StreamingCombine {
    const analysis::FunctionNode *node = nullptr;
    std::string rvar;                   // its loop over the consumer's blocks
    std::vector<std::string> pure;      // its pure dims, Halide order
    std::vector<std::string> siblings;  // other Funcs it reads (a block's sum)
};

std::optional<StreamingCombine> streaming_combine(const chain::OperatorChain &c, const analysis::FunctionNode &consumer,
                                                  const analysis::FunctionDag &dag, const analysis::StagePlan &plan,
                                                  const GemmChainShape &g) {
    if (consumer.is_output || consumer.consumers.size() != 1 || g.batch.empty()) return std::nullopt;
    const analysis::FunctionNode *r = dag.find(consumer.consumers[0]);
    if (!r || plan.inlined.count(r->func.name())) return std::nullopt;
    const std::vector<TensorExpr> &stages = plan.stages.at(r->func.name());
    if (stages.size() != 2 || stages[1].reduction_dims().size() != 1) return std::nullopt;
    const TensorExpr &u = stages[1];
    const size_t rj = u.reduction_dims()[0];
    StreamingCombine out;
    out.node = r;
    out.rvar = u.dims[rj].name;
    for (size_t i : u.spatial_dims()) out.pure.push_back(u.dims[i].name);
    bool streams = false;
    for (const analysis::AccessMap &a : u.reads) {
        if (a.is_input) continue;
        if (a.tensor != c.consumer) {
            const bool chain_stage = a.tensor == c.producer ||
                                     std::find(c.between.begin(), c.between.end(), a.tensor) != c.between.end();
            if (!chain_stage && std::find(out.siblings.begin(), out.siblings.end(), a.tensor) == out.siblings.end()) {
                out.siblings.push_back(a.tensor);
            }
            continue;
        }
        // The reduction loop indexes exactly one of the consumer's batch dims, with coefficient 1.
        for (size_t s = 0; s < a.coef.size(); s++) {
            if (a.coef[s][rj] == 0) continue;
            if (a.coef[s][rj] != 1 || s < 2 || s >= g.pure2.size()) return std::nullopt;
            streams = true;
        }
    }
    // A sibling must read only the chain's stages (it then fits in the block).
    for (const std::string &f : out.siblings) {
        for (const TensorExpr &t : plan.stages.at(f)) {
            for (const analysis::AccessMap &a : t.reads) {
                if (a.is_input || a.tensor == f) continue;
                if (std::find(c.between.begin(), c.between.end(), a.tensor) == c.between.end()) return std::nullopt;
            }
        }
    }
    if (!streams) return std::nullopt;
    return out;
}

// A block's row statistic (a max or sum over the key block, read along the
// block's contiguous dim 0), in vectors: its reduction split by the lanes and
// factored into an intermediate over the lanes computed per row, whose partial
// results the row's last step reduces. Loops as written run it a point at a time
// (a block of 64 keys: max and sum 11% of the online attention's time).
void vectorised_row_statistic(schedule::ScheduleBuilder &script, const std::string &f,
                              const analysis::StagePlan &plan, const hal::DeviceSpec &d) {
    const std::vector<TensorExpr> &stages = plan.stages.at(f);
    if (stages.size() != 2 || stages[1].reduction_dims().size() != 1 || stages[1].spatial_dims().empty()) return;
    const TensorExpr &u = stages[1];
    const size_t rd = u.reduction_dims()[0];
    for (const analysis::AccessMap &a : u.reads) {
        if (a.tensor == f) continue;
        if (a.coef.empty() || a.coef[0][rd] != 1) return;  // not along the reduced data's dim 0
    }
    const LoopDim &r = u.dims[rd];
    if (r.extent % d.vector_lanes != 0 || r.extent == d.vector_lanes) return;
    const std::string ro = suffixed(r.name, "o"), ri = suffixed(r.name, "i"), lanes = f + "_lanes";
    script.stage(f, 0).split(r.name, ro, ri, d.vector_lanes);
    script.rfactor(f, 0, ri, "u", lanes);
    script.compute_at(lanes, f, u.dims[u.spatial_dims()[0]].name);
    script.stage(lanes).vectorize("u");
    schedule::StageBuilder s = script.stage(lanes, 0);
    s.reorder({"u", ro});
    s.vectorize("u");
}

// Rows per block: as many, in whole register tiles of rows, as keep `row_bytes`
// per row plus `fixed_bytes` within half of the outermost private cache, and at
// least one task per core with `batches` of them side by side.
int64_t block_rows(const hal::DeviceSpec &d, const GemmChainShape &g, int64_t row_bytes, int64_t fixed_bytes,
                   int64_t batches) {
    const int64_t budget = d.tile_layer(2).capacity_bytes / 2 - fixed_bytes;
    int64_t rows = 1, tile_vectors = 1;
    register_tile(d, (g.u2->dims[g.pure2[0]].extent + d.vector_lanes - 1) / d.vector_lanes, rows, tile_vectors);
    const int64_t m_extent = g.u2->dims[g.pure2[1]].extent;
    int64_t block = rows;
    while ((block * 2) * row_bytes <= budget && block * 2 <= m_extent) block *= 2;
    block = std::max(rows, block / rows * rows);
    while (batches < d.cores && block / 2 >= rows && (m_extent + block - 1) / block < d.cores) {
        block = block / 2 / rows * rows;
    }
    return block;
}

// Elements of the chain's inputs that one block of the consumer's reduction
// (loop `r`) reads across every other consumer loop but its rows (`n`: the output
// columns, whole): an attention's keys and values of one key block.
int64_t key_block_elements(const chain::OperatorChain &c, size_t r, size_t n) {
    std::vector<int64_t> tile(c.loops.size(), 1);
    for (size_t i = 0; i < c.loops.size(); i++) {
        if (i == r || i == n || !c.loops[i].in_consumer || c.loops[i].reduction) tile[i] = c.loops[i].extent;
    }
    int64_t elements = 0;
    for (const chain::ChainTensor &t : c.tensors) {
        if (!t.written && t.access.depends_on(r)) elements += t.access.tile_elements(tile);
    }
    return elements;
}

// The online-softmax form: the consumer and the chain's stages per block of rows
// and one of its blocks along `sc`'s loop, inside that loop of the running
// combine's update (rows in blocks outside it), so the keys stream through the
// block: its intermediate is the block's rows of one key block.
void schedule_streamed_chain(schedule::ScheduleBuilder &script, const chain::OperatorChain &c,
                             const analysis::StagePlan &plan, const GemmChainShape &g, const StreamingCombine &sc,
                             const hal::DeviceSpec &d) {
    const std::string r = sc.node->func.name();
    const TensorExpr &u2 = *g.u2;
    const int64_t ne = u2.dims[g.pure2[0]].extent, le = u2.dims[g.r2].extent;
    // A block row holds the materialised stages' key block and four rows of the
    // output's columns (the combine's max, sum and output, the consumer's sums);
    // the key block's keys and values stay beside them. The tasks: blocks of rows
    // side by side with the outermost batch dim (the key blocks run in order).
    const int64_t elem = u2.element_bytes;
    const std::vector<std::string> &pure = sc.pure;  // n, m, batch dims
    const int64_t outer_batch = pure.size() > 2 ? g.u2->dims[g.pure2.back()].extent : 1;
    const int64_t block = block_rows(d, g, materialised_row_bytes(c, plan, g) + 4 * ne * elem,
                                     key_block_elements(c, g.r2, g.pure2[0]) * elem, outer_batch);
    const std::string m_blk = suffixed(g.m, "blk"), m_in = suffixed(g.m, "in");
    {
        schedule::StageBuilder s = script.stage(r);
        vector_split(s, pure[0], ne, d.vector_lanes, true);
    }
    std::string task = m_blk;
    {
        schedule::StageBuilder s = script.stage(r, 0);
        s.split(g.m, m_blk, m_in, int(block), TailStrategy::GuardWithIf);
        std::vector<std::string> order = {pure[0]};
        if (vector_split(s, pure[0], ne, d.vector_lanes, false)) order = {suffixed(pure[0], "vi"), suffixed(pure[0], "vo")};
        order.insert(order.end(), {m_in, sc.rvar, m_blk});
        order.insert(order.end(), pure.begin() + 2, pure.end());
        s.reorder(order);
        // The outermost batch dim as the tasks when it gives every core one.
        if (outer_batch >= d.cores) task = pure.back();
        s.parallel(task);
    }
    script.compute_at(c.consumer, r, sc.rvar);
    {
        schedule::StageBuilder s = script.stage(c.consumer);
        vector_split(s, g.n, ne, d.vector_lanes, true);
    }
    gemm_micro_kernel(script, c.consumer, g.n, ne, g.m, g.m, u2.dims[g.r2].name, le, g.batch, d,
                      [](schedule::StageBuilder &) {});
    schedule_producer_block(script, c, plan, g, r, sc.rvar, sc.siblings, task == m_blk ? "" : task, d);
    for (const std::string &f : c.between) vectorised_row_statistic(script, f, plan, d);
    for (const std::string &f : sc.siblings) vectorised_row_statistic(script, f, plan, d);
}

}  // namespace

bool schedule_fused_gemm_chain(schedule::ScheduleBuilder &script, const chain::OperatorChain &c,
                               const analysis::FunctionDag &dag, const analysis::StagePlan &plan,
                               const hal::DeviceSpec &d, std::string *why_not, std::vector<std::string> *also,
                               std::string *form) {
    auto refuse = [&](const std::string &why) {
        if (why_not) *why_not = why;
        return false;
    };
    const analysis::FunctionNode *consumer = dag.find(c.consumer);
    if (!consumer) return refuse("the consumer is not a stage of the pipeline");
    // Without a row statistic between, the ops one by one keep their own rTile
    // programs, which this schedule's micro-kernels do not match: gemm_chain fused
    // ran at 0.54x its ops one by one (G2 7.78 vs 4.23 ms, G12 2.21 vs 1.18 ms),
    // while an attention gains from keeping its scores' rows on chip (1.08-1.36x).
    if (!c.row_statistic_between) {
        return refuse("no softmax between: the ops' own programs beat this fused schedule's micro-kernels");
    }
    GemmChainShape g;
    const std::string shape_problem = gemm_chain_shape(c, plan, g);
    if (!shape_problem.empty()) return refuse(shape_problem);

    if (std::optional<StreamingCombine> sc = streaming_combine(c, *consumer, dag, plan, g)) {
        at_root_with_final_copy(script, *sc->node, dag, plan, d, also);
        schedule_streamed_chain(script, c, plan, g, *sc, d);
        if (also) {
            also->push_back(sc->node->func.name());
            also->insert(also->end(), sc->siblings.begin(), sc->siblings.end());
        }
        if (form) {
            *form = "online softmax: " + c.producer + ", the stages between and " + c.consumer +
                    " computed per block of rows and one block along " + sc->node->func.name() + "'s loop " +
                    sc->rvar + " (the blocks streamed through the row block)";
        }
        return true;
    }

    const TensorExpr &u2 = *g.u2;
    // Rows per block: every row of the block holds the producer's whole row (the
    // consumer's reduction is not blocked: a softmax between needs its rows whole;
    // the online-softmax form, above, streams it instead), so the block is as many
    // rows as keep the block's materialised stages within half of the outermost
    // private cache. (The analysis's blocks along the rows assume the reduction
    // blocked too: on G1 they put all 512 rows in a block.) The tasks: the
    // outermost batch dim when the batches give every core one, else the blocks of
    // rows (a batch of 1 ran on one core: G10-G12 2x slower fused than one by one).
    const int64_t block = block_rows(d, g, materialised_row_bytes(c, plan, g), 0, g.batches);

    // The consumer: initial value vectorised; update in blocks of rows, each block
    // a loop over register tiles with the producer's block computed first. Under
    // a final copy, at root, the copy's rows vectorised in parallel tasks; read by
    // anything else (attention's heads transposed back, as a graph partition ends),
    // at root, its readers scheduled as usual.
    at_root_with_final_copy(script, *consumer, dag, plan, d, also);
    const bool batch_tasks = !g.batch.empty() && g.batches >= d.cores;
    {
        schedule::StageBuilder s = script.stage(c.consumer);
        vector_split(s, g.n, u2.dims[g.pure2[0]].extent, d.vector_lanes, true);
        if (batch_tasks) s.parallel(g.batch.back());
    }
    const std::string m_blk = suffixed(g.m, "blk"), m_in = suffixed(g.m, "in");
    {
        std::vector<std::string> outside = {m_blk};
        outside.insert(outside.end(), g.batch.begin(), g.batch.end());
        gemm_micro_kernel(script, c.consumer, g.n, u2.dims[g.pure2[0]].extent, m_in, g.m, u2.dims[g.r2].name,
                          u2.dims[g.r2].extent, outside, d, [&](schedule::StageBuilder &s) {
                              s.split(g.m, m_blk, m_in, int(block), TailStrategy::GuardWithIf);
                          });
        script.stage(c.consumer, 0).parallel(batch_tasks ? g.batch.back() : m_blk);
    }
    // The producer and the stages between, per block of rows.
    schedule_producer_block(script, c, plan, g, c.consumer, m_blk, {}, g.batch.empty() ? m_blk : g.batch.front(), d);
    if (form) *form = c.producer + " and the stages between computed per block of " + c.consumer + "'s rows";
    return true;
}

bool convolution_chain(const chain::OperatorChain &c, const analysis::StagePlan &plan) {
    return plan.stages.at(c.producer)[1].reduction_dims().size() > 1 ||
           plan.stages.at(c.consumer)[1].reduction_dims().size() > 1;
}

bool fuse_by_bands(const chain::OperatorChain &c, const analysis::StagePlan &plan, const hal::DeviceSpec &d,
                   std::string *why_not) {
    auto refuse = [&](const std::string &why) {
        if (why_not) *why_not = why;
        return false;
    };
    if (c.row_statistic_between) return refuse("a row statistic between: its rows cannot be cut into bands");
    if (!convolution_chain(c, plan)) return refuse("a GEMM chain: the ops' own programs beat fused micro-kernels");
    const TensorExpr &u1 = plan.stages.at(c.producer)[1];
    int64_t points = 1;
    for (size_t j : u1.spatial_dims()) points *= u1.dims[j].extent;
    const double bytes = double(points) * double(u1.element_bytes);
    const double l2s = double(d.tile_layer(2).capacity_bytes) * d.cores;
    if (bytes <= l2s) {
        std::ostringstream why;
        why << "the intermediate (" << std::fixed << std::setprecision(2) << bytes / 1048576
            << " MiB) fits the cores' L2 caches (" << l2s / 1048576 << " MiB) one by one";
        return refuse(why.str());
    }
    return true;
}

}  // namespace tessera::rules
