// tessera-run-library: runs a model library `tessera compile` wrote, in a process
// that does not link libHalide. What a library compiled for an OpenCL target needs
// on this machine: PoCL brings its own LLVM, which collides with libHalide's in
// one process (so `tessera run DIR` refuses GPU libraries). Inputs from .npy files
// (or seeded random values), outputs checked against --expect files.
//
//   tessera-run-library DIR [--input [name=]x.npy]... [--expect [name=]y.npy]...
//                       [--tolerance T] [--reps N] [--seed S]
#include "compare.h"
#include "compiled_library.h"
#include "graph_error.h"
#include "npy.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace tessera;

struct Usage : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// `[name=]path` bound to one of `tensors` (a bare path: the only one).
std::map<std::string, std::string> bind(const std::vector<std::string> &args,
                                        const std::vector<cli::TensorSpec> &tensors, const char *flag) {
    std::map<std::string, std::string> files;
    for (const std::string &a : args) {
        const size_t eq = a.find('=');
        std::string name = eq == std::string::npos ? "" : a.substr(0, eq);
        const std::string path = eq == std::string::npos ? a : a.substr(eq + 1);
        if (name.empty()) {
            if (tensors.size() != 1) throw Usage(std::string(flag) + " " + a + ": the model has several; name=path");
            name = tensors[0].name;
        }
        bool known = false;
        for (const cli::TensorSpec &t : tensors) known |= t.name == name;
        if (!known) throw Usage(std::string(flag) + " " + a + ": the model has no tensor '" + name + "'");
        files[name] = path;
    }
    return files;
}

graph::TensorData read_checked(const std::string &path, const cli::TensorSpec &t) {
    graph::TensorData d = graph::read_npy(path);
    if (d.is_float() != t.is_float() || d.shape != t.shape) {
        throw graph::GraphError(path + ": '" + t.name + "' must be " + t.describe() + ", the file holds " +
                                graph::dtype_name(d.dtype) + "[" + graph::shape_string(d.shape) + "]");
    }
    d.dtype = t.dtype;  // any integer file for an integer tensor, as int64
    return d;
}

int run(int argc, char **argv) {
    std::string dir;
    std::vector<std::string> input_args, expect_args;
    double tolerance = 1e-3;
    int reps = 1;
    unsigned seed = 1;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw Usage(a + " needs a value");
            return argv[++i];
        };
        if (a == "--input") input_args.push_back(value());
        else if (a == "--expect") expect_args.push_back(value());
        else if (a == "--tolerance") tolerance = std::atof(value().c_str());
        else if (a == "--reps") reps = std::max(1, std::atoi(value().c_str()));
        else if (a == "--seed") seed = unsigned(std::atoi(value().c_str()));
        else if (!a.empty() && a[0] == '-') throw Usage("unknown option '" + a + "'");
        else if (dir.empty()) dir = a;
        else throw Usage("one library folder only ('" + a + "')");
    }
    if (dir.empty()) throw Usage("which library? (the folder tessera compile -o wrote)");
    cli::CompiledLibrary library(dir);
    const auto inputs = bind(input_args, library.inputs(), "--input");
    const auto expects = bind(expect_args, library.outputs(), "--expect");
    std::vector<graph::TensorData> in;
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    for (const cli::TensorSpec &t : library.inputs()) {
        auto it = inputs.find(t.name);
        if (it != inputs.end()) {
            in.push_back(read_checked(it->second, t));
        } else if (!t.is_float()) {
            in.push_back(graph::random_integers(t.dtype, t.shape, t.range, random()));
        } else {
            in.emplace_back(graph::DType::f32, t.shape);
            for (float &v : in.back().f) v = uniform(random);
        }
    }
    std::vector<const graph::TensorData *> in_ptrs;
    for (const graph::TensorData &d : in) in_ptrs.push_back(&d);
    std::vector<graph::TensorData> out;
    for (const cli::TensorSpec &t : library.outputs()) {
        out.emplace_back(t.dtype, t.shape);
        for (float &v : out.back().f) v = std::nanf("");  // poisoned: an output never written fails
        for (int64_t &v : out.back().i) v = std::numeric_limits<int64_t>::min();
    }
    std::vector<double> ms;
    for (int r = 0; r < reps; r++) {
        const auto start = std::chrono::steady_clock::now();
        library.run(in_ptrs, out);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("tessera-run-library: %s, %d run(s): best %.3f ms, median %.3f ms\n", library.name().c_str(), reps,
                ms.front(), ms[ms.size() / 2]);
    bool ok = true;
    for (size_t k = 0; k < out.size(); k++) {
        const cli::TensorSpec &t = library.outputs()[k];
        auto it = expects.find(t.name);
        if (it == expects.end()) continue;
        const double err = graph::relative_error(out[k], read_checked(it->second, t));
        const bool good = err <= tolerance;  // NaN fails
        std::printf("output '%s': max relative error %.3g against %s (tolerance %.1g)%s\n", t.name.c_str(), err,
                    it->second.c_str(), tolerance, good ? "" : "  FAILED");
        ok &= good;
    }
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char **argv) {
    try {
        return run(argc, argv);
    } catch (const Usage &e) {
        std::fprintf(stderr, "tessera-run-library: %s\nusage: tessera-run-library DIR [--input [name=]x.npy]... "
                             "[--expect [name=]y.npy]... [--tolerance T] [--reps N] [--seed S]\n", e.what());
        return 2;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tessera-run-library: %s\n", e.what());
        return 2;
    }
}
