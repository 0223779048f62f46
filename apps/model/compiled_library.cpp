#include "compiled_library.h"

#include <nlohmann/json.hpp>

#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>

namespace tessera::cli {

namespace {

std::vector<TensorSpec> specs(const nlohmann::json &list) {
    std::vector<TensorSpec> out;
    for (const auto &t : list) {
        TensorSpec spec;
        spec.name = t.at("name").get<std::string>();
        spec.shape = t.at("shape").get<graph::Shape>();
        const std::string dtype = t.value("dtype", "float32");
        if (dtype == "int64") {
            spec.dtype = graph::DType::i64;
            if (t.contains("range")) spec.range = {t.at("range").at(0).get<int64_t>(), t.at("range").at(1).get<int64_t>()};
        } else if (dtype != "float32") {
            throw std::runtime_error("tensor '" + spec.name + "' has dtype '" + dtype + "' (float32 or int64 expected)");
        }
        out.push_back(spec);
    }
    return out;
}

}  // namespace

TensorSpec graph_tensor_spec(const graph::Graph &g, const std::string &name) {
    TensorSpec t;
    t.name = name;
    t.shape = g.value(name).shape;
    t.dtype = g.value(name).dtype;
    if (!t.is_float()) t.range = graph::sample_range(g, name);
    return t;
}

graph::TensorData random_input(const TensorSpec &t, unsigned seed) {
    if (!t.is_float()) return graph::random_integers(t.dtype, t.shape, t.range, seed);
    graph::TensorData d(graph::DType::f32, t.shape);
    std::mt19937 rng(seed);
    std::normal_distribution<float> dist;
    for (float &v : d.f) v = dist(rng);
    return d;
}

std::string TensorSpec::describe() const {
    return std::string(is_float() ? "float32" : "int64") + "[" + graph::shape_string(shape) + "]";
}

CompiledLibrary::CompiledLibrary(const std::string &dir, int threads) {
    namespace fs = std::filesystem;
    fs::path plan_path;
    for (const auto &entry : fs::directory_iterator(dir)) {
        const std::string file = entry.path().filename().string();
        if (file.size() > 10 && file.substr(file.size() - 10) == ".plan.json") {
            if (!plan_path.empty()) throw std::runtime_error(dir + ": holds more than one compiled model");
            plan_path = entry.path();
        }
    }
    if (plan_path.empty()) throw std::runtime_error(dir + ": no <name>.plan.json (not a folder tessera compile wrote)");
    try {
        std::ifstream in(plan_path);
        const nlohmann::json plan = nlohmann::json::parse(in);
        name_ = plan.at("name").get<std::string>();
        target_ = plan.value("target", "");
        inputs_ = specs(plan.at("inputs"));
        outputs_ = specs(plan.at("outputs"));
    } catch (const nlohmann::json::exception &e) {
        throw std::runtime_error(plan_path.string() + ": " + e.what());
    }
    const std::string so = (fs::path(dir) / ("lib" + name_ + ".so")).string();
    library_ = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!library_) throw std::runtime_error(so + ": " + dlerror());
    auto symbol = [&](const std::string &suffix) {
        void *s = dlsym(library_, (name_ + suffix).c_str());
        if (!s) {
            throw std::runtime_error(so + ": no symbol " + name_ + suffix +
                                     " (written by an older tessera compile? compile the model again)");
        }
        return s;
    };
    // <name>_options as the generated header declares it.
    struct Options {
        int threads, pin_threads;
    };
    auto create = reinterpret_cast<void *(*)(const char *, const Options *)>(symbol("_create_with_options"));
    run_arrays_ = reinterpret_cast<int (*)(void *, const void *const *, void *const *)>(symbol("_run_arrays"));
    destroy_ = reinterpret_cast<void (*)(void *)>(symbol("_destroy"));
    auto threads_of = reinterpret_cast<int (*)(const void *)>(symbol("_threads"));
    last_error_ = reinterpret_cast<const char *(*)()>(symbol("_last_error"));
    const Options options{threads, 0};
    model_ = create((fs::path(dir) / (name_ + ".weights")).string().c_str(), &options);
    if (!model_) throw std::runtime_error(last_error_());
    threads_ = threads_of(model_);
}

CompiledLibrary::~CompiledLibrary() {
    if (model_) destroy_(model_);
    if (library_) dlclose(library_);
}

void CompiledLibrary::run(const std::vector<const graph::TensorData *> &inputs, std::vector<graph::TensorData> &outputs) {
    // Integer-like tensors hold int64 (TensorData::i), as the library takes them.
    std::vector<const void *> in;
    std::vector<void *> out;
    for (const graph::TensorData *t : inputs) in.push_back(t->is_float() ? static_cast<const void *>(t->f.data()) : t->i.data());
    for (graph::TensorData &t : outputs) out.push_back(t.is_float() ? static_cast<void *>(t.f.data()) : t.i.data());
    run_arrays(in.data(), out.data());
}

void CompiledLibrary::run_arrays(const void *const *inputs, void *const *outputs) {
    if (run_arrays_(model_, inputs, outputs) != 0) throw std::runtime_error(name_ + ": " + last_error_());
}

}  // namespace tessera::cli
