// ONNX's node tests (Debian's libonnx-testdata) as test data shared by the reference
// evaluator's test (onnx_node_test.cpp) and the JIT runner's (onnx_node_jit_test.cpp):
// each test directory holds model.onnx and test_data_set_0/{input,output}_N.pb. Every
// executable that compiles node_test_data.cpp defines TESSERA_ONNX_NODE_TESTS (the root).
#pragma once

#include "evaluate.h"
#include "graph.h"

#include <filesystem>
#include <string>
#include <vector>

namespace tessera::graph::testing {

enum class Outcome { Passed, Skipped, Failed };

// The tests' root directory (TESSERA_ONNX_NODE_TESTS).
const char *node_test_root();

// The single parameter in_scope_tests returns when the test data is not installed.
inline const char *const kTestdataAbsent = "testdata_absent";

// Whether every op of the model (protobuf only, no import) has an import rule.
bool all_ops_supported(const std::filesystem::path &model_path);

// The names of the test directories whose ops all have import rules, sorted, or
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
