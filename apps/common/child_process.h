// Runs a piece of work in a forked child process, so that a kernel that crashes
// (or hangs) takes down only the child: the caller gets a description of what
// happened and carries on with the next op. tessera-bench and tessera-suite
// both isolate each op this way. The calling process must not have started
// OpenMP or Halide thread pools (a forked child keeps only the calling thread).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace tessera {

struct ChildOutcome {
    bool ok = false;         // the work returned normally and the child exited 0
    bool threw = false;      // the work threw: `text` is "error: <what()>"
    std::string text;        // what the work returned (or the exception's text)
    int signal = 0;          // the signal that ended the child, 0 if none
    bool timed_out = false;  // ended by the alarm after timeout_s
    int exit_code = 0;       // the child's exit status when it exited on its own
    std::string last_stderr_line;  // when stderr was kept (quiet): its last line, for a crash's context

    // "crashed (Segmentation fault)", "timed out after 60 s", "exited with status 127";
    // empty when ok or threw.
    std::string failure() const;
};

// Runs `work` in a child and returns its text through a pipe. With `quiet`, the
// child's stderr goes to a temporary file whose last line is kept. timeout_s <= 0: no limit.
ChildOutcome run_in_child(const std::function<std::string()> &work, int timeout_s, bool quiet);

// Each of `works` in a child of its own, up to `parallel` at a time; outcomes in the
// order of `works`, `done` called for each as it is collected (in that order).
std::vector<ChildOutcome> run_in_children(const std::vector<std::function<std::string()>> &works, int parallel,
                                          int timeout_s, bool quiet,
                                          const std::function<void(size_t, const ChildOutcome &)> &done = {});

}  // namespace tessera
