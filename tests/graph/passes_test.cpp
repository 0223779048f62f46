// fold_constants, remove_dead, fold_batch_norm, uniform_windows and expand_definitions on
// imported models; rewrites are checked numerically with the reference evaluator.
#include "assign_layouts.h"
#include "evaluate.h"
#include "expand_definitions.h"
#include "fold_batch_norm.h"
#include "fold_constants.h"
#include "import_onnx.h"
#include "model_builder.h"
#include "pack_weights.h"
#include "remove_dead.h"
#include "uniform_windows.h"
#include "windows_3d_as_2d.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
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

// One Conv, MaxPool or AveragePool over x: its geometry, and what a pass should report.
struct WindowCase {
    const char *what;
    Shape x;
    std::string op;
    std::vector<int64_t> kernel, pads, strides, dilations;
    int64_t count_include_pad = 0, group = 1, ceil_mode = 0;
    int lifted = 0, padded = 0;  // uniform_windows' counts
};

// The case's node as a model (a Conv with 6 output channels, weights and a bias).
ModelBuilder window_model(const WindowCase &c) {
    ModelBuilder b(13);
    b.input("x", c.x).output("y");
    std::vector<std::string> inputs = {"x"};
    if (c.op == "Conv") {
        Shape w = {6, c.x[1] / c.group};
        w.insert(w.end(), c.kernel.begin(), c.kernel.end());
        b.initializer("w", testing::random_floats(w, 3)).initializer("bias", testing::random_floats({6}, 4));
        inputs = {"x", "w", "bias"};
    }
    auto &n = b.node(c.op, inputs, {"y"}, "window");
    if (c.op != "Conv") testing::set_ints(n, "kernel_shape", c.kernel);
    if (c.op == "Conv") testing::set_int(n, "group", c.group);
    testing::set_ints(n, "pads", c.pads);
    testing::set_ints(n, "strides", c.strides);
    if (c.op != "AveragePool") testing::set_ints(n, "dilations", c.dilations);
    if (c.op == "AveragePool") testing::set_int(n, "count_include_pad", c.count_include_pad);
    if (c.op != "Conv" && c.ceil_mode) testing::set_int(n, "ceil_mode", c.ceil_mode);
    return b;
}

// Runs `pass` on the case's model and checks the graph computes what it did (the
// evaluator on both), every window left 2-D (4-D input); returns the rewritten graph.
Graph expect_window_rewrite_preserves(const WindowCase &c, const std::function<void(Graph &)> &pass, double tolerance) {
    Graph g = import_onnx_bytes(window_model(c).bytes(), c.what);
    const TensorMap in{{"x", testing::random_floats(c.x, 7, -2, 2)}};
    const TensorData before = evaluate(g, in).at("y");
    pass(g);
    EXPECT_TRUE(g.is_topologically_sorted()) << c.what;
    for (const Node &node : g.nodes) {
        if (node.op_type == c.op) EXPECT_EQ(g.value(node.inputs[0]).shape.size(), 4u) << c.what << "\n" << listing(g);
    }
    const TensorData after = evaluate(g, in).at("y");
    EXPECT_EQ(after.shape, before.shape) << c.what;
    if (after.shape == before.shape)
        EXPECT_LE(testing::relative_error(after, before), tolerance) << c.what << "\n" << listing(g);
    return g;
}

