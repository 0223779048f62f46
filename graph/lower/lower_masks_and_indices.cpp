// Rules for the values models compute besides fp32 activations: Cast between fp32
// and the integer-like types, comparisons and logic that make masks, Where that
// applies them, ArgMax/ArgMin, CumSum (fp32 or integer), and the arithmetic of
// indices (position ids computed from a mask: Add, Sub, Mul, Div, Mod, Neg, Abs,
// Relu, Max, Min, Sum of integers). Integer-like values are int64 Funcs in compiled
// code (boundary_type); a boolean is 0 or 1.
#include "halide_axes.h"
#include "index_maps.h"
#include "lower_partition.h"
#include "lower_rule.h"

#include <algorithm>

namespace tessera::graph {

using Halide::Expr;
using Halide::Func;
using Halide::Var;

namespace {

Expr as_int64(const Expr &condition) {
    return Halide::select(condition, Expr(int64_t(1)), Expr(int64_t(0)));
}

// Input k read at the output's coordinates `v` (ONNX's multidirectional broadcast).
Expr broadcast_read(LowerContext &ctx, size_t k, const std::vector<Var> &v) {
    const Func b = broadcast_func(ctx.input(k), ctx.in_shape(k), ctx.out_shape(), ctx.name("in" + std::to_string(k)));
    return ops::at(b, ops::as_exprs(v));
}

// out(v) = value(v) over the output's shape.
Func elementwise(LowerContext &ctx, const std::string &suffix,
                 const std::function<Expr(const std::vector<Var> &)> &value) {
    std::vector<Var> v = ops::logical_vars(ctx.out_shape().size(), "m");
    Func out(ctx.name(suffix));
    ops::ref(out, ops::as_exprs(v)) = value(v);
    return out;
}

std::vector<Func> cast(LowerContext &ctx) {
    const DType to = ctx.g.value(ctx.node().outputs[0]).dtype;
    return {elementwise(ctx, "cast", [&](const std::vector<Var> &v) {
        const Expr x = broadcast_read(ctx, 0, v);
        if (to == DType::boolean) return as_int64(x != Halide::cast(x.type(), 0));
        return Halide::cast(boundary_type(to), x);
    })};
}

std::vector<Func> comparison(LowerContext &ctx) {
    const std::string &op = ctx.node().op_type;
    return {elementwise(ctx, "compare", [&](const std::vector<Var> &v) {
        const Expr a = broadcast_read(ctx, 0, v), b = broadcast_read(ctx, 1, v);
        if (op == "Equal") return as_int64(a == b);
        if (op == "Greater") return as_int64(a > b);
        if (op == "Less") return as_int64(a < b);
        if (op == "GreaterOrEqual") return as_int64(a >= b);
        return as_int64(a <= b);
    })};
}

std::vector<Func> logic(LowerContext &ctx) {
    const std::string &op = ctx.node().op_type;
    return {elementwise(ctx, "logic", [&](const std::vector<Var> &v) {
        const Expr a = broadcast_read(ctx, 0, v) != Expr(int64_t(0));
        if (op == "Not") return as_int64(!a);
        const Expr b = broadcast_read(ctx, 1, v) != Expr(int64_t(0));
        if (op == "And") return as_int64(a && b);
        if (op == "Or") return as_int64(a || b);
        return as_int64(a != b);
    })};
}

std::vector<Func> where(LowerContext &ctx) {
    return {elementwise(ctx, "where", [&](const std::vector<Var> &v) {
        return Halide::select(broadcast_read(ctx, 0, v) != Expr(int64_t(0)), broadcast_read(ctx, 1, v),
                              broadcast_read(ctx, 2, v));
    })};
}

// ArgMax/ArgMin along one axis: the extreme first, then the first (or, with
// select_last_index, the last) position that holds it. Two single-valued reductions
// rather than one over a tuple, which the schedulers take like any other reduction.
std::vector<Func> arg_extreme(LowerContext &ctx) {
    const bool max = ctx.node().op_type == "ArgMax";
    const Shape &x = ctx.in_shape(0);
    const int64_t axis = ctx.ic.axis(ctx.node().get_int("axis", 0), int64_t(x.size()), "axis");
    const bool keep = ctx.node().get_int("keepdims", 1) != 0, last = ctx.node().get_int("select_last_index", 0) != 0;
    const int n = int(x[size_t(axis)]);
    // Reduced Funcs are indexed like the input with the axis left out.
    std::vector<Var> v = ops::logical_vars(x.size() - 1, "a");
    Halide::RDom r(0, n, ctx.name("r"));
    std::vector<Expr> coords = ops::as_exprs(v);
    coords.insert(coords.begin() + axis, r.x);
    const Expr value = ops::at(ctx.input(0), coords);
    Func extreme(ctx.name(max ? "max" : "min"));
    ops::ref(extreme, ops::as_exprs(v)) = max ? Halide::maximum(value) : Halide::minimum(value);
    const Expr hit = value == ops::at(extreme, ops::as_exprs(v));
    Func position(ctx.name("position"));
    ops::ref(position, ops::as_exprs(v)) =
        last ? Halide::maximum(Halide::select(hit, r.x, -1)) : Halide::minimum(Halide::select(hit, r.x, n));
    std::vector<Var> o = ops::logical_vars(ctx.out_shape().size(), "o");
    std::vector<Expr> at_out = ops::as_exprs(o);
    if (keep) at_out.erase(at_out.begin() + axis);
    Func out(ctx.name(max ? "argmax" : "argmin"));
    ops::ref(out, ops::as_exprs(o)) = Halide::cast<int64_t>(ops::at(position, at_out));
    return {out};
}

// The divisor, checked: an integer division by zero stops the run naming the node
// (C's is undefined, Halide's gives 0).
Expr checked_divisor(LowerContext &ctx, const Expr &b) {
    return Halide::require(b != Expr(int64_t(0)), b, ctx.node().op_type + " '" + ctx.node().name + "':",
                           "integer division by zero");
}

// Integer arithmetic, as ONNX (and C) defines it: Div truncates toward zero; Mod takes
// the divisor's sign (fmod = 0, Python's %) or the dividend's (fmod = 1, C's %).
std::vector<Func> integer_arithmetic(LowerContext &ctx) {
    const std::string &op = ctx.node().op_type;
    const size_t n = ctx.node().inputs.size();
    return {elementwise(ctx, "int_" + op, [&](const std::vector<Var> &v) {
        Expr a = broadcast_read(ctx, 0, v);
        if (op == "Neg") return -a;
        if (op == "Relu") return Halide::max(a, Expr(int64_t(0)));
        if (op == "Abs") return Halide::max(a, -a);
        if (op == "Max" || op == "Min" || op == "Sum") {
            for (size_t k = 1; k < n; k++) {
                const Expr b = broadcast_read(ctx, k, v);
                a = op == "Max" ? Halide::max(a, b) : op == "Min" ? Halide::min(a, b) : a + b;
            }
            return a;
        }
        const Expr b = broadcast_read(ctx, 1, v);
        if (op == "Add") return a + b;
        if (op == "Sub") return a - b;
        if (op == "Mul") return a * b;
        const Expr d = checked_divisor(ctx, b);
        if (op == "Div") return Halide::div_round_to_zero(a, d);
        const Expr r = Halide::mod_round_to_zero(a, d);  // the dividend's sign
        if (ctx.node().get_int("fmod", 0) != 0) return r;
        return Halide::select(r != Expr(int64_t(0)) && ((r < Expr(int64_t(0))) != (d < Expr(int64_t(0)))), r + d, r);
    })};
}

// CumSum as a plain reduction: out(.., j, ..) sums x(.., r, ..) over every r its
// running sum covers (r <= j; r < j exclusive; r >= j or r > j in reverse). Quadratic in
// the axis (a sequence's length, where models take running sums), but a reduction the
// schedulers analyse, where a sequential scan's update would not be.
std::vector<Func> cumsum(LowerContext &ctx) {
    const Shape &x = ctx.in_shape(0);
    const int64_t axis = ctx.ic.axis((*ctx.ic.int_values(1))[0], int64_t(x.size()), "axis");
    const bool exclusive = ctx.node().get_int("exclusive", 0) != 0, reverse = ctx.node().get_int("reverse", 0) != 0;
    std::vector<Var> v = ops::logical_vars(x.size(), "s");
    Halide::RDom r(0, int(x[size_t(axis)]), ctx.name("r"));
    std::vector<Expr> coords = ops::as_exprs(v);
    coords[size_t(axis)] = r.x;
    const Expr j = v[size_t(axis)];
    const Expr covered = reverse ? (exclusive ? r.x > j : r.x >= j) : (exclusive ? r.x < j : r.x <= j);
    const Expr value = ops::at(ctx.input(0), coords);
    Func out(ctx.name("cumsum"));
    ops::ref(out, ops::as_exprs(v)) = Halide::sum(Halide::select(covered, value, Halide::cast(value.type(), 0)));
    return {out};
}

}  // namespace

const std::vector<std::string> &integer_arithmetic_ops() {
    static const std::vector<std::string> ops = {"Add", "Sub", "Mul", "Div", "Mod", "Neg", "Abs", "Relu", "Max", "Min", "Sum"};
    return ops;
}

// The rules of this file by op type (every one takes integer values).
const LowerTable &mask_and_index_rules() {
    static const LowerTable rules = {
        {"Cast", cast},        {"Equal", comparison}, {"Greater", comparison}, {"Less", comparison},
        {"GreaterOrEqual", comparison}, {"LessOrEqual", comparison}, {"Not", logic},  {"And", logic},
        {"Or", logic},         {"Xor", logic},        {"Where", where},        {"ArgMax", arg_extreme},
        {"ArgMin", arg_extreme}, {"CumSum", cumsum}};
    return rules;
}

bool has_integer_rule(const std::string &op_type) {
    const std::vector<std::string> &arithmetic = integer_arithmetic_ops();
    return mask_and_index_rules().count(op_type) > 0 ||
           std::find(arithmetic.begin(), arithmetic.end(), op_type) != arithmetic.end();
}

void register_mask_and_index_lowering(LowerTable &table) {
    // The fp32 rules (the op library's) stay; an integer node takes these.
    for (const std::string &op : integer_arithmetic_ops()) {
        LowerRule fp32 = table.at(op);
        table[op] = [fp32](LowerContext &ctx) {
            return is_integer(ctx.g.value(ctx.node().outputs[0]).dtype) ? integer_arithmetic(ctx) : fp32(ctx);
        };
    }
    for (const auto &[op, rule] : mask_and_index_rules()) table[op] = rule;
}

}  // namespace tessera::graph
