#include "tessera_scheduler.h"
#include "diagnostics.h"

#include "emit_schedule.h"
#include "explanation.h"
#include "gpu_steps.h"
#include "chain_schedules.h"
#include "operator_chain.h"
#include "stage_steps.h"
#include "stage_roles.h"
#include "stopwatch_ms.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace tessera {

using namespace Halide;
using namespace Halide::Internal;
using analysis::StageClass;
using analysis::TensorExpr;

namespace {

// The figures a schedule was built for, as the first line of its source: the
// GPU's name and source, or the CPU profile's model, source and fingerprint.
std::string device_line(const hal::DeviceSpec &device, const hal::DeviceProfile &profile) {
    if (device.gpu) return "// Device: " + device.gpu->name + " (" + device.gpu->source + ")\n";
    return "// Device: " + profile.cpu_model + " (" + profile.source + " profile " +
           hal::profile_fingerprint(profile) + "), " + std::to_string(device.cores) + " cores\n";
}

ScheduleOutcome finish_schedule(SchedulingContext &c, schedule::ScheduleBuilder &builder,
                                const std::vector<Function> &order, const hal::DeviceProfile &profile) {
    ScheduleOutcome outcome;
    outcome.schedule = builder.finish();
    outcome.source = apply::emit_schedule(outcome.schedule, order);
    outcome.decisions = c.decisions;
    outcome.predicted_ms = c.predicted_ms;
    outcome.predicted_stages = c.predicted_stages;
    if (c.predicted_stages > 0) {
        char line[128];
        std::snprintf(line, sizeof line, "// Tessera predicts %.4g ms for %d compute-intensive stage(s)\n",
                      c.predicted_ms, c.predicted_stages);
        outcome.source = line + outcome.source;
    }
    outcome.source = device_line(c.device, profile) + outcome.source;
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
    const hal::DeviceProfile profile = profile_or_builtin(options);
    const hal::DeviceSpec device =
        hal::make_device_spec(target, options.parallelism, profile, element_bytes, options.gpu_profile);
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
        return finish_schedule(c, builder, order, profile);
    }
    // Chains of compute-intensive stages: Chimera's block-order analysis.
    for (const chain::OperatorChain &oc : chain::find_chains(dag, plan)) {
        ChainDecision decision;
        decision.producer = oc.producer;
        decision.consumer = oc.consumer;
        // A chain through stages a fused chain scheduled (the online-softmax form's
        // second GEMM and its running combine) is part of that one.
        if (c.handled.count(oc.producer) || c.handled.count(oc.consumer)) {
            decision.outcome = ChainOutcome::PartOfFusedChain;
            c.explain << "  chain: " << oc.describe() << ": " << to_string(decision.outcome) << "\n";
            c.decisions.chains.push_back(decision);
            continue;
        }
        const double start = now_ms();
        const chain::ChainAnalysis analysis = chain::analyse_chain(oc, device);
        decision.predicted_gain = analysis.predicted_gain;
        decision.orders_considered = analysis.orders_considered;
        std::string why_not, why_not_bands;
        std::vector<std::string> also;
        if (analysis.predicted_gain > 1 && options.fuse_chains) {
            if (rules::schedule_fused_gemm_chain(builder, oc, dag, plan, device, &why_not, &also, &decision.form)) {
                decision.outcome = ChainOutcome::Fused;
                c.handled.insert(oc.producer);
                c.handled.insert(oc.consumer);
                c.handled.insert(oc.between.begin(), oc.between.end());
                c.handled.insert(also.begin(), also.end());
                c.row_of[oc.consumer] = {oc.consumer, ""};
            } else if (rules::fuse_by_bands(oc, plan, device, &why_not_bands)) {
                c.fused_chain_consumers.insert(oc.consumer);
                decision.outcome = ChainOutcome::FusedByBands;
                decision.form = oc.producer + " and its epilogue computed per band of whole rows of " + oc.consumer +
                                "'s L2 tiles";
            } else {
                // A convolution chain says why bands were refused, any other why the fused schedule was.
                decision.outcome = ChainOutcome::NotFused;
                decision.why_not = rules::convolution_chain(oc, plan) ? why_not_bands : why_not;
            }
        } else if (analysis.predicted_gain > 1) {
            decision.outcome = ChainOutcome::FusionOff;
        }
        explain_chain(c.explain, oc, analysis, now_ms() - start, decision);
        c.decisions.chains.push_back(decision);
    }

    // The roles (consumers before producers: a producer attaches to its consumer's loops).
    for (const StageAssignment &a : assign_roles(dag, plan)) {
        const analysis::FunctionNode &node = *a.node;
        const std::string &name = node.func.name();
        if (c.handled.count(name)) continue;
        const std::vector<TensorExpr> &stages = plan.stages.at(name);
        switch (a.role) {
        case StageRole::Scalar: schedule_scalar(c, node); break;
        case StageRole::Unanalysable: schedule_unanalysable(c, node, a.unanalysable); break;
        case StageRole::Compute:
            // An output, or a producer whose consumer is not its fusable epilogue
            // (computed at root with its rProgram).
            c.row_of[name] = schedule_compute_stage(c, node, *analysis::compute_stage(stages), nullptr);
            break;
        case StageRole::EpilogueOutput:
            c.row_of[name] = schedule_compute_stage(
                c, *a.producer, *analysis::compute_stage(plan.stages.at(a.producer->func.name())), &stages[0]);
            break;
        case StageRole::MemoryOutput: schedule_memory_output(c, node); break;
        case StageRole::Reduction: schedule_reduction_stage(c, node, shared_row_of(c, node)); break;
        case StageRole::SharedProducer: schedule_shared_producer_stage(c, node, shared_row_of(c, node)); break;
        }
    }

    return finish_schedule(c, builder, order, profile);
}

}  // namespace tessera