// 1-D windows become 2-D, uneven pads a Pad node, unit axes take the other's stride;
// every rewrite computes what the original computed (the evaluator on both graphs).
TEST(GraphPasses, UniformWindowsPreserveResults) {
    const std::vector<WindowCase> cases = {
        {"1-D conv, uneven pads, stride 2, dilation 2", {2, 4, 11}, "Conv", {3}, {2, 1}, {2}, {2}, 0, 1, 0, 1, 1},
        {"1-D conv, unpadded", {1, 3, 7}, "Conv", {2}, {0, 0}, {1}, {1}, 0, 1, 0, 1, 0},
        {"1-D max pool, padded", {2, 3, 9}, "MaxPool", {3}, {1, 1}, {2}, {1}, 0, 1, 0, 1, 1},
        {"1-D average pool, padding counted", {2, 3, 9}, "AveragePool", {3}, {1, 1}, {2}, {1}, 1, 1, 0, 1, 1},
        {"1-D average pool, padding excluded (rescaled)", {2, 3, 9}, "AveragePool", {3}, {1, 1}, {2}, {1}, 0, 1, 0, 1, 1},
        {"2-D average pool, uneven pads excluded (rescaled)", {1, 2, 7, 8}, "AveragePool", {3, 2}, {0, 1, 2, 0}, {2, 2}, {1, 1}, 0, 1, 0, 0, 1},
        {"2-D conv, SAME_UPPER-like pads", {1, 3, 8, 8}, "Conv", {2, 2}, {0, 0, 1, 1}, {1, 1}, {1, 1}, 0, 1, 0, 0, 1},
        {"2-D max pool over a unit axis, strides differ", {1, 2, 1, 9}, "MaxPool", {1, 3}, {0, 0, 0, 0}, {1, 2}, {1, 1}, 0, 1, 0, 0, 0},
        {"2-D conv, strides 2 x 1", {1, 3, 9, 8}, "Conv", {3, 3}, {1, 1, 1, 1}, {2, 1}, {1, 1}, 0, 1, 0, 0, 0},
        {"2-D conv, strides 2 x 4 (gcd 2)", {1, 3, 9, 13}, "Conv", {3, 2}, {1, 1, 1, 1}, {2, 4}, {1, 1}, 0, 1, 0, 0, 0},
        {"2-D max pool, strides 3 x 2, pads uneven", {1, 2, 11, 9}, "MaxPool", {3, 2}, {1, 0, 1, 0}, {3, 2}, {1, 1}, 0, 1, 0, 0, 1},
        {"2-D average pool, strides 1 x 2, padding excluded", {1, 2, 7, 8}, "AveragePool", {3, 3}, {1, 1, 1, 1}, {1, 2}, {1, 1}, 0, 1, 0, 0, 0},
    };
    for (const WindowCase &c : cases) {
        UniformWindowCounts counts;
        const Graph g = expect_window_rewrite_preserves(c, [&](Graph &graph) { counts = uniform_windows(graph); }, 1e-6);
        EXPECT_EQ(counts.lifted_1d, c.lifted) << c.what;
        EXPECT_EQ(counts.padded, c.padded) << c.what;
        for (const Node &node : g.nodes) {
            if (node.op_type != c.op) continue;
            const std::vector<int64_t> s = node.get_ints("strides", {1, 1});
            EXPECT_EQ(s[0], s[1]) << c.what << "\n" << listing(g);
        }
    }
}

TEST(GraphPasses, Windows3dAs2dPreserveResults) {
    const std::vector<WindowCase> cases = {
        {"conv, padded, strided, dilated", {2, 4, 7, 6, 5}, "Conv", {3, 2, 3}, {1, 0, 1, 2, 1, 1}, {2, 1, 2}, {2, 1, 1}},
        {"conv, grouped, depth stride 3", {1, 4, 8, 5, 5}, "Conv", {2, 3, 3}, {0, 1, 1, 1, 1, 1}, {3, 1, 1}, {1, 1, 1}, 0, 2},
        {"conv, one depth tap", {1, 3, 4, 6, 6}, "Conv", {1, 3, 3}, {0, 1, 1, 0, 1, 1}, {1, 1, 1}, {1, 1, 1}},
        {"max pool, padded, strided", {2, 3, 7, 7, 6}, "MaxPool", {3, 3, 2}, {1, 1, 0, 1, 1, 0}, {2, 2, 2}, {1, 1, 1}},
        {"max pool, ceil mode", {1, 2, 6, 7, 7}, "MaxPool", {2, 3, 3}, {0, 0, 0, 0, 0, 0}, {2, 2, 2}, {1, 1, 1}, 0, 1, 1},
        {"average pool, padding counted", {2, 3, 5, 6, 6}, "AveragePool", {3, 3, 3}, {1, 1, 1, 1, 1, 1}, {2, 2, 2}, {1, 1, 1}, 1},
        {"average pool, padding excluded", {2, 3, 5, 6, 6}, "AveragePool", {3, 3, 3}, {1, 1, 1, 1, 1, 1}, {1, 2, 2}, {1, 1, 1}},
    };
    for (const WindowCase &c : cases) {
        int rewritten = 0;
        expect_window_rewrite_preserves(c, [&](Graph &graph) { rewritten = windows_3d_as_2d(graph); }, 1e-5);
        EXPECT_EQ(rewritten, 1) << c.what;
    }
}

