#include "tessera_scheduler.h"
#include "diagnostics.h"

#include "emit_schedule.h"
#include "explanation.h"
#include "gpu_steps.h"
#include "chain_schedules.h"
#include "operator_chain.h"
#include "stage_steps.h"
#include "stopwatch_ms.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace tessera {

using namespace Halide;
using namespace Halide::Internal;
using analysis::StageClass;
using analysis::TensorExpr;

SchedulerOptions SchedulerOptions::from_environment(int parallelism) {
    SchedulerOptions o;
    o.parallelism = parallelism;
    if (const char *e = std::getenv("TESSERA_EXPLAIN")) o.explain = std::string(e) != "0";
    if (const char *k = std::getenv("TESSERA_TOPK")) o.top_k = std::max(1, std::atoi(k));
    if (const char *c = std::getenv("TESSERA_CANDIDATE")) o.candidate = std::max(0, std::atoi(c));
    if (const char *f = std::getenv("TESSERA_FUSE_CHAINS")) o.fuse_chains = std::string(f) != "0";
    return o;
}

namespace {

ScheduleOutcome finish_schedule(SchedulingContext &c, schedule::ScheduleBuilder &builder,
                                const std::vector<Function> &order) {
    ScheduleOutcome outcome;
    outcome.schedule = builder.finish();
    outcome.source = apply::emit_schedule(outcome.schedule, order);
    if (c.predicted_stages > 0) {
        // What a caller of the plugin reads of the model (the graph layer's layout
        // choice compares a node's forms by it), through Halide's one door.
        char line[128];
        std::snprintf(line, sizeof line, "// Tessera predicts %.4g ms for %d compute-intensive stage(s)\n",
                      c.predicted_ms, c.predicted_stages);
        outcome.source = line + outcome.source;
    }
    explain_schedule(c.explain, outcome.schedule);
    outcome.explanation = c.explain.str();
    return outcome;
}

}  // namespace

ScheduleOutcome schedule_pipeline(const Pipeline &pipeline, const Target &target, const SchedulerOptions &options) {
    std::vector<Function> outputs;
    for (const Func &f : pipeline.outputs())
        outputs.push_back(f.function());
    analysis::FunctionDag dag(outputs);
    // Vectors hold the pipeline's values: lanes of its (first) output's type.
    const int element_bytes = outputs.front().output_types().front().bytes();
    const hal::DeviceSpec device =
        hal::make_device_spec(target, options.parallelism, hal::profile_for_target(target), element_bytes);
    const analysis::StagePlan plan = analysis::plan_stages(dag);

    std::vector<Function> order;
    std::vector<std::string> output_names;
    for (const analysis::FunctionNode &n : dag.nodes()) {
        order.push_back(n.func);
        if (n.is_output) output_names.push_back(n.func.name());
    }
    schedule::ScheduleBuilder builder(order, output_names);
    SchedulingContext c(dag, plan, device, options, builder);
    c.explain << "Tessera: " << device.describe();
    if (device.gpu) {
        // GPU kernels by construction; chains are scheduled one by one there.
        schedule_gpu_stages(c);
        return finish_schedule(c, builder, order);
    }
    // Chains of compute-intensive stages: Chimera's block-order analysis.
    for (const chain::OperatorChain &oc : chain::find_chains(dag, plan)) {
        // A chain through stages a fused chain scheduled (the online-softmax form's
        // second GEMM and its running combine) is part of that one.
        if (c.handled.count(oc.producer) || c.handled.count(oc.consumer)) {
            c.explain << "  chain: " << oc.describe() << ": scheduled with the fused chain above\n";
            continue;
        }
        const double start = now_ms();
        const chain::ChainAnalysis analysis = chain::analyse_chain(oc, device);
        std::string outcome = "no gain predicted: the stages are scheduled one by one", why_not, why_not_bands, form;
        std::vector<std::string> also;
        if (analysis.predicted_gain > 1 && options.fuse_chains) {
            if (rules::schedule_fused_gemm_chain(builder, oc, dag, plan, device, &why_not, &also, &form)) {
                outcome = "fused: " + form;
                c.handled.insert(oc.producer);
                c.handled.insert(oc.consumer);
                c.handled.insert(oc.between.begin(), oc.between.end());
                c.handled.insert(also.begin(), also.end());
                c.row_of[oc.consumer] = {oc.consumer, ""};
            } else if (rules::fuse_by_bands(oc, plan, device, &why_not_bands)) {
                c.fused_chain_consumers.insert(oc.consumer);
                outcome = "fused by bands: " + oc.producer + " and its epilogue computed per band of whole rows of " +
                          oc.consumer + "'s L2 tiles (see " + oc.consumer + ")";
            } else {
                // A convolution chain says why bands were refused, any other why the fused schedule was.
                outcome = "not fused (" + (rules::convolution_chain(oc, plan) ? why_not_bands : why_not) +
                          "): the stages are scheduled one by one";
            }
        } else if (analysis.predicted_gain > 1) {
            outcome = "not fused (TESSERA_FUSE_CHAINS=0): the stages are scheduled one by one";
        }
        explain_chain(c.explain, oc, analysis, now_ms() - start, outcome);
    }

    // Consumers before producers: a producer attaches to its consumer's loops.
    for (auto it = dag.nodes().rbegin(); it != dag.nodes().rend(); ++it) {
        const analysis::FunctionNode &node = *it;
        const std::string &name = node.func.name();
        const std::vector<TensorExpr> &stages = plan.stages.at(name);
        if (plan.inlined.count(name) || c.handled.count(name)) continue;  // Halide inlines by default
        const std::string reason = analysis::unanalysable_reason(stages);
        const TensorExpr *compute = analysis::compute_stage(stages);
        if (node.func.args().empty()) {
            schedule_scalar(c, node);
        } else if (!reason.empty()) {
            schedule_unanalysable(c, node, reason);
        } else if (compute && node.func.updates().size() == 1) {
            // An output, or a producer whose consumer is not its fusable epilogue
            // (computed at root with its rProgram).
            c.row_of[name] = schedule_compute_stage(c, node, *compute, nullptr);
        } else if (node.is_output && node.func.updates().empty()) {
            const analysis::FunctionNode *producer = analysis::epilogue_producer(stages[0], dag, plan);
            if (producer) {
                const TensorExpr &producer_compute = *analysis::compute_stage(plan.stages.at(producer->func.name()));
                c.row_of[name] = schedule_compute_stage(c, *producer, producer_compute, &stages[0]);
            } else {
                schedule_memory_output(c, node);
            }
        } else if (!node.func.updates().empty()) {
            schedule_reduction_stage(c, node, shared_row_of(c, node));
        } else {
            schedule_shared_producer_stage(c, node, shared_row_of(c, node));
        }
    }

    return finish_schedule(c, builder, order);
}

}  // namespace tessera
