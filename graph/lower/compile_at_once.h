// JIT compiles of independent pipelines, several at once: LLVM's code generation is
// most of a partition's compile, and Halide compiles pipelines that share nothing on
// separate threads. Scheduling stays with the caller, one pipeline after another
// (an autoscheduler need not be thread-safe).
#pragma once

#include <Halide.h>

#include <exception>
#include <functional>
#include <string>
#include <vector>

namespace tessera::graph {

// Compiles each of `pipelines` for `target`, `jobs` at a time (0: one per core), a
// thread each. Returns, per pipeline, what its compile threw (null: it compiled), to
// rethrow or to read with failure_message. `done(k, ms)`, called under a lock as each
// one finishes, gets its index and compile time.
std::vector<std::exception_ptr> compile_jit_at_once(const std::vector<Halide::Pipeline> &pipelines,
                                                    const Halide::Target &target, int jobs,
                                                    const std::function<void(size_t, double)> &done = {});

// What a failure compile_jit_at_once returned says.
std::string failure_message(const std::exception_ptr &failure);

}  // namespace tessera::graph
