#include "assign_layouts.h"

#include "graph_error.h"
#include "node_cost.h"
#include "pack_weights.h"
#include "resolved_params.h"
#include "shape_inference.h"
#include "window.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

namespace tessera::graph {

namespace {

bool f32_image(const TensorInfo &info) {
    return info.dtype == DType::f32 && info.shape.size() == 4;
}

// A value broadcast to every point: a scalar constant operand of an elementwise op.
bool scalar(const TensorInfo &info) {
    return num_elements(info.shape) == 1;
}

// What converting `value` between layouts moves: a read and a write of the tensor.
double conversion_bytes(const Graph &g, const std::string &value) {
    return 8.0 * double(num_elements(g.value(value).shape));
}

// A window the op library compiles (what the Conv and pooling lowerings check).
bool library_window(const Graph &g, const Node &node, const Shape &x, const std::vector<int64_t> &kernel,
                    bool ceil_mode) {
    try {
        InferContext ic(node, g.opset, input_infos(g, node));
        const Window w = resolve_window(ic, {x[2], x[3]}, kernel, ceil_mode);
        return uniform_window(w) && floor_windows(w, {x[2], x[3]});
    } catch (const GraphError &) {
        return false;  // the lowering reports it, in whichever layout
    }
}

// How --explain names a node.
std::string label(const Node &n) {
    return n.name.empty() ? n.op_type : n.name;
}

bool unary_agnostic(const Node &n) {
    return is_pointwise_unary_op(n.op_type);
}

bool binary_agnostic(const Node &n) {
    static const std::set<std::string> ops = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"};
    return ops.count(n.op_type) != 0 && n.inputs.size() == 2;
}

bool pooling(const Node &n) {
    return n.op_type == "MaxPool" || n.op_type == "AveragePool" || n.op_type == "GlobalAveragePool";
}

// A node's image inputs: the inputs its non-NCHW form reads in its layout (a binary
// op's non-scalar operands, every Concat input). Omitted optional inputs (Resize's
// empty roi) are none.
std::vector<size_t> image_inputs(const Graph &g, const Node &n) {
    if (n.op_type == "Conv" || n.op_type == "Pad" || pooling(n) || unary_agnostic(n)) return {0};
    std::vector<size_t> images;
    for (size_t k = 0; k < n.inputs.size(); k++) {
        if (n.has_input(k) && (n.op_type == "Concat" || !scalar(g.value(n.inputs[k])))) images.push_back(k);
    }
    return images;
}

Shape shape_in(Layout l, const Shape &nchw, int64_t b) {
    if (l == Layout::nhwc) return {nchw[0], nchw[2], nchw[3], nchw[1]};
    if (l == Layout::blocked) return {nchw[0], nchw[1] / b, nchw[2], nchw[3], b};
    return nchw;
}

// Where NCHW axis `a` of an image lives in layout l (blocked: the channel axis is
// C/b, exact for a Concat whose inputs' channels b divides).
int64_t axis_in(Layout l, int64_t a) {
    static const int64_t nhwc[] = {0, 3, 1, 2};
    return l == Layout::nhwc ? nhwc[a] : a;
}

// A node's weights in its layout, its Concat axis or Pad pads, and its attribute
// (before its image inputs are renamed: it reads their NCHW shapes).
void set_node_layout(Graph &g, Node &n, Layout l, int64_t block) {
    if (n.op_type == "Conv") {
        const TensorData &oihw = *g.value(n.inputs[1]).data;
        // One input and one output channel per group.
        const bool depthwise = n.get_int("group", 1) > 1 && oihw.shape[1] == 1 && oihw.shape[0] == n.get_int("group", 1);
        TensorData w;
        const int64_t width = oihw.shape[1];
        if (l == Layout::blocked && !depthwise && n.get_int("group", 1) > 1 && width < block) {
            // Groups narrower than a block: one group per block, zeros between groups
            // (RegNetY's width 8 and ResNeXt's 4 and 8 in blocks of 16: 2-4x the
            // multiply-adds, but the blocked register tiles, against 0.4-0.7x
            // onnxruntime in NCHW).
            w = pack_conv_weights(widen_groups_to_block(oihw, width, block), block);
            n.attrs["group"] = Attribute::make_int(n.get_int("group", 1) * width / block);
            n.attrs[kPackedBlockAttr] = Attribute::make_int(block);
        } else if (l == Layout::blocked) {
            // Panels [oc/b][c][kh][kw][b]; depthwise [c/b][kh][kw][b].
            w = pack_conv_weights(oihw, block);
            if (depthwise) w.shape = {w.shape[0], w.shape[2], w.shape[3], w.shape[4]};
            n.attrs[kPackedBlockAttr] = Attribute::make_int(block);
        } else {
            // HWIO [kh][kw][c][oc]; depthwise [kh][kw][c].
            w = transposed(oihw, depthwise ? std::vector<int64_t>{2, 3, 0, 1} : std::vector<int64_t>{2, 3, 1, 0});
            if (depthwise) w.shape.pop_back();
        }
        const std::string name = g.unique_name(n.inputs[1] + (l == Layout::blocked ? "_panels" : "_hwio"));
        g.set_constant(name, std::move(w));
        n.inputs[1] = name;
    }
    if (n.op_type == "Concat") {
        const int64_t axis = n.get_int("axis", 0);
        n.attrs["axis"] = Attribute::make_int(axis_in(l, axis < 0 ? axis + 4 : axis));
    }
    if (n.op_type == "Pad") {
        // Only H and W are padded (agnostic): their pads move with the axes; the
        // blocked layout's fifth axis gets none.
        const PadSpec p = *pad_spec(InferContext(n, g.opset, input_infos(g, n)));
        const int64_t rank = l == Layout::blocked ? 5 : 4;
        std::vector<int64_t> pads(size_t(2 * rank), 0);
        for (int64_t a : {2, 3}) {
            pads[size_t(axis_in(l, a))] = p.before[size_t(a)];
            pads[size_t(rank + axis_in(l, a))] = p.after[size_t(a)];
        }
        if (n.has_input(1)) {
            const std::string name = g.unique_name(n.inputs[1] + "_" + layout_name(l, block));
            g.set_constant(name, TensorData::ints({rank * 2}, pads));
            n.inputs[1] = name;
        } else {
            n.attrs["pads"] = Attribute::make_ints(pads);
        }
    }
    if (l == Layout::blocked) n.attrs[kLayoutBlockAttr] = Attribute::make_int(block);
    if (l == Layout::nhwc) n.attrs[kLayoutNhwcAttr] = Attribute::make_int(1);
}

// A value in layout l beside NCHW value `plain` (its producer's renamed output, or a
// conversion's).
std::string add_value_in(Graph &g, const std::string &plain, Layout l, int64_t block) {
    const std::string name = g.unique_name(plain + "_" + layout_name(l, block));
    TensorInfo info = g.value(plain);
    info.name = name;
    info.data = nullptr;
    info.layout_of = info.layout_of.empty() ? plain : info.layout_of;
    info.shape = shape_in(l, info.shape, block);
    g.values[name] = info;
    return name;
}

struct Planner {
    Graph &g;
    const LayoutOptions &o;
    std::vector<Layout> layout;  // per node

