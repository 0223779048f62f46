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

ChildOutcome run_in_child(const std::function<std::string()> &work, int timeout_s, bool quiet) {
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    char log_path[] = "/tmp/tessera-child-XXXXXX";
    const int log_fd = quiet ? mkstemp(log_path) : -1;
    if (log_fd >= 0) unlink(log_path);  // stays readable through the descriptor
    std::fflush(stdout);
    std::fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        close(fds[0]);
        if (log_fd >= 0) dup2(log_fd, STDERR_FILENO);
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
    ChildOutcome outcome;
    outcome.text = read_all(fds[0]);
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    outcome.last_stderr_line = last_line(log_fd);
    if (log_fd >= 0) close(log_fd);
    if (WIFSIGNALED(status)) {
        outcome.signal = WTERMSIG(status);
        outcome.timed_out = outcome.signal == SIGALRM && timeout_s > 0;
    } else {
        outcome.exit_code = WEXITSTATUS(status);
        outcome.ok = outcome.exit_code == 0;
        outcome.threw = outcome.exit_code == 3;
    }
    if (outcome.timed_out) outcome.text.clear();
    return outcome;
}

}  // namespace tessera
