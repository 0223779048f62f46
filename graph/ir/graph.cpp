#include "graph.h"

#include "graph_error.h"

#include <set>

namespace tessera::graph {

TensorInfo &Graph::value(const std::string &n) {
    auto it = values.find(n);
    if (it == values.end()) throw GraphError("graph has no value named '" + n + "'");
    return it->second;
}

const TensorInfo &Graph::value(const std::string &n) const {
    auto it = values.find(n);
    if (it == values.end()) throw GraphError("graph has no value named '" + n + "'");
    return it->second;
}

bool Graph::is_constant(const std::string &n) const {
    auto it = values.find(n);
    return it != values.end() && it->second.is_constant();
}

void Graph::set_constant(const std::string &n, TensorData data) {
    values[n] = TensorInfo::constant(n, std::move(data));
}

std::string Graph::unique_name(const std::string &base) const {
    if (!has_value(base)) return base;
    for (int k = 1;; k++) {
        std::string candidate = base + "_" + std::to_string(k);
        if (!has_value(candidate)) return candidate;
    }
}

int Graph::producer(const std::string &value_name) const {
    for (size_t k = 0; k < nodes.size(); k++)
        for (const std::string &o : nodes[k].outputs)
            if (o == value_name) return int(k);
    return -1;
}

std::vector<int> Graph::consumers(const std::string &value_name) const {
    std::vector<int> out;
    for (size_t k = 0; k < nodes.size(); k++)
        for (const std::string &in : nodes[k].inputs)
            if (in == value_name) {
                out.push_back(int(k));
                break;
            }
    return out;
}

bool Graph::is_output(const std::string &value_name) const {
    for (const std::string &o : outputs)
        if (o == value_name) return true;
    return false;
}

namespace {

// Values available before any node runs.
std::set<std::string> initially_available(const Graph &g) {
    std::set<std::string> ready(g.inputs.begin(), g.inputs.end());
    for (const auto &[name, info] : g.values)
        if (info.is_constant()) ready.insert(name);
    return ready;
}

bool inputs_ready(const Node &n, const std::set<std::string> &ready) {
    for (const std::string &in : n.inputs)
        if (!in.empty() && !ready.count(in)) return false;
    return true;
}

} // namespace

bool Graph::is_topologically_sorted() const {
    std::set<std::string> ready = initially_available(*this);
    for (const Node &n : nodes) {
        if (!inputs_ready(n, ready)) return false;
        ready.insert(n.outputs.begin(), n.outputs.end());
    }
    return true;
}

void Graph::sort_topologically() {
    std::set<std::string> ready = initially_available(*this);
    std::vector<Node> sorted;
    std::vector<bool> placed(nodes.size(), false);
    // Repeated sweeps: quadratic in the worst case, linear for graphs that are
    // already (nearly) sorted, which is what importers and passes produce.
    bool progress = true;
    while (sorted.size() < nodes.size() && progress) {
        progress = false;
        for (size_t k = 0; k < nodes.size(); k++) {
            if (placed[k] || !inputs_ready(nodes[k], ready)) continue;
            placed[k] = true;
            ready.insert(nodes[k].outputs.begin(), nodes[k].outputs.end());
            sorted.push_back(nodes[k]);
            progress = true;
        }
    }
    if (sorted.size() < nodes.size()) {
        for (size_t k = 0; k < nodes.size(); k++) {
            if (placed[k]) continue;
            for (const std::string &in : nodes[k].inputs)
                if (!in.empty() && !ready.count(in))
                    throw GraphError(node_label(nodes[k], opset) + ": input '" + in +
                                     "' is produced by no node, graph input or constant (or lies on a cycle)");
        }
    }
    nodes = std::move(sorted);
}

} // namespace tessera::graph
