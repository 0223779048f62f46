// GraphBuilder: the nodes a pass writes in place of one it rewrites, each in the form
// the graph's opset reads (Pad's and Slice's attributes before opsets 11 and 10,
// their inputs after) and with its outputs' types and shapes inferred as it is added.
// A pass collects them into a new node list and swaps it in when done.
#pragma once

#include "graph.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace tessera::graph {

class GraphBuilder {
public:
    explicit GraphBuilder(Graph &g) : g_(g) {}

    // Appends `node` (outputs named) after inferring its outputs.
    void add(Node node);
    // Appends a node of the graph as it is (already inferred).
    void keep(const Node &node) { nodes_.push_back(node); }

    // A node of `op_type` reading `inputs`, its one output named `output` (default: a
    // value named after `base`); returns the output's name.
    std::string op(const std::string &op_type, const std::vector<std::string> &inputs, const std::string &base,
                   const std::string &output = "", const std::map<std::string, Attribute> &attrs = {});
    // A constant named after `base`, and a scalar f32 one.
    std::string constant(TensorData data, const std::string &base);
    std::string scalar(float v, const std::string &base);
    // `value` as shape `to`: a reshaped copy of a constant, else a Reshape node (none
    // where the shape is already `to` and no `output` name is asked for).
    std::string reshape(const std::string &value, const Shape &to, const std::string &base,
                        const std::string &output = "");
    // ReduceMean over `axes` keeping them as 1s (axes an attribute before opset 18, an
    // input from 18 on).
    std::string reduce_mean(const std::string &value, const std::vector<int64_t> &axes, const std::string &base,
                            const std::string &output = "");
    // A Transpose by `perm` (none for the identity).
    std::string transpose(const std::string &value, const std::vector<int64_t> &perm, const std::string &base,
                          const std::string &output = "");
    // A constant-mode Pad: `pads` holds every axis' befores, then its afters.
    std::string pad(const std::string &value, const std::vector<int64_t> &pads, float fill, const std::string &base);
    // A Slice of [start, start + length) along each axis, into `output` (default: a
    // value named after `base`).
    std::string slice(const std::string &value, const std::vector<int64_t> &start, const Shape &length,
                      const std::string &base, const std::string &output = "");

    // Replaces the graph's nodes with the ones added and kept.
    void finish() { g_.nodes = std::move(nodes_); }

    // A pass over every node in order: `rewrite` adds the node's replacement and
    // returns true, or returns false and the node is kept as it is. Finishes; returns
    // how many nodes were rewritten.
    int rewrite_nodes(const std::function<bool(const Node &)> &rewrite);

private:
    Graph &g_;
    std::vector<Node> nodes_;
};

} // namespace tessera::graph
