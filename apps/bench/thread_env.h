// The thread environment of a benchmark run. OpenMP (oneDNN) reads its variables
// when libgomp is loaded, before main(), so tessera-bench re-executes itself once
// with them in its new environment: every contender then uses the same thread
// count. OMP_WAIT_POLICY is the --omp-wait choice: passive makes OpenMP's threads
// sleep between calls (they then wake for each small op), active lets them spin
// (on the cores Halide's pool needs in the next round of an interleaved run).
#pragma once

namespace tessera::bench {

// Re-executes argv with HL_NUM_THREADS, OMP_NUM_THREADS, TESSERA_NUM_THREADS,
// OMP_WAIT_POLICY (`omp_wait`: "active", "passive" or "default": unset) and
// OMP_PROC_BIND in the new process's environment when this process did not start
// with exactly these; returns only when the environment is already right. This
// process's own environment is left alone. Throws std::runtime_error when the
// re-exec fails.
void ensure_thread_environment(int threads, const char *omp_wait, char **argv);

}  // namespace tessera::bench
