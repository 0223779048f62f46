// JitModel: a graph compiled partition by partition (lower_partition, then the
// caller's scheduler, then Halide's JIT) and run on host tensors: the way
// `tessera run` executes a model, and what the tests check against the reference
// evaluator. Intermediate values live in host buffers between partitions.
#pragma once

#include "evaluate.h"
#include "jit_thread_pool.h"
#include "lower_partition.h"
#include "partition.h"

#include <Halide.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tessera::graph {

class JitModel {
public:
    // Schedules each partition's pipeline with `schedule` (e.g. the Tessera plugin
    // through Pipeline::auto_schedule), one after another, and JIT-compiles them for
    // `target`, `jobs` at once (0: one per core; compile_at_once.h). `progress` gets one
    // line per partition. Throws GraphError (a node that cannot be lowered) or what the
    // first partition that does not compile threw (Halide::CompileError). The
    // partitions' parallel loops run on the model's own thread pool of `threads`
    // threads (0: the cores this process may run on), as in a compiled library.
    JitModel(const Graph &g, const FusionPlan &plan, const std::function<void(Halide::Pipeline &)> &schedule,
             const Halide::Target &target, const std::function<void(const std::string &)> &progress = {},
             int threads = 0, int jobs = 0);

    // Graph inputs by name -> graph outputs by name. Throws GraphError for a missing
    // input or one of the wrong shape or dtype. With `partition_ms`, each partition's
    // wall time of this run, in plan order.
    TensorMap run(const TensorMap &inputs, std::vector<double> *partition_ms = nullptr) const;

    const std::vector<LoweredPartition> &partitions() const { return partitions_; }
    int threads() const { return pool_->threads(); }

private:
    const Graph &graph_;
    Halide::Target target_;
    std::vector<LoweredPartition> partitions_;
    std::unique_ptr<JitThreadPool> pool_;  // used by run(), which is const
};

// A host buffer's data seen as a Halide buffer (dimensions reversed; no copy): float
// for fp32, int64 for the integer-like dtypes (boundary_type).
Halide::Buffer<> halide_view(TensorData &t);
// The same data under `as`, a shape with as many elements (a kernel's param_shapes
// or output_shape: the value with its planes as rows).
Halide::Buffer<> halide_view(TensorData &t, const Shape &as);

// A buffer for a value of `info`'s dtype and shape, poisoned: a kernel that leaves an
// element unwritten shows as NaN (fp32) or INT64_MIN (integer-like).
TensorData poisoned_output(const TensorInfo &info);

}  // namespace tessera::graph
