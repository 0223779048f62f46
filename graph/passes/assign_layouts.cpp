#include "assign_layouts.h"

#include "graph_error.h"
#include "node_cost.h"
#include "pack_weights.h"
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

Shape blocked_shape(const Shape &nchw, int64_t b) {
    return {nchw[0], nchw[1] / b, nchw[2], nchw[3], b};
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
    static const std::set<std::string> ops = {"Relu", "Sigmoid", "Tanh", "Exp",  "Sqrt",
                                              "Erf",  "Neg",     "Gelu", "Clip", "Reciprocal"};
    return ops.count(n.op_type) != 0;
}

bool binary_agnostic(const Node &n) {
    static const std::set<std::string> ops = {"Add", "Sub", "Mul", "Div", "Pow", "Max", "Min"};
    return ops.count(n.op_type) != 0 && n.inputs.size() == 2;
}

bool pooling(const Node &n) {
    return n.op_type == "MaxPool" || n.op_type == "AveragePool" || n.op_type == "GlobalAveragePool";
}

// A blocked node's image inputs: the inputs its blocked form reads blocked (a
// binary op's non-scalar operands).
std::vector<size_t> image_inputs(const Graph &g, const Node &n) {
    if (n.op_type == "Conv" || pooling(n) || unary_agnostic(n)) return {0};
    std::vector<size_t> images;
    for (size_t k = 0; k < n.inputs.size(); k++) {
        if (!scalar(g.value(n.inputs[k]))) images.push_back(k);
    }
    return images;
}

// A blocked Conv's weights as panels ([oc/b][c][kh][kw][b], depthwise [c/b][kh][kw][b]),
// and every blocked node's attribute.
void block_weights(Graph &g, Node &n, int64_t block) {
    if (n.op_type == "Conv") {
        const bool depthwise = n.get_int("group", 1) > 1;
        TensorData panels = pack_conv_weights(*g.value(n.inputs[1]).data, block);
        if (depthwise) panels.shape = {panels.shape[0], panels.shape[2], panels.shape[3], panels.shape[4]};
        const std::string w = g.unique_name(n.inputs[1] + "_panels");
        g.set_constant(w, std::move(panels));
        n.inputs[1] = w;
        n.attrs[kPackedBlockAttr] = Attribute::make_int(block);
    }
    n.attrs[kLayoutBlockAttr] = Attribute::make_int(block);
}

// A blocked value beside NCHW value `plain` (its producer's renamed output, or a
// conversion's), [N, C/b, H, W, b].
std::string add_blocked_value(Graph &g, const std::string &plain, int64_t block) {
    const std::string name = g.unique_name(plain + "_nchw" + std::to_string(block) + "c");
    TensorInfo info = g.value(plain);
    info.name = name;
    info.data = nullptr;
    info.shape = blocked_shape(info.shape, block);
    g.values[name] = info;
    return name;
}

struct Planner {
    Graph &g;
    const LayoutOptions &o;
    std::vector<bool> blocked;  // per node

    bool channels_fit(const Shape &image) const { return image[1] % o.block == 0; }

    bool conv_candidate(const Node &n) const {
        if (n.op_type != "Conv" || packed_block(n) != 0 || !n.has_input(1) || !g.is_constant(n.inputs[1])) return false;
        const TensorInfo &x = g.value(n.inputs[0]), &w = g.value(n.inputs[1]);
        if (!f32_image(x) || x.is_constant() || w.dtype != DType::f32 || w.shape.size() != 4) return false;
        if (n.has_input(2) && g.value(n.inputs[2]).shape.size() != 1) return false;
        const int64_t group = n.get_int("group", 1), c = x.shape[1], oc = w.shape[0];
        const bool depthwise = group > 1 && group == c && oc == c && w.shape[1] == 1;
        if (group != 1 && !depthwise) return false;
        if (c % o.block != 0 || oc % o.block != 0) return false;
        // Weights far larger than the image they make (a 3x3 on 7x7x512: 94x): the
        // plugin's blocked register tile then spans output-channel blocks at one
        // pixel and re-reads the weights per pixel (7x7x512: 6.0 ms blocked, 1.5 NCHW;
        // 14x14x256, 12x: 1.09 against 1.18 ms; Zen 4, 2 threads).
        const double out_elements = double(num_elements(g.value(n.outputs[0]).shape));
        if (!o.predict_ms && double(num_elements(w.shape)) > o.max_weight_ratio * out_elements) return false;
        return library_window(g, n, x.shape, {w.shape[2], w.shape[3]}, false);
    }

