#include "node_test_data.h"

#include "graph_error.h"
#include "import_onnx.h"
#include "model_builder.h"
#include "onnx_tensor.h"
#include "op_rule.h"

#include <onnx/onnx_pb.h>

#include <algorithm>

namespace tessera::graph::testing {

namespace fs = std::filesystem;

const char *node_test_root() {
    return TESSERA_ONNX_TESTDATA;
}

const std::vector<std::string> &test_suites() {
    static const std::vector<std::string> suites = {"node", "pytorch-converted", "pytorch-operator", "simple"};
    return suites;
}

std::string suite_of(const std::string &test) {
    return test.substr(0, test.find('/'));
}

std::string test_case_name(const std::string &test) {
    const std::string suite = suite_of(test), name = test.substr(test.find('/') + 1);
    if (suite == "node") return name;
    std::string prefix = suite;
    std::replace(prefix.begin(), prefix.end(), '-', '_');
    return prefix + "_" + name;
}

namespace {

std::vector<fs::path> suite_models(const std::string &suite) {
    std::vector<fs::path> models;
    std::error_code ec;
    for (const auto &entry : fs::directory_iterator(fs::path(node_test_root()) / suite, ec)) {
        fs::path model = entry.path() / "model.onnx";
        if (fs::exists(model)) models.push_back(model);
    }
    return models;
}

} // namespace

size_t suite_size(const std::string &suite) {
    return suite_models(suite).size();
}

bool all_ops_supported(const fs::path &model_path) {
    onnx::ModelProto model;
    if (!model.ParseFromString(read_file_bytes(model_path.string()))) return false;
    for (const auto &n : model.graph().node())
        if (!n.domain().empty() || !find_op_rule(n.op_type())) return false;
    return true;
}

std::vector<std::string> in_scope_tests() {
    std::vector<std::string> names;
    for (const std::string &suite : test_suites()) {
        std::vector<std::string> in_suite;
        for (const fs::path &model : suite_models(suite))
            if (all_ops_supported(model)) in_suite.push_back(suite + "/" + model.parent_path().filename().string());
        std::sort(in_suite.begin(), in_suite.end());
        names.insert(names.end(), in_suite.begin(), in_suite.end());
    }
    if (names.empty()) names.push_back(kTestdataAbsent);
    return names;
}

Outcome import_node_test(const fs::path &dir, Graph *g, std::string *detail) {
    try {
        *g = import_onnx((dir / "model.onnx").string());
    } catch (const GraphError &e) {
        *detail = e.what();
        bool unsupported = detail->find("not supported") != std::string::npos;
        return unsupported ? Outcome::Skipped : Outcome::Failed;
    }
    return Outcome::Passed;
}

TensorMap load_node_test_inputs(const fs::path &dir, const Graph &g) {
    fs::path data = dir / "test_data_set_0";
    TensorMap inputs;
    for (size_t k = 0; k < g.inputs.size(); k++)
        inputs[g.inputs[k]] = read_tensor_file((data / ("input_" + std::to_string(k) + ".pb")).string());
    return inputs;
}

Outcome compare_node_test_outputs(const fs::path &dir, const Graph &g, const TensorMap &outputs,
                                  std::string *detail) {
    fs::path data = dir / "test_data_set_0";
    for (size_t k = 0; k < g.outputs.size(); k++) {
        TensorData expected = read_tensor_file((data / ("output_" + std::to_string(k) + ".pb")).string());
        const TensorData &actual = outputs.at(g.outputs[k]);
        double err = relative_error(actual, expected);
        double bound = expected.is_float() ? 1e-4 : 0.0;
        if (!(err <= bound)) {
            *detail = "output '" + g.outputs[k] + "': relative error " + std::to_string(err) + " (shape " +
                      shape_string(actual.shape) + " vs expected " + shape_string(expected.shape) + ")";
            return Outcome::Failed;
        }
    }
    return Outcome::Passed;
}

} // namespace tessera::graph::testing
