#include "gpu_steps.h"

#include "gpu_program.h"
#include "gpu_schedules.h"
#include "read_patterns.h"
#include "stage_roles.h"

namespace tessera {

using analysis::FunctionNode;
using analysis::TensorExpr;

namespace {

std::vector<int64_t> region_extents(const FunctionNode &node) {
    std::vector<int64_t> e;
    for (const analysis::Extent &r : node.region) e.push_back(std::max<int64_t>(1, r.extent));
    return e;
}

// A compute-intensive stage `node` computed per block of `tiled` ("" when the
// stage is an output itself).
void schedule_gpu_compute_stage(SchedulingContext &c, const FunctionNode &node, const TensorExpr &compute,
                                const std::string &tiled, const std::string &why) {
    const rtile::GpuProgram p = rtile::construct_gpu_program(compute, c.device);
    rules::schedule_gpu_compute(c.builder, compute, p, tiled);
    c.handled.insert(node.func.name());
    c.explain << "  " << node.func.name() << ": compute-intensive, " << why << ": " << p.to_string(compute) << "\n";
}

// A pure stage reading one tensor transposed: tiles staged in shared memory.
bool schedule_transpose(SchedulingContext &c, const FunctionNode &node, const TensorExpr &out) {
    for (size_t i = 0; i < out.reads.size(); i++) {
        const analysis::AccessMap &m = out.reads[i];
        std::string callee = m.tensor;
        if (m.is_input) {
            auto w = c.plan.input_wrappers.find(m.tensor);
            if (w == c.plan.input_wrappers.end()) continue;
            callee = w->second;
        }
        if (!rules::schedule_gpu_transpose(c.builder, out, int(i), callee)) continue;
        c.explain << "  " << node.func.name() << ": a transpose of " << callee
                  << ": 32 x 32 tiles staged in shared memory, both sides coalesced\n";
        return true;
    }
    return false;
}

}  // namespace

void schedule_gpu_stages(SchedulingContext &c) {
    const int64_t block_threads = rtile::kMaxBlockThreads;
    for (const StageAssignment &a : assign_roles(c.dag, c.plan)) {
        const FunctionNode &node = *a.node;
        const std::string &name = node.func.name();
        if (c.handled.count(name)) continue;
        const std::vector<TensorExpr> &stages = c.plan.stages.at(name);
        const bool pure_producer = !node.is_output && !node.func.has_update_definition();
        if (pure_producer && (a.role == StageRole::SharedProducer || a.role == StageRole::Unanalysable)) {
            // A pure producer the plan keeps: inlined where only compute stages read
            // it (their operand copies evaluate it), else a kernel of its own.
            bool only_compute_readers = true;
            for (const std::string &reader : node.consumers) {
                const auto &rs = c.plan.stages.at(reader);
                only_compute_readers = only_compute_readers && analysis::compute_stage(rs) != nullptr;
            }
            if (only_compute_readers) {
                c.explain << "  " << name << ": inlined into the compute stages reading it\n";
                continue;
            }
        }
        // A stage seen with a dim split (analysis/axis_split.h) gets threads over
        // its own dims below; its compute producer a kernel of its own.
        const bool split = stages[0].split.has_value();
        const StageRole role = a.role == StageRole::EpilogueOutput && split ? StageRole::MemoryOutput : a.role;
        record_decision(c, role == StageRole::EpilogueOutput ? a.producer->func.name() : name, role);
        if (a.role == StageRole::Scalar) {
            if (!node.is_output) c.builder.compute_root(name);
            rules::schedule_gpu_pointwise(c.builder, name, {}, block_threads);
            c.explain << "  " << name << ": a scalar: one GPU thread\n";
            continue;
        }
        if (a.role == StageRole::Compute) {
            const TensorExpr &compute = *analysis::compute_stage(stages);
            if (node.is_output) {
                schedule_gpu_compute_stage(c, node, compute, "", "an output: each thread accumulates its points");
            } else {
                const std::string wrapper = name + "_tiles";
                c.builder.wrap(name, "", wrapper);
                c.builder.compute_root(wrapper);
                schedule_gpu_compute_stage(c, node, compute, wrapper, "per block of " + wrapper + " at root");
            }
            continue;
        }
        if (role == StageRole::EpilogueOutput) {
            const TensorExpr &pc = *analysis::compute_stage(c.plan.stages.at(a.producer->func.name()));
            schedule_gpu_compute_stage(c, *a.producer, pc, name, "per block of its epilogue " + name);
            continue;
        }
        // Memory-bound outputs, reductions, kept producers and unanalysable stages.
        const std::string &reason = a.unanalysable;
        if (!node.is_output) c.builder.compute_root(name);
        if (reason.empty() && !split && !node.func.has_update_definition() && schedule_transpose(c, node, stages[0])) {
            continue;
        }
        const int across = rules::schedule_gpu_pointwise(c.builder, name, region_extents(node), block_threads);
        c.explain << "  " << name << ": " << (reason.empty() ? "" : "unanalysable (" + reason + "), ")
                  << "at root, threads along its innermost dims"
                  << (across ? ", each output's reduction across a block's threads (rfactor)"
                      : node.func.has_update_definition() ? ", reductions serial in each thread" : "")
                  << "\n";
    }
}

}  // namespace tessera
