// The thread pool an emitted model owns (graph/emit/runtime/model_thread_pool.h):
// every index of a parallel loop runs exactly once with 1, 2 and more threads than
// the machine has cores, loops nested in a task run serially, a task's error code
// comes back, many short loops in a run and loops after the workers fell asleep
// all complete, pinning keeps results the same, and workers woken for a run are
// placed off the caller's CPU and then given their whole mask back.
#include "jit_thread_pool.h"
#include "host_target.h"
#include "model_thread_pool.h"

#include <gtest/gtest.h>

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <cmath>
#include <chrono>
#include <thread>
#include <vector>

namespace {

struct Counts {
    std::vector<std::atomic<int>> hits;
    ModelThreadPool *pool = nullptr;
    std::atomic<int> nested{0};
    explicit Counts(size_t n) : hits(n) {}
};

int count_index(void *user_context, int index, uint8_t *closure) {
    auto *c = reinterpret_cast<Counts *>(closure);
    EXPECT_EQ(user_context, c);
    c->hits[size_t(index)].fetch_add(1);
    return 0;
}

int inner_index(void *, int, uint8_t *closure) {
    reinterpret_cast<Counts *>(closure)->nested.fetch_add(1);
    return 0;
}

int outer_index(void *user_context, int index, uint8_t *closure) {
    auto *c = reinterpret_cast<Counts *>(closure);
    c->hits[size_t(index)].fetch_add(1);
    return c->pool->parallel_for(user_context, inner_index, 0, 10, closure);
}

int fail_at_seven(void *, int index, uint8_t *) {
    return index == 7 ? -42 : 0;
}

void expect_each_once(const Counts &c) {
    for (size_t i = 0; i < c.hits.size(); i++) ASSERT_EQ(c.hits[i].load(), 1) << "index " << i;
}

class ModelThreadPoolTest : public testing::TestWithParam<int> {};

TEST_P(ModelThreadPoolTest, RunsEveryIndexOnce) {
    ModelThreadPool pool(GetParam(), false);
    EXPECT_EQ(pool.threads(), GetParam());
    pool.begin_run();
    for (int size : {1, 2, 3, 17, 1000, 1001}) {  // odd sizes: a last chunk shorter than the rest
        Counts c(size_t(size) + 5);
        ASSERT_EQ(pool.parallel_for(&c, count_index, 5, size, reinterpret_cast<uint8_t *>(&c)), 0);
        for (int i = 0; i < 5; i++) EXPECT_EQ(c.hits[size_t(i)].load(), 0);
        for (int i = 5; i < size + 5; i++) ASSERT_EQ(c.hits[size_t(i)].load(), 1) << "size " << size << " index " << i;
    }
    pool.end_run();
}

TEST_P(ModelThreadPoolTest, ManyShortLoopsInARunAndLoopsAfterSleep) {
    ModelThreadPool pool(GetParam(), false);
    for (int run = 0; run < 3; run++) {
        pool.begin_run();
        for (int loop = 0; loop < 500; loop++) {
            Counts c(8);
            ASSERT_EQ(pool.parallel_for(&c, count_index, 0, 8, reinterpret_cast<uint8_t *>(&c)), 0);
            expect_each_once(c);
        }
        pool.end_run();
        // Long enough for idle workers to go to sleep; the next loop wakes them.
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        Counts c(64);
        ASSERT_EQ(pool.parallel_for(&c, count_index, 0, 64, reinterpret_cast<uint8_t *>(&c)), 0);
        expect_each_once(c);
    }
}

TEST_P(ModelThreadPoolTest, NestedLoopsRunSeriallyInTheirTask) {
    ModelThreadPool pool(GetParam(), false);
    Counts c(12);
    c.pool = &pool;
    ASSERT_EQ(pool.parallel_for(&c, outer_index, 0, 12, reinterpret_cast<uint8_t *>(&c)), 0);
    expect_each_once(c);
    EXPECT_EQ(c.nested.load(), 120);
}

TEST_P(ModelThreadPoolTest, ReturnsATasksErrorCode) {
    ModelThreadPool pool(GetParam(), false);
    EXPECT_EQ(pool.parallel_for(nullptr, fail_at_seven, 0, 20, nullptr), -42);
    Counts c(20);
    EXPECT_EQ(pool.parallel_for(&c, count_index, 0, 20, reinterpret_cast<uint8_t *>(&c)), 0);
    expect_each_once(c);
}

TEST_P(ModelThreadPoolTest, PinnedWorkersGiveTheSameResult) {
    ModelThreadPool pool(GetParam(), true);
    Counts c(333);
    ASSERT_EQ(pool.parallel_for(&c, count_index, 0, 333, reinterpret_cast<uint8_t *>(&c)), 0);
    expect_each_once(c);
}

// A task that records how many CPUs the thread running it may use, when that
// thread is a worker (not the caller).
struct WorkerMasks {
    std::thread::id caller = std::this_thread::get_id();
    int cores = ModelThreadPool::available_cores();  // the caller's mask (asked in a worker, its own)
    std::atomic<int> worker_tasks{0}, worker_restricted{0};
};

int record_worker_mask(void *, int, uint8_t *closure) {
    auto *w = reinterpret_cast<WorkerMasks *>(closure);
    volatile double x = 0;
    for (int k = 0; k < 20000; k++) x = x + 1e-9 * k;  // long enough for a worker to take a share
    if (std::this_thread::get_id() == w->caller) return 0;
    cpu_set_t mine;
    if (pthread_getaffinity_np(pthread_self(), sizeof mine, &mine) == 0 &&
        CPU_COUNT(&mine) < w->cores) {
        w->worker_restricted.fetch_add(1);
    }
    w->worker_tasks.fetch_add(1);
    return 0;
}

TEST_P(ModelThreadPoolTest, WorkersWokenForARunGetTheWholeMaskBack) {
    // A run restricts each sleeping worker to a CPU other than the caller's so it
    // does not wake queued behind it; a woken worker takes the pool's mask back.
    if (ModelThreadPool::available_cores() < 2 || GetParam() < 2) GTEST_SKIP() << "needs 2 cores and a worker";
    ModelThreadPool pool(GetParam(), false);
    WorkerMasks w;
    for (int run = 0; run < 20 && w.worker_tasks.load() == 0; run++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));  // the workers fall asleep
        pool.begin_run();
        for (int loop = 0; loop < 20; loop++) {
            ASSERT_EQ(pool.parallel_for(&w, record_worker_mask, 0, 64, reinterpret_cast<uint8_t *>(&w)), 0);
        }
        pool.end_run();
    }
    ASSERT_GT(w.worker_tasks.load(), 0) << "no worker ran a task in 20 runs";
    EXPECT_EQ(w.worker_restricted.load(), 0) << "a woken worker kept the one CPU it was woken on";
}