    bool channels_fit(const Shape &image) const { return image[1] % o.block == 0; }

    // A convolution the library compiles in every layout: the alternatives to NCHW it
    // may take (none: not a candidate).
    std::vector<Layout> conv_alternatives(const Node &n) const {
        if (n.op_type != "Conv" || packed_block(n) != 0 || !n.has_input(1) || !g.is_constant(n.inputs[1])) return {};
        const TensorInfo &x = g.value(n.inputs[0]), &w = g.value(n.inputs[1]);
        if (!f32_image(x) || x.is_constant() || w.dtype != DType::f32 || w.shape.size() != 4) return {};
        if (n.has_input(2) && g.value(n.inputs[2]).shape.size() != 1) return {};
        const int64_t group = n.get_int("group", 1), c = x.shape[1], oc = w.shape[0];
        const bool depthwise = group > 1 && group == c && oc == c && w.shape[1] == 1;
        // Grouped: blocked with one block per group (the library's nchwc form), or
        // narrower groups dividing the block, widened to it (set_node_layout).
        const int64_t width = c / group;
        const bool fits_blocks = group > 1 && !depthwise && oc / group == width && o.block % width == 0;
        if (group != 1 && !depthwise && !fits_blocks) return {};
        if (!library_window(g, n, x.shape, {w.shape[2], w.shape[3]}, false)) return {};
        std::vector<Layout> alternatives;
        // Weights far larger than the image they make: the blocked kernel streams
        // them for few pixels. With pixels x output-channel-block register tiles a 3x3
        // on 7x7x512 (94x) ran 1.23 ms blocked against 1.05 NCHW, but ResNet-50 with
        // its last stage blocked too (no conversions there) 32.0-33.1 ms against
        // 33.2-35.2 (Intel Xeon, interleaved); with one-pixel tiles it had run 6.0 ms
        // blocked against 1.5 NCHW (Zen 4), the limit then 16x.
        const double out_elements = double(num_elements(g.value(n.outputs[0]).shape));
        const bool weights_fit = o.predict_ms || double(num_elements(w.shape)) <= o.max_weight_ratio * out_elements;
        if (o.blocked && c % o.block == 0 && oc % o.block == 0 && weights_fit) alternatives.push_back(Layout::blocked);
        if (o.nhwc && o.predict_ms) alternatives.push_back(Layout::nhwc);
        return alternatives;
    }

