// The generators' command line: Halide's generator main, with every "host..."
// target of `target=` named as this CPU can run it (hal::target_named). Halide 14
// names AMD Zen 4 avx512_sapphirerapids, whose LLVM CPU emits AVX-VNNI that Zen 4
// lacks; left to Halide, the AOT libraries built for "host" could fault there.
#include "host_target.h"

#include <Halide.h>

#include <iostream>
#include <string>
#include <vector>

namespace {

// "host,host-no_runtime" -> each comma-separated target corrected where it names the host.
std::string runnable_targets(const std::string &list) {
    std::string out;
    size_t start = 0;
    while (start <= list.size()) {
        const size_t comma = std::min(list.find(',', start), list.size());
        const std::string one = list.substr(start, comma - start);
        if (!out.empty()) out += ",";
        out += one.rfind("host", 0) == 0 ? tessera::hal::target_named(one).to_string() : one;
        start = comma + 1;
    }
    return out;
}

}  // namespace

int main(int argc, char **argv) {
    std::vector<std::string> args(argv, argv + argc);
    try {
        for (std::string &a : args) {
            if (a.rfind("target=", 0) == 0) a = "target=" + runnable_targets(a.substr(7));
        }
    } catch (const Halide::CompileError &e) {
        std::cerr << "tessera_generators: " << e.what() << "\n";
        return 1;
    }
    std::vector<char *> pointers;
    for (std::string &a : args) pointers.push_back(a.data());
    return Halide::Internal::generate_filter_main(int(pointers.size()), pointers.data(), std::cerr);
}