    // Whether node i can compute blocked given its inputs (a conv candidate always can).
    bool agnostic(int i) const {
        const Node &n = g.nodes[size_t(i)];
        if (n.outputs.size() != 1 || g.value(n.outputs[0]).dtype != DType::f32) return false;
        const Shape &out = g.value(n.outputs[0]).shape;
        if (out.size() != 4 || !channels_fit(out)) return false;
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
        if (!binary_agnostic(n)) return false;
        const std::vector<size_t> images = image_inputs(g, n);
        if (images.empty()) return false;
        for (size_t k : images) {
            if (g.value(n.inputs[k]).shape != out || g.value(n.inputs[k]).dtype != DType::f32) return false;
        }
        return true;
    }

    bool produced_blocked(const std::string &value) const {
        const int p = g.producer(value);
        return p >= 0 && blocked[size_t(p)];
    }

    // Step 1 and 2: candidates, then forward propagation in topological order.
    void propagate(std::vector<LayoutPrediction> &predictions) {
        blocked.assign(g.nodes.size(), false);
        for (size_t i = 0; i < g.nodes.size(); i++) {
            if (conv_candidate(g.nodes[i])) {
                blocked[i] = true;
                if (o.predict_ms) {
                    LayoutPrediction p;
                    p.node = label(g.nodes[i]);
                    p.nchw_ms = o.predict_ms(g, int(i));
                    p.blocked_ms = o.predict_ms(with_node_blocked(g, int(i), o.block), int(i));
                    blocked[i] = !p.blocked_slower();
                    predictions.push_back(p);
                }
                continue;
            }
            if (!agnostic(int(i))) continue;
            for (size_t k : image_inputs(g, g.nodes[i]))
                blocked[i] = blocked[i] || produced_blocked(g.nodes[i].inputs[k]);
        }
    }

    // Connected blocked regions (through values one blocked node writes and another reads).
    std::vector<std::vector<int>> regions() const {
        std::vector<int> root(g.nodes.size());
        std::iota(root.begin(), root.end(), 0);
        auto find = [&](int x) {
            while (root[size_t(x)] != x)
                x = root[size_t(x)] = root[size_t(root[size_t(x)])];
            return x;
        };
        for (size_t i = 0; i < g.nodes.size(); i++) {
            if (!blocked[i]) continue;
            for (const std::string &in : g.nodes[i].inputs) {
                if (!in.empty() && produced_blocked(in)) root[size_t(find(int(i)))] = find(g.producer(in));
            }
        }
        std::map<int, std::vector<int>> by_root;
        for (size_t i = 0; i < g.nodes.size(); i++) {
            if (blocked[i]) by_root[find(int(i))].push_back(int(i));
        }
        std::vector<std::vector<int>> out;
        for (auto &[r, nodes] : by_root)
            out.push_back(nodes);
        std::sort(out.begin(), out.end());
        return out;
    }

    // A blocked node's output read in NCHW: by a node outside the blocked set, or the caller.
    bool read_plain(const std::string &value) const {
        if (g.is_output(value)) return true;
        for (int c : g.consumers(value)) {
            if (!blocked[size_t(c)]) return true;
        }
        return false;
    }

