#include "tensor_expr.h"

#include "axis_split.h"

#include <algorithm>
#include <sstream>

namespace tessera::analysis {

using namespace Halide;
using namespace Halide::Internal;

namespace {

struct CallCollector : public IRVisitor {
    std::vector<const Call *> calls;
    int64_t ops = 0;
    bool opaque = false;  // extern calls with side effects or unknown semantics
    using IRVisitor::visit;
    void visit(const Call *c) override {
        if (c->is_intrinsic(Call::require)) {
            // A checked value (a Gather's run-time index): its error path is the
            // runtime's report, not part of the computation.
            c->args[0].accept(this);
            c->args[1].accept(this);
            return;
        }
        if (c->call_type == Call::Halide || c->call_type == Call::Image) {
            calls.push_back(c);
        } else if (c->call_type == Call::Extern || c->call_type == Call::ExternCPlusPlus) {
            opaque = true;
        } else if (c->call_type == Call::PureExtern) {
            ops += 8;  // exp, tanh, sqrt ...: several instructions each
        }
        IRVisitor::visit(c);
    }
    void visit(const Add *op) override { ops++; IRVisitor::visit(op); }
    void visit(const Sub *op) override { ops++; IRVisitor::visit(op); }
    void visit(const Mul *op) override { ops++; IRVisitor::visit(op); }
    void visit(const Div *op) override { ops++; IRVisitor::visit(op); }
    void visit(const Min *op) override { ops++; IRVisitor::visit(op); }
    void visit(const Max *op) override { ops++; IRVisitor::visit(op); }
    void visit(const Select *op) override { ops++; IRVisitor::visit(op); }
};

bool constant_strides(const Parameter &param) {
    if (!param.defined()) return false;
    for (int d = 0; d < param.dimensions(); d++) {
        if (!is_const(param.stride_constraint(d))) return false;
    }
    return true;
}

AccessMap make_access(const std::string &tensor, bool is_input, const std::vector<Expr> &args,
                      const std::vector<LoopDim> &dims) {
    AccessMap m;
    m.tensor = tensor;
    m.text = tensor + "(";
    for (size_t i = 0; i < args.size(); i++) {
        std::ostringstream os;
        os << args[i];
        m.text += (i ? ", " : "") + os.str();
    }
    m.text += ")";
    m.is_input = is_input;
    for (const Expr &a : args) {
        std::vector<int64_t> row(dims.size(), 0);
        int64_t offset = 0;
        std::optional<AffineForm> f = affine_form(a);
        m.clamped.push_back(f && f->clamped);
        if (!f) {
            m.affine = false;
        } else {
            offset = f->offset;
            for (const auto &kv : f->coef) {
                auto it = std::find_if(dims.begin(), dims.end(), [&](const LoopDim &d) { return d.name == kv.first; });
                if (it == dims.end()) {
                    m.affine = false;  // a scalar parameter or a variable from elsewhere
                } else {
                    row[it - dims.begin()] = kv.second;
                }
            }
        }
        m.coef.push_back(row);
        m.offset.push_back(offset);
    }
    return m;
}

// Folds inlined producers into an expression: each call to one is replaced by its
// definition with the callee's arguments substituted.
class InlineProducers : public IRMutator {
public:
    InlineProducers(const std::function<bool(const std::string &)> &inlined, const std::map<std::string, Function> &env)
        : inlined_(inlined), env_(env) {}

