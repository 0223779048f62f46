// Unit tests of the L1 set-conflict count (scheduler/rtile/cache_sets.h): lines a
// multiple of the indexed span apart share a set, more of them than the ways
// overfill it, contiguous data spreads evenly, boxes resident together add up.
#include "cache_sets.h"

#include <gtest/gtest.h>

namespace {

using tessera::rtile::set_occupancy;
using tessera::rtile::StridedBox;

// A 48 KiB 12-way L1 of 64-byte lines: 64 sets, in floats.
constexpr int64_t kLine = 16, kSets = 64, kWays = 12;

// One float from each of `rows` rows `stride` floats apart.
StridedBox column(int64_t rows, int64_t stride) {
    return StridedBox{{1, rows}, {1, stride}};
}

TEST(CacheSets, RowsAMultipleOfFourKibApartShareOneSet) {
    // 16 weight panels 16 KiB apart: all 16 lines in one set of 12 ways.
    auto o = set_occupancy({column(16, 4096)}, kLine, kSets, kWays);
    EXPECT_EQ(o[0].lines, 16);
    EXPECT_EQ(o[0].in_overfull_sets, 16);
    // As many as the ways fit.
    o = set_occupancy({column(12, 4096)}, kLine, kSets, kWays);
    EXPECT_EQ(o[0].in_overfull_sets, 0);
    // 4.25 KiB apart, four sets take them in turn.
    o = set_occupancy({column(16, 4352)}, kLine, kSets, kWays);
    EXPECT_EQ(o[0].lines, 16);
    EXPECT_EQ(o[0].in_overfull_sets, 0);
}

TEST(CacheSets, ContiguousDataFillsTheSetsEvenly) {
    // 48 KiB in one run: 12 lines in every set, none overfull; 52 KiB: every set
    // that takes a 13th line is.
    auto o = set_occupancy({StridedBox{{12288}, {1}}}, kLine, kSets, kWays);
    EXPECT_EQ(o[0].lines, 768);
    EXPECT_EQ(o[0].in_overfull_sets, 0);
    o = set_occupancy({StridedBox{{13312}, {1}}}, kLine, kSets, kWays);
    EXPECT_EQ(o[0].lines, 832);
    EXPECT_EQ(o[0].in_overfull_sets, 832);
}

TEST(CacheSets, RunsStraddleLinesAndDuplicatesCountOnce) {
    // Rows of 7 floats 13 apart: [0, 7) in line 0, [13, 20) across lines 0 and 1.
    auto o = set_occupancy({StridedBox{{7, 2}, {1, 13}}}, kLine, kSets, kWays);
    EXPECT_EQ(o[0].lines, 2);
    // A window reading the same elements twice (stride 0) holds them once.
    o = set_occupancy({StridedBox{{16, 4}, {1, 0}}}, kLine, kSets, kWays);
    EXPECT_EQ(o[0].lines, 1);
}

TEST(CacheSets, BoxesResidentTogetherShareTheSets) {
    // a: 8 lines in set 0. b (counted a line on, as a second allocation): pieces at
    // floats 0 and 1008 of 8 rows 16 KiB apart, lines 0 and 63 of each, so 8 lines
    // in set 1 and 8 in set 0 beside a's: 16 lines there, past 12 ways.
    const StridedBox a = column(8, 4096), b{{1, 2, 8}, {1, 1008, 4096}};
    auto alone = set_occupancy({a}, kLine, kSets, kWays);
    EXPECT_EQ(alone[0].in_overfull_sets, 0);
    auto o = set_occupancy({a, b}, kLine, kSets, kWays);
    EXPECT_EQ(o[0].lines, 8);
    EXPECT_EQ(o[0].in_overfull_sets, 8);
    EXPECT_EQ(o[1].lines, 16);
    EXPECT_EQ(o[1].in_overfull_sets, 8);
}

TEST(CacheSets, TooManyPiecesAreNotCounted) {
    auto o = set_occupancy({column(100, 4096)}, kLine, kSets, kWays, 64);
    EXPECT_EQ(o[0].lines, 0);
    EXPECT_EQ(o[0].in_overfull_sets, 0);
}

}  // namespace
