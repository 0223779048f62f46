#include "tessera_scheduler.h"
#include "diagnostics.h"

#include "attached_region.h"
#include "compute_schedules.h"
#include "construction.h"
#include "device_spec.h"
#include "function_dag.h"
#include "loops.h"
#include "emit_schedule.h"
#include "schedule_builder.h"
#include "stage_schedules.h"
#include "tensor_expr.h"

#include <algorithm>
#include <cstdlib>
#include <iomanip>
#include <set>
#include <sstream>

namespace tessera {

using namespace Halide;
using namespace Halide::Internal;
using analysis::StageClass;
using analysis::TensorExpr;

SchedulerOptions SchedulerOptions::from_environment(int parallelism) {
    SchedulerOptions o;
    o.parallelism = parallelism;
    if (const char *e = std::getenv("TESSERA_EXPLAIN")) o.explain = std::string(e) != "0";
    if (const char *k = std::getenv("TESSERA_TOPK")) o.top_k = std::max(1, std::atoi(k));
    if (const char *c = std::getenv("TESSERA_CANDIDATE")) o.candidate = std::max(0, std::atoi(c));
    return o;
}

namespace {

// A padded input computed this many times over by per-tile placement goes to root
// (see schedule_compute). Side by side, root against per tile (NCHW rows pad with
// scalar tails, NHWC rows are whole vectors): NCHW 3x3 7x7x512 (16x over) 5.2 ->
// 2.9 ms, NCHW 14x14x256 (4x) 2.0-2.4 -> 1.7-1.9 ms; NHWC 7x7x512 (9x) and
// 14x14x256 (10x) neutral; at 56x56 (2-3x) root was 5-12% slower.
constexpr double kRecomputedAtRoot = 4;

bool is_input_wrapper(const Function &f) {
    // ImageParams reach definitions through a hidden pure Func "<name>_im".
    if (!f.updates().empty() || f.definition().values().size() != 1) return false;
    const Call *c = f.definition().values()[0].as<Call>();
    return c && c->call_type == Call::Image;
}

struct Plan {
    std::map<std::string, Function> env;
    // Input name -> its hidden wrapper Func. Usually "<input>_im", but Halide
    // renames Funcs when a process builds a second pipeline with the same names
    // ("weights_im$1"), so it is found by what it does, not by its name.
    std::map<std::string, std::string> input_wrappers;
    std::set<std::string> inlined;
    std::map<std::string, std::vector<TensorExpr>> stages;
};

// Pure producers are folded into their consumers, except (a) those feeding a
// compute-intensive stage (computed per tile, as packed operands) and (b)
// expensive ones read by several consumers (computed once per row).
Plan make_plan(const analysis::FunctionDag &dag) {
    Plan plan;
    for (const analysis::FunctionNode &n : dag.nodes()) {
        plan.env[n.func.name()] = n.func;
        if (is_input_wrapper(n.func)) {
            plan.input_wrappers[n.func.definition().values()[0].as<Call>()->name] = n.func.name();
        }
    }
    auto pure_candidate = [&](const analysis::FunctionNode &n) { return !n.is_output && n.func.updates().empty(); };
    for (const analysis::FunctionNode &n : dag.nodes()) {
        if (pure_candidate(n)) plan.inlined.insert(n.func.name());
    }
    auto inlined = [&](const std::string &name) { return plan.inlined.count(name) > 0; };
    // First look: only input wrappers folded (folding a whole stencil chain would
    // multiply out its expression), enough to find the compute-intensive stages.
    auto wrapper = [&](const std::string &name) { return is_input_wrapper(plan.env.at(name)); };
    std::map<std::string, std::vector<TensorExpr>> first;
    for (const analysis::FunctionNode &n : dag.nodes()) first[n.func.name()] = build_tensor_exprs(n, wrapper, plan.env);

    // Call sites of each Function in its consumers' own definitions: inlining a
    // producer read at several points (a stencil) multiplies its work.
    std::map<std::string, int> call_sites;
    for (const analysis::FunctionNode &n : dag.nodes()) {
        struct Count : public IRVisitor {
            std::map<std::string, int> &sites;
            explicit Count(std::map<std::string, int> &s) : sites(s) {}
            using IRVisitor::visit;
            void visit(const Call *c) override {
                if (c->call_type == Call::Halide) sites[c->name]++;
                IRVisitor::visit(c);
            }
        } count(call_sites);
        n.func.accept(&count);
    }
    // Boundary conditions: pure Functions that read an input at clamped indices,
    // or read such a Function (constant_exterior over repeat_edge).
    std::set<std::string> boundary;
    for (bool grew = true; grew;) {
        grew = false;
        for (const analysis::FunctionNode &n : dag.nodes()) {
            if (!pure_candidate(n) || boundary.count(n.func.name())) continue;
            for (const analysis::AccessMap &m : first[n.func.name()][0].reads) {
                bool clamped = std::any_of(m.clamped.begin(), m.clamped.end(), [](bool c) { return c; });
                if ((m.is_input && clamped) || boundary.count(m.tensor)) {
                    boundary.insert(n.func.name());
                    grew = true;
                    break;
                }
            }
        }
    }
    // Read by a window reduction that slides along the innermost storage dim (x + r.x).
    auto under_sliding_window = [&](const analysis::FunctionNode &n) {
        for (const std::string &c : n.consumers) {
            for (const TensorExpr &t : first[c]) {
                if (t.cls != StageClass::Reduction) continue;
                for (const analysis::AccessMap &m : t.reads) {
                    if (m.tensor != n.func.name() || m.coef.empty()) continue;
                    for (size_t r : t.reduction_dims()) {
                        if (m.coef[0][r] != 0) return true;
                    }
                }
            }
        }
        return false;
    };
    for (const analysis::FunctionNode &n : dag.nodes()) {
        if (!pure_candidate(n) || is_input_wrapper(n.func)) continue;
        if (call_sites[n.func.name()] > 1) {
            plan.inlined.erase(n.func.name());
            continue;
        }
        // (A producer of a reduction output, e.g. a padded input under a pooling
        // window, is likewise computed per row: no select in the window loop.)
        bool feeds_compute = false;
        for (const std::string &c : n.consumers) {
            const bool output = dag.find(c)->is_output;
            for (const TensorExpr &t : first[c]) {
                feeds_compute |= t.cls == StageClass::ComputeIntensive || (output && t.cls == StageClass::Reduction);
            }
        }
        // A boundary condition under a window reduction that slides along the
        // innermost storage dim (NCHW avg_pool2d's window_sum, x + r.x): inlined,
        // every vector of the window becomes a gather of clamped indices;
        // materialised per row it is read densely. (A window across other dims,
        // NHWC, clamps one scalar index per vector: left inlined.)
        feeds_compute |= boundary.count(n.func.name()) && under_sliding_window(n);
        bool shared_expensive = n.consumers.size() > 1 && first[n.func.name()][0].ops_per_point >= 8;
        if (feeds_compute || shared_expensive) plan.inlined.erase(n.func.name());
    }
    for (const analysis::FunctionNode &n : dag.nodes()) {
        plan.stages[n.func.name()] = build_tensor_exprs(n, inlined, plan.env);
    }

    // Along which of its arguments each pure Function can be evaluated at any
    // coordinate (boundary conditions): every index that moves with the argument is
    // clamped input, or such an argument of another Function. Producers come first.
    std::map<std::string, std::vector<bool>> safe;
    auto reads_safe_along = [&](const analysis::AccessMap &m, size_t j) {
        for (size_t d = 0; d < m.coef.size(); d++) {
            if (m.coef[d][j] == 0) continue;
            bool ok = m.is_input ? bool(m.clamped[d]) : safe.count(m.tensor) && safe[m.tensor][d];
            if (!ok) return false;
        }
        return true;
    };
    for (const analysis::FunctionNode &n : dag.nodes()) {
        if (!n.func.updates().empty()) continue;
        const TensorExpr &t = plan.stages[n.func.name()][0];
        std::vector<bool> along(t.dims.size(), true);
        for (size_t j = 0; j < t.dims.size(); j++) {
            for (const analysis::AccessMap &m : t.reads) along[j] = along[j] && reads_safe_along(m, j);
        }
        safe[n.func.name()] = along;
    }
    for (auto &kv : plan.stages) {
        for (TensorExpr &t : kv.second) {
            t.overrun_ok.assign(t.dims.size(), false);
            for (size_t j : t.spatial_dims()) {
                bool ok = true;
                for (const analysis::AccessMap &m : t.reads) ok = ok && (!m.depends_on(j) || (!m.is_input && reads_safe_along(m, j)));
                t.overrun_ok[j] = ok;
            }
        }
    }
    return plan;
}

const TensorExpr *compute_stage(const std::vector<TensorExpr> &stages) {
    for (const TensorExpr &t : stages) {
        if (t.cls == StageClass::ComputeIntensive) return &t;
    }
    return nullptr;
}

std::string unanalysable_reason(const std::vector<TensorExpr> &stages) {
    for (const TensorExpr &t : stages) {
        if (t.cls == StageClass::Unanalysable) return t.reason;
    }
    return "";
}

// Whether a consumer of `producer` reads it through a window sliding along its
// loop dim `var`: an index moving with both `var` and a reduction dim (an NCHW
// pooling's padded input, read at y * stride + r.y).
bool window_slides_along(const analysis::FunctionNode &producer, const std::string &var, const Plan &plan) {
    for (const std::string &consumer : producer.consumers) {
        if (!plan.stages.count(consumer)) continue;
        for (const TensorExpr &t : plan.stages.at(consumer)) {
            const int j = t.find_dim(var);
            if (j < 0) continue;
            for (const analysis::AccessMap &m : t.reads) {
                if (m.tensor != producer.func.name()) continue;
                for (const std::vector<int64_t> &coef : m.coef) {
                    if (coef[size_t(j)] == 0) continue;
                    for (size_t r : t.reduction_dims()) {
                        if (coef[r] != 0) return true;
                    }
                }
            }
        }
    }
    return false;
}

// `m` reads its tensor at the point `out` writes (out(x, y) = f(x, y) + ...).
bool identity_read(const analysis::AccessMap &m, const TensorExpr &out) {
    if (m.coef.size() != out.dims.size()) return false;
    for (size_t d = 0; d < m.coef.size(); d++) {
        if (m.offset[d] != 0) return false;
        for (size_t j = 0; j < m.coef[d].size(); j++) {
            if (m.coef[d][j] != (d == j ? 1 : 0)) return false;
        }
    }
    return true;
}

// The compute-intensive stage whose epilogue the pure output `out` is: a
// non-inlined Function with one update, read by nothing else, read here at the
// same point it is written (out(x, y) = f(x, y) + bias(x)). Else null.
const analysis::FunctionNode *epilogue_producer(const TensorExpr &out,
                                                const analysis::FunctionDag &dag, const Plan &plan) {
    for (const analysis::AccessMap &m : out.reads) {
        if (m.is_input || plan.inlined.count(m.tensor)) continue;
        const analysis::FunctionNode *producer = dag.find(m.tensor);
        if (!producer || producer->consumers.size() != 1 || producer->func.updates().size() != 1) continue;
        if (!compute_stage(plan.stages.at(m.tensor))) continue;
        if (identity_read(m, out)) return producer;
    }
    return nullptr;
}

// The reduction (a non-inlined Function with updates) that read `m` reads; null
// for an input or any other Function.
const analysis::FunctionNode *read_reduction(const analysis::AccessMap &m, const analysis::FunctionDag &dag,
                                             const Plan &plan) {
    if (m.is_input || plan.inlined.count(m.tensor)) return nullptr;
    const analysis::FunctionNode *producer = dag.find(m.tensor);
    return producer && !producer->func.updates().empty() ? producer : nullptr;
}

// Input buffers the pure output `out` reads at the point it writes that a
// reduction it reads also reads (layer_norm's x, under its mean and variance):
// see rules::schedule_pure_output.
std::vector<std::string> reread_inputs(const TensorExpr &out, const analysis::FunctionDag &dag, const Plan &plan) {
    std::set<std::string> reduced;
    for (const analysis::AccessMap &m : out.reads) {
        if (!read_reduction(m, dag, plan)) continue;
        for (const TensorExpr &stage : plan.stages.at(m.tensor)) {
            for (const analysis::AccessMap &r : stage.reads) {
                if (r.is_input) reduced.insert(r.tensor);
            }
        }
    }
    std::vector<std::string> inputs;
    for (const analysis::AccessMap &m : out.reads) {
        if (m.is_input && identity_read(m, out) && reduced.count(m.tensor) &&
            std::find(inputs.begin(), inputs.end(), m.tensor) == inputs.end()) {
            inputs.push_back(m.tensor);
        }
    }
    return inputs;
}

// Whether the pure output `out` reads, at the point it writes, a pure producer
// that reads an input again (softmax's exponentials read x after its maximum
// streamed it; see rules::schedule_pure_output).
bool producers_reread(const TensorExpr &out, const analysis::FunctionDag &dag, const Plan &plan) {
    for (const analysis::AccessMap &m : out.reads) {
        if (m.is_input || plan.inlined.count(m.tensor) || !identity_read(m, out)) continue;
        const analysis::FunctionNode *producer = dag.find(m.tensor);
        if (producer && producer->func.updates().empty() &&
            !reread_inputs(plan.stages.at(m.tensor)[0], dag, plan).empty()) {
            return true;
        }
    }
    return false;
}

// Whether the pure output `out` reads, at the point it writes, a reduction whose
// pure dims all have one point but the rows', and which reads an input that does
// not move along the rows (a matrix-vector product's vector; see
// rules::Attachment::register_rows).
bool reads_matrix_vector(const TensorExpr &out, const analysis::FunctionDag &dag, const Plan &plan) {
    for (const analysis::AccessMap &m : out.reads) {
        if (!identity_read(m, out) || !read_reduction(m, dag, plan)) continue;
        const std::vector<TensorExpr> &stages = plan.stages.at(m.tensor);
        if (stages.size() != 2) continue;
        const TensorExpr &u = stages[1];
        int rows = -1, wide = 0;
        for (size_t j : u.spatial_dims()) {
            if (u.dims[j].extent == 1) continue;
            rows = int(j);
            wide++;
        }
        if (wide != 1) continue;
        for (const analysis::AccessMap &r : u.reads) {
            if (r.is_input && !r.depends_on(size_t(rows))) return true;
        }
    }
    return false;
}

// Whether stage `t` reads Function `name` at the point it writes.
bool reads_at_point(const TensorExpr &t, const std::string &name) {
    for (const analysis::AccessMap &m : t.reads) {
        if (m.tensor == name && identity_read(m, t)) return true;
    }
    return false;
}

// Whether every read of Function `name` by stage `t` is at the point it writes
// (and there is one).
bool reads_only_at_point(const TensorExpr &t, const std::string &name) {
    bool any = false;
    for (const analysis::AccessMap &m : t.reads) {
        if (m.tensor != name) continue;
        if (!identity_read(m, t)) return false;
        any = true;
    }
    return any;
}

// A pure output of one row reading, at the point it writes, a reduction whose
// every read runs along a reduction dim in its innermost storage dim (NCHW
// global_avg_pool: each channel's sum reads its plane's contiguous points). Its
// row is cut into blocks, the reduction computed per block (see
// rules::kRowBlockVectors). A reduction reading along a pure dim (NHWC, a sum
// across rows) would read a short piece of every input row per block; it keeps
// its own parallel blocks.
bool reads_row_reduction(const TensorExpr &out, const analysis::FunctionDag &dag, const Plan &plan) {
    for (const analysis::AccessMap &m : out.reads) {
        if (!identity_read(m, out) || !read_reduction(m, dag, plan)) continue;
        bool runs = true;
        const std::vector<TensorExpr> &stages = plan.stages.at(m.tensor);
        for (size_t k = 1; k < stages.size(); k++) {
            for (const analysis::AccessMap &r : stages[k].reads) {
                bool along_reduction = false;
                for (size_t j : stages[k].reduction_dims()) along_reduction |= !r.coef.empty() && r.coef[0][j] != 0;
                runs &= along_reduction;
            }
        }
        if (runs) return true;
    }
    return false;
}

void explain_program(std::ostream &out, const TensorExpr &t, const rtile::RProgram &p, const char *label) {
    out << "    " << label << ": predicted " << std::fixed << std::setprecision(3) << p.predicted_ms
        << " ms, bottleneck " << p.bottleneck << ", " << p.parallel_tasks << " parallel tasks\n";
    static const char *levels[] = {"registers", "L1", "L2"};
    for (int l = 0; l < rtile::kTileLevels; l++) {
        out << "      " << levels[l] << " tile: " << p.tiles[l].to_string(t) << "\n";
    }
    if (p.fusion) {
        const analysis::AxisFusion &f = *p.fusion;
        out << "      axes " << f.inner_name << " and " << f.outer_name << " fused into " << f.fused_name() << " ("
            << f.inner_extent * f.outer_extent << " points); its L2 tiles are whole " << f.inner_name << " rows\n";
    }
    std::string shifted;
    for (size_t j = 0; j < t.dims.size(); j++) {
        if (p.shifts(j)) shifted += " " + t.dims[j].name;
    }
    if (!shifted.empty()) out << "      L2 tiles shift inwards along" << shifted << ": the last recomputes an overlap\n";
    if (p.packed_read >= 0 && p.transposed) {
        out << "      transposed: vectorised along " << t.dims[p.vector_dim].name << "; packed operand "
            << t.reads[p.packed_read].tensor << " stored with it innermost; outputs written by scatter per chunk\n";
        if (p.chunk_innermost) {
            out << "      strided window: the reduction chunk " << t.dims[p.split_reduction].name
                << " runs innermost in the micro-kernel\n";
        }
    } else if (p.packed_read >= 0) {
        out << "      packed operand: " << t.reads[p.packed_read].tensor << " (row padding " << p.padding_floats
            << " floats)\n";
    }
    if (p.swept_panels > 0) {
        out << "      L2 tile outgrows the L2: "
            << t.reads[size_t(rtile::packed_read_of(t, p, p.tiles[rtile::kL2Tile]))].tensor
            << " swept in panels (" << p.swept_panels << " per tile), the other reads streamed once per panel\n";
    }
}

}  // namespace

ScheduleOutcome schedule_pipeline(const Pipeline &pipeline, const Target &target, const SchedulerOptions &options) {
    std::vector<Function> outputs;
    for (const Func &f : pipeline.outputs()) outputs.push_back(f.function());
    analysis::FunctionDag dag(outputs);
    // GPU schedules belong to a later stage of the project: say so rather than
    // hand back host loops the user may take for GPU kernels.
    if (target.has_gpu_feature()) {
        user_warning << "Tessera: target " << target.to_string()
                     << " has a GPU feature, but Tessera builds CPU schedules only so far: every stage of "
                     << outputs.front().name() << "'s pipeline is scheduled for the host CPU and runs there\n";
    }
    hal::DeviceSpec device = hal::make_device_spec(target, options.parallelism, hal::host_profile());
    Plan plan = make_plan(dag);

    std::vector<Function> order;
    for (const analysis::FunctionNode &n : dag.nodes()) order.push_back(n.func);
    schedule::ScheduleBuilder script(order);
    std::ostringstream explain;
    explain << "Tessera: " << device.describe();

    // Consumers before producers: a producer attaches to its consumer's loops.
    std::map<std::string, rules::Attachment> row_of;  // each output's row loop
    std::set<std::string> handled;                    // producers scheduled with their consumer

    // A compute-intensive stage with one update: construct its rPrograms, apply the
    // chosen one (with `epilogue`, the stage is computed per L2 tile of that pure
    // output) and explain. Returns the loop its consumers' producers attach to.
    auto schedule_compute = [&](const analysis::FunctionNode &node, const TensorExpr &compute,
                                const TensorExpr *epilogue) {
        const std::string &name = node.func.name();
        std::vector<bool> packable;
        for (const analysis::AccessMap &m : compute.reads) {
            packable.push_back(m.is_input && plan.input_wrappers.count(m.tensor));  // has a wrapper to pack
        }
        rtile::ConstructionResult built = rtile::construct_programs(
            compute, device, std::max({2, options.top_k, options.candidate + 1}), packable, epilogue != nullptr);
        const size_t pick = std::min(size_t(options.candidate), built.programs.size() - 1);
        const rtile::RProgram &best = built.programs[pick];
        const TensorExpr best_expr = rtile::program_expr(compute, best);  // its tiles' dims
        std::vector<rules::TileOperand> packs;
        std::string root_notes;
        for (const analysis::FunctionNode &producer : dag.nodes()) {
            bool consumed = std::find(producer.consumers.begin(), producer.consumers.end(), name) !=
                            producer.consumers.end();
            if (!consumed || plan.inlined.count(producer.func.name())) continue;
            // A non-inlined pure producer (a padded input): computed per chunk of
            // each L2 tile, in cache when read, unless the tasks would compute it
            // kRecomputedAtRoot times over or more (tiles splitting only the output
            // channels each pad the whole input); then once, at root, in parallel.
            const std::string &pname = producer.func.name();
            double recompute = 0;
            for (const analysis::AccessMap &m : best_expr.reads) {
                if (m.tensor == pname) recompute = std::max(recompute, rtile::per_tile_recompute_factor(best_expr, best, m));
            }
            if (recompute >= kRecomputedAtRoot) {
                script.compute_root(pname);
                rules::schedule_pure_output(script, plan.stages.at(pname)[0], device);
                handled.insert(pname);
                std::ostringstream note;
                note << "    " << pname << " computed at root: per L2 tile it would be computed " << std::fixed
                     << std::setprecision(1) << recompute << "x over\n";
                root_notes += note.str();
                continue;
            }
            packs.push_back({pname, false});
        }
        if (best.packed_read >= 0) {
            const std::string &input = compute.reads[best.packed_read].tensor;
            auto wrapper = plan.input_wrappers.find(input);
            if (wrapper != plan.input_wrappers.end()) packs.push_back({wrapper->second, true});
        }
        // With a single L2 tile there is nothing to fuse into: the stage goes to
        // root and the epilogue gets plain rows.
        const bool fuse = epilogue && best.parallel_tasks > 1;
        // A shifted program has two or more L2 tiles along a shifted dim.
        internal_assert(fuse || best.shifted.empty()) << "shifted program for " << name << " not fused\n";
        if (!fuse && !node.is_output) script.compute_root(name);
        rules::Attachment row = rules::schedule_compute_output(script, plan.stages.at(name), best, device, packs,
                                                               fuse ? epilogue : nullptr);
        if (epilogue && !fuse) row = rules::schedule_pure_output(script, *epilogue, device);
        for (const rules::TileOperand &o : packs) handled.insert(o.func);
        handled.insert(name);
        explain << "  " << name << ": " << to_string(compute.cls) << ", " << compute.points() << " points, "
                << built.programs.size() << " candidate rPrograms";
        std::string overrun;
        for (size_t j = 0; j < compute.dims.size(); j++) {
            if (compute.overrun_ok[j]) overrun += " " + compute.dims[j].name;
        }
        explain << (overrun.empty() ? "" : "; tiles may overrun along" + overrun) << "\n" << root_notes;
        if (epilogue) {
            explain << "    epilogue " << epilogue->func << " fused: "
                    << (fuse ? name + " computed per " +
                                   (rules::register_epilogue_applies(plan.stages.at(name)[1], best, device)
                                        ? "register"
                                        : "L2") +
                                   " tile of it (loop " + row.var + ")"
                             : "not split into L2 tiles, so computed after " + name + " at root")
                    << "\n";
        }
        for (const analysis::AccessMap &m : compute.reads) {
            explain << "    reads " << m.text << (m.is_input ? " (input)" : " (computed)") << "\n";
        }
        explain_program(explain, best_expr, best, pick == 0 ? "chosen" : "chosen (TESSERA_CANDIDATE)");
        for (size_t i = 0; i < built.programs.size(); i++) {
            if (i != pick) {
                explain_program(explain, rtile::program_expr(compute, built.programs[i]), built.programs[i],
                                i == 0 ? "best predicted" : "runner-up");
            }
        }
        return row;
    };

    for (auto it = dag.nodes().rbegin(); it != dag.nodes().rend(); ++it) {
        const analysis::FunctionNode &node = *it;
        const std::string &name = node.func.name();
        const std::vector<TensorExpr> &stages = plan.stages.at(name);
        if (plan.inlined.count(name) || handled.count(name)) continue;  // Halide inlines by default

        // Where a non-output producer attaches: its consumers' row loop, or root
        // when they run in different loops (1-D softmax: the output's rows and its
        // sum at root both read the exponentials).
        // An inlined consumer reads it wherever that consumer's own readers run:
        // look through it (x - mean, inlined into a variance computed at root and
        // read by the output's rows, once got the output's row loop: invalid).
        std::vector<std::string> readers;
        std::vector<std::string> pending = node.consumers;
        std::set<std::string> seen;
        while (!pending.empty()) {
            const std::string c = pending.back();
            pending.pop_back();
            if (!seen.insert(c).second) continue;
            const analysis::FunctionNode *cn = plan.inlined.count(c) ? dag.find(c) : nullptr;
            if (cn) pending.insert(pending.end(), cn->consumers.begin(), cn->consumers.end());
            else readers.push_back(c);
        }
        rules::Attachment at;
        bool attached = false;
        for (const std::string &c : readers) {
            auto r = row_of.find(c);
            if (r == row_of.end()) continue;
            if (!attached) {
                at = r->second;
                attached = true;
            } else if (r->second.consumer != at.consumer || r->second.var != at.var) {
                at = rules::Attachment{};
                break;
            }
        }

        if (node.func.args().empty()) {
            // A scalar (a full reduction, a 0-D output): nothing to tile or vectorise.
            script.compute_root(name);
            explain << "  " << name << ": a scalar: computed at root, serially\n";
            row_of[name] = {name, ""};
            continue;
        }
        std::string reason = unanalysable_reason(stages);
        if (!reason.empty()) {
            user_warning << "Tessera: stage " << name << " cannot be analysed (" << reason
                         << "); it gets a safe schedule: computed at root, outer loop parallel\n";
            rules::schedule_safe(script, node.func, node.region.empty() ? 0 : node.region[0].extent, device);
            explain << "  " << name << ": unanalysable (" << reason << "): safe schedule\n";
            row_of[name] = {name, ""};
            continue;
        }

        const TensorExpr *compute = compute_stage(stages);
        if (compute && node.func.updates().size() == 1) {
            // An output, or a producer whose consumer is not its fusable epilogue
            // (computed at root with its rProgram).
            row_of[name] = schedule_compute(node, *compute, nullptr);
            continue;
        }
        if (node.is_output && node.func.updates().empty()) {
            if (const analysis::FunctionNode *producer = epilogue_producer(stages[0], dag, plan)) {
                row_of[name] = schedule_compute(*producer, *compute_stage(plan.stages.at(producer->func.name())),
                                                &stages[0]);
                continue;
            }
            rules::RowNeeds needs;
            needs.row_blocks = reads_row_reduction(stages[0], dag, plan);
            needs.reread_inputs = reread_inputs(stages[0], dag, plan);
            needs.producers_reread = producers_reread(stages[0], dag, plan);
            needs.matrix_vector = reads_matrix_vector(stages[0], dag, plan);
            std::vector<std::string> prefetched;
            row_of[name] = rules::schedule_pure_output(script, stages[0], device, needs, &prefetched);
            explain << "  " << name << ": memory-intensive output, vectorised rows in parallel tasks"
                    << (row_of[name].var.empty() ? "" : " (row loop " + row_of[name].var + ")") << "\n";
            for (const std::string &input : prefetched) {
                explain << "    " << input << " is read again after the row's reductions: each row prefetches "
                        << "its next row\n";
            }
            if (row_of[name].row_width > device.vector_lanes) {
                explain << "    one row, cut into blocks of " << row_of[name].row_width
                        << " points: the reduction it reads is computed per block\n";
            }
            const rules::TransposeBlock tb = rules::transpose_block(stages[0], device);
            if (tb.dim >= 0) {
                explain << "    transposed read: blocks of " << tb.rows << " rows along "
                        << stages[0].dims[size_t(tb.dim)].name << " x " << tb.vectors << " vector"
                        << (tb.vectors == 1 ? "" : "s")
                        << (tb.sweep ? ", swept along the input rows, tasks of input rows" : ", tasks of blocks")
                        << (tb.staged ? "; in cache: each " + std::to_string(tb.rows) + "x" +
                                            std::to_string(tb.rows) + " square loaded into registers and " +
                                            "transposed there"
                                      : "")
                        << "\n";
            }
            continue;
        }
        if (!node.func.updates().empty()) {
            // A consumer whose rows are single vectors (a 1-D output: reduce_mean
            // axes=0 divides each sum) would have the reduction read one vector of
            // every input row per row; the reduction goes to root with loops of its
            // own (8192x4096 axes=0: 28 -> 5.8 ms side by side). Computed per such
            // row it also had to size its vectors to the row, not to its own dim
            // (reduce_mean 300x5 axes=1 once read input row 303 of 300).
            if (at.row_width > 0 && at.row_width <= device.vector_lanes) at = rules::Attachment{};
            rules::Attachment row = rules::schedule_reduction(script, stages, device, node.is_output, at);
            // Computed inside a consumer that reads it only at its own point: its
            // buffer takes the constant extents of one iteration there when the
            // consumer's loops fix them (blocks of a row bound their own dim in
            // schedule_reduction). Side by side in a Halide harness, NHWC avg_pool2d
            // 256x28x28 (window sums per output point) 0.098 -> 0.080 ms, 256x56x56
            // 0.404 -> 0.337; the NHWC depthwise sums kept their accumulators in
            // memory without it (see rules::schedule_reduction).
            const auto consumer = plan.stages.find(row.consumer);
            if (!node.is_output && !at.var.empty() && at.row_width == 0 && consumer != plan.stages.end() &&
                reads_only_at_point(consumer->second[0], name)) {
                rules::bound_attached_region(script, name, row.consumer, row.var, rules::pure_dims(stages[0]));
            }
            explain << "  " << name << ": " << to_string(compute ? StageClass::ComputeIntensive : StageClass::Reduction)
                    << (node.is_output ? " output" : at.var.empty() ? ", at root" : ", at " + row.consumer + "." + row.var)
                    << "\n";
            row_of[name] = node.is_output || !at.var.empty() ? row : rules::Attachment{name, ""};
            continue;
        }
        // A pure producer kept out of line: computed at its consumer's row (or root).
        rules::compute_at_row(script, name, at);
        const bool slides = !at.storage_var.empty() && window_slides_along(node, at.var, plan);
        if (slides) {
            // Stored outside the row loop, each row computes only the rows of the
            // window the previous one did not (Halide's sliding window, with the
            // storage folded to the window's rows). Side by side (tessera-bench,
            // a temporary switch back), NCHW 8x64x224x224 3x3: avg_pool2d stride 1
            // 8.2-8.5 -> 6.7-7.3 ms; max_pool2d stride 2 3.75 -> 3.47 ms in one run,
            // equal in two later ones (3.5-4.0 ms; a Halide harness: 3.5 -> 3.1).
            script.store_at(name, at.consumer, at.storage_var);
        }
        std::vector<std::string> prefetched_by_producer;
        {
            schedule::StageBuilder s = script.stage(name);
            const std::string a0 = node.func.args()[0];
            if (node.region[0].extent >= device.vector_lanes) {
                // Computed per block of its consumer's rows, it prefetches the next
                // block's rows of the inputs it reads again, one prefetch per
                // vector, while its vector loop computes (see
                // rules::schedule_pure_output). Unguarded: the bounds test per
                // vector cost softmax 32768x1024 1.5 ms of 16 (a Halide harness).
                // Its vector split then shifts inwards: guarded, Halide derived the
                // prefetch's box through the guard (a loop of prefetches with a
                // computed count per vector), and with a row count the tasks do not
                // divide (32767x1024) the guarded last task ran the whole softmax
                // slower than without blocks (21.5 against 18.5 ms; shifted: 15.9).
                const auto &args = node.func.args();
                const bool in_blocks = at.prefetch_block_rows > 0 && at.row_dim > 0 &&
                                       at.row_dim < int(args.size()) &&
                                       reads_at_point(plan.stages.at(at.consumer)[0], name);
                const std::vector<std::string> reread =
                    in_blocks ? reread_inputs(stages[0], dag, plan) : std::vector<std::string>{};
                s.split(a0, a0 + "_vo", a0 + "_vi", device.vector_lanes,
                        reread.empty() ? TailStrategy::GuardWithIf : TailStrategy::ShiftInwards);
                s.vectorize(a0 + "_vi");
                for (const std::string &input : reread) {
                    if (s.prefetch_input(input, a0 + "_vo", args[size_t(at.row_dim)], int(at.prefetch_block_rows),
                                         false)) {
                        prefetched_by_producer.push_back(input);
                    }
                }
            }
        }
        explain << "  " << name << ": shared producer, " << (at.var.empty() ? "at root" : "at " + at.consumer + "." + at.var)
                << (slides ? ", stored at " + at.consumer + "." + at.storage_var + " (a sliding window)" : "") << "\n";
        for (const std::string &input : prefetched_by_producer) {
            explain << "    " << input << " is read again after the row's reductions: computed per block of "
                    << at.prefetch_block_rows << " rows, it prefetches the next block's rows\n";
        }
        row_of[name] = at.var.empty() ? rules::Attachment{name, ""} : at;
    }

    ScheduleOutcome outcome;
    outcome.schedule = script.finish();
    outcome.source = apply::emit_schedule(outcome.schedule, order);
    outcome.explanation = explain.str();
    return outcome;
}

}  // namespace tessera
