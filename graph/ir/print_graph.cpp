// Graph::print: the human-readable listing behind `tessera --print-graph` and test
// failure messages.
#include "graph.h"

namespace tessera::graph {

namespace {

std::string typed(const Graph &g, const std::string &n) {
    if (n.empty()) return "<none>";
    auto it = g.values.find(n);
    if (it == g.values.end()) return n + ": <missing>";
    return n + ": " + it->second.type_string() + (it->second.is_constant() ? " const" : "");
}

} // namespace

void Graph::print(std::ostream &os) const {
    size_t constants = 0, constant_bytes = 0;
    for (const auto &[n, info] : values)
        if (info.is_constant()) {
            constants++;
            constant_bytes += info.data->size() * (info.dtype == DType::f32 ? 4 : 8);
        }
    os << "graph '" << name << "' opset " << opset << ": " << nodes.size() << " nodes, " << constants << " constants ("
       << constant_bytes << " bytes)\n";
    for (const std::string &in : inputs)
        os << "  input  " << typed(*this, in) << "\n";
    for (size_t k = 0; k < nodes.size(); k++) {
        const Node &n = nodes[k];
        os << "  [" << k << "] " << n.op_type;
        if (!n.name.empty()) os << " '" << n.name << "'";
        os << " (";
        for (size_t i = 0; i < n.inputs.size(); i++)
            os << (i ? ", " : "") << typed(*this, n.inputs[i]);
        os << ") -> ";
        for (size_t i = 0; i < n.outputs.size(); i++)
            os << (i ? ", " : "") << typed(*this, n.outputs[i]);
        for (const auto &[key, attr] : n.attrs)
            os << " " << key << "=" << attr.to_string();
        os << "\n";
    }
    for (const std::string &out : outputs)
        os << "  output " << typed(*this, out) << "\n";
}

} // namespace tessera::graph
