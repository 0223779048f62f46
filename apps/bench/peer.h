// A peer of `tessera-bench --model`: onnxruntime or PyTorch running a model in a
// long-lived Python child (scripts/peer_runner.py, started with the peers'
// interpreter), so that its runs interleave with Tessera's without loading the model
// again. The protocol is one line each way (the runner's docstring has it all):
//   first line   ready DESCRIPTION | unavailable REASON | error MESSAGE
//   run N     -> times T1 ... TN     (milliseconds, measured around each call alone)
//   save DIR  -> saved K             (the last run's outputs: DIR/output0.npy ...)
//   quit
// Anything else, or a line not of these forms, is an error.
#pragma once

#include "child_process.h"

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::bench {

// A peer's failure after it was ready; `crashed` when its process died or timed out
// (otherwise it answered "error ..." or something unreadable).
struct PeerError : std::runtime_error {
    PeerError(const std::string &what, bool crashed) : std::runtime_error(what), crashed(crashed) {}
    bool crashed;
};

struct PeerLaunch {
    std::string python;               // the interpreter
    std::string runner;               // peer_runner.py, or a stand-in speaking its protocol
    std::string kind;                 // "onnxruntime" or "pytorch"
    std::string model;                // the .onnx (onnxruntime) or .pt (pytorch) file
    int threads = 1;
    std::vector<std::string> inputs;  // .npy files, in the order of the model's inputs
    int timeout_s = 600;              // for each reply, the model's load included
    bool quiet = true;                // the runner's stderr kept out of the terminal (its last line explains a failure)
};

class Peer {
public:
    enum class State { ready, unavailable, failed };

    // Starts the runner and reads its first line. The peer's own failures do not
    // throw: state() and why() say what happened.
    explicit Peer(const PeerLaunch &launch);
    ~Peer();
    Peer(const Peer &) = delete;
    Peer &operator=(const Peer &) = delete;

    State state() const { return state_; }
    bool crashed() const { return crashed_; }
    const std::string &kind() const { return launch_.kind; }
    // What the runner said it runs ("onnxruntime 1.17.1") once ready.
    const std::string &description() const { return description_; }
    // Why it is unavailable or failed.
    const std::string &why() const { return why_; }
    double load_s() const { return load_s_; }
    // The runner's process id (-1 when it could not be started).
    pid_t pid() const { return child_ ? child_->pid() : -1; }

    // `n` runs; the milliseconds of each. Throws PeerError, and the peer is failed.
    std::vector<double> run(int n);
    // Writes the last run's outputs into `dir`; returns their paths in output order.
    // Throws PeerError, and the peer is failed.
    std::vector<std::string> save(const std::string &dir);

private:
    std::string request(const std::string &line);
    [[noreturn]] void fail(const std::string &why, bool crashed);

    PeerLaunch launch_;
    std::unique_ptr<LineChild> child_;
    State state_ = State::failed;
    bool crashed_ = false;
    std::string description_, why_;
    double load_s_ = 0;
};

// The replies, parsed. Throw std::invalid_argument with the reason ("error ..." replies
// give their message) when the reply is not of the expected form.
std::vector<double> parse_times_reply(const std::string &reply, int n);
int parse_saved_reply(const std::string &reply);

}  // namespace tessera::bench
