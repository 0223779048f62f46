// Transpose and Pad (the op library's), and the index plumbing ops: Reshape, Flatten,
// Squeeze, Unsqueeze, Identity, Expand, Tile, Concat, Split, Slice, Gather (constant
// indices or indices computed at run time) and Resize, as Funcs that read their input
// at computed coordinates; and assign_layouts' conversions between NCHW and
// channel-blocked NCHW[b]c.
#include "assign_layouts.h"
#include "halide_axes.h"
#include "index_maps.h"
#include "lower_rule.h"
#include "op_library.h"
#include "resolved_params.h"

#include <algorithm>

namespace tessera::graph {

using Halide::Expr;
using Halide::Func;
using Halide::Var;

namespace {

std::vector<Func> reshape(LowerContext &ctx) {
    return {reshape_func(ctx.input(0), ctx.in_shape(0), ctx.out_shape(), ctx.name("reshape"))};
}

std::vector<Func> expand(LowerContext &ctx) {
    return {broadcast_func(ctx.input(0), ctx.in_shape(0), ctx.out_shape(), ctx.name("expand"))};
}

std::vector<Func> transpose(LowerContext &ctx) {
    const ops::OpConfig config =
        ops::OpConfig::of("transpose").with("shape", shape_key(ctx.in_shape(0))).with_list("perm", transpose_perm(ctx.ic));
    return {build_library_op(ctx, config, {ctx.input(0)})};
}

std::vector<Func> pad(LowerContext &ctx) {
    const std::optional<PadSpec> p = pad_spec(ctx.ic);
    if (!p) ctx.fail("Pad's pads and value must be constant to be compiled");
    if (p->mode != PadMode::Constant) {
        // Each output element reads the input element pad_source maps it to.
        const Shape &x = ctx.in_shape(0);
        std::vector<Var> v = ops::logical_vars(x.size(), "p");
        std::vector<Expr> coords;
        for (size_t a = 0; a < v.size(); a++) {
            const int n = int(x[a]);
            const Expr i = v[a] - int(p->before[a]);
            if (p->before[a] == 0 && p->after[a] == 0) {
                coords.push_back(v[a]);
            } else if (p->mode == PadMode::Edge) {
                coords.push_back(Halide::clamp(i, 0, n - 1));
            } else if (p->mode == PadMode::Reflect) {
                // |i| mirrored about n - 1 (Halide's abs of an int is unsigned: max(a, -a)),
                // clamped to the axis, which it never leaves: interval arithmetic on the
                // nested maxima would bound it wider, past the input's ends.
                const Expr a = Halide::max(i, -i);
                coords.push_back(Halide::clamp((n - 1) - Halide::max((n - 1) - a, a - (n - 1)), 0, n - 1));
            } else {
                coords.push_back(i % n);  // Halide's % of an int by a positive one is never negative
            }
        }
        Func out(ctx.name("pad"));
        ops::ref(out, ops::as_exprs(v)) = ops::at(ctx.input(0), coords);
        return {out};
    }
    std::vector<int64_t> pads = p->before;
    pads.insert(pads.end(), p->after.begin(), p->after.end());
    const ops::OpConfig config =
        ops::OpConfig::of("pad").with("shape", shape_key(ctx.in_shape(0))).with_list("pads", pads).with_float("value", p->value);
    return {build_library_op(ctx, config, {ctx.input(0)})};
}

std::vector<Func> concat(LowerContext &ctx) {
    const Shape &out_shape = ctx.out_shape();
    const int64_t axis = ctx.ic.axis(ctx.node().get_int("axis", 0), int64_t(out_shape.size()), "axis");
    std::vector<Var> v = ops::logical_vars(out_shape.size(), "c");
    // The last input first, then each earlier one where the position falls in it;
    // every read is clamped to its input so bounds inference stays within it.
    Expr value;
    int64_t end = out_shape[axis];
    for (size_t k = ctx.node().inputs.size(); k-- > 0;) {
        const int64_t extent = ctx.in_shape(k)[axis], begin = end - extent;
        std::vector<Expr> coords = ops::as_exprs(v);
        coords[axis] = Halide::clamp(v[axis] - int(begin), 0, int(extent - 1));
        Expr read = ops::at(ctx.input(k), coords);
        value = value.defined() ? Halide::select(v[axis] < int(end), read, value) : read;
        end = begin;
    }
    Func out(ctx.name("concat"));
    ops::ref(out, ops::as_exprs(v)) = value;
    return {out};
}

std::vector<Func> split(LowerContext &ctx) {
    int64_t axis = 0;
    const std::optional<std::vector<int64_t>> sizes = split_sizes(ctx.ic, &axis);
    if (!sizes) ctx.fail("Split sizes must be constant to be compiled");
    std::vector<Func> outs;
    int64_t offset = 0;
    for (size_t k = 0; k < sizes->size(); k++) {
        std::vector<Var> v = ops::logical_vars(ctx.in_shape(0).size(), "s");
        std::vector<Expr> coords = ops::as_exprs(v);
        coords[axis] = v[axis] + int(offset);
        Func out(ctx.name("part") + std::to_string(k));
        ops::ref(out, ops::as_exprs(v)) = ops::at(ctx.input(0), coords);
        outs.push_back(out);
        offset += (*sizes)[k];
    }
    return outs;
}

std::vector<Func> slice(LowerContext &ctx) {
    const std::optional<SliceParams> p = slice_params(ctx.ic);
    if (!p) ctx.fail("Slice starts, ends, axes and steps must be constant to be compiled");
    std::vector<Var> v = ops::logical_vars(ctx.in_shape(0).size(), "s");
    std::vector<Expr> coords;
    for (size_t a = 0; a < v.size(); a++) coords.push_back(int(p->start[a]) + v[a] * int(p->step[a]));
    Func out(ctx.name("slice"));
    ops::ref(out, ops::as_exprs(v)) = ops::at(ctx.input(0), coords);
    return {out};
}

// out(v) = in(v mod extent) along every repeated axis.
std::vector<Func> tile(LowerContext &ctx) {
    const Shape &x = ctx.in_shape(0), &y = ctx.out_shape();
    std::vector<Var> v = ops::logical_vars(y.size(), "t");
    std::vector<Expr> coords;
    for (size_t a = 0; a < v.size(); a++) coords.push_back(y[a] == x[a] ? Expr(v[a]) : Expr(v[a] % int(x[a])));
    Func out(ctx.name("tile"));
    ops::ref(out, ops::as_exprs(v)) = ops::at(ctx.input(0), coords);
    return {out};
}

// Per resized axis and tap a constant table of input positions and one of weights,
// read at the output's coordinate; the output sums every combination of one tap per
// resized axis (2^k corners for linear, 4^k for cubic).
std::vector<Func> resize(LowerContext &ctx) {
    const std::optional<std::vector<ResizeTaps>> taps = resize_taps(ctx.ic);
    if (!taps) ctx.fail("Resize's scales or sizes must be constant to be compiled");
    const Shape &y = ctx.out_shape();
    std::vector<Var> v = ops::logical_vars(y.size(), "r");
    std::vector<size_t> resized;  // the resized axes
    std::vector<std::vector<Halide::Buffer<int>>> index;  // per resized axis and tap
    std::vector<std::vector<Halide::Buffer<float>>> weight;
    std::vector<bool> weighted;  // false: one tap of weight 1 (nearest)
    int64_t combinations = 1;
    for (size_t a = 0; a < y.size(); a++) {
        const ResizeTaps &t = (*taps)[a];
        if (!t.resized) continue;
        resized.push_back(a);
        index.emplace_back();
        weight.emplace_back();
        for (size_t k = 0; k < t.index.size(); k++) {
            index.back().emplace_back(int(y[a]));
            weight.back().emplace_back(int(y[a]));
            for (int64_t i = 0; i < y[a]; i++) {
                index.back()[k](int(i)) = int(t.index[k][size_t(i)]);
                weight.back()[k](int(i)) = float(t.weight[k][size_t(i)]);
            }
        }
        weighted.push_back(t.index.size() > 1);
        combinations *= int64_t(t.index.size());
    }
    Expr value = 0.0f;
    for (int64_t c = 0; c < combinations; c++) {
        std::vector<Expr> coords = ops::as_exprs(v);
        Expr w = 1.0f;
        int64_t rest = c;
        for (size_t r = 0; r < resized.size(); r++) {
            const size_t k = size_t(rest % int64_t(index[r].size()));
            rest /= int64_t(index[r].size());
            const Expr at = v[resized[r]];
            // Clamped to the input's extent (the tables are already) so that bounds
            // inference sees the region read.
            const int extent = int(ctx.in_shape(0)[resized[r]]);
            coords[resized[r]] = Halide::clamp(index[r][k](at), 0, extent - 1);
            if (weighted[r]) w = w * weight[r][k](at);
        }
        value = value + w * ops::at(ctx.input(0), coords);
    }
    Func out(ctx.name("resize"));
    ops::ref(out, ops::as_exprs(v)) = value;
    return {out};
}

std::vector<Func> gather(LowerContext &ctx) {
    const Shape &x = ctx.in_shape(0);
    const TensorData *indices = ctx.ic.value(1);
    const int64_t axis = ctx.ic.axis(ctx.node().get_int("axis", 0), int64_t(x.size()), "axis");
    const int n = int(x[size_t(axis)]);
    const Shape &q = ctx.ic.shape(1);
    const Shape &out_shape = ctx.out_shape();
    std::vector<Var> v = ops::logical_vars(out_shape.size(), "g");
    Expr index;
    if (indices) {
        // Constant indices, made non-negative, as a table read at the output's index
        // coordinates (a scalar index is a constant).
        Halide::Buffer<int> table(int(std::max<size_t>(1, indices->size())));
        for (size_t j = 0; j < indices->size(); j++) {
            const int64_t i = indices->i[j];
            table(int(j)) = int(i < 0 ? i + n : i);
        }
        Expr flat = 0;
        for (size_t k = 0; k < q.size(); k++) flat = flat * int(q[k]) + v[size_t(axis) + k];
        index = q.empty() ? Expr(table(0)) : Halide::clamp(table(flat), 0, n - 1);
    } else {
        // Indices computed at run time (token ids): negative ones count from the end;
        // one outside [-n, n) stops the run with an error naming the node rather
        // than reading past the data (the clamp keeps bounds inference within it).
        std::vector<Expr> at_index;
        for (size_t k = 0; k < q.size(); k++) at_index.push_back(v[size_t(axis) + k]);
        if (q.empty()) at_index.push_back(0);  // a scalar index is a [1] Func
        const Expr raw = ops::at(ctx.input(1), at_index);
        const Expr i = Halide::select(raw < 0, raw + n, raw);
        const std::string culprit = "Gather '" + ctx.node().name + "': index";
        const std::string range = "is outside [-" + std::to_string(n) + ", " + std::to_string(n) + ")";
        index = Halide::clamp(Halide::cast<int>(Halide::require(i >= 0 && i < n, i, culprit, raw, range)), 0, n - 1);
    }
    std::vector<Expr> coords;
    for (int64_t a = 0; a < axis; a++) coords.push_back(v[size_t(a)]);
    coords.push_back(index);
    for (size_t a = size_t(axis) + 1; a < x.size(); a++) coords.push_back(v[a - 1 + q.size()]);
    Func out(ctx.name("gather"));
    ops::ref(out, ops::as_exprs(v)) = ops::at(ctx.input(0), coords);
    return {out};
}

// ScatterND with constant indices and no reduction: a table, made at compile time, of
// the update (or -1: data) each element of the output takes, the last write winning.
std::vector<Func> scatter_nd(LowerContext &ctx) {
    const TensorData *indices = ctx.ic.value(1);
    if (!indices) ctx.fail("ScatterND's indices must be constant to be compiled");
    if (ctx.node().get_string("reduction", "none") != "none")
        ctx.fail("ScatterND with a reduction is not compiled (the reference evaluator can run it)");
    const Shape &data = ctx.in_shape(0), &updates = ctx.in_shape(2);
    const int64_t depth = indices->shape.back(), tuples = num_elements(indices->shape) / std::max<int64_t>(1, depth);
    const int64_t slice = num_elements(Shape(data.begin() + depth, data.end()));
    const std::vector<int64_t> strides = strides_of(data);
    Halide::Buffer<int> source(int(num_elements(data)));
    source.fill(-1);
    for (int64_t t = 0; t < tuples; t++) {
        int64_t base = 0;
        for (int64_t a = 0; a < depth; a++) {
            int64_t i = indices->i[size_t(t * depth + a)];
            if (i < 0) i += data[size_t(a)];
            if (i < 0 || i >= data[size_t(a)]) ctx.fail("index " + std::to_string(i) + " is out of range for axis " + std::to_string(a));
            base += i * strides[size_t(a)];
        }
        for (int64_t k = 0; k < slice; k++) source(int(base + k)) = int(t * slice + k);
    }
    const int64_t count = num_elements(updates);
    const Func flat_updates = reshape_func(ctx.input(2), updates, {count}, ctx.name("updates"));
    std::vector<Var> v = ops::logical_vars(data.size(), "n");
    Expr flat = 0;
    for (size_t a = 0; a < data.size(); a++) flat = flat + v[a] * int(strides[a]);
    const Expr from = source(Halide::clamp(flat, 0, int(num_elements(data)) - 1));
    Func out(ctx.name("scatter"));
    ops::ref(out, ops::as_exprs(v)) = Halide::select(
        from >= 0, flat_updates(Halide::clamp(from, 0, int(count) - 1)), ops::at(ctx.input(0), ops::as_exprs(v)));
    return {out};
}

// GridSample: each output point reads X at data-dependent positions (the grid's), so
// X is read through clamped indices and a select for the taps outside it; the same
// arithmetic as the evaluator's (PyTorch's grid sampler).
Expr unnormalise(const Expr &g, int size, bool align_corners) {
    return align_corners ? (g + 1.0f) * (0.5f * float(size - 1)) : ((g + 1.0f) * float(size) - 1.0f) * 0.5f;
}

Expr reflect(const Expr &v, float twice_low, float twice_high) {
    if (twice_low == twice_high) return Expr(0.0f);
    const float low = twice_low / 2, span = (twice_high - twice_low) / 2;
    const Expr d = Halide::abs(v - low), turns = Halide::floor(d / span);
    const Expr extra = d - turns * span;
    return Halide::select(Halide::cast<int>(turns) % 2 == 0, extra + low, span - extra + low);
}

Expr bounded(Expr v, int size, const GridSampleSpec &s) {
    if (s.padding == GridSampleSpec::Padding::Reflection)
        v = s.align_corners ? reflect(v, 0, 2.0f * float(size - 1)) : reflect(v, -1, 2.0f * float(size) - 1);
    if (s.padding != GridSampleSpec::Padding::Zeros) v = Halide::clamp(v, 0.0f, float(size - 1));
    return v;
}

// Keys' weights (a = -0.75) of the four taps around a point at fraction t.
std::vector<Expr> cubic_taps(const Expr &t) {
    const float a = -0.75f;
    auto near = [a](const Expr &d) { return ((a + 2) * d - (a + 3)) * d * d + 1.0f; };
    auto far = [a](const Expr &d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };
    return {far(1.0f + t), near(t), near(1.0f - t), far(2.0f - t)};
}

std::vector<Func> grid_sample(LowerContext &ctx) {
    const GridSampleSpec s = grid_sample_spec(ctx.ic);
    const Shape &x = ctx.in_shape(0);
    const int h = int(x[2]), w = int(x[3]);
    std::vector<Var> v = ops::logical_vars(4, "s");  // n, c, y, x
    const Expr n = v[0], c = v[1];
    const Func input = ctx.input(0), grid = ctx.input(1);
    auto at = [&](const Expr &i, const Expr &j) {
        const Expr inside = i >= 0 && i < h && j >= 0 && j < w;
        return Halide::select(inside, ops::at(input, {n, c, Halide::clamp(i, 0, h - 1), Halide::clamp(j, 0, w - 1)}), 0.0f);
    };
    Expr gx = unnormalise(ops::at(grid, {n, v[2], v[3], 0}), w, s.align_corners);
    Expr gy = unnormalise(ops::at(grid, {n, v[2], v[3], 1}), h, s.align_corners);
    Expr value;
    if (s.mode == GridSampleSpec::Mode::Cubic) {
        const Expr x0 = Halide::floor(gx), y0 = Halide::floor(gy);
        const std::vector<Expr> wx = cubic_taps(gx - x0), wy = cubic_taps(gy - y0);
        value = 0.0f;
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++) {
                const Expr i = Halide::cast<int>(bounded(y0 + float(a - 1), h, s));
                const Expr j = Halide::cast<int>(bounded(x0 + float(b - 1), w, s));
                value = value + wy[size_t(a)] * wx[size_t(b)] * at(i, j);
            }
    } else {
        gx = bounded(gx, w, s), gy = bounded(gy, h, s);
        if (s.mode == GridSampleSpec::Mode::Nearest) {
            value = at(Halide::cast<int>(Halide::round(gy)), Halide::cast<int>(Halide::round(gx)));  // ties to even
        } else {
            const Expr x0 = Halide::floor(gx), y0 = Halide::floor(gy), fx = gx - x0, fy = gy - y0;
            const Expr i = Halide::cast<int>(y0), j = Halide::cast<int>(x0);
            value = (1.0f - fy) * ((1.0f - fx) * at(i, j) + fx * at(i, j + 1)) +
                    fy * ((1.0f - fx) * at(i + 1, j) + fx * at(i + 1, j + 1));
        }
    }
    Func out(ctx.name("grid_sample"));
    ops::ref(out, ops::as_exprs(v)) = value;
    return {out};
}

// assign_layouts' conversions: NCHW -> NCHW[b]c (pack_panels, affine) and back
// (unpack_panels: a division and a modulo per element).
LowerRule layout_conversion(bool to_blocked) {
    return [to_blocked](LowerContext &ctx) -> std::vector<Func> {
        const Shape &plain = to_blocked ? ctx.in_shape(0) : ctx.out_shape();
        const std::string op = to_blocked ? "pack_panels" : "unpack_panels";
        const ops::OpConfig config = ops::OpConfig::of(op)
                                         .with("shape", shape_key(plain))
                                         .with("axis", 1)
                                         .with("block", ctx.node().get_int(kBlockAttr, 0));
        return {build_library_op(ctx, config, {ctx.input(0)})};
    };
}

}  // namespace

void register_data_movement_lowering(LowerTable &table) {
    table[kToBlockedOp] = layout_conversion(true);
    table[kFromBlockedOp] = layout_conversion(false);
    for (const char *op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity", "Dropout"}) table[op] = reshape;
    table["Expand"] = expand;
    table["Transpose"] = transpose;
    table["Concat"] = concat;
    table["Pad"] = pad;
    table["Split"] = split;
    table["Slice"] = slice;
    table["Gather"] = gather;
    table["ScatterND"] = scatter_nd;
    table["Tile"] = tile;
    table["Resize"] = resize;
    table["Upsample"] = resize;
    table["GridSample"] = grid_sample;
}

}  // namespace tessera::graph
