#include "fold_batch_norm.h"

#include <cmath>

namespace tessera::graph {

namespace {

// The Conv feeding BN node `bn`, or -1 when the pair cannot be folded.
int foldable_conv(const Graph &g, const Node &bn) {
    for (size_t k = 1; k < 5; k++)
        if (!g.is_constant(bn.inputs[k])) return -1;
    const std::string &x = bn.inputs[0];
    int p = g.producer(x);
    if (p < 0 || g.nodes[p].op_type != "Conv" || g.consumers(x).size() != 1 || g.is_output(x)) return -1;
    const Node &conv = g.nodes[p];
    if (!g.is_constant(conv.inputs[1]) || (conv.has_input(2) && !g.is_constant(conv.inputs[2]))) return -1;
    return p;
}

} // namespace

int fold_batch_norm(Graph &g) {
    int folded = 0;
    for (size_t k = 0; k < g.nodes.size(); k++) {
        if (g.nodes[k].op_type != "BatchNormalization") continue;
        const Node &bn = g.nodes[k];
        int p = foldable_conv(g, bn);
        if (p < 0) continue;
        Node &conv = g.nodes[p];
        const TensorData &w = *g.value(conv.inputs[1]).data;
        const TensorData &scale = *g.value(bn.inputs[1]).data, &beta = *g.value(bn.inputs[2]).data,
                         &mean = *g.value(bn.inputs[3]).data, &var = *g.value(bn.inputs[4]).data;
        const TensorData *bias = conv.has_input(2) ? g.value(conv.inputs[2]).data.get() : nullptr;
        double eps = bn.get_float("epsilon", 1e-5f);
        int64_t m_count = w.shape[0], per_m = num_elements(w.shape) / std::max<int64_t>(m_count, 1);

        TensorData new_w = w;
        TensorData new_b(DType::f32, {m_count});
        for (int64_t m = 0; m < m_count; m++) {
            double s = double(scale.f[m]) / std::sqrt(double(var.f[m]) + eps);
            for (int64_t j = 0; j < per_m; j++)
                new_w.f[m * per_m + j] = float(double(w.f[m * per_m + j]) * s);
            double b = bias ? bias->f[m] : 0.0;
            new_b.f[m] = float((b - double(mean.f[m])) * s + double(beta.f[m]));
        }
        std::string w_name = g.unique_name(conv.inputs[1] + "_bn_folded");
        g.set_constant(w_name, std::move(new_w));
        std::string b_name = g.unique_name((bias ? conv.inputs[2] : conv.outputs[0] + "_bias") + "_bn_folded");
        g.set_constant(b_name, std::move(new_b));
        conv.inputs.resize(3);
        conv.inputs[1] = w_name;
        conv.inputs[2] = b_name;
        // The Conv now produces the BN's output; its old output disappears.
        g.values.erase(conv.outputs[0]);
        conv.outputs[0] = bn.outputs[0];
        g.nodes.erase(g.nodes.begin() + k);
        k--;
        folded++;
    }
    return folded;
}

} // namespace tessera::graph