    // A candidate's layout: the fastest predicted, or without a predictor NCHW[b]c.
    // An input that arrives in an alternative layout charges every other form the
    // conversions it would need (out of that layout, then into the form's): a
    // region grown in one layout stays in it unless another form wins by more. An
    // NCHW input charges nothing here: entering a region is step 3's question.
    Layout choose(int i, const std::vector<Layout> &alternatives, std::vector<LayoutPrediction> &predictions) const {
        if (!o.predict_ms) return alternatives.front();
        const std::string &x = g.nodes[size_t(i)].inputs[0];
        const Layout from = produced_in(x);
        const double one = conversion_bytes(g, x) / (o.conversion_gbs * 1e6);
        auto conversions = [&](Layout l) {
            return from == Layout::nchw || l == from ? 0.0 : one * (1 + (l != Layout::nchw));
        };
        LayoutPrediction p;
        p.node = label(g.nodes[size_t(i)]);
        double best = -1;
        std::vector<Layout> forms = {Layout::nchw};
        forms.insert(forms.end(), alternatives.begin(), alternatives.end());
        for (Layout l : forms) {
            const double ms = p.ms[int(l)] =
                o.predict_ms(l == Layout::nchw ? g : with_node_in_layout(g, i, l, o.block), i);
            p.conversion_ms[int(l)] = conversions(l);
            const double total = ms + p.conversion_ms[int(l)];
            if (ms >= 0 && (best < 0 || total <= best)) best = total, p.chosen = l;  // ties: the alternative
        }
        predictions.push_back(p);
        return p.chosen;
    }

