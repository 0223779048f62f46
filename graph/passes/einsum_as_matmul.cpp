#include "einsum_as_matmul.h"

#include "graph_builder.h"
#include "resolved_params.h"
#include "shape_inference.h"

namespace tessera::graph {

namespace {

// The positions of `order`'s indices in `term`.
std::vector<int64_t> positions(const std::string &term, const std::string &order) {
    std::vector<int64_t> perm;
    for (char c : order) perm.push_back(int64_t(term.find(c)));
    return perm;
}

int64_t product(const std::map<char, int64_t> &extent, const std::string &indices) {
    int64_t p = 1;
    for (char c : indices) p *= extent.at(c);
    return p;
}

Shape extents_of(const std::map<char, int64_t> &extent, const std::string &indices) {
    Shape s;
    for (char c : indices) s.push_back(extent.at(c));
    return s;
}

// Whether every index is in the output or in both operands (no sum within one operand).
bool rewritable(const Graph &g, const Node &n, EinsumSpec *spec, std::map<char, int64_t> *extent) {
    if (n.op_type != "Einsum") return false;
    for (const std::string &in : n.inputs)
        if (!g.value(in).shape_known) return false;
    const InferContext ctx(n, g.opset, input_infos(g, n));
    *spec = parse_einsum(ctx);
    *extent = einsum_extents(ctx, *spec);
    for (const std::string &term : spec->inputs)
        for (char c : term) {
            const bool in_output = spec->output.find(c) != std::string::npos;
            const bool in_both = spec->inputs.size() == 2 && spec->inputs[0].find(c) != std::string::npos &&
                                 spec->inputs[1].find(c) != std::string::npos;
            if (!in_output && !in_both) return false;
        }
    return true;
}

void rewrite(Graph &g, GraphBuilder &b, const Node &n, const EinsumSpec &spec, const std::map<char, int64_t> &extent) {
    const std::string base = n.name.empty() ? n.outputs[0] : n.name;
    if (spec.inputs.size() == 1) {
        Node t;
        t.op_type = "Transpose";
        t.name = g.unique_name(base + "_transpose");
        t.inputs = {n.inputs[0]};
        t.outputs = n.outputs;
        t.attrs["perm"] = Attribute::make_ints(positions(spec.inputs[0], spec.output));
        b.add(std::move(t));
        return;
    }
    const std::string &a = spec.inputs[0], &c = spec.inputs[1];
    std::string batch, free_a, free_b, contracted;
    for (char i : a) {
        const bool in_b = c.find(i) != std::string::npos, in_out = spec.output.find(i) != std::string::npos;
        (in_b ? (in_out ? batch : contracted) : free_a) += i;
    }
    for (char i : c)
        if (a.find(i) == std::string::npos) free_b += i;
    const int64_t nb = product(extent, batch), na = product(extent, free_a), nk = product(extent, contracted),
                  nn = product(extent, free_b);
    std::string lhs = b.transpose(n.inputs[0], positions(a, batch + free_a + contracted), base + "_lhs_order");
    lhs = b.reshape(lhs, {nb, na, nk}, base + "_lhs");
    std::string rhs = b.transpose(n.inputs[1], positions(c, batch + contracted + free_b), base + "_rhs_order");
    rhs = b.reshape(rhs, {nb, nk, nn}, base + "_rhs");
    Node mm;
    mm.op_type = "MatMul";
    mm.name = g.unique_name(base + "_matmul");
    mm.inputs = {lhs, rhs};
    mm.outputs = {mm.name};
    const std::string product_name = mm.name;
    b.add(std::move(mm));
    const std::string order = batch + free_a + free_b;
    const std::string shaped = b.reshape(product_name, extents_of(extent, order), base + "_product");
    Node out;
    out.op_type = "Transpose";
    out.name = g.unique_name(base + "_output");
    out.inputs = {shaped};
    out.outputs = n.outputs;
    out.attrs["perm"] = Attribute::make_ints(positions(order, spec.output));
    b.add(std::move(out));
}

} // namespace

int einsum_as_matmul(Graph &g) {
    GraphBuilder b(g);
    return b.rewrite_nodes([&](const Node &n) {
        EinsumSpec spec;
        std::map<char, int64_t> extent;
        if (!rewritable(g, n, &spec, &extent)) return false;
        rewrite(g, b, n, spec, extent);
        return true;
    });
}

} // namespace tessera::graph
