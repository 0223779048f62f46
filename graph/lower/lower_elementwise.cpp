// Unary and broadcasting binary elementwise ops through the op library's unary
// and binary builders.
#include "halide_axes.h"
#include "index_maps.h"
#include "lower_rule.h"
#include "op_library.h"
#include "resolved_params.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <tuple>

namespace tessera::graph {

using Halide::Func;

namespace {

LowerRule unary(const std::string &op) {
    return [op](LowerContext &ctx) -> std::vector<Func> {
        return {build_library_op(ctx, ops::OpConfig::of(op).with("shape", shape_key(ctx.in_shape(0))), {ctx.input(0)})};
    };
}

LowerRule binary(const std::string &op) {
    return [op](LowerContext &ctx) -> std::vector<Func> {
        if (ctx.node().inputs.size() != 2) ctx.fail(op + " of " + std::to_string(ctx.node().inputs.size()) +
                                                     " inputs is not compiled (two only)");
        const ops::OpConfig config =
            ops::OpConfig::of(op).with("shape_a", shape_key(ctx.in_shape(0))).with("shape_b", shape_key(ctx.in_shape(1)));
        return {build_library_op(ctx, config, {ctx.input(0), ctx.input(1)})};
    };
}

// Mod of floats (fmod 1): a - b trunc(a / b), the dividend's sign, as C's fmod.
std::vector<Func> mod(LowerContext &ctx) {
    const Shape &y = ctx.out_shape();
    const std::vector<Halide::Var> v = ops::logical_vars(std::max<size_t>(1, y.size()), "m");
    const Halide::Expr a = ops::at(broadcast_func(ctx.input(0), ctx.in_shape(0), y, ctx.name("a")), ops::as_exprs(v));
    const Halide::Expr b = ops::at(broadcast_func(ctx.input(1), ctx.in_shape(1), y, ctx.name("b")), ops::as_exprs(v));
    Func out(ctx.name("fmod"));
    ops::ref(out, ops::as_exprs(v)) = a - b * Halide::trunc(a / b);
    return {out};
}

// Max, Min, Sum and Mean of one or more inputs: the library's binary op folded
// over them (broadcasting as it goes); Mean then scales by 1 / n.
LowerRule variadic(const std::string &op, bool mean) {
    return [op, mean](LowerContext &ctx) -> std::vector<Func> {
        const size_t n = ctx.node().inputs.size();
        if (n == 1 && !mean) return {reshape_func(ctx.input(0), ctx.in_shape(0), ctx.out_shape(), ctx.name("only"))};
        Func acc = ctx.input(0);
        Shape shape = ctx.in_shape(0);
        for (size_t k = 1; k < n; k++) {
            const ops::OpConfig config =
                ops::OpConfig::of(op).with("shape_a", shape_key(shape)).with("shape_b", shape_key(ctx.in_shape(k)));
            acc = build_library_op(ctx, config, {acc, ctx.input(k)});
            shape = *broadcast_shapes(shape, ctx.in_shape(k));
        }
        if (!mean) return {acc};
        const std::vector<Halide::Var> v = ops::logical_vars(std::max<size_t>(1, shape.size()));
        Func scaled(ctx.name("mean"));
        ops::ref(scaled, ops::as_exprs(v)) = ops::at(acc, ops::as_exprs(v)) * (1.0f / float(n));
        return {scaled};
    };
}

// An activation with attributes: those the node sets go to the library op (which
// has ONNX's defaults for the others).
LowerRule activation(const std::string &op, const std::vector<std::string> &attributes) {
    return [op, attributes](LowerContext &ctx) -> std::vector<Func> {
        ops::OpConfig config = ops::OpConfig::of(op).with("shape", shape_key(ctx.in_shape(0)));
        for (const std::string &a : attributes) {
            if (ctx.node().has_attr(a)) config.with_float(a, ctx.node().get_float(a, 0.0f));
        }
        return {build_library_op(ctx, config, {ctx.input(0)})};
    };
}

// Clip's bounds must be constants; an omitted one is no bound.
std::vector<Func> clip(LowerContext &ctx) {
    ops::OpConfig config = ops::OpConfig::of("clip").with("shape", shape_key(ctx.in_shape(0)));
    const std::optional<ClipBounds> bounds = clip_bounds(ctx.ic);
    if (!bounds) ctx.fail("Clip's bounds must be constant scalars to be compiled");
    if (bounds->lo) config.with_float("min", *bounds->lo);
    if (bounds->hi) config.with_float("max", *bounds->hi);
    return {build_library_op(ctx, config, {ctx.input(0)})};
}

}  // namespace

void register_elementwise_lowering(LowerTable &table) {
    for (const auto &[onnx, library] : std::vector<std::pair<std::string, std::string>>{
             {"Relu", "relu"}, {"Sigmoid", "sigmoid"}, {"Tanh", "tanh"}, {"Exp", "exp"}, {"Sqrt", "sqrt"},
             {"Erf", "erf"}, {"Neg", "neg"}, {"Reciprocal", "reciprocal"},
             {"Abs", "abs"}, {"Log", "log"}, {"Softsign", "softsign"}, {"Mish", "mish"}, {"Sin", "sin"}, {"Cos", "cos"},
             {"Floor", "floor"}, {"Ceil", "ceil"}, {"Round", "round"}, {"Sign", "sign"}, {"Tan", "tan"},
             {"Asin", "asin"}, {"Acos", "acos"}, {"Atan", "atan"}, {"Sinh", "sinh"}, {"Cosh", "cosh"},
             {"Asinh", "asinh"}, {"Acosh", "acosh"}, {"Atanh", "atanh"}}) {
        table[onnx] = unary(library);
    }
    // Gelu (opset 20): exact by default, the tanh form with approximate = "tanh".
    table["Gelu"] = [](LowerContext &ctx) {
        return unary(ctx.node().get_string("approximate", "none") == "tanh" ? "gelu" : "gelu_erf")(ctx);
    };
    for (const auto &[onnx, library] : std::vector<std::pair<std::string, std::string>>{
             {"Add", "add"}, {"Sub", "sub"}, {"Mul", "mul"}, {"Div", "div"}, {"Pow", "pow"}}) {
        table[onnx] = binary(library);
    }
    table["Clip"] = clip;
    // Activations whose ONNX attributes become the library op's keys.
    for (const auto &[onnx, library, attributes] : std::vector<std::tuple<std::string, std::string, std::vector<std::string>>>{
             {"HardSigmoid", "hard_sigmoid", {"alpha", "beta"}}, {"HardSwish", "hard_swish", {}},
             {"LeakyRelu", "leaky_relu", {"alpha"}}, {"Elu", "elu", {"alpha"}}, {"Selu", "selu", {"alpha", "gamma"}},
             {"Softplus", "softplus", {}}, {"ThresholdedRelu", "thresholded_relu", {"alpha"}},
             {"Shrink", "shrink", {"lambd", "bias"}}, {"Celu", "celu", {"alpha"}}}) {
        table[onnx] = activation(library, attributes);
    }
    table["PRelu"] = binary("prelu");
    table["Mod"] = mod;
    table["Max"] = variadic("max", false);
    table["Min"] = variadic("min", false);
    table["Sum"] = variadic("add", false);
    table["Mean"] = variadic("add", true);
}

}  // namespace tessera::graph
