// Softmax, LogSoftmax, LayerNormalization, BatchNormalization and the reductions
// through the op library's softmax, log_softmax, layer_norm, batch_norm and reduce_*, with ONNX's forms
// (coerced 2-D softmax, multi-axis layer norm, keepdims) as reshapes around them.
#include "halide_axes.h"
#include "index_maps.h"
#include "lower_rule.h"
#include "op_library.h"
#include "resolved_params.h"

#include <algorithm>
#include <sstream>

namespace tessera::graph {

using Halide::Func;

namespace {

// Softmax or LogSoftmax (`op`: the library's softmax or log_softmax).
std::vector<Func> softmax(LowerContext &ctx, const char *op) {
    const SoftmaxGeometry geo = softmax_geometry(ctx.ic);
    const Shape &shape = ctx.in_shape(0);
    // One axis normalised (opset 13 on, or the last axis before it): the library's
    // softmax along it, no reshape (a merge of axes is a division the scheduler
    // cannot analyse).
    const int64_t last = int64_t(shape.size()) - 1;
    if (!shape.empty() && (geo.inner == 1 ? geo.n == shape.back() : true) && (ctx.ic.opset >= 13 || geo.inner == 1)) {
        const int64_t axis = geo.inner == 1 ? last : ctx.ic.axis(ctx.node().get_int("axis", -1), last + 1, "axis");
        return {build_library_op(ctx, ops::OpConfig::of(op).with("shape", shape_key(shape)).with("axis", axis),
                                 {ctx.input(0)})};
    }
    if (geo.inner == 1) {
        const Shape rows = {geo.outer, geo.n};
        Func x = reshape_func(ctx.input(0), shape, rows, ctx.name("rows"));
        Func y = build_library_op(ctx, ops::OpConfig::of(op).with("shape", shape_key(rows)).with("axis", -1), {x});
        return {reshape_func(y, rows, ctx.out_shape(), ctx.name("out"))};
    }
    const Shape view = {geo.outer, geo.n, geo.inner};
    Func x = reshape_func(ctx.input(0), shape, view, ctx.name("view"));
    Func y = build_library_op(ctx, ops::OpConfig::of(op).with("shape", shape_key(view)).with("axis", 1), {x});
    return {reshape_func(y, view, ctx.out_shape(), ctx.name("out"))};
}

// Hardmax over the [outer, n, inner] view: the maximum along n, then the first
// position holding it (the least index where x equals it), then 1 there and 0 elsewhere.
std::vector<Func> hardmax(LowerContext &ctx) {
    const SoftmaxGeometry geo = softmax_geometry(ctx.ic);
    const Shape view = {geo.outer, geo.n, geo.inner};
    Func x = reshape_func(ctx.input(0), ctx.in_shape(0), view, ctx.name("view"));
    Halide::Var i("i"), j("j"), o("o");
    Halide::RDom r(0, int(geo.n), ctx.name("r"));
    Func largest(ctx.name("largest")), first(ctx.name("first")), y(ctx.name("hardmax"));
    largest(i, o) = Halide::maximum(x(i, r, o));
    first(i, o) = Halide::minimum(Halide::select(x(i, r, o) == largest(i, o), r.x, int(geo.n)));
    y(i, j, o) = Halide::select(j == first(i, o), 1.0f, 0.0f);
    return {reshape_func(y, view, ctx.out_shape(), ctx.name("out"))};
}

std::vector<Func> layer_norm(LowerContext &ctx) {
    const Shape &shape = ctx.in_shape(0);
    const int64_t axis = layer_norm_axis(ctx.ic);
    const Shape tail(shape.begin() + axis, shape.end());
    const int64_t count = num_elements(tail), rows = num_elements(shape) / count;
    const double epsilon = ctx.node().get_float("epsilon", 1e-5f);
    auto layer_norm_op = [&](const Shape &s) {
        return ops::OpConfig::of("layer_norm").with("shape", shape_key(s)).with_float("epsilon", epsilon);
    };
    if (axis == int64_t(shape.size()) - 1 && ctx.ic.has(2)) {
        // Over the last axis: the library's layer_norm on the tensor as it is.
        return {build_library_op(ctx, layer_norm_op(shape),
                                 {ctx.input(0), reshape_func(ctx.input(1), ctx.in_shape(1), {count}, ctx.name("gamma")),
                                  reshape_func(ctx.input(2), ctx.in_shape(2), {count}, ctx.name("beta"))})};
    }
    Func x = reshape_func(ctx.input(0), shape, {rows, count}, ctx.name("rows"));
    Func gamma = reshape_func(ctx.input(1), ctx.in_shape(1), {count}, ctx.name("gamma"));
    Func beta(ctx.name("beta"));
    if (ctx.ic.has(2)) {
        beta = reshape_func(ctx.input(2), ctx.in_shape(2), {count}, ctx.name("beta"));
    } else {
        Halide::Var i("i");
        beta(i) = 0.0f;
    }
    Func y = build_library_op(ctx, layer_norm_op({rows, count}), {x, gamma, beta});
    return {reshape_func(y, {rows, count}, ctx.out_shape(), ctx.name("out"))};
}

// The library's layer_norm over each (n, c) plane as a row (gamma 1, beta 0), then
// scale[c] and B[c].
std::vector<Func> instance_norm(LowerContext &ctx) {
    const Shape &shape = ctx.in_shape(0);
    const int64_t planes = shape[0] * shape[1], size = num_elements(shape) / planes;
    Halide::Var i("i");
    Func ones(ctx.name("ones")), zeros(ctx.name("zeros"));
    ones(i) = 1.0f;
    zeros(i) = 0.0f;
    Func rows = reshape_func(ctx.input(0), shape, {planes, size}, ctx.name("planes"));
    const ops::OpConfig config = ops::OpConfig::of("layer_norm")
                                     .with("shape", shape_key({planes, size}))
                                     .with_float("epsilon", ctx.node().get_float("epsilon", 1e-5f));
    Func normalised = reshape_func(build_library_op(ctx, config, {rows, ones, zeros}), {planes, size}, shape,
                                   ctx.name("normalised"));
    std::vector<Halide::Var> v = ops::logical_vars(shape.size(), "in");
    Func out(ctx.name("scaled"));
    const std::vector<Halide::Expr> point = ops::as_exprs(v);
    ops::ref(out, point) = ops::at(normalised, point) * ops::at(ctx.input(1), {v[1]}) + ops::at(ctx.input(2), {v[1]});
    return {out};
}

std::vector<Func> batch_norm(LowerContext &ctx) {
    return {build_library_op(ctx,
                             ops::OpConfig::of("batch_norm")
                                 .with("shape", shape_key(ctx.in_shape(0)))
                                 .with("axis", 1)
                                 .with_float("epsilon", ctx.node().get_float("epsilon", 1e-5f)),
                             {ctx.input(0), ctx.input(1), ctx.input(2), ctx.input(3), ctx.input(4)})};
}

// A reduction through the library's reduce_<kind> (`op`).
std::vector<Func> reduce(LowerContext &ctx, const std::string &op) {
    const Shape &shape = ctx.in_shape(0);
    const std::vector<int64_t> axes = reduce_axes(ctx.ic);
    if (axes.empty()) return {reshape_func(ctx.input(0), shape, ctx.out_shape(), ctx.name("noop"))};  // the identity
    Shape kept;
    for (size_t i = 0; i < shape.size(); i++) {
        if (std::find(axes.begin(), axes.end(), int64_t(i)) == axes.end()) kept.push_back(shape[i]);
    }
    Func y = build_library_op(ctx, ops::OpConfig::of(op).with("shape", shape_key(shape)).with_list("axes", axes),
                              {ctx.input(0)});
    // The library drops the reduced axes ([1] for a full reduction); keepdims puts 1s back.
    return {reshape_func(y, kept.empty() ? Shape{1} : kept, ctx.out_shape(), ctx.name("out"))};
}

}  // namespace

void register_normalization_lowering(LowerTable &table) {
    table["Softmax"] = [](LowerContext &ctx) { return softmax(ctx, "softmax"); };
    table["LogSoftmax"] = [](LowerContext &ctx) { return softmax(ctx, "log_softmax"); };
    table["Hardmax"] = hardmax;
    table["LayerNormalization"] = layer_norm;
    table["BatchNormalization"] = batch_norm;
    table["InstanceNormalization"] = instance_norm;
    for (const auto &[onnx, library] : std::vector<std::pair<std::string, std::string>>{
             {"ReduceSum", "reduce_sum"}, {"ReduceMean", "reduce_mean"}, {"ReduceMax", "reduce_max"},
             {"ReduceMin", "reduce_min"}, {"ReduceProd", "reduce_prod"}, {"ReduceL1", "reduce_l1"},
             {"ReduceL2", "reduce_l2"}, {"ReduceLogSum", "reduce_log_sum"}, {"ReduceLogSumExp", "reduce_log_sum_exp"},
             {"ReduceSumSquare", "reduce_sum_square"}}) {
        table[onnx] = [library = library](LowerContext &ctx) { return reduce(ctx, library); };
    }
}

}  // namespace tessera::graph
