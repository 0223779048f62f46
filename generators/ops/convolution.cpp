#include "convolution.h"

#include "halide_axes.h"

namespace tessera::ops {

using namespace Halide;

namespace {

// Zero outside the image in h and w; channel and batch are left unbounded.
Func zero_padded(const ConvParams &p, const Func &input) {
    if (p.pad == 0) return input;
    Region bounds = p.nhwc ? Region{Range(), {0, int(p.w)}, {0, int(p.h)}, Range()}
                           : Region{{0, int(p.w)}, {0, int(p.h)}, Range(), Range()};
    Func padded = BoundaryConditions::constant_exterior(input, 0.0f, bounds);
    return padded;
}

}  // namespace

Func conv2d(const ConvParams &p, const Func &input, const Func &weights) {
    Func in = zero_padded(p, input);
    Func w = weights;
    Var x("x"), y("y"), c("c"), n("n");
    const int cg = static_cast<int>(p.c / p.groups);
    const int ocg = static_cast<int>(p.oc / p.groups);
    Func conv(p.depthwise ? "depthwise_conv2d" : "conv2d");

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
        // Grouped: output channel c reads input channels of its group. Kept affine when groups == 1.
        in_c = p.groups == 1 ? Expr(rc) : (c / ocg) * cg + rc;
        w_val = p.nhwc ? w(c, rc, rx, ry) : w(rx, ry, rc, c);
    }
    Expr in_val = p.nhwc ? in(in_c, ix, iy, n) : in(ix, iy, in_c, n);
    std::vector<Var> out_args = p.nhwc ? std::vector<Var>{c, x, y, n} : std::vector<Var>{x, y, c, n};
    if (p.depthwise) {
        // A pure output over the window sum (as pooling): a schedule can compute
        // the sum per output row without an initialisation pass over the output
        // (Tessera, NHWC: see scheduler/README.md, "Loop nests").
        Func sum("depthwise_sum");
        sum(out_args) = 0.0f;
        sum(out_args) += in_val * w_val;
        conv(out_args) = sum(out_args);
        return conv;
    }
    conv(out_args) = 0.0f;
    conv(out_args) += in_val * w_val;
    return conv;
}

}  // namespace tessera::ops
