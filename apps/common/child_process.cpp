#include "child_process.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

namespace tessera {

namespace {

std::string read_all(int fd) {
    std::string text;
    char buf[8192];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
        if (n > 0) text.append(buf, size_t(n));
    }
    return text;
}

void write_all(int fd, const std::string &text) {
    for (size_t off = 0; off < text.size();) {
        ssize_t n = write(fd, text.data() + off, text.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        off += size_t(n);
    }
}

// The last non-empty line of what a child wrote to its log (at most 300 characters).
std::string last_line(int fd) {
    if (fd < 0 || lseek(fd, 0, SEEK_SET) < 0) return "";
    std::string text = read_all(fd);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    size_t start = text.find_last_of('\n');
    std::string line = start == std::string::npos ? text : text.substr(start + 1);
    return line.size() > 300 ? line.substr(line.size() - 300) : line;
}

}  // namespace

std::string ChildOutcome::failure() const {
    if (ok || threw) return "";
    if (timed_out) return "timed out";
    if (signal) return std::string("crashed (") + strsignal(signal) + ")";
    return "exited with status " + std::to_string(exit_code);
}

namespace {

// A forked child running a piece of work: its pipe and its stderr log.
struct RunningChild {
    pid_t pid = -1;
    int pipe_fd = -1, log_fd = -1;
    int timeout_s = 0;
};

RunningChild start_child(const std::function<std::string()> &work, int timeout_s, bool quiet) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    char log_path[] = "/tmp/tessera-child-XXXXXX";
    RunningChild c;
    c.timeout_s = timeout_s;
    c.log_fd = quiet ? mkstemp(log_path) : -1;
    if (c.log_fd >= 0) unlink(log_path);  // stays readable through the descriptor
    std::fflush(stdout);
    std::fflush(stderr);
    c.pid = fork();
    if (c.pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (c.pid == 0) {
        close(fds[0]);
        if (c.log_fd >= 0) dup2(c.log_fd, STDERR_FILENO);
        if (timeout_s > 0) alarm(unsigned(timeout_s));
        int code = 0;
        std::string text;
        try {
            text = work();
        } catch (const std::exception &e) {
            text = std::string("error: ") + e.what();
            code = 3;
        }
        write_all(fds[1], text);
        close(fds[1]);
        std::fflush(stdout);
        std::fflush(stderr);
        _exit(code);
    }
    close(fds[1]);
    c.pipe_fd = fds[0];
    return c;
}

ChildOutcome finish_child(RunningChild &c) {
    ChildOutcome outcome;
    outcome.text = read_all(c.pipe_fd);
    close(c.pipe_fd);
    int status = 0;
    while (waitpid(c.pid, &status, 0) < 0 && errno == EINTR) {
    }
    outcome.last_stderr_line = last_line(c.log_fd);
    if (c.log_fd >= 0) close(c.log_fd);
    if (WIFSIGNALED(status)) {
        outcome.signal = WTERMSIG(status);
        outcome.timed_out = outcome.signal == SIGALRM && c.timeout_s > 0;
    } else {
        outcome.exit_code = WEXITSTATUS(status);
        outcome.ok = outcome.exit_code == 0;
        outcome.threw = outcome.exit_code == 3;
    }
    if (outcome.timed_out) outcome.text.clear();
    return outcome;
}

}  // namespace

ChildOutcome run_in_child(const std::function<std::string()> &work, int timeout_s, bool quiet) {
    RunningChild c = start_child(work, timeout_s, quiet);
    return finish_child(c);
}

std::vector<ChildOutcome> run_in_children(const std::vector<std::function<std::string()>> &works, int parallel,
                                          int timeout_s, bool quiet,
                                          const std::function<void(size_t, const ChildOutcome &)> &done) {
    std::vector<ChildOutcome> outcomes(works.size());
    std::vector<RunningChild> running(works.size());
    size_t started = 0;
    for (size_t k = 0; k < works.size(); k++) {
        // Keep up to `parallel` children going; collect them in the order they started.
        while (started < works.size() && started < k + size_t(std::max(1, parallel))) {
            running[started] = start_child(works[started], timeout_s, quiet);
            started++;
        }
        outcomes[k] = finish_child(running[k]);
        if (done) done(k, outcomes[k]);
    }
    return outcomes;
}

}  // namespace tessera
