// The CUDA objects of generators/gpu_aot_suite.cmake (every case for
// cuda_capability_75 and _86, under every scheduler of TESSERA_GPU_SCHEDULERS):
// their embedded PTX assembled by ptxas for sm_75 (the 7.5 PTX), sm_86 and sm_90
// (the 8.6 PTX). The schedules of TESSERA_GPU_SCHEDULER must run every stage as a
// kernel, spill nothing and fit the architecture's registers and shared memory;
// the others are only shown beside them. Prints a table: op x arch, per scheduler,
// kernels / max registers per thread / max shared bytes per block / spill bytes.
#include "gpu_caps.h"
#include "ptx_extract.h"
#include "ptxas_report.h"
#include "stmt_offload.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace tessera::gpu {
namespace {

struct CudaObject {
    std::string scheduler, capability, name, object, stmt, config;
};

std::vector<CudaObject> read_manifest(const std::string &path) {
    std::ifstream in(path);
    std::vector<CudaObject> objects;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        CudaObject o;
        std::getline(fields, o.scheduler, '\t');
        std::getline(fields, o.capability, '\t');
        std::getline(fields, o.name, '\t');
        std::getline(fields, o.object, '\t');
        std::getline(fields, o.stmt, '\t');
        std::getline(fields, o.config, '\t');
        if (!o.config.empty()) objects.push_back(o);
    }
    return objects;
}

// The architectures each capability's PTX is assembled for.
std::vector<std::string> archs_for(const std::string &capability) {
    if (capability == "75") return {"sm_75"};
    return {"sm_86", "sm_90"};
}

// One op's kernels on one architecture, summarised for the table.
struct Figures {
    int kernels = 0;
    int max_registers = 0;
    int64_t max_shared_bytes = 0;  // static + the launch's dynamic shared memory
    int64_t spill_bytes = 0;       // stores + loads
};

// "registers/shared bytes/spill bytes"
std::string cell(const Figures *f) {
    if (!f) return "-";
    return std::to_string(f->max_registers) + "/" + std::to_string(f->max_shared_bytes) + "/" +
           std::to_string(f->spill_bytes);
}

const std::vector<std::string> &table_archs() {
    static const std::vector<std::string> archs = {"sm_75", "sm_86", "sm_90"};
    return archs;
}

// ptxas on every object's PTX for each of its architectures, several at a time: one
// run mostly waits for its 40 MB binary to page in. Keyed by object path and arch.
std::map<std::string, PtxasResult> assemble_all(const std::vector<CudaObject> &objects) {
    struct Job {
        std::string key, ptx, arch;
    };
    std::vector<Job> jobs;
    for (const CudaObject &o : objects) {
        const std::vector<std::string> modules = ptx_modules_in_object(o.object);
        if (modules.size() != 1) continue;  // reported by the test
        for (const std::string &arch : archs_for(o.capability)) jobs.push_back({o.object + "|" + arch, modules[0], arch});
    }
    std::vector<PtxasResult> results(jobs.size());
    std::atomic<size_t> next{0};
    std::vector<std::thread> workers;
    for (int w = 0; w < 4; w++) {
        workers.emplace_back([&] {
            for (size_t i = next++; i < jobs.size(); i = next++) results[i] = run_ptxas(TESSERA_PTXAS, jobs[i].ptx, jobs[i].arch);
        });
    }
    for (std::thread &t : workers) t.join();
    std::map<std::string, PtxasResult> by_key;
    for (size_t i = 0; i < jobs.size(); i++) by_key[jobs[i].key] = std::move(results[i]);
    return by_key;
}

