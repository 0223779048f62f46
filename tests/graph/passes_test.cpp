// fold_constants, remove_dead and fold_batch_norm on imported models; BN folding is
// checked numerically with the reference evaluator.
#include "evaluate.h"
#include "fold_batch_norm.h"
#include "fold_constants.h"
#include "import_onnx.h"
#include "model_builder.h"
#include "remove_dead.h"

#include <gtest/gtest.h>

#include <sstream>

namespace tessera::graph {
namespace {

using testing::ModelBuilder;

std::string listing(const Graph &g) {
    std::ostringstream os;
    g.print(os);
    return os.str();
}

// PyTorch's reshape idiom: y = x.reshape(x.shape[0], -1) as Shape -> Gather ->
// Unsqueeze -> Concat -> Reshape.
ModelBuilder reshape_chain() {
    ModelBuilder b(13);
    b.input("x", {2, 3, 4}).output("y");
    b.initializer("zero", TensorData::ints({}, {0}));
    b.initializer("axes0", TensorData::ints({1}, {0}));
    b.initializer("minus_one", TensorData::ints({1}, {-1}));
    b.node("Shape", {"x"}, {"shape"});
    testing::set_int(b.node("Gather", {"shape", "zero"}, {"batch"}), "axis", 0);
    b.node("Unsqueeze", {"batch", "axes0"}, {"batch1"});
    testing::set_int(b.node("Concat", {"batch1", "minus_one"}, {"target"}), "axis", 0);
    b.node("Reshape", {"x", "target"}, {"flat"}, "reshape");
    b.node("Relu", {"flat"}, {"y"});
    return b;
}

TEST(GraphPasses, FoldConstantsResolvesReshapeShapeChain) {
    Graph g = import_onnx_bytes(reshape_chain().bytes(), "chain");
    EXPECT_FALSE(g.value("flat").shape_known) << listing(g);
    EXPECT_FALSE(g.value("y").shape_known);
    EXPECT_NE(listing(g).find("-> flat: f32[?]"), std::string::npos) << listing(g);

    EXPECT_EQ(fold_constants(g), 4);
    ASSERT_TRUE(g.is_constant("target"));
    EXPECT_EQ(g.value("target").data->i, (std::vector<int64_t>{2, -1}));
    EXPECT_EQ(g.value("flat").shape, (Shape{2, 12})) << listing(g);
    EXPECT_EQ(g.value("y").shape, (Shape{2, 12}));
    ASSERT_EQ(g.nodes.size(), 2u);
    EXPECT_EQ(g.nodes[0].op_type, "Reshape");

    // The chain's inputs (zero, axes0, minus_one, shape, ...) are now dead.
    EXPECT_EQ(remove_dead(g), 0);
    EXPECT_FALSE(g.has_value("zero"));
    EXPECT_FALSE(g.has_value("batch1"));
    EXPECT_TRUE(g.has_value("target"));

    TensorData x = testing::random_floats({2, 3, 4}, 7);
    TensorData y = evaluate(g, {{"x", x}}).at("y");
    ASSERT_EQ(y.shape, (Shape{2, 12}));
    for (size_t k = 0; k < x.size(); k++)
        EXPECT_EQ(y.f[k], std::max(0.0f, x.f[k]));
}

TEST(GraphPasses, RemoveDeadDropsUnusedBranchesAndConstants) {
    ModelBuilder b(13);
    b.input("x", {4}).output("y");
    b.initializer("unused_weight", testing::random_floats({16}, 1));
    b.initializer("k", testing::random_floats({4}, 2));
    b.node("Sigmoid", {"x"}, {"dead1"});
    b.node("Mul", {"dead1", "k"}, {"dead2"});
    b.node("Relu", {"x"}, {"y"});
    Graph g = import_onnx_bytes(b.bytes(), "dead");
    EXPECT_EQ(remove_dead(g), 2);
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].op_type, "Relu");
    EXPECT_FALSE(g.has_value("unused_weight"));
    EXPECT_FALSE(g.has_value("k"));
    EXPECT_FALSE(g.has_value("dead2"));
    EXPECT_TRUE(g.has_value("x"));
    EXPECT_EQ(remove_dead(g), 0);
}

ModelBuilder conv_bn(bool conv_bias, bool extra_consumer) {
    ModelBuilder b(15);
    b.input("x", {2, 4, 9, 9}).output("y");
    b.initializer("w", testing::random_floats({6, 2, 3, 3}, 11));
    if (conv_bias) b.initializer("b", testing::random_floats({6}, 12));
    b.initializer("scale", testing::random_floats({6}, 13, 0.5f, 1.5f));
    b.initializer("beta", testing::random_floats({6}, 14));
    b.initializer("mean", testing::random_floats({6}, 15));
    b.initializer("var", testing::random_floats({6}, 16, 0.1f, 2.0f));
    std::vector<std::string> conv_in{"x", "w"};
    if (conv_bias) conv_in.push_back("b");
    auto &conv = b.node("Conv", conv_in, {"c"}, "conv");
    testing::set_int(conv, "group", 2);
    testing::set_ints(conv, "strides", {2, 2});
    testing::set_ints(conv, "pads", {1, 0, 1, 2});
    testing::set_float(b.node("BatchNormalization", {"c", "scale", "beta", "mean", "var"}, {"bn"}, "bn"), "epsilon",
                       1e-3f);
    if (extra_consumer) {
        b.node("Add", {"bn", "c"}, {"y"});
    } else {
        b.node("Relu", {"bn"}, {"y"});
    }
    return b;
}

TEST(GraphPasses, FoldBatchNormPreservesResults) {
    for (bool conv_bias : {true, false}) {
        Graph g = import_onnx_bytes(conv_bn(conv_bias, false).bytes(), "conv_bn");
        TensorMap inputs{{"x", testing::random_floats({2, 4, 9, 9}, 21)}};
        TensorData before = evaluate(g, inputs).at("y");
        EXPECT_EQ(fold_batch_norm(g), 1);
        remove_dead(g);
        ASSERT_EQ(g.nodes.size(), 2u) << listing(g);
        EXPECT_EQ(g.nodes[0].op_type, "Conv");
        EXPECT_EQ(g.nodes[0].outputs[0], "bn");
        EXPECT_FALSE(g.has_value("scale"));
        EXPECT_TRUE(g.is_topologically_sorted());
        TensorData after = evaluate(g, inputs).at("y");
        EXPECT_LE(testing::relative_error(after, before), 1e-5) << "conv bias " << conv_bias;
    }
}

TEST(GraphPasses, FoldBatchNormKeepsBnWhenConvOutputIsShared) {
    Graph g = import_onnx_bytes(conv_bn(true, true).bytes(), "shared");
    EXPECT_EQ(fold_batch_norm(g), 0);
    EXPECT_EQ(g.nodes.size(), 3u);

    // Runtime weights cannot be folded either.
    ModelBuilder b = conv_bn(true, false);
    auto *graph = b.model.mutable_graph();
    graph->mutable_initializer()->erase(graph->mutable_initializer()->begin()); // w becomes an input
    auto *w = graph->add_input();
    w->set_name("w");
    w->mutable_type()->mutable_tensor_type()->set_elem_type(1);
    for (int64_t d : {6, 2, 3, 3})
        w->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
    Graph runtime = import_onnx_bytes(b.bytes(), "runtime weights");
    EXPECT_EQ(fold_batch_norm(runtime), 0);
}

} // namespace
} // namespace tessera::graph
