#include "windows_3d_as_2d.h"

#include "graph_builder.h"
#include "shape_inference.h"
#include "window.h"

namespace tessera::graph {

namespace {

bool is_3d_window(const Graph &g, const Node &n) {
    if (n.op_type != "Conv" && n.op_type != "MaxPool" && n.op_type != "AveragePool") return false;
    if (n.outputs.size() != 1) return false;  // MaxPool's Indices
    const TensorInfo &x = g.value(n.inputs[0]);
    if (!x.shape_known || x.shape.size() != 5 || !g.value(n.outputs[0]).shape_known) return false;
    return n.op_type != "Conv" || g.value(n.inputs[1]).shape_known;
}

std::string base_of(const Node &n) { return n.name.empty() ? n.outputs[0] : n.name; }

// A window node like `n` over two spatial axes with the given geometry.
Node window_2d(const Node &n, const std::string &input, const std::vector<int64_t> &kernel,
               const std::vector<int64_t> &pads, const std::vector<int64_t> &strides,
               const std::vector<int64_t> &dilations, const std::string &name) {
    Node w = n;
    w.name = name;
    w.inputs[0] = input;
    w.outputs = {name};
    w.attrs.erase("auto_pad");
    w.attrs["pads"] = Attribute::make_ints(pads);
    w.attrs["strides"] = Attribute::make_ints(strides);
    if (n.op_type != "AveragePool" || dilations != std::vector<int64_t>{1, 1})
        w.attrs["dilations"] = Attribute::make_ints(dilations);
    else
        w.attrs.erase("dilations");
    if (n.op_type != "Conv") w.attrs["kernel_shape"] = Attribute::make_ints(kernel);
    return w;
}

// The 2-D pool over (H, W), then the depth pool over [N, C Ho Wo, D, 1].
void rewrite_pool(Graph &g, GraphBuilder &b, const Node &n, const Window &win) {
    const Shape x = g.value(n.inputs[0]).shape, y = g.value(n.outputs[0]).shape;
    const std::string base = base_of(n);
    const std::string planes = b.reshape(n.inputs[0], {x[0], x[1] * x[2], x[3], x[4]}, base + "_planes");
    Node hw = window_2d(n, planes, {win.kernel[1], win.kernel[2]},
                        {win.pad_begin[1], win.pad_begin[2], win.pad_end[1], win.pad_end[2]},
                        {win.strides[1], win.strides[2]}, {win.dilations[1], win.dilations[2]},
                        g.unique_name(base + "_hw"));
    const std::string pooled = hw.name;
    b.add(std::move(hw));
    const int64_t pixels = y[3] * y[4];
    const std::string depth_rows = b.reshape(pooled, {x[0], x[1], x[2], pixels}, base + "_depth_rows");
    const std::string depth_last = b.transpose(depth_rows, {0, 1, 3, 2}, base + "_depth_last");
    const std::string columns = b.reshape(depth_last, {x[0], x[1] * pixels, x[2], 1}, base + "_depth_columns");
    Node d = window_2d(n, columns, {win.kernel[0], 1}, {win.pad_begin[0], 0, win.pad_end[0], 0},
                       {win.strides[0], 1}, {win.dilations[0], 1}, g.unique_name(base + "_depth"));
    const std::string depth_pooled = d.name;
    b.add(std::move(d));
    const std::string back = b.reshape(depth_pooled, {x[0], x[1], y[3], y[4], y[2]}, base + "_pooled");
    b.transpose(back, {0, 1, 4, 2, 3}, base + "_out", n.outputs[0]);
}

// Tap kd of the weights [M, C/g, KD, KH, KW] as [M, C/g, KH, KW]: a constant, or a
// Slice and Reshape of weights computed at run time.
std::string tap_weights(Graph &g, GraphBuilder &b, const std::string &weights, int64_t kd, const std::string &base) {
    const TensorInfo &info = g.value(weights);
    const Shape w = info.shape;
    const Shape tap = {w[0], w[1], w[3], w[4]};
    if (info.is_constant() && info.dtype == DType::f32) {
        const int64_t outer = w[0] * w[1], taps = w[3] * w[4];
        std::vector<float> values(size_t(outer * taps));
        for (int64_t o = 0; o < outer; o++)
            for (int64_t t = 0; t < taps; t++) values[size_t(o * taps + t)] = info.data->f[size_t((o * w[2] + kd) * taps + t)];
        const std::string name = g.unique_name(base);
        g.set_constant(name, TensorData::floats(tap, values));
        return name;
    }
    const std::string sliced = b.slice(weights, {0, 0, kd, 0, 0}, {w[0], w[1], 1, w[3], w[4]}, base + "_slice");
    return b.reshape(sliced, tap, base);
}

void rewrite_conv(Graph &g, GraphBuilder &b, const Node &n, const Window &win) {
    const Shape x = g.value(n.inputs[0]).shape, y = g.value(n.outputs[0]).shape;
    const std::string base = base_of(n);
    const int64_t depth_out = y[2], sd = win.strides[0];
    // [N, D, C, H, W], its depth padded to every plane a tap reads: pads, and up to
    // sd - 1 planes past the last so each tap's planes are one reshape away.
    std::string planes = b.transpose(n.inputs[0], {0, 2, 1, 3, 4}, base + "_depth_first");
    const int64_t padded = x[2] + win.pad_begin[0] + win.pad_end[0];
    const int64_t needed = (win.kernel[0] - 1) * win.dilations[0] + depth_out * sd;
    const int64_t after = win.pad_end[0] + std::max<int64_t>(0, needed - padded);
    if (win.pad_begin[0] > 0 || after > 0)
        planes = b.pad(planes, {0, win.pad_begin[0], 0, 0, 0, 0, after, 0, 0, 0}, 0.0f, base + "_depth_pad");
    const int64_t plane = x[1] * x[3] * x[4];
    std::vector<std::string> taps;
    for (int64_t kd = 0; kd < win.kernel[0]; kd++) {
        const std::string tag = base + "_tap" + std::to_string(kd);
        std::string read = b.slice(planes, {0, kd * win.dilations[0], 0, 0, 0},
                                   {x[0], depth_out * sd, x[1], x[3], x[4]}, tag + "_planes");
        if (sd > 1) {
            read = b.reshape(read, {x[0], depth_out, sd, plane}, tag + "_strided");
            read = b.slice(read, {0, 0, 0, 0}, {x[0], depth_out, 1, plane}, tag + "_every_" + std::to_string(sd));
        }
        read = b.reshape(read, {x[0] * depth_out, x[1], x[3], x[4]}, tag + "_batched");
        Node conv = window_2d(n, read, {}, {win.pad_begin[1], win.pad_begin[2], win.pad_end[1], win.pad_end[2]},
                              {win.strides[1], win.strides[2]}, {win.dilations[1], win.dilations[2]},
                              g.unique_name(tag));
        conv.inputs[1] = tap_weights(g, b, n.inputs[1], kd, tag + "_weights");
        if (kd > 0 && conv.inputs.size() > 2) conv.inputs.resize(2);  // the bias once
        conv.attrs.erase("kernel_shape");
        taps.push_back(conv.name);
        b.add(std::move(conv));
    }
    const std::string sum = taps.size() == 1 ? taps[0] : b.op("Sum", taps, base + "_taps");
    const std::string back = b.reshape(sum, {x[0], depth_out, y[1], y[3], y[4]}, base + "_volume");
    b.transpose(back, {0, 2, 1, 3, 4}, base + "_out", n.outputs[0]);
}

} // namespace

int windows_3d_as_2d(Graph &g) {
    GraphBuilder b(g);
    return b.rewrite_nodes([&](const Node &n) {
        if (!is_3d_window(g, n)) return false;
        const Shape x = g.value(n.inputs[0]).shape;
        std::vector<int64_t> kernel;
        if (n.op_type == "Conv") {
            const Shape w = g.value(n.inputs[1]).shape;
            kernel.assign(w.begin() + 2, w.end());
        } else {
            kernel = n.get_ints("kernel_shape", {});
        }
        const Window win = resolve_window(InferContext(n, g.opset, input_infos(g, n)), {x[2], x[3], x[4]}, kernel,
                                          n.get_int("ceil_mode", 0) != 0);
        if (n.op_type == "Conv")
            rewrite_conv(g, b, n, win);
        else
            rewrite_pool(g, b, n, win);
        return true;
    });
}

} // namespace tessera::graph