    // Step 3: a region's traffic and conversions, and the decision.
    LayoutRegion cost(const std::vector<int> &nodes) const {
        LayoutRegion r;
        std::set<std::string> to_blocked;
        auto convert = [&](const std::string &v) {  // a read and a write of the whole tensor
            r.conversions++;
            r.conversion_bytes += 8.0 * double(num_elements(g.value(v).shape));
        };
        for (int i : nodes) {
            const Node &n = g.nodes[size_t(i)];
            r.nodes.push_back(label(n));
            const NodeCost c = node_cost(g, n);
            r.bytes += c.bytes;
            if (n.op_type == "Conv") r.convolutions++;
            for (size_t k : image_inputs(g, n)) {
                if (!produced_blocked(n.inputs[k])) to_blocked.insert(n.inputs[k]);
            }
            if (read_plain(n.outputs[0])) convert(n.outputs[0]);
        }
        for (const std::string &v : to_blocked)
            convert(v);
        char why[160];
        if (r.convolutions == 0) {
            r.reason = "no convolution to gain from the layout";
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

    Node conversion(const char *op, const std::string &from, const std::string &to) const {
        Node n;
        n.op_type = op;
        n.name = to;
        n.inputs = {from};
        n.outputs = {to};
        n.attrs[kBlockAttr] = Attribute::make_int(o.block);
        return n;
    }

    // Step 4: blocked values, weights as panels, conversions where layouts meet.
    int rewrite() {
        std::map<std::string, std::string> blocked_name;           // NCHW value -> its blocked value
        std::vector<std::vector<Node>> after(g.nodes.size() + 1);  // [0]: before every node
        auto blocked_value = [&](const std::string &plain) -> std::string {
            auto it = blocked_name.find(plain);
            if (it != blocked_name.end()) return it->second;
            return blocked_name[plain] = add_blocked_value(g, plain, o.block);
        };
        int conversions = 0;
        std::vector<std::string> unread;  // NCHW values only blocked nodes read: dropped at the end
        for (size_t i = 0; i < g.nodes.size(); i++) {
            if (!blocked[i]) continue;
            Node &n = g.nodes[i];
            for (size_t k : image_inputs(g, n)) {
                // Topological order: a blocked producer named its value already.
                const std::string plain = n.inputs[k];
                const bool known = blocked_name.count(plain) != 0;
                n.inputs[k] = blocked_value(plain);
                if (!known) {
                    const int p = g.producer(plain);
                    after[size_t(p + 1)].push_back(conversion(kToBlockedOp, plain, n.inputs[k]));
                    conversions++;
                }
            }
            block_weights(g, n, o.block);
            const std::string plain = n.outputs[0];
            n.outputs[0] = blocked_value(plain);
            if (read_plain(plain)) {
                after[i + 1].push_back(conversion(kFromBlockedOp, n.outputs[0], plain));
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

int64_t layout_block(const Node &node) {
    return node.get_int(kLayoutBlockAttr, 0);
}

Graph with_node_blocked(const Graph &plain, int node, int64_t block) {
    Graph g = plain;
    Node &n = g.nodes.at(size_t(node));
    for (size_t k : image_inputs(g, n))
        n.inputs[k] = add_blocked_value(g, n.inputs[k], block);
    block_weights(g, n, block);
    n.outputs[0] = add_blocked_value(g, n.outputs[0], block);
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
        if (!r.kept) {
            for (int i : nodes)
                p.blocked[size_t(i)] = false;
        } else {
            report.blocked_nodes += int(nodes.size());
        }
        report.regions.push_back(std::move(r));
    }
    if (report.blocked_nodes > 0) report.conversions = p.rewrite();
    return report;
}

std::string LayoutReport::summary() const {
    int kept = 0;
    double moved = 0;
    for (const LayoutRegion &r : regions) {
        if (r.kept) kept++, moved += r.conversion_bytes;
    }
    std::ostringstream s;
    s.precision(2);
    s << std::fixed << "nchw" << block << "c: " << kept << " region(s), " << blocked_nodes << " node(s) blocked, "
      << conversions << " conversion(s) (" << moved / 1e6 << " MB)";
    if (regions.size() > size_t(kept)) s << "; " << regions.size() - size_t(kept) << " region(s) kept NCHW";
    return s.str();
}

std::string LayoutReport::describe() const {
    std::ostringstream s;
    s.precision(2);
    s << std::fixed;
    for (size_t i = 0; i < regions.size(); i++) {
        const LayoutRegion &r = regions[i];
        s << "  region " << i << ": " << (r.kept ? "nchw" + std::to_string(block) + "c" : std::string("nchw")) << ", "
          << r.nodes.size() << " node(s) from " << r.nodes.front() << " to " << r.nodes.back() << ", " << r.convolutions
          << " conv(s), " << r.bytes / 1e6 << " MB; " << r.conversions << " conversion(s) " << r.conversion_bytes / 1e6
          << " MB: " << r.reason << "\n";
    }
    for (const LayoutPrediction &p : predictions) {
        auto ms = [](double v) {
            return v < 0 ? std::string("no prediction") : std::to_string(v).substr(0, 6) + " ms";
        };
        s << "  " << p.node << ": predicted " << ms(p.nchw_ms) << " NCHW, " << ms(p.blocked_ms) << " nchw" << block
          << "c" << (p.blocked_slower() ? ": stays NCHW" : "") << "\n";
    }
    return s.str();
}

}  // namespace tessera::graph