TEST(ModelThreadPool, SleepingWorkersWakeOnCpusOtherThanTheCallers) {
    auto mask = [](std::vector<int> cpus) {
        cpu_set_t set;
        CPU_ZERO(&set);
        for (int c : cpus) CPU_SET(c, &set);
        return set;
    };
    using V = std::vector<int>;
    EXPECT_EQ(ModelThreadPool::wake_cpus(mask({0, 1}), 0, 1), V({1}));
    EXPECT_EQ(ModelThreadPool::wake_cpus(mask({0, 1}), 1, 1), V({0}));
    // In turn after the caller's CPU, the caller's own never.
    EXPECT_EQ(ModelThreadPool::wake_cpus(mask({0, 1, 2, 3}), 2, 3), V({3, 0, 1}));
    EXPECT_EQ(ModelThreadPool::wake_cpus(mask({0, 1, 2, 3}), 2, 5), V({3, 0, 1, 3, 0}));
    // A caller outside the mask: every allowed CPU is another.
    EXPECT_EQ(ModelThreadPool::wake_cpus(mask({0, 2}), 1, 2), V({2, 0}));
    // One allowed CPU: nowhere else to go, no placement.
    EXPECT_EQ(ModelThreadPool::wake_cpus(mask({5}), 5, 2), V({-1, -1}));
    EXPECT_EQ(ModelThreadPool::wake_cpus(mask({5}), 3, 1), V({-1}));
    EXPECT_TRUE(ModelThreadPool::wake_cpus(mask({0, 1}), 0, 0).empty());
}

// 1, 2 and three times the machine's cores.
INSTANTIATE_TEST_SUITE_P(Threads, ModelThreadPoolTest,
                         testing::Values(1, 2, 3 * ModelThreadPool::available_cores()));

}  // namespace

