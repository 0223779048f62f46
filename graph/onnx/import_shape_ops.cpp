// Ops that compute or consume shapes: Reshape, Flatten, Unsqueeze, Squeeze, Shape,
// Expand, ConstantOfShape, Range. PyTorch's exporter emits Shape -> Gather ->
// Unsqueeze -> Concat -> Reshape around every reshape in a transformer layer; the
// shapes downstream become known once fold_constants has evaluated such chains.
#include "resolved_params.h"

#include <algorithm>
#include <cmath>

namespace tessera::graph {

namespace {

// Axes from the attribute before opset 13, from input 1 from opset 13 on.
std::optional<std::vector<int64_t>> raw_axes(const InferContext &ctx, bool *present) {
    if (ctx.opset < 13) {
        *present = ctx.node.has_attr("axes");
        return ctx.node.get_ints("axes", {});
    }
    *present = ctx.has(1);
    if (!*present) return std::vector<int64_t>{};
    return ctx.int_values(1);
}

std::vector<int64_t> normalised(const InferContext &ctx, std::vector<int64_t> axes, int64_t rank) {
    for (int64_t &a : axes)
        a = ctx.axis(a, rank, "axis");
    std::sort(axes.begin(), axes.end());
    if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) ctx.fail("axes repeat an axis");
    return axes;
}

} // namespace

std::optional<std::vector<int64_t>> unsqueeze_axes(const InferContext &ctx) {
    bool present = false;
    auto axes = raw_axes(ctx, &present);
    if (!axes) return std::nullopt;
    if (!present) ctx.fail(ctx.opset < 13 ? "attribute 'axes' is required" : "input 1 (axes) is required");
    return normalised(ctx, *axes, ctx.rank(0) + int64_t(axes->size()));
}

std::optional<std::vector<int64_t>> squeeze_axes(const InferContext &ctx) {
    bool present = false;
    auto axes = raw_axes(ctx, &present);
    if (!axes) return std::nullopt;
    const Shape &x = ctx.shape(0);
    if (!present) {
        std::vector<int64_t> ones;
        for (size_t i = 0; i < x.size(); i++)
            if (x[i] == 1) ones.push_back(int64_t(i));
        return ones;
    }
    std::vector<int64_t> out = normalised(ctx, *axes, ctx.rank(0));
    for (int64_t a : out)
        if (x[a] != 1) ctx.fail("cannot squeeze axis " + std::to_string(a) + " of extent " + std::to_string(x[a]));
    return out;
}

TensorData constant_node_value(const InferContext &ctx) {
    const Node &n = ctx.node;
    if (n.attrs.size() != 1) ctx.fail("exactly one value attribute is required");
    if (const TensorData *t = n.get_tensor("value")) return *t;
    if (n.has_attr("value_float")) return TensorData::floats({}, {n.get_float("value_float", 0)});
    if (n.has_attr("value_floats")) {
        std::vector<float> v = n.get_floats("value_floats", {});
        return TensorData::floats({int64_t(v.size())}, v);
    }
    if (n.has_attr("value_int")) return TensorData::ints({}, {n.get_int("value_int", 0)});
    std::vector<int64_t> v = n.get_ints("value_ints", {});
    return TensorData::ints({int64_t(v.size())}, v);
}

namespace {

bool infer_reshape(InferContext &ctx) {
    auto target = ctx.int_values(1);
    if (!target) return false;
    const Shape &x = ctx.shape(0);
    bool allow_zero = ctx.node.get_int("allowzero", 0) != 0;
    Shape out = *target;
    int infer_at = -1;
    for (size_t i = 0; i < out.size(); i++) {
        if (out[i] == 0 && !allow_zero) {
            if (i >= x.size()) ctx.fail("shape entry " + std::to_string(i) + " is 0 but the input has no such axis");
            out[i] = x[i];
        } else if (out[i] == -1) {
            if (infer_at >= 0) ctx.fail("shape has more than one -1");
            infer_at = int(i);
        } else if (out[i] < 0) {
            ctx.fail("shape entry " + std::to_string(out[i]) + " is invalid");
        }
    }
    int64_t known = 1;
    for (size_t i = 0; i < out.size(); i++)
        if (int(i) != infer_at) known *= out[i];
    if (infer_at >= 0) {
        if (known == 0 || num_elements(x) % known) ctx.fail("cannot infer -1 reshaping " + shape_string(x));
        out[infer_at] = num_elements(x) / known;
    }
    if (num_elements(out) != num_elements(x))
        ctx.fail("cannot reshape " + shape_string(x) + " (" + std::to_string(num_elements(x)) + " elements) to " +
                 shape_string(out));
    ctx.set_output(0, ctx.dtype(0), out);
    return true;
}

bool infer_flatten(InferContext &ctx) {
    const Shape &x = ctx.shape(0);
    // Flatten's axis may equal the rank; a negative one counts from the rank.
    int64_t axis = ctx.node.get_int("axis", 1), r = ctx.rank(0);
    if (axis < -r || axis > r)
        ctx.fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(r));
    if (axis < 0) axis += r;
    ctx.set_output(0, ctx.dtype(0),
                   {num_elements(Shape(x.begin(), x.begin() + axis)), num_elements(Shape(x.begin() + axis, x.end()))});
    return true;
}

