#include "contender.h"

#include "bench_record.h"
#include "stopwatch.h"
#include "unfused_chain.h"

#include "gpu_baseline.h"

#include <cstdlib>
#include <sstream>
#include <stdexcept>

#ifdef TESSERA_HAVE_ONEDNN
#include "onednn_op.h"
#endif
#ifdef TESSERA_HAVE_CUBLAS
#include "cublas_gemm.h"
#include "cuda_device.h"
#endif
#ifdef TESSERA_HAVE_CUDNN
#include "cudnn_conv.h"
#endif

namespace tessera::bench {

bool have_onednn() {
#ifdef TESSERA_HAVE_ONEDNN
    return true;
#else
    return false;
#endif
}

std::vector<std::string> usable_gpu_baselines() {
    std::vector<std::string> names;
#ifdef TESSERA_HAVE_CUBLAS
    if (!cuda::why_no_gpu().empty()) return names;
    names.push_back(kCublas);
#endif
#ifdef TESSERA_HAVE_CUDNN
    names.push_back(kCudnn);
#endif
    return names;
}

namespace {

// The cuBLAS or cuDNN baseline for `config`, or nullptr with `why_not` set when this
// build lacks it. One without a GPU to run on is unsupported: "no GPU (...)".
std::unique_ptr<cuda::GpuBaseline> make_gpu_baseline(const ops::OpConfig &config, const std::string &name,
                                                     std::string &why_not) {
#ifdef TESSERA_HAVE_CUBLAS
    if (name == kCublas) return cuda::make_cublas_op(config);
#endif
#ifdef TESSERA_HAVE_CUDNN
    if (name == kCudnn) return cuda::make_cudnn_op(config);
#endif
    (void)config;
    why_not = "this build has no " + name + " (CMake did not find it under the CUDA toolkit)";
    return nullptr;
}

}  // namespace

Variant split_variant(const std::string &contender) {
    Variant v;
    std::stringstream in(contender);
    std::string piece;
    std::getline(in, v.base, '+');
    while (std::getline(in, piece, '+')) {
        const size_t eq = piece.find('=');
        if (eq == std::string::npos || eq == 0) {
            throw std::invalid_argument("variant setting '" + piece + "' of '" + contender + "' is not VAR=VALUE");
        }
        v.settings.push_back({piece.substr(0, eq), piece.substr(eq + 1)});
    }
    return v;
}

SchedulerChoice apply_variant(const Variant &variant, const SchedulerChoice &base) {
    SchedulerChoice choice = base;
    for (const auto &[name, value] : variant.settings) {
        if (name == kMeasureSetting) measured_candidates_of(variant, 0);  // checks the value
        else set_scheduler_option(choice.options, name, value);
    }
    return choice;
}

int measured_candidates_of(const Variant &variant, int fallback) {
    for (const auto &[name, value] : variant.settings) {
        if (name != kMeasureSetting) continue;
        char *end = nullptr;
        const long k = std::strtol(value.c_str(), &end, 10);
        if (value.empty() || *end || k < 1 || k > 64) {
            throw std::invalid_argument(std::string(kMeasureSetting) + "=" + value + ": needs a count of candidates, 1-64");
        }
        fallback = int(k);
    }
    return fallback;
}

Contender::Contender(const ops::OpConfig &config, const std::string &scheduler, const SchedulerChoice &base,
                     int measured_candidates, graph::JitThreadPool *pool)
    : scheduler_(scheduler) {
    const Variant variant = split_variant(scheduler);
    if (variant.base == kTesseraUnfused) {
        if (!is_chain_op(config.op)) {
            why_not_ = kTesseraUnfused + " runs chain ops only (attention, gemm_chain, conv_chain)";
            return;
        }
        SchedulerChoice tessera = apply_variant(variant, base);
        tessera.name = "Tessera";
        unfused_ = std::make_unique<UnfusedChain>(config, tessera);
        schedule_ms_ = unfused_->schedule_ms();
        compile_ms_ = unfused_->compile_ms();
        return;
    }
    if (variant.base == kCublas || variant.base == kCudnn) {
        Stopwatch watch;
        gpu_ = make_gpu_baseline(config, variant.base, why_not_);
        // Handles, descriptors, the algorithm search and the workspace: the baseline's set-up.
        compile_ms_ = watch.lap_ms();
        if (gpu_ && !gpu_->supported()) why_not_ = gpu_->why_not();
        return;
    }
    if (variant.base != kOnednn) {
        SchedulerChoice choice = apply_variant(variant, base);
        choice.name = variant.base;
        halide_ = std::make_unique<JitOp>(config, choice, measured_candidates_of(variant, measured_candidates), pool);
        schedule_ms_ = halide_->schedule_ms();
        compile_ms_ = halide_->compile_ms();
        return;
    }
#ifdef TESSERA_HAVE_ONEDNN
    Stopwatch watch;
    onednn_ = std::make_unique<onednn::OnednnOp>(config);
    // Primitive creation is oneDNN's "code generation" (its JIT kernels are made here).
    compile_ms_ = watch.lap_ms();
    if (!onednn_->supported()) why_not_ = onednn_->why_not();
#else
    why_not_ = "this build has no oneDNN (libdnnl-dev was not found by CMake)";
#endif
}

Contender::~Contender() = default;

std::string Contender::impl() const {
    if (gpu_) return gpu_->impl();
#ifdef TESSERA_HAVE_ONEDNN
    if (onednn_) return onednn_->impl();
#endif
    if (unfused_) return "halide:" + unfused_->impl();
    return "halide:" + scheduler_;
}

bool Contender::optimised_impl() const {
#ifdef TESSERA_HAVE_ONEDNN
    if (onednn_) return onednn_->optimised_impl();
#endif
    return true;
}

void Contender::run(std::vector<Tensor> &inputs, Tensor &output, graph::JitThreadPool *pool) {
    if (halide_) {
        halide_->run(inputs, output, pool);
        return;
    }
    if (unfused_) {
        unfused_->run(inputs, output, pool);
        return;
    }
    if (gpu_ && gpu_->supported()) {
        gpu_->run(inputs, output);
        return;
    }
#ifdef TESSERA_HAVE_ONEDNN
    if (onednn_) {
        onednn_->run(inputs, output);
        return;
    }
#endif
    throw std::logic_error("Contender::run: " + scheduler_ + " cannot run this op: " + why_not_);
}

}  // namespace tessera::bench
