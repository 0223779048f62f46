// Conv: N-d convolution with groups, dilations, strides, explicit pads or auto_pad.
// X [N, C, D1..Dn], W [M, C/group, k1..kn], optional B [M].
#include "window.h"

namespace tessera::graph {

namespace {

void check_conv(const InferContext &ctx) {
    check_auto_pad(ctx);
    if (ctx.node.get_int("group", 1) < 1) ctx.fail("group must be at least 1");
    for (size_t k = 0; k < 3; k++)
        ctx.require_dtype(k, {DType::f32});
}

bool infer_conv(InferContext &ctx) {
    const Shape &x = ctx.shape(0), &w = ctx.shape(1);
    if (x.size() < 3) ctx.fail("input X must have rank 3 or more (N, C, spatial...), got " + shape_string(x));
    if (w.size() != x.size())
        ctx.fail("weight rank " + std::to_string(w.size()) + " differs from input rank " + std::to_string(x.size()));
    int64_t group = ctx.node.get_int("group", 1);
    if (x[1] != w[1] * group)
        ctx.fail("input channels " + std::to_string(x[1]) + " != weight channels " + std::to_string(w[1]) +
                 " x group " + std::to_string(group));
    if (w[0] % group) ctx.fail("output channels " + std::to_string(w[0]) + " not divisible by group");
    std::vector<int64_t> kernel(w.begin() + 2, w.end());
    if (ctx.node.has_attr("kernel_shape") && ctx.node.get_ints("kernel_shape", {}) != kernel)
        ctx.fail("kernel_shape disagrees with the weight shape " + shape_string(w));
    if (ctx.has(2) && ctx.shape(2) != Shape{w[0]})
        ctx.fail("bias shape " + shape_string(ctx.shape(2)) + " is not [" + std::to_string(w[0]) + "]");
    Window win = resolve_window(ctx, Shape(x.begin() + 2, x.end()), kernel, false);
    Shape out{x[0], w[0]};
    out.insert(out.end(), win.out.begin(), win.out.end());
    ctx.set_output(0, DType::f32, out);
    return true;
}

} // namespace

void register_conv_rules(RuleTable &table) {
    OpRule conv;
    conv.attributes = {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"};
    conv.min_inputs = 2;
    conv.max_inputs = 3;
    conv.check = check_conv;
    conv.infer = infer_conv;
    table["Conv"] = conv;
}

} // namespace tessera::graph
