#include "rewrite_patterns.h"

#include "graph_builder.h"
#include "shape_inference.h"

#include <cmath>
#include <set>

namespace tessera::graph {

namespace {

// Whether `value` is a constant holding one element close to `want`.
bool is_scalar(const Graph &g, const std::string &value, double want) {
    if (!g.has_value(value) || !g.is_constant(value)) return false;
    const TensorData &d = *g.value(value).data;
    return d.size() == 1 && std::fabs(d.get(0) - want) <= 1e-5 * std::fabs(want);
}

// The one node reading `value`, or -1 when several (or none) do or the caller does.
int only_consumer(const Graph &g, const std::string &value) {
    const std::vector<int> c = g.consumers(value);
    return c.size() == 1 && !g.is_output(value) ? c[0] : -1;
}

// For a binary node with a scalar constant `c` on one side: the other input.
std::string other_than_scalar(const Graph &g, const Node &n, double c) {
    if (n.inputs.size() != 2) return "";
    if (is_scalar(g, n.inputs[1], c)) return n.inputs[0];
    if (is_scalar(g, n.inputs[0], c)) return n.inputs[1];
    return "";
}

// Matches the Erf form rooted at Erf node `e`; on success fills the nodes to remove
// and returns the input x and the final output.
bool match_gelu(const Graph &g, int e, std::set<int> &nodes, std::string &x, std::string &out) {
    const Node &erf = g.nodes[size_t(e)];
    const int d = g.producer(erf.inputs[0]);
    if (d < 0 || only_consumer(g, erf.inputs[0]) != e) return false;
    const Node &div = g.nodes[size_t(d)];
    if (div.op_type == "Div" && div.inputs.size() == 2 && is_scalar(g, div.inputs[1], std::sqrt(2.0))) {
        x = div.inputs[0];
    } else if (div.op_type == "Mul") {
        x = other_than_scalar(g, div, 1 / std::sqrt(2.0));
    }
    if (x.empty()) return false;
    const int a = only_consumer(g, erf.outputs[0]);
    if (a < 0 || g.nodes[size_t(a)].op_type != "Add" || other_than_scalar(g, g.nodes[size_t(a)], 1.0).empty()) {
        return false;
    }
    // (x * (1 + erf)) * 0.5, or (x * 0.5) * (1 + erf).
    const int m = only_consumer(g, g.nodes[size_t(a)].outputs[0]);
    if (m < 0 || g.nodes[size_t(m)].op_type != "Mul") return false;
    const Node &mul = g.nodes[size_t(m)];
    const std::string &other = mul.inputs[0] == g.nodes[size_t(a)].outputs[0] ? mul.inputs[1] : mul.inputs[0];
    nodes = {d, e, a, m};
    if (other == x) {
        const int h = only_consumer(g, mul.outputs[0]);
        if (h < 0 || g.nodes[size_t(h)].op_type != "Mul" || other_than_scalar(g, g.nodes[size_t(h)], 0.5).empty()) {
            return false;
        }
        nodes.insert(h);
        out = g.nodes[size_t(h)].outputs[0];
        return true;
    }
    const int h = g.producer(other);
    if (h < 0 || only_consumer(g, other) != m || g.nodes[size_t(h)].op_type != "Mul" ||
        other_than_scalar(g, g.nodes[size_t(h)], 0.5) != x) {
        return false;
    }
    nodes.insert(h);
    out = mul.outputs[0];
    return true;
}

// The graph without the nodes `removed` (indices) and with `added`, sorted again.
void replace_nodes(Graph &g, const std::set<int> &removed, const std::vector<Node> &added) {
    if (added.empty() && removed.empty()) return;
    std::vector<Node> kept;
    for (size_t i = 0; i < g.nodes.size(); i++) {
        if (!removed.count(int(i))) kept.push_back(g.nodes[i]);
    }
    kept.insert(kept.end(), added.begin(), added.end());
    g.nodes = kept;
    g.sort_topologically();
}

int rewrite_gelus(Graph &g) {
    int count = 0;
    std::set<int> removed;
    std::vector<Node> added;
    for (size_t i = 0; i < g.nodes.size(); i++) {
        if (g.nodes[i].op_type != "Erf" || removed.count(int(i))) continue;
        std::set<int> nodes;
        std::string x, out;
        if (!match_gelu(g, int(i), nodes, x, out)) continue;
        Node gelu;
        gelu.op_type = "Gelu";
        gelu.name = g.nodes[i].name.empty() ? "gelu" + std::to_string(count) : g.nodes[i].name + "_gelu";
        gelu.inputs = {x};
        gelu.outputs = {out};
        added.push_back(gelu);
        removed.insert(nodes.begin(), nodes.end());
        count++;
    }
    replace_nodes(g, removed, added);
    return count;
}

// The producer node of `value` when its op type is `op` and only `consumer` reads it
// (-1 otherwise).
int single_use_producer(const Graph &g, const std::string &value, const std::string &op, int consumer) {
    const int p = g.producer(value);
    if (p < 0 || g.nodes[size_t(p)].op_type != op) return -1;
    const std::vector<int> c = g.consumers(value);
    return c.size() == 1 && c[0] == consumer && !g.is_output(value) ? p : -1;
}

// ReduceMean over the last axis only, keeping it.
bool is_last_axis_mean(const Graph &g, const Node &n) {
    if (n.op_type != "ReduceMean" || n.get_int("keepdims", 1) != 1) return false;
    std::vector<int64_t> axes = n.get_ints("axes", {});
    if (n.inputs.size() > 1 && g.is_constant(n.inputs[1])) axes = g.value(n.inputs[1]).data->as_ints();
    const int64_t rank = int64_t(g.value(n.inputs[0]).shape.size());
    return axes.size() == 1 && (axes[0] == -1 || axes[0] == rank - 1);
}

// LayerNorm as an exporter decomposes it (opset < 17), rooted at the Div:
// d = x - ReduceMean(x); n = d / Sqrt(ReduceMean(Pow(d, 2)) + eps); then
// optionally * gamma, + beta. Fills the nodes to remove, x, eps and the output.
bool match_layer_norm(const Graph &g, int div, std::set<int> &nodes, std::string &x, float &eps,
                      std::string &gamma, std::string &beta, std::string &out) {
    const Node &dv = g.nodes[size_t(div)];
    if (dv.op_type != "Div" || dv.inputs.size() != 2) return false;
    const int sub = g.producer(dv.inputs[0]), sqrt = single_use_producer(g, dv.inputs[1], "Sqrt", div);
    if (sub < 0 || sqrt < 0 || g.nodes[size_t(sub)].op_type != "Sub") return false;
    const Node &sb = g.nodes[size_t(sub)];
    const std::string &d = sb.outputs[0];
    x = sb.inputs[0];
    const int mean = single_use_producer(g, sb.inputs[1], "ReduceMean", sub);
    if (mean < 0 || g.nodes[size_t(mean)].inputs[0] != x || !is_last_axis_mean(g, g.nodes[size_t(mean)])) return false;
    const int add = single_use_producer(g, g.nodes[size_t(sqrt)].inputs[0], "Add", sqrt);
    if (add < 0) return false;
    const Node &ad = g.nodes[size_t(add)];
    const bool eps_second = g.is_constant(ad.inputs[1]);
    const std::string &eps_value = eps_second ? ad.inputs[1] : ad.inputs[0];
    if (!g.is_constant(eps_value) || g.value(eps_value).data->size() != 1) return false;
    eps = float(g.value(eps_value).data->get(0));
    const int var = single_use_producer(g, eps_second ? ad.inputs[0] : ad.inputs[1], "ReduceMean", add);
    if (var < 0 || !is_last_axis_mean(g, g.nodes[size_t(var)])) return false;
    const int pow = single_use_producer(g, g.nodes[size_t(var)].inputs[0], "Pow", var);
    if (pow < 0 || g.nodes[size_t(pow)].inputs[0] != d || !is_scalar(g, g.nodes[size_t(pow)].inputs[1], 2.0)) {
        return false;
    }
    // d feeds exactly the Pow and the Div.
    const std::vector<int> d_readers = g.consumers(d);
    if (d_readers.size() != 2 || g.is_output(d)) return false;
    nodes = {mean, sub, pow, var, add, sqrt, div};
    out = dv.outputs[0];
    const int64_t last = g.value(x).shape.empty() ? 0 : g.value(x).shape.back();
    auto per_channel = [&](const std::string &v) {
        return g.is_constant(v) && g.value(v).data->size() == size_t(last) && g.value(v).shape.back() == last;
    };
    const int mul = g.consumers(out).size() == 1 && !g.is_output(out) ? g.consumers(out)[0] : -1;
    if (mul >= 0 && g.nodes[size_t(mul)].op_type == "Mul") {
        const Node &m = g.nodes[size_t(mul)];
        const std::string &other = m.inputs[0] == out ? m.inputs[1] : m.inputs[0];
        if (per_channel(other)) {
            gamma = other;
            nodes.insert(mul);
            out = m.outputs[0];
            const int plus = g.consumers(out).size() == 1 && !g.is_output(out) ? g.consumers(out)[0] : -1;
            if (plus >= 0 && g.nodes[size_t(plus)].op_type == "Add") {
                const Node &p = g.nodes[size_t(plus)];
                const std::string &b = p.inputs[0] == out ? p.inputs[1] : p.inputs[0];
                if (per_channel(b)) {
                    beta = b;
                    nodes.insert(plus);
                    out = p.outputs[0];
                }
            }
        }
    }
    return true;
}

int rewrite_layer_norms(Graph &g) {
    int count = 0;
    std::set<int> removed;
    std::vector<Node> added;
    for (size_t i = 0; i < g.nodes.size(); i++) {
        if (g.nodes[i].op_type != "Div" || removed.count(int(i))) continue;
        std::set<int> nodes;
        std::string x, gamma, beta, out;
        float eps = 0;
        if (!match_layer_norm(g, int(i), nodes, x, eps, gamma, beta, out)) continue;
        bool overlaps = false;
        for (int n : nodes) overlaps |= removed.count(n) != 0;
        if (overlaps) continue;
        const int64_t last = g.value(x).shape.back();
        Node ln;
        ln.op_type = "LayerNormalization";
        ln.name = (g.nodes[i].name.empty() ? "layer_norm" + std::to_string(count) : g.nodes[i].name + "_layer_norm");
        if (gamma.empty()) {
            gamma = g.unique_name(ln.name + "_gamma");
            g.set_constant(gamma, TensorData::floats({last}, std::vector<float>(size_t(last), 1.0f)));
        }
        ln.inputs = {x, gamma};
        if (!beta.empty()) ln.inputs.push_back(beta);
        ln.outputs = {out};
        ln.attrs["axis"] = Attribute::make_int(-1);
        ln.attrs["epsilon"] = Attribute::make_float(eps);
        added.push_back(ln);
        removed.insert(nodes.begin(), nodes.end());
        count++;
    }
    replace_nodes(g, removed, added);
    return count;
}

int rewrite_splits(Graph &g) {
    GraphBuilder b(g);
    return b.rewrite_nodes([&](const Node &n) {
        // Only with every part's shape known (sizes given by a run-time input are not).
        bool known = true;
        for (const std::string &out : n.outputs) known &= g.value(out).shape_known;
        if (n.op_type != "Split" || !known) return false;
        const Shape in = g.value(n.inputs[0]).shape;
        int64_t axis = n.get_int("axis", 0);
        if (axis < 0) axis += int64_t(in.size());
        std::vector<int64_t> start(in.size(), 0);
        for (size_t k = 0; k < n.outputs.size(); k++) {
            Shape length = in;
            length[size_t(axis)] = g.value(n.outputs[k]).shape[size_t(axis)];
            b.slice(n.inputs[0], start, length, (n.name.empty() ? "split" : n.name) + "_part" + std::to_string(k),
                    n.outputs[k]);
            start[size_t(axis)] += length[size_t(axis)];
        }
        return true;
    });
}

}  // namespace

RewriteCounts rewrite_patterns(Graph &g) {
    RewriteCounts c;
    c.split = rewrite_splits(g);
    c.gelu = rewrite_gelus(g);
    c.layer_norm = rewrite_layer_norms(g);
    if (c.split || c.gelu || c.layer_norm) infer_shapes(g);
    return c;
}

}  // namespace tessera::graph
