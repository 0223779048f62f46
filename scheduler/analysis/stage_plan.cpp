#include "stage_plan.h"

#include "read_patterns.h"

#include <algorithm>

namespace tessera::analysis {

using namespace Halide;
using namespace Halide::Internal;

namespace {

// Operations per point a pure Function read by several consumers may have and still
// be recomputed by each of them (inlined), summed over its call sites.
constexpr int64_t kMaxRecomputedOpsPerPoint = 8;

}  // namespace

bool is_input_wrapper(const Function &f) {
    // ImageParams reach definitions through a hidden pure Func "<name>_im".
    if (!f.updates().empty() || f.definition().values().size() != 1) return false;
    const Call *c = f.definition().values()[0].as<Call>();
    return c && c->call_type == Call::Image;
}

StagePlan plan_stages(const FunctionDag &dag) {
    StagePlan plan;
    for (const FunctionNode &n : dag.nodes()) {
        plan.env[n.func.name()] = n.func;
        if (is_input_wrapper(n.func)) {
            plan.input_wrappers[n.func.definition().values()[0].as<Call>()->name] = n.func.name();
        }
    }
    auto pure_candidate = [&](const FunctionNode &n) { return !n.is_output && n.func.updates().empty(); };
    for (const FunctionNode &n : dag.nodes()) {
        if (pure_candidate(n)) plan.inlined.insert(n.func.name());
    }
    auto inlined = [&](const std::string &name) { return plan.inlined.count(name) > 0; };
    // First look: only input wrappers folded (folding a whole stencil chain would
    // multiply out its expression), enough to find the compute-intensive stages.
    auto wrapper = [&](const std::string &name) { return is_input_wrapper(plan.env.at(name)); };
    std::map<std::string, std::vector<TensorExpr>> first;
    for (const FunctionNode &n : dag.nodes())
        first[n.func.name()] = build_tensor_exprs(n, wrapper, plan.env);

    // Call sites of each Function in its consumers' own definitions: inlining a
    // producer read at several points (a stencil) multiplies its work.
    std::map<std::string, int> call_sites;
    for (const FunctionNode &n : dag.nodes()) {
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
        for (const FunctionNode &n : dag.nodes()) {
            if (!pure_candidate(n) || boundary.count(n.func.name())) continue;
            for (const AccessMap &m : first[n.func.name()][0].reads) {
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
    auto under_sliding_window = [&](const FunctionNode &n) {
        for (const std::string &c : n.consumers) {
            for (const TensorExpr &t : first[c]) {
                if (t.cls != StageClass::Reduction) continue;
                for (const AccessMap &m : t.reads) {
                    if (m.tensor == n.func.name() && t.slides_innermost(m)) return true;
                }
            }
        }
        return false;
    };
    // Read at several call sites, each by a pure Function at its own point, and cheap
    // (a convolution's bias add under x * hardsigmoid(x) or x * sigmoid(x), MobileNetV3's
    // hard-swish and EfficientNet's SiLU): inlined, each site recomputes it, and the
    // convolution keeps its elementwise tail as an epilogue computed per tile of it.
    // Kept apart, the sums went to root and the tail was a pass of its own.
    auto cheap_at_each_point = [&](const FunctionNode &n) {
        if (first[n.func.name()][0].ops_per_point * call_sites[n.func.name()] >= kMaxRecomputedOpsPerPoint) return false;
        for (const std::string &c : n.consumers) {
            const FunctionNode *reader = dag.find(c);
            if (!reader || !reader->func.updates().empty()) return false;
            for (const TensorExpr &t : first[c]) {
                for (const AccessMap &m : t.reads) {
                    if (m.tensor == n.func.name() && !identity_read(m, t)) return false;
                }
            }
        }
        return true;
    };
    for (const FunctionNode &n : dag.nodes()) {
        if (!pure_candidate(n) || is_input_wrapper(n.func)) continue;
        if (call_sites[n.func.name()] > 1 && !cheap_at_each_point(n)) {
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
        bool shared_expensive =
            n.consumers.size() > 1 && first[n.func.name()][0].ops_per_point >= kMaxRecomputedOpsPerPoint;
        if (feeds_compute || shared_expensive) plan.inlined.erase(n.func.name());
    }
    for (const FunctionNode &n : dag.nodes()) {
        plan.stages[n.func.name()] = build_tensor_exprs(n, inlined, plan.env);
    }

    // Along which of its arguments each pure Function can be evaluated at any
    // coordinate (boundary conditions): every index that moves with the argument is
    // clamped input, or such an argument of another Function. Producers come first.
    std::map<std::string, std::vector<bool>> safe;
    auto reads_safe_along = [&](const AccessMap &m, size_t j) {
        // A non-affine index (a reshape's div and mod) may move with any dim: a
        // ConvTranspose's run-time weights, swapped by a reshape, were read past
        // their end by register tiles overrunning the output channels.
        if (!m.affine) return false;
        for (size_t d = 0; d < m.coef.size(); d++) {
            if (m.coef[d][j] == 0) continue;
            bool ok = m.is_input ? bool(m.clamped[d]) : safe.count(m.tensor) && safe[m.tensor][d];
            if (!ok) return false;
        }
        return true;
    };
    for (const FunctionNode &n : dag.nodes()) {
        if (!n.func.updates().empty()) continue;
        const TensorExpr &t = plan.stages[n.func.name()][0];
        std::vector<bool> along(t.dims.size(), true);
        for (size_t j = 0; j < t.dims.size(); j++) {
            for (const AccessMap &m : t.reads)
                along[j] = along[j] && reads_safe_along(m, j);
        }
        safe[n.func.name()] = along;
    }
    for (const auto &[name, stages] : plan.stages) {
        for (const TensorExpr &t : stages) {
            std::vector<bool> anywhere(t.dims.size(), false);
            for (size_t j : t.spatial_dims()) {
                bool ok = true;
                for (const AccessMap &m : t.reads)
                    ok = ok && m.affine && (!m.depends_on(j) || (!m.is_input && reads_safe_along(m, j)));
                anywhere[j] = ok;
            }
            plan.evaluable_anywhere[name].push_back(anywhere);
        }
    }
    return plan;
}

}  // namespace tessera::analysis
