#include "partition_timing.h"

#include "compile_at_once.h"
#include "jit_model.h"
#include "sample_inputs.h"
#include "stopwatch.h"
#include "tessera_scheduler.h"

#include <algorithm>
#include <limits>
#include <random>

namespace tessera::cli {

namespace {

// Host buffers for a partition's inputs: constants as they are, the rest random
// (integers within the range the model takes).
std::vector<graph::TensorData> partition_inputs(const graph::Graph &g, const graph::LoweredPartition &lp) {
    std::vector<graph::TensorData> inputs;
    std::mt19937 rng(7);
    std::normal_distribution<float> normal;
    for (const std::string &v : lp.input_values) {
        const graph::TensorInfo &info = g.value(v);
        if (info.is_constant()) {
            inputs.push_back(*info.data);
            continue;
        }
        if (graph::is_integer(info.dtype)) {
            inputs.push_back(graph::random_integers(info.dtype, info.shape, graph::sample_range(g, v), rng()));
            continue;
        }
        graph::TensorData d(graph::DType::f32, info.shape);
        for (float &x : d.f) x = normal(rng);
        inputs.push_back(std::move(d));
    }
    return inputs;
}

}  // namespace

ScheduledPartition schedule_partition(const graph::Graph &g, const graph::Partition &p, const SchedulerChoice &choice) {
    return schedule_lowered(graph::lower_partition(g, p), choice);
}

ScheduledPartition schedule_lowered(graph::LoweredPartition lowered, const SchedulerChoice &choice) {
    ScheduledPartition s{std::move(lowered), 0, {}};
    if (choice.name == "Tessera") {
        const ScheduleOutcome o = schedule_pipeline(s.lowered.pipeline, choice.target, choice.options);
        s.predicted_ms = o.predicted_ms;
        s.terms = o.decisions.chosen_terms();
    } else {
        apply_scheduler(s.lowered.pipeline, choice);
    }
    return s;
}

std::vector<std::string> compile_partitions(const std::vector<ScheduledPartition *> &partitions,
                                            const Halide::Target &target, int jobs) {
    std::vector<Halide::Pipeline> pipelines;
    for (const ScheduledPartition *s : partitions) pipelines.push_back(s->lowered.pipeline);
    const std::vector<std::exception_ptr> compiled = graph::compile_jit_at_once(pipelines, target, jobs);
    std::vector<std::string> failures(partitions.size());
    for (size_t k = 0; k < compiled.size(); k++) {
        if (compiled[k]) failures[k] = graph::failure_message(compiled[k]);
    }
    return failures;
}

std::vector<double> time_partitions(const graph::Graph &g, const std::vector<ScheduledPartition *> &partitions,
                                    graph::JitThreadPool &pool, const Halide::Target &target, int rounds) {
    std::vector<std::vector<graph::TensorData>> inputs;
    std::vector<graph::TensorData> outputs;
    for (const ScheduledPartition *s : partitions) {
        inputs.push_back(partition_inputs(g, s->lowered));
        outputs.push_back(graph::poisoned_output(g.value(s->lowered.output_value)));
    }
    auto run = [&](size_t c) {
        graph::LoweredPartition &lp = partitions[c]->lowered;
        for (size_t k = 0; k < lp.params.size(); k++) lp.params[k].set(graph::halide_view(inputs[c][k], lp.param_shapes[k]));
        Halide::Buffer<> out = graph::halide_view(outputs[c], lp.output_shape);
        const graph::JitThreadPool::Run scope(pool);
        pool.realize(lp.pipeline, Halide::Realization(out), target);
        return true;
    };
    const std::vector<std::vector<double>> times =
        time_interleaved(partitions.size(), 1, rounds, rounds, std::numeric_limits<double>::infinity(), run);
    std::vector<double> fastest;
    for (const std::vector<double> &ms : times) fastest.push_back(*std::min_element(ms.begin(), ms.end()));
    return fastest;
}

}  // namespace tessera::cli