    // Whether node i can compute in layout l given its inputs (not a convolution).
    bool agnostic(int i, Layout l) const {
        const Node &n = g.nodes[size_t(i)];
        if (n.outputs.size() != 1 || g.value(n.outputs[0]).dtype != DType::f32) return false;
        const Shape &out = g.value(n.outputs[0]).shape;
        if (out.size() != 4 || (l == Layout::blocked && !channels_fit(out))) return false;
        if (pooling(n)) {
            const TensorInfo &x = g.value(n.inputs[0]);
            if (!f32_image(x) || n.op_type == "GlobalAveragePool") return f32_image(x);
            return library_window(g, n, x.shape, n.get_ints("kernel_shape", {}), n.get_int("ceil_mode", 0) != 0);
        }
        if (unary_agnostic(n)) {
            for (size_t k = 1; k < n.inputs.size(); k++) {
                if (n.has_input(k) && (!g.is_constant(n.inputs[k]) || !scalar(g.value(n.inputs[k])))) return false;
            }
            return g.value(n.inputs[0]).shape == out;
        }
        if (n.op_type == "Pad") {
            // Constant pads on H and W only (a padded channel would break the blocks).
            if (!f32_image(g.value(n.inputs[0]))) return false;
            try {
                const std::optional<PadSpec> p = pad_spec(InferContext(n, g.opset, input_infos(g, n)));
                return p && p->before[0] == 0 && p->after[0] == 0 && p->before[1] == 0 && p->after[1] == 0;
            } catch (const GraphError &) {
                return false;
            }
        }
        if (n.op_type == "Concat") {
            for (const std::string &in : n.inputs) {
                const TensorInfo &x = g.value(in);
                if (!f32_image(x) || (l == Layout::blocked && !channels_fit(x.shape))) return false;
            }
            return !n.inputs.empty();
        }
        if (!binary_agnostic(n)) return false;
        const std::vector<size_t> images = image_inputs(g, n);
        if (images.empty()) return false;
        // Operands of the output's shape, or one value per channel (a squeeze-excite's
        // scale, [N, C, 1, 1]: blocked as [N, C/b, 1, 1, b], it broadcasts the same way).
        // Kept out, every RegNetY, EfficientNet and MobileNetV3 block converted its
        // activations out of the layout and back for the multiply.
        bool whole = false;
        for (size_t k : images) {
            const TensorInfo &v = g.value(n.inputs[k]);
            const bool per_channel = v.shape.size() == 4 && v.shape[1] == out[1] && v.shape[2] == 1 &&
                                     v.shape[3] == 1 && (v.shape[0] == out[0] || v.shape[0] == 1);
            if ((v.shape != out && !per_channel) || v.dtype != DType::f32) return false;
            whole |= v.shape == out;
        }
        return whole;
    }

    // The layout `value` is produced in (NCHW for a graph input or constant).
    Layout produced_in(const std::string &value) const {
        const int p = g.producer(value);
        return p >= 0 ? layout[size_t(p)] : Layout::nchw;
    }

    // Step 1 and 2: candidates, then forward propagation in topological order.
    void propagate(std::vector<LayoutPrediction> &predictions) {
        layout.assign(g.nodes.size(), Layout::nchw);
        for (size_t i = 0; i < g.nodes.size(); i++) {
            const Node &n = g.nodes[i];
            if (n.op_type == "Conv") {
                const std::vector<Layout> alternatives = conv_alternatives(n);
                if (!alternatives.empty()) layout[i] = choose(int(i), alternatives, predictions);
                continue;
            }
            for (size_t k : image_inputs(g, n)) {
                const Layout l = produced_in(n.inputs[k]);
                if (l != Layout::nchw && agnostic(int(i), l)) {
                    layout[i] = l;
                    break;
                }
            }
        }
    }

