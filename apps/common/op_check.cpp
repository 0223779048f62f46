#include "op_check.h"

#include "jit_op.h"
#include "reference.h"
#include "stopwatch.h"

#include <exception>

namespace tessera {

OpCheck check_op(const ops::OpConfig &config, const SchedulerChoice &choice, uint64_t seed, int reps,
                 int measured_candidates, const std::vector<int> &pool_threads) {
    OpCheck result;
    try {
        JitOp op(config, choice, measured_candidates);
        result.schedule_ms = op.schedule_ms();
        result.compile_ms = op.compile_ms();
        result.flops = op.signature().flops;
        result.bytes = op.signature().bytes;
        result.compute_bound = op.signature().compute_bound;

        std::vector<Tensor> inputs = make_inputs(op.signature(), seed);
        Tensor output = make_poisoned_output(op.signature());
        op.run(inputs, output);
        const Tensor want = reference(config, inputs);
        result.rel_error = relative_error(output, want);
        for (int threads : pool_threads) {
            graph::JitThreadPool pool(threads);
            Tensor on_pool = make_poisoned_output(op.signature());
            op.run(inputs, on_pool, &pool);
            const double err = relative_error(on_pool, want);
            if (!(err <= result.rel_error)) result.rel_error = err;  // NaN sticks
        }
        result.ok = result.rel_error <= kRelTolerance;

        // At least three timed runs; stop early once a second has been spent.
        std::vector<double> times;
        double spent_ms = 0;
        for (int i = 0; i < reps && (i < 3 || spent_ms < 1000); i++) {
            Stopwatch watch;
            op.run(inputs, output);
            times.push_back(watch.lap_ms());
            spent_ms += times.back();
        }
        if (!times.empty()) {
            result.run_ms_median = median(times);
            result.run_ms_min = *std::min_element(times.begin(), times.end());
        }
    } catch (const Halide::CompileError &e) {
        result.ok = false;
        result.error = std::string("compile error: ") + e.what();
    } catch (const std::exception &e) {
        result.ok = false;
        result.error = e.what();
    }
    return result;
}

}  // namespace tessera
