#include "uniform_windows.h"

#include "graph_builder.h"
#include "shape_inference.h"
#include "window.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace tessera::graph {

namespace {

bool is_window(const Graph &g, const Node &n, size_t rank) {
    if (n.op_type != "Conv" && n.op_type != "MaxPool" && n.op_type != "AveragePool") return false;
    if (n.outputs.size() != 1) return false;  // MaxPool's Indices
    const TensorInfo &x = g.value(n.inputs[0]);
    return x.shape_known && x.shape.size() == rank && g.value(n.outputs[0]).shape_known &&
           (n.op_type != "Conv" || g.value(n.inputs[1]).shape_known);
}

std::vector<int64_t> window_kernel(const Graph &g, const Node &n) {
    if (n.op_type != "Conv") return n.get_ints("kernel_shape", {});
    const Shape &w = g.value(n.inputs[1]).shape;
    return std::vector<int64_t>(w.begin() + 2, w.end());
}

// Per output point of an average over `win` on `spatial`: window size / the window's
// points inside the input, as [1, 1, H', W'] (what turns an average that counted the
// padding into one that did not).
TensorData excluded_padding_scale(const Window &win, const Shape &spatial) {
    std::vector<std::vector<int64_t>> inside(2);  // per axis and output position
    for (size_t a = 0; a < 2; a++) {
        for (int64_t o = 0; o < win.out[a]; o++) {
            int64_t count = 0;
            for (int64_t k = 0; k < win.kernel[a]; k++) {
                const int64_t i = o * win.strides[a] - win.pad_begin[a] + k * win.dilations[a];
                count += i >= 0 && i < spatial[a];
            }
            inside[a].push_back(count);
        }
    }
    std::vector<float> scale;
    const double size = double(win.kernel[0] * win.kernel[1]);
    for (int64_t h : inside[0])
        for (int64_t w : inside[1]) scale.push_back(float(size / double(std::max<int64_t>(1, h * w))));
    return TensorData::floats({1, 1, win.out[0], win.out[1]}, scale);
}

// What must follow a window made uniform: every[a]-th output along each axis kept
// (strides that differ, computed at their gcd), then a Mul by `scale` (an average
// that excluded padding, computed counting it).
struct AfterWindow {
    std::vector<int64_t> every;
    std::string scale;
};

// A 2-D window made uniform in place: unit axes take the other's stride and dilation,
// a convolution's dilations that still differ become their gcd (its kernel inflated
// with zero taps), strides that still differ become their gcd (`after->every` keeps
// the outputs the original computes), uneven pads go to a Pad node before it.
// Returns whether a Pad was added.
bool make_uniform(Graph &g, GraphBuilder &b, Node &n, AfterWindow *after) {
    const Shape x = g.value(n.inputs[0]).shape;
    const std::vector<int64_t> kernel = window_kernel(g, n);
    const bool ceil_mode = n.get_int("ceil_mode", 0) != 0;
    const Window win = resolve_window(InferContext(n, g.opset, input_infos(g, n)), {x[2], x[3]}, kernel, ceil_mode);
    std::vector<int64_t> strides = win.strides, dilations = win.dilations;
    std::vector<int64_t> pads = {win.pad_begin[0], win.pad_begin[1], win.pad_end[0], win.pad_end[1]};
    for (size_t i = 0; i < 2; i++) {
        if (x[2 + i] == 1 && kernel[i] == 1 && win.pad_begin[i] == 0 && win.pad_end[i] == 0) {
            strides[i] = strides[1 - i];
            dilations[i] = dilations[1 - i];
        }
    }
    if (n.op_type == "Conv" && dilations[0] != dilations[1] && g.is_constant(n.inputs[1])) {
        // Dilations that still differ: the kernel inflated with zero taps to their gcd
        // along each axis (3x3 dilated (1, 2) is 3x5 with zero columns, dilation 1):
        // the library's conv2d takes one dilation. The extra taps are zeros it adds.
        const int64_t common = std::gcd(dilations[0], dilations[1]);
        const int64_t step_h = dilations[0] / common, step_w = dilations[1] / common;
        const TensorData &w = *g.value(n.inputs[1]).data;
        const Shape ws = w.shape;
        const int64_t kh = (ws[2] - 1) * step_h + 1, kw = (ws[3] - 1) * step_w + 1;
        TensorData inflated(DType::f32, {ws[0], ws[1], kh, kw});
        for (int64_t oc = 0; oc < ws[0] * ws[1]; oc++) {
            for (int64_t i = 0; i < ws[2]; i++) {
                for (int64_t j = 0; j < ws[3]; j++) {
                    inflated.f[size_t((oc * kh + i * step_h) * kw + j * step_w)] = w.f[size_t((oc * ws[2] + i) * ws[3] + j)];
                }
            }
        }
        const std::string name = g.unique_name((n.name.empty() ? n.outputs[0] : n.name) + "_inflated_weights");
        g.set_constant(name, inflated);
        n.inputs[1] = name;
        if (n.has_attr("kernel_shape")) n.attrs["kernel_shape"] = Attribute::make_ints({kh, kw});
        dilations = {common, common};
    }
    if (strides[0] != strides[1] && !ceil_mode) {
        const int64_t common = std::gcd(strides[0], strides[1]);
        after->every = {strides[0] / common, strides[1] / common};
        strides = {common, common};
    }
    const bool even = std::all_of(pads.begin(), pads.end(), [&](int64_t p) { return p == pads[0]; });
    const bool excludes_padding = n.op_type == "AveragePool" && n.get_int("count_include_pad", 0) == 0;
    const bool pad_first = !even && !ceil_mode;
    if (!pad_first && strides == win.strides && dilations == win.dilations) return false;  // as uniform as it gets
    bool padded = false;
    if (pad_first) {
        const float fill = n.op_type == "MaxPool" ? -std::numeric_limits<float>::infinity() : 0.0f;
        const std::string base = n.name.empty() ? n.outputs[0] : n.name;
        n.inputs[0] = b.pad(n.inputs[0], {0, 0, pads[0], pads[1], 0, 0, pads[2], pads[3]}, fill, base + "_pad");
        pads = {0, 0, 0, 0};
        padded = true;
        if (excludes_padding) {
            after->scale = g.unique_name(base + "_divisor_scale");
            g.set_constant(after->scale, excluded_padding_scale(win, {x[2], x[3]}));
            n.attrs["count_include_pad"] = Attribute::make_int(1);
        }
    }
    n.attrs.erase("auto_pad");
    n.attrs["pads"] = Attribute::make_ints(pads);
    n.attrs["strides"] = Attribute::make_ints(strides);
    if (n.op_type != "AveragePool" || dilations != std::vector<int64_t>{1, 1})  // AveragePool's from opset 19
        n.attrs["dilations"] = Attribute::make_ints(dilations);
    else
        n.attrs.erase("dilations");
    return padded;
}

// Adds the uniform window `w` and what must follow it, the last step writing `output`.
void add_window(Graph &g, GraphBuilder &b, Node w, const AfterWindow &after, const std::string &output) {
    if (after.every.empty() && after.scale.empty()) {
        w.outputs = {output};
        b.add(std::move(w));
        return;
    }
    const std::string base = w.name.empty() ? output : w.name;
    w.outputs = {g.unique_name(base + "_computed")};
    std::string value = w.outputs[0];
    b.add(std::move(w));
    if (!after.every.empty()) {
        // [N, C, H', W'] padded to whole steps, viewed as [N, C, H'', a, W'', b], the
        // first of each step kept.
        const Shape y = g.value(value).shape;
        const int64_t a = after.every[0], c = after.every[1], rows = (y[2] + a - 1) / a, cols = (y[3] + c - 1) / c;
        value = b.pad(value, {0, 0, 0, 0, 0, 0, rows * a - y[2], cols * c - y[3]}, 0.0f, base + "_whole_steps");
        value = b.reshape(value, {y[0], y[1], rows, a, cols, c}, base + "_steps");
        value = b.slice(value, {0, 0, 0, 0, 0, 0}, {y[0], y[1], rows, 1, cols, 1}, base + "_every");
        value = b.reshape(value, {y[0], y[1], rows, cols}, base + "_strided", after.scale.empty() ? output : "");
    }
    if (!after.scale.empty()) b.op("Mul", {value, after.scale}, base + "_rescaled", output);
}

// [N, C, L] -> [N, C, L, 1] with a k x 1 window (its pads and strides made uniform
// by make_uniform), then back to [N, C, L'].
bool lift_1d(Graph &g, GraphBuilder &b, const Node &n, bool *rescaled) {
    const Shape x = g.value(n.inputs[0]).shape, y = g.value(n.outputs[0]).shape;
    const std::vector<int64_t> kernel = window_kernel(g, n);
    const Window win = resolve_window(InferContext(n, g.opset, input_infos(g, n)), {x[2]}, kernel,
                                      n.get_int("ceil_mode", 0) != 0);
    const std::string base = n.name.empty() ? n.outputs[0] : n.name;
    Node lifted = n;
    lifted.name = g.unique_name(base + "_2d");
    lifted.inputs[0] = b.reshape(n.inputs[0], {x[0], x[1], x[2], 1}, base + "_2d_input");
    if (n.op_type == "Conv") {
        const Shape w = g.value(n.inputs[1]).shape;
        lifted.inputs[1] = b.reshape(n.inputs[1], {w[0], w[1], w[2], 1}, base + "_2d_weights");
    }
    lifted.outputs = {lifted.name};
    lifted.attrs.erase("auto_pad");
    lifted.attrs["pads"] = Attribute::make_ints({win.pad_begin[0], 0, win.pad_end[0], 0});
    lifted.attrs["strides"] = Attribute::make_ints({win.strides[0], 1});
    lifted.attrs["dilations"] = Attribute::make_ints({win.dilations[0], 1});
    if (lifted.has_attr("kernel_shape")) lifted.attrs["kernel_shape"] = Attribute::make_ints({kernel[0], 1});
    AfterWindow after;
    const bool padded = make_uniform(g, b, lifted, &after);
    const std::string out = g.unique_name(base + "_2d_output");
    add_window(g, b, lifted, after, out);
    b.reshape(out, y, base + "_1d_output", n.outputs[0]);
    *rescaled = !after.scale.empty();
    return padded;
}

} // namespace

UniformWindowCounts uniform_windows(Graph &g) {
    UniformWindowCounts counts;
    GraphBuilder b(g);
    b.rewrite_nodes([&](const Node &n) {
        if (is_window(g, n, 3)) {
            bool rescaled = false;
            counts.padded += lift_1d(g, b, n, &rescaled);
            counts.rescaled += rescaled;
            counts.lifted_1d++;
            return true;
        }
        if (!is_window(g, n, 4)) return false;
        Node uniform = n;  // made uniform in place
        AfterWindow after;
        counts.padded += make_uniform(g, b, uniform, &after);
        counts.rescaled += !after.scale.empty();
        counts.strided += !after.every.empty();
        add_window(g, b, uniform, after, n.outputs[0]);
        return true;
    });
    return counts;
}

} // namespace tessera::graph
