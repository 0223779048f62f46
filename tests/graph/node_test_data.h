// ONNX's test models (Debian's libonnx-testdata) as test data shared by the reference
// evaluator's test (onnx_node_test.cpp) and the JIT runner's (onnx_node_jit_test.cpp):
// the node tests and the pytorch-converted, pytorch-operator and simple suites (most of
// them opset 6, read through upgrade_legacy_opset). Each test directory holds model.onnx
// and test_data_set_0/{input,output}_N.pb. Every executable that compiles
// node_test_data.cpp defines TESSERA_ONNX_TESTDATA (the data root holding the suites).
#pragma once

#include "evaluate.h"
#include "graph.h"

#include <filesystem>
#include <string>
#include <vector>

namespace tessera::graph::testing {

enum class Outcome { Passed, Skipped, Failed };

// The data root (TESSERA_ONNX_TESTDATA); tests are named by their path under it,
// "node/test_abs", "pytorch-converted/test_Conv1d".
const char *node_test_root();

// The suites read, in order.
const std::vector<std::string> &test_suites();

// The suite of a test ("node" for "node/test_abs").
std::string suite_of(const std::string &test);

// A GoogleTest name for a test: the node tests by their own name ("test_abs"), the
// others prefixed with their suite ("pytorch_converted_test_Conv1d").
std::string test_case_name(const std::string &test);

// How many tests a suite holds, in scope or not.
size_t suite_size(const std::string &suite);

// The single parameter in_scope_tests returns when the test data is not installed.
inline const char *const kTestdataAbsent = "testdata_absent";

// Whether every op of the model (protobuf only, no import) has an import rule.
bool all_ops_supported(const std::filesystem::path &model_path);

// The tests (suite/name) whose ops all have import rules, by suite then name, or
// {kTestdataAbsent} when there are none.
std::vector<std::string> in_scope_tests();

// Imports dir/model.onnx into `g`. A GraphError saying "not supported" (a dtype,
// attribute value or opset we do not take) is Skipped, any other Failed; `detail`
// receives the message.
Outcome import_node_test(const std::filesystem::path &dir, Graph *g, std::string *detail);

// test_data_set_0/input_<k>.pb for every graph input, by name.
TensorMap load_node_test_inputs(const std::filesystem::path &dir, const Graph &g);

// Compares `outputs` (by graph output name) with test_data_set_0/output_<k>.pb:
// relative error <= 1e-4 for floats, equality for integers, NaN never passes.
// Returns Passed or Failed, with the first mismatch in `detail`.
Outcome compare_node_test_outputs(const std::filesystem::path &dir, const Graph &g, const TensorMap &outputs,
                                  std::string *detail);

} // namespace tessera::graph::testing
