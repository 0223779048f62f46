#include "pooling.h"

#include "halide_axes.h"

namespace tessera::ops {

using namespace Halide;

namespace {

Func global_avg_pool(const PoolParams &p, const Func &input) {
    Var c("c"), n("n"), cb("cb");
    RDom r(0, int(p.w), 0, int(p.h), "r");
    // Blocked: c is the position within a block, cb the block.
    std::vector<Var> args = p.blocked ? std::vector<Var>{c, cb, n} : std::vector<Var>{c, n};
    Func in = input;
    Expr v = p.blocked ? in(c, r.x, r.y, cb, n) : p.nhwc ? in(c, r.x, r.y, n) : in(r.x, r.y, c, n);
    Func total("global_sum");
    total(args) = 0.0f;
    total(args) += v;
    Func out("global_avg_pool");
    out(args) = total(args) * (1.0f / float(p.h * p.w));
    return out;
}

}  // namespace

Func pool2d(const PoolParams &p, const Func &input) {
    if (p.kind == PoolKind::GlobalAvg) return global_avg_pool(p, input);

    const bool is_max = p.kind == PoolKind::Max;
    Func in = input;
    // A ceil_mode window past the edge reads beyond the padded input too.
    const bool past_edge =
        (p.oh - 1) * p.stride + p.kh > p.h + 2 * p.pad || (p.ow - 1) * p.stride + p.kw > p.w + 2 * p.pad;
    if (p.pad > 0 || past_edge) {
        // Max pooling pads with the lowest float so that padding never wins.
        Expr fill = is_max ? Float(32).min() : Expr(0.0f);
        in = BoundaryConditions::constant_exterior(input, fill, image_bounds(p.nhwc, p.blocked, p.h, p.w));
    }
    Var x("x"), y("y"), c("c"), n("n"), cb("cb");
    RDom r(0, int(p.kw), 0, int(p.kh), "r");
    Expr ix = x * int(p.stride) + r.x - int(p.pad);
    Expr iy = y * int(p.stride) + r.y - int(p.pad);
    // Blocked: c is the position within a block of channels, cb the block.
    Expr v = p.blocked ? in(c, ix, iy, cb, n) : p.nhwc ? in(c, ix, iy, n) : in(ix, iy, c, n);
    std::vector<Var> args = p.blocked ? std::vector<Var>{c, x, y, cb, n}
                            : p.nhwc  ? std::vector<Var>{c, x, y, n}
                                      : std::vector<Var>{x, y, c, n};

    Func window(is_max ? "window_max" : "window_sum");
    window(args) = is_max ? Float(32).min() : Expr(0.0f);
    window(args) = is_max ? max(window(args), v) : window(args) + v;
    if (is_max) {
        // A pure output over the window reduction (as avg_pool2d has): a schedule
        // can compute the reduction per output row, where the output's own
        // initialisation pass would make a round trip to memory (Tessera, side by
        // side: NCHW 112x112 0.45 -> 0.37 ms, NHWC 8x64x112x112 2.25 -> 1.78 ms).
        Func out("max_pool2d");
        out(args) = window(args);
        return out;
    }

    Expr count;
    if (p.count_include_pad && past_edge) {
        // The full window but for what lies past the padded input's end.
        Expr x0 = x * int(p.stride) - int(p.pad), y0 = y * int(p.stride) - int(p.pad);
        Expr cw = min(x0 + int(p.kw), int(p.w + p.pad)) - x0;
        Expr ch = min(y0 + int(p.kh), int(p.h + p.pad)) - y0;
        count = cast<float>(cw * ch);
    } else if (p.count_include_pad) {
        count = Expr(float(p.kh * p.kw));
    } else {
        // Number of window positions inside the image.
        Expr x0 = x * int(p.stride) - int(p.pad), y0 = y * int(p.stride) - int(p.pad);
        Expr cw = min(x0 + int(p.kw), int(p.w)) - max(x0, 0);
        Expr ch = min(y0 + int(p.kh), int(p.h)) - max(y0, 0);
        count = cast<float>(cw * ch);
    }
    Func avg("avg_pool2d");
    avg(args) = window(args) / count;
    return avg;
}

}  // namespace tessera::ops