TEST(ModelBlockCache, ReusesAKeptBlockAndDropsOnesTooSmall) {
    ModelBlockCache cache;
    const size_t k = ModelBlockCache::kSmallestKept;
    char *a = static_cast<char *>(cache.allocate(2 * k));
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % ModelBlockCache::kAlignment, 0u);
    a[0] = 1;
    a[2 * k - 1] = 2;
    cache.release(a);
    EXPECT_EQ(cache.kept_blocks(), 1u);
    void *b = cache.allocate(2 * k - 100);  // fits the kept block
    EXPECT_EQ(b, a);
    EXPECT_EQ(cache.kept_blocks(), 0u);
    void *c = cache.allocate(k);  // nothing kept: a block of its own
    EXPECT_NE(c, b);
    cache.release(b);
    cache.release(c);
    EXPECT_EQ(cache.kept_blocks(), 2u);
    void *smaller = cache.allocate(k - 100);  // the smaller of the two that fit
    EXPECT_EQ(smaller, c);
    // Larger than any kept block: the largest kept one (too small) is freed first.
    void *big = cache.allocate(1 << 22);
    ASSERT_NE(big, nullptr);
    EXPECT_EQ(cache.kept_blocks(), 0u);
    static_cast<char *>(big)[(1 << 22) - 1] = 3;
    cache.release(smaller);
    cache.release(big);
    EXPECT_EQ(cache.kept_blocks(), 2u);
}

TEST(ModelBlockCache, SmallBlocksComeFromTheSystemAndAreNotKept) {
    // A task's scratch (a padded plane of a few KiB) is asked for once per task by
    // every thread at once; kept blocks would serialise them on the cache's mutex.
    ModelBlockCache cache;
    char *a = static_cast<char *>(cache.allocate(1000));
    ASSERT_NE(a, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % ModelBlockCache::kAlignment, 0u);
    a[0] = 1;
    a[999] = 2;
    cache.release(a);
    EXPECT_EQ(cache.kept_blocks(), 0u);
    cache.release(nullptr);
    EXPECT_EQ(cache.kept_blocks(), 0u);
}

TEST(ModelBlockCache, TasksAllocateAndReleaseAtOnce) {
    ModelBlockCache cache;
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 4; t++) {
        threads.emplace_back([&, t] {
            for (int i = 0; i < 500; i++) {
                // Small blocks and kept ones, alternately.
                const size_t n = size_t(64 + 37 * ((i + t) % 13)) + (i % 2 ? ModelBlockCache::kSmallestKept : 0);
                auto *p = static_cast<unsigned char *>(cache.allocate(n));
                for (size_t k = 0; k < n; k++) p[k] = static_cast<unsigned char>(t);
                for (size_t k = 0; k < n; k++) wrong += p[k] != t;
                cache.release(p);
            }
        });
    }
    for (std::thread &t : threads) t.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_LE(cache.kept_blocks(), 4u);
}

// Through Halide's JIT: a pipeline realized with the pool's context runs its parallel
// loop on the pool and computes every element.
namespace tessera::graph {
namespace {

TEST(JitThreadPool, HalideParallelLoopsRunOnThePool) {
    Halide::Func f("f");
    Halide::Var x("x"), y("y");
    f(x, y) = Halide::cast<float>(x * 3 + y * y);
    f.parallel(y).vectorize(x, 8);
    f.compile_jit();
    for (int threads : {1, 2, 7}) {
        JitThreadPool pool(threads);
        EXPECT_EQ(pool.threads(), threads);
        Halide::Buffer<float> out(64, 37);
        out.fill(std::nanf(""));
        {
            const JitThreadPool::Run run(pool);
            Halide::Pipeline p(f);
            pool.realize(p, out, tessera::hal::host_target());
        }
        EXPECT_GE(pool.parallel_loops(), 1u);
        for (int j = 0; j < 37; j++) {
            for (int i = 0; i < 64; i++) ASSERT_EQ(out(i, j), float(i * 3 + j * j)) << i << ", " << j;
        }
    }
}

// An intermediate computed at root lives in a block the pool keeps for the next
// realize (the JIT's custom_malloc), and both realizes compute every element.
TEST(JitThreadPool, HeapIntermediatesAreKeptForTheNextRealize) {
    Halide::Func g("g"), f("f");
    Halide::Var x("x"), y("y");
    g(x, y) = Halide::cast<float>(x + 1000 * y);
    f(x, y) = g(x, y) * 2.0f + g(x + 1, y);
    g.compute_root().parallel(y);
    f.parallel(y).vectorize(x, 8);
    f.compile_jit();
    JitThreadPool pool(2);
    for (int round = 0; round < 2; round++) {
        Halide::Buffer<float> out(300, 200);  // g: 301 x 200 floats, past any stack
        out.fill(std::nanf(""));
        {
            const JitThreadPool::Run run(pool);
            Halide::Pipeline p(f);
            pool.realize(p, out, tessera::hal::host_target());
        }
        EXPECT_EQ(pool.kept_blocks(), 1u) << "round " << round;
        for (int j = 0; j < 200; j++) {
            for (int i = 0; i < 300; i++) {
                ASSERT_EQ(out(i, j), float(i + 1000 * j) * 2.0f + float(i + 1 + 1000 * j)) << i << ", " << j;
            }
        }
    }
}

}  // namespace
}  // namespace tessera::graph