    using IRMutator::visit;
    Expr visit(const Call *c) override {
        Expr e = IRMutator::visit(c);
        const Call *call = e.as<Call>();
        if (!call || call->call_type != Call::Halide || !inlined_(call->name) || !env_.count(call->name)) return e;
        const Function &g = env_.at(call->name);
        if (!g.updates().empty() || g.has_extern_definition()) return e;
        std::map<std::string, Expr> args;
        for (size_t i = 0; i < g.args().size(); i++) args[g.args()[i]] = call->args[i];
        return mutate(substitute(args, g.values()[call->value_index]));
    }

private:
    const std::function<bool(const std::string &)> &inlined_;
    const std::map<std::string, Function> &env_;
};

Expr fold_inlined(const Expr &e, const std::function<bool(const std::string &)> &inlined,
                  const std::map<std::string, Function> &env) {
    return InlineProducers(inlined, env).mutate(e);
}

// The write, reads and arithmetic of a definition (`args`, `values`) over t's
// dims. Returns whether it calls opaque externs.
bool read_definition(TensorExpr &t, const std::vector<Expr> &args, const std::vector<Expr> &values) {
    t.write = make_access(t.func, false, args, t.dims);
    CallCollector calls;
    for (const Expr &v : values) v.accept(&calls);
    t.ops_per_point = std::max<int64_t>(1, calls.ops);
    t.reads.clear();
    for (const Call *c : calls.calls) {
        if (c->name == t.func) continue;  // the accumulator itself
        t.reads.push_back(make_access(c->name, c->call_type == Call::Image, c->args, t.dims));
        t.reads.back().constant_strides = c->call_type == Call::Image && constant_strides(c->param);
    }
    return calls.opaque;
}

bool all_affine(const TensorExpr &t) {
    return t.write.affine && std::all_of(t.reads.begin(), t.reads.end(), [](const AccessMap &m) { return m.affine; });
}

}  // namespace

const char *to_string(StageClass c) {
    switch (c) {
    case StageClass::ComputeIntensive: return "compute-intensive";
    case StageClass::Reduction: return "reduction";
    case StageClass::Elementwise: return "memory-intensive";
    case StageClass::Unanalysable: return "unanalysable";
    }
    return "?";
}

bool AccessMap::depends_on(size_t j) const {
    return std::any_of(coef.begin(), coef.end(), [&](const std::vector<int64_t> &row) { return row[j] != 0; });
}

int64_t AccessMap::tile_extent(size_t d, const std::vector<int64_t> &tile) const {
    int64_t e = 1;
    for (size_t j = 0; j < tile.size(); j++) e += std::abs(coef[d][j]) * (tile[j] - 1);
    return e;
}

int64_t AccessMap::touched_extent(size_t d, const std::vector<int64_t> &tile) const {
    // Terms of the index, smallest step first: a step no longer than the span so
    // far extends the run, a longer one repeats it (indices skipped in between).
    std::vector<std::pair<int64_t, int64_t>> terms;  // (step, points)
    for (size_t j = 0; j < tile.size(); j++) {
        if (coef[d][j] != 0 && tile[j] > 1) terms.push_back({std::abs(coef[d][j]), tile[j]});
    }
    std::sort(terms.begin(), terms.end());
    int64_t count = 1, span = 1;
    for (const auto &[step, points] : terms) {
        const int64_t next_span = span + step * (points - 1);
        count = step <= span ? std::min(next_span, count * points) : count * points;
        span = next_span;
    }
    return count;
}

int64_t AccessMap::touched_elements(const std::vector<int64_t> &tile) const {
    int64_t n = 1;
    for (size_t d = 0; d < coef.size(); d++) n *= touched_extent(d, tile);
    return n;
}

int64_t AccessMap::tile_elements(const std::vector<int64_t> &tile) const {
    int64_t n = 1;
    for (size_t d = 0; d < coef.size(); d++) n *= tile_extent(d, tile);
    return n;
}

int64_t TensorExpr::points() const {
    int64_t n = 1;
    for (const LoopDim &d : dims) n *= d.extent;
    return n;
}

std::vector<size_t> TensorExpr::spatial_dims() const {
    std::vector<size_t> out;
    for (size_t j = 0; j < dims.size(); j++) {
        if (!dims[j].reduction) out.push_back(j);
    }
    return out;
}

std::vector<size_t> TensorExpr::reduction_dims() const {
    std::vector<size_t> out;
    for (size_t j = 0; j < dims.size(); j++) {
        if (dims[j].reduction) out.push_back(j);
    }
    return out;
}

int TensorExpr::find_dim(const std::string &name) const {
    for (size_t j = 0; j < dims.size(); j++) {
        if (dims[j].name == name) return int(j);
    }
    return -1;
}

std::vector<int64_t> TensorExpr::extents() const {
    std::vector<int64_t> out;
    for (const LoopDim &d : dims) out.push_back(d.extent);
    return out;
}

bool TensorExpr::reused(const AccessMap &m) const {
    for (size_t j : spatial_dims()) {
        if (dims[j].extent > 1 && !m.depends_on(j)) return true;
    }
    return false;
}

bool TensorExpr::slides_innermost(const AccessMap &m) const {
    for (size_t r : reduction_dims()) {
        if (!m.coef.empty() && m.coef[0][r] != 0) return true;
    }
    return false;
}

int TensorExpr::contiguous_write_dim() const {
    for (size_t j : spatial_dims()) {
        if (!write.coef.empty() && write.coef[0][j] == 1) return int(j);
    }
    return -1;
}

std::vector<TensorExpr> build_tensor_exprs(const FunctionNode &node,
                                           const std::function<bool(const std::string &)> &inlined,
                                           const std::map<std::string, Function> &env) {
    const Function &f = node.func;
    std::vector<TensorExpr> stages;
    for (int s = 0; s <= int(f.updates().size()); s++) {
        const Definition &def = s == 0 ? f.definition() : f.updates()[s - 1];
        TensorExpr t;
        t.func = f.name();
        t.stage = s;
        for (size_t i = 0; i < f.args().size(); i++) {
            t.dims.push_back({f.args()[i], node.region[i].min, node.region[i].extent, false});
        }
        if (s > 0) {
            for (const ReductionVariable &rv : def.schedule().rvars()) {
                const int64_t *mn = as_const_int(rv.min), *ex = as_const_int(rv.extent);
                if (!mn || !ex) {
                    t.cls = StageClass::Unanalysable;
                    t.reason = "reduction variable " + rv.var + " has a non-constant domain";
                    t.dims.push_back({rv.var, 0, 1, true});
                } else {
                    t.dims.push_back({rv.var, *mn, *ex, true});
                }
            }
        }
        t.element_bytes = f.output_types().front().bytes();

        std::vector<Expr> folded;
        // Lets substituted: Halide's Function::define runs CSE, so an index the
        // definition uses twice (a key's position in a mask and a bound test) reads
        // as a let variable, which no access map can follow.
        for (const Expr &v : def.values()) folded.push_back(substitute_in_all_lets(fold_inlined(v, inlined, env)));
        const bool opaque = read_definition(t, def.args(), folded);
        // A pure stage affine once one of its dims is seen split (v % k, v / k).
        if (!all_affine(t) && s == 0 && f.updates().empty() && !opaque) {
            if (std::optional<AxisSplit> split = find_axis_split(folded, t.dims)) {
                TensorExpr seen = t;
                seen.dims = split_dims(t.dims, *split);
                std::vector<Expr> args, values;
                for (const Expr &a : def.args()) args.push_back(split_coordinates(a, *split));
                for (const Expr &v : folded) values.push_back(split_coordinates(v, *split));
                read_definition(seen, args, values);
                if (all_affine(seen)) {
                    for (const AccessMap &m : t.reads) {
                        if (!m.affine) split->access = m.text;
                    }
                    seen.split = split;
                    t = seen;
                }
            }
        }

        // Classification.
        if (t.cls == StageClass::Unanalysable) {
            // already explained
        } else if (opaque || f.has_extern_definition()) {
            t.cls = StageClass::Unanalysable;
            t.reason = "extern call";
        } else if (!all_affine(t)) {
            t.cls = StageClass::Unanalysable;
            for (const AccessMap &m : t.reads) {
                // The access as written, cut short: a computed index can be a page of IR.
                if (!m.affine) t.reason = "non-affine access " + (m.text.size() > 120 ? m.text.substr(0, 117) + "..." : m.text);
            }
            if (!t.write.affine) t.reason = "update writes a non-affine location (scatter)";
        } else if (s == 0 && !f.updates().empty()) {
            t.cls = StageClass::Elementwise;  // the initial value of a reduction
        } else if (t.reduction_dims().empty()) {
            t.cls = StageClass::Elementwise;
        } else {
            // Roller's test: reuse grows with the tile when some operand ignores a
            // spatial dimension that has more than one point.
            int64_t reduction_points = 1;
            for (size_t j : t.reduction_dims()) reduction_points *= t.dims[j].extent;
            bool reuse = false;
            for (const AccessMap &m : t.reads) reuse |= t.reused(m);
            // A small window whose every operand varies along the innermost dim (an
            // NHWC depthwise convolution: vector x vector products, no operand to
            // broadcast) is computed like pooling, at its consumer's rows; NCHW
            // depthwise broadcasts its weights along x and stays compute-intensive.
            bool broadcast_inner = false;
            const std::vector<size_t> spatial = t.spatial_dims();
            for (const AccessMap &m : t.reads) broadcast_inner |= !spatial.empty() && !m.depends_on(spatial.front());
            // A channel-blocked one (NCHW[16]c: the innermost dim a block of at most
            // one vector of channels, its weights w(oi, .., ob) indexed by the block
            // too, unlike NHWC's w(c, ..)) is not: its rProgram's register tile spans
            // pixels with the accumulators in registers, where the rows schedule
            // kept them in memory (3x3 32x112x112 0.175 -> 0.087 ms, oneDNN 0.085;
            // Zen 4, side by side).
            bool channel_blocks = !spatial.empty() && t.dims[spatial.front()].extent <= kMaxBlockLanes;
            bool blocked_operand = false;
            for (const AccessMap &m : t.reads) {
                if (spatial.empty() || !m.depends_on(spatial.front())) continue;
                size_t others = 0;
                for (size_t j : spatial) others += j != spatial.front() && m.depends_on(j) ? 1 : 0;
                blocked_operand |= others > 0 && others + 1 < spatial.size();
            }
            channel_blocks = channel_blocks && blocked_operand;
            const bool small_window =
                reduction_points < kMinComputeReductionPoints && !broadcast_inner && !channel_blocks;
            // A matrix-vector product (one output column: its innermost spatial dim
            // has one point) reuses only its vector while its matrix streams: a
            // reduction, vectorised along its reduction dim (a GEMV's rows). As a
            // compute-intensive stage its register tile had no vector dim and ran
            // scalar FMAs: M=1000 K=1000 0.34 -> 0.13 ms side by side (oneDNN 0.07-0.11).
            bool single_column = !spatial.empty() && t.dims[spatial.front()].extent == 1;
            // ... whose matrix is read along the reduction (k innermost in storage):
            // stored with its rows innermost (trans_a), the compute-intensive program
            // vectorises along them (0.18 ms for 1000x1000; as a reduction 0.66).
            for (const AccessMap &m : t.reads) {
                bool wide = false;
                for (size_t j : spatial) wide |= t.dims[j].extent > 1 && m.depends_on(j);
                if (wide && !t.slides_innermost(m)) single_column = false;
            }
            const bool intensive = reuse && reduction_points >= 8 && !small_window && !single_column;
            t.cls = intensive ? StageClass::ComputeIntensive : StageClass::Reduction;
        }
        stages.push_back(t);
    }
    return stages;
}

}  // namespace tessera::analysis
