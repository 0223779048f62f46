#include "stmt_offload.h"

#include <cctype>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace tessera::gpu {
namespace {

// Splits "a, (b, c), d" at the top-level commas.
std::vector<std::string> split_arguments(const std::string &text) {
    std::vector<std::string> args;
    std::string current;
    int depth = 0;
    for (char c : text) {
        if (c == '(' || c == '[') depth++;
        if (c == ')' || c == ']') depth--;
        if (c == ',' && depth == 0) {
            args.push_back(current);
            current.clear();
            continue;
        }
        if (!(current.empty() && c == ' ')) current += c;
    }
    if (!current.empty()) args.push_back(current);
    return args;
}

// halide_{opencl,cuda}_run(state, "kernel", blocks x3, threads x3, shared bytes, ...)
bool parse_launch(const std::string &line, KernelLaunch &launch) {
    static const std::regex call(R"(halide_(opencl|cuda)_run\((.*)\)$)");
    std::smatch m;
    if (!std::regex_search(line, m, call)) return false;
    const std::vector<std::string> args = split_arguments(m[2].str());
    if (args.size() < 9) return false;
    launch.kernel = args[1];
    if (launch.kernel.size() >= 2 && launch.kernel.front() == '"') {
        launch.kernel = launch.kernel.substr(1, launch.kernel.size() - 2);
    }
    for (int i = 0; i < 3; i++) launch.threads[i] = args[5 + i];
    launch.shared_bytes = args[8];
    return true;
}

}  // namespace

namespace {

// A constant integer expression of the statement ("128", "(int32)4", "0 + (232*4)"):
// literals, casts, + - * / and parentheses. Anything else (a variable) is not constant.
class ConstantExpr {
public:
    explicit ConstantExpr(const std::string &text) : text_(text) {}
    bool evaluate(int64_t &value) {
        if (!sum(value)) return false;
        skip_spaces();
        return at_ == text_.size();
    }

private:
    void skip_spaces() {
        while (at_ < text_.size() && text_[at_] == ' ') at_++;
    }
    bool take(char c) {
        skip_spaces();
        if (at_ < text_.size() && text_[at_] == c) {
            at_++;
            return true;
        }
        return false;
    }
    bool sum(int64_t &value) {
        if (!product(value)) return false;
        for (;;) {
            int64_t rhs;
            if (take('+')) {
                if (!product(rhs)) return false;
                value += rhs;
            } else if (take('-')) {
                if (!product(rhs)) return false;
                value -= rhs;
            } else {
                return true;
            }
        }
    }
    bool product(int64_t &value) {
        if (!factor(value)) return false;
        for (;;) {
            int64_t rhs;
            if (take('*')) {
                if (!factor(rhs)) return false;
                value *= rhs;
            } else if (take('/')) {
                if (!factor(rhs) || rhs == 0) return false;
                value /= rhs;
            } else {
                return true;
            }
        }
    }
    bool factor(int64_t &value) {
        static const std::regex cast(R"(^\((u?int\d+)\))");
        skip_spaces();
        std::smatch m;
        const std::string rest = text_.substr(at_);
        if (std::regex_search(rest, m, cast)) {
            at_ += m.length(0);
            return factor(value);
        }
        if (take('(')) return sum(value) && take(')');
        size_t digits = 0;
        while (at_ + digits < text_.size() && std::isdigit((unsigned char)text_[at_ + digits])) digits++;
        if (digits == 0) return false;
        value = std::stoll(text_.substr(at_, digits));
        at_ += digits;
        return true;
    }

    const std::string &text_;
    size_t at_ = 0;
};

}  // namespace

int64_t KernelLaunch::literal(const std::string &text) {
    int64_t value = 0;
    return ConstantExpr(text).evaluate(value) ? value : -1;
}

StmtOffload parse_stmt_offload(const std::string &text) {
    static const std::regex func_line(R"(^(\w+ )?func \w+ \()");
    static const std::regex opencl_kernel(R"(^__kernel void (_kernel_\w+)\()");
    static const std::regex ptx_entry(R"(^\.visible \.entry (\w+)\()");
    // `name[index] = value` at the start of a line: an element store (scalar or vector).
    static const std::regex store(R"(^\s*[A-Za-z_][\w.$]*\[.*\] = )");
    StmtOffload result;
    std::istringstream in(text);
    std::string line;
    bool in_host = false, seen_host = false;
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_search(line, func_line)) {
            in_host = seen_host = true;
            continue;
        }
        if (!in_host) {
            if (std::regex_search(line, m, opencl_kernel) || std::regex_search(line, m, ptx_entry)) {
                result.kernels.push_back(m[1].str());
            }
            continue;
        }
        KernelLaunch launch;
        if (parse_launch(line, launch)) {
            result.launches.push_back(launch);
        } else if (std::regex_search(line, store)) {
            if (result.host_stores.size() < 3) result.host_stores.push_back(line);
            result.host_store_count++;
        }
    }
    if (!seen_host) throw std::runtime_error("no host function in the statement");
    return result;
}

StmtOffload read_stmt_offload(const std::string &path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::stringstream text;
    text << in.rdbuf();
    try {
        return parse_stmt_offload(text.str());
    } catch (const std::runtime_error &e) {
        throw std::runtime_error(path + ": " + e.what());
    }
}

std::string offload_problem(const StmtOffload &offload) {
    if (offload.host_store_count > 0) {
        return std::to_string(offload.host_store_count) + " tensor store(s) in host code, e.g. '" +
               offload.host_stores.front() + "'";
    }
    if (offload.kernels.empty()) return "no device kernel in the module";
    if (offload.launches.empty()) return "the host code launches no kernel";
    return "";
}

}  // namespace tessera::gpu
