#include "axis_split.h"

#include <algorithm>
#include <set>
#include <utility>

namespace tessera::analysis {

using namespace Halide;
using namespace Halide::Internal;

namespace {

// (v, k) of an index `v % k` or `v / k`: a variable v (simplified first: a
// reshape's index arrives as ((0*768) + v) % 64) and a constant k.
std::optional<std::pair<std::string, int64_t>> split_index(const Expr &a, const Expr &b) {
    const Expr simple = simplify(a);
    const Variable *v = simple.as<Variable>();
    const int64_t *k = as_const_int(b);
    if (!v || !k) return std::nullopt;
    return std::make_pair(v->name, *k);
}

struct SplitFinder : public IRVisitor {
    const std::vector<LoopDim> &dims;
    std::set<std::pair<std::string, int64_t>> found;
    bool other = false;  // a division or modulo of something else
    explicit SplitFinder(const std::vector<LoopDim> &d) : dims(d) {}
    using IRVisitor::visit;
    void visit(const Div *op) override { note(op->a, op->b); }
    void visit(const Mod *op) override { note(op->a, op->b); }
    void note(const Expr &a, const Expr &b) {
        if (!a.type().is_int()) {  // float arithmetic, not an index
            a.accept(this);
            b.accept(this);
            return;
        }
        const auto s = split_index(a, b);
        const bool of_dim = s && std::any_of(dims.begin(), dims.end(), [&](const LoopDim &d) {
                                return d.name == s->first && !d.reduction;
                            });
        if (of_dim) found.insert(*s);
        else other = true;
    }
};

class SplitCoordinates : public IRMutator {
public:
    explicit SplitCoordinates(const AxisSplit &s) : s_(s) {}
    using IRMutator::visit;
    Expr visit(const Div *op) override { return split(op->a, op->b) ? var(s_.div, op->type) : IRMutator::visit(op); }
    Expr visit(const Mod *op) override { return split(op->a, op->b) ? var(s_.mod, op->type) : IRMutator::visit(op); }
    Expr visit(const Variable *op) override {
        if (op->name != s_.var) return op;
        return var(s_.div, op->type) * int(s_.factor) + var(s_.mod, op->type);
    }

private:
    bool split(const Expr &a, const Expr &b) const {
        const auto s = split_index(a, b);
        return s && s->first == s_.var && s->second == s_.factor;
    }
    static Expr var(const std::string &name, Type t) { return Variable::make(t, name); }
    const AxisSplit &s_;
};

}  // namespace

std::optional<AxisSplit> find_axis_split(const std::vector<Expr> &values, const std::vector<LoopDim> &dims) {
    SplitFinder finder(dims);
    for (const Expr &e : values) e.accept(&finder);
    if (finder.other || finder.found.size() != 1) return std::nullopt;
    const auto &[var, k] = *finder.found.begin();
    if (k < 2) return std::nullopt;
    for (const LoopDim &d : dims) {
        if (d.name != var) continue;
        if (d.min != 0 || d.extent % k != 0 || d.extent == k) return std::nullopt;
        AxisSplit s;
        s.var = var;
        s.factor = k;
        s.mod = var + "_mod";
        s.div = var + "_div";
        return s;
    }
    return std::nullopt;
}

Expr split_coordinates(const Expr &e, const AxisSplit &s) {
    return SplitCoordinates(s).mutate(e);
}

std::vector<LoopDim> split_dims(const std::vector<LoopDim> &dims, const AxisSplit &s) {
    std::vector<LoopDim> out;
    for (const LoopDim &d : dims) {
        if (d.name != s.var) {
            out.push_back(d);
            continue;
        }
        out.push_back({s.mod, 0, s.factor, false});
        out.push_back({s.div, 0, d.extent / s.factor, false});
    }
    return out;
}

}  // namespace tessera::analysis
