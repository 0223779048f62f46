#include "jit_model.h"

#include "compile_at_once.h"
#include "graph_error.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>

namespace tessera::graph {

Halide::Buffer<> halide_view(TensorData &t) {
    return halide_view(t, t.shape);
}

Halide::Buffer<> halide_view(TensorData &t, const Shape &as) {
    if (num_elements(as) != num_elements(t.shape)) {
        throw GraphError("a " + shape_string(t.shape) + " tensor viewed as " + shape_string(as) + " (internal error)");
    }
    std::vector<int> sizes(as.rbegin(), as.rend());
    if (t.is_float()) return Halide::Buffer<float>(t.f.data(), sizes);
    return Halide::Buffer<int64_t>(t.i.data(), sizes);  // every integer-like dtype: boundary_type
}

TensorData poisoned_output(const TensorInfo &info) {
    TensorData out(info.dtype, info.shape);
    std::fill(out.f.begin(), out.f.end(), std::numeric_limits<float>::quiet_NaN());
    std::fill(out.i.begin(), out.i.end(), std::numeric_limits<int64_t>::min());
    return out;
}

JitModel::JitModel(const Graph &g, const FusionPlan &plan, const std::function<void(Halide::Pipeline &)> &schedule,
                   const Halide::Target &target, const std::function<void(const std::string &)> &progress,
                   int threads, int jobs)
    : graph_(g), target_(target), pool_(std::make_unique<JitThreadPool>(threads)) {
    std::vector<Halide::Pipeline> pipelines;
    for (const Partition &p : plan.partitions) {
        partitions_.push_back(lower_partition(g, p));
        schedule(partitions_.back().pipeline);
        pipelines.push_back(partitions_.back().pipeline);
    }
    size_t finished = 0;
    const std::vector<std::exception_ptr> failed = compile_jit_at_once(pipelines, target, jobs, [&](size_t k, double ms) {
        finished++;
        if (!progress) return;
        char line[256];
        std::snprintf(line, sizeof line, "[%zu/%zu] %s compiled in %.0f ms", finished, partitions_.size(),
                      partitions_[k].name.c_str(), ms);
        progress(line);
    });
    for (const std::exception_ptr &f : failed) {
        if (f) std::rethrow_exception(f);  // the first in plan order, as it was thrown
    }
}

TensorMap JitModel::run(const TensorMap &inputs, std::vector<double> *partition_ms) const {
    if (partition_ms) partition_ms->clear();
    std::map<std::string, std::shared_ptr<TensorData>> values;
    check_graph_inputs(graph_, inputs, "run");
    const JitThreadPool::Run scope(*pool_);
    for (const std::string &name : graph_.inputs) values[name] = std::make_shared<TensorData>(inputs.at(name));
    auto value_of = [&](const std::string &name) -> TensorData & {
        auto it = values.find(name);
        if (it != values.end()) return *it->second;
        const TensorInfo &info = graph_.value(name);
        if (!info.is_constant()) throw GraphError("run: value '" + name + "' was never computed (internal error)");
        // Constants are bound as inputs (Halide does not write them): a shared view.
        auto view = std::const_pointer_cast<TensorData>(info.data);
        values[name] = view;
        return *view;
    };
    for (const LoweredPartition &lp : partitions_) {
        for (size_t k = 0; k < lp.params.size(); k++) {
            Halide::ImageParam param = lp.params[k];
            param.set(halide_view(value_of(lp.input_values[k]), lp.param_shapes[k]));
        }
        auto out = std::make_shared<TensorData>(poisoned_output(graph_.value(lp.output_value)));
        Halide::Buffer<> out_buffer = halide_view(*out, lp.output_shape);
        Halide::Pipeline pipeline = lp.pipeline;  // a handle: realize is not const
        const auto start = std::chrono::steady_clock::now();
        try {
            pool_->realize(pipeline, Halide::Realization(out_buffer), target_);
        } catch (const std::runtime_error &e) {
            throw GraphError("run: " + lp.name + " failed: " + e.what());
        }
        if (partition_ms) {
            partition_ms->push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
        }
        values[lp.output_value] = out;
    }
    TensorMap outputs;
    for (const std::string &name : graph_.outputs) outputs[name] = value_of(name);
    return outputs;
}

}  // namespace tessera::graph
