// Conv, Gemm and MatMul through the op library's conv2d, depthwise_conv2d, matmul
// and batch_matmul (with bias_add for a convolution's bias). Weights packed at
// compile time (pack_weights) go to the library's packed conv2d and matmul; a Conv
// given NHWC or NCHW[b]c by assign_layouts to its nhwc or nchwc forms.
#include "halide_axes.h"
#include "image_layout.h"
#include "index_maps.h"
#include "lower_rule.h"
#include "op_library.h"
#include "assign_layouts.h"
#include "pack_weights.h"
#include "window.h"

namespace tessera::graph {

using Halide::Func;

namespace {

std::vector<Func> conv(LowerContext &ctx) {
    // In the layout assign_layouts gave it: weights OIHW (NCHW), HWIO (NHWC; depthwise
    // [kh][kw][c]) or panels (NCHW[b]c: [oc/b][c][kh][kw][b]; depthwise [c/b][kh][kw][b]).
    const LayoutImage im = layout_image(ctx, "2-D convolutions");
    const Shape &w = ctx.in_shape(1), &y = ctx.out_shape();
    const int64_t group = ctx.node().get_int("group", 1);
    const bool depthwise = group > 1 && group == im.c && (im.layout != Layout::nchw || w[0] == im.c);
    const Shape kernel = im.layout == Layout::nhwc                  ? Shape{w[0], w[1]}
                         : im.layout == Layout::blocked && depthwise ? Shape{w[1], w[2]}
                                                                     : Shape{w[2], w[3]};
    const Window win = resolve_window(ctx.ic, {im.h, im.w}, kernel, false);
    if (!uniform_window(win)) {
        ctx.fail("the op library's conv2d takes one pad, stride and dilation for both axes and both sides");
    }
    const int64_t block = packed_block(ctx.node());
    const int64_t oc = im.layout == Layout::nhwc ? y[3] : im.layout == Layout::blocked ? y[1] * im.block : y[1];
    // The library's conv2d or depthwise_conv2d over this image and window.
    auto convolution = [&](const char *op) {
        ops::OpConfig c = ops::OpConfig::of(op);
        if (!depthwise) c.with("oc", oc);
        return c.with("n", im.n)
            .with("c", im.c)
            .with("h", im.h)
            .with("w", im.w)
            .with("kh", kernel[0])
            .with("kw", kernel[1])
            .with("stride", win.strides[0])
            .with("pad", win.pad_begin[0])
            .with("dilation", win.dilations[0]);
    };
    Func out;
    if (im.layout != Layout::nchw) {
        ops::OpConfig c = convolution(depthwise ? "depthwise_conv2d" : "conv2d");
        if (!depthwise && group > 1) c.with("groups", group);
        out = build_library_op(ctx, im.add_layout(c), {ctx.input(0), ctx.input(1)});
    } else if (depthwise) {
        // One filter per channel: weights [c, 1, kh, kw] are the library's [c, kh, kw].
        Func w3 = reshape_func(ctx.input(1), w, {w[0], w[2], w[3]}, ctx.name("dw_weights"));
        out = build_library_op(ctx, convolution("depthwise_conv2d"), {ctx.input(0), w3});
    } else if (block > 0) {
        // Panels [oc/b][c][kh][kw][b]: the output channels come from the output.
        ops::OpConfig c = convolution("conv2d").with("packed", 1).with("block", block);
        if (ctx.node().get_int(kPackedPlanarAttr, 0) != 0) c.with("sums", "planar");
        out = build_library_op(ctx, c, {ctx.input(0), ctx.input(1)});
    } else {
        out = build_library_op(ctx, convolution("conv2d").with("groups", group), {ctx.input(0), ctx.input(1)});
    }
    if (!ctx.ic.has(2)) return {out};
    if (im.layout == Layout::blocked) {
        // The bias [oc] as [1][oc/b][1][1][b] (a split of its axis: affine), broadcast.
        const Shape bias_shape = {1, oc / im.block, 1, 1, im.block};
        Func bias = reshape_func(ctx.input(2), ctx.in_shape(2), bias_shape, ctx.name("bias_blocked"));
        return {build_library_op(
            ctx, ops::OpConfig::of("add").with("shape_a", shape_key(ctx.out_shape())).with("shape_b", shape_key(bias_shape)),
            {out, bias})};
    }
    return {build_library_op(ctx, ops::OpConfig::of("bias_add").with("shape", shape_key(y)).with("axis", im.channel_axis()),
                             {out, ctx.input(2)})};
}

// graph/passes/conv_transpose_as_conv turns every ConvTranspose it can into a Conv;
// one left here has three spatial axes and strides, or more axes.
std::vector<Func> conv_transpose(LowerContext &ctx) {
    ctx.fail("a ConvTranspose compiles as the Conv it equals, over one or two spatial axes (three without "
             "strides); this one has " + std::to_string(ctx.in_shape(0).size() - 2) + " spatial axes" +
             (ctx.in_shape(0).size() == 5 ? " and strides" : ""));
}

std::vector<Func> gemm(LowerContext &ctx) {
    const bool ta = ctx.node().get_int("transA", 0) != 0, tb = ctx.node().get_int("transB", 0) != 0;
    const float alpha = ctx.node().get_float("alpha", 1.0f), beta = ctx.node().get_float("beta", 1.0f);
    const Shape &a = ctx.in_shape(0), &b = ctx.in_shape(1), &out_shape = ctx.out_shape();
    const int64_t m = out_shape[0], nn = out_shape[1], k = ta ? a[0] : a[1];
    (void)b;
    const int64_t block = packed_block(ctx.node());
    // Packed B ([N/b][K][b]) already absorbed transB.
    ops::OpConfig product_op = ops::OpConfig::of("matmul").with("M", m).with("N", nn).with("K", k).with("trans_a", ta);
    if (block > 0) product_op.with("packed", 1).with("block", block);
    else product_op.with("trans_b", tb);
    const bool has_c = ctx.ic.has(2) && beta != 0.0f;
    const Shape c = has_c ? ctx.in_shape(2) : Shape{};
    // A bias along N (the usual Linear layer): the library's fused bias epilogue.
    if (has_c && alpha == 1.0f && beta == 1.0f && num_elements(c) == nn && c.back() == nn) {
        Func bias = reshape_func(ctx.input(2), c, {nn}, ctx.name("bias"));
        return {build_library_op(ctx, ops::OpConfig(product_op).with("bias", 1), {ctx.input(0), ctx.input(1), bias})};
    }
    Func product = build_library_op(ctx, product_op, {ctx.input(0), ctx.input(1)});
    if (!has_c && alpha == 1.0f) return {product};
    Halide::Var j("j"), i("i");
    Func out(ctx.name("gemm"));
    Halide::Expr value = alpha * product(j, i);
    if (has_c) value += beta * ops::at(broadcast_func(ctx.input(2), c, out_shape, ctx.name("c")), {i, j});
    out(j, i) = value;
    return {out};
}

std::vector<Func> matmul(LowerContext &ctx) {
    Shape a = ctx.in_shape(0), b = ctx.in_shape(1);
    Func fa = ctx.input(0), fb = ctx.input(1);
    const Shape out_shape = ctx.out_shape();
    // 1-D operands: a row vector [1, K] and a column vector [K, 1] (their axis is
    // dropped from the output, which the final reshape does).
    if (a.size() == 1) fa = reshape_func(fa, a, {1, a[0]}, ctx.name("a2")), a = {1, a[0]};
    if (const int64_t block = packed_block(ctx.node()); block > 0) {
        // B packed as [N/b][K][b] (pack_weights): every row of A times it.
        const int64_t k = a.back(), nn = out_shape.back(), rows = num_elements(a) / k;
        Func a2 = a.size() == 2 ? fa : reshape_func(fa, a, {rows, k}, ctx.name("rows"));
        Func product = build_library_op(
            ctx, ops::OpConfig::of("matmul").with("M", rows).with("N", nn).with("K", k).with("packed", 1).with("block", block),
            {a2, fb});
        return {reshape_func(product, {rows, nn}, out_shape, ctx.name("out"))};
    }
    if (b.size() == 1) fb = reshape_func(fb, b, {b[0], 1}, ctx.name("b2")), b = {b[0], 1};
    const int64_t m = a[a.size() - 2], k = a.back(), nn = b.back();
    if (b.size() == 2) {
        // Every row of every batch of A times one B: one matmul with M = batch x M.
        const int64_t rows = num_elements(a) / k;
        Func a2 = a.size() == 2 ? fa : reshape_func(fa, a, {rows, k}, ctx.name("rows"));
        Func product =
            build_library_op(ctx, ops::OpConfig::of("matmul").with("M", rows).with("N", nn).with("K", k), {a2, fb});
        return {reshape_func(product, {rows, nn}, out_shape, ctx.name("out"))};
    }
    // Batched: both operands broadcast to the output's batch, flattened to one batch axis.
    // (B is at least 3-D here; a 1-D A has no M axis in the output.)
    const Shape batch(out_shape.begin(), out_shape.end() - (ctx.in_shape(0).size() == 1 ? 1 : 2));
    const int64_t count = num_elements(batch);
    auto as_batch = [&](const Func &f, const Shape &s, int64_t r, int64_t c, const std::string &tag) {
        Shape full = batch;
        full.push_back(r);
        full.push_back(c);
        Func wide = s == full ? f : broadcast_func(f, s, full, ctx.name(tag + "_bc"));
        return reshape_func(wide, full, {count, r, c}, ctx.name(tag + "3"));
    };
    Func product =
        build_library_op(ctx, ops::OpConfig::of("batch_matmul").with("B", count).with("M", m).with("N", nn).with("K", k),
                         {as_batch(fa, a, m, k, "a"), as_batch(fb, b, k, nn, "b")});
    return {reshape_func(product, {count, m, nn}, out_shape, ctx.name("out"))};
}

}  // namespace

void register_linear_lowering(LowerTable &table) {
    table["Conv"] = conv;
    table["ConvTranspose"] = conv_transpose;
    table["Gemm"] = gemm;
    table["MatMul"] = matmul;
}

}  // namespace tessera::graph
