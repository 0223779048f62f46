// The reference evaluator against ONNX's own test models (Debian's libonnx-testdata:
// the node tests and the pytorch-converted, pytorch-operator and simple suites); each
// test directory holds model.onnx and test_data_set_0/{input,output}_N.pb.
// A directory is in scope when every op of its model is one the graph layer supports;
// within scope, a model using an attribute value or dtype we do not support is skipped
// (with its reason), anything else must match: relative error <= 1e-4 for floats,
// equality for integers, NaN never passes.
#include "evaluate.h"
#include "graph_error.h"
#include "node_test_data.h"

#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <iostream>
#include <map>

namespace tessera::graph {
namespace {

namespace fs = std::filesystem;
using testing::in_scope_tests;
using testing::node_test_root;
using testing::Outcome;

// Runs one node test; `detail` receives the skip reason or the failure.
Outcome run_node_test(const fs::path &dir, std::string *detail) {
    Graph g;
    if (Outcome o = testing::import_node_test(dir, &g, detail); o != Outcome::Passed) return o;
    TensorMap inputs = testing::load_node_test_inputs(dir, g);
    TensorMap outputs;
    try {
        outputs = evaluate(g, inputs);
    } catch (const GraphError &e) {
        *detail = std::string("evaluate: ") + e.what();
        return Outcome::Failed;
    }
    return testing::compare_node_test_outputs(dir, g, outputs, detail);
}

class OnnxNodeTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxNodeTest, MatchesExpectedOutputs) {
    if (GetParam() == testing::kTestdataAbsent)
        GTEST_SKIP() << "libonnx-testdata not installed (" << node_test_root() << "); node tests skipped";
    std::string detail;
    Outcome outcome = run_node_test(fs::path(node_test_root()) / GetParam(), &detail);
    if (outcome == Outcome::Skipped) GTEST_SKIP() << detail;
    EXPECT_EQ(outcome, Outcome::Passed) << detail;
}

INSTANTIATE_TEST_SUITE_P(Onnx, OnnxNodeTest, ::testing::ValuesIn(in_scope_tests()),
                         [](const ::testing::TestParamInfo<std::string> &info) { return testing::test_case_name(info.param); });

// One line per in-scope test and the counts, so that what ran and what was skipped is
// visible in one place; also guards against everything silently turning into skips.
TEST(OnnxNodeTests, Summary) {
    std::vector<std::string> names = in_scope_tests();
    if (names == std::vector<std::string>{testing::kTestdataAbsent})
        GTEST_SKIP() << "libonnx-testdata not installed (" << node_test_root() << ")";
    int passed = 0, skipped = 0, failed = 0;
    std::map<std::string, std::array<int, 3>> by_suite;  // passed, skipped, failed
    for (const std::string &name : names) {
        std::string detail;
        Outcome o = run_node_test(fs::path(node_test_root()) / name, &detail);
        const char *tag = o == Outcome::Passed ? "ran    " : o == Outcome::Skipped ? "skipped" : "FAILED ";
        std::cout << "  " << tag << " " << name << (detail.empty() ? "" : ": " + detail) << "\n";
        (o == Outcome::Passed ? passed : o == Outcome::Skipped ? skipped : failed)++;
        by_suite[testing::suite_of(name)][o == Outcome::Passed ? 0 : o == Outcome::Skipped ? 1 : 2]++;
    }
    for (const std::string &suite : testing::test_suites()) {
        const auto &c = by_suite[suite];
        std::cout << "ONNX " << suite << " tests: " << testing::suite_size(suite) << ", in scope "
                  << c[0] + c[1] + c[2] << ", passed " << c[0] << ", skipped " << c[1] << ", failed " << c[2] << "\n";
    }
    std::cout << "ONNX tests in scope: " << names.size() << ", passed " << passed << ", skipped " << skipped
              << " (unsupported attribute value or dtype), failed " << failed << "\n";
    EXPECT_EQ(failed, 0);
    EXPECT_GE(passed, 620);  // 638 today
}

} // namespace
} // namespace tessera::graph