TEST(Ptxas, EveryOperatorSpillsNothingAndFitsTheCaps) {
    const std::vector<CudaObject> objects = read_manifest(TESSERA_GPU_CUDA_MANIFEST);
    ASSERT_FALSE(objects.empty()) << "no CUDA objects listed in " << TESSERA_GPU_CUDA_MANIFEST;
    const std::string asserted = TESSERA_GPU_SCHEDULER;
    std::map<std::string, PtxasResult> assembled = assemble_all(objects);

    std::vector<std::string> schedulers, ops;
    std::map<std::string, Figures> table;  // scheduler|op|arch
    for (const CudaObject &o : objects) {
        SCOPED_TRACE(o.scheduler + " cuda_capability_" + o.capability + ": " + o.config + " (" + o.object + ")");
        if (std::find(schedulers.begin(), schedulers.end(), o.scheduler) == schedulers.end())
            schedulers.push_back(o.scheduler);
        if (std::find(ops.begin(), ops.end(), o.name) == ops.end()) ops.push_back(o.name);
        const bool checked = o.scheduler == asserted;

        const StmtOffload offload = read_stmt_offload(o.stmt);
        if (checked) {
            EXPECT_EQ(offload_problem(offload), "");
        }
        std::map<std::string, const KernelLaunch *> launch_of;
        for (const KernelLaunch &l : offload.launches) launch_of[l.kernel] = &l;

        const std::vector<std::string> modules = ptx_modules_in_object(o.object);
        ASSERT_EQ(modules.size(), 1u) << "PTX modules in the object";
        EXPECT_EQ(ptx_target(modules[0]), "sm_" + o.capability);

        for (const std::string &arch : archs_for(o.capability)) {
            const GpuCaps caps = gpu_caps(arch);
            const PtxasResult &result = assembled[o.object + "|" + arch];
            ASSERT_EQ(result.exit_status, 0) << result.log;
            EXPECT_EQ(result.kernels.size(), offload.kernels.size()) << result.log;
            Figures &f = table[o.scheduler + "|" + o.name + "|" + arch];
            for (const PtxasKernel &k : result.kernels) {
                SCOPED_TRACE(arch + " kernel " + k.name);
                int64_t shared = k.shared_bytes;
                int64_t threads = -1;
                auto launch = launch_of.find(k.name);
                if (launch != launch_of.end()) {
                    const int64_t dynamic = KernelLaunch::literal(launch->second->shared_bytes);
                    if (checked) {
                        EXPECT_GE(dynamic, 0) << "shared memory computed at run time: "
                                              << launch->second->shared_bytes;
                    }
                    shared += std::max<int64_t>(dynamic, 0);
                    threads = 1;
                    for (const std::string &t : launch->second->threads) {
                        const int64_t n = KernelLaunch::literal(t);
                        threads = (threads < 0 || n < 0) ? -1 : threads * n;
                    }
                } else if (checked) {
                    ADD_FAILURE() << "the host code never launches this kernel";
                }
                f.kernels++;
                f.max_registers = std::max(f.max_registers, k.registers);
                f.max_shared_bytes = std::max(f.max_shared_bytes, shared);
                f.spill_bytes += k.spill_store_bytes + k.spill_load_bytes;
                if (!checked) continue;
                EXPECT_EQ(k.spill_store_bytes + k.spill_load_bytes, 0) << "spills";
                // No local memory either: an array in a stack frame (a block-level register
                // Func copied into every thread, say) ran 9x slower on an H200. Except
                // libdevice's sinf, cosf and tanf: their 32-byte frame holds the Payne-Hanek
                // reduction of arguments beyond ~1e5, touched only there.
                const int64_t libdevice_frame = o.name == "sin" || o.name == "cos" || o.name == "tan" ? 32 : 0;
                EXPECT_LE(k.stack_bytes, libdevice_frame) << "stack frame (local memory)";
                EXPECT_LE(k.registers, caps.register_cap_per_thread) << "registers per thread";
                EXPECT_LE(shared, caps.shared_bytes_per_block) << "shared memory per block";
                EXPECT_LE(shared, caps.shared_bytes_per_sm) << "shared memory per SM";
                if (threads > 0) {
                    EXPECT_LE(threads * k.registers, caps.registers_per_sm) << threads << " threads per block";
                }
            }
        }
    }

    // The table: a row per op; per scheduler (the asserted one first) its kernel count
    // and, per architecture, max registers per thread / max shared bytes per block /
    // spill bytes over the op's kernels.
    std::printf("\nptxas -v per op: kernels, then registers/shared bytes/spill bytes per arch\n%-22s", "op");
    for (const std::string &s : schedulers) {
        std::printf(" | %-7s", s.c_str());
        for (const std::string &arch : table_archs()) std::printf(" %-11s", arch.c_str());
    }
    std::printf("\n");
    for (const std::string &op : ops) {
        std::printf("%-22s", op.c_str());
        for (const std::string &s : schedulers) {
            auto first = table.find(s + "|" + op + "|sm_86");
            std::printf(" | %7d", first == table.end() ? 0 : first->second.kernels);
            for (const std::string &arch : table_archs()) {
                auto it = table.find(s + "|" + op + "|" + arch);
                std::printf(" %-11s", cell(it == table.end() ? nullptr : &it->second).c_str());
            }
        }
        std::printf("\n");
    }
}

}  // namespace
}  // namespace tessera::gpu
