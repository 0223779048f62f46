#include "window.h"

namespace tessera::graph {

void check_auto_pad(const InferContext &ctx) {
    ctx.require_one_of("auto_pad", ctx.node.get_string("auto_pad", "NOTSET"),
                       {"NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"});
}

namespace {

std::vector<int64_t> per_axis(const InferContext &ctx, const char *key, size_t n, int64_t fallback) {
    std::vector<int64_t> v = ctx.node.get_ints(key, std::vector<int64_t>(n, fallback));
    if (v.size() != n)
        ctx.fail(std::string(key) + " has " + std::to_string(v.size()) + " values for " + std::to_string(n) +
                 " spatial axes");
    for (int64_t x : v)
        if (x < (fallback == 0 ? 0 : 1)) ctx.fail(std::string(key) + " value " + std::to_string(x) + " is invalid");
    return v;
}

int64_t ceil_div(int64_t a, int64_t b) {
    return (a + b - 1) / b;
}

// The attributes both windows share: kernel, strides, dilations; pads and output
// sizes zeroed for the caller to resolve.
void shared_geometry(const InferContext &ctx, size_t n, const std::vector<int64_t> &kernel, Window &w) {
    w.kernel = kernel;
    if (kernel.size() != n)
        ctx.fail("kernel has " + std::to_string(kernel.size()) + " axes but the input has " + std::to_string(n) +
                 " spatial axes");
    w.strides = per_axis(ctx, "strides", n, 1);
    w.dilations = per_axis(ctx, "dilations", n, 1);
    w.pad_begin.assign(n, 0);
    w.pad_end.assign(n, 0);
    w.out.assign(n, 0);
}

}  // namespace

Window resolve_window(const InferContext &ctx, const Shape &spatial, const std::vector<int64_t> &kernel,
                      bool ceil_mode) {
    size_t n = spatial.size();
    Window w;
    shared_geometry(ctx, n, kernel, w);
    std::vector<int64_t> pads = per_axis(ctx, "pads", 2 * n, 0);
    std::string auto_pad = ctx.node.get_string("auto_pad", "NOTSET");
    for (size_t i = 0; i < n; i++) {
        int64_t extent = (kernel[i] - 1) * w.dilations[i] + 1;
        int64_t s = w.strides[i];
        if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
            // Output ceil(in / stride); the odd padding element goes last for
            // SAME_UPPER, first for SAME_LOWER.
            w.out[i] = ceil_div(spatial[i], s);
            int64_t total = std::max<int64_t>(0, (w.out[i] - 1) * s + extent - spatial[i]);
            w.pad_begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
            w.pad_end[i] = total - w.pad_begin[i];
            continue;
        }
        if (auto_pad == "NOTSET") {
            w.pad_begin[i] = pads[i];
            w.pad_end[i] = pads[n + i];
        }
        int64_t span = spatial[i] + w.pad_begin[i] + w.pad_end[i] - extent;
        if (span < 0)
            ctx.fail("the window (" + std::to_string(extent) + ") is larger than the padded input (" +
                     std::to_string(spatial[i] + w.pad_begin[i] + w.pad_end[i]) + ") on spatial axis " +
                     std::to_string(i));
        w.out[i] = (ceil_mode ? ceil_div(span, s) : span / s) + 1;
        // With ceil_mode the last window must still start inside the input or its
        // leading padding (the rule PyTorch and newer ONNX apply).
        if (ceil_mode && (w.out[i] - 1) * s >= spatial[i] + w.pad_begin[i]) w.out[i]--;
    }
    return w;
}

TransposedWindow resolve_transposed_window(const InferContext &ctx, const Shape &spatial,
                                           const std::vector<int64_t> &kernel) {
    const size_t n = spatial.size();
    TransposedWindow w;
    shared_geometry(ctx, n, kernel, w);
    w.output_padding = per_axis(ctx, "output_padding", n, 0);
    const std::vector<int64_t> pads = per_axis(ctx, "pads", 2 * n, 0);
    const std::string auto_pad = ctx.node.get_string("auto_pad", "NOTSET");
    std::vector<int64_t> target = ctx.node.get_ints("output_shape", {});
    if (target.size() == n + 2) target.erase(target.begin(), target.begin() + 2);  // N and C given too
    if (!target.empty() && target.size() != n)
        ctx.fail("output_shape has " + std::to_string(target.size()) + " values for " + std::to_string(n) +
                 " spatial axes");
    w.pad_begin.assign(n, 0);
    w.pad_end.assign(n, 0);
    w.out.assign(n, 0);
    for (size_t i = 0; i < n; i++) {
        if (w.output_padding[i] >= std::max(w.strides[i], w.dilations[i]))
            ctx.fail("output_padding " + std::to_string(w.output_padding[i]) + " must be below the stride or dilation");
        const int64_t full = w.strides[i] * (spatial[i] - 1) + w.output_padding[i] + (kernel[i] - 1) * w.dilations[i] + 1;
        if (!target.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
            const int64_t out = target.empty() ? spatial[i] * w.strides[i] : target[i];
            // Negative where the output is larger than the full one (zeros at its end);
            // halves rounded down, as ONNX's reference rounds them.
            const int64_t total = full - out;
            const int64_t half = total >= 0 ? total / 2 : -((-total + 1) / 2);
            w.pad_begin[i] = auto_pad == "SAME_UPPER" ? half : total - half;
            w.pad_end[i] = total - w.pad_begin[i];
        } else if (auto_pad == "NOTSET") {
            w.pad_begin[i] = pads[i];
            w.pad_end[i] = pads[n + i];
        }
        w.out[i] = full - w.pad_begin[i] - w.pad_end[i];
        if (w.out[i] < 1) ctx.fail("the pads leave no output on spatial axis " + std::to_string(i));
    }
    return w;
}

bool uniform_window(const Window &w) {
    for (size_t i = 0; i < w.kernel.size(); i++) {
        if (w.pad_begin[i] != w.pad_end[i] || w.pad_begin[i] != w.pad_begin[0] || w.strides[i] != w.strides[0] ||
            w.dilations[i] != w.dilations[0]) {
            return false;
        }
    }
    return true;
}

bool floor_windows(const Window &w, const Shape &spatial) {
    for (size_t i = 0; i < w.kernel.size(); i++) {
        const int64_t extent = (w.kernel[i] - 1) * w.dilations[i] + 1;
        if (w.out[i] != (spatial[i] + w.pad_begin[i] + w.pad_end[i] - extent) / w.strides[i] + 1) return false;
    }
    return true;
}

}  // namespace tessera::graph
