// A model thread pool (model_thread_pool.h) for JIT-compiled pipelines: the same
// pool a compiled library owns, reached through a Halide::JITUserContext whose
// do_par_for handler hands every parallel loop of a realize to it. What JitModel
// (`tessera run M.onnx`) runs its partitions on, and what the op tests run kernels
// on with 1, 2 and more threads than cores.
#pragma once

#include <Halide.h>

#include <memory>

namespace tessera::graph {

class JitThreadPool {
public:
    // `threads` counts the calling thread; 0: the cores this process may run on.
    explicit JitThreadPool(int threads = 0);
    ~JitThreadPool();
    JitThreadPool(const JitThreadPool &) = delete;
    JitThreadPool &operator=(const JitThreadPool &) = delete;

    int threads() const;
    uint64_t parallel_loops() const;  // handed to this pool so far
    size_t kept_blocks() const;       // heap blocks kept for the next realize (model_block_cache.h)
    // Realizes `p` (compiled for `target`) into `outputs` with its parallel loops on
    // this pool. Throws std::runtime_error carrying the pipeline's first error message
    // when it fails (a Gather index outside its table, a buffer of the wrong shape):
    // the pool's context records errors itself, since Halide's JIT reports a failure
    // by exception only while a context has no error handler of its own, and sets one
    // on the context at its first realize.
    void realize(Halide::Pipeline &p, Halide::Pipeline::RealizationArg outputs, const Halide::Target &target);

    // While a Run lives (a model's run: several realizes), the workers spin between
    // parallel loops instead of sleeping.
    class Run {
    public:
        explicit Run(JitThreadPool &pool);
        ~Run();
        Run(const Run &) = delete;
        Run &operator=(const Run &) = delete;

    private:
        JitThreadPool &pool_;
    };

private:
    struct Context;
    std::unique_ptr<Context> context_;
};

}  // namespace tessera::graph
