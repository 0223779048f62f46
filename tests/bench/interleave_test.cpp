// time_interleaved: every contender runs once per round, the rounds stay within
// their bounds, and the order changes from round to round so that no contender
// always runs right after the same one (see apps/common/stopwatch.h).
#include "stopwatch.h"

#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <set>
#include <vector>

namespace {

TEST(TimeInterleaved, EveryContenderOncePerRoundInVaryingOrder) {
    const size_t count = 4;
    std::vector<size_t> calls;
    const auto times = tessera::time_interleaved(count, 1, 3, 24, std::numeric_limits<double>::infinity(),
                                                 [&](size_t i) {
                                                     calls.push_back(i);
                                                     return true;
                                                 });
    ASSERT_EQ(calls.size(), count * 25);  // one warm-up round, then max_rounds
    for (size_t i = 0; i < count; i++) EXPECT_EQ(times[i].size(), 24u) << "contender " << i;
    std::map<size_t, std::set<size_t>> predecessors;  // within a round
    for (size_t round = 0; round < 25; round++) {
        std::set<size_t> seen(calls.begin() + long(round * count), calls.begin() + long((round + 1) * count));
        EXPECT_EQ(seen.size(), count) << "round " << round;
        for (size_t n = 1; n < count; n++) predecessors[calls[round * count + n]].insert(calls[round * count + n - 1]);
    }
    for (size_t i = 0; i < count; i++) EXPECT_GE(predecessors[i].size(), 2u) << "contender " << i;
}

TEST(TimeInterleaved, MissingContendersAreSkippedAndTheBudgetEndsRounds) {
    size_t runs = 0;
    const auto times = tessera::time_interleaved(3, 0, 2, 100, 0.0, [&](size_t i) {
        if (i == 1) return false;  // not available
        runs++;
        return true;
    });
    EXPECT_TRUE(times[1].empty());
    EXPECT_EQ(times[0].size(), 2u);  // min_rounds, then the (zero) budget is spent
    EXPECT_EQ(times[2].size(), 2u);
    EXPECT_EQ(runs, 4u);
}

}  // namespace
