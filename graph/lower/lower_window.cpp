// MaxPool, AveragePool and GlobalAveragePool through the op library's pooling (in
// NCHW or, on channel-blocked nodes of assign_layouts, its nchwc forms).
#include "assign_layouts.h"
#include "index_maps.h"
#include "lower_rule.h"
#include "op_library.h"
#include "window.h"

namespace tessera::graph {

using Halide::Func;

namespace {

// A channel-blocked node's layout keys for the library and its channel count.
std::string layout_keys(const LowerContext &ctx, int64_t &channels) {
    const int64_t block = layout_block(ctx.node());
    const Shape &x = ctx.in_shape(0);
    if (x.size() != (block > 0 ? 5u : 4u)) {
        ctx.fail("only 2-D pooling (4-D inputs) is compiled; this input is " + shape_string(x));
    }
    channels = block > 0 ? x[1] * block : x[1];
    return block > 0 ? " layout=nchwc block=" + std::to_string(block) : "";
}

std::vector<Func> pool(LowerContext &ctx, bool max) {
    const Shape &x = ctx.in_shape(0);
    int64_t channels = 0;
    const std::string layout = layout_keys(ctx, channels);
    const std::vector<int64_t> kernel = ctx.node().get_ints("kernel_shape", {});
    const Window win = resolve_window(ctx.ic, {x[2], x[3]}, kernel, ctx.node().get_int("ceil_mode", 0) != 0);
    if (!uniform_window(win) || win.dilations[0] != 1) {
        ctx.fail("the op library's pooling takes one pad and stride for both axes and sides, no dilation");
    }
    const std::string line = std::string(max ? "max_pool2d" : "avg_pool2d") + " n=" + std::to_string(x[0]) +
                             " c=" + std::to_string(channels) + " h=" + std::to_string(x[2]) +
                             " w=" + std::to_string(x[3]) + " kh=" + std::to_string(win.kernel[0]) +
                             " kw=" + std::to_string(win.kernel[1]) + " stride=" + std::to_string(win.strides[0]) +
                             " pad=" + std::to_string(win.pad_begin[0]) +
                             (max ? "" : " count_include_pad=" + std::to_string(ctx.node().get_int("count_include_pad", 0))) +
                             layout;
    Func out = build_library_op(ctx, line, {ctx.input(0)});
    // ceil_mode adds a window only where the library's floor rule would not.
    if (!floor_windows(win, {x[2], x[3]})) ctx.fail("ceil_mode that adds a window is not compiled yet");
    return {out};
}

std::vector<Func> global_average_pool(LowerContext &ctx) {
    const Shape &x = ctx.in_shape(0);
    int64_t channels = 0;
    const std::string layout = layout_keys(ctx, channels);
    Func pooled = build_library_op(ctx, "global_avg_pool n=" + std::to_string(x[0]) + " c=" + std::to_string(channels) +
                                            " h=" + std::to_string(x[2]) + " w=" + std::to_string(x[3]) + layout,
                                   {ctx.input(0)});
    // [n, c] (blocked: [n, c/b, b]) -> [n, c, 1, 1] ([n, c/b, 1, 1, b]).
    const Shape pooled_shape = layout.empty() ? Shape{x[0], x[1]} : Shape{x[0], x[1], x[4]};
    return {reshape_func(pooled, pooled_shape, ctx.out_shape(), ctx.name("nc11"))};
}

}  // namespace

void register_window_lowering(LowerTable &table) {
    table["MaxPool"] = [](LowerContext &ctx) { return pool(ctx, true); };
    table["AveragePool"] = [](LowerContext &ctx) { return pool(ctx, false); };
    table["GlobalAveragePool"] = global_average_pool;
}

}  // namespace tessera::graph
