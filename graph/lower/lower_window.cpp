// MaxPool, AveragePool and GlobalAveragePool through the op library's pooling (in
// NCHW or, on nodes assign_layouts gave NHWC or NCHW[b]c, its nhwc and nchwc forms;
// dilated pools in NCHW as a maximum or a sum over their taps);
// GlobalMaxPool (NCHW) through its reduce_max.
#include "halide_axes.h"
#include "image_layout.h"
#include "index_maps.h"
#include "lower_rule.h"
#include "op_library.h"
#include "window.h"

#include <cmath>

namespace tessera::graph {

using Halide::Func;

namespace {

// A max pool whose taps are dilated (the op library's pooling has none), NCHW: the
// maximum over the window's taps, the padding -inf.
Func dilated_max_pool(LowerContext &ctx, const LayoutImage &im, const Window &win) {
    Func padded = Halide::BoundaryConditions::constant_exterior(ctx.input(0), -INFINITY,
                                                                ops::halide_region({im.n, im.c, im.h, im.w}));
    Halide::Var x("x"), y("y"), c("c"), n("n");
    Halide::RDom r(0, int(win.kernel[1]), 0, int(win.kernel[0]), ctx.name("taps"));
    Func out(ctx.name("dilated_max_pool"));
    out(x, y, c, n) = Halide::maximum(padded(x * int(win.strides[1]) - int(win.pad_begin[1]) + r.x * int(win.dilations[1]),
                                             y * int(win.strides[0]) - int(win.pad_begin[0]) + r.y * int(win.dilations[0]),
                                             c, n));
    return out;
}

// An average pool whose taps are dilated (AveragePool's dilations, opset 19), NCHW:
// the sum over its taps of the zero-padded input over the window's size, or with
// count_include_pad = 0 over the taps inside the input.
Func dilated_average_pool(LowerContext &ctx, const LayoutImage &im, const Window &win) {
    const Halide::Region box = ops::halide_region({im.n, im.c, im.h, im.w});
    Func padded = Halide::BoundaryConditions::constant_exterior(ctx.input(0), 0.0f, box);
    Halide::Var x("x"), y("y"), c("c"), n("n");
    Halide::RDom r(0, int(win.kernel[1]), 0, int(win.kernel[0]), ctx.name("taps"));
    const Halide::Expr ix = x * int(win.strides[1]) - int(win.pad_begin[1]) + r.x * int(win.dilations[1]);
    const Halide::Expr iy = y * int(win.strides[0]) - int(win.pad_begin[0]) + r.y * int(win.dilations[0]);
    Func sum(ctx.name("dilated_sum")), inside(ctx.name("dilated_count")), out(ctx.name("dilated_average_pool"));
    sum(x, y, c, n) = Halide::sum(padded(ix, iy, c, n));
    if (ctx.node().get_int("count_include_pad", 0) != 0) {
        out(x, y, c, n) = sum(x, y, c, n) / float(win.kernel[0] * win.kernel[1]);
    } else {
        const Halide::Expr in = ix >= 0 && ix < int(im.w) && iy >= 0 && iy < int(im.h);
        inside(x, y) = Halide::sum(Halide::select(in, 1.0f, 0.0f));
        out(x, y, c, n) = sum(x, y, c, n) / Halide::max(inside(x, y), 1.0f);
    }
    return out;
}

std::vector<Func> pool(LowerContext &ctx, bool max) {
    const LayoutImage im = layout_image(ctx, "2-D pooling windows");
    const std::vector<int64_t> kernel = ctx.node().get_ints("kernel_shape", {});
    const Window win = resolve_window(ctx.ic, {im.h, im.w}, kernel, ctx.node().get_int("ceil_mode", 0) != 0);
    const bool dilated = win.dilations[0] != 1 || win.dilations[1] != 1;
    const bool ceil_mode = ctx.node().get_int("ceil_mode", 0) != 0;
    if (max && dilated && im.layout == Layout::nchw) return {dilated_max_pool(ctx, im, win)};
    if (!max && dilated && im.layout == Layout::nchw && !ceil_mode) return {dilated_average_pool(ctx, im, win)};
    if (!uniform_window(win) || dilated) {
        ctx.fail("the op library's pooling takes one pad and stride for both axes and sides, no dilation (dilated "
                 "pools in NCHW are compiled, an average one without ceil_mode)");
    }
    ops::OpConfig config = ops::OpConfig::of(max ? "max_pool2d" : "avg_pool2d")
                               .with("n", im.n)
                               .with("c", im.c)
                               .with("h", im.h)
                               .with("w", im.w)
                               .with("kh", win.kernel[0])
                               .with("kw", win.kernel[1])
                               .with("stride", win.strides[0])
                               .with("pad", win.pad_begin[0]);
    if (!max) config.with("count_include_pad", ctx.node().get_int("count_include_pad", 0));
    // ceil_mode matters only where it adds a window the floor rule would not.
    if (!floor_windows(win, {im.h, im.w})) config.with("ceil_mode", 1);
    return {build_library_op(ctx, im.add_layout(config), {ctx.input(0)})};
}

std::vector<Func> global_average_pool(LowerContext &ctx) {
    const LayoutImage im = layout_image(ctx, "2-D pooling windows");
    ops::OpConfig config =
        ops::OpConfig::of("global_avg_pool").with("n", im.n).with("c", im.c).with("h", im.h).with("w", im.w);
    Func pooled = build_library_op(ctx, im.add_layout(config), {ctx.input(0)});
    // [n, c] -> [n, c, 1, 1] (NHWC [n, 1, 1, c]); blocked [n, c/b, b] -> [n, c/b, 1, 1, b].
    const Shape pooled_shape =
        im.layout == Layout::blocked ? Shape{im.n, im.c / im.block, im.block} : Shape{im.n, im.c};
    return {reshape_func(pooled, pooled_shape, ctx.out_shape(), ctx.name("nc11"))};
}

// The library's reduce_max over the spatial axes of the NCHW image (any rank), then
// the unit spatial axes back.
std::vector<Func> global_max_pool(LowerContext &ctx) {
    const Shape &x = ctx.in_shape(0);
    std::vector<int64_t> spatial;
    for (size_t a = 2; a < x.size(); a++) spatial.push_back(int64_t(a));
    const ops::OpConfig config = ops::OpConfig::of("reduce_max").with("shape", shape_key(x)).with_list("axes", spatial);
    Func pooled = build_library_op(ctx, config, {ctx.input(0)});
    return {reshape_func(pooled, {x[0], x[1]}, ctx.out_shape(), ctx.name("nc11"))};
}

}  // namespace

void register_window_lowering(LowerTable &table) {
    table["MaxPool"] = [](LowerContext &ctx) { return pool(ctx, true); };
    table["AveragePool"] = [](LowerContext &ctx) { return pool(ctx, false); };
    table["GlobalAveragePool"] = global_average_pool;
    table["GlobalMaxPool"] = global_max_pool;
}

}  // namespace tessera::graph
