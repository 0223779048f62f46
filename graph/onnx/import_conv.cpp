// Conv: N-d convolution with groups, dilations, strides, explicit pads or auto_pad.
// X [N, C, D1..Dn], W [M, C/group, k1..kn], optional B [M]. ConvTranspose, its
// transpose (the gradient of a Conv with respect to its input).
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

// ConvTranspose: X [N, C, D1..Dn], W [C, M/group, k1..kn], optional B [M].
bool infer_conv_transpose(InferContext &ctx) {
    const Shape &x = ctx.shape(0), &w = ctx.shape(1);
    if (x.size() < 3) ctx.fail("input X must have rank 3 or more (N, C, spatial...), got " + shape_string(x));
    if (w.size() != x.size())
        ctx.fail("weight rank " + std::to_string(w.size()) + " differs from input rank " + std::to_string(x.size()));
    const int64_t group = ctx.node.get_int("group", 1);
    if (w[0] != x[1] || x[1] % group)
        ctx.fail("input channels " + std::to_string(x[1]) + " must equal the weight's first axis " +
                 std::to_string(w[0]) + " and divide by group " + std::to_string(group));
    const std::vector<int64_t> kernel(w.begin() + 2, w.end());
    if (ctx.node.has_attr("kernel_shape") && ctx.node.get_ints("kernel_shape", {}) != kernel)
        ctx.fail("kernel_shape disagrees with the weight shape " + shape_string(w));
    const int64_t m = w[1] * group;
    if (ctx.has(2) && ctx.shape(2) != Shape{m})
        ctx.fail("bias shape " + shape_string(ctx.shape(2)) + " is not [" + std::to_string(m) + "]");
    const TransposedWindow win = resolve_transposed_window(ctx, Shape(x.begin() + 2, x.end()), kernel);
    Shape out{x[0], m};
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

    OpRule transposed = conv;
    transposed.attributes = {"auto_pad", "dilations", "group", "kernel_shape", "output_padding", "output_shape",
                             "pads", "strides"};
    transposed.infer = infer_conv_transpose;
    table["ConvTranspose"] = transposed;
}

} // namespace tessera::graph
