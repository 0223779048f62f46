// Data movement: Transpose, Concat, Split (split sizes as opset 11 attribute or opset
// 13 input), Slice (opset 10+ inputs: negative indices, steps), Gather, Pad (constant
// mode; pads and value as opset 2 attributes or opset 11 inputs).
#include "resolved_params.h"

#include <algorithm>
#include <numeric>

namespace tessera::graph {

std::vector<int64_t> transpose_perm(const InferContext &ctx) {
    int64_t r = ctx.rank(0);
    std::vector<int64_t> reversed(r);
    std::iota(reversed.rbegin(), reversed.rend(), 0);
    std::vector<int64_t> perm = ctx.node.get_ints("perm", reversed);
    std::vector<int64_t> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int64_t> identity(r);
    std::iota(identity.begin(), identity.end(), 0);
    if (sorted != identity)
        ctx.fail("perm " + Attribute::make_ints(perm).to_string() + " is not a permutation of rank " +
                 std::to_string(r));
    return perm;
}

std::optional<std::vector<int64_t>> split_sizes(const InferContext &ctx, int64_t *axis) {
    *axis = ctx.axis(ctx.node.get_int("axis", 0), ctx.rank(0), "axis");
    int64_t dim = ctx.shape(0)[*axis];
    int64_t parts = int64_t(ctx.node.outputs.size());
    std::vector<int64_t> sizes;
    if (ctx.opset < 13 && ctx.node.has_attr("split")) {
        sizes = ctx.node.get_ints("split", {});
    } else if (ctx.opset >= 13 && ctx.has(1)) {
        auto v = ctx.int_values(1);
        if (!v) return std::nullopt;
        sizes = *v;
    } else if (ctx.node.has_attr("num_outputs")) {  // opset 18: equal parts, the last smaller
        if (ctx.node.get_int("num_outputs", 0) != parts)
            ctx.fail("num_outputs " + std::to_string(ctx.node.get_int("num_outputs", 0)) + " differs from the " +
                     std::to_string(parts) + " outputs");
        const int64_t size = (dim + parts - 1) / parts;
        for (int64_t k = 0; k < parts; k++) sizes.push_back(std::max<int64_t>(0, std::min(size, dim - k * size)));
    } else {
        if (dim % parts)
            ctx.fail("axis extent " + std::to_string(dim) + " does not split into " + std::to_string(parts) +
                     " equal parts");
        sizes.assign(parts, dim / parts);
    }
    if (int64_t(sizes.size()) != parts)
        ctx.fail("split has " + std::to_string(sizes.size()) + " sizes for " + std::to_string(parts) + " outputs");
    if (std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != dim ||
        std::any_of(sizes.begin(), sizes.end(), [](int64_t s) { return s < 0; }))
        ctx.fail("split sizes " + Attribute::make_ints(sizes).to_string() + " do not add up to the axis extent " +
                 std::to_string(dim));
    return sizes;
}

std::optional<SliceParams> slice_params(const InferContext &ctx) {
    const Shape &x = ctx.shape(0);
    int64_t r = int64_t(x.size());
    std::optional<std::vector<int64_t>> starts, ends, axes, steps;
    if (ctx.opset < 10) {
        starts = ctx.node.get_ints("starts", {});
        ends = ctx.node.get_ints("ends", {});
        if (ctx.node.has_attr("axes")) axes = ctx.node.get_ints("axes", {});
    } else {
        starts = ctx.int_values(1);
        ends = ctx.int_values(2);
        if (ctx.has(3)) axes = ctx.int_values(3);
        if (ctx.has(4)) steps = ctx.int_values(4);
        if (!starts || !ends || (ctx.has(3) && !axes) || (ctx.has(4) && !steps)) return std::nullopt;
    }
    size_t n = starts->size();
    if (!axes) {
        axes.emplace(n);
        std::iota(axes->begin(), axes->end(), 0);
    }
    if (!steps) steps.emplace(n, 1);
    if (ends->size() != n || axes->size() != n || steps->size() != n)
        ctx.fail("starts, ends, axes and steps must have the same length");
    SliceParams p;
    p.start.assign(r, 0);
    p.step.assign(r, 1);
    p.length = x;
    std::vector<bool> seen(r, false);
    for (size_t i = 0; i < n; i++) {
        int64_t a = ctx.axis((*axes)[i], r, "axis");
        if (seen[a]) ctx.fail("axes repeat axis " + std::to_string(a));
        seen[a] = true;
        int64_t dim = x[a], step = (*steps)[i], s = (*starts)[i], e = (*ends)[i];
        if (step == 0) ctx.fail("step is 0 on axis " + std::to_string(a));
        if (s < 0) s += dim;
        if (e < 0) e += dim;
        // Clamping per the ONNX definition: a negative step walks down from dim-1 and
        // may end just before index 0.
        if (step > 0) {
            s = std::clamp<int64_t>(s, 0, dim);
            e = std::clamp<int64_t>(e, 0, dim);
            p.length[a] = e > s ? (e - s + step - 1) / step : 0;
        } else {
            s = std::clamp<int64_t>(s, 0, dim - 1);
            e = std::clamp<int64_t>(e, -1, dim - 1);
            p.length[a] = s > e ? (s - e - step - 1) / -step : 0;
        }
        p.start[a] = s;
        p.step[a] = step;
    }
    return p;
}

std::optional<PadSpec> pad_spec(const InferContext &ctx) {
    const int64_t r = ctx.rank(0);
    std::vector<int64_t> pads;
    PadSpec p;
    if (ctx.opset < 11) {
        if (!ctx.node.has_attr("pads")) ctx.fail("attribute 'pads' is required");
        pads = ctx.node.get_ints("pads", {});
        p.value = ctx.node.get_float("value", 0.0f);
    } else {
        if (ctx.has(3)) ctx.fail("the axes input is not supported (pads must cover every axis)");
        auto v = ctx.int_values(1);
        if (!v) return std::nullopt;
        pads = *v;
        if (ctx.has(2)) {
            const TensorData *value = ctx.value(2);
            if (!value) return std::nullopt;
            if (value->size() != 1) ctx.fail("constant_value must be a scalar");
            p.value = value->get(0);
        }
    }
    if (int64_t(pads.size()) != 2 * r) {
        ctx.fail("pads has " + std::to_string(pads.size()) + " entries; rank " + std::to_string(r) + " needs " +
                 std::to_string(2 * r) + " (befores, then afters)");
    }
    for (int64_t a = 0; a < r; a++) {
        if (pads[size_t(a)] < 0 || pads[size_t(r + a)] < 0) {
            ctx.fail("negative pads (cropping) are not supported: " + Attribute::make_ints(pads).to_string());
        }
        if (pads[size_t(a)] > (int64_t(1) << 30) || pads[size_t(r + a)] > (int64_t(1) << 30)) {
            ctx.fail("pads " + Attribute::make_ints(pads).to_string() + " are too large");
        }
        p.before.push_back(pads[size_t(a)]);
        p.after.push_back(pads[size_t(r + a)]);
    }
    const std::string mode = ctx.node.get_string("mode", "constant");
    p.mode = mode == "edge" ? PadMode::Edge : mode == "reflect" ? PadMode::Reflect : mode == "wrap" ? PadMode::Wrap
                                                                                                      : PadMode::Constant;
    for (int64_t a = 0; a < r && p.mode != PadMode::Constant; a++) {
        const int64_t n = ctx.shape(0)[size_t(a)], most = std::max(p.before[size_t(a)], p.after[size_t(a)]);
        if (most == 0) continue;
        // Reflect mirrors about the edge element (at most n - 1 beyond it); wrap
        // repeats the axis once (at most n).
        if (n == 0 || (p.mode == PadMode::Reflect && most > n - 1) || (p.mode == PadMode::Wrap && most > n))
            ctx.fail("mode '" + mode + "' cannot pad axis " + std::to_string(a) + " of " + std::to_string(n) +
                     " element(s) by " + std::to_string(most));
    }
    return p;
}

int64_t pad_source(int64_t i, int64_t n, PadMode mode) {
    switch (mode) {
    case PadMode::Edge: return std::clamp<int64_t>(i, 0, n - 1);
    case PadMode::Reflect: return i < 0 ? -i : i >= n ? 2 * (n - 1) - i : i;
    case PadMode::Wrap: return ((i % n) + n) % n;
    case PadMode::Constant: break;
    }
    return i;
}

namespace {

bool infer_pad(InferContext &ctx) {
    const std::optional<PadSpec> p = pad_spec(ctx);
    if (!p) return false;
    Shape out = ctx.shape(0);
    for (size_t a = 0; a < out.size(); a++) out[a] += p->before[a] + p->after[a];
    ctx.set_output(0, ctx.dtype(0), out);
    return true;
}

bool infer_transpose(InferContext &ctx) {
    std::vector<int64_t> perm = transpose_perm(ctx);
    Shape out;
    for (int64_t p : perm)
        out.push_back(ctx.shape(0)[p]);
    ctx.set_output(0, ctx.dtype(0), out);
    return true;
}

bool infer_concat(InferContext &ctx) {
    Shape out = ctx.shape(0);
    int64_t axis = ctx.axis(ctx.node.get_int("axis", 0), ctx.rank(0), "axis");
    for (size_t k = 1; k < ctx.in.size(); k++) {
        const Shape &s = ctx.shape(k);
        bool ok = s.size() == out.size();
        for (size_t i = 0; ok && i < s.size(); i++)
            ok = int64_t(i) == axis || s[i] == out[i];
        if (!ok)
            ctx.fail("input " + std::to_string(k) + " of shape " + shape_string(s) +
                     " does not match input 0 of shape " + shape_string(ctx.shape(0)) + " off axis " +
                     std::to_string(axis));
        out[axis] += s[axis];
    }
    ctx.set_output(0, ctx.dtype(0), out);
    return true;
}

bool infer_split(InferContext &ctx) {
    int64_t axis = 0;
    auto sizes = split_sizes(ctx, &axis);
    if (!sizes) return false;
    for (size_t k = 0; k < sizes->size(); k++) {
        Shape s = ctx.shape(0);
        s[axis] = (*sizes)[k];
        ctx.set_output(k, ctx.dtype(0), s);
    }
    return true;
}

bool infer_slice(InferContext &ctx) {
    auto p = slice_params(ctx);
    if (!p) return false;
    ctx.set_output(0, ctx.dtype(0), p->length);
    return true;
}

bool infer_gather(InferContext &ctx) {
    const Shape &x = ctx.shape(0);
    int64_t axis = ctx.axis(ctx.node.get_int("axis", 0), ctx.rank(0), "axis");
    Shape out(x.begin(), x.begin() + axis);
    out.insert(out.end(), ctx.shape(1).begin(), ctx.shape(1).end());
    out.insert(out.end(), x.begin() + axis + 1, x.end());
    ctx.set_output(0, ctx.dtype(0), out);
    return true;
}

// DepthToSpace moves blocks of b x b channels into b x b pixel blocks; SpaceToDepth
// the reverse. Both on [N, C, H, W].
bool infer_depth_to_space(InferContext &ctx) {
    const Shape &x = ctx.shape(0);
    const int64_t b = ctx.node.get_int("blocksize", 0);
    if (x.size() != 4) ctx.fail("the input must be 4-D [N, C, H, W]; it is " + shape_string(x));
    if (x[1] % (b * b) != 0)
        ctx.fail(std::to_string(x[1]) + " channels do not divide into blocks of " + std::to_string(b) + " x " +
                 std::to_string(b));
    ctx.set_output(0, ctx.dtype(0), {x[0], x[1] / (b * b), x[2] * b, x[3] * b});
    return true;
}

bool infer_space_to_depth(InferContext &ctx) {
    const Shape &x = ctx.shape(0);
    const int64_t b = ctx.node.get_int("blocksize", 0);
    if (x.size() != 4) ctx.fail("the input must be 4-D [N, C, H, W]; it is " + shape_string(x));
    if (x[2] % b != 0 || x[3] % b != 0)
        ctx.fail("the input " + shape_string(x) + " does not divide into " + std::to_string(b) + " x " +
                 std::to_string(b) + " blocks");
    ctx.set_output(0, ctx.dtype(0), {x[0], x[1] * b * b, x[2] / b, x[3] / b});
    return true;
}

void check_blocksize(const InferContext &ctx) {
    if (!ctx.node.has_attr("blocksize")) ctx.fail("attribute 'blocksize' is required");
    if (ctx.node.get_int("blocksize", 0) < 1) ctx.fail("blocksize must be at least 1");
    const std::string mode = ctx.node.get_string("mode", "DCR");
    if (mode != "DCR" && mode != "CRD") ctx.fail("mode '" + mode + "' is not supported (supported: DCR, CRD)");
}

void same_dtypes(const InferContext &ctx) {
    for (size_t k = 1; k < ctx.in.size(); k++)
        if (ctx.dtype(k) != ctx.dtype(0)) ctx.fail("inputs must share one dtype");
}

} // namespace

void register_data_movement_rules(RuleTable &table) {
    OpRule transpose;
    transpose.attributes = {"perm"};
    transpose.infer = infer_transpose;
    table["Transpose"] = transpose;

    OpRule depth_to_space;
    depth_to_space.attributes = {"blocksize", "mode"};
    depth_to_space.check = check_blocksize;
    depth_to_space.infer = infer_depth_to_space;
    table["DepthToSpace"] = depth_to_space;
    OpRule space_to_depth;
    space_to_depth.attributes = {"blocksize"};
    space_to_depth.check = check_blocksize;
    space_to_depth.infer = infer_space_to_depth;
    table["SpaceToDepth"] = space_to_depth;

    OpRule concat;
    concat.attributes = {"axis"};
    concat.max_inputs = size_t(1) << 20;
    concat.check = [](const InferContext &ctx) {
        if (!ctx.node.has_attr("axis")) ctx.fail("attribute 'axis' is required");
        same_dtypes(ctx);
    };
    concat.infer = infer_concat;
    table["Concat"] = concat;

    OpRule split;
    split.attributes = {"axis", "split", "num_outputs"};
    split.max_inputs = 2;
    split.max_outputs = size_t(1) << 20;
    split.check = [](const InferContext &ctx) {
        if (ctx.node.has_attr("num_outputs") && (ctx.opset < 18 || ctx.has(1)))
            ctx.fail("num_outputs is an attribute from opset 18 on, and excludes the split input");
        if (ctx.opset >= 13 && ctx.node.has_attr("split"))
            ctx.fail("from opset 13 on, split is an input, not an attribute");
        if (ctx.opset < 13 && ctx.has(1)) ctx.fail("before opset 13, split is an attribute, not an input");
        ctx.require_dtype(1, {DType::i64});
    };
    split.infer = infer_split;
    table["Split"] = split;

    OpRule pad;
    pad.min_opset = 2;
    pad.attributes = {"mode", "pads", "value"};
    pad.max_inputs = 4;
    pad.check = [](const InferContext &ctx) {
        const std::string mode = ctx.node.get_string("mode", "constant");
        if (mode != "constant" && mode != "edge" && mode != "reflect" && (mode != "wrap" || ctx.opset < 19)) {
            ctx.fail("mode '" + mode + "' is not supported (supported: constant, edge, reflect" +
                     std::string(ctx.opset >= 19 ? ", wrap)" : ")"));
        }
        ctx.require_dtype(1, {DType::i64});
    };
    pad.infer = infer_pad;
    table["Pad"] = pad;

    // Before opset 10 starts, ends and axes are attributes (steps 1), from 10 on inputs.
    OpRule slice;
    slice.attributes = {"starts", "ends", "axes"};
    slice.max_inputs = 5;
    slice.check = [](const InferContext &ctx) {
        if (ctx.opset < 10) {
            if (ctx.node.inputs.size() != 1) ctx.fail("before opset 10, starts, ends and axes are attributes, not inputs");
            if (!ctx.node.has_attr("starts") || !ctx.node.has_attr("ends"))
                ctx.fail("attributes 'starts' and 'ends' are required");
            return;
        }
        if (!ctx.node.attrs.empty()) ctx.fail("from opset 10 on, starts, ends and axes are inputs, not attributes");
        if (ctx.node.inputs.size() < 3) ctx.fail("inputs 1 (starts) and 2 (ends) are required");
        for (size_t k = 1; k < 5; k++)
            ctx.require_dtype(k, {DType::i64, DType::i32});
    };
    slice.infer = infer_slice;
    table["Slice"] = slice;

    OpRule gather;
    gather.attributes = {"axis"};
    gather.min_inputs = gather.max_inputs = 2;
    gather.check = [](const InferContext &ctx) { ctx.require_dtype(1, {DType::i64, DType::i32}); };
    gather.infer = infer_gather;
    table["Gather"] = gather;

    // ScatterND (opset 11; reduction from 16): data with the slices the last axis of
    // indices addresses replaced by (or combined with) updates. Models build masks with
    // it from constants, which fold_constants evaluates.
    OpRule scatter;
    scatter.min_opset = 11;
    scatter.attributes = {"reduction"};
    scatter.min_inputs = scatter.max_inputs = 3;
    scatter.check = [](const InferContext &ctx) {
        ctx.require_dtype(1, {DType::i64});
        if (ctx.has(0) && ctx.has(2) && ctx.dtype(2) != ctx.dtype(0)) ctx.fail("updates must have data's dtype");
        const std::string reduction = ctx.node.get_string("reduction", "none");
        ctx.require_one_of("reduction", reduction, {"none", "add", "mul", "max", "min"});
        if (reduction != "none" && ctx.opset < 16) ctx.fail("reduction is an attribute from opset 16 on");
    };
    scatter.infer = [](InferContext &ctx) {
        const Shape &data = ctx.shape(0), &indices = ctx.shape(1), &updates = ctx.shape(2);
        if (indices.empty() || indices.back() > int64_t(data.size()))
            ctx.fail("indices " + shape_string(indices) + " do not address data " + shape_string(data));
        Shape expected(indices.begin(), indices.end() - 1);
        expected.insert(expected.end(), data.begin() + indices.back(), data.end());
        if (updates != expected)
            ctx.fail("updates " + shape_string(updates) + " are not " + shape_string(expected) + " for indices " +
                     shape_string(indices) + " into " + shape_string(data));
        ctx.set_output(0, ctx.dtype(0), data);
        return true;
    };
    table["ScatterND"] = scatter;
}

} // namespace tessera::graph