    // Connected regions of one layout (through values one node writes and another of
    // the same layout reads).
    std::vector<std::vector<int>> regions() const {
        std::vector<int> root(g.nodes.size());
        std::iota(root.begin(), root.end(), 0);
        auto find = [&](int x) {
            while (root[size_t(x)] != x)
                x = root[size_t(x)] = root[size_t(root[size_t(x)])];
            return x;
        };
        for (size_t i = 0; i < g.nodes.size(); i++) {
            if (layout[i] == Layout::nchw) continue;
            for (const std::string &in : g.nodes[i].inputs) {
                if (!in.empty() && produced_in(in) == layout[i]) root[size_t(find(int(i)))] = find(g.producer(in));
            }
        }
        std::map<int, std::vector<int>> by_root;
        for (size_t i = 0; i < g.nodes.size(); i++) {
            if (layout[i] != Layout::nchw) by_root[find(int(i))].push_back(int(i));
        }
        std::vector<std::vector<int>> out;
        for (auto &[r, nodes] : by_root)
            out.push_back(nodes);
        std::sort(out.begin(), out.end());
        return out;
    }

    // A value read in NCHW: by the caller, or by a node in another layout (which reads
    // it through NCHW).
    bool read_plain(const std::string &value) const {
        if (g.is_output(value)) return true;
        const Layout l = produced_in(value);
        for (int c : g.consumers(value)) {
            if (layout[size_t(c)] != l) return true;
        }
        return false;
    }

    // Step 3: a region's traffic and conversions, and the decision.
    LayoutRegion cost(const std::vector<int> &nodes) const {
        LayoutRegion r;
        r.layout = layout[size_t(nodes.front())];
        std::set<std::string> converted_in;
        for (int i : nodes) {
            const Node &n = g.nodes[size_t(i)];
            r.nodes.push_back(label(n));
            const NodeCost c = node_cost(g, n);
            r.bytes += c.bytes;
            if (n.op_type == "Conv") {
                r.convolutions++;
                const int64_t groups = n.get_int("group", 1);
                // Grouped convolutions are candidates only when depthwise or with one
                // block per group (conv_alternatives): per-block windows, which gain
                // most from the blocked layout.
                if (groups > 1) r.depthwise++;
                const Shape &w = g.value(n.inputs[1]).shape;
                r.conv_macs += c.flops / 2;
                if (groups == 1 && w.size() == 4 && w[2] * w[3] == 1) r.pointwise_macs += c.flops / 2;
            }
            for (size_t k : image_inputs(g, n)) {
                if (produced_in(n.inputs[k]) != r.layout) converted_in.insert(n.inputs[k]);
            }
            if (read_plain(n.outputs[0])) r.converted_out.push_back(n.outputs[0]);
        }
        r.converted_in.assign(converted_in.begin(), converted_in.end());
        for (const auto *values : {&r.converted_in, &r.converted_out}) {
            for (const std::string &v : *values) r.conversion_bytes += conversion_bytes(g, v);
        }
        char why[160];
        if (r.convolutions == 0) {
            r.reason = "no convolution to gain from the layout";
        } else if (o.only_where_blocking_gains && r.depthwise == 0 &&
                   r.pointwise_macs < o.min_pointwise_share * r.conv_macs) {
            std::snprintf(why, sizeof why,
                          "no depthwise convolution and %.0f%% of its convolutions' work in 1x1s (below %.0f%%): "
                          "its dense windows run faster in NCHW",
                          100.0 * r.pointwise_macs / std::max(r.conv_macs, 1.0), 100.0 * o.min_pointwise_share);
            r.reason = why;
        } else if (r.conversion_bytes > o.max_conversion_share * r.bytes) {
            std::snprintf(why, sizeof why, "conversions would move %.0f%% of the region's traffic (limit %.0f%%)",
                          100.0 * r.conversion_bytes / r.bytes, 100.0 * o.max_conversion_share);
            r.reason = why;
        } else {
            r.kept = true;
            std::snprintf(why, sizeof why, "conversions move %.1f%% of the region's traffic",
                          100.0 * r.conversion_bytes / std::max(r.bytes, 1.0));
            r.reason = why;
        }
        return r;
    }

