// Einsum: one or two operands, an explicit or implicit output, no ellipsis and no index
// repeated within one operand (a diagonal). parse_einsum resolves the equation once for
// the shape rule, the evaluator and graph/passes/einsum_as_matmul.
#include "resolved_params.h"

#include <algorithm>
#include <set>

namespace tessera::graph {

EinsumSpec parse_einsum(const InferContext &ctx) {
    const std::string equation = ctx.node.get_string("equation", "");
    std::string text;
    for (char c : equation)
        if (c != ' ') text += c;
    if (text.find("...") != std::string::npos) ctx.fail("equation '" + equation + "': an ellipsis is not supported");
    EinsumSpec spec;
    const size_t arrow = text.find("->");
    const std::string inputs = text.substr(0, arrow);
    size_t start = 0;
    while (true) {
        const size_t comma = inputs.find(',', start);
        spec.inputs.push_back(inputs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    if (spec.inputs.size() != ctx.node.inputs.size())
        ctx.fail("equation '" + equation + "' names " + std::to_string(spec.inputs.size()) + " operands for " +
                 std::to_string(ctx.node.inputs.size()) + " inputs");
    if (spec.inputs.size() > 2) ctx.fail("equation '" + equation + "': more than two operands are not supported");
    std::map<char, int> count;
    for (const std::string &term : spec.inputs) {
        std::set<char> seen;
        for (char c : term) {
            if (!std::isalpha(static_cast<unsigned char>(c))) ctx.fail("equation '" + equation + "': bad index '" + c + "'");
            if (!seen.insert(c).second)
                ctx.fail("equation '" + equation + "': index '" + c + "' repeats within an operand (a diagonal), not supported");
            count[c]++;
        }
    }
    if (arrow != std::string::npos) {
        spec.output = text.substr(arrow + 2);
        for (char c : spec.output)
            if (!count.count(c)) ctx.fail("equation '" + equation + "': output index '" + c + "' is in no operand");
    } else {  // implicit: the indices that appear once, in alphabetical order
        for (const auto &[c, n] : count)
            if (n == 1) spec.output += c;
    }
    return spec;
}

std::map<char, int64_t> einsum_extents(const InferContext &ctx, const EinsumSpec &spec) {
    std::map<char, int64_t> extent;
    for (size_t k = 0; k < spec.inputs.size(); k++) {
        const Shape &s = ctx.shape(k);
        if (s.size() != spec.inputs[k].size())
            ctx.fail("operand " + std::to_string(k) + " of shape " + shape_string(s) + " has rank " +
                     std::to_string(s.size()) + ", its term '" + spec.inputs[k] + "' " +
                     std::to_string(spec.inputs[k].size()) + " indices");
        for (size_t a = 0; a < s.size(); a++) {
            const char c = spec.inputs[k][a];
            auto it = extent.find(c);
            if (it != extent.end() && it->second != s[a])
                ctx.fail("index '" + std::string(1, c) + "' has extents " + std::to_string(it->second) + " and " +
                         std::to_string(s[a]) + " (broadcasting is not supported)");
            extent[c] = s[a];
        }
    }
    return extent;
}

void register_einsum_rules(RuleTable &table) {
    OpRule einsum;
    einsum.min_opset = 12;
    einsum.attributes = {"equation"};
    einsum.min_inputs = 1;
    einsum.max_inputs = 2;
    einsum.check = [](const InferContext &ctx) {
        for (size_t k = 0; k < ctx.in.size(); k++) ctx.require_dtype(k, {DType::f32});
        parse_einsum(ctx);
    };
    einsum.infer = [](InferContext &ctx) {
        const EinsumSpec spec = parse_einsum(ctx);
        const std::map<char, int64_t> extent = einsum_extents(ctx, spec);
        Shape out;
        for (char c : spec.output) out.push_back(extent.at(c));
        ctx.set_output(0, DType::f32, out);
        return true;
    };
    table["Einsum"] = einsum;
}

} // namespace tessera::graph
