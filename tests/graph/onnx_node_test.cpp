// The reference evaluator against ONNX's own node tests (Debian's libonnx-testdata):
// each test directory holds model.onnx and test_data_set_0/{input,output}_N.pb.
// A directory is in scope when every op of its model is one the graph layer supports;
// within scope, a model using an attribute value or dtype we do not support is skipped
// (with its reason), anything else must match: relative error <= 1e-4 for floats,
// equality for integers, NaN never passes.
#include "evaluate.h"
#include "graph_error.h"
#include "import_onnx.h"
#include "model_builder.h"
#include "onnx_tensor.h"
#include "op_rule.h"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <iostream>

namespace tessera::graph {
namespace {

namespace fs = std::filesystem;

const char *node_test_root() {
    return TESSERA_ONNX_NODE_TESTS;
}

// Op types of a model without importing it (protobuf only).
bool all_ops_supported(const fs::path &model_path) {
    onnx::ModelProto model;
    if (!model.ParseFromString(read_file_bytes(model_path.string()))) return false;
    for (const auto &n : model.graph().node())
        if (!n.domain().empty() || !find_op_rule(n.op_type())) return false;
    return true;
}

std::vector<std::string> in_scope_tests() {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(node_test_root(), ec)) {
        fs::path model = entry.path() / "model.onnx";
        if (fs::exists(model) && all_ops_supported(model)) names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    if (names.empty()) names.push_back("testdata_absent");
    return names;
}

enum class Outcome { Passed, Skipped, Failed };

// Runs one node test; `detail` receives the skip reason or the failure.
Outcome run_node_test(const fs::path &dir, std::string *detail) {
    Graph g;
    try {
        g = import_onnx((dir / "model.onnx").string());
    } catch (const GraphError &e) {
        *detail = e.what();
        bool unsupported = detail->find("not supported") != std::string::npos;
        return unsupported ? Outcome::Skipped : Outcome::Failed;
    }
    fs::path data = dir / "test_data_set_0";
    TensorMap inputs;
    for (size_t k = 0; k < g.inputs.size(); k++)
        inputs[g.inputs[k]] = read_tensor_file((data / ("input_" + std::to_string(k) + ".pb")).string());
    TensorMap outputs;
    try {
        outputs = evaluate(g, inputs);
    } catch (const GraphError &e) {
        *detail = std::string("evaluate: ") + e.what();
        return Outcome::Failed;
    }
    for (size_t k = 0; k < g.outputs.size(); k++) {
        TensorData expected = read_tensor_file((data / ("output_" + std::to_string(k) + ".pb")).string());
        const TensorData &actual = outputs.at(g.outputs[k]);
        double err = testing::relative_error(actual, expected);
        double bound = expected.is_float() ? 1e-4 : 0.0;
        if (!(err <= bound)) {
            *detail = "output '" + g.outputs[k] + "': relative error " + std::to_string(err) + " (shape " +
                      shape_string(actual.shape) + " vs expected " + shape_string(expected.shape) + ")";
            return Outcome::Failed;
        }
    }
    return Outcome::Passed;
}

class OnnxNodeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxNodeTest, MatchesExpectedOutputs) {
    if (GetParam() == "testdata_absent")
        GTEST_SKIP() << "libonnx-testdata not installed (" << node_test_root() << "); node tests skipped";
    std::string detail;
    Outcome outcome = run_node_test(fs::path(node_test_root()) / GetParam(), &detail);
    if (outcome == Outcome::Skipped) GTEST_SKIP() << detail;
    EXPECT_EQ(outcome, Outcome::Passed) << detail;
}

INSTANTIATE_TEST_SUITE_P(Onnx, OnnxNodeTest, ::testing::ValuesIn(in_scope_tests()),
                         [](const ::testing::TestParamInfo<std::string> &info) { return info.param; });

// One line per in-scope test and the counts, so that what ran and what was skipped is
// visible in one place; also guards against everything silently turning into skips.
TEST(OnnxNodeTests, Summary) {
    std::vector<std::string> names = in_scope_tests();
    if (names == std::vector<std::string>{"testdata_absent"})
        GTEST_SKIP() << "libonnx-testdata not installed (" << node_test_root() << ")";
    int passed = 0, skipped = 0, failed = 0;
    for (const std::string &name : names) {
        std::string detail;
        Outcome o = run_node_test(fs::path(node_test_root()) / name, &detail);
        const char *tag = o == Outcome::Passed ? "ran    " : o == Outcome::Skipped ? "skipped" : "FAILED ";
        std::cout << "  " << tag << " " << name << (detail.empty() ? "" : ": " + detail) << "\n";
        (o == Outcome::Passed ? passed : o == Outcome::Skipped ? skipped : failed)++;
    }
    std::cout << "ONNX node tests in scope: " << names.size() << ", passed " << passed << ", skipped " << skipped
              << " (unsupported attribute value or dtype), failed " << failed << "\n";
    EXPECT_EQ(failed, 0);
    EXPECT_GE(passed, 150);
}

} // namespace
} // namespace tessera::graph
