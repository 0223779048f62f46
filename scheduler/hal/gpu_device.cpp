#include "gpu_device.h"

#include "diagnostics.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

namespace tessera::hal {

namespace {

// Threads of the blocks Tessera builds; with two such blocks resident per SM the
// register file gives each thread registers_per_sm / 512 registers (128 on every
// CUDA part below), which is the cap its per-thread tiles keep within.
constexpr int kBlockThreads = 256, kResidentBlocks = 2;

int register_cap(const GpuFigures &g) {
    return std::min(g.max_registers_per_thread, g.registers_per_sm / (kBlockThreads * kResidentBlocks));
}

// Per-SM figures: NVIDIA CUDA C++ Programming Guide, "Technical Specifications per
// Compute Capability" (registers, threads, shared memory per SM; 48 KiB of
// dynamic shared memory per block without cudaFuncSetAttribute, which Halide's
// runtime does not call) and the architecture whitepapers (FP32 lanes per SM).
// Chip-wide figures (SMs, boost clock, L2, DRAM) from the named part's datasheet.
struct CudaPart {
    int capability;
    const char *name;
    int sms, fp32_lanes_per_sm;
    double clock_ghz;
    int max_threads_per_sm;
    int64_t shared_bytes_per_sm, l2_bytes;
    double dram_gbs;
};
const CudaPart kCudaParts[] = {
    {90, "CUDA sm_90 (NVIDIA H100 SXM5)", 132, 128, 1.98, 2048, 228 << 10, int64_t(50) << 20, 3350},
    {89, "CUDA sm_89 (NVIDIA L4)", 58, 128, 2.04, 1536, 100 << 10, int64_t(48) << 20, 300},
    {86, "CUDA sm_86 (NVIDIA A10)", 72, 128, 1.695, 1536, 100 << 10, int64_t(6) << 20, 600},
    {80, "CUDA sm_80 (NVIDIA A100 SXM4 40GB)", 108, 64, 1.41, 2048, 164 << 10, int64_t(40) << 20, 1555},
    {75, "CUDA sm_75 (NVIDIA T4)", 40, 64, 1.59, 1024, 64 << 10, int64_t(4) << 20, 320},
};

// The fields a GPU profile JSON may set, each over the table's value.
template <typename F>
void for_each_field(GpuFigures &g, F &&f) {
    f("sms", g.sms);
    f("fp32_lanes_per_sm", g.fp32_lanes_per_sm);
    f("warp", g.warp);
    f("max_threads_per_block", g.max_threads_per_block);
    f("max_threads_per_sm", g.max_threads_per_sm);
    f("registers_per_sm", g.registers_per_sm);
    f("max_registers_per_thread", g.max_registers_per_thread);
    f("register_cap_per_thread", g.register_cap_per_thread);
    f("shared_bytes_per_sm", g.shared_bytes_per_sm);
    f("shared_bytes_per_block", g.shared_bytes_per_block);
    f("shared_banks", g.shared_banks);
    f("bank_bytes", g.bank_bytes);
    f("transaction_bytes", g.transaction_bytes);
    f("l2_bytes", g.l2_bytes);
}

}  // namespace

GpuFigures cuda_figures(int capability) {
    const CudaPart *part = &kCudaParts[std::size(kCudaParts) - 1];
    for (const CudaPart &p : kCudaParts) {
        if (capability >= p.capability) {
            part = &p;
            break;
        }
    }
    GpuFigures g;
    g.source = "built-in CUDA table (CUDA C++ Programming Guide; the part's datasheet)";
    g.name = part->name;
    g.sms = part->sms, g.fp32_lanes_per_sm = part->fp32_lanes_per_sm, g.clock_ghz = part->clock_ghz;
    g.max_threads_per_sm = part->max_threads_per_sm;
    g.shared_bytes_per_sm = part->shared_bytes_per_sm, g.l2_bytes = part->l2_bytes, g.dram_gbs = part->dram_gbs;
    g.register_cap_per_thread = register_cap(g);
    return g;
}

GpuFigures opencl_gpu_figures() {
    // The smallest of the CUDA table's per-SM figures, 16 compute units: what any
    // discrete GPU of the last years offers at least.
    GpuFigures g = cuda_figures(75);
    g.name = "generic OpenCL GPU";
    g.sms = 16;
    g.max_threads_per_block = 256;
    g.shared_bytes_per_sm = g.shared_bytes_per_block = 32 << 10;
    g.source = "built-in generic OpenCL GPU figures";
    return g;
}

GpuFigures pocl_cpu_figures(int cores) {
    // PoCL 3.1's CPU device (pthread driver) through clGetDeviceInfo: one compute unit
    // per core, work-groups of up to 4096 work-items, 1 MiB of local memory, 64-byte
    // lines. A work-group runs on one core, its work-items as vector lanes: the
    // "warp" is the 16-float preferred vector width.
    GpuFigures g;
    g.name = "PoCL CPU device";
    g.sms = std::max(1, cores);
    g.fp32_lanes_per_sm = 16;
    g.clock_ghz = 2.5;
    g.warp = 16;
    g.max_threads_per_block = 4096;
    g.max_threads_per_sm = 4096;
    g.shared_bytes_per_sm = g.shared_bytes_per_block = 1 << 20;
    g.transaction_bytes = 64;
    g.l2_bytes = int64_t(32) << 20;
    g.dram_gbs = 20;
    g.register_cap_per_thread = register_cap(g);
    g.source = "built-in PoCL 3.1 CPU-device figures (clGetDeviceInfo)";
    return g;
}

std::optional<GpuFigures> load_gpu_profile(const std::string &path, const GpuFigures &base, std::string *error) {
    std::ifstream in(path);
    if (!in) {
        if (error) *error = path + ": cannot open";
        return std::nullopt;
    }
    try {
        const nlohmann::json j = nlohmann::json::parse(in);
        GpuFigures g = base;
        g.source = path;
        if (j.contains("name")) g.name = j.at("name").get<std::string>();
        if (j.contains("clock_ghz")) g.clock_ghz = j.at("clock_ghz").get<double>();
        if (j.contains("dram_gbs")) g.dram_gbs = j.at("dram_gbs").get<double>();
        for_each_field(g, [&](const char *key, auto &field) {
            if (!j.contains(key)) return;
            const nlohmann::json &v = j.at(key);
            if (!v.is_number_integer() || v.get<int64_t>() <= 0 || v.get<int64_t>() > (int64_t(1) << 40)) {
                throw std::runtime_error(std::string("'") + key + "' must be a positive integer, got " + v.dump());
            }
            field = decltype(+field)(v.get<int64_t>());
        });
        if (g.clock_ghz <= 0 || g.dram_gbs <= 0) throw std::runtime_error("'clock_ghz' and 'dram_gbs' must be positive");
        if (g.shared_bytes_per_block > g.shared_bytes_per_sm || g.max_threads_per_block < g.warp ||
            g.register_cap_per_thread > g.max_registers_per_thread) {
            throw std::runtime_error("inconsistent figures: shared memory per block beyond the SM's, blocks smaller "
                                     "than a warp, or a register cap beyond the hardware's");
        }
        if (!j.contains("register_cap_per_thread")) g.register_cap_per_thread = register_cap(g);
        return g;
    } catch (const std::exception &e) {
        if (error) *error = path + ": " + e.what();
        return std::nullopt;
    }
}

GpuFigures gpu_figures_for_target(const Halide::Target &target, const std::string &profile) {
    const bool cuda = target.has_feature(Halide::Target::CUDA);
    // Halide 14 names capabilities up to 8.6; a target without one gets 7.5's
    // figures, the oldest CUDA 13 still compiles for.
    const GpuFigures table =
        cuda ? cuda_figures(target.get_cuda_capability_lower_bound()) : opencl_gpu_figures();
    if (profile.empty()) return table;
    if (profile == "pocl-cpu") return pocl_cpu_figures(int(std::thread::hardware_concurrency()));
    if (profile == "opencl-gpu") return opencl_gpu_figures();
    if (profile.rfind("cuda-sm", 0) == 0) return cuda_figures(std::atoi(profile.c_str() + 7));
    std::string error;
    const std::optional<GpuFigures> loaded = load_gpu_profile(profile, table, &error);
    user_assert(loaded.has_value()) << "Tessera: GPU profile " << error << "\n";
    return *loaded;
}

double balance_flops_per_byte(const GpuFigures &g) {
    return 2.0 * g.fp32_lanes_per_sm * g.clock_ghz * g.sms / g.dram_gbs;
}

DeviceSpec make_gpu_device_spec(const Halide::Target &target, const GpuFigures &g, int element_bytes) {
    DeviceSpec d;
    d.arch = target.has_feature(Halide::Target::CUDA) ? "cuda" : "opencl";
    d.cores = g.sms;
    d.element_bytes = element_bytes;
    // A warp is the GPU's vector: its threads issue one instruction together.
    d.vector_lanes = g.warp;
    d.vector_bytes = g.warp * element_bytes;
    d.vector_registers = g.register_cap_per_thread;
    d.fma_pipes = std::max(1, g.fp32_lanes_per_sm / g.warp);
    d.fma_latency = 4;
    d.peak_gflops_per_core = 2.0 * g.fp32_lanes_per_sm * g.clock_ghz;
    d.profile_source = g.source;
    d.layers = {
        {"registers", MemoryRole::Registers, int64_t(g.registers_per_sm) * 4, 4, 0},
        {"shared", MemoryRole::Scratchpad, g.shared_bytes_per_block, int64_t(g.shared_banks) * g.bank_bytes, 0},
        {"L2", MemoryRole::SharedCache, g.l2_bytes / std::max(1, g.sms), g.transaction_bytes, 0},
        {"DRAM", MemoryRole::Memory, int64_t(1) << 40, g.transaction_bytes, g.dram_gbs / std::max(1, g.sms)},
    };
    d.tile_layers = {0, 1, 1};
    d.gpu = g;
    return d;
}

}  // namespace tessera::hal
