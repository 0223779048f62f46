// The reference evaluator on hand-checked cases, and .npy I/O.
#include "evaluate.h"
#include "graph_error.h"
#include "import_onnx.h"
#include "model_builder.h"
#include "npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

namespace tessera::graph {
namespace {

using testing::ModelBuilder;

TensorData run_single(const ModelBuilder &b, const TensorData &x) {
    return evaluate(import_onnx_bytes(b.bytes(), "model"), {{"x", x}}).at("y");
}

// Before opset 13 Softmax normalises over everything from `axis` on (coerced to 2-D);
// from 13 on over `axis` alone.
TEST(GraphEvaluate, SoftmaxBeforeAndFromOpset13) {
    TensorData x = testing::random_floats({2, 3, 4}, 3);
    for (int opset : {11, 13}) {
        ModelBuilder b(opset);
        b.input("x", {2, 3, 4}).output("y");
        testing::set_int(b.node("Softmax", {"x"}, {"y"}), "axis", 1);
        TensorData y = run_single(b, x);
        double sum_axis = 0, sum_tail = 0;
        for (int c = 0; c < 3; c++)
            sum_axis += y.f[c * 4]; // [0, :, 0]
        for (int k = 0; k < 12; k++)
            sum_tail += y.f[k]; // [0, :, :]
        if (opset == 11) {
            EXPECT_NEAR(sum_tail, 1.0, 1e-6);
        } else {
            EXPECT_NEAR(sum_axis, 1.0, 1e-6);
            EXPECT_NEAR(sum_tail, 4.0, 1e-5);
        }
    }
}

TEST(GraphEvaluate, MatMulAddSoftmaxMatchesHandComputation) {
    ModelBuilder b(13);
    b.input("x", {1, 2, 3}).output("y");
    TensorData w = TensorData::floats({3, 2}, {1, 0, 0, 1, 1, 1});
    b.initializer("w", w).initializer("bias", TensorData::floats({2}, {0.5f, -0.5f}));
    b.node("MatMul", {"x", "w"}, {"mm"});
    b.node("Add", {"mm", "bias"}, {"s"});
    b.node("Softmax", {"s"}, {"y"});
    TensorData x = TensorData::floats({1, 2, 3}, {1, 2, 3, -1, 0, 2});
    TensorData y = run_single(b, x);
    // Row 0: mm = [1+3, 2+3] = [4, 5], + bias = [4.5, 4.5] -> [0.5, 0.5].
    EXPECT_NEAR(y.f[0], 0.5, 1e-7);
    // Row 1: mm = [-1+2, 0+2] = [1, 2], + bias = [1.5, 1.5] -> [0.5, 0.5].
    EXPECT_NEAR(y.f[3], 0.5, 1e-7);
}

TEST(GraphEvaluate, AveragePoolCountIncludePad) {
    TensorData x = TensorData::floats({1, 1, 2, 2}, {1, 2, 3, 4});
    for (int include : {0, 1}) {
        ModelBuilder b(13);
        b.input("x", {1, 1, 2, 2}).output("y");
        auto &n = b.node("AveragePool", {"x"}, {"y"});
        testing::set_ints(n, "kernel_shape", {2, 2});
        testing::set_ints(n, "pads", {1, 1, 1, 1});
        testing::set_int(n, "count_include_pad", include);
        TensorData y = run_single(b, x);
        ASSERT_EQ(y.shape, (Shape{1, 1, 3, 3}));
        // The corner window sees only x[0,0] = 1 (and three pads).
        EXPECT_FLOAT_EQ(y.f[0], include ? 0.25f : 1.0f);
        EXPECT_FLOAT_EQ(y.f[4], 2.5f); // the centre window covers all four
    }
}

// ONNX's node tests of these two use opsets below 11, so they are checked here.
TEST(GraphEvaluate, GlobalAveragePoolAndConstantOfShape) {
    ModelBuilder b(13);
    b.input("x", {1, 2, 2, 3}).output("y").output("z");
    b.initializer("shape", TensorData::ints({2}, {2, 3}));
    b.node("GlobalAveragePool", {"x"}, {"y"});
    testing::set_tensor(b.node("ConstantOfShape", {"shape"}, {"z"}), "value", TensorData::ints({1}, {7}));
    TensorData x = TensorData::floats({1, 2, 2, 3}, {1, 2, 3, 4, 5, 6, 0, 0, 0, 0, 0, 12});
    TensorMap out = evaluate(import_onnx_bytes(b.bytes(), "model"), {{"x", x}});
    EXPECT_EQ(out["y"].shape, (Shape{1, 2, 1, 1}));
    EXPECT_EQ(out["y"].f, (std::vector<float>{3.5f, 2.0f}));
    EXPECT_EQ(out["z"].dtype, DType::i64);
    EXPECT_EQ(out["z"].i, std::vector<int64_t>(6, 7));
}

TEST(GraphEvaluate, ErrorsNameTheCulprit) {
    ModelBuilder b(13);
    b.input("x", {3, 2}).output("y").initializer("idx", TensorData::ints({1}, {5}));
    b.node("Gather", {"x", "idx"}, {"y"}, "pick");
    Graph g = import_onnx_bytes(b.bytes(), "model");
    try {
        evaluate(g, {{"x", testing::random_floats({3, 2}, 1)}});
        FAIL() << "expected GraphError";
    } catch (const GraphError &e) {
        EXPECT_NE(std::string(e.what()).find("node 'pick' (#0, Gather, opset 13): index 5 is out of range"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_THROW(evaluate(g, {{"x", testing::random_floats({2, 3}, 1)}}), GraphError);
    EXPECT_THROW(evaluate(g, {}), GraphError);
}

TEST(GraphNpy, RoundTrip) {
    for (const TensorData &t :
         {testing::random_floats({2, 3, 4}, 5), TensorData::ints({5}, {1, -2, 3, 1LL << 40, 0}),
          TensorData::floats({}, {3.5f}), TensorData::ints({2, 2}, {1, 0, 0, 1}, DType::boolean)}) {
        std::string path = testing::temp_path("round_trip.npy");
        write_npy(path, t);
        TensorData back = read_npy(path);
        EXPECT_EQ(back.dtype, t.dtype);
        EXPECT_EQ(back.shape, t.shape);
        EXPECT_EQ(back.f, t.f);
        EXPECT_EQ(back.i, t.i);
    }
}

TEST(GraphNpy, HeaderAsNumpyWritesIt) {
    std::string path = testing::temp_path("header.npy");
    write_npy(path, TensorData::floats({2, 3}, std::vector<float>(6, 1.0f)));
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_EQ(bytes.size(), 128u + 24u); // 64-byte aligned header, 6 floats
    EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
    EXPECT_EQ(bytes.find("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"), 10u);
    EXPECT_EQ(bytes[127], '\n');
}

TEST(GraphNpy, ErrorsNameTheFile) {
    std::string path = testing::temp_path("bad.npy");
    std::ofstream(path) << "not numpy";
    try {
        read_npy(path);
        FAIL();
    } catch (const GraphError &e) {
        EXPECT_EQ(std::string(e.what()), path + ": not a .npy file");
    }
    write_npy(path, testing::random_floats({4, 4}, 1));
    std::string bytes;
    {
        std::ifstream in(path, std::ios::binary);
        bytes.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    }
    std::ofstream(path, std::ios::binary) << bytes.substr(0, bytes.size() - 5);
    EXPECT_THROW(read_npy(path), GraphError);
    EXPECT_THROW(read_npy(testing::temp_path("missing.npy")), GraphError);
}

} // namespace
} // namespace tessera::graph
