// Wall-clock stopwatch and a median helper for timing runs.
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace tessera {

class Stopwatch {
public:
    Stopwatch() : start_(clock::now()) {}
    // Milliseconds since construction or the previous lap.
    double lap_ms() {
        auto now = clock::now();
        double ms = std::chrono::duration<double, std::milli>(now - start_).count();
        start_ = now;
        return ms;
    }

private:
    using clock = std::chrono::steady_clock;
    clock::time_point start_;
};

inline double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace tessera
