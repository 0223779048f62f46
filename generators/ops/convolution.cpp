#include "convolution.h"

#include "halide_axes.h"

namespace tessera::ops {

using namespace Halide;

namespace {

// Zero outside the image in h and w; channel and batch are left unbounded.
Func zero_padded(const ConvParams &p, const Func &input) {
    if (p.pad == 0) return input;
    Func padded = BoundaryConditions::constant_exterior(input, 0.0f, image_bounds(p.nhwc, p.blocked, p.h, p.w));
    return padded;
}

// Channel-blocked NCHW[x]c: in (ci, x, y, cb, n), out (oi, x, y, ob, n), a block of
// channels the innermost, stride-1 dim (one vector), as oneDNN's nChw16c. Every
// access is affine in the blocked coordinates (channel c = cb * block + ci), so
// the scheduler analyses the whole chain of blocked ops a model's graph carries.
Func conv2d_blocked(const ConvParams &p, const Func &input, const Func &weights, const std::string &name) {
    Func in = zero_padded(p, input);
    const int b = int(p.block);
    Var oi("oi"), x("x"), y("y"), ob("ob"), n("n");
    Func sum(!name.empty() ? name + "_sum" : p.depthwise ? "depthwise_sum" : "conv2d_sum");
    sum(oi, x, y, ob, n) = 0.0f;
    if (p.depthwise) {
        // Weights [c/b][kh][kw][b]: a vector of channels per tap.
        RDom r(0, int(p.kw), 0, int(p.kh), "r");
        Expr ix = x * int(p.stride) + r.x * int(p.dilation) - int(p.pad);
        Expr iy = y * int(p.stride) + r.y * int(p.dilation) - int(p.pad);
        sum(oi, x, y, ob, n) += in(oi, ix, iy, ob, n) * weights(oi, r.x, r.y, ob);
    } else if (p.groups > 1) {
        // Grouped with one block per group (c / groups = oc / groups = b, RegNetX's and
        // ResNeXt's middle stages): output block ob reads input block ob alone, an
        // affine access, so the sums get the blocked register tiles; panels
        // [oc/b][b][kh][kw][b].
        RDom r(0, b, 0, int(p.kw), 0, int(p.kh), "r");
        Expr ix = x * int(p.stride) + r[1] * int(p.dilation) - int(p.pad);
        Expr iy = y * int(p.stride) + r[2] * int(p.dilation) - int(p.pad);
        sum(oi, x, y, ob, n) += in(r[0], ix, iy, ob, n) * weights(oi, r[1], r[2], r[0], ob);
    } else {
        // Panels [oc/b][c][kh][kw][b]; the reduction walks a block's channels innermost.
        RDom r(0, b, 0, int(p.kw), 0, int(p.kh), 0, int(p.c / p.block), "r");
        Expr ix = x * int(p.stride) + r[1] * int(p.dilation) - int(p.pad);
        Expr iy = y * int(p.stride) + r[2] * int(p.dilation) - int(p.pad);
        sum(oi, x, y, ob, n) += in(r[0], ix, iy, r[3], n) * weights(oi, r[1], r[2], r[3] * b + r[0], ob);
    }
    Func conv(!name.empty() ? name : p.depthwise ? "depthwise_conv2d" : "conv2d");
    conv(oi, x, y, ob, n) = sum(oi, x, y, ob, n);
    return conv;
}

// conv2d over packed weights (nchw, groups 1): the sums in the channel-blocked
// order [n][oc/block][oh][ow][block], so a block of output channels is the
// innermost, stride-1 dim the register tile vectorises, reading one contiguous
// weight panel per tap, or (sums=planar) [n][oc/block][block][oh][ow]; the output
// is the sums back in NCHW.
Func conv2d_packed(const ConvParams &p, const Func &input, const Func &panels, const std::string &name) {
    Func in = zero_padded(p, input);
    Var xi("xi"), x("x"), y("y"), co("co"), c("c"), n("n");
    RDom r(0, int(p.kw), 0, int(p.kh), 0, int(p.c), "r");
    Expr ix = x * int(p.stride) + r[0] * int(p.dilation) - int(p.pad);
    Expr iy = y * int(p.stride) + r[1] * int(p.dilation) - int(p.pad);
    Func sum(!name.empty() ? name + "_sum" : "conv2d_sum");
    // Planar sums keep the output's own order: the read-back below is the sums'
    // epilogue (the channel dim seen split), computed per tile, and the scheduler
    // may treat x and y as one dim of pixels.
    const std::vector<Var> order = p.planar_sums ? std::vector<Var>{x, y, xi, co, n} : std::vector<Var>{xi, x, y, co, n};
    sum(order) = 0.0f;
    sum(order) += in(ix, iy, r[2], n) * panels(xi, r[0], r[1], r[2], co);
    Func conv(!name.empty() ? name : "conv2d");
    const int block = int(p.block);
    const std::vector<Expr> back = p.planar_sums ? std::vector<Expr>{x, y, c % block, c / block, n}
                                                 : std::vector<Expr>{c % block, x, y, c / block, n};
    conv(x, y, c, n) = sum(back);
    return conv;
}

// Grouped (1 < groups, not depthwise): the sums over an explicit group axis,
// (x, y, o, g, n) in NCHW and (o, g, x, y, n) in NHWC, where output channel
// c = g * ocg + o reads input channels g * cg + rc. Every access of the sums is
// then affine, so the scheduler builds them a program of their own (with the
// channel index c / ocg it could not analyse them and gave them the safe
// schedule, 0.01-0.05x oneDNN); the output reads the sums back by c's quotient
// and remainder, the one non-affine access (a copy, as the packed form's).
Func conv2d_grouped(const ConvParams &p, const Func &input, const Func &w, const std::string &name) {
    Func in = zero_padded(p, input);
    const int cg = static_cast<int>(p.c / p.groups);
    const int ocg = static_cast<int>(p.oc / p.groups);
    Var x("x"), y("y"), o("o"), g("g"), c("c"), n("n");
    RDom r = p.nhwc ? RDom(0, cg, 0, int(p.kw), 0, int(p.kh), "r") : RDom(0, int(p.kw), 0, int(p.kh), 0, cg, "r");
    RVar rc = p.nhwc ? r[0] : r[2], rx = p.nhwc ? r[1] : r[0], ry = p.nhwc ? r[2] : r[1];
    Expr ix = x * int(p.stride) + rx * int(p.dilation) - int(p.pad);
    Expr iy = y * int(p.stride) + ry * int(p.dilation) - int(p.pad);
    Expr in_c = g * cg + rc, out_c = g * ocg + o;
    Expr in_val = p.nhwc ? in(in_c, ix, iy, n) : in(ix, iy, in_c, n);
    Expr w_val = p.nhwc ? w(out_c, rc, rx, ry) : w(rx, ry, rc, out_c);
    std::vector<Var> sum_args = p.nhwc ? std::vector<Var>{o, g, x, y, n} : std::vector<Var>{x, y, o, g, n};
    Func sum(!name.empty() ? name + "_sum" : "conv2d_sum");
    sum(sum_args) = 0.0f;
    sum(sum_args) += in_val * w_val;
    Func conv(!name.empty() ? name : "conv2d");
    if (p.nhwc) conv(c, x, y, n) = sum(c % ocg, c / ocg, x, y, n);
    else conv(x, y, c, n) = sum(x, y, c % ocg, c / ocg, n);
    return conv;
}

}  // namespace

Func conv2d(const ConvParams &p, const Func &input, const Func &weights, const std::string &name) {
    if (p.blocked) return conv2d_blocked(p, input, weights, name);
    if (p.packed) return conv2d_packed(p, input, weights, name);
    if (p.groups > 1 && !p.depthwise) return conv2d_grouped(p, input, weights, name);
    Func in = zero_padded(p, input);
    Func w = weights;
    Var x("x"), y("y"), c("c"), n("n");
    const int cg = static_cast<int>(p.c);
    Func conv(!name.empty() ? name : p.depthwise ? "depthwise_conv2d" : "conv2d");

    // NHWC reduces over channels innermost; NCHW over the kernel columns innermost.
    RDom r = p.depthwise ? RDom(0, int(p.kw), 0, int(p.kh), "r")
             : p.nhwc    ? RDom(0, cg, 0, int(p.kw), 0, int(p.kh), "r")
                         : RDom(0, int(p.kw), 0, int(p.kh), 0, cg, "r");
    RVar rx = p.depthwise || !p.nhwc ? r[0] : r[1];
    RVar ry = p.depthwise || !p.nhwc ? r[1] : r[2];
    Expr ix = x * int(p.stride) + rx * int(p.dilation) - int(p.pad);
    Expr iy = y * int(p.stride) + ry * int(p.dilation) - int(p.pad);

    Expr in_c, w_val;
    if (p.depthwise) {
        in_c = c;
        w_val = p.nhwc ? w(c, rx, ry) : w(rx, ry, c);
    } else {
        RVar rc = p.nhwc ? r[0] : r[2];
        in_c = rc;  // groups 1 (conv2d_grouped takes the others)
        w_val = p.nhwc ? w(c, rc, rx, ry) : w(rx, ry, rc, c);
    }
    Expr in_val = p.nhwc ? in(in_c, ix, iy, n) : in(ix, iy, in_c, n);
    std::vector<Var> out_args = p.nhwc ? std::vector<Var>{c, x, y, n} : std::vector<Var>{x, y, c, n};
    // A pure output over the sum (as pooling): an output written by an update is
    // zeroed in a pass of its own (Halide cannot fuse a Func's pure stage with its
    // update), while a pure output lets the scheduler compute the sum per tile of
    // it (depthwise: per output row, see scheduler/README.md, "Loop nests"). Side by
    // side on Zen 5 over eight 3x3 ResNet layers and a 1x1: geomean 2% faster, NCHW
    // 28x28x128 0.709 -> 0.681 ms, NHWC 7x7x512 0.623 -> 0.602, NCHW 56x56x64 0.589
    // -> 0.609 ms (the one loss over 1%).
    Func sum(!name.empty() ? name + "_sum" : p.depthwise ? "depthwise_sum" : "conv2d_sum");
    sum(out_args) = 0.0f;
    sum(out_args) += in_val * w_val;
    conv(out_args) = sum(out_args);
    return conv;
}

}  // namespace tessera::ops
