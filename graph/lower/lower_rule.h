// Lowering rules: how one node of the graph becomes Halide Funcs. One table maps
// op types to rules; each op family registers its rules from its own file
// (lower_linear.cpp, lower_elementwise.cpp, ...), as the importer and the
// evaluator do. Operator semantics come from generators/ops (the op library's
// builders, validated through its OpConfig parsers), so a partition computes what
// the single-op kernels compute; only the index plumbing between ONNX's forms and
// the library's (reshapes, broadcasts, slices) is written here.
#pragma once

#include "graph.h"
#include "op_rule.h"

#include <Halide.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tessera::graph {

struct LowerContext {
    const Graph &g;
    const InferContext &ic;           // the node, its opset and inputs' infos (resolved params)
    std::vector<Halide::Func> in;     // per input: its Func (undefined for omitted inputs)
    const Node &node() const { return ic.node; }
    // Input k's shape as its Func has it: a scalar fp32 input is a [1] Func (lower_node
    // reshapes it for the op library), so its shape is {1} here, not {}.
    const Shape &in_shape(size_t k) const;
    const Shape &out_shape(size_t k = 0) const { return g.value(node().outputs.at(k)).shape; }
    // Input k's Func (float, or int64 for an integer-like value; see boundary_type);
    // fails naming the node when it is absent.
    const Halide::Func &input(size_t k) const;
    // A Func name from the node's name (letters, digits and '_' only: ONNX names
    // carry '/' and '.', which Halide reserves) and `suffix`.
    std::string name(const std::string &suffix) const;
    [[noreturn]] void fail(const std::string &what) const { ic.fail(what); }
};

// The Funcs of a node's outputs, in order.
using LowerRule = std::function<std::vector<Halide::Func>(LowerContext &)>;
using LowerTable = std::map<std::string, LowerRule>;

const LowerTable &lower_rules();

// Ops whose rules take integer or boolean tensors computed at run time (as int64
// Funcs): index plumbing, Gather's indices, Cast, comparisons, logic, Where,
// ArgMax/ArgMin, CumSum and integer_arithmetic_ops(). Every other rule is written for
// fp32 values; lower_node refuses an integer input computed at run time to them,
// naming the node.
bool lowers_integer_values(const std::string &op_type);

// Elementwise ops with an integer form of their own (Add, Sub, Mul, Div, Mod, Neg,
// Abs, Relu, Max, Min, Sum): position ids and other index arithmetic.
const std::vector<std::string> &integer_arithmetic_ops();

// Whether lower_masks_and_indices.cpp lowers `op_type` for integer values (its own
// rules and integer_arithmetic_ops()).
bool has_integer_rule(const std::string &op_type);

void register_linear_lowering(LowerTable &table);
void register_window_lowering(LowerTable &table);
void register_elementwise_lowering(LowerTable &table);
void register_normalization_lowering(LowerTable &table);
void register_data_movement_lowering(LowerTable &table);
void register_mask_and_index_lowering(LowerTable &table);

// The Funcs of `node`'s outputs from its inputs' Funcs. Throws GraphError naming
// the node when its op type or a form of it has no lowering.
std::vector<Halide::Func> lower_node(const Graph &g, const Node &node, const std::vector<Halide::Func> &inputs);

}  // namespace tessera::graph
