// BatchNormalization (inference), LayerNormalization (opset 17), Softmax (both
// definitions) and the reductions (ReduceSum, ReduceMean, ReduceMax, ...).
#include "resolved_params.h"

#include <algorithm>

namespace tessera::graph {

SoftmaxGeometry softmax_geometry(const InferContext &ctx) {
    const Shape &x = ctx.shape(0);
    int64_t r = int64_t(x.size());
    bool coerce_2d = ctx.opset < 13;
    int64_t axis = ctx.axis(ctx.node.get_int("axis", coerce_2d ? 1 : -1), std::max<int64_t>(r, 1), "axis");
    SoftmaxGeometry g;
    for (int64_t i = 0; i < r; i++) {
        if (i < axis)
            g.outer *= x[i];
        else if (i == axis || coerce_2d)
            g.n *= x[i];
        else
            g.inner *= x[i];
    }
    return g;
}

std::vector<int64_t> reduce_axes(const InferContext &ctx) {
    int64_t r = ctx.rank(0);
    std::vector<int64_t> given = ctx.node.get_ints("axes", {});
    bool present = ctx.node.has_attr("axes");
    if (ctx.has(1)) {  // an input from opset 18 on
        auto v = ctx.int_values(1);
        if (!v) ctx.fail("axes must be a constant (reductions over run-time axes are not compiled)");
        given = *v;
        present = !given.empty();
    }
    if (!present && ctx.node.get_int("noop_with_empty_axes", 0) != 0) return {};  // the identity
    std::vector<int64_t> axes;
    if (!present)
        for (int64_t i = 0; i < r; i++)
            axes.push_back(i);
    for (int64_t a : given)
        axes.push_back(ctx.axis(a, r, "axis"));
    std::sort(axes.begin(), axes.end());
    if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) ctx.fail("axes repeat an axis");
    return axes;
}

int64_t layer_norm_axis(const InferContext &ctx) {
    return ctx.axis(ctx.node.get_int("axis", -1), ctx.rank(0), "axis");
}

namespace {

void require_f32(const InferContext &ctx) {
    for (size_t k = 0; k < ctx.in.size(); k++)
        ctx.require_dtype(k, {DType::f32});
}

bool infer_batch_norm(InferContext &ctx) {
    const Shape &x = ctx.shape(0);
    if (x.size() < 2) ctx.fail("input X must have rank 2 or more, got " + shape_string(x));
    static const char *names[] = {"", "scale", "B", "mean", "var"};
    for (size_t k = 1; k < 5; k++)
        if (ctx.shape(k) != Shape{x[1]})
            ctx.fail(std::string(names[k]) + " has shape " + shape_string(ctx.shape(k)) + ", expected [" +
                     std::to_string(x[1]) + "]");
    ctx.set_output(0, DType::f32, x);
    return true;
}

bool infer_layer_norm(InferContext &ctx) {
    const Shape &x = ctx.shape(0);
    int64_t axis = layer_norm_axis(ctx);
    Shape normalized(x.begin() + axis, x.end());
    for (size_t k = 1; k < 3; k++) {
        if (!ctx.has(k)) continue;
        auto b = broadcast_shapes(ctx.shape(k), normalized);
        if (!b || *b != normalized)
            ctx.fail(std::string(k == 1 ? "Scale" : "B") + " of shape " + shape_string(ctx.shape(k)) +
                     " does not broadcast to the normalised shape " + shape_string(normalized));
    }
    ctx.set_output(0, DType::f32, x);
    // Mean and InvStdDev keep the leading axes and have 1 for each normalised one.
    Shape stat(x.begin(), x.begin() + axis);
    stat.resize(x.size(), 1);
    for (size_t k = 1; k < ctx.out.size(); k++)
        ctx.set_output(k, DType::f32, stat);
    return true;
}

bool infer_reduce(InferContext &ctx) {
    if (ctx.has(1) && !ctx.int_values(1)) return false;  // axes computed at run time: shape unknown
    std::vector<int64_t> axes = reduce_axes(ctx);
    bool keep = ctx.node.get_int("keepdims", 1) != 0;
    Shape out;
    for (int64_t i = 0; i < ctx.rank(0); i++) {
        bool reduced = std::binary_search(axes.begin(), axes.end(), i);
        if (!reduced)
            out.push_back(ctx.shape(0)[i]);
        else if (keep)
            out.push_back(1);
    }
    ctx.set_output(0, DType::f32, out);
    return true;
}

} // namespace

