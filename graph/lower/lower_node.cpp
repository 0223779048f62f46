#include "lower_rule.h"

#include "halide_name.h"
#include "index_maps.h"
#include "shape_inference.h"

#include <set>

namespace tessera::graph {

const Halide::Func &LowerContext::input(size_t k) const {
    if (k >= in.size() || !in[k].defined()) {
        fail("input " + std::to_string(k) + " is not a tensor the compiled kernel can read");
    }
    return in[k];
}

const Shape &LowerContext::in_shape(size_t k) const {
    static const Shape one = {1};
    const Shape &shape = ic.shape(k);
    return shape.empty() && k < in.size() && in[k].defined() ? one : shape;
}

std::string LowerContext::name(const std::string &suffix) const {
    return halide_name(node().name.empty() ? node().op_type : node().name) + "_" + suffix;
}

const LowerTable &lower_rules() {
    static const LowerTable table = [] {
        LowerTable t;
        register_linear_lowering(t);
        register_window_lowering(t);
        register_elementwise_lowering(t);
        register_normalization_lowering(t);
        register_data_movement_lowering(t);
        register_mask_and_index_lowering(t);
        return t;
    }();
    return table;
}

bool lowers_integer_values(const std::string &op_type) {
    // The index plumbing moves values of any type; the rest have integer rules.
    static const std::set<std::string> plumbing = {"Reshape", "Flatten",  "Squeeze", "Unsqueeze", "Identity", "Expand",
                                                   "Concat",  "Split",    "Slice",   "Tile",      "Transpose", "Gather"};
    return plumbing.count(op_type) > 0 || has_integer_rule(op_type);
}

std::vector<Halide::Func> lower_node(const Graph &g, const Node &node, const std::vector<Halide::Func> &inputs) {
    const std::vector<const TensorInfo *> infos = input_infos(g, node);
    InferContext ic(node, g.opset, infos);
    auto rule = lower_rules().find(node.op_type);
    if (rule == lower_rules().end()) {
        ic.fail("the compiler cannot lower " + node.op_type + " yet (the reference evaluator can run it)");
    }
    if (!lowers_integer_values(node.op_type)) {
        for (size_t k = 0; k < infos.size(); k++) {
            if (infos[k] && is_integer(infos[k]->dtype) && !infos[k]->is_constant()) {
                ic.fail(node.op_type + " of a " + dtype_name(infos[k]->dtype) +
                        " tensor computed at run time is not compiled (the reference evaluator can run it)");
            }
        }
    }
    LowerContext ctx{g, ic, inputs};
    // Scalars enter the op library's builders as [1] tensors.
    for (size_t k = 0; k < ctx.in.size(); k++) {
        if (ctx.in[k].defined() && ic.has(k) && ic.shape(k).empty()) {
            ctx.in[k] = reshape_func(ctx.in[k], {}, {1}, ctx.name("scalar" + std::to_string(k)));
        }
    }
    std::vector<Halide::Func> out = rule->second(ctx);
    if (out.size() != node.outputs.size()) ic.fail("lowering produced the wrong number of outputs (internal error)");
    // A scalar output computed by a library op from [1] inputs is a [1] Func: back to
    // the value's rank (0), which its consumers, the partition's output buffer and
    // the estimates expect.
    for (size_t k = 0; k < out.size(); k++) {
        if (ctx.out_shape(k).empty() && out[k].defined() && out[k].dimensions() == 1) {
            out[k] = reshape_func(out[k], {1}, {}, ctx.name("scalar_out" + std::to_string(k)));
        }
    }
    return out;
}

}  // namespace tessera::graph
