#include "remove_dead.h"

#include <set>

namespace tessera::graph {

int remove_dead(Graph &graph) {
    std::set<std::string> live(graph.outputs.begin(), graph.outputs.end());
    std::vector<bool> keep(graph.nodes.size(), false);
    // Nodes are in topological order, so one backward sweep sees every consumer first.
    for (size_t k = graph.nodes.size(); k-- > 0;) {
        const Node &n = graph.nodes[k];
        for (const std::string &o : n.outputs)
            keep[k] = keep[k] || live.count(o);
        if (keep[k]) live.insert(n.inputs.begin(), n.inputs.end());
    }
    std::vector<Node> kept;
    for (size_t k = 0; k < graph.nodes.size(); k++)
        if (keep[k]) kept.push_back(std::move(graph.nodes[k]));
    int removed = int(graph.nodes.size() - kept.size());
    graph.nodes = std::move(kept);

    std::set<std::string> referenced(graph.inputs.begin(), graph.inputs.end());
    referenced.insert(graph.outputs.begin(), graph.outputs.end());
    for (const Node &n : graph.nodes) {
        referenced.insert(n.inputs.begin(), n.inputs.end());
        referenced.insert(n.outputs.begin(), n.outputs.end());
    }
    for (auto it = graph.values.begin(); it != graph.values.end();)
        it = referenced.count(it->first) ? std::next(it) : graph.values.erase(it);
    return removed;
}

} // namespace tessera::graph
