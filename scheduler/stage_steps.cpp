#include "stage_steps.h"

#include "attached_region.h"
#include "diagnostics.h"
#include "explanation.h"
#include "loops.h"
#include "pure_outputs.h"
#include "reductions.h"
#include "safe_schedule.h"

#include <algorithm>
#include <iomanip>
#include <map>
#include <optional>

namespace tessera {

using namespace Halide;
using analysis::FunctionNode;
using analysis::StageClass;
using analysis::TensorExpr;

namespace {

// A padded input computed this many times over by per-tile placement goes to root
// (see schedule_compute_stage). Side by side, root against per tile (NCHW rows pad
// with scalar tails, NHWC rows are whole vectors): NCHW 3x3 7x7x512 (16x over) 5.2
// -> 2.9 ms, NCHW 14x14x256 (4x) 2.0-2.4 -> 1.7-1.9 ms; NHWC 7x7x512 (9x) and
// 14x14x256 (10x) neutral; at 56x56 (2-3x) root was 5-12% slower.
constexpr double kRecomputedAtRoot = 4;

// Programs a fused chain's consumer chooses among (see band_of_rows).
constexpr int kChainCandidates = 8;

// Whether program `p`'s L2 tiles of `t` are bands of whole rows: every pure dim
// whole but one, not the innermost (the rows). A chain's producer computed per
// such tile computes each of its points once (plus a window's halo); per strip
// of a row it computed whole rows each time (conv chain C3 2.8 -> 9.3 ms).
bool band_of_rows(const TensorExpr &t, const rtile::RProgram &p) {
    if (p.fusion) return false;
    const std::vector<int64_t> &l2 = p.tiles[rtile::kL2Tile].shape;
    int partial = 0;
    for (size_t j : t.spatial_dims()) {
        if (l2[j] >= t.dims[j].extent) continue;
        // Not the innermost dim, and every band whole (the producer's programs are
        // built for one band: a shorter last band would read before its start).
        if (j == t.spatial_dims().front() || (t.dims[j].extent % l2[j] != 0 && !p.shifts(j))) return false;
        partial++;
    }
    return partial == 1;
}

// The compute stage `producer` is the pure epilogue of, when neither is scheduled yet
// and `producer` covers exactly its points (a boundary condition around the sums, a
// padded read by the next convolution, would compute them outside their domain).
const FunctionNode *unscheduled_epilogue_producer(const SchedulingContext &c, const FunctionNode &producer) {
    const std::string &name = producer.func.name();
    const std::vector<TensorExpr> &stages = c.plan.stages.at(name);
    if (c.handled.count(name) || stages.size() != 1 || producer.consumers.size() != 1) return nullptr;
    const FunctionNode *inner = analysis::epilogue_producer(stages[0], c.dag, c.plan);
    if (!inner || c.handled.count(inner->func.name())) return nullptr;
    const TensorExpr &sums = *analysis::compute_stage(c.plan.stages.at(inner->func.name()));
    const std::vector<size_t> spatial = sums.spatial_dims();
    if (spatial.size() != stages[0].dims.size()) return nullptr;
    for (size_t i = 0; i < spatial.size(); i++) {
        if (sums.dims[spatial[i]].extent != stages[0].dims[i].extent) return nullptr;
    }
    return inner;
}

}  // namespace

rules::Attachment shared_row_of(SchedulingContext &c, const FunctionNode &node) {
    rules::Attachment at;
    bool attached = false;
    for (const std::string &reader : analysis::readers_of(node, c.dag, c.plan)) {
        auto r = c.row_of.find(reader);
        if (r == c.row_of.end()) continue;
        if (!attached) {
            at = r->second;
            attached = true;
        } else if (r->second.consumer != at.consumer || r->second.var != at.var) {
            return rules::Attachment{};
        }
    }
    return at;
}

namespace {

// `t` with its pure dims capped at `band` (per pure dim, Halide order).
TensorExpr within_band(TensorExpr t, const std::vector<int64_t> &band) {
    const std::vector<size_t> pure = t.spatial_dims();
    for (size_t i = 0; i < pure.size() && i < band.size(); i++) {
        t.dims[pure[i]].extent = std::min(t.dims[pure[i]].extent, band[i]);
    }
    return t;
}

// The pure Functions `name` reads that the plan does not inline. A reduction
// (the first GEMM of a chain scheduled one by one) is left out: a compute stage
// of its own, at root with its own rProgram (its step), never recomputed per
// chunk with its update left serial.
std::vector<const FunctionNode *> pure_producers(const SchedulingContext &c, const std::string &name) {
    std::vector<const FunctionNode *> out;
    for (const FunctionNode &producer : c.dag.nodes()) {
        const bool consumed =
            std::find(producer.consumers.begin(), producer.consumers.end(), name) != producer.consumers.end();
        if (consumed && !c.plan.inlined.count(producer.func.name()) && !producer.func.has_update_definition()) {
            out.push_back(&producer);
        }
    }
    return out;
}

}  // namespace

void record_decision(SchedulingContext &c, const std::string &func, StageRole role) {
    StageDecision d;
    d.func = func;
    d.role = role;
    c.decisions.stages.push_back(d);
}

namespace {

// Where a pure producer a compute stage reads is computed.
enum class ProducerPlacement {
    RootWithItsComputeStage,  // another compute stage's pure epilogue: at root, that stage per tile of it
    RootOnce,                 // per L2 tile it would be computed kRecomputedAtRoot times over or more
    RootForOtherReaders,      // read outside this stage too (its unfused epilogue): once, at root
    RootInRows,               // normalised by a reduction over its rows (a softmax): at root, row by row
    PerTile,                  // per chunk of each L2 tile, in cache when read (a tile operand)
    PerBand,                  // a fused convolution chain's: per band of the consumer's L2 tiles
};

struct ProducerDecision {
    const FunctionNode *producer = nullptr;
    ProducerPlacement placement = ProducerPlacement::PerTile;
    const FunctionNode *inner = nullptr;  // RootWithItsComputeStage, PerBand: the compute stage under it
    double recompute = 0;                 // RootOnce: how many times over per tile
    int nested = -1;                      // RootWithItsComputeStage, PerBand: its plan in ComputeStagePlan::nested
};

// What a compute stage is to be, decided whole before any step is written: the
// program (StageDecision), where each producer goes, whether the epilogue is
// computed per tile of the stage, and the plans of the compute stages under its
// producers (an epilogue's own stage at root, a fused chain's producer per band).
struct ComputeStagePlan {
    const FunctionNode *node = nullptr;
    std::vector<TensorExpr> stages;  // the Func's stages (within the band)
    std::optional<TensorExpr> epilogue;
    bool chain_consumer = false;
    rtile::TilingContext tiling;
    StageDecision decision;
    std::vector<ProducerDecision> producers;
    std::vector<ComputeStagePlan> nested;
    bool fuse = false;    // the stage computed per tile of its epilogue
    bool serial = false;  // computed inside another stage's parallel tiles: its own loops serial
};

// The rProgram index to apply to stage `name`: its entry in stage_candidates, else
// the candidate option.
int candidate_for(const SchedulerOptions &o, const std::string &name) {
    auto it = o.stage_candidates.find(name.substr(0, name.find('$')));
    return it != o.stage_candidates.end() ? it->second : o.candidate;
}

// `band` (per pure dim, Halide order; empty: the whole stage): the stage is
// computed per band of that shape (a fused chain's producer under its
// consumer's tiles), its programs built for one band. `weight`: its share of
// the pipeline's predicted time (StageDecision::prediction_weight).
ComputeStagePlan decide_compute_stage(const SchedulingContext &c, const FunctionNode &node, const TensorExpr &whole,
                                      const TensorExpr *whole_epilogue, const std::vector<int64_t> &band, double weight,
                                      bool serial) {
    const std::string &name = node.func.name();
    ComputeStagePlan plan;
    plan.node = &node;
    plan.serial = serial;
    plan.stages = c.plan.stages.at(name);
    if (!band.empty()) {
        for (TensorExpr &t : plan.stages) t = within_band(t, band);
        if (whole_epilogue) plan.epilogue = within_band(*whole_epilogue, band);
    } else if (whole_epilogue) {
        plan.epilogue = *whole_epilogue;
    }
    const TensorExpr compute = band.empty() ? whole : *analysis::compute_stage(plan.stages);
    // An input with a wrapper to pack, called by this stage itself: one read through a
    // Func inlined into the analysis but not into Halide's (a concatenation under a
    // pool, SqueezeNet's in NCHW16c) has no call here to wrap.
    const std::map<std::string, Halide::Internal::Function> callees =
        Halide::Internal::find_direct_calls(node.func);
    std::vector<bool> packable;
    for (const analysis::AccessMap &m : compute.reads) {
        auto wrapper = m.is_input ? c.plan.input_wrappers.find(m.tensor) : c.plan.input_wrappers.end();
        packable.push_back(wrapper != c.plan.input_wrappers.end() && callees.count(wrapper->second));
    }
    plan.tiling = rtile::TilingContext{c.plan.evaluable_anywhere.at(name).at(size_t(compute.stage)), {}};
    plan.chain_consumer = c.fused_chain_consumers.count(name) > 0;
    const int candidate = candidate_for(c.options, name);
    rtile::ConstructionResult built = rtile::construct_programs(
        compute, c.device, std::max({plan.chain_consumer ? kChainCandidates : 2, c.options.top_k, candidate + 1}),
        packable, plan.epilogue.has_value(), plan.tiling);
    size_t pick = std::min(size_t(candidate), built.programs.size() - 1);
    // A fused chain's consumer takes the best program whose L2 tiles are bands
    // of whole rows (see band_of_rows); without one the chain runs one by one.
    // The producer's pure epilogue the bands compute (none across a boundary
    // condition) and the compute stage under it.
    const std::vector<const FunctionNode *> producers = pure_producers(c, name);
    const FunctionNode *band_epilogue = nullptr, *band_inner = nullptr;
    for (const FunctionNode *producer : producers) {
        const FunctionNode *inner = plan.chain_consumer ? unscheduled_epilogue_producer(c, *producer) : nullptr;
        if (inner) band_epilogue = producer, band_inner = inner;
    }
    int banded = -1;
    if (band_epilogue) {
        for (size_t i = 0; i < built.programs.size() && banded < 0; i++) {
            if (band_of_rows(compute, built.programs[i])) banded = int(i);
        }
        if (banded >= 0) pick = size_t(banded);
    }
    StageDecision &decision = plan.decision;
    decision.func = name;
    decision.role = plan.epilogue ? StageRole::EpilogueOutput : StageRole::Compute;
    decision.epilogue = plan.epilogue ? plan.epilogue->func : "";
    decision.candidates = built.programs;
    decision.chosen = int(pick);
    decision.choice = banded >= 0 ? ProgramChoice::BandsOfWholeRows
                      : pick == 0 ? ProgramChoice::BestPredicted
                                  : ProgramChoice::CandidateOption;
    decision.chain_member = !band.empty();
    decision.prediction_weight = weight;
    decision.compute = compute;
    const rtile::RProgram &best = built.programs[pick];
    const TensorExpr best_expr = rtile::program_expr(compute, best);  // its tiles' dims
    // With a single L2 tile there is nothing to fuse into: the stage goes to
    // root and the epilogue gets plain rows (but a band is computed per band).
    plan.fuse = plan.epilogue && (best.parallel_tasks > 1 || !band.empty());
    for (const FunctionNode *producer : producers) {
        ProducerDecision p;
        p.producer = producer;
        if (banded >= 0 && producer == band_epilogue) {
            // The band: the epilogue's points one L2 tile of this stage reads. The
            // producer's programs are built for one band; its prediction is one
            // band's, every band spread over the cores.
            p.placement = ProducerPlacement::PerBand;
            p.inner = band_inner;
            std::vector<int64_t> region;
            for (const analysis::AccessMap &m : best_expr.reads) {
                if (m.tensor != producer->func.name()) continue;
                for (size_t d = 0; d < m.coef.size(); d++) region.push_back(m.tile_extent(d, best.tiles[rtile::kL2Tile].shape));
            }
            const double bands_per_core = double(best.parallel_tasks) / c.device.cores;
            p.nested = int(plan.nested.size());
            plan.nested.push_back(decide_compute_stage(
                c, *band_inner, *analysis::compute_stage(c.plan.stages.at(band_inner->func.name())),
                &c.plan.stages.at(producer->func.name())[0], region, weight * bands_per_core, true));
        } else if (const FunctionNode *inner = unscheduled_epilogue_producer(c, *producer)) {
            // The pure epilogue of another compute stage (a chain's first convolution's
            // bias and relu, read by the second): at root, that stage computed per L2
            // tile of it as when the epilogue is an output (its sums into a tile in
            // cache, not written by scatter across the whole intermediate: conv chain
            // C4 4.72 -> 2.97 ms, C5 0.72 -> 0.57).
            p.placement = ProducerPlacement::RootWithItsComputeStage;
            p.inner = inner;
            p.nested = int(plan.nested.size());
            plan.nested.push_back(decide_compute_stage(c, *inner,
                                                       *analysis::compute_stage(c.plan.stages.at(inner->func.name())),
                                                       &c.plan.stages.at(producer->func.name())[0], {}, weight, serial));
        } else {
            // A non-inlined pure producer (a padded input): computed per chunk of
            // each L2 tile, in cache when read, unless the tasks would compute it
            // kRecomputedAtRoot times over or more (tiles splitting only the output
            // channels each pad the whole input); then once, at root, in parallel.
            for (const analysis::AccessMap &m : best_expr.reads) {
                if (m.tensor == producer->func.name())
                    p.recompute = std::max(p.recompute, rtile::per_tile_recompute_factor(best_expr, best, m));
            }
            p.placement = p.recompute >= kRecomputedAtRoot ? ProducerPlacement::RootOnce : ProducerPlacement::PerTile;
            // Divided by a sum over its rows (attention's probabilities): per tile
            // its reductions and the stages under them could only run at root, one
            // pass each over the whole tensor; computed at root row by row, as a
            // softmax op is, each row's max, exponentials and sum stay in L1. Side
            // by side on a Zen 3 core, attention B=8 M=L=512 N=K=64: 9.0 -> 8.0 ms.
            if (p.placement == ProducerPlacement::PerTile &&
                analysis::reads_reduction_across_rows(c.plan.stages.at(producer->func.name())[0], c.dag, c.plan)) {
                p.placement = ProducerPlacement::RootInRows;
            }
            // Unfused, the stage is computed at root before its epilogue: a producer
            // the epilogue (or any other stage) reads as well cannot live inside its
            // loops (a CumSum's mask also multiplied by its running count).
            if (p.placement == ProducerPlacement::PerTile && !plan.fuse && producer->consumers.size() > 1) {
                p.placement = ProducerPlacement::RootForOtherReaders;
            }
        }
        plan.producers.push_back(p);
    }
    // A shifted program has two or more L2 tiles along a shifted dim.
    internal_assert(plan.fuse || best.shifted.empty()) << "shifted program for " << name << " not fused\n";
    return plan;
}

// Writes the steps of a decided compute stage, and of the stages under it, each
// where its producer's placement puts it; returns the loop its consumers'
// producers attach to.
rules::Attachment lower_compute_stage(SchedulingContext &c, const ComputeStagePlan &plan) {
    const FunctionNode &node = *plan.node;
    const std::string &name = node.func.name();
    StageDecision decision = plan.decision;  // lowering adds the epilogue's tiles
    const TensorExpr &compute = decision.compute;
    const rtile::RProgram &best = *decision.chosen_program();
    const TensorExpr *epilogue = plan.epilogue ? &*plan.epilogue : nullptr;
    const bool was_serial = c.builder.serial();
    c.builder.set_serial(plan.serial);
    c.predicted_ms += best.predicted_ms * decision.prediction_weight;
    c.predicted_stages++;
    std::vector<rules::TileOperand> packs;
    std::ostringstream root_notes;
    const ProducerDecision *per_band = nullptr;
    for (const ProducerDecision &p : plan.producers) {
        const std::string &pname = p.producer->func.name();
        switch (p.placement) {
        case ProducerPlacement::PerBand: per_band = &p; break;
        case ProducerPlacement::RootWithItsComputeStage:
            c.builder.compute_root(pname);
            c.row_of[pname] = lower_compute_stage(c, plan.nested[size_t(p.nested)]);
            c.handled.insert(pname);
            break;
        case ProducerPlacement::RootOnce:
        case ProducerPlacement::RootForOtherReaders:
            c.builder.compute_root(pname);
            rules::schedule_pure_output(c.builder, c.plan.stages.at(pname)[0], c.device);
            c.handled.insert(pname);
            if (p.placement == ProducerPlacement::RootOnce) {
                root_notes << "    " << pname << " computed at root: per L2 tile it would be computed " << std::fixed
                           << std::setprecision(1) << p.recompute << "x over\n";
            } else {
                root_notes << "    " << pname << " computed at root: read after " << name << " too\n";
            }
            break;
        case ProducerPlacement::RootInRows:
            c.builder.compute_root(pname);
            schedule_memory_output(c, *p.producer);
            c.handled.insert(pname);
            root_notes << "    " << pname << " computed at root row by row: it reads a reduction over its rows\n";
            break;
        case ProducerPlacement::PerTile: packs.push_back({pname, false}); break;
        }
    }
    if (best.packed_read >= 0) {
        const std::string &input = compute.reads[best.packed_read].tensor;
        auto wrapper = c.plan.input_wrappers.find(input);
        if (wrapper != c.plan.input_wrappers.end()) packs.push_back({wrapper->second, true});
    }
    if (!plan.fuse && !node.is_output) c.builder.compute_root(name);
    rules::Attachment row = rules::schedule_compute_output(c.builder, plan.stages, best, c.device, packs,
                                                           plan.fuse ? epilogue : nullptr, &decision.epilogue_tiles);
    if (epilogue && !plan.fuse) row = rules::schedule_pure_output(c.builder, *epilogue, c.device);
    c.decisions.stages.push_back(decision);
    if (per_band) {
        // The chain's producer epilogue per band, the producer per tile of that.
        const std::string &pname = per_band->producer->func.name();
        c.builder.compute_at(pname, row.consumer, row.var);
        c.row_of[pname] = lower_compute_stage(c, plan.nested[size_t(per_band->nested)]);
        c.handled.insert(pname);
    }
    for (const rules::TileOperand &o : packs)
        c.handled.insert(o.func);
    c.handled.insert(name);

    std::ostream &out = c.explain;
    out << "  " << name << ": " << to_string(compute.cls) << ", " << compute.points() << " points, "
        << decision.candidates.size() << " candidate rPrograms";
    std::string overrun;
    for (size_t j = 0; j < compute.dims.size(); j++) {
        if (plan.tiling.overruns(j)) overrun += " " + compute.dims[j].name;
    }
    out << (overrun.empty() ? "" : "; tiles may overrun along" + overrun) << "\n" << root_notes.str();
    if (epilogue) {
        out << "    epilogue " << epilogue->func << " fused: "
            << (plan.fuse ? name + " computed per " +
                                (decision.epilogue_tiles == rules::EpilogueTiles::Register ? "register" : "L2") +
                                " tile of it (loop " + row.var + ")"
                          : "not split into L2 tiles, so computed after " + name + " at root")
            << "\n";
    }
    for (const analysis::AccessMap &m : compute.reads) {
        out << "    reads " << m.text << (m.is_input ? " (input)" : " (computed)") << "\n";
    }
    if (plan.chain_consumer) {
        const ProducerDecision *epilogue_of_chain = nullptr;
        for (const ProducerDecision &p : plan.producers) {
            if (p.placement == ProducerPlacement::PerBand || p.placement == ProducerPlacement::RootWithItsComputeStage)
                epilogue_of_chain = &p;
        }
        out << "    fused chain: "
            << (per_band ? per_band->producer->func.name() + " and " + per_band->inner->func.name() +
                               " computed per band of this stage's L2 tiles"
                : !epilogue_of_chain
                    ? std::string("no pure epilogue of the producer over the same points to compute per "
                                  "band (a boundary condition between): one by one")
                    : "no program with bands of whole rows among " + std::to_string(decision.candidates.size()) +
                          ": one by one")
            << "\n";
    }
    explain_candidates(out, decision);
    c.builder.set_serial(was_serial);
    return row;
}

}  // namespace

rules::Attachment schedule_compute_stage(SchedulingContext &c, const FunctionNode &node, const TensorExpr &compute,
                                         const TensorExpr *epilogue) {
    return lower_compute_stage(c, decide_compute_stage(c, node, compute, epilogue, {}, 1, false));
}

void schedule_scalar(SchedulingContext &c, const FunctionNode &node) {
    const std::string &name = node.func.name();
    record_decision(c, name, StageRole::Scalar);
    c.builder.compute_root(name);
    c.explain << "  " << name << ": a scalar: computed at root, serially\n";
    c.row_of[name] = {name, ""};
}

void schedule_unanalysable(SchedulingContext &c, const FunctionNode &node, const std::string &reason) {
    const std::string &name = node.func.name();
    record_decision(c, name, StageRole::Unanalysable);
    user_warning << "Tessera: stage " << name << " cannot be analysed (" << reason
                 << "); it gets a safe schedule: computed at root, outer loop parallel\n";
    std::vector<int64_t> extents;
    for (const analysis::Extent &e : node.region)
        extents.push_back(e.extent);
    rules::schedule_safe(c.builder, node.func, extents, c.device);
    c.explain << "  " << name << ": unanalysable (" << reason << "): safe schedule\n";
    c.row_of[name] = {name, ""};
}

void schedule_memory_output(SchedulingContext &c, const FunctionNode &node) {
    const std::string &name = node.func.name();
    const TensorExpr &out = c.plan.stages.at(name)[0];
    rules::RowNeeds needs;
    needs.row_blocks = analysis::reads_row_reduction(out, c.dag, c.plan);
    needs.reread_inputs = analysis::reread_inputs(out, c.dag, c.plan);
    needs.producers_reread = analysis::producers_reread(out, c.dag, c.plan);
    needs.matrix_vector = analysis::reads_matrix_vector(out, c.dag, c.plan);
    rules::RowDecisions decisions;
    c.row_of[name] = rules::schedule_pure_output(c.builder, out, c.device, needs, &decisions);
    explain_memory_output(c.explain, name, c.row_of[name], decisions, out, c.device.vector_lanes);
    StageDecision decided;
    decided.func = name;
    decided.role = StageRole::MemoryOutput;
    decided.rows = decisions;
    c.decisions.stages.push_back(decided);
}

void schedule_reduction_stage(SchedulingContext &c, const FunctionNode &node, rules::Attachment at) {
    const std::string &name = node.func.name();
    const std::vector<TensorExpr> &stages = c.plan.stages.at(name);
    // A consumer whose rows are single vectors (a 1-D output: reduce_mean
    // axes=0 divides each sum) would have the reduction read one vector of
    // every input row per row; the reduction goes to root with loops of its
    // own (8192x4096 axes=0: 28 -> 5.8 ms side by side). Computed per such
    // row it also had to size its vectors to the row, not to its own dim
    // (reduce_mean 300x5 axes=1 once read input row 303 of 300).
    // Computed at a loop that needs fewer points of its dim 0 than the whole dim:
    // sized to those points (see rules::points_read_per_iteration).
    const auto reader = c.plan.stages.find(at.consumer);
    if (!node.is_output && !at.var.empty() && at.row_width == 0 && reader != c.plan.stages.end()) {
        const int64_t points = rules::points_read_per_iteration(c.builder, reader->second[0], name, at.var);
        if (points > 0 && points < rules::pure_dims(stages[0])[0].second) at.row_width = points;
        at.read_through_other_stage = !analysis::reads_tensor(reader->second[0], name);
    }
    if (at.row_width > 0 && at.row_width <= c.device.vector_lanes) at = rules::Attachment{};
    // Read whole at every point of its readers: per row of theirs it would be computed
    // whole once per row (a squeeze-excite's global pool fused with the 1x1 convolution
    // after it, per output channel: 440 -> 110 channels at 7x7 0.30 -> 0.02 ms).
    const bool whole_per_row = !node.is_output && !at.var.empty() && analysis::read_whole_at_each_point(node, c.dag, c.plan);
    if (whole_per_row) at = rules::Attachment{};
    rules::Attachment row = rules::schedule_reduction(c.builder, stages, c.device, node.is_output, at);
    // Computed inside a consumer that reads it only at its own point: its
    // buffer takes the constant extents of one iteration there when the
    // consumer's loops fix them (blocks of a row bound their own dim in
    // schedule_reduction). Side by side in a Halide harness, NHWC avg_pool2d
    // 256x28x28 (window sums per output point) 0.098 -> 0.080 ms, 256x56x56
    // 0.404 -> 0.337; the NHWC depthwise sums kept their accumulators in
    // memory without it (see rules::schedule_reduction).
    const auto consumer = c.plan.stages.find(row.consumer);
    if (!node.is_output && !at.var.empty() && at.row_width == 0 && consumer != c.plan.stages.end() &&
        analysis::reads_only_at_point(consumer->second[0], name)) {
        rules::bound_attached_region(c.builder, name, row.consumer, row.var, rules::pure_dims(stages[0]));
    }
    const bool compute = analysis::compute_stage(stages) != nullptr;
    c.explain << "  " << name << ": " << to_string(compute ? StageClass::ComputeIntensive : StageClass::Reduction)
              << (node.is_output   ? " output"
                  : at.var.empty() ? ", at root"
                                   : ", at " + row.consumer + "." + row.var)
              << (whole_per_row ? " (read whole at every point of its readers: once, not per row)" : "") << "\n";
    c.row_of[name] = node.is_output || !at.var.empty() ? row : rules::Attachment{name, ""};
    StageDecision decided;
    decided.func = name;
    decided.role = StageRole::Reduction;
    if (!node.is_output && !at.var.empty()) decided.computed_at = row.consumer + "." + row.var;
    c.decisions.stages.push_back(decided);
}

void schedule_shared_producer_stage(SchedulingContext &c, const FunctionNode &node, const rules::Attachment &at) {
    const std::string &name = node.func.name();
    record_decision(c, name, StageRole::SharedProducer);
    const bool slides = !at.storage_var.empty() && analysis::window_slides_along(node, at.var, c.plan);
    const std::vector<std::string> &args = node.func.args();
    // Prefetching needs the consumer's rows in blocks along a dim the producer has.
    const bool in_blocks = at.prefetch_block_rows > 0 && at.row_dim > 0 && at.row_dim < int(args.size()) &&
                           analysis::reads_at_point(c.plan.stages.at(at.consumer)[0], name);
    const std::vector<std::string> reread = in_blocks && node.region[0].extent >= c.device.vector_lanes
                                                ? analysis::reread_inputs(c.plan.stages.at(name)[0], c.dag, c.plan)
                                                : std::vector<std::string>{};
    const std::vector<std::string> prefetched =
        rules::schedule_shared_producer(c.builder, name, args, node.region[0].extent, at, slides, reread, c.device);
    c.explain << "  " << name << ": shared producer, "
              << (at.var.empty() ? "at root" : "at " + at.consumer + "." + at.var)
              << (slides ? ", stored at " + at.consumer + "." + at.storage_var + " (a sliding window)" : "") << "\n";
    for (const std::string &input : prefetched) {
        c.explain << "    " << input << " is read again after the row's reductions: computed per block of "
                  << at.prefetch_block_rows << " rows, it prefetches the next block's rows\n";
    }
    c.row_of[name] = at.var.empty() ? rules::Attachment{name, ""} : at;
}

}  // namespace tessera
