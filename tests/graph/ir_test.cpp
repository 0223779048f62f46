// The IR on its own: shapes and broadcasting, topological order, the printer.
#include "graph.h"
#include "graph_error.h"
#include "shape_inference.h"

#include <gtest/gtest.h>

#include <sstream>

namespace tessera::graph {
namespace {

TEST(GraphIr, BroadcastShapes) {
    EXPECT_EQ(broadcast_shapes({2, 1, 4}, {3, 1}), (Shape{2, 3, 4}));
    EXPECT_EQ(broadcast_shapes({}, {5}), (Shape{5}));
    EXPECT_FALSE(broadcast_shapes({2, 3}, {4}).has_value());
    // Offsets of a [3,1] tensor broadcast to [2,3]: each row repeats across columns.
    EXPECT_EQ(broadcast_offsets({3, 1}, {2, 3}), (std::vector<int64_t>{0, 0, 0, 1, 1, 1}));
    EXPECT_EQ(broadcast_offsets({3}, {2, 3}), (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
}

Graph chain_graph() {
    Graph g;
    g.opset = 13;
    g.inputs = {"x"};
    g.outputs = {"z"};
    TensorInfo x;
    x.name = "x";
    x.shape = {2, 3};
    x.shape_known = true;
    g.values["x"] = x;
    g.set_constant("c", TensorData::floats({3}, {1, 2, 3}));
    Node add{"Add", "add", {"x", "c"}, {"y"}, {}};
    Node relu{"Relu", "relu", {"y"}, {"z"}, {}};
    g.nodes = {relu, add}; // out of order on purpose
    return g;
}

TEST(GraphIr, TopologicalSort) {
    Graph g = chain_graph();
    EXPECT_FALSE(g.is_topologically_sorted());
    g.sort_topologically();
    EXPECT_TRUE(g.is_topologically_sorted());
    EXPECT_EQ(g.nodes[0].name, "add");
    EXPECT_EQ(g.producer("z"), 1);
    EXPECT_EQ(g.consumers("y"), (std::vector<int>{1}));
}

TEST(GraphIr, SortReportsUndefinedInputByNode) {
    Graph g = chain_graph();
    g.nodes[0].inputs[0] = "nowhere";
    try {
        g.sort_topologically();
        FAIL() << "expected GraphError";
    } catch (const GraphError &e) {
        EXPECT_NE(std::string(e.what()).find("node 'relu'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("'nowhere'"), std::string::npos) << e.what();
    }
}

TEST(GraphIr, PrinterShowsNodesAndTypes) {
    Graph g = chain_graph();
    g.sort_topologically();
    infer_shapes(g);
    std::ostringstream os;
    print_graph(g, os);
    std::string text = os.str();
    EXPECT_NE(text.find("opset 13"), std::string::npos) << text;
    EXPECT_NE(text.find("Add 'add' (x: f32[2x3], c: f32[3] const) -> y: f32[2x3]"), std::string::npos) << text;
    EXPECT_NE(text.find("1 constants (12 bytes)"), std::string::npos) << text;
    EXPECT_NE(text.find("output z: f32[2x3]"), std::string::npos) << text;
}

TEST(GraphIr, AttributeOfWrongKindNamesNode) {
    Node n{"Conv", "c1", {}, {}, {{"group", Attribute::make_float(2)}}};
    EXPECT_THROW(n.get_int("group", 1), GraphError);
    EXPECT_EQ(n.get_int("absent", 7), 7);
}

} // namespace
} // namespace tessera::graph
