// The `tessera` Python module: a model compiled in this process (JIT) or ahead of
// time into a library, called on numpy arrays.
//
//   m = tessera.compile("model.onnx", threads=2)          # JIT
//   m = tessera.compile("model.onnx", out_dir="out/")     # a library, as `tessera compile`
//   m = tessera.load("out/")                              # a folder `tessera compile` wrote
//   r = tessera.compile("model.onnx", reference=True)     # the plain C++ evaluator
//   y = m(x)                  # numpy arrays in the model's input order (or by name):
//                             # float32, or int64 for integer and boolean tensors
//   m.inputs, m.outputs, m.plan, m.threads
//
// Errors are Python exceptions carrying the command line's messages: RuntimeError for a
// bad model or file, ValueError for an input of the wrong shape or a missing one,
// TypeError for one of the wrong dtype. An output holding NaN when no input did is
// an error, never a silent result. This is an outer edge like a tool's main: the only
// place the module reads the environment (the device profile, as the tools do).
#include "compile_model.h"
#include "compiled_library.h"
#include "evaluate.h"
#include "graph_error.h"
#include "jit_model.h"
#include "opened_model.h"
#include "options_from_environment.h"
#include "tool_environment.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>

namespace py = pybind11;

namespace tessera::python {
namespace {

using cli::TensorSpec;

py::list describe(const std::vector<TensorSpec> &specs) {
    py::list list;
    for (const TensorSpec &t : specs) {
        py::dict d;
        d["name"] = t.name;
        d["shape"] = py::tuple(py::cast(t.shape));
        d["dtype"] = t.is_float() ? "float32" : "int64";
        list.append(d);
    }
    return list;
}

std::string shape_text(const std::vector<int64_t> &shape) {
    std::string s;
    for (int64_t d : shape) s += (s.empty() ? "" : "x") + std::to_string(d);
    return s.empty() ? "a scalar" : s;
}

bool has_nan(const float *data, size_t n) {
    for (size_t i = 0; i < n; i++) {
        if (std::isnan(data[i])) return true;
    }
    return false;
}

using FloatArray = py::array_t<float, py::array::c_style>;
using IntArray = py::array_t<int64_t, py::array::c_style>;

// A poisoned array for output `t`: NaN (float32) or INT64_MIN (int64).
py::array output_array(const TensorSpec &t) {
    const std::vector<py::ssize_t> shape(t.shape.begin(), t.shape.end());
    if (t.is_float()) {
        FloatArray a(shape);
        std::fill(a.mutable_data(), a.mutable_data() + a.size(), std::nanf(""));
        return std::move(a);
    }
    IntArray a(shape);
    std::fill(a.mutable_data(), a.mutable_data() + a.size(), std::numeric_limits<int64_t>::min());
    return std::move(a);
}

// A compiled model: either a JIT model (the graph and its partitions in this process)
// or a library loaded from a folder.
class Model {
public:
    // reference: the plain C++ evaluator runs the graph (no Halide), as `tessera run
    // --reference` does.
    static std::shared_ptr<Model> jit(const cli::ModelOptions &options, int threads, bool verbose, bool reference) {
        auto m = std::shared_ptr<Model>(new Model);
        m->opened_ = std::make_unique<cli::OpenedModel>(cli::open_model(options));
        m->reference_ = reference;
        const graph::Graph &g = m->opened_->graph;
        for (const std::string &n : g.inputs) m->inputs_.push_back(cli::graph_tensor_spec(g, n));
        for (const std::string &n : g.outputs) m->outputs_.push_back(cli::graph_tensor_spec(g, n));
        for (const graph::Partition &p : m->opened_->plan.partitions) {
            py::list ops;
            for (int n : p.nodes) ops.append(g.nodes[size_t(n)].op_type);
            py::dict d;
            d["name"] = p.name;
            d["class"] = p.compute_intensive ? "compute-bound" : "memory-bound";
            d["ops"] = ops;
            d["output"] = p.output;
            m->plan_.append(d);
        }
        if (reference) {
            m->threads_ = 1;
            return m;
        }
        std::function<void(const std::string &)> progress;
        if (verbose) progress = [](const std::string &line) { std::cerr << line << std::endl; };
        m->jit_ = std::make_unique<graph::JitModel>(g, m->opened_->plan, m->opened_->schedule, m->opened_->target,
                                                     progress, threads);
        m->threads_ = m->jit_->threads();
        return m;
    }

