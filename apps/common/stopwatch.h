// Wall-clock stopwatch, a median helper and interleaved rounds for timing runs.
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <numeric>
#include <random>
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
// round, each round in its own order (a shuffle seeded by the round's number, so
// runs repeat): whoever runs right after another finds the caches and cores as
// that one left them. A fixed order made the first contender 10-20% slower on ops
// of 10-100 us; rotating it still had every contender follow the same one (on Zen
// 5, the contender after oneDNN measured global_avg_pool 2048x7x7 at 13 us
// median, 9-10 us in any other place). `run(i)` runs contender i once and returns
// the milliseconds it took, as that contender measured them (one in another
// process reports the call alone, without the round trip), or a negative number
// when there is none to run. The first `warmup` rounds are not recorded; then at
// least `min_rounds`, at most `max_rounds`, and none more once the recorded runs
// have taken `budget_ms`. Returns every contender's times.
inline std::vector<std::vector<double>> time_interleaved_reported(size_t count, int warmup, int min_rounds,
                                                                  int max_rounds, double budget_ms,
                                                                  const std::function<double(size_t)> &run) {
    std::vector<std::vector<double>> times(count);
    double spent_ms = 0;
    for (int k = 0; k < warmup + max_rounds && (k < warmup + min_rounds || spent_ms < budget_ms); k++) {
        std::vector<size_t> order(count);
        std::iota(order.begin(), order.end(), size_t(0));
        std::mt19937 shuffle_rng{uint32_t(k)};
        std::shuffle(order.begin(), order.end(), shuffle_rng);
        for (size_t i : order) {
            const double ms = run(i);
            if (ms < 0 || k < warmup) continue;
            spent_ms += ms;
            times[i].push_back(ms);
        }
    }
    return times;
}

// The same, timed here: `run(i)` runs contender i and returns false when there is
// none to run; its wall time is recorded.
inline std::vector<std::vector<double>> time_interleaved(size_t count, int warmup, int min_rounds, int max_rounds,
                                                         double budget_ms, const std::function<bool(size_t)> &run) {
    return time_interleaved_reported(count, warmup, min_rounds, max_rounds, budget_ms, [&](size_t i) {
        Stopwatch watch;
        if (!run(i)) return -1.0;
        return watch.lap_ms();
    });
}

}  // namespace tessera
