// tessera-gpu-bench: times the CUDA libraries of generators/gpu_bench_suite.cmake
// (every case under Tessera and the other GPU schedulers) beside cuBLAS or cuDNN on
// the same op, on the machine's GPU.
//
// The process does not link libHalide: the libraries were compiled ahead of time, so
// a GPU machine needs only this binary and the CUDA driver (cuBLAS and cuDNN for
// their rows). Each contender is first checked against the plain C++ reference on
// fresh random inputs into a NaN-poisoned output, then timed on device-resident data:
// batches of back-to-back launches, each batch ended by a device synchronisation,
// the median batch divided by its launches.
//
//   tessera-gpu-bench [--filter TEXT] [--batches N] [--launches N] [--seed S] [--json FILE] [--list]
#include "cuda_device.h"
#include "gpu_aot_run.h"
#include "gpu_bench_registry.h"
#include "op_catalog.h"
#include "reference.h"
#include "tensor.h"

#ifdef TESSERA_HAVE_CUBLAS
#include "cublas_gemm.h"
#endif
#ifdef TESSERA_HAVE_CUDNN
#include "cudnn_conv.h"
#endif

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera {
namespace {

// Norm-wise relative error bound for fp32 kernels against the double reference
// (the CPU suites' bound, apps/common/op_check.h).
constexpr double kRelTolerance = 1e-4;

struct Usage : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Options {
    std::string filter, json_path;
    int batches = 30, launches = 10;
    uint64_t seed = 1;
    bool list = false;
};

// One contender's result on one case.
struct Row {
    std::string contender, impl, error_text;
    double rel_error = NAN, median_ms = NAN, min_ms = NAN;
    bool correct = false;
};

// The cases in suite order, each op line once.
std::vector<std::string> case_lines() {
    std::vector<std::string> lines;
    for (const GpuAotKernel &k : cuda_bench_kernels()) {
        if (std::find(lines.begin(), lines.end(), k.config) == lines.end()) lines.push_back(k.config);
    }
    return lines;
}

using Clock = std::chrono::steady_clock;

// `launch` queued `launches` times back to back, then `sync`: per-launch ms, the
// median and the minimum over `batches` such batches (after two warm-up batches).
std::pair<double, double> time_launches(const Options &opt, const std::function<void()> &launch,
                                        const std::function<void()> &sync) {
    std::vector<double> per_launch;
    for (int b = -2; b < opt.batches; b++) {
        const auto start = Clock::now();
        for (int l = 0; l < opt.launches; l++) launch();
        sync();
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count() / opt.launches;
        if (b >= 0) per_launch.push_back(ms);
    }
    std::sort(per_launch.begin(), per_launch.end());
    return {per_launch[per_launch.size() / 2], per_launch.front()};
}

void check_status(int status, const char *what) {
    if (status == 0) return;
    const std::string message = GpuAotRun::take_error_message();
    throw std::runtime_error(std::string(what) + " returned Halide error " + std::to_string(status) +
                             (message.empty() ? "" : ": " + message));
}

Row run_halide(const Options &opt, const GpuAotKernel &kernel, const ops::OpSignature &sig,
               std::vector<Tensor> inputs, const Tensor &expected) {
    Row row;
    row.contender = kernel.scheduler;
    row.impl = kernel.name;
    Tensor output(sig.output.shape);
    poison(output);
    GpuAotRun call(kernel, inputs, output);
    check_status(call.run(), "the pipeline");
    if (!call.output_on_device()) throw std::runtime_error("the output was not written on the device");
    check_status(call.copy_output_to_host(), "copying the output back");
    row.rel_error = relative_error(output, expected);
    row.correct = row.rel_error <= kRelTolerance;  // NaN fails
    std::tie(row.median_ms, row.min_ms) = time_launches(
        opt, [&] { check_status(call.run(), "the pipeline"); }, [&] { check_status(call.sync(), "device_sync"); });
    return row;
}

// cuBLAS for GEMMs, cuDNN for convolutions; nullptr where neither runs the op.
std::unique_ptr<cuda::GpuBaseline> vendor_for(const ops::OpConfig &config) {
    std::unique_ptr<cuda::GpuBaseline> vendor;
#ifdef TESSERA_HAVE_CUBLAS
    vendor = cuda::make_cublas_op(config);
    if (vendor->supported()) return vendor;
#endif
#ifdef TESSERA_HAVE_CUDNN
    vendor = cuda::make_cudnn_op(config);
    if (vendor->supported()) return vendor;
#endif
    (void)config;
    return nullptr;
}

Row run_vendor(const Options &opt, cuda::GpuBaseline &vendor, const ops::OpSignature &sig,
               const std::vector<Tensor> &inputs, const Tensor &expected) {
    Row row;
    row.contender = vendor.impl().rfind("cudnn", 0) == 0 ? "cuDNN" : "cuBLAS";
    row.impl = vendor.impl();
    Tensor output(sig.output.shape);
    poison(output);
    vendor.run(inputs, output);
    row.rel_error = relative_error(output, expected);
    row.correct = row.rel_error <= kRelTolerance;
    std::tie(row.median_ms, row.min_ms) = time_launches(opt, [&] { vendor.launch(); }, [] { cuda::synchronize(); });
    return row;
}

std::string rate(const ops::OpSignature &sig, double ms) {
    char text[64];
    if (sig.compute_bound) std::snprintf(text, sizeof text, "%8.0f GFLOP/s", sig.flops / ms * 1e-6);
    else std::snprintf(text, sizeof text, "%8.0f GB/s   ", sig.bytes / ms * 1e-6);
    return text;
}

int run(const Options &opt) {
    std::vector<std::string> lines = case_lines();
    if (!opt.filter.empty()) {
        lines.erase(std::remove_if(lines.begin(), lines.end(),
                                   [&](const std::string &l) { return l.find(opt.filter) == std::string::npos; }),
                    lines.end());
        if (lines.empty()) throw Usage("no case matches --filter '" + opt.filter + "' (--list shows them)");
    }
    if (opt.list) {
        for (const std::string &l : lines) std::printf("%s\n", l.c_str());
        return 0;
    }
    const std::string no_gpu = cuda::why_no_gpu();
    if (!no_gpu.empty()) {
        std::fprintf(stderr, "tessera-gpu-bench: %s: nothing to time (the libraries need a CUDA GPU)\n",
                     no_gpu.c_str());
        return 3;
    }
    std::printf("tessera-gpu-bench: %s\n", cuda::device_summary().c_str());
    std::printf("each contender checked against the reference, then %d batches of %d launches on device-resident "
                "data: median (min) ms per launch\n\n",
                opt.batches, opt.launches);
    nlohmann::json records = nlohmann::json::array();
    bool all_correct = true;
    for (size_t c = 0; c < lines.size(); c++) {
        const std::string &line = lines[c];
        const ops::OpConfig config = ops::parse_op_line(line);
        const ops::OpSignature sig = ops::describe_op(config);
        std::vector<Tensor> inputs;
        for (size_t i = 0; i < sig.inputs.size(); i++) {
            const ops::TensorSpec &spec = sig.inputs[i];
            inputs.push_back(random_tensor(spec.shape, opt.seed * 1000003 + c * 101 + i, spec.lo, spec.hi));
        }
        const Tensor expected = reference(config, inputs);
        std::printf("%s\n", line.c_str());
        std::fflush(stdout);

        std::vector<Row> rows;
        auto attempt = [&](const std::string &contender, const std::function<Row()> &f) {
            try {
                rows.push_back(f());
            } catch (const std::exception &e) {
                Row failed;
                failed.contender = contender;
                failed.error_text = e.what();
                rows.push_back(failed);
            }
        };
        for (const GpuAotKernel &k : cuda_bench_kernels()) {
            if (k.config == line) attempt(k.scheduler, [&] { return run_halide(opt, k, sig, inputs, expected); });
        }
        std::unique_ptr<cuda::GpuBaseline> vendor = vendor_for(config);
        if (vendor) attempt("vendor", [&] { return run_vendor(opt, *vendor, sig, inputs, expected); });

        const Row *vendor_row = vendor && rows.back().error_text.empty() ? &rows.back() : nullptr;
        for (const Row &r : rows) {
            nlohmann::json record = {{"op", line}, {"contender", r.contender}, {"impl", r.impl},
                                     {"flops", sig.flops}, {"bytes", sig.bytes}};
            if (!r.error_text.empty()) {
                std::printf("  %-8s FAILED: %s\n", r.contender.c_str(), r.error_text.c_str());
                record["error"] = r.error_text;
                all_correct = false;
            } else {
                std::string versus;
                if (vendor_row && &r != vendor_row) {
                    char text[64];
                    std::snprintf(text, sizeof text, "  %.2fx %s", vendor_row->median_ms / r.median_ms,
                                  vendor_row->contender.c_str());
                    versus = text;
                    record["speedup_vs_vendor"] = vendor_row->median_ms / r.median_ms;
                }
                std::printf("  %-8s %9.4f (%9.4f) ms %s  rel err %.1e%s%s\n", r.contender.c_str(), r.median_ms,
                            r.min_ms, rate(sig, r.median_ms).c_str(), r.rel_error, r.correct ? "" : " WRONG",
                            versus.c_str());
                record["median_ms"] = r.median_ms;
                record["min_ms"] = r.min_ms;
                record["rel_error"] = r.rel_error;
                record["correct"] = r.correct;
                all_correct &= r.correct;
            }
            records.push_back(record);
        }
        std::fflush(stdout);
    }
    if (!opt.json_path.empty()) {
        std::ofstream out(opt.json_path);
        out << nlohmann::json{{"device", cuda::device_summary()}, {"records", records}}.dump(1) << "\n";
        if (!out) throw std::runtime_error(opt.json_path + ": cannot write");
    }
    if (!all_correct) std::printf("\nsome contenders failed or were wrong (see above)\n");
    return all_correct ? 0 : 1;
}

Options parse(int argc, char **argv) {
    Options opt;
    for (int i = 1; i < argc; i++) {
        const std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw Usage(a + " needs a value");
            return argv[++i];
        };
        auto count = [&]() {
            const std::string v = value();
            char *end = nullptr;
            const long n = std::strtol(v.c_str(), &end, 10);
            if (*end || n < 1 || n > 100000) throw Usage(a + " " + v + ": a count from 1 to 100000");
            return int(n);
        };
        if (a == "--filter") opt.filter = value();
        else if (a == "--json") opt.json_path = value();
        else if (a == "--batches") opt.batches = count();
        else if (a == "--launches") opt.launches = count();
        else if (a == "--seed") opt.seed = uint64_t(count());
        else if (a == "--list") opt.list = true;
        else throw Usage("unknown argument '" + a + "'");
    }
    return opt;
}

}  // namespace
}  // namespace tessera

int main(int argc, char **argv) {
    try {
        return tessera::run(tessera::parse(argc, argv));
    } catch (const tessera::Usage &e) {
        std::fprintf(stderr,
                     "tessera-gpu-bench: %s\nusage: tessera-gpu-bench [--filter TEXT] [--batches N] [--launches N] "
                     "[--seed S] [--json FILE] [--list]\n",
                     e.what());
        return 2;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tessera-gpu-bench: %s\n", e.what());
        return 2;
    }
}
