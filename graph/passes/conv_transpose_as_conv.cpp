#include "conv_transpose_as_conv.h"

#include "graph_builder.h"
#include "shape_inference.h"
#include "window.h"


namespace tessera::graph {

namespace {

// One or two spatial axes, or three without strides (no zeros to insert, which would
// take an 8-D view).
bool rewritable(const Graph &g, const Node &n) {
    if (n.op_type != "ConvTranspose" || n.outputs.size() != 1) return false;
    const TensorInfo &x = g.value(n.inputs[0]), &w = g.value(n.inputs[1]);
    if (!x.shape_known || !w.shape_known || w.dtype != DType::f32) return false;
    if (x.shape.size() == 5) {
        for (int64_t s : n.get_ints("strides", {})) {
            if (s != 1) return false;
        }
    }
    return x.shape.size() >= 3 && x.shape.size() <= 5;
}

// W [C, M/g, k...] -> W' [M, C/g, k...]: W'[g Mg + m, c, t] = W[g Cg + c, m, k - 1 - t].
TensorData conv_weights(const TensorData &w, int64_t group) {
    const int64_t channels = w.shape[0], mg = w.shape[1], cg = channels / group;
    const Shape kernel(w.shape.begin() + 2, w.shape.end());
    const int64_t taps = num_elements(kernel);
    Shape shape = {mg * group, cg};
    shape.insert(shape.end(), kernel.begin(), kernel.end());
    std::vector<float> out(size_t(num_elements(shape)));
    for (int64_t g = 0; g < group; g++)
        for (int64_t m = 0; m < mg; m++)
            for (int64_t c = 0; c < cg; c++)
                for (int64_t t = 0; t < taps; t++) {
                    // The flipped tap: every spatial index k - 1 - i is the flat index taps - 1 - t.
                    const size_t from = size_t(((g * cg + c) * mg + m) * taps + (taps - 1 - t));
                    out[size_t(((g * mg + m) * cg + c) * taps + t)] = w.f[from];
                }
    return TensorData::floats(shape, out);
}

// conv_weights as nodes, for weights computed at run time: [g, C/g, M/g, taps] swapped
// to [g, M/g, C/g, taps], the taps reversed (a Gather of constant indices), reshaped.
std::string conv_weights_at_run_time(Graph &g, GraphBuilder &b, const std::string &weights, int64_t group,
                                     const std::string &base) {
    const Shape w = g.value(weights).shape;
    const int64_t cg = w[0] / group, mg = w[1];
    const Shape kernel(w.begin() + 2, w.end());
    const int64_t taps = num_elements(kernel);
    const std::string grouped = b.reshape(weights, {group, cg, mg, taps}, base + "_grouped");
    const std::string swapped = b.transpose(grouped, {0, 2, 1, 3}, base + "_swapped");
    std::vector<int64_t> reversed;
    for (int64_t t = taps - 1; t >= 0; t--) reversed.push_back(t);
    const std::string indices = g.unique_name(base + "_reversed");
    g.set_constant(indices, TensorData::ints({taps}, reversed));
    const std::string flipped = b.op("Gather", {swapped, indices}, base + "_flipped", "", {{"axis", Attribute::make_int(3)}});
    Shape shape = {mg * group, cg};
    shape.insert(shape.end(), kernel.begin(), kernel.end());
    return b.reshape(flipped, shape, base);
}

void rewrite(Graph &g, GraphBuilder &b, const Node &n) {
    const Shape x = g.value(n.inputs[0]).shape;
    const Shape w = g.value(n.inputs[1]).shape;
    const size_t spatial = x.size() - 2;
    const std::vector<int64_t> kernel(w.begin() + 2, w.end());
    const TransposedWindow win =
        resolve_transposed_window(InferContext(n, g.opset, input_infos(g, n)), Shape(x.begin() + 2, x.end()), kernel);
    const int64_t group = n.get_int("group", 1);
    const std::string base = n.name.empty() ? n.outputs[0] : n.name;

    // Zeros between the elements: [N, C, S1, 1, S2, 1] padded to [.., s1, .., s2], merged,
    // and the trailing s - 1 zeros sliced off.
    std::string input = n.inputs[0];
    Shape dilated(x.begin(), x.begin() + 2);
    bool strided = false;
    for (size_t i = 0; i < spatial; i++) {
        dilated.push_back((x[2 + i] - 1) * win.strides[i] + 1);
        strided |= win.strides[i] > 1;
    }
    if (strided) {
        Shape split = {x[0], x[1]}, merged = {x[0], x[1]};
        std::vector<int64_t> before(2 + 2 * spatial, 0), after(2 + 2 * spatial, 0);
        for (size_t i = 0; i < spatial; i++) {
            split.push_back(x[2 + i]);
            split.push_back(1);
            after[3 + 2 * i] = win.strides[i] - 1;
            merged.push_back(x[2 + i] * win.strides[i]);
        }
        std::vector<int64_t> pads = before;
        pads.insert(pads.end(), after.begin(), after.end());
        input = b.reshape(input, split, base + "_split");
        input = b.pad(input, pads, 0.0f, base + "_zeros");
        input = b.reshape(input, merged, base + "_dilated");
        input = b.slice(input, std::vector<int64_t>(x.size(), 0), dilated, base + "_trimmed");
    }
    // The Conv's pads: (k - 1) d - pad, output_padding at the end; negative ones cropped first.
    std::vector<int64_t> begin(spatial), end(spatial), crop_start(x.size(), 0);
    Shape cropped = dilated;
    bool crop = false;
    for (size_t i = 0; i < spatial; i++) {
        const int64_t reach = (kernel[i] - 1) * win.dilations[i];
        begin[i] = reach - win.pad_begin[i];
        end[i] = reach - win.pad_end[i] + win.output_padding[i];
        if (begin[i] < 0) crop_start[2 + i] = -begin[i], cropped[2 + i] += begin[i], begin[i] = 0, crop = true;
        if (end[i] < 0) cropped[2 + i] += end[i], end[i] = 0, crop = true;
    }
    if (crop) input = b.slice(input, crop_start, cropped, base + "_cropped");

    Node conv;
    conv.op_type = "Conv";
    conv.name = g.unique_name(base + "_as_conv");
    std::string weights;
    if (g.value(n.inputs[1]).is_constant()) {
        weights = g.unique_name(base + "_conv_weights");
        g.set_constant(weights, conv_weights(*g.value(n.inputs[1]).data, group));
    } else {
        weights = conv_weights_at_run_time(g, b, n.inputs[1], group, base + "_conv_weights");
    }
    conv.inputs = {input, weights};
    if (n.has_input(2)) conv.inputs.push_back(n.inputs[2]);
    conv.outputs = n.outputs;
    std::vector<int64_t> pads = begin;
    pads.insert(pads.end(), end.begin(), end.end());
    conv.attrs["kernel_shape"] = Attribute::make_ints(kernel);
    conv.attrs["pads"] = Attribute::make_ints(pads);
    conv.attrs["strides"] = Attribute::make_ints(std::vector<int64_t>(spatial, 1));
    conv.attrs["dilations"] = Attribute::make_ints(win.dilations);
    conv.attrs["group"] = Attribute::make_int(group);
    b.add(std::move(conv));
}

} // namespace

int conv_transpose_as_conv(Graph &g) {
    GraphBuilder b(g);
    return b.rewrite_nodes([&](const Node &n) {
        if (!rewritable(g, n)) return false;
        rewrite(g, b, n);
        return true;
    });
}

} // namespace tessera::graph
