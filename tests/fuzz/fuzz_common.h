// Shared by the libFuzzer targets of tests/fuzz. A target returns normally for any
// input it accepts and for any input rejected with the error its API documents;
// anything else (a sanitizer report, an uncaught exception, a broken invariant
// reported through finding()) is a crash that libFuzzer records.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace tessera::fuzz {

// TESSERA_FUZZ_PRINT=1 (run_fuzzer.sh sets it when it replays tests/fuzz/regressions)
// prints what each input became, so a regression input can be checked against the
// message it must produce.
inline bool printing() {
    static const bool on = [] {
        const char *v = std::getenv("TESSERA_FUZZ_PRINT");
        return v && *v && std::string(v) != "0";
    }();
    return on;
}

inline void rejected(const std::string &message) {
    if (printing()) std::printf("rejected: %s\n", message.c_str());
}

inline void accepted(const std::string &what) {
    if (printing()) std::printf("accepted: %s\n", what.c_str());
}

// A broken invariant: report it and crash so libFuzzer keeps the input.
[[noreturn]] inline void finding(const std::string &message) {
    std::fprintf(stderr, "tessera fuzz finding: %s\n", message.c_str());
    std::fflush(stderr);
    std::abort();
}

}  // namespace tessera::fuzz
