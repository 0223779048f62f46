#include "jit_thread_pool.h"

#include "model_thread_pool.h"

#include <mutex>
#include <stdexcept>
#include <string>

namespace tessera::graph {

struct JitThreadPool::Context : Halide::JITUserContext {
    ModelThreadPool pool;
    std::mutex error_mutex;
    std::string first_error;  // since the last realize began
    explicit Context(int threads) : pool(threads ? threads : ModelThreadPool::available_cores(), false) {
        handlers.custom_do_par_for = do_par_for;
        handlers.custom_error = record_error;
        handlers.custom_malloc = allocate;
        handlers.custom_free = release;
    }

    // Heap blocks kept from one realize to the next, as in a compiled model.
    static void *allocate(Halide::JITUserContext *context, size_t bytes) {
        return static_cast<Context *>(context)->pool.blocks().allocate(bytes);
    }
    static void release(Halide::JITUserContext *context, void *p) {
        static_cast<Context *>(context)->pool.blocks().release(p);
    }

    // Called by every task that fails (a parallel loop may report once per task).
    static void record_error(Halide::JITUserContext *context, const char *message) {
        auto *self = static_cast<Context *>(context);
        std::lock_guard<std::mutex> lock(self->error_mutex);
        if (!self->first_error.empty()) return;
        self->first_error = message;
        while (!self->first_error.empty() && self->first_error.back() == '\n') self->first_error.pop_back();
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

size_t JitThreadPool::kept_blocks() const {
    return context_->pool.blocks().kept_blocks();
}

void JitThreadPool::realize(Halide::Pipeline &p, Halide::Pipeline::RealizationArg outputs, const Halide::Target &target) {
    context_->first_error.clear();
    p.realize(context_.get(), std::move(outputs), target);
    if (!context_->first_error.empty()) throw std::runtime_error(context_->first_error);
}

JitThreadPool::Run::Run(JitThreadPool &pool) : pool_(pool) {
    pool_.context_->pool.begin_run();
}

JitThreadPool::Run::~Run() {
    pool_.context_->pool.end_run();
}

}  // namespace tessera::graph
