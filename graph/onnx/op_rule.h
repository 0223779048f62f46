// OpRule: what the graph layer knows about one op type: the opsets and attributes it
// accepts, how many inputs and outputs, the attribute/dtype checks, and shape
// inference. One table maps op types to rules; each op family registers its rules from
// its own file (import_conv.cpp, import_elementwise.cpp, ...). Nothing here reads
// protobuf: the evaluator and the passes use the same rules on in-memory graphs.
#pragma once

#include "graph.h"
#include "graph_error.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessera::graph {

// The view a rule gets of one node: its attributes and its inputs' types, shapes and
// (for constants) values; the rule fills in the outputs.
struct InferContext {
    const Node &node;
    int opset;
    std::vector<const TensorInfo *> in; // nullptr where an optional input is omitted
    std::vector<TensorInfo> out;        // names set by the caller; dtype/shape by the rule

    InferContext(const Node &n, int op_set, std::vector<const TensorInfo *> inputs);

    bool has(size_t k) const { return k < in.size() && in[k] != nullptr; }
    const TensorInfo &input(size_t k) const; // fails when absent
    const Shape &shape(size_t k) const { return input(k).shape; }
    int64_t rank(size_t k) const { return int64_t(input(k).shape.size()); }
    DType dtype(size_t k) const { return input(k).dtype; }
    // The input's data when it is a constant, else nullptr.
    const TensorData *value(size_t k) const { return has(k) ? input(k).data.get() : nullptr; }
    // A constant input's elements as integers; nullopt when it is not constant.
    std::optional<std::vector<int64_t>> int_values(size_t k) const;

    // Throws GraphError "node 'x' (#i, Op, opset N): <what>".
    [[noreturn]] void fail(const std::string &what) const;
    // Maps a possibly negative axis into [0, rank); fails naming `what` when out of range.
    int64_t axis(int64_t a, int64_t rank, const std::string &what) const;
    void require_dtype(size_t k, const std::vector<DType> &allowed) const;
    // Attribute `key` must be one of `allowed` (strings); fails listing them.
    void require_one_of(const std::string &key, const std::string &value,
                        std::initializer_list<const char *> allowed) const;

    void set_output(size_t k, DType dtype, Shape shape);
};

struct OpRule {
    int min_opset = 1;                   // first opset of this op's semantics we support
    std::vector<std::string> attributes; // every attribute name the op may carry
    size_t min_inputs = 1, max_inputs = 1;
    size_t min_outputs = 1, max_outputs = 1;
    // Attribute values and input dtypes; run for every node on import and before
    // evaluation. Must not need shapes.
    std::function<void(const InferContext &)> check;
    // Output dtype (every output the same); default: input 0's dtype.
    std::function<DType(const InferContext &)> dtype;
    // Output shapes, called only when every present input's shape is known. Returns
    // false when it needs the value of an input that is not a constant (yet).
    std::function<bool(InferContext &)> infer;
};

using RuleTable = std::map<std::string, OpRule>;

// The table of every supported op type.
const RuleTable &op_rules();
const OpRule *find_op_rule(const std::string &op_type);
// "Add, AveragePool, BatchNormalization, ..." for error messages.
std::string supported_op_list();

// Registration, one function per op family file.
void register_conv_rules(RuleTable &table);
void register_pool_rules(RuleTable &table);
void register_linear_rules(RuleTable &table);
void register_elementwise_rules(RuleTable &table);
void register_normalization_rules(RuleTable &table);
void register_shape_op_rules(RuleTable &table);
void register_data_movement_rules(RuleTable &table);
void register_resize_rules(RuleTable &table);
void register_einsum_rules(RuleTable &table);

} // namespace tessera::graph