bool infer_unsqueeze(InferContext &ctx) {
    auto axes = unsqueeze_axes(ctx);
    if (!axes) return false;
    const Shape &x = ctx.shape(0);
    Shape out;
    size_t next = 0;
    for (int64_t i = 0; i < int64_t(x.size() + axes->size()); i++)
        out.push_back(std::binary_search(axes->begin(), axes->end(), i) ? 1 : x[next++]);
    ctx.set_output(0, ctx.dtype(0), out);
    return true;
}

bool infer_squeeze(InferContext &ctx) {
    auto axes = squeeze_axes(ctx);
    if (!axes) return false;
    Shape out;
    for (int64_t i = 0; i < ctx.rank(0); i++)
        if (!std::binary_search(axes->begin(), axes->end(), i)) out.push_back(ctx.shape(0)[i]);
    ctx.set_output(0, ctx.dtype(0), out);
    return true;
}

// Shape's start/end (opset 15) clamp like Python slicing.
bool infer_shape(InferContext &ctx) {
    int64_t r = ctx.rank(0);
    auto clamp = [r](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + r : v, 0, r); };
    int64_t start = clamp(ctx.node.get_int("start", 0)), end = clamp(ctx.node.get_int("end", r));
    ctx.set_output(0, DType::i64, {std::max<int64_t>(0, end - start)});
    return true;
}

bool infer_expand(InferContext &ctx) {
    auto target = ctx.int_values(1);
    if (!target) return false;
    auto out = broadcast_shapes(ctx.shape(0), *target);
    if (!out) ctx.fail("cannot expand " + shape_string(ctx.shape(0)) + " to " + shape_string(*target));
    ctx.set_output(0, ctx.dtype(0), *out);
    return true;
}

DType constant_of_shape_dtype(const InferContext &ctx) {
    const TensorData *v = ctx.node.get_tensor("value");
    return v ? v->dtype : DType::f32;
}

bool infer_constant_of_shape(InferContext &ctx) {
    auto target = ctx.int_values(0);
    if (!target) return false;
    for (int64_t d : *target)
        if (d < 0) ctx.fail("shape entry " + std::to_string(d) + " is negative");
    ctx.set_output(0, constant_of_shape_dtype(ctx), *target);
    return true;
}

bool infer_range(InferContext &ctx) {
    for (size_t k = 0; k < 3; k++)
        if (num_elements(ctx.shape(k)) != 1) ctx.fail("start, limit and delta must be scalars");
    if (!ctx.value(0) || !ctx.value(1) || !ctx.value(2)) return false;
    double start = ctx.value(0)->get(0), limit = ctx.value(1)->get(0), delta = ctx.value(2)->get(0);
    if (delta == 0) ctx.fail("delta is 0");
    int64_t n = std::max<int64_t>(0, int64_t(std::ceil((limit - start) / delta)));
    ctx.set_output(0, ctx.dtype(0), {n});
    return true;
}

} // namespace

