// Tensor expressions built by hand for unit tests of the scheduler's parts.
#pragma once

#include "tensor_expr.h"

namespace tessera::test {

// An NHWC 3x3 convolution's update over 512 -> 512 channels, 7x7:
// out(c, x, y) += padded(r.x, x + r.y - 1, y + r.z - 1) * w(c, r.x, r.y, r.z).
// Loop dims: c, x, y (spatial), then r.x (input channels), r.y, r.z (kernel taps).
// `input_is_computed`: the padded input is a computed Func rather than an input.
inline analysis::TensorExpr nhwc_conv(bool input_is_computed) {
    analysis::TensorExpr t;
    t.func = "conv";
    t.stage = 1;
    t.dims = {{"c", 0, 512, false}, {"x", 0, 7, false},  {"y", 0, 7, false},
              {"r$x", 0, 512, true}, {"r$y", 0, 3, true}, {"r$z", 0, 3, true}};
    analysis::AccessMap in;
    in.tensor = "padded";
    in.is_input = !input_is_computed;
    in.coef = {{0, 0, 0, 1, 0, 0}, {0, 1, 0, 0, 1, 0}, {0, 0, 1, 0, 0, 1}};
    in.offset = {0, -1, -1};
    analysis::AccessMap w;
    w.tensor = "weights";
    w.is_input = true;
    w.coef = {{1, 0, 0, 0, 0, 0}, {0, 0, 0, 1, 0, 0}, {0, 0, 0, 0, 1, 0}, {0, 0, 0, 0, 0, 1}};
    w.offset = {0, 0, 0, 0};
    t.reads = {in, w};
    t.write.tensor = "conv";
    t.write.coef = {{1, 0, 0, 0, 0, 0}, {0, 1, 0, 0, 0, 0}, {0, 0, 1, 0, 0, 0}};
    t.write.offset = {0, 0, 0};
    return t;
}

// An NCHW convolution's update, 256 -> 1024 channels on a 14 x 14 map (by
// default), with a kh x kw window (pad kh / 2) at a stride:
// out(x, y, c) += in(s x + r.x - pad, s y + r.y - pad, r.z) * w(r.x, r.y, r.z, c).
// Loop dims: x, y, c (spatial), then r.x, r.y (kernel taps), r.z (input channels).
inline analysis::TensorExpr nchw_conv(int64_t kh, int64_t kw, int64_t stride = 1, int64_t out = 14,
                                      int64_t in_channels = 256, int64_t out_channels = 1024) {
    analysis::TensorExpr t;
    t.func = "conv";
    t.stage = 1;
    t.dims = {{"x", 0, out, false},  {"y", 0, out, false},  {"c", 0, out_channels, false},
              {"r$x", 0, kw, true}, {"r$y", 0, kh, true}, {"r$z", 0, in_channels, true}};
    analysis::AccessMap in;
    in.tensor = "input";
    in.is_input = true;
    in.coef = {{stride, 0, 0, 1, 0, 0}, {0, stride, 0, 0, 1, 0}, {0, 0, 0, 0, 0, 1}};
    in.offset = {-kw / 2, -kh / 2, 0};
    in.clamped = {false, false, false};
    analysis::AccessMap w;
    w.tensor = "weights";
    w.is_input = true;
    w.coef = {{0, 0, 0, 1, 0, 0}, {0, 0, 0, 0, 1, 0}, {0, 0, 0, 0, 0, 1}, {0, 0, 1, 0, 0, 0}};
    w.offset = {0, 0, 0, 0};
    w.clamped = {false, false, false, false};
    t.reads = {in, w};
    t.write.tensor = "conv";
    t.write.coef = {{1, 0, 0, 0, 0, 0}, {0, 1, 0, 0, 0, 0}, {0, 0, 1, 0, 0, 0}};
    t.write.offset = {0, 0, 0};
    t.write.clamped = {false, false, false};
    return t;
}

// A 1x1 convolution's update over weights packed into panels of 32 output channels
// (the graph layer's packed form), in -> out channels on a side x side map:
// out(xi, x, y, co) += in(x, y, r.z) * w(xi, r.z, co). Loop dims: xi (a panel's
// channels), x, y, co (panels; spatial), then r.z (input channels).
inline analysis::TensorExpr pointwise_conv_on_panels(int64_t side, int64_t in_channels, int64_t out_channels) {
    analysis::TensorExpr t;
    t.func = "conv";
    t.stage = 1;
    t.dims = {{"xi", 0, 32, false},
              {"x", 0, side, false},
              {"y", 0, side, false},
              {"co", 0, out_channels / 32, false},
              {"r$z", 0, in_channels, true}};
    analysis::AccessMap in;
    in.tensor = "input";
    in.is_input = true;
    in.coef = {{0, 1, 0, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 0, 0, 1}};
    in.offset = {0, 0, 0};
    analysis::AccessMap w;
    w.tensor = "panels";
    w.is_input = true;
    w.coef = {{1, 0, 0, 0, 0}, {0, 0, 0, 0, 1}, {0, 0, 0, 1, 0}};
    w.offset = {0, 0, 0};
    t.reads = {in, w};
    t.write.tensor = "conv";
    t.write.coef = {{1, 0, 0, 0, 0}, {0, 1, 0, 0, 0}, {0, 0, 1, 0, 0}, {0, 0, 0, 1, 0}};
    t.write.offset = {0, 0, 0, 0};
    return t;
}

// A channel-blocked (NCHW[b]c) 1x1 convolution's update over in_blocks -> out_blocks
// blocks of b channels on a side x side map, both operands dense graph values
// (constant strides): out(oi, x, y, ob) += in(r.x, x, y, r.w) * w(oi, b r.w + r.x, ob).
// Loop dims: oi (a block's channels), x, y, ob (spatial), then r.x, r.w (input
// channels within and across blocks).
inline analysis::TensorExpr blocked_pointwise_conv(int64_t side, int64_t in_blocks, int64_t out_blocks, int64_t b) {
    analysis::TensorExpr t;
    t.func = "conv";
    t.stage = 1;
    t.dims = {{"oi", 0, b, false},         {"x", 0, side, false},     {"y", 0, side, false},
              {"ob", 0, out_blocks, false}, {"r$x", 0, b, true}, {"r$w", 0, in_blocks, true}};
    analysis::AccessMap in;
    in.tensor = "input";
    in.is_input = true;
    in.constant_strides = true;
    in.coef = {{0, 0, 0, 0, 1, 0}, {0, 1, 0, 0, 0, 0}, {0, 0, 1, 0, 0, 0}, {0, 0, 0, 0, 0, 1}};
    in.offset = {0, 0, 0, 0};
    analysis::AccessMap w;
    w.tensor = "panels";
    w.is_input = true;
    w.constant_strides = true;
    w.coef = {{1, 0, 0, 0, 0, 0}, {0, 0, 0, 0, 1, b}, {0, 0, 0, 1, 0, 0}};
    w.offset = {0, 0, 0};
    t.reads = {in, w};
    t.write.tensor = "conv";
    t.write.coef = {{1, 0, 0, 0, 0, 0}, {0, 1, 0, 0, 0, 0}, {0, 0, 1, 0, 0, 0}, {0, 0, 0, 1, 0, 0}};
    t.write.offset = {0, 0, 0, 0};
    return t;
}

// A GEMM's update, out(n, m) += a(k, m) * b(n, k): loop dims n, m (spatial),
// then k.
inline analysis::TensorExpr gemm(int64_t m, int64_t n, int64_t k) {
    analysis::TensorExpr t;
    t.func = "gemm";
    t.stage = 1;
    t.ops_per_point = 2;
    t.dims = {{"n", 0, n, false}, {"m", 0, m, false}, {"k", 0, k, true}};
    analysis::AccessMap a;
    a.tensor = "a";
    a.is_input = true;
    a.coef = {{0, 0, 1}, {0, 1, 0}};
    a.offset = {0, 0};
    analysis::AccessMap b;
    b.tensor = "b";
    b.is_input = true;
    b.coef = {{1, 0, 0}, {0, 0, 1}};
    b.offset = {0, 0};
    t.reads = {a, b};
    t.write.tensor = "gemm";
    t.write.coef = {{1, 0, 0}, {0, 1, 0}};
    t.write.offset = {0, 0};
    return t;
}

}  // namespace tessera::test
