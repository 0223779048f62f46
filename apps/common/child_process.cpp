#include "child_process.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <thread>

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

LineChild::LineChild(const std::vector<std::string> &argv, bool quiet) {
    if (argv.empty()) throw LineChildError("no program to start");
    std::signal(SIGPIPE, SIG_IGN);
    int to_child[2], from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0) throw LineChildError(std::string("pipe: ") + std::strerror(errno));
    if (pipe2(from_child, O_CLOEXEC) != 0) {
        close(to_child[0]);
        close(to_child[1]);
        throw LineChildError(std::string("pipe: ") + std::strerror(errno));
    }
    if (quiet) {
        char log_path[] = "/tmp/tessera-child-XXXXXX";
        log_fd_ = mkostemp(log_path, O_CLOEXEC);
        if (log_fd_ >= 0) unlink(log_path);  // stays readable through the descriptor
    }
    // Everything the child needs is built before fork: after it, only exec.
    std::vector<char *> args;
    for (const std::string &a : argv) args.push_back(const_cast<char *>(a.c_str()));
    args.push_back(nullptr);
    std::fflush(stdout);
    std::fflush(stderr);
    pid_ = fork();
    if (pid_ < 0) {
        const int e = errno;
        for (int fd : {to_child[0], to_child[1], from_child[0], from_child[1], log_fd_}) {
            if (fd >= 0) close(fd);
        }
        throw LineChildError(std::string("fork: ") + std::strerror(e));
    }
    if (pid_ == 0) {
        // dup2 clears close-on-exec on the copies the program keeps.
        dup2(to_child[0], STDIN_FILENO);
        dup2(from_child[1], STDOUT_FILENO);
        if (log_fd_ >= 0) dup2(log_fd_, STDERR_FILENO);
        std::signal(SIGPIPE, SIG_DFL);
        execvp(args[0], args.data());
        _exit(127);
    }
    close(to_child[0]);
    close(from_child[1]);
    in_fd_ = to_child[1];
    out_fd_ = from_child[0];
}

LineChild::~LineChild() {
    if (in_fd_ >= 0) close(in_fd_);  // end of input: a well-behaved child exits
    if (pid_ > 0 && ended_.empty()) reap(1.0);
    if (out_fd_ >= 0) close(out_fd_);
    if (log_fd_ >= 0) close(log_fd_);
}

std::string LineChild::reap(double wait_s) {
    if (!ended_.empty()) return ended_;
    int status = 0;
    pid_t got = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
    while ((got = waitpid(pid_, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (got == 0) {
        kill(pid_, SIGKILL);
        while ((got = waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
        }
    }
    if (got < 0) ended_ = "ended (waitpid: " + std::string(std::strerror(errno)) + ")";
    else if (WIFSIGNALED(status)) ended_ = std::string("crashed (") + strsignal(WTERMSIG(status)) + ")";
    else if (WEXITSTATUS(status) == 127) ended_ = "could not be started (exit status 127)";
    else ended_ = "exited with status " + std::to_string(WEXITSTATUS(status));
    const std::string line = last_line(log_fd_);
    if (!line.empty()) ended_ += ": " + line;
    return ended_;
}

std::string LineChild::read_line(int timeout_s) {
    using clock = std::chrono::steady_clock;
    const auto deadline = clock::now() + std::chrono::seconds(std::max(timeout_s, 0));
    for (;;) {
        const size_t newline = pending_.find('\n');
        if (newline != std::string::npos) {
            std::string line = pending_.substr(0, newline);
            pending_.erase(0, newline + 1);
            if (!line.empty() && line.back() == '\r') line.pop_back();
            return line;
        }
        if (out_fd_ < 0) throw LineChildError(ended_);
        int wait_ms = -1;
        if (timeout_s > 0) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
            wait_ms = int(std::max<long long>(0, left));
        }
        pollfd p{out_fd_, POLLIN, 0};
        const int ready = poll(&p, 1, wait_ms);
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) {
            kill(pid_, SIGKILL);
            reap(0);
            ended_ = "timed out after " + std::to_string(timeout_s) + " s";
            close(out_fd_);
            out_fd_ = -1;
            throw LineChildError(ended_);
        }
        char buf[4096];
        const ssize_t n = read(out_fd_, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n > 0) {
            pending_.append(buf, size_t(n));
            continue;
        }
        // End of its output: the child has ended or is about to.
        close(out_fd_);
        out_fd_ = -1;
        reap(5.0);
        if (!pending_.empty()) ended_ += " (after an unfinished line: '" + pending_.substr(0, 200) + "')";
        throw LineChildError(ended_);
    }
}

void LineChild::write_line(const std::string &line) {
    const std::string text = line + "\n";
    for (size_t off = 0; off < text.size();) {
        const ssize_t n = in_fd_ < 0 ? -1 : write(in_fd_, text.data() + off, text.size() - off);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) throw LineChildError("stopped reading its input: " + reap(5.0));
        off += size_t(n);
    }
}

}  // namespace tessera
