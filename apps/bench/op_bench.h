// Benchmarks one op with several contenders: each is built and checked against the
// reference on the same random inputs (NaN-poisoned output), then all correct-or-
// mismatching ones are timed side by side in interleaved rounds (A B C A B C ...).
#pragma once

#include "bench_record.h"
#include "op_config.h"
#include "schedulers.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::bench {

struct BenchSettings {
    int reps = 20;              // rounds at most (at least 3)
    double budget_ms = 1500;    // stop adding rounds once this much kernel time is spent
    uint64_t seed = 1;
    int timeout_s = 180;        // per op and attempt, isolated runs only
    bool quiet = true;          // isolated children send the autoschedulers' chatter on stderr to /dev/null
    // The Halide contenders' target, and Tessera's options (a variant's settings go on top).
    SchedulerChoice scheduler;
    int measured_candidates = 0;  // Tessera's measured pick (JitOp)
    // Where the Halide contenders' parallel loops run: on the pool a compiled model
    // runs its partitions on (graph::JitThreadPool, `threads` threads counting the
    // caller; 0: every core), or on Halide's own process-wide pool (HL_NUM_THREADS).
    enum class ThreadPool { Model, Halide };
    ThreadPool thread_pool = ThreadPool::Model;
    int threads = 0;
    // Test hook (tests/bench, builds with TESSERA_TEST_HOOKS): the contender of this
    // name crashes while it is built, to check the isolation.
    std::string inject_crash;
};

// Where an isolated child is, so the parent can name the contender that crashed.
struct Progress {
    volatile int index = -1;     // contender being built, checked or timed
    volatile int timing = 0;     // 0: building/checking, 1: timing
};

// In this process. `progress` may be null.
std::vector<BenchRecord> bench_op_here(const ops::OpConfig &config, const std::vector<std::string> &schedulers,
                                       const BenchSettings &settings, Progress *progress);

// In a forked child, so a contender that crashes (or hangs past the timeout) gets a
// "crashed" record and the others are run again without it. The calling process
// must not have started OpenMP or Halide thread pools (fork keeps only one thread).
std::vector<BenchRecord> bench_op_isolated(const ops::OpConfig &config, const std::vector<std::string> &schedulers,
                                           const BenchSettings &settings);

}  // namespace tessera::bench
