#include "gpu_steps.h"

#include "gpu_program.h"
#include "gpu_schedules.h"
#include "read_patterns.h"

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
    for (auto it = c.dag.nodes().rbegin(); it != c.dag.nodes().rend(); ++it) {
        const FunctionNode &node = *it;
        const std::string &name = node.func.name();
        if (c.plan.inlined.count(name) || c.handled.count(name)) continue;
        const std::vector<TensorExpr> &stages = c.plan.stages.at(name);
        const std::string reason = analysis::unanalysable_reason(stages);
        const TensorExpr *compute = reason.empty() ? analysis::compute_stage(stages) : nullptr;
        if (!node.is_output && !node.func.has_update_definition() && !node.func.args().empty()) {
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
        if (node.func.args().empty()) {
            if (!node.is_output) c.builder.compute_root(name);
            rules::schedule_gpu_pointwise(c.builder, name, {}, block_threads);
            c.explain << "  " << name << ": a scalar: one GPU thread\n";
            continue;
        }
        if (compute && node.func.updates().size() == 1) {
            if (node.is_output) {
                schedule_gpu_compute_stage(c, node, *compute, "", "an output: each thread accumulates its points");
            } else {
                const std::string wrapper = name + "_tiles";
                c.builder.wrap(name, "", wrapper);
                c.builder.compute_root(wrapper);
                schedule_gpu_compute_stage(c, node, *compute, wrapper, "per block of " + wrapper + " at root");
            }
            continue;
        }
        if (node.is_output && !node.func.has_update_definition() && reason.empty()) {
            if (const FunctionNode *producer = analysis::epilogue_producer(stages[0], c.dag, c.plan)) {
                const TensorExpr &pc = *analysis::compute_stage(c.plan.stages.at(producer->func.name()));
                schedule_gpu_compute_stage(c, *producer, pc, name, "per block of its epilogue " + name);
                continue;
            }
        }
        if (!node.is_output) c.builder.compute_root(name);
        if (reason.empty() && !node.func.has_update_definition() && schedule_transpose(c, node, stages[0])) continue;
        const int across = rules::schedule_gpu_pointwise(c.builder, name, region_extents(node), block_threads);
        c.explain << "  " << name << ": " << (reason.empty() ? "" : "unanalysable (" + reason + "), ")
                  << "at root, threads along its innermost dims"
                  << (across ? ", each output's reduction across a block's threads (rfactor)"
                      : node.func.has_update_definition() ? ", reductions serial in each thread" : "")
                  << "\n";
    }
}

}  // namespace tessera