void register_normalization_rules(RuleTable &table) {
    OpRule bn;
    bn.attributes = {"epsilon", "momentum", "training_mode", "spatial"};  // spatial: opsets 7-8
    bn.min_inputs = bn.max_inputs = 5;
    bn.check = [](const InferContext &ctx) {
        if (ctx.node.get_int("spatial", 1) != 1)
            ctx.fail("spatial 0 (statistics per activation, not per channel) is not supported");
        if (ctx.node.get_int("training_mode", 0) != 0)
            ctx.fail("training_mode " + std::to_string(ctx.node.get_int("training_mode", 0)) +
                     " is not supported (supported: 0, inference)");
        require_f32(ctx);
    };
    bn.infer = infer_batch_norm;
    table["BatchNormalization"] = bn;

    OpRule ln;
    ln.min_opset = 17;
    ln.attributes = {"axis", "epsilon", "stash_type"};
    ln.min_inputs = 2;
    ln.max_inputs = 3;
    ln.max_outputs = 3;
    ln.check = require_f32;
    ln.infer = infer_layer_norm;
    table["LayerNormalization"] = ln;

    // InstanceNormalization: x [N, C, D1..Dn] normalised per (n, c) over D1..Dn, then
    // scale[C] and B[C].
    OpRule instance;
    instance.attributes = {"epsilon"};
    instance.min_inputs = instance.max_inputs = 3;
    instance.check = require_f32;
    instance.infer = [](InferContext &ctx) {
        const Shape &x = ctx.shape(0);
        if (x.size() < 3) ctx.fail("input must have rank 3 or more (N, C, spatial...), got " + shape_string(x));
        for (size_t k = 1; k <= 2; k++)
            if (ctx.shape(k) != Shape{x[1]})
                ctx.fail(std::string(k == 1 ? "scale" : "B") + " of shape " + shape_string(ctx.shape(k)) +
                         " is not [C] = " + shape_string({x[1]}));
        ctx.set_output(0, DType::f32, x);
        return true;
    };
    table["InstanceNormalization"] = instance;

    // LRN: each element divided by (bias + alpha / size * the sum of squares over the
    // `size` channels around it)^beta, on [N, C, ...].
    OpRule lrn;
    lrn.attributes = {"alpha", "beta", "bias", "size"};
    lrn.check = [](const InferContext &ctx) {
        require_f32(ctx);
        if (ctx.node.get_int("size", 0) < 1) ctx.fail("attribute 'size' is required and must be at least 1");
    };
    lrn.infer = [](InferContext &ctx) {
        if (ctx.rank(0) < 3) ctx.fail("input must have rank 3 or more (N, C, spatial...), got " + shape_string(ctx.shape(0)));
        ctx.set_output(0, DType::f32, ctx.shape(0));
        return true;
    };
    table["LRN"] = lrn;

    // MeanVarianceNormalization: (x - mean) / (sqrt(variance) + 1e-9) over `axes`
    // (default 0, 2, 3), the variance as E[x^2] - E[x]^2, as ONNX defines it.
    OpRule mvn;
    mvn.min_opset = 9;
    mvn.attributes = {"axes"};
    mvn.check = require_f32;
    mvn.infer = [](InferContext &ctx) {
        for (int64_t a : ctx.node.get_ints("axes", {0, 2, 3})) ctx.axis(a, ctx.rank(0), "axes");
        ctx.set_output(0, DType::f32, ctx.shape(0));
        return true;
    };
    table["MeanVarianceNormalization"] = mvn;

    OpRule softmax;
    softmax.attributes = {"axis"};
    softmax.check = require_f32;
    softmax.infer = [](InferContext &ctx) {
        softmax_geometry(ctx); // validates the axis
        ctx.set_output(0, DType::f32, ctx.shape(0));
        return true;
    };
    table["Softmax"] = softmax;
    table["LogSoftmax"] = softmax;  // the same axis rules (2-D coercion before opset 13)
    table["Hardmax"] = softmax;     // 1 at each slice's first maximum, 0 elsewhere

    // The reductions: axes an attribute before opset 13 (ReduceSum) or 18 (the
    // others), an input from then on.
    for (const auto &[op, axes_input_from] : std::vector<std::pair<const char *, int>>{
             {"ReduceSum", 13}, {"ReduceMean", 18}, {"ReduceMax", 18}, {"ReduceMin", 18}, {"ReduceProd", 18},
             {"ReduceL1", 18}, {"ReduceL2", 18}, {"ReduceLogSum", 18}, {"ReduceLogSumExp", 18},
             {"ReduceSumSquare", 18}}) {
        OpRule r;
        r.attributes = {"axes", "keepdims", "noop_with_empty_axes"};
        r.max_inputs = 2;
        r.check = [from = axes_input_from](const InferContext &ctx) {
            if (ctx.opset >= from && ctx.node.has_attr("axes"))
                ctx.fail("from opset " + std::to_string(from) + " on, axes is an input, not an attribute");
            if (ctx.opset < from && ctx.has(1))
                ctx.fail("before opset " + std::to_string(from) + ", axes is an attribute, not an input");
            ctx.require_dtype(0, {DType::f32});
            ctx.require_dtype(1, {DType::i64});
        };
        r.infer = infer_reduce;
        table[op] = r;
    }

    // ArgMax / ArgMin: the index (i64) of the first (or, select_last_index, the last)
    // extreme along one axis.
    OpRule arg;
    arg.attributes = {"axis", "keepdims", "select_last_index"};
    arg.check = [](const InferContext &ctx) { ctx.require_dtype(0, {DType::f32, DType::i64, DType::i32}); };
    arg.dtype = [](const InferContext &) { return DType::i64; };
    arg.infer = [](InferContext &ctx) {
        const int64_t axis = ctx.axis(ctx.node.get_int("axis", 0), ctx.rank(0), "axis");
        Shape out = ctx.shape(0);
        if (ctx.node.get_int("keepdims", 1) != 0)
            out[size_t(axis)] = 1;
        else
            out.erase(out.begin() + axis);
        ctx.set_output(0, DType::i64, out);
        return true;
    };
    table["ArgMax"] = arg;
    table["ArgMin"] = arg;

    // CumSum (opset 11): running sums along the axis given as a scalar input (a
    // constant), optionally exclusive (each sum stops before its own element) or in
    // reverse. Position ids are a running sum of an attention mask.
    OpRule cumsum;
    cumsum.min_opset = 11;
    cumsum.attributes = {"exclusive", "reverse"};
    cumsum.min_inputs = cumsum.max_inputs = 2;
    cumsum.check = [](const InferContext &ctx) {
        ctx.require_dtype(0, {DType::f32, DType::i64, DType::i32});
        ctx.require_dtype(1, {DType::i64, DType::i32});
    };
    cumsum.infer = [](InferContext &ctx) {
        if (!ctx.int_values(1)) ctx.fail("the axis must be a constant");
        if (ctx.int_values(1)->size() != 1) ctx.fail("the axis must be a scalar");
        ctx.axis((*ctx.int_values(1))[0], ctx.rank(0), "axis");
        ctx.set_output(0, ctx.dtype(0), ctx.shape(0));
        return true;
    };
    table["CumSum"] = cumsum;
}

} // namespace tessera::graph
