#include "predict_time.h"

#include "lower_partition.h"

#include <cstdlib>

namespace tessera::graph {

double predicted_ms_in(const std::string &source) {
    static const std::string mark = "// Tessera predicts ";
    const size_t at = source.find(mark);
    if (at == std::string::npos) return -1;
    char *end = nullptr;
    const double ms = std::strtod(source.c_str() + at + mark.size(), &end);
    return end != source.c_str() + at + mark.size() && ms >= 0 ? ms : -1;
}

double predict_node_ms(const Graph &g, int node, const Halide::Target &target, const Halide::MachineParams &params) {
    const Node &n = g.nodes.at(size_t(node));
    Partition p;
    p.name = "predict_" + n.op_type;
    p.nodes = {node};
    for (const std::string &in : n.inputs) {
        if (!in.empty()) p.inputs.push_back(in);
    }
    p.output = n.outputs.at(0);
    LoweredPartition lowered = lower_partition(g, p);
    const Halide::AutoSchedulerResults r = lowered.pipeline.auto_schedule("Tessera", target, params);
    return predicted_ms_in(r.schedule_source);
}

}  // namespace tessera::graph
