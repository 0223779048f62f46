// Runs a piece of work in a forked child process, so that a kernel that crashes
// (or hangs) takes down only the child: the caller gets a description of what
// happened and carries on with the next op. tessera-bench and tessera-suite
// both isolate each op this way. The calling process must not have started
// OpenMP or Halide thread pools (a forked child keeps only the calling thread).
// LineChild is the other kind: a long-lived program of its own (tessera-bench's
// Python peers) spoken to one line at a time over pipes.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <sys/types.h>
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

// What went wrong with a LineChild: it exited, crashed, timed out or wrote no line.
struct LineChildError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// A program started with pipes on its stdin and stdout, spoken to one line at a
// time: a request written, one reply line read. With `quiet`, its stderr goes to a
// temporary file whose last line explains a failure; otherwise it shares ours. The
// child is started with fork and exec (safe once threads are running); its pipes
// are close-on-exec here, so another child does not hold them open. SIGPIPE is
// ignored in this process from the first start on: a write to a child that has
// gone is an error, not the end of the program.
class LineChild {
public:
    // argv[0] is the program's path. Throws LineChildError when the pipes or fork
    // fail; a program that cannot be executed exits with status 127 (the first read
    // says so).
    LineChild(const std::vector<std::string> &argv, bool quiet);
    // Closes the child's stdin, gives it a second to exit, then kills it.
    ~LineChild();
    LineChild(const LineChild &) = delete;
    LineChild &operator=(const LineChild &) = delete;

    // The next line the child writes, without its newline. Throws LineChildError when
    // the child closes its stdout or ends ("exited with status 1: <last stderr
    // line>", "crashed (Segmentation fault)") or writes no full line within
    // timeout_s (<= 0: no limit; the child is then killed: "timed out after N s").
    std::string read_line(int timeout_s);
    // Throws LineChildError when the child no longer reads (it has ended).
    void write_line(const std::string &line);
    std::string request(const std::string &line, int timeout_s) {
        write_line(line);
        return read_line(timeout_s);
    }
    pid_t pid() const { return pid_; }

private:
    // Reaps the child (waiting up to `wait_s`, then killing it) and says how it ended.
    std::string reap(double wait_s);

    pid_t pid_ = -1;
    int in_fd_ = -1, out_fd_ = -1, log_fd_ = -1;
    std::string pending_;  // read past the last line returned
    std::string ended_;    // how the child ended, once reaped
};

}  // namespace tessera