void register_shape_op_rules(RuleTable &table) {
    OpRule reshape;
    reshape.attributes = {"allowzero"};
    reshape.min_inputs = reshape.max_inputs = 2;
    reshape.check = [](const InferContext &ctx) { ctx.require_dtype(1, {DType::i64}); };
    reshape.infer = infer_reshape;
    table["Reshape"] = reshape;

    OpRule flatten;
    flatten.attributes = {"axis"};
    flatten.infer = infer_flatten;
    table["Flatten"] = flatten;

    // Before opset 13 axes are an attribute, from 13 on an input.
    OpRule unsqueeze;
    unsqueeze.attributes = {"axes"};
    unsqueeze.max_inputs = 2;
    unsqueeze.check = [](const InferContext &ctx) {
        if (ctx.opset >= 13 && ctx.node.has_attr("axes"))
            ctx.fail("from opset 13 on, axes is an input, not an attribute");
        if (ctx.opset < 13 && ctx.has(1)) ctx.fail("before opset 13, axes is an attribute, not an input");
        ctx.require_dtype(1, {DType::i64});
    };
    unsqueeze.infer = infer_unsqueeze;
    table["Unsqueeze"] = unsqueeze;
    OpRule squeeze = unsqueeze;
    squeeze.infer = infer_squeeze;
    table["Squeeze"] = squeeze;

    OpRule shape;
    shape.attributes = {"start", "end"};
    shape.dtype = [](const InferContext &) { return DType::i64; };
    shape.infer = infer_shape;
    table["Shape"] = shape;

    // Size: the element count, an i64 scalar.
    OpRule size;
    size.dtype = [](const InferContext &) { return DType::i64; };
    size.infer = [](InferContext &ctx) {
        ctx.set_output(0, DType::i64, {});
        return true;
    };
    table["Size"] = size;

    OpRule expand;
    expand.min_inputs = expand.max_inputs = 2;
    expand.check = [](const InferContext &ctx) { ctx.require_dtype(1, {DType::i64}); };
    expand.infer = infer_expand;
    table["Expand"] = expand;

    // Tile (opset 6 on: the repeats an input): out[i] = in[i mod dim] per axis.
    OpRule tile;
    tile.min_opset = 6;
    tile.min_inputs = tile.max_inputs = 2;
    tile.check = [](const InferContext &ctx) { ctx.require_dtype(1, {DType::i64}); };
    tile.infer = [](InferContext &ctx) {
        const auto repeats = ctx.int_values(1);
        if (!repeats) return false;
        const Shape &x = ctx.shape(0);
        if (repeats->size() != x.size())
            ctx.fail("repeats has " + std::to_string(repeats->size()) + " entries for rank " + std::to_string(x.size()));
        Shape out = x;
        for (size_t i = 0; i < x.size(); i++) {
            if ((*repeats)[i] < 0) ctx.fail("repeats " + Attribute::make_ints(*repeats).to_string() + " has a negative entry");
            out[i] = x[i] * (*repeats)[i];
        }
        ctx.set_output(0, ctx.dtype(0), out);
        return true;
    };
    table["Tile"] = tile;

    OpRule cos;
    cos.attributes = {"value"};
    cos.check = [](const InferContext &ctx) {
        ctx.require_dtype(0, {DType::i64});
        const TensorData *v = ctx.node.get_tensor("value");
        if (v && v->size() != 1) ctx.fail("value must hold exactly one element");
    };
    cos.dtype = constant_of_shape_dtype;
    cos.infer = infer_constant_of_shape;
    table["ConstantOfShape"] = cos;

    // Import turns Constant nodes into constants; the rule serves hand-built graphs.
    OpRule constant;
    constant.attributes = {"value", "value_float", "value_floats", "value_int", "value_ints"};
    constant.min_inputs = constant.max_inputs = 0;
    constant.check = [](const InferContext &ctx) { constant_node_value(ctx); };
    constant.dtype = [](const InferContext &ctx) { return constant_node_value(ctx).dtype; };
    constant.infer = [](InferContext &ctx) {
        TensorData v = constant_node_value(ctx);
        ctx.set_output(0, v.dtype, v.shape);
        return true;
    };
    table["Constant"] = constant;

    OpRule range;
    range.min_inputs = range.max_inputs = 3;
    range.check = [](const InferContext &ctx) {
        ctx.require_dtype(0, {DType::f32, DType::i64, DType::i32});
        for (size_t k = 1; k < 3; k++)
            if (ctx.dtype(k) != ctx.dtype(0)) ctx.fail("start, limit and delta must share one dtype");
    };
    range.infer = infer_range;
    table["Range"] = range;
}

} // namespace tessera::graph
