#include "peer.h"

#include "stopwatch.h"

#include <cmath>
#include <sstream>

namespace tessera::bench {

namespace {

// "word rest of the line" -> {"word", "rest of the line"}
std::pair<std::string, std::string> split_first(const std::string &line) {
    const size_t space = line.find(' ');
    if (space == std::string::npos) return {line, ""};
    return {line.substr(0, space), line.substr(space + 1)};
}

std::string shorten(const std::string &s) {
    return s.size() > 300 ? s.substr(0, 300) + "..." : s;
}

}  // namespace

std::vector<double> parse_times_reply(const std::string &reply, int n) {
    const auto [word, rest] = split_first(reply);
    if (word == "error") throw std::invalid_argument(rest);
    if (word != "times") throw std::invalid_argument("expected 'times ...', got '" + shorten(reply) + "'");
    std::istringstream in(rest);
    std::vector<double> times;
    std::string item;
    while (in >> item) {
        char *end = nullptr;
        const double ms = std::strtod(item.c_str(), &end);
        if (*end || !std::isfinite(ms) || ms < 0) {
            throw std::invalid_argument("'" + item + "' is not a time in milliseconds in '" + shorten(reply) + "'");
        }
        times.push_back(ms);
    }
    if (int(times.size()) != n) {
        throw std::invalid_argument("asked for " + std::to_string(n) + " time(s), got " + std::to_string(times.size()));
    }
    return times;
}

int parse_saved_reply(const std::string &reply) {
    const auto [word, rest] = split_first(reply);
    if (word == "error") throw std::invalid_argument(rest);
    char *end = nullptr;
    const long k = std::strtol(rest.c_str(), &end, 10);
    if (word != "saved" || rest.empty() || *end || k < 1 || k > 10000) {
        throw std::invalid_argument("expected 'saved K', got '" + shorten(reply) + "'");
    }
    return int(k);
}

Peer::Peer(const PeerLaunch &launch) : launch_(launch) {
    std::vector<std::string> argv = {launch.python, launch.runner, launch.kind, launch.model,
                                      std::to_string(launch.threads)};
    argv.insert(argv.end(), launch.inputs.begin(), launch.inputs.end());
    Stopwatch watch;
    std::string first;
    try {
        child_ = std::make_unique<LineChild>(argv, launch.quiet);
        first = child_->read_line(launch.timeout_s);
    } catch (const LineChildError &e) {
        why_ = launch.runner + " " + e.what();
        crashed_ = true;
        return;
    }
    load_s_ = watch.lap_ms() / 1e3;
    const auto [word, rest] = split_first(first);
    if (word == "ready") {
        state_ = State::ready;
        description_ = rest.empty() ? launch.kind : rest;
    } else if (word == "unavailable") {
        state_ = State::unavailable;
        why_ = rest;
    } else if (word == "error") {
        why_ = rest;
    } else {
        why_ = "unexpected first line from " + launch.runner + ": '" + shorten(first) + "'";
    }
}

Peer::~Peer() {
    if (child_ && state_ == State::ready) {
        try {
            child_->write_line("quit");
        } catch (const LineChildError &) {
        }
    }
}

void Peer::fail(const std::string &why, bool crashed) {
    state_ = State::failed;
    crashed_ = crashed;
    why_ = why;
    throw PeerError(why, crashed);
}

std::string Peer::request(const std::string &line) {
    if (state_ != State::ready) throw PeerError(launch_.kind + " is not ready: " + why_, crashed_);
    try {
        return child_->request(line, launch_.timeout_s);
    } catch (const LineChildError &e) {
        fail(e.what(), true);
    }
}

std::vector<double> Peer::run(int n) {
    const std::string reply = request("run " + std::to_string(n));
    try {
        return parse_times_reply(reply, n);
    } catch (const std::invalid_argument &e) {
        fail(e.what(), false);
    }
}

std::vector<std::string> Peer::save(const std::string &dir) {
    const std::string reply = request("save " + dir);
    int count = 0;
    try {
        count = parse_saved_reply(reply);
    } catch (const std::invalid_argument &e) {
        fail(e.what(), false);
    }
    std::vector<std::string> paths;
    for (int k = 0; k < count; k++) paths.push_back(dir + "/output" + std::to_string(k) + ".npy");
    return paths;
}

}  // namespace tessera::bench