// Each rewritten model computes what it did before (every output), with none of the
// expanded ops left.
TEST(GraphPasses, ExpandDefinitionsPreserveResults) {
    struct Case {
        const char *what;
        ModelBuilder model;
        std::string op;  // the op type that must be gone (empty: kept as one output)
        int expanded;
    };
    std::vector<Case> cases;
    {
        ModelBuilder b(17);
        b.input("x", {2, 3, 4}).input("scale", {3, 4}).input("bias", {4}).output("y").output("mean").output("inv");
        auto &ln = b.node("LayerNormalization", {"x", "scale", "bias"}, {"y", "mean", "inv"});
        testing::set_int(ln, "axis", 1);
        testing::set_float(ln, "epsilon", 1e-3f);
        cases.push_back({"LayerNormalization with its statistics", b, "LayerNormalization", 1});
    }
    {
        ModelBuilder b(17);
        b.input("x", {2, 3, 4}).input("scale", {4}).output("y").output("inv");
        b.node("LayerNormalization", {"x", "scale"}, {"y", "", "inv"});
        cases.push_back({"LayerNormalization with InvStdDev only, no bias", b, "LayerNormalization", 1});
    }
    {
        ModelBuilder b(17);
        b.input("x", {2, 3, 4}).input("scale", {4}).output("y");
        b.node("LayerNormalization", {"x", "scale"}, {"y", "unread_mean", "unread_inv"});
        cases.push_back({"LayerNormalization whose statistics nobody reads", b, "", 1});
    }
    {
        ModelBuilder b(13);
        b.input("x", {3, 5}).input("lo", {}).input("hi", {}).output("y");
        b.node("Clip", {"x", "lo", "hi"}, {"y"});
        cases.push_back({"Clip with run-time bounds", b, "Clip", 1});
    }
    {
        ModelBuilder b(13);
        b.input("x", {3, 5}).input("hi", {}).output("y");
        b.node("Clip", {"x", "", "hi"}, {"y"});
        cases.push_back({"Clip with a run-time upper bound only", b, "Clip", 1});
    }
    for (const char *mode : {"DCR", "CRD"}) {
        ModelBuilder b(13);
        b.input("x", {2, 8, 3, 5}).output("y");
        auto &n = b.node("DepthToSpace", {"x"}, {"y"});
        testing::set_int(n, "blocksize", 2);
        testing::set_string(n, "mode", mode);
        cases.push_back({mode, b, "DepthToSpace", 1});
    }
    {
        ModelBuilder b(13);
        b.input("x", {2, 3, 6, 9}).output("y");
        testing::set_int(b.node("SpaceToDepth", {"x"}, {"y"}), "blocksize", 3);
        cases.push_back({"SpaceToDepth", b, "SpaceToDepth", 1});
    }
    {
        ModelBuilder b(13);
        b.input("x", {2, 3}).output("y").output("mask");
        b.node("Dropout", {"x"}, {"y", "mask"});
        cases.push_back({"Dropout with its mask read", b, "", 1});
    }
    for (int64_t size : {3, 4}) {
        ModelBuilder b(13);
        b.input("x", {2, 7, 3, 4}).output("y");
        auto &n = b.node("LRN", {"x"}, {"y"});
        testing::set_int(n, "size", size);
        testing::set_float(n, "alpha", 0.02f);
        testing::set_float(n, "beta", 0.6f);
        testing::set_float(n, "bias", 1.5f);
        cases.push_back({size == 3 ? "LRN, odd window" : "LRN, even window", b, "LRN", 1});
    }
    {
        ModelBuilder b(13);
        b.input("x", {2, 3, 4, 5}).output("y");
        testing::set_ints(b.node("MeanVarianceNormalization", {"x"}, {"y"}), "axes", {0, -1});
        cases.push_back({"MeanVarianceNormalization", b, "MeanVarianceNormalization", 1});
    }
    for (const Case &c : cases) {
        Graph g = import_onnx_bytes(c.model.bytes(), c.what);
        TensorMap in;
        for (const std::string &name : g.inputs) {
            in[name] = testing::random_floats(g.value(name).shape, 11, -2, 2);
        }
        if (in.count("lo")) in["lo"] = TensorData::floats({}, {-0.5f});
        if (in.count("hi")) in["hi"] = TensorData::floats({}, {0.75f});
        const TensorMap before = evaluate(g, in);
        EXPECT_EQ(expand_definitions(g), c.expanded) << c.what;
        EXPECT_TRUE(g.is_topologically_sorted()) << c.what;
        for (const Node &node : g.nodes) {
            EXPECT_NE(node.op_type, c.op) << c.what << "\n" << listing(g);
            EXPECT_EQ(node.outputs.size(), 1u) << c.what << "\n" << listing(g);
        }
        const TensorMap after = evaluate(g, in);
        for (const std::string &out : g.outputs) {
            ASSERT_EQ(after.at(out).shape, before.at(out).shape) << c.what << ": " << out;
            EXPECT_LE(testing::relative_error(after.at(out), before.at(out)), 1e-6) << c.what << ": " << out;
        }
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

// pack_weights: each element lands in its panel, lane and row; the last panel's
// missing lanes are zero; grouped convolutions and non-constant weights stay; the
// default policy takes the products with one row of A and the Gemms with transB.
TEST(GraphPasses, PackWeightsLaysOutPanels) {
    ModelBuilder b(13);
    b.input("x", {1, 3, 5, 5}).input("v", {1, 4}).input("rows", {2, 4}).input("dyn", {4, 6});
    b.output("c").output("g").output("grouped").output("m").output("dm").output("gt");
    b.initializer("w", testing::random_floats({20, 3, 2, 2}, 1));
    b.initializer("wg", testing::random_floats({3, 1, 1, 1}, 2));
    b.initializer("bt", testing::random_floats({70, 4}, 3));  // Gemm transB: [N,K]
    b.initializer("bm", testing::random_floats({4, 6}, 4));
    testing::set_ints(b.node("Conv", {"x", "w"}, {"c"}, "conv"), "kernel_shape", {2, 2});
    testing::set_int(b.node("Gemm", {"v", "bt"}, {"g"}, "gemv"), "transB", 1);
    auto &grouped = b.node("Conv", {"x", "wg"}, {"grouped"}, "grouped");
    testing::set_int(grouped, "group", 3);
    b.node("MatMul", {"rows", "bm"}, {"m"}, "two_rows");
    b.node("MatMul", {"rows", "dyn"}, {"dm"}, "dynamic_b");
    b.initializer("bt2", testing::random_floats({8, 4}, 5));  // two rows of A, transB
    testing::set_int(b.node("Gemm", {"rows", "bt2"}, {"gt"}, "rows_transposed"), "transB", 1);
    const Graph original = import_onnx_bytes(b.bytes(), "packing");

    Graph g = original;
    EXPECT_EQ(pack_weights(g), 4);  // conv, gemv, two_rows, rows_transposed
    auto node = [&](const std::string &name) -> const Node & {
        for (const Node &n : g.nodes)
            if (n.name == name) return n;
        throw std::runtime_error(name);
    };
    EXPECT_EQ(packed_block(node("grouped")), 0);
    EXPECT_EQ(packed_block(node("dynamic_b")), 0);

    const TensorData &w = *original.value("w").data, &cw = *g.value(node("conv").inputs[1]).data;
    EXPECT_EQ(packed_block(node("conv")), 16);
    ASSERT_EQ(cw.shape, (Shape{2, 3, 2, 2, 16}));
    for (int64_t o = 0; o < 32; o++)
        for (int64_t i = 0; i < 12; i++)
            EXPECT_EQ(cw.f[size_t(((o / 16) * 12 + i) * 16 + o % 16)], o < 20 ? w.f[size_t(o * 12 + i)] : 0.0f);

    const TensorData &bt = *original.value("bt").data, &gw = *g.value(node("gemv").inputs[1]).data;
    EXPECT_EQ(packed_block(node("gemv")), 64);
    ASSERT_EQ(gw.shape, (Shape{2, 4, 64}));
    for (int64_t j = 0; j < 128; j++)
        for (int64_t k = 0; k < 4; k++)
            EXPECT_EQ(gw.f[size_t(((j / 64) * 4 + k) * 64 + j % 64)], j < 70 ? bt.f[size_t(j * 4 + k)] : 0.0f);

    const TensorData &bm = *original.value("bm").data, &mw = *g.value(node("two_rows").inputs[1]).data;
    ASSERT_EQ(mw.shape, (Shape{1, 4, 64}));
    for (int64_t k = 0; k < 4; k++)
        for (int64_t j = 0; j < 6; j++)
            EXPECT_EQ(mw.f[size_t(k * 64 + j)], bm.f[size_t(k * 6 + j)]);

    Graph defaults = original;
    EXPECT_EQ(pack_weights(defaults, default_packing()), 2);  // the gemv and the transB Gemm of two rows
    for (const Node &n : defaults.nodes) {
        EXPECT_EQ(packed_block(n) > 0, n.name == "gemv" || n.name == "rows_transposed") << n.name;
    }
}

// default_packing (--layout auto) also packs the 1x1 convolutions whose output
// channels 32-wide panels divide: on planes of at most kPackedPointwisePoints with
// blocked sums (other channel counts there in panels of kPackedPartialPanelBlock, the
// last partly zero), on larger ones up to kPackedPlanarPoints with planar sums (64 input
// channels or more); and windowed ones on planes of at most kPackedWindowPoints (a
// 3x3 at 7x7, another at stride 2 onto 7x7) whose output channels 32 divides; other
// channel counts on larger planes or with windows, larger planes and NHWC
// convolutions keep their weights.
TEST(GraphPasses, DefaultPackingTakesPointwiseConvolutionsOnSmallPlanes) {
    ModelBuilder b(17);
    b.input("x", {1, 8, 14, 14}).input("mid", {1, 64, 15, 15}).input("big", {1, 8, 57, 57});
    b.output("wide").output("narrow").output("planar").output("few").output("large").output("window");
    b.initializer("w64", testing::random_floats({64, 8, 1, 1}, 1));
    b.initializer("w24", testing::random_floats({24, 8, 1, 1}, 2));
    b.initializer("w3", testing::random_floats({16, 8, 3, 3}, 3));
    testing::set_ints(b.node("Conv", {"x", "w64"}, {"wide"}, "wide"), "kernel_shape", {1, 1});
    testing::set_ints(b.node("Conv", {"x", "w24"}, {"narrow"}, "narrow"), "kernel_shape", {1, 1});
    b.initializer("w64x64", testing::random_floats({64, 64, 1, 1}, 4));
    b.initializer("w8x32", testing::random_floats({32, 8, 1, 1}, 5));
    testing::set_ints(b.node("Conv", {"mid", "w64x64"}, {"planar"}, "planar"), "kernel_shape", {1, 1});
    b.input("mid8", {1, 8, 15, 15});
    testing::set_ints(b.node("Conv", {"mid8", "w8x32"}, {"few"}, "few"), "kernel_shape", {1, 1});
    testing::set_ints(b.node("Conv", {"big", "w64"}, {"large"}, "large"), "kernel_shape", {1, 1});
    testing::set_ints(b.node("Conv", {"x", "w3"}, {"window"}, "window"), "kernel_shape", {3, 3});
    // Windows on a 7x7 output plane: 64 output channels (packed), 48 (not), and a
    // stride-2 one from 14x14 (packed); 64 channels at 14x14 (not).
    b.input("small", {1, 8, 7, 7});
    b.output("small3").output("odd3").output("strided3").output("wide3");
    b.initializer("w3x64", testing::random_floats({64, 8, 3, 3}, 6));
    b.initializer("w3x48", testing::random_floats({48, 8, 3, 3}, 7));
    auto &small3 = b.node("Conv", {"small", "w3x64"}, {"small3"}, "small3");
    testing::set_ints(small3, "kernel_shape", {3, 3});
    testing::set_ints(small3, "pads", {1, 1, 1, 1});
    auto &odd3 = b.node("Conv", {"small", "w3x48"}, {"odd3"}, "odd3");
    testing::set_ints(odd3, "kernel_shape", {3, 3});
    testing::set_ints(odd3, "pads", {1, 1, 1, 1});
    auto &strided3 = b.node("Conv", {"x", "w3x64"}, {"strided3"}, "strided3");
    testing::set_ints(strided3, "kernel_shape", {3, 3});
    testing::set_ints(strided3, "pads", {1, 1, 1, 1});
    testing::set_ints(strided3, "strides", {2, 2});
    auto &wide3 = b.node("Conv", {"x", "w3x64"}, {"wide3"}, "wide3");
    testing::set_ints(wide3, "kernel_shape", {3, 3});
    testing::set_ints(wide3, "pads", {1, 1, 1, 1});
    const Graph original = import_onnx_bytes(b.bytes(), "pointwise");
    ASSERT_EQ(7 * 7, kPackedWindowPoints);
    ASSERT_EQ(14 * 14, kPackedPointwisePoints);  // x's plane is the largest with blocked sums
    ASSERT_LT(kPackedPlanarPoints, 57 * 57);     // big's is past the planar ones

    Graph g = original;
    EXPECT_EQ(pack_weights(g, default_packing()), 5);
    std::map<std::string, int64_t> blocks, planar;
    for (const Node &n : g.nodes) {
        blocks[n.name] = packed_block(n);
        planar[n.name] = n.get_int(kPackedPlanarAttr, 0);
    }
    EXPECT_EQ(blocks, (std::map<std::string, int64_t>{{"wide", 32},
                                                      {"narrow", kPackedPartialPanelBlock},
                                                      {"planar", 32},
                                                      {"few", 0},
                                                      {"large", 0},
                                                      {"window", 0},
                                                      {"small3", 32},
                                                      {"odd3", 0},
                                                      {"strided3", 32},
                                                      {"wide3", 0}}));
    for (const auto &[name, p] : planar) EXPECT_EQ(p, name == "planar" ? 1 : 0) << name;
    for (const Node &n : g.nodes) {
        if (n.name == "wide") EXPECT_EQ(g.value(n.inputs[1]).shape, (Shape{2, 8, 1, 1, 32}));
        if (n.name == "narrow") EXPECT_EQ(g.value(n.inputs[1]).shape, (Shape{2, 8, 1, 1, 16}));  // 24 of 32 lanes
        if (n.name == "small3") EXPECT_EQ(g.value(n.inputs[1]).shape, (Shape{2, 8, 3, 3, 32}));
    }

    Graph nhwc = original;
    for (Node &n : nhwc.nodes) n.attrs[kLayoutNhwcAttr] = Attribute::make_int(1);
    EXPECT_EQ(pack_weights(nhwc, default_packing()), 0);
}

} // namespace
} // namespace tessera::graph
