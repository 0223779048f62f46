// Seeds of the tests' random inputs. Fixed by default, so that a failure
// reproduces from its log (every test prints its seed); TESSERA_SEED=N sets
// another base, TESSERA_SEED=random draws fresh inputs on every run.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

namespace tessera::test {

// The seed for the inputs of `what` (an op line, a case name): the base seed
// mixed with a stable hash of `what` (FNV-1a), so cases differ but never vary
// between runs. Printed to stdout with `what`.
inline uint64_t test_seed(const std::string &what) {
    uint64_t base = 20261125;
    if (const char *env = std::getenv("TESSERA_SEED")) {
        base = std::string(env) == "random" ? std::random_device{}() : std::strtoull(env, nullptr, 10);
    }
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : what) h = (h ^ c) * 1099511628211ull;
    const uint64_t seed = (base ^ h) & 0xffffffffffffull;  // short enough to read in a log
    std::printf("seed %llu (TESSERA_SEED base %llu): %s\n", (unsigned long long)seed, (unsigned long long)base,
                what.c_str());
    return seed;
}

}  // namespace tessera::test
