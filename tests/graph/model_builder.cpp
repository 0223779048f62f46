#include "model_builder.h"

#include "onnx_dtype.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>

#include <unistd.h>

namespace tessera::graph::testing {

ModelBuilder::ModelBuilder(int opset) {
    model.set_ir_version(8);
    model.set_producer_name("tessera-tests");
    auto *op = model.add_opset_import();
    op->set_domain("");
    op->set_version(opset);
    model.mutable_graph()->set_name("test");
}

ModelBuilder &ModelBuilder::input(const std::string &name, std::vector<int64_t> dims, int elem_type,
                                  const std::string &symbol) {
    auto *vi = model.mutable_graph()->add_input();
    vi->set_name(name);
    auto *tt = vi->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(elem_type);
    auto *shape = tt->mutable_shape();
    for (int64_t d : dims) {
        auto *dim = shape->add_dim();
        if (d < 0)
            dim->set_dim_param(symbol);
        else
            dim->set_dim_value(d);
    }
    return *this;
}

ModelBuilder &ModelBuilder::output(const std::string &name, int elem_type) {
    auto *vi = model.mutable_graph()->add_output();
    vi->set_name(name);
    vi->mutable_type()->mutable_tensor_type()->set_elem_type(elem_type);
    return *this;
}

ModelBuilder &ModelBuilder::initializer(const std::string &name, const TensorData &value) {
    *model.mutable_graph()->add_initializer() = to_proto(name, value);
    return *this;
}

onnx::NodeProto &ModelBuilder::node(const std::string &op, std::vector<std::string> inputs,
                                    std::vector<std::string> outputs, const std::string &name) {
    auto *n = model.mutable_graph()->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const std::string &i : inputs)
        n->add_input(i);
    for (const std::string &o : outputs)
        n->add_output(o);
    return *n;
}

std::string ModelBuilder::bytes() const {
    return model.SerializeAsString();
}

std::string ModelBuilder::save(const std::string &file_name) const {
    std::string path = temp_path(file_name);
    std::ofstream out(path, std::ios::binary);
    out << bytes();
    return path;
}

namespace {

onnx::AttributeProto &add_attr(onnx::NodeProto &n, const std::string &key, onnx::AttributeProto::AttributeType t) {
    auto *a = n.add_attribute();
    a->set_name(key);
    a->set_type(t);
    return *a;
}

} // namespace

void set_int(onnx::NodeProto &n, const std::string &key, int64_t v) {
    add_attr(n, key, onnx::AttributeProto::INT).set_i(v);
}

void set_float(onnx::NodeProto &n, const std::string &key, float v) {
    add_attr(n, key, onnx::AttributeProto::FLOAT).set_f(v);
}

void set_string(onnx::NodeProto &n, const std::string &key, const std::string &v) {
    add_attr(n, key, onnx::AttributeProto::STRING).set_s(v);
}

void set_ints(onnx::NodeProto &n, const std::string &key, const std::vector<int64_t> &v) {
    auto &a = add_attr(n, key, onnx::AttributeProto::INTS);
    for (int64_t x : v)
        a.add_ints(x);
}

void set_tensor(onnx::NodeProto &n, const std::string &key, const TensorData &v) {
    *add_attr(n, key, onnx::AttributeProto::TENSOR).mutable_t() = to_proto("", v);
}

onnx::TensorProto to_proto(const std::string &name, const TensorData &t) {
    onnx::TensorProto p;
    p.set_name(name);
    p.set_data_type(onnx_code(t.dtype));
    for (int64_t d : t.shape)
        p.add_dims(d);
    // Typed fields here; raw_data is exercised by the ONNX test data.
    for (float v : t.f)
        p.add_float_data(v);
    for (int64_t v : t.i) {
        if (t.dtype == DType::i64)
            p.add_int64_data(v);
        else
            p.add_int32_data(int32_t(v));
    }
    return p;
}

TensorData random_floats(const Shape &shape, uint64_t seed, float lo, float hi) {
    TensorData t(DType::f32, shape);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    for (float &v : t.f)
        v = dist(rng);
    return t;
}

std::string temp_path(const std::string &file_name) {
    // One folder per test process: two test runs on one machine (two checkouts)
    // must not remove each other's files.
    const char *dir = std::getenv("TEST_TMPDIR");
    std::string base = dir ? dir : ::testing::TempDir();
    if (!base.empty() && base.back() != '/') base += '/';
    // Removed with everything in it when the process ends.
    static const struct Folder {
        std::string path;
        ~Folder() {
            std::error_code ignored;
            std::filesystem::remove_all(path, ignored);
        }
    } folder{base + "tessera-graph-tests-" + std::to_string(::getpid()) + "/"};
    std::filesystem::create_directories(folder.path);
    return folder.path + file_name;
}

} // namespace tessera::graph::testing
