// import_onnx on models built with the protobuf API: constants, shape inference, and
// the error messages a user sees.
#include "evaluate.h"
#include "graph_error.h"
#include "import_onnx.h"
#include "model_builder.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace tessera::graph {
namespace {

using testing::ModelBuilder;

Graph import_model(const ModelBuilder &b, const std::map<std::string, std::vector<int64_t>> &shapes = {}) {
    return import_onnx_bytes(b.bytes(), "model", shapes);
}

// The GraphError message of `fn`, or "" when it does not throw.
template <typename F> std::string error_of(F &&fn) {
    try {
        fn();
    } catch (const GraphError &e) {
        return e.what();
    }
    return "";
}

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << "in: " << (text)

ModelBuilder conv_bn_relu(int opset = 13) {
    ModelBuilder b(opset);
    b.input("x", {1, 3, 8, 8}).output("y");
    b.initializer("w", testing::random_floats({4, 3, 3, 3}, 1)).initializer("b", testing::random_floats({4}, 2));
    b.initializer("scale", testing::random_floats({4}, 3)).initializer("beta", testing::random_floats({4}, 4));
    b.initializer("mean", testing::random_floats({4}, 5)).initializer("var", testing::random_floats({4}, 6, 0.5f, 2));
    auto &conv = b.node("Conv", {"x", "w", "b"}, {"c"}, "conv1");
    testing::set_ints(conv, "pads", {1, 1, 1, 1});
    testing::set_ints(conv, "kernel_shape", {3, 3});
    b.node("BatchNormalization", {"c", "scale", "beta", "mean", "var"}, {"bn"}, "bn1");
    b.node("Relu", {"bn"}, {"y"}, "relu1");
    return b;
}

TEST(OnnxImport, ConvBnRelu) {
    ModelBuilder b = conv_bn_relu();
    b.input("w", {4, 3, 3, 3}); // older exporters list initializers among the inputs too
    Graph g = import_model(b);
    EXPECT_EQ(g.opset, 13);
    ASSERT_EQ(g.nodes.size(), 3u);
    EXPECT_EQ(g.inputs, std::vector<std::string>{"x"});
    EXPECT_TRUE(g.is_constant("w"));
    EXPECT_EQ(g.value("c").shape, (Shape{1, 4, 8, 8}));
    EXPECT_EQ(g.value("y").shape, (Shape{1, 4, 8, 8}));
    EXPECT_EQ(g.nodes[0].source_index, 0);
    std::ostringstream os;
    g.print(os);
    EXPECT_HAS(os.str(), "Conv 'conv1' (x: f32[1x3x8x8], w: f32[4x3x3x3] const, b: f32[4] const) -> c: f32[1x4x8x8]");
}

TEST(OnnxImport, MatMulAddSoftmax) {
    ModelBuilder b(13);
    b.input("x", {2, 5, 8}).output("y");
    b.initializer("w", testing::random_floats({8, 6}, 1)).initializer("bias", testing::random_floats({6}, 2));
    b.node("MatMul", {"x", "w"}, {"mm"});
    b.node("Add", {"mm", "bias"}, {"sum"});
    b.node("Softmax", {"sum"}, {"y"});
    Graph g = import_model(b);
    EXPECT_EQ(g.value("mm").shape, (Shape{2, 5, 6}));
    EXPECT_EQ(g.value("y").shape, (Shape{2, 5, 6}));
}

TEST(OnnxImport, ConstantNodesBecomeConstants) {
    ModelBuilder b(13);
    b.input("x", {2, 3}).output("y");
    auto &c = b.node("Constant", {}, {"k"});
    testing::set_tensor(c, "value", TensorData::floats({3}, {1, 2, 3}));
    b.node("Mul", {"x", "k"}, {"y"});
    Graph g = import_model(b);
    ASSERT_EQ(g.nodes.size(), 1u);
    ASSERT_TRUE(g.is_constant("k"));
    EXPECT_EQ(g.value("k").data->f, (std::vector<float>{1, 2, 3}));
    EXPECT_EQ(g.nodes[0].source_index, 1); // indices still count the Constant node
}

// One node on an input of `shape`; returns the output shape.
Shape shape_after(int opset, const std::vector<int64_t> &shape, const std::string &op,
                  const std::function<void(onnx::NodeProto &)> &attrs, const std::vector<std::string> &extra = {},
                  ModelBuilder *base = nullptr) {
    ModelBuilder b = base ? *base : ModelBuilder(opset);
    b.input("x", shape).output("y");
    std::vector<std::string> inputs{"x"};
    inputs.insert(inputs.end(), extra.begin(), extra.end());
    attrs(b.node(op, inputs, {"y"}, "n"));
    Graph g = import_model(b);
    EXPECT_TRUE(g.value("y").shape_known) << op;
    return g.value("y").shape;
}

TEST(OnnxImport, ShapeInferenceWindows) {
    using testing::set_ints;
    using testing::set_string;
    // SAME_UPPER with stride 2 on 7: ceil(7 / 2) = 4.
    ModelBuilder conv(13);
    conv.initializer("w", testing::random_floats({8, 2, 3, 3}, 1));
    EXPECT_EQ(shape_after(
                  13, {1, 4, 7, 7}, "Conv",
                  [](auto &n) {
                      set_string(n, "auto_pad", "SAME_UPPER");
                      set_ints(n, "strides", {2, 2});
                      testing::set_int(n, "group", 2);
                  },
                  {"w"}, &conv),
              (Shape{1, 8, 4, 4}));
    // Dilation 2 makes a 3-tap kernel span 5: (10 - 5) / 1 + 1 = 6.
    EXPECT_EQ(shape_after(
                  13, {1, 2, 10, 10}, "Conv",
                  [](auto &n) {
                      set_ints(n, "dilations", {2, 2});
                  },
                  {"w"}, &conv)
                  .size(),
              4u);
    // ceil_mode: (5 - 2) / 2 rounds up to 2, so 3 outputs (floor gives 2).
    EXPECT_EQ(shape_after(13, {1, 1, 5, 5}, "MaxPool",
                          [](auto &n) {
                              set_ints(n, "kernel_shape", {2, 2});
                              set_ints(n, "strides", {2, 2});
                              testing::set_int(n, "ceil_mode", 1);
                          }),
              (Shape{1, 1, 3, 3}));
    EXPECT_EQ(shape_after(13, {1, 1, 5, 5}, "AveragePool",
                          [](auto &n) {
                              set_ints(n, "kernel_shape", {2, 2});
                              set_ints(n, "strides", {2, 2});
                          }),
              (Shape{1, 1, 2, 2}));
    EXPECT_EQ(shape_after(13, {2, 3, 5, 7}, "GlobalAveragePool", [](auto &) {}), (Shape{2, 3, 1, 1}));
}

TEST(OnnxImport, ShapeInferenceLinearAndLayout) {
    using testing::set_int;
    using testing::set_ints;
    ModelBuilder gemm(13);
    gemm.initializer("b", testing::random_floats({6, 4}, 1)).initializer("c", testing::random_floats({6}, 2));
    EXPECT_EQ(shape_after(
                  13, {4, 3}, "Gemm",
                  [](auto &n) {
                      set_int(n, "transA", 1);
                      set_int(n, "transB", 1);
                  },
                  {"b", "c"}, &gemm),
              (Shape{3, 6}));
    ModelBuilder mm(13);
    mm.initializer("b", testing::random_floats({5, 4, 6}, 1));
    EXPECT_EQ(shape_after(
                  13, {2, 1, 3, 4}, "MatMul", [](auto &) {}, {"b"}, &mm),
              (Shape{2, 5, 3, 6}));
    ModelBuilder vec(13);
    vec.initializer("v", testing::random_floats({4}, 1));
    EXPECT_EQ(shape_after(
                  13, {3, 4}, "MatMul", [](auto &) {}, {"v"}, &vec),
              (Shape{3}));
    EXPECT_EQ(shape_after(13, {2, 3, 4}, "Transpose",
                          [](auto &n) {
                              set_ints(n, "perm", {2, 0, 1});
                          }),
              (Shape{4, 2, 3}));
    EXPECT_EQ(shape_after(13, {2, 3, 4, 5}, "Flatten", [](auto &n) { set_int(n, "axis", -2); }), (Shape{6, 20}));
    EXPECT_EQ(shape_after(13, {2, 3, 4}, "ReduceMean",
                          [](auto &n) {
                              set_ints(n, "axes", {-1, 0});
                              set_int(n, "keepdims", 0);
                          }),
              (Shape{3}));
}

TEST(OnnxImport, ShapeInferenceAcrossOpsets) {
    using testing::set_ints;
    // Unsqueeze: axes attribute before opset 13, input from 13 on.
    EXPECT_EQ(shape_after(11, {3, 4}, "Unsqueeze", [](auto &n) { set_ints(n, "axes", {0, -1}); }), (Shape{1, 3, 4, 1}));
    ModelBuilder axes(13);
    axes.initializer("axes", TensorData::ints({2}, {0, -1}));
    EXPECT_EQ(shape_after(
                  13, {3, 4}, "Unsqueeze", [](auto &) {}, {"axes"}, &axes),
              (Shape{1, 3, 4, 1}));
    // Squeeze without axes drops every unit axis.
    EXPECT_EQ(shape_after(11, {1, 3, 1, 4}, "Squeeze", [](auto &) {}), (Shape{3, 4}));
    // Slice with negative starts and a negative step: x[-1:-4:-2] on axis 1 -> 2 elements.
    ModelBuilder slice(13);
    slice.initializer("starts", TensorData::ints({1}, {-1})).initializer("ends", TensorData::ints({1}, {-4}));
    slice.initializer("axes", TensorData::ints({1}, {1})).initializer("steps", TensorData::ints({1}, {-2}));
    EXPECT_EQ(shape_after(
                  13, {3, 10}, "Slice", [](auto &) {}, {"starts", "ends", "axes", "steps"}, &slice),
              (Shape{3, 2}));
    // Concat and Gather.
    ModelBuilder concat(13);
    concat.initializer("other", testing::random_floats({2, 5}, 1));
    EXPECT_EQ(shape_after(
                  13, {2, 3}, "Concat", [](auto &n) { testing::set_int(n, "axis", -1); }, {"other"}, &concat),
              (Shape{2, 8}));
    ModelBuilder gather(13);
    gather.initializer("idx", TensorData::ints({2, 2}, {0, 1, 2, -1}));
    EXPECT_EQ(shape_after(
                  13, {4, 5}, "Gather", [](auto &n) { testing::set_int(n, "axis", 1); }, {"idx"}, &gather),
              (Shape{4, 2, 2}));
}

TEST(OnnxImport, SplitAttributeAndInput) {
    ModelBuilder b11(11);
    b11.input("x", {2, 6}).output("a").output("b");
    auto &split = b11.node("Split", {"x"}, {"a", "b"});
    testing::set_ints(split, "split", {2, 4});
    testing::set_int(split, "axis", 1);
    Graph g11 = import_model(b11);
    EXPECT_EQ(g11.value("a").shape, (Shape{2, 2}));
    EXPECT_EQ(g11.value("b").shape, (Shape{2, 4}));

    ModelBuilder b13(13);
    b13.input("x", {2, 6}).output("a").output("b").initializer("split", TensorData::ints({2}, {5, 1}));
    testing::set_int(b13.node("Split", {"x", "split"}, {"a", "b"}), "axis", -1);
    Graph g13 = import_model(b13);
    EXPECT_EQ(g13.value("b").shape, (Shape{2, 1}));
}

TEST(OnnxImport, SymbolicDimNeedsOverride) {
    ModelBuilder b = conv_bn_relu();
    auto *dim =
        b.model.mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(
            0);
    dim->set_dim_param("batch");
    std::string msg = error_of([&] { import_model(b); });
    EXPECT_HAS(msg, "input 'x' dim 0 ('batch')");
    EXPECT_HAS(msg, "--input-shape x=");
    Graph g = import_model(b, {{"x", {5, 3, 8, 8}}});
    EXPECT_EQ(g.value("y").shape, (Shape{5, 4, 8, 8}));
    // An override must agree with the model's fixed dims and name a real input.
    EXPECT_HAS(error_of([&] { import_model(b, {{"x", {5, 4, 8, 8}}}); }), "disagrees with dim 1");
    EXPECT_HAS(error_of([&] { import_model(b, {{"x", {5, 3, 8, 8}}, {"z", {1}}}); }), "'z', which is not an input");
}

TEST(OnnxImport, UnknownOpNamesNodeOpAndOpset) {
    ModelBuilder b(13);
    b.input("x", {2}).output("y");
    b.node("Relu", {"x"}, {"r"}, "first");
    b.node("FancyOp", {"r"}, {"y"}, "mystery");
    std::string msg = error_of([&] { import_model(b); });
    EXPECT_HAS(msg, "node 'mystery' (#1, FancyOp, opset 13)");
    EXPECT_HAS(msg, "op type 'FancyOp' is not supported (supported: Abs, Acos, Acosh, Add");
}

TEST(OnnxImport, UnsupportedAttributeValue) {
    ModelBuilder b = conv_bn_relu();
    testing::set_string(*b.model.mutable_graph()->mutable_node(0), "auto_pad", "SOMETIMES");
    std::string msg = error_of([&] { import_model(b); });
    EXPECT_HAS(msg, "node 'conv1' (#0, Conv, opset 13)");
    EXPECT_HAS(msg, "auto_pad 'SOMETIMES' is not supported (supported: NOTSET, VALID, SAME_UPPER, SAME_LOWER)");

    ModelBuilder bn = conv_bn_relu(15);
    testing::set_int(*bn.model.mutable_graph()->mutable_node(1), "training_mode", 1);
    EXPECT_HAS(error_of([&] { import_model(bn); }), "node 'bn1' (#1, BatchNormalization, opset 15): training_mode 1");

    ModelBuilder unknown_attr = conv_bn_relu();
    testing::set_int(*unknown_attr.model.mutable_graph()->mutable_node(2), "inplace", 1);
    EXPECT_HAS(error_of([&] { import_model(unknown_attr); }), "attribute 'inplace' is not supported");
}

TEST(OnnxImport, UnsupportedDtypes) {
    ModelBuilder input(13);
    input.input("x", {2}, /*DOUBLE*/ 11).output("y");
    input.node("Relu", {"x"}, {"y"});
    EXPECT_HAS(error_of([&] { import_model(input); }),
               "input 'x' has dtype DOUBLE, which is not supported (supported: FLOAT, INT64, INT32, BOOL)");

    ModelBuilder init = conv_bn_relu();
    init.model.mutable_graph()->mutable_initializer(0)->set_data_type(10); // FLOAT16
    EXPECT_HAS(error_of([&] { import_model(init); }), "initializer 'w' has dtype FLOAT16");

    ModelBuilder cast(13);
    cast.input("x", {2}).output("y");
    testing::set_int(cast.node("Cast", {"x"}, {"y"}, "to_double"), "to", 11);
    EXPECT_HAS(error_of([&] { import_model(cast); }), "node 'to_double' (#0, Cast, opset 13): cast to DOUBLE");
}

TEST(OnnxImport, DropoutIsTheIdentityAtInferenceOnly) {
    ModelBuilder ok(13);
    ok.input("x", {2, 3}).output("y").initializer("ratio", TensorData::floats({}, {0.3f}));
    ok.node("Dropout", {"x", "ratio"}, {"y"}, "drop");
    const Graph g = import_model(ok);
    EXPECT_EQ(g.value("y").shape, (Shape{2, 3}));
    ModelBuilder training(13);
    training.input("x", {2, 3}).output("y").initializer("on", TensorData::ints({}, {1}, DType::boolean));
    training.initializer("ratio", TensorData::floats({}, {0.3f}));
    training.node("Dropout", {"x", "ratio", "on"}, {"y"}, "drop");
    EXPECT_HAS(error_of([&] { import_model(training); }), "a training-mode Dropout is not supported");
    ModelBuilder nothing(13);  // training mode at ratio 0 drops nothing
    nothing.input("x", {2, 3}).output("y").initializer("on", TensorData::ints({}, {1}, DType::boolean));
    nothing.initializer("zero", TensorData::floats({}, {0.0f}));
    nothing.node("Dropout", {"x", "zero", "on"}, {"y"}, "drop");
    EXPECT_EQ(import_model(nothing).value("y").shape, (Shape{2, 3}));
    // The mask output at inference: all true, a boolean of x's shape.
    ModelBuilder mask(13);
    mask.input("x", {2, 3}).output("y").output("m", 9);
    mask.node("Dropout", {"x"}, {"y", "m"}, "drop");
    const Graph masked = import_model(mask);
    EXPECT_EQ(masked.value("m").shape, (Shape{2, 3}));
    EXPECT_EQ(masked.value("m").dtype, DType::boolean);
}

TEST(OnnxImport, UnsupportedOpsetsAndDomains) {
    ModelBuilder future(22);
    future.input("x", {2}).output("y").node("Relu", {"x"}, {"y"});
    EXPECT_HAS(error_of([&] { import_model(future); }),
               "model: opset 22 of the default ONNX domain is not supported (supported: 1-21)");
    // Opsets 7-10 import where an op's definition is the one compiled (the model
    // zoo's); Slice took its ranges as attributes before opset 10.
    EXPECT_EQ(import_model(conv_bn_relu(9)).opset, 9);
    ModelBuilder old_slice(9);
    old_slice.input("x", {4}).output("y");
    testing::set_ints(old_slice.node("Slice", {"x"}, {"y"}, "cut"), "starts", {1});
    EXPECT_HAS(error_of([&] { import_model(old_slice); }), "node 'cut' (#0, Slice, opset 9): attributes 'starts' and 'ends' are required");
    ModelBuilder new_slice(13);
    new_slice.input("x", {4}).output("y");
    testing::set_ints(new_slice.node("Slice", {"x"}, {"y"}, "cut"), "starts", {1});
    EXPECT_HAS(error_of([&] { import_model(new_slice); }), "from opset 10 on, starts, ends and axes are inputs");
    ModelBuilder ln(13);
    ln.input("x", {2, 4}).output("y").initializer("s", testing::random_floats({4}, 1));
    ln.node("LayerNormalization", {"x", "s"}, {"y"}, "ln");
    EXPECT_HAS(error_of([&] { import_model(ln); }), "LayerNormalization is supported from opset 17 on");
    ModelBuilder ms(13);
    ms.input("x", {2}).output("y");
    ms.node("Gelu", {"x"}, {"y"}, "g").set_domain("com.microsoft");
    EXPECT_HAS(error_of([&] { import_model(ms); }), "of domain 'com.microsoft' is not supported");
}

// Opsets 1-6 are read as opset 7 (graph/onnx/upgrade_legacy_opset.h), each legacy form
// checked against the evaluator's numbers.
TEST(OnnxImport, LegacyOpsetsAreUpgradedToOpset7) {
    Graph g = import_model(conv_bn_relu(6));
    EXPECT_EQ(g.opset, 7);
    EXPECT_EQ(g.model_opset, 6);

    // Add with broadcast=1, axis=1: B [3] lines up with A's axis 1, not its last.
    const TensorData a = testing::random_floats({2, 3, 4}, 1), b = testing::random_floats({3}, 2);
    ModelBuilder add(6);
    add.input("a", {2, 3, 4}).input("b", {3}).output("y");
    auto &n = add.node("Add", {"a", "b"}, {"y"}, "add");
    testing::set_int(n, "broadcast", 1);
    testing::set_int(n, "axis", 1);
    const TensorData y = evaluate(import_model(add), {{"a", a}, {"b", b}}).at("y");
    ASSERT_EQ(y.shape, (Shape{2, 3, 4}));
    for (int64_t i = 0; i < 24; i++) EXPECT_FLOAT_EQ(y.f[i], a.f[i] + b.f[(i / 4) % 3]) << i;

    // PRelu's [C] slope is per channel in opset 6.
    ModelBuilder prelu(6);
    prelu.input("x", {1, 2, 3}).output("y").initializer("s", TensorData::floats({2}, {0.5f, 0.25f}));
    prelu.node("PRelu", {"x", "s"}, {"y"}, "p");
    const TensorData x = TensorData::floats({1, 2, 3}, {-1, -1, -1, -4, -4, 4});
    EXPECT_EQ(evaluate(import_model(prelu), {{"x", x}}).at("y").f,
              (std::vector<float>{-0.5f, -0.5f, -0.5f, -1, -1, 4}));

    // Clip's bounds and Slice's ranges as attributes.
    ModelBuilder clip(6);
    clip.input("x", {4}).output("y");
    auto &c = clip.node("Clip", {"x"}, {"y"}, "clip");
    testing::set_float(c, "min", -0.5f);
    testing::set_float(c, "max", 0.5f);
    EXPECT_EQ(evaluate(import_model(clip), {{"x", TensorData::floats({4}, {-2, 0.25f, 1, -0.1f})}}).at("y").f,
              (std::vector<float>{-0.5f, 0.25f, 0.5f, -0.1f}));

    // A training-mode BatchNormalization has no opset-7 form.
    ModelBuilder training = conv_bn_relu(6);
    for (auto &node : *training.model.mutable_graph()->mutable_node())
        if (node.op_type() == "BatchNormalization") testing::set_int(node, "is_test", 0);
    EXPECT_HAS(error_of([&] { import_model(training); }), "is_test 0 (training mode) is not supported");
}

TEST(OnnxImport, BadFiles) {
    std::string missing = testing::temp_path("no_such_model.onnx");
    EXPECT_HAS(error_of([&] { import_onnx(missing); }), missing + ": cannot open");

    std::string good = conv_bn_relu().bytes();
    std::string truncated = testing::temp_path("truncated.onnx");
    std::ofstream(truncated, std::ios::binary) << good.substr(0, good.size() / 2);
    EXPECT_EQ(error_of([&] { import_onnx(truncated); }), truncated + ": not an ONNX model (protobuf parse failed)");

    std::string text = testing::temp_path("not_a_model.onnx");
    std::ofstream(text) << "graph(x) { y = relu(x) }\n";
    EXPECT_HAS(error_of([&] { import_onnx(text); }), text + ": not an ONNX model");

    std::string empty = testing::temp_path("empty.onnx");
    std::ofstream(empty).flush();
    EXPECT_HAS(error_of([&] { import_onnx(empty); }), empty + ": not an ONNX model");

    // The same model from a file imports.
    std::string path = conv_bn_relu().save("conv_bn_relu.onnx");
    EXPECT_EQ(import_onnx(path).nodes.size(), 3u);
}

} // namespace
} // namespace tessera::graph