    // NCHW value `from` into layout l (to_plain: back), as value `to`.
    Node conversion(Layout l, bool to_plain, const std::string &from, const std::string &to) const {
        Node n;
        n.name = to;
        n.inputs = {from};
        n.outputs = {to};
        if (l == Layout::nhwc) {
            n.op_type = "Transpose";
            n.attrs["perm"] = Attribute::make_ints(to_plain ? std::vector<int64_t>{0, 3, 1, 2}
                                                            : std::vector<int64_t>{0, 2, 3, 1});
        } else {
            n.op_type = to_plain ? kFromBlockedOp : kToBlockedOp;
            n.attrs[kBlockAttr] = Attribute::make_int(o.block);
        }
        return n;
    }

    // Step 4: values in their layouts, weights transformed, conversions where layouts meet.
    int rewrite() {
        std::map<std::pair<std::string, Layout>, std::string> name_in;  // (NCHW value, layout) -> value
        std::vector<std::vector<Node>> after(g.nodes.size() + 1);       // [0]: before every node
        // Producers and NCHW readers as the graph stands, before values are renamed.
        std::map<std::string, int> producer;
        std::vector<bool> output_read_plain(g.nodes.size(), false);
        for (size_t i = 0; i < g.nodes.size(); i++) {
            for (const std::string &v : g.nodes[i].outputs) producer[v] = int(i);
            if (layout[i] != Layout::nchw) output_read_plain[i] = read_plain(g.nodes[i].outputs[0]);
        }
        int conversions = 0;
        std::vector<std::string> unread;  // NCHW values no node reads: dropped at the end
        for (size_t i = 0; i < g.nodes.size(); i++) {
            const Layout l = layout[i];
            if (l == Layout::nchw) continue;
            Node &n = g.nodes[i];
            set_node_layout(g, n, l, o.block);  // reads the NCHW inputs' shapes
            for (size_t k : image_inputs(g, n)) {
                // Topological order: a producer in the same layout named its value already.
                const std::string plain = n.inputs[k];
                auto it = name_in.find({plain, l});
                if (it == name_in.end()) {
                    it = name_in.emplace(std::make_pair(plain, l), add_value_in(g, plain, l, o.block)).first;
                    auto p = producer.find(plain);
                    after[p == producer.end() ? 0 : size_t(p->second + 1)].push_back(
                        conversion(l, false, plain, it->second));
                    conversions++;
                }
                n.inputs[k] = it->second;
            }
            const std::string plain = n.outputs[0];
            n.outputs[0] = name_in[{plain, l}] = add_value_in(g, plain, l, o.block);
            if (output_read_plain[i]) {
                after[i + 1].push_back(conversion(l, true, n.outputs[0], plain));
                conversions++;
            } else {
                unread.push_back(plain);
            }
        }
        for (const std::string &v : unread)
            g.values.erase(v);
        std::vector<Node> nodes = std::move(after[0]);
        for (size_t i = 0; i < g.nodes.size(); i++) {
            nodes.push_back(std::move(g.nodes[i]));
            for (Node &c : after[i + 1])
                nodes.push_back(std::move(c));
        }
        g.nodes = std::move(nodes);
        g.sort_topologically();
        return conversions;
    }
};

}  // namespace

Layout node_layout(const Node &node) {
    if (node.get_int(kLayoutBlockAttr, 0) > 0) return Layout::blocked;
    return node.get_int(kLayoutNhwcAttr, 0) != 0 ? Layout::nhwc : Layout::nchw;
}

int64_t layout_block(const Node &node) {
    return node.get_int(kLayoutBlockAttr, 0);
}

std::string layout_name(Layout l, int64_t block) {
    if (l == Layout::nhwc) return "nhwc";
    return l == Layout::blocked ? "nchw" + std::to_string(block) + "c" : "nchw";
}

Graph with_node_in_layout(const Graph &plain, int node, Layout l, int64_t block) {
    Graph g = plain;
    Node &n = g.nodes.at(size_t(node));
    set_node_layout(g, n, l, block);
    for (size_t k : image_inputs(g, n))
        n.inputs[k] = add_value_in(g, n.inputs[k], l, block);
    n.outputs[0] = add_value_in(g, n.outputs[0], l, block);
    return g;
}

LayoutReport assign_layouts(Graph &g, const LayoutOptions &o) {
    if (o.block != 8 && o.block != 16) {
        throw GraphError("assign_layouts: the channel block must be 8 or 16, got " + std::to_string(o.block));
    }
    LayoutReport report;
    report.block = o.block;
    Planner p{g, o, {}};
    p.propagate(report.predictions);
    for (const std::vector<int> &nodes : p.regions()) {
        LayoutRegion r = p.cost(nodes);
        for (int i : nodes) {
            if (!r.kept) p.layout[size_t(i)] = Layout::nchw;
        }
        if (r.kept) (r.layout == Layout::nhwc ? report.nhwc_nodes : report.blocked_nodes) += int(nodes.size());
        report.regions.push_back(std::move(r));
    }
    if (report.blocked_nodes + report.nhwc_nodes > 0) report.conversions = p.rewrite();
    return report;
}

std::string LayoutReport::summary() const {
    int kept[2] = {0, 0}, dropped = 0;
    double moved = 0;
    for (const LayoutRegion &r : regions) {
        if (r.kept) kept[r.layout == Layout::nhwc]++, moved += r.conversion_bytes;
        dropped += !r.kept;
    }
    std::ostringstream s;
    s.precision(2);
    s << std::fixed << layout_name(Layout::blocked, block) << ": " << kept[0] << " region(s), " << blocked_nodes
      << " node(s); ";
    if (kept[1] > 0 || nhwc_nodes > 0) s << "nhwc: " << kept[1] << " region(s), " << nhwc_nodes << " node(s); ";
    s << conversions << " conversion(s) (" << moved / 1e6 << " MB)";
    if (dropped > 0) s << "; " << dropped << " region(s) kept NCHW";
    return s.str();
}

std::string LayoutReport::describe() const {
    std::ostringstream s;
    s.precision(2);
    s << std::fixed;
    for (size_t i = 0; i < regions.size(); i++) {
        const LayoutRegion &r = regions[i];
        s << "  region " << i << ": " << (r.kept ? layout_name(r.layout, block) : "nchw (not " + layout_name(r.layout, block) + ")")
          << ", " << r.nodes.size() << " node(s) from " << r.nodes.front() << " to " << r.nodes.back() << ", "
          << r.convolutions << " conv(s), " << r.bytes / 1e6 << " MB; " << r.conversions() << " conversion(s) "
          << r.conversion_bytes / 1e6 << " MB: " << r.reason << "\n";
        if (!r.kept) continue;
        for (const auto &[values, direction] : {std::make_pair(&r.converted_in, " -> "), std::make_pair(&r.converted_out, " <- ")}) {
            for (const std::string &v : *values)
                s << "    " << v << " nchw" << direction << layout_name(r.layout, block) << "\n";
        }
    }
    for (const LayoutPrediction &p : predictions) {
        auto ms = [&](double v, Layout l) {
            std::string text = std::to_string(v).substr(0, 6) + " ms " + layout_name(l, block);
            const double c = p.conversion_ms[int(l)];
            return c >= 0.0005 ? text + " (+" + std::to_string(c).substr(0, 5) + " conversion)" : text;
        };
        s << "  " << p.node << ": predicted "
          << (p.ms[int(Layout::nchw)] < 0 ? "no prediction nchw" : ms(p.ms[int(Layout::nchw)], Layout::nchw));
        for (Layout l : {Layout::blocked, Layout::nhwc}) {
            if (p.ms[int(l)] >= 0) s << ", " << ms(p.ms[int(l)], l);
        }
        s << ": " << layout_name(p.chosen, block) << "\n";
    }
    return s.str();
}

}  // namespace tessera::graph
