#include "reduction.h"

#include "halide_axes.h"

#include <algorithm>
#include <functional>
#include <stdexcept>

namespace tessera::ops {

using namespace Halide;

Func reduce(const ReduceParams &p, const Func &input) {
    // RDom dimensions are listed innermost first: the last reduced logical axis first.
    Region extents;
    for (auto it = p.axes.rbegin(); it != p.axes.rend(); ++it) extents.emplace_back(0, int(p.shape[*it]));
    RDom r(extents, "r");

    std::vector<Var> out_vars = logical_vars(p.out_shape.size());
    std::vector<Expr> in_coords;
    size_t kept = 0;
    for (size_t axis = 0; axis < p.shape.size(); axis++) {
        auto pos = std::find(p.axes.begin(), p.axes.end(), int(axis));
        if (pos != p.axes.end()) {
            in_coords.push_back(r[int(p.axes.end() - pos) - 1]);
        } else {
            in_coords.push_back(out_vars[kept++]);
        }
    }

    const std::vector<Expr> out = as_exprs(out_vars);
    const Expr x = at(input, in_coords);
    // One update per kind; the others finish the accumulated value pointwise.
    auto accumulate = [&](const char *name, Expr init, const std::function<Expr(Expr, Expr)> &update) {
        Func f(name);
        ref(f, out) = init;
        ref(f, out) = update(at(f, out), x);
        return f;
    };
    auto pointwise = [&](const char *name, const Expr &value) {
        Func f(name);
        ref(f, out) = value;
        return f;
    };
    auto plus = [](Expr a, Expr b) { return a + b; };
    float count = 1.0f;
    for (int axis : p.axes) count *= float(p.shape[axis]);
    switch (p.kind) {
    case ReduceKind::Sum: return accumulate("reduce_sum", 0.0f, plus);
    case ReduceKind::Mean: {
        Func total = accumulate("reduce_sum", 0.0f, plus);
        return pointwise("reduce_mean", at(total, out) * (1.0f / count));
    }
    case ReduceKind::Max:
        return accumulate("reduce_max", Float(32).min(), [](Expr a, Expr b) { return max(a, b); });
    case ReduceKind::Min:
        return accumulate("reduce_min", Float(32).max(), [](Expr a, Expr b) { return min(a, b); });
    case ReduceKind::Prod: return accumulate("reduce_prod", 1.0f, [](Expr a, Expr b) { return a * b; });
    case ReduceKind::L1: return accumulate("reduce_l1", 0.0f, [](Expr a, Expr b) { return a + abs(b); });
    case ReduceKind::SumSquare:
        return accumulate("reduce_sum_square", 0.0f, [](Expr a, Expr b) { return a + b * b; });
    case ReduceKind::L2: {
        Func squares = accumulate("reduce_sum_square", 0.0f, [](Expr a, Expr b) { return a + b * b; });
        return pointwise("reduce_l2", sqrt(at(squares, out)));
    }
    case ReduceKind::LogSum: {
        Func total = accumulate("reduce_sum", 0.0f, plus);
        return pointwise("reduce_log_sum", log(at(total, out)));
    }
    case ReduceKind::LogSumExp: {
        // log(sum(exp(x - m))) + m with m the max, so that exp cannot overflow; an
        // all -inf row keeps m = -inf out of the exponent (its sum is 0, its log -inf).
        Func top = accumulate("reduce_lse_max", Float(32).min(), [](Expr a, Expr b) { return max(a, b); });
        const Expr m = at(top, out);
        const Expr shift = select(is_inf(m), 0.0f, m);
        Func total("reduce_lse_sum");
        ref(total, out) = 0.0f;
        ref(total, out) = at(total, out) + exp(x - shift);
        return pointwise("reduce_log_sum_exp", log(at(total, out)) + shift);
    }
    }
    throw std::logic_error("unknown reduction kind");
}

}  // namespace tessera::ops
