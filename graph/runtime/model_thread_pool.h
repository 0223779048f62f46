// The thread pool a compiled model owns: Halide's parallel loops in every partition
// run on it instead of on Halide's default pool.
//
// Why a pool of our own: Halide's default pool is process-wide, sized once from
// HL_NUM_THREADS, and lets its workers fall asleep between parallel loops; a model
// is a run of many short partitions, and a worker that is asleep when a loop starts
// often wakes only after the calling thread has done all of it, so a run could take
// its one-thread time. Here the workers spin (pausing, yielding to the scheduler)
// while a run is in progress, so every partition's loop finds them awake, and sleep
// on a condition variable between runs.
//
// Where a sleeping worker wakes: Linux may queue a woken thread on its waker's CPU
// when it takes the worker's own CPU for busy (a virtual CPU the hypervisor has
// descheduled while idle looks so), and there it waits behind the calling thread,
// which never sleeps during a run, until a load balance moves it: on a 2-core VM,
// a BERT layer called every 20 ms ran at its one-thread time in a third of its
// runs (the worker queued 7-10 ms of a 6 ms run). So a run first restricts each
// sleeping worker to a CPU other than the caller's (place_sleeping_workers), and a
// woken worker gives itself back the pool's whole mask.
//
// This header is compiled into every library `tessera compile` writes (its text is
// embedded in the compiler) and into the tests. Everything has internal linkage, so
// two models linked into one program keep their own copies.
//
// Use: the model's partitions are compiled with Halide's UserContext feature and
// called with the pool as their user context; install_model_thread_pool() makes
// Halide's halide_do_par_for hand loops whose user context is a pool to that pool.
// Nested parallel loops (a parallel loop inside a task) run serially in the task's
// thread. One parallel loop at a time per pool: one run at a time per model.
#pragma once

#include "HalideRuntime.h"
#include "model_block_cache.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <immintrin.h>
#include <pthread.h>
#include <sched.h>

namespace {

class ModelThreadPool {
public:
    // `threads` counts the calling thread: threads - 1 workers are started (at
    // least one thread runs). `pin`: worker i runs on the i-th core of the process's
    // affinity mask after the first (the caller keeps the first).
    ModelThreadPool(int threads, bool pin)
        : threads_(threads < 1 ? 1 : threads), pinned_(pin), slots_(new WorkerSlot[size_t(threads_ - 1)]) {
        if (sched_getaffinity(0, sizeof allowed_, &allowed_) != 0) CPU_ZERO(&allowed_);
        for (int i = 1; i < threads_; i++) workers_.emplace_back([this, i] { work(slots_[size_t(i - 1)]); });
        if (pin) pin_workers();
    }