    static std::shared_ptr<Model> library(const std::string &dir, int threads) {
        auto m = std::shared_ptr<Model>(new Model);
        m->library_ = std::make_unique<cli::CompiledLibrary>(dir, threads);
        if (m->library_->on_gpu()) {
            // Its GPU runtime would load the driver into a process that holds libHalide.
            throw std::runtime_error(dir + " was compiled for " + m->library_->target() +
                                     ": run it with tessera-run-library " + dir);
        }
        m->inputs_ = m->library_->inputs();
        m->outputs_ = m->library_->outputs();
        const std::string plan_path = (std::filesystem::path(dir) / (m->library_->name() + ".plan.json")).string();
        std::ifstream in(plan_path);
        try {
            for (const nlohmann::json &p : nlohmann::json::parse(in).at("partitions")) {
                py::list ops;
                for (const nlohmann::json &n : p.at("nodes")) ops.append(n.at("op").get<std::string>());
                py::dict d;
                d["name"] = p.at("name").get<std::string>();
                d["class"] = p.at("class").get<std::string>();
                d["ops"] = ops;
                d["output"] = p.at("output").get<std::string>();
                m->plan_.append(d);
            }
        } catch (const nlohmann::json::exception &e) {
            throw std::runtime_error(plan_path + ": " + e.what());
        }
        m->threads_ = m->library_->threads();
        return m;
    }

    // m(x, ...) or m(name=x, ...): numpy arrays -> one array, or a tuple.
    py::object call(const py::args &args, const py::kwargs &kwargs) {
        if (args.size() && kwargs.size()) throw py::value_error("pass the inputs by position or by name, not both");
        std::vector<py::array> in;
        if (kwargs.size()) {
            for (const auto &[key, value] : kwargs) {
                bool known = false;
                for (const TensorSpec &t : inputs_) known |= t.name == py::cast<std::string>(key);
                if (!known) throw py::value_error("the model has no input '" + py::cast<std::string>(key) + "'");
            }
            for (const TensorSpec &t : inputs_) {
                if (!kwargs.contains(t.name)) throw py::value_error("input '" + t.name + "' is missing");
                in.push_back(checked(t, kwargs[t.name.c_str()]));
            }
        } else {
            if (args.size() != inputs_.size()) {
                throw py::value_error("the model takes " + std::to_string(inputs_.size()) + " input(s), " +
                                      std::to_string(args.size()) + " given");
            }
            for (size_t k = 0; k < inputs_.size(); k++) in.push_back(checked(inputs_[k], args[k]));
        }
        bool nan_in = false;
        for (size_t k = 0; k < in.size(); k++) {
            if (inputs_[k].is_float()) nan_in |= has_nan(static_cast<const float *>(in[k].data()), size_t(in[k].size()));
        }

        std::vector<py::array> out;
        for (const TensorSpec &t : outputs_) out.push_back(output_array(t));
        if (library_) {
            std::vector<const void *> in_ptrs;
            std::vector<void *> out_ptrs;
            for (const py::array &a : in) in_ptrs.push_back(a.data());
            for (py::array &a : out) out_ptrs.push_back(a.mutable_data());
            py::gil_scoped_release release;
            library_->run_arrays(in_ptrs.data(), out_ptrs.data());
        } else {
            graph::TensorMap map;
            for (size_t k = 0; k < inputs_.size(); k++) {
                graph::TensorData d(inputs_[k].dtype, inputs_[k].shape);
                if (d.is_float()) {
                    const float *x = static_cast<const float *>(in[k].data());
                    std::copy(x, x + in[k].size(), d.f.begin());
                } else {
                    const int64_t *x = static_cast<const int64_t *>(in[k].data());
                    std::copy(x, x + in[k].size(), d.i.begin());
                }
                map[inputs_[k].name] = std::move(d);
            }
            graph::TensorMap result;
            {
                py::gil_scoped_release release;
                result = reference_ ? graph::evaluate(opened_->graph, map) : jit_->run(map);
            }
            for (size_t k = 0; k < outputs_.size(); k++) {
                const graph::TensorData &d = result.at(outputs_[k].name);
                if (d.is_float()) std::copy(d.f.begin(), d.f.end(), static_cast<float *>(out[k].mutable_data()));
                else std::copy(d.i.begin(), d.i.end(), static_cast<int64_t *>(out[k].mutable_data()));
            }
        }
        for (size_t k = 0; k < outputs_.size(); k++) {
            if (!outputs_[k].is_float()) continue;
            if (!nan_in && has_nan(static_cast<const float *>(out[k].data()), size_t(out[k].size()))) {
                throw std::runtime_error("output '" + outputs_[k].name +
                                         "' holds NaN though no input does (a kernel left elements unwritten, or "
                                         "the model computed NaN)");
            }
        }
        if (out.size() == 1) return std::move(out[0]);
        py::tuple t(out.size());
        for (size_t k = 0; k < out.size(); k++) t[k] = std::move(out[k]);
        return std::move(t);
    }

    py::list inputs() const { return describe(inputs_); }
    py::list outputs() const { return describe(outputs_); }
    py::list plan() const { return plan_; }
    int threads() const { return threads_; }
    std::string repr() const {
        const std::string kind = library_ ? "library " + library_->name() : reference_ ? "reference evaluator" : "JIT";
        return "<tessera.Model " + kind + ", " +
               std::to_string(py::len(plan_)) + " partitions, " + std::to_string(threads_) + " threads>";
    }

private:
    Model() = default;

