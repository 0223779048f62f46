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

// The taps of a window combined pairwise into one expression: a balanced tree of
// max or + that the output computes inline, each point's taps read straight from
// the (padded) input.
Expr combined_taps(std::vector<Expr> taps, bool is_max) {
    while (taps.size() > 1) {
        std::vector<Expr> next;
        for (size_t i = 0; i + 1 < taps.size(); i += 2)
            next.push_back(is_max ? max(taps[i], taps[i + 1]) : taps[i] + taps[i + 1]);
        if (taps.size() % 2) next.push_back(taps.back());
        taps = std::move(next);
    }
    return taps[0];
}

// Strided NCHW windows of this many points or fewer are one expression per output
// point (their taps unrolled), the rest a reduction over an RDom. Inline, a window
// leaves no buffer to initialise and read back: NCHW max_pool2d 64x112x112 3x3
// stride 2 ran 0.153-0.156 ms against 0.236-0.243 as a reduction in a per-channel
// stack buffer (Zen 4, hand schedules of both side by side, 2 threads; Tessera's
// schedules 0.134-0.182 against 0.169-0.247). At stride 1 (max_pool2d 480x28x28:
// 0.33 against 0.24 ms) and with the channels in the vectors (NHWC, NCHW[b]c:
// 1.6-4x) the reduction's schedule, its register tile along the output row, won.
constexpr int64_t kUnrolledWindowPoints = 49;

bool unrolled_window(const PoolParams &p) {
    return !p.nhwc && !p.blocked && p.stride >= 2 && p.kh * p.kw <= kUnrolledWindowPoints;
}

// The max or sum over the window at each output point of args, v its tap at r.
Expr window_value(const PoolParams &p, bool is_max, const std::vector<Var> &args, const Expr &v, const RDom &r) {
    if (unrolled_window(p)) {
        std::vector<Expr> taps;
        for (int j = 0; j < int(p.kh); j++)
            for (int i = 0; i < int(p.kw); i++) taps.push_back(substitute(r.y.name(), j, substitute(r.x.name(), i, v)));
        return combined_taps(std::move(taps), is_max);
    }
    // A pure output over the window reduction: a schedule can compute the
    // reduction per output row, where the output's own initialisation pass would
    // make a round trip to memory (Tessera, side by side: NCHW 112x112 0.45 ->
    // 0.37 ms, NHWC 8x64x112x112 2.25 -> 1.78 ms).
    Func window(is_max ? "window_max" : "window_sum");
    window(args) = is_max ? Float(32).min() : Expr(0.0f);
    window(args) = is_max ? max(window(args), v) : window(args) + v;
    return window(args);
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

    const Expr window = window_value(p, is_max, args, v, r);
    if (is_max) {
        Func out("max_pool2d");
        out(args) = window;
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
    avg(args) = window / count;
    return avg;
}

}  // namespace tessera::ops
