# shellcheck shell=bash
# Sanitizer options for build-sanitize/ (TESSERA_SANITIZE=ON), sourced (bash) by
# scripts/test-sanitize.sh (`make test-sanitize`: the build runs sanitized tools, the AOT
# generators and test discovery), tests/sanitize/run_sanitized.sh and
# tests/fuzz/run_fuzzer.sh.
#
# Nothing is switched off wholesale: leak checking stays on, with third-party leaks
# suppressed by frame (lsan.supp); see tests/sanitize/README.md for each entry.
# With TESSERA_SANITIZE_LOG_DIR set, every report (of the test and of every tool it
# starts) goes to a file there, so a report from a child process whose exit code the
# test expected to be non-zero still fails the run.
# TESSERA_SANITIZE_EXTRA_ASAN appends options for one test (see CMakeLists.txt).

tessera_sanitize_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tessera_sanitize_log=""
if [[ -n "${TESSERA_SANITIZE_LOG_DIR:-}" ]]; then
  mkdir -p "$TESSERA_SANITIZE_LOG_DIR"
  tessera_sanitize_log=":log_path=$TESSERA_SANITIZE_LOG_DIR/report"
fi
export ASAN_OPTIONS="detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1:strict_string_checks=1:suppressions=$tessera_sanitize_dir/asan.supp${tessera_sanitize_log}${TESSERA_SANITIZE_EXTRA_ASAN:+:$TESSERA_SANITIZE_EXTRA_ASAN}"
# Halide quirk: libHalide runs lowering and LLVM on a stack of its own, switched to with
# makecontext/swapcontext (Halide::Internal::run_with_large_stack), which ASan cannot
# follow ("ASan doesn't fully support makecontext/swapcontext functions and may produce
# false positives"). HL_COMPILER_STACK_SIZE=0 is Halide's own switch to compile on the
# calling thread's stack instead; the stack limit is raised to 64 MiB so deep
# pipelines still fit (Halide's own stack is 32 MiB; ASan's frames are larger).
export HL_COMPILER_STACK_SIZE=0
tessera_stack=$(ulimit -s)
if [[ "$tessera_stack" != unlimited && "$tessera_stack" -lt 65536 ]]; then
  ulimit -s 65536 2>/dev/null || echo "tests/sanitize/env.sh: cannot raise the stack limit to 64 MiB (ulimit -s)" >&2
fi
unset tessera_stack
export LSAN_OPTIONS="suppressions=$tessera_sanitize_dir/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:suppressions=$tessera_sanitize_dir/ubsan.supp${tessera_sanitize_log}"
unset tessera_sanitize_dir tessera_sanitize_log
