#include "wrapper_source.h"

#include "graph_error.h"
#include "halide_name.h"
#include "memory_plan.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace tessera::graph {

namespace {

// "{224, 224, 3, 1}": Halide's extents, innermost first.
std::string extents(const Shape &shape) {
    std::string s = "std::vector<int>{";
    for (size_t k = shape.size(); k-- > 0;) s += std::to_string(shape[k]) + (k ? ", " : "");
    return s + "}";
}

// C identifiers for the graph's inputs and outputs, unique, prefixed by role.
std::vector<std::string> parameter_names(const std::vector<std::string> &values, const std::string &prefix,
                                         std::set<std::string> &taken) {
    std::vector<std::string> names;
    for (const std::string &v : values) {
        std::string n = prefix + halide_name(v);
        while (taken.count(n)) n += "_";
        taken.insert(n);
        names.push_back(n);
    }
    return names;
}

// The C element type of a value's arrays (boundary_type).
std::string c_type(const Graph &g, const std::string &value) {
    return is_integer(g.value(value).dtype) ? "int64_t" : "float";
}

}  // namespace

WrapperSource generate_wrapper(const Graph &g, const std::vector<LoweredPartition> &partitions,
                               const std::vector<std::string> &function_names,
                               const std::vector<std::string> &partition_headers, const std::string &name,
                               const std::string &model_path, bool embedded, bool on_gpu) {
    WrapperSource w;
    std::set<std::string> taken;
    const std::vector<std::string> in_names = parameter_names(g.inputs, "in_", taken);
    const std::vector<std::string> out_names = parameter_names(g.outputs, "out_", taken);

    // Where each value lives during a run (a C++ expression of a pointer to its type).
    std::map<std::string, std::string> where;
    for (size_t k = 0; k < g.inputs.size(); k++) {
        where[g.inputs[k]] = "const_cast<" + c_type(g, g.inputs[k]) + " *>(" + in_names[k] + ")";
    }
    for (size_t k = 0; k < g.outputs.size(); k++) {
        if (!where.count(g.outputs[k])) where[g.outputs[k]] = out_names[k];
    }
    std::vector<std::vector<std::string>> step_inputs;
    std::vector<std::string> step_outputs;
    for (const LoweredPartition &lp : partitions) {
        step_inputs.push_back(lp.input_values);
        step_outputs.push_back(lp.output_value);
    }
    w.lifetimes = intermediate_lifetimes(g, step_inputs, step_outputs);
    std::set<std::string> computed;  // by the partitions so far
    for (const LoweredPartition &lp : partitions) {
        for (const std::string &v : lp.input_values) {
            if (where.count(v) || computed.count(v)) continue;
            if (!g.is_constant(v)) throw GraphError("emit: '" + v + "' is read before it is computed (internal error)");
            where[v] = "m->weights.data() + " + std::to_string(w.weight_floats);
            w.weights.push_back(v);
            w.weight_floats += size_t(num_elements(g.value(v).shape));
        }
        computed.insert(lp.output_value);
    }
    // On a GPU every intermediate keeps its own device copy between runs: their host
    // buffers do not share memory (as if all were alive throughout).
    if (on_gpu) {
        for (BufferLifetime &b : w.lifetimes) b = {b.value, b.bytes, 0, int(partitions.size())};
    }
    w.memory = plan_memory(w.lifetimes);
    for (size_t i = 0; i < w.lifetimes.size(); i++) {
        const std::string &v = w.lifetimes[i].value;
        where[v] = "reinterpret_cast<" + c_type(g, v) + " *>(m->arena + " + std::to_string(w.memory.offsets[i]) + ")";
    }

    std::ostringstream h;
    h << "// " << name << ": compiled by Tessera from " << model_path << ".\n"
      << "// Link with lib" << name << ".a (or lib" << name << ".so) and -lpthread -ldl. Tensors are\n"
      << "// row-major arrays of the types and shapes below (outermost axis first); integer\n"
      << "// and boolean tensors are int64 arrays.\n"
      << "#pragma once\n\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
      << "typedef struct " << name << "_model " << name << "_model;\n\n"
      << "// How a handle runs; zero-initialise for the defaults.\n"
      << "typedef struct " << name << "_options {\n"
      << "    int threads;      // threads the kernels use, the calling thread included\n"
      << "                      // (0: the cores this process may run on)\n"
      << "    int pin_threads;  // non-zero: each worker thread on a core of its own\n"
      << "} " << name << "_options;\n\n"
      << "// Reads the weights file written beside this header; NULL on failure (see\n"
      << "// " << name << "_last_error()). Each handle owns its thread pool: its workers spin\n"
      << "// during a run and sleep between runs. Installs the library's Halide runtime error\n"
      << "// handler (halide_set_error_handler): a runtime error (a GPU target without its\n"
      << "// driver, say) becomes " << name << "_last_error()'s text instead of Halide's abort.\n"
      << name << "_model *" << name << "_create(const char *weights_path);\n"
      << "// The same with options (NULL: the defaults).\n"
      << name << "_model *" << name << "_create_with_options(const char *weights_path, const " << name
      << "_options *options);\n\n";
    if (embedded) {
        h << "// The same from the weights linked into the library (tessera compile --embed-weights).\n"
          << name << "_model *" << name << "_create_embedded(void);\n"
          << name << "_model *" << name << "_create_embedded_with_options(const " << name << "_options *options);\n\n";
    }
    h
      << "// Runs the model. Returns 0 on success, else a Halide error code (see\n"
      << "// " << name << "_last_error()). One run at a time per handle.\n";
    for (size_t k = 0; k < g.inputs.size(); k++) {
        h << "//   " << in_names[k] << ": input '" << g.inputs[k] << "' " << c_type(g, g.inputs[k]) << "["
          << shape_string(g.value(g.inputs[k]).shape) << "]\n";
    }
    for (size_t k = 0; k < g.outputs.size(); k++) {
        h << "//   " << out_names[k] << ": output '" << g.outputs[k] << "' " << c_type(g, g.outputs[k]) << "["
          << shape_string(g.value(g.outputs[k]).shape) << "]\n";
    }
    std::string params = name + "_model *m";
    for (size_t k = 0; k < in_names.size(); k++) params += ", const " + c_type(g, g.inputs[k]) + " *" + in_names[k];
    for (size_t k = 0; k < out_names.size(); k++) params += ", " + c_type(g, g.outputs[k]) + " *" + out_names[k];
    h << "int " << name << "_run(" << params << ");\n\n"
      << "// The same with the arrays in tables, inputs and outputs in the order above\n"
      << "// (what a loader that does not know the arity calls, e.g. `tessera run out/`).\n"
      << "int " << name << "_run_arrays(" << name << "_model *m, const void *const *inputs, void *const *outputs);\n\n"
      << "void " << name << "_destroy(" << name << "_model *m);\n\n"
      << "// Threads the handle's kernels use, the calling thread included.\n"
      << "int " << name << "_threads(const " << name << "_model *m);\n\n"
      << "// Bytes of the handle's intermediate values (one arena; values never alive at the\n"
      << "// same time share memory).\n"
      << "unsigned long long " << name << "_arena_bytes(void);\n\n"
      << "// Why the last call on this thread failed.\n"
      << "const char *" << name << "_last_error(void);\n\n"
      << "#ifdef __cplusplus\n}\n#endif\n";
    w.header = h.str();

    std::ostringstream s;
    s << "// Generated by Tessera: the C API of " << name << " (see " << name << ".h).\n"
      << "#include \"" << name << ".h\"\n\n";
    for (const std::string &ph : partition_headers) s << "#include \"" << ph << "\"\n";
    s << "\n#include \"HalideBuffer.h\"\n#include \"HalideRuntime.h\"\n#include \"model_thread_pool.h\"\n\n"
      << "#include <cstdint>\n#include <cstdio>\n#include <cstring>\n#include <memory>\n#include <string>\n#include <vector>\n\n"
      << "namespace {\n\nthread_local std::string last_error;\n"
      << "// What Halide's runtime last reported on this thread: kept for last_error instead\n"
      << "// of its default handler's abort (e.g. a GPU target on a machine without the driver).\n"
      << "thread_local std::string halide_message;\n\n"
      << "void record_halide_error(void *, const char *message) {\n"
      << "    halide_message = message;\n"
      << "    while (!halide_message.empty() && halide_message.back() == '\\n') halide_message.pop_back();\n}\n\n"
      << "constexpr uint64_t kWeightFloats = " << w.weight_floats << "ull;\n"
      << "// Bytes of the arena holding every intermediate value (see " << name << ".plan.json).\n"
      << "constexpr uint64_t kArenaBytes = " << w.memory.arena_bytes << "ull;\n\n"
      << "// While a run lasts, the pool's workers spin waiting for its parallel loops.\n"
      << "struct RunScope {\n"
      << "    ModelThreadPool &pool;\n"
      << "    explicit RunScope(ModelThreadPool &p) : pool(p) {\n"
      << "        install_model_thread_pool();\n        pool.begin_run();\n    }\n"
      << "    ~RunScope() { pool.end_run(); }\n};\n\n"
      << "int fail(const std::string &what, int code) {\n"
      << "    last_error = what + \" failed with Halide error \" + std::to_string(code);\n"
      << "    if (!halide_message.empty()) last_error += \": \" + halide_message;\n"
      << "    halide_message.clear();\n    return code;\n}\n\n"
      << "}  // namespace\n\n"
      << "struct " << name << "_model {\n    std::vector<float> weights;\n"
      << "    // Every intermediate value at its planned offset (aligned to "
      << kArenaAlignment << " bytes).\n"
      << "    std::vector<uint64_t> arena_storage;\n    char *arena = nullptr;\n"
      << "    std::unique_ptr<ModelThreadPool> pool;  // the kernels' user context\n"
      << (on_gpu ? "    // Weights and intermediate values as the GPU kernels see them: their device copies\n"
                   "    // live from the first run to destroy (weights copied once, intermediates never).\n"
                   "    std::vector<Halide::Runtime::Buffer<>> on_device;\n"
                 : "")
      << "};\n\n";
    // create: the weights file's bytes (read from a file, or linked in) checked and copied.
    s << "static " << name << "_model *load(const char *data, size_t size, const std::string &what, const " << name
      << "_options *options) {\n"
      << "    const " << name << "_options o = options ? *options : " << name << "_options{0, 0};\n"
      << "    if (o.threads < 0) {\n        last_error = \"" << name
      << "_options.threads is \" + std::to_string(o.threads) + \" (0 for every core, or a positive count)\";\n"
      << "        return nullptr;\n    }\n"
      << "    uint64_t count = 0;\n"
      << "    if (size >= 16) std::memcpy(&count, data + 8, sizeof count);\n"
      << "    if (size != 16 + 4 * kWeightFloats || std::memcmp(data, \"TSRWGT01\", 8) != 0 || count != kWeightFloats) {\n"
      << "        last_error = what + \": not the weights of " << name
      << " (\" + std::to_string(kWeightFloats) + \" floats expected)\";\n        return nullptr;\n    }\n"
      << "    halide_set_error_handler(record_halide_error);\n"
      << "    auto *m = new " << name << "_model;\n"
      << "    m->weights.resize(kWeightFloats);\n"
      << "    if (kWeightFloats) std::memcpy(m->weights.data(), data + 16, 4 * kWeightFloats);\n";
    s << "    m->arena_storage.resize((kArenaBytes + " << kArenaAlignment << ") / sizeof(uint64_t));\n"
      << "    const uintptr_t start = reinterpret_cast<uintptr_t>(m->arena_storage.data());\n"
      << "    m->arena = reinterpret_cast<char *>((start + " << kArenaAlignment - 1 << ") / " << kArenaAlignment
      << " * " << kArenaAlignment << ");\n"
      << "    m->pool = std::make_unique<ModelThreadPool>(o.threads ? o.threads : ModelThreadPool::available_cores(),\n"
      << "                                                o.pin_threads != 0);\n";
    std::map<std::string, size_t> device_index;  // value -> m->on_device[i] (on a GPU)
    if (on_gpu) {
        for (const std::string &v : w.weights) {
            s << "    m->on_device.emplace_back(Halide::Runtime::Buffer<float>(" << where.at(v) << ", "
              << extents(g.value(v).shape) << "));  // " << v << "\n    m->on_device.back().set_host_dirty();\n";
            device_index[v] = device_index.size();
        }
        for (const BufferLifetime &b : w.lifetimes) {
            const std::string &value = b.value;
            s << "    m->on_device.emplace_back(Halide::Runtime::Buffer<" << c_type(g, value) << ">(" << where.at(value)
              << ", " << extents(g.value(value).shape) << "));  // " << value << "\n";
            device_index[value] = device_index.size();
        }
    }
    s << "    return m;\n}\n\n";
    s << name << "_model *" << name << "_create(const char *weights_path) {\n"
      << "    return " << name << "_create_with_options(weights_path, nullptr);\n}\n\n"
      << name << "_model *" << name << "_create_with_options(const char *weights_path, const " << name
      << "_options *options) {\n"
      << "    std::FILE *f = std::fopen(weights_path, \"rb\");\n"
      << "    if (!f) {\n        last_error = std::string(weights_path) + \": cannot open\";\n        return nullptr;\n    }\n"
      << "    std::vector<char> bytes;\n    char chunk[1 << 16];\n"
      << "    for (size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0;) bytes.insert(bytes.end(), chunk, chunk + n);\n"
      << "    std::fclose(f);\n"
      << "    return load(bytes.data(), bytes.size(), weights_path, options);\n}\n\n";
    if (embedded) {
        // Linked in by `ld -r -b binary` from <name>_weights.bin.
        s << "extern \"C\" const char _binary_" << name << "_weights_bin_start[], _binary_" << name
          << "_weights_bin_end[];\n\n"
          << name << "_model *" << name << "_create_embedded(void) {\n"
          << "    return " << name << "_create_embedded_with_options(nullptr);\n}\n\n"
          << name << "_model *" << name << "_create_embedded_with_options(const " << name << "_options *options) {\n"
          << "    return load(_binary_" << name << "_weights_bin_start, size_t(_binary_" << name
          << "_weights_bin_end - _binary_" << name << "_weights_bin_start), \"the embedded weights\", options);\n}\n\n";
    }

    // run
    s << "int " << name << "_run(" << params << ") {\n"
      << "    RunScope scope(*m->pool);\n";
    for (size_t k = 0; k < partitions.size(); k++) {
        const LoweredPartition &lp = partitions[k];
        s << "    {  // " << lp.name << "\n";
        std::string args;
        // A value kept on the device is its persistent buffer; any other (the caller's
        // arrays) a buffer for this call, copied over and back on a GPU.
        // In the shape the kernel takes it (lower_partition: planes as rows).
        auto buffer = [&](const std::string &var, const std::string &v, const Shape &shape, bool input) {
            if (device_index.count(v)) {
                s << "        Halide::Runtime::Buffer<> &" << var << " = m->on_device[" << device_index.at(v) << "];\n";
                return;
            }
            s << "        Halide::Runtime::Buffer<" << c_type(g, v) << "> " << var << "(" << where.at(v) << ", "
              << extents(shape) << ");\n";
            if (on_gpu && input) s << "        " << var << ".set_host_dirty();\n";
        };
        for (size_t i = 0; i < lp.input_values.size(); i++) {
            buffer("a" + std::to_string(i), lp.input_values[i], lp.param_shapes[i], true);
            args += "a" + std::to_string(i) + ", ";
        }
        buffer("out", lp.output_value, lp.output_shape, false);
        // The pool is each kernel's user context (Target::UserContext): its parallel loops run there.
        s << "        if (int e = " << function_names[k] << "(m->pool.get(), " << args << "out)) return fail(\"" << lp.name
          << "\", e);\n";
        if (on_gpu && !device_index.count(lp.output_value)) {
            s << "        if (int e = out.copy_to_host()) return fail(\"" << lp.name << " (copy to the host)\", e);\n";
        }
        s << "    }\n";
    }
    // Outputs no partition computes: a graph input or a constant passed through.
    for (size_t k = 0; k < g.outputs.size(); k++) {
        const std::string &v = g.outputs[k];
        bool computed = false;
        for (const LoweredPartition &lp : partitions) computed |= lp.output_value == v;
        if (computed) continue;
        if (!where.count(v) || where.at(v) == out_names[k]) {
            if (!g.is_constant(v)) throw GraphError("emit: output '" + v + "' is never computed (internal error)");
            throw GraphError("emit: output '" + v + "' is a constant; constant outputs are not compiled yet");
        }
        s << "    std::memcpy(" << out_names[k] << ", " << where.at(v) << ", "
          << num_elements(g.value(v).shape) << " * sizeof(" << c_type(g, v) << "));\n";
    }
    s << "    return 0;\n}\n\n";
    s << "int " << name << "_run_arrays(" << name << "_model *m, const void *const *inputs, void *const *outputs) {\n"
      << "    return " << name << "_run(m";
    for (size_t k = 0; k < in_names.size(); k++) s << ", static_cast<const " << c_type(g, g.inputs[k]) << " *>(inputs[" << k << "])";
    for (size_t k = 0; k < out_names.size(); k++) s << ", static_cast<" << c_type(g, g.outputs[k]) << " *>(outputs[" << k << "])";
    s << ");\n}\n\n"
      << "void " << name << "_destroy(" << name << "_model *m) {\n    delete m;\n}\n\n"
      << "int " << name << "_threads(const " << name << "_model *m) {\n    return m->pool->threads();\n}\n\n"
      << "unsigned long long " << name << "_arena_bytes(void) {\n    return kArenaBytes;\n}\n\n"
      << "const char *" << name << "_last_error(void) {\n    return last_error.c_str();\n}\n";
    w.source = s.str();
    return w;
}

void write_weights_file(const Graph &g, const std::vector<std::string> &weights, const std::string &path) {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw std::runtime_error(path + ": cannot write");
    uint64_t count = 0;
    for (const std::string &v : weights) count += uint64_t(g.value(v).data->f.size());
    out.write("TSRWGT01", 8);
    out.write(reinterpret_cast<const char *>(&count), sizeof count);
    for (const std::string &v : weights) {
        const std::vector<float> &f = g.value(v).data->f;
        out.write(reinterpret_cast<const char *>(f.data()), std::streamsize(f.size() * sizeof(float)));
    }
    if (!out) throw std::runtime_error(path + ": write failed");
}

}  // namespace tessera::graph
