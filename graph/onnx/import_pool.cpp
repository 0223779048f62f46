// MaxPool, AveragePool (count_include_pad, ceil_mode), GlobalAveragePool and GlobalMaxPool over
// X [N, C, D1..Dn]. MaxPool's optional Indices output is not supported.
#include "window.h"

namespace tessera::graph {

namespace {

void check_pool(const InferContext &ctx) {
    check_auto_pad(ctx);
    if (!ctx.node.has_attr("kernel_shape")) ctx.fail("attribute kernel_shape is required");
    int64_t ceil_mode = ctx.node.get_int("ceil_mode", 0);
    if (ceil_mode != 0 && ceil_mode != 1) ctx.fail("ceil_mode must be 0 or 1");
    ctx.require_dtype(0, {DType::f32});
}

bool infer_pool(InferContext &ctx) {
    const Shape &x = ctx.shape(0);
    if (x.size() < 3) ctx.fail("input X must have rank 3 or more (N, C, spatial...), got " + shape_string(x));
    Window win = resolve_window(ctx, Shape(x.begin() + 2, x.end()), ctx.node.get_ints("kernel_shape", {}),
                                ctx.node.get_int("ceil_mode", 0) != 0);
    Shape out{x[0], x[1]};
    out.insert(out.end(), win.out.begin(), win.out.end());
    ctx.set_output(0, DType::f32, out);
    return true;
}

bool infer_global_pool(InferContext &ctx) {
    Shape out = ctx.shape(0);
    if (out.size() < 3) ctx.fail("input X must have rank 3 or more (N, C, spatial...), got " + shape_string(out));
    std::fill(out.begin() + 2, out.end(), 1);
    ctx.set_output(0, DType::f32, out);
    return true;
}

} // namespace

void register_pool_rules(RuleTable &table) {
    OpRule max_pool;
    max_pool.attributes = {"auto_pad", "ceil_mode", "dilations", "kernel_shape", "pads", "storage_order", "strides"};
    max_pool.check = check_pool;
    max_pool.infer = infer_pool;
    table["MaxPool"] = max_pool;

    OpRule avg_pool = max_pool;
    avg_pool.attributes = {"auto_pad", "ceil_mode", "count_include_pad", "dilations", "kernel_shape", "pads", "strides"};
    table["AveragePool"] = avg_pool;

    OpRule global;
    global.check = [](const InferContext &ctx) { ctx.require_dtype(0, {DType::f32}); };
    global.infer = infer_global_pool;
    table["GlobalAveragePool"] = global;
    table["GlobalMaxPool"] = global;
}

} // namespace tessera::graph
