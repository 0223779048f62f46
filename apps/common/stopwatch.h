// Wall-clock stopwatch, a median helper and interleaved rounds for timing runs.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
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

// Times `count` contenders side by side in interleaved rounds, every one once per
// round. Round k starts with contender k (mod count): whoever runs right after
// another finds the caches and cores as that one left them (a fixed order made
// the first contender 10-20% slower on ops of 10-100 us). `run(i)` runs contender
// i and returns false when there is none to run. The first `warmup` rounds are not
// recorded; then at least `min_rounds`, at most `max_rounds`, and none more once
// the recorded runs have taken `budget_ms`. Returns every contender's times.
inline std::vector<std::vector<double>> time_interleaved(size_t count, int warmup, int min_rounds, int max_rounds,
                                                         double budget_ms, const std::function<bool(size_t)> &run) {
    std::vector<std::vector<double>> times(count);
    double spent_ms = 0;
    for (int k = 0; k < warmup + max_rounds && (k < warmup + min_rounds || spent_ms < budget_ms); k++) {
        for (size_t n = 0; n < count; n++) {
            const size_t i = (size_t(k) + n) % count;
            Stopwatch watch;
            if (!run(i)) continue;
            const double ms = watch.lap_ms();
            if (k < warmup) continue;
            spent_ms += ms;
            times[i].push_back(ms);
        }
    }
    return times;
}

}  // namespace tessera
