#include "jit_thread_pool.h"

#include "model_thread_pool.h"

namespace tessera::graph {

struct JitThreadPool::Context : Halide::JITUserContext {
    ModelThreadPool pool;
    explicit Context(int threads) : pool(threads ? threads : ModelThreadPool::available_cores(), false) {
        handlers.custom_do_par_for = do_par_for;
    }

    // Halide's JIT calls its tasks with the JITUserContext where the AOT runtime
    // passes a void * user context: the same pointer, so the pool passes it through.
    static int do_par_for(Halide::JITUserContext *context, int (*task)(Halide::JITUserContext *, int, uint8_t *),
                          int min, int size, uint8_t *closure) {
        auto *self = static_cast<Context *>(context);
        return self->pool.parallel_for(context, reinterpret_cast<halide_task_t>(task), min, size, closure);
    }
};

JitThreadPool::JitThreadPool(int threads) : context_(std::make_unique<Context>(threads)) {}

JitThreadPool::~JitThreadPool() = default;

int JitThreadPool::threads() const {
    return context_->pool.threads();
}

uint64_t JitThreadPool::parallel_loops() const {
    return context_->pool.loops();
}

Halide::JITUserContext *JitThreadPool::context() {
    return context_.get();
}

JitThreadPool::Run::Run(JitThreadPool &pool) : pool_(pool) {
    pool_.context_->pool.begin_run();
}

JitThreadPool::Run::~Run() {
    pool_.context_->pool.end_run();
}

}  // namespace tessera::graph