    ~ModelThreadPool() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stop_.store(true);
        }
        wake_.notify_all();
        for (std::thread &t : workers_) t.join();
    }

    ModelThreadPool(const ModelThreadPool &) = delete;
    ModelThreadPool &operator=(const ModelThreadPool &) = delete;

    int threads() const { return threads_; }
    // The heap blocks of the model's partitions (halide_malloc with the pool as user
    // context), kept from one call to the next.
    ModelBlockCache &blocks() { return blocks_; }
    // Parallel loops handed to this pool so far (serial and nested ones included).
    uint64_t loops() const { return loops_.load(std::memory_order_relaxed); }

    // The cores this process may run on (its affinity mask), at least 1.
    static int available_cores() {
        cpu_set_t set;
        if (sched_getaffinity(0, sizeof set, &set) == 0) {
            const int n = CPU_COUNT(&set);
            if (n > 0) return n;
        }
        const unsigned n = std::thread::hardware_concurrency();
        return n ? int(n) : 1;
    }

    // The CPUs for `workers` threads woken by a thread on `caller_cpu`, among the
    // CPUs of `allowed`: each worker the next allowed CPU after the caller's, in
    // turn, never the caller's own; none (-1 each) when fewer than two are allowed.
    static std::vector<int> wake_cpus(const cpu_set_t &allowed, int caller_cpu, int workers) {
        std::vector<int> others, out(size_t(std::max(workers, 0)), -1);
        for (int c = caller_cpu + 1; c < CPU_SETSIZE; c++) {
            if (CPU_ISSET(c, &allowed)) others.push_back(c);
        }
        for (int c = 0; c < caller_cpu && c < CPU_SETSIZE; c++) {
            if (CPU_ISSET(c, &allowed)) others.push_back(c);
        }
        if (others.empty() || CPU_COUNT(&allowed) < 2) return out;
        for (size_t i = 0; i < out.size(); i++) out[i] = others[i % others.size()];
        return out;
    }

    // Between begin_run and end_run the workers spin waiting for loops; otherwise
    // they sleep after a short spin.
    void begin_run() {
        in_run_.store(true);
        wake_sleepers();
    }
    void end_run() { in_run_.store(false); }

    // Runs task(user_context, min + i, closure) for i in [0, size) on the pool and
    // the calling thread. Returns 0, or a non-zero code one of the tasks returned.
    int parallel_for(void *user_context, halide_task_t task, int min, int size, uint8_t *closure) {
        loops_.fetch_add(1, std::memory_order_relaxed);
        if (size <= 0) return 0;
        if (workers_.empty() || size == 1 || inside_task()) {
            return serial_for(user_context, task, min, size, closure);
        }
        // Publish the loop: its fields are written while it is closed to workers.
        job_.task = task;
        job_.user_context = user_context;
        job_.closure = closure;
        job_.min = min;
        job_.size = size;
        job_.chunk = std::max(1, size / (threads_ * kChunksPerThread));
        job_.next.store(0);
        job_.finished.store(0);
        job_.error.store(0);
        job_.open.store(true);
        generation_.fetch_add(1);
        wake_sleepers();
        run_tasks();
        while (job_.finished.load(std::memory_order_acquire) < size) _mm_pause();
        // Closed, then no worker may still be reading it before it is rewritten.
        job_.open.store(false);
        while (workers_inside_.load() > 0) _mm_pause();
        return job_.error.load();
    }