    // The array as the model takes it: float32 (or, for an integer input, any integer or
    // bool array as int64) of the input's shape, C-contiguous (a copy only where needed).
    static py::array checked(const TensorSpec &t, const py::handle &value) {
        if (!py::isinstance<py::array>(value)) {
            throw py::type_error("input '" + t.name + "' is a " + std::string(py::str(value.get_type().attr("__name__"))) +
                                 ", not a numpy array");
        }
        const py::array a = py::reinterpret_borrow<py::array>(value);
        const char kind = a.dtype().kind();
        const bool integer = kind == 'i' || kind == 'u' || kind == 'b';
        if (t.is_float() ? !a.dtype().is(py::dtype::of<float>()) : !integer) {
            const std::string want = t.is_float() ? "float32 (convert with .astype(numpy.float32))"
                                                  : "integers (int64, or any integer or bool array)";
            throw py::type_error("input '" + t.name + "' is " + std::string(py::str(a.dtype())) + "; the model takes " +
                                 want);
        }
        std::vector<int64_t> shape(a.shape(), a.shape() + a.ndim());
        if (shape != t.shape) {
            throw py::value_error("input '" + t.name + "' has shape " + shape_text(shape) + "; the model takes " +
                                  shape_text(t.shape));
        }
        if (t.is_float()) return FloatArray::ensure(a);
        // Any integer or bool array converted to int64 (a copy unless it already is).
        return py::array_t<int64_t, py::array::c_style | py::array::forcecast>::ensure(a);
    }

    std::unique_ptr<cli::OpenedModel> opened_;
    std::unique_ptr<graph::JitModel> jit_;
    std::unique_ptr<cli::CompiledLibrary> library_;
    std::vector<TensorSpec> inputs_, outputs_;
    py::list plan_;
    int threads_ = 0;
    bool reference_ = false;
};

cli::ModelOptions model_options(const std::string &path, const std::map<std::string, std::vector<int64_t>> &shapes,
                                bool fuse, const std::string &layout, const std::string &target) {
    if (!std::filesystem::exists(path)) throw std::runtime_error(path + ": no such file");
    cli::ModelOptions o;
    o.model = path;
    o.input_shapes = shapes;
    o.fuse = fuse;
    cli::set_layout(o, layout);
    o.target = target;
    o.scheduler_options = scheduler_options_from_environment(threads_from_environment());
    return o;
}

}  // namespace
}  // namespace tessera::python

PYBIND11_MODULE(tessera, m) {
    using tessera::python::Model;
    m.doc() = "Tessera: ONNX models compiled with Halide, run on numpy arrays";
    py::class_<Model, std::shared_ptr<Model>>(m, "Model")
        .def("__call__", &Model::call)
        .def_property_readonly("inputs", &Model::inputs, "[{name, shape, dtype}] in call order")
        .def_property_readonly("outputs", &Model::outputs, "[{name, shape, dtype}] in result order")
        .def_property_readonly("plan", &Model::plan, "the partitions: [{name, class, ops, output}]")
        .def_property_readonly("threads", &Model::threads, "threads of the model's own pool")
        .def("__repr__", &Model::repr);
    m.def(
        "compile",
        [](const std::string &path, int threads, const std::string &out_dir,
           const std::map<std::string, std::vector<int64_t>> &input_shapes, bool fuse, const std::string &layout,
           bool verbose, bool reference) {
            if (threads < 0) throw py::value_error("threads is " + std::to_string(threads) + " (0: every core)");
            if (reference && !out_dir.empty()) throw py::value_error("reference=True runs in this process: no out_dir");
            // The evaluator runs the model as written (packed weights are for the kernels).
            tessera::cli::ModelOptions o =
                tessera::python::model_options(path, input_shapes, fuse, reference ? "fixed" : layout, "host");
            if (out_dir.empty()) return Model::jit(o, threads, verbose, reference);
            o.ahead_of_time = true;
            tessera::cli::OpenedModel opened = tessera::cli::open_model(o);
            tessera::cli::CompileSettings settings;
            settings.out_dir = out_dir;
            settings.cxx = tessera::cxx_from_environment();
            tessera::cli::compile_model(opened, o, settings, [verbose](const std::string &line) {
                if (verbose) std::cerr << line << std::endl;
            });
            return Model::library(out_dir, threads);
        },
        py::arg("path"), py::arg("threads") = 0, py::arg("out_dir") = "",
        py::arg("input_shapes") = std::map<std::string, std::vector<int64_t>>{}, py::arg("fuse") = true,
        py::arg("layout") = "auto", py::arg("verbose") = false, py::arg("reference") = false,
        "Compiles an ONNX model: in this process (JIT), or with out_dir into a library there (as "
        "`tessera compile`), then loaded. threads: the model's own pool (0: every core); "
        "reference=True: the plain C++ evaluator instead (no Halide), to check against.");
    m.def("load", &Model::library, py::arg("dir"), py::arg("threads") = 0,
          "Loads a library `tessera compile` wrote into dir.");
}