private:
    // A thread claims a loop's indices a chunk at a time, about this many chunks per
    // thread: claimed one by one, the thousands of row tasks a model's run hands out
    // move the counters' cache line between the cores per task, which costs most
    // when the cores share no cache (MobileNetV2, 9,000 tasks per run on 2 threads,
    // six alternating rounds on Zen 3: medians 12.5-19.3 ms one by one, 12.0-16.6 in
    // chunks).
    static constexpr int kChunksPerThread = 4;

    // A worker's own state: asleep on the condition variable, and restricted to one
    // CPU by place_sleeping_workers (it restores the pool's mask when it wakes).
    struct WorkerSlot {
        std::atomic<bool> asleep{false}, placed{false};
    };

    struct Job {
        halide_task_t task = nullptr;
        void *user_context = nullptr;
        uint8_t *closure = nullptr;
        int min = 0, size = 0, chunk = 1;
        std::atomic<int> next{0}, finished{0}, error{0};
        std::atomic<bool> open{false};
    };

    static bool &inside_task() {
        static thread_local bool inside = false;
        return inside;
    }

    static int serial_for(void *user_context, halide_task_t task, int min, int size, uint8_t *closure) {
        for (int i = 0; i < size; i++) {
            if (int e = task(user_context, min + i, closure)) return e;
        }
        return 0;
    }

    // Takes chunks of the open loop's indices until none are left.
    void run_tasks() {
        inside_task() = true;
        for (int i; (i = job_.next.fetch_add(job_.chunk)) < job_.size;) {
            const int end = std::min(i + job_.chunk, job_.size);
            for (int k = i; k < end; k++) {
                if (int e = job_.task(job_.user_context, job_.min + k, job_.closure)) job_.error.store(e);
            }
            job_.finished.fetch_add(end - i, std::memory_order_release);
        }
        inside_task() = false;
    }

    // Under the mutex, so that no worker leaves its wait (spuriously, say) between
    // being placed and being told so.
    void wake_sleepers() {
        if (sleepers_.load() == 0) return;
        std::lock_guard<std::mutex> lock(mutex_);
        place_sleeping_workers();
        wake_.notify_all();
    }

    // Restricts each sleeping worker to a CPU other than the calling thread's (see
    // the top of this file), so that waking it does not queue it behind the caller.
    // Pinned workers stay where pin_workers put them. Called with mutex_ held.
    void place_sleeping_workers() {
        if (pinned_) return;
        const int here = sched_getcpu();
        if (here < 0) return;
        const std::vector<int> cpus = wake_cpus(allowed_, here, int(workers_.size()));
        for (size_t i = 0; i < workers_.size(); i++) {
            if (cpus[i] >= 0 && slots_[i].asleep.load() && restrict_worker(i, cpus[i])) slots_[i].placed.store(true);
        }
    }

    // Worker i may run on `cpu` only; false when the system refuses.
    bool restrict_worker(size_t i, int cpu) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        return pthread_setaffinity_np(workers_[i].native_handle(), sizeof one, &one) == 0;
    }

    void work(WorkerSlot &slot) {
        uint64_t seen = generation_.load();
        // Spins between loops: 2^14 pauses (about half a millisecond) outside a run,
        // unbounded within one; yields every 64 pauses so that a pool larger than the
        // machine does not starve the thread that calls the loops.
        constexpr int kIdleSpins = 1 << 14;
        unsigned pauses = 0;
        for (;;) {
            int spins = 0;
            while (generation_.load() == seen && !stop_.load()) {
                if (!in_run_.load() && ++spins > kIdleSpins) {
                    std::unique_lock<std::mutex> lock(mutex_);
                    slot.asleep.store(true);
                    sleepers_.fetch_add(1);
                    wake_.wait(lock, [&] { return stop_.load() || in_run_.load() || generation_.load() != seen; });
                    sleepers_.fetch_sub(1);
                    slot.asleep.store(false);
                    const bool placed = slot.placed.exchange(false);
                    lock.unlock();
                    if (placed) pthread_setaffinity_np(pthread_self(), sizeof allowed_, &allowed_);
                    spins = 0;
                    continue;
                }
                _mm_pause();
                if ((++pauses & 63) == 0) sched_yield();
            }
            if (stop_.load()) return;
            seen = generation_.load();
            workers_inside_.fetch_add(1);
            if (job_.open.load()) run_tasks();
            workers_inside_.fetch_sub(1);
        }
    }

    void pin_workers() {
        std::vector<int> cores;
        for (int c = 0; c < CPU_SETSIZE; c++) {
            if (CPU_ISSET(c, &allowed_)) cores.push_back(c);
        }
        if (cores.empty()) return;
        for (size_t i = 0; i < workers_.size(); i++) restrict_worker(i, cores[(i + 1) % cores.size()]);
    }

    const int threads_;
    const bool pinned_;
    cpu_set_t allowed_;  // the process's CPUs when the pool was made
    std::unique_ptr<WorkerSlot[]> slots_;  // one per worker, before the workers start
    ModelBlockCache blocks_;
    std::vector<std::thread> workers_;
    Job job_;
    std::atomic<uint64_t> generation_{0}, loops_{0};
    std::atomic<int> workers_inside_{0}, sleepers_{0};
    std::atomic<bool> in_run_{false};
    std::atomic<bool> stop_{false};  // set under mutex_, so a worker going to sleep sees it
    std::mutex mutex_;
    std::condition_variable wake_;
};

// Halide's halide_do_par_for for pipelines called with a ModelThreadPool as their
// user context; any other loop (no user context) goes to Halide's default pool.
inline int model_pool_do_par_for(void *user_context, halide_task_t task, int min, int size, uint8_t *closure) {
    if (!user_context) return halide_default_do_par_for(user_context, task, min, size, closure);
    return static_cast<ModelThreadPool *>(user_context)->parallel_for(user_context, task, min, size, closure);
}

// Halide's halide_malloc and halide_free likewise: the pool's blocks.
inline void *model_pool_malloc(void *user_context, size_t bytes) {
    if (!user_context) return halide_default_malloc(user_context, bytes);
    return static_cast<ModelThreadPool *>(user_context)->blocks().allocate(bytes);
}

inline void model_pool_free(void *user_context, void *p) {
    if (!user_context) return halide_default_free(user_context, p);
    static_cast<ModelThreadPool *>(user_context)->blocks().release(p);
}

// Makes Halide's runtime hand parallel loops to model_pool_do_par_for and heap
// blocks to model_pool_malloc (pointer stores; called before every run so that
// handlers installed by other code in the process between runs do not take the
// model's loops or blocks).
inline void install_model_thread_pool() {
    halide_set_custom_do_par_for(model_pool_do_par_for);
    halide_set_custom_malloc(model_pool_malloc);
    halide_set_custom_free(model_pool_free);
}

}  // namespace
