// The memory plan of an emitted model (graph/emit/memory_plan.h): values alive at
// the same step never share bytes (random lifetimes, checked pair by pair), a chain
// reuses memory, the arena is never below the peak of live bytes nor above one
// buffer per value, and offsets are aligned.
#include "memory_plan.h"
#include "test_seed.h"

#include <gtest/gtest.h>

#include <random>

namespace tessera::graph {
namespace {

bool overlap_in_time(const BufferLifetime &a, const BufferLifetime &b) {
    return a.first_step <= b.last_step && b.first_step <= a.last_step;
}

// The test's own check (not find_aliasing): every pair alive together is disjoint.
void expect_no_aliasing(const std::vector<BufferLifetime> &buffers, const MemoryPlan &plan) {
    ASSERT_EQ(plan.offsets.size(), buffers.size());
    for (size_t a = 0; a < buffers.size(); a++) {
        EXPECT_EQ(plan.offsets[a] % kArenaAlignment, 0u);
        EXPECT_LE(plan.offsets[a] + buffers[a].bytes, plan.arena_bytes);
        for (size_t b = a + 1; b < buffers.size(); b++) {
            if (!overlap_in_time(buffers[a], buffers[b])) continue;
            const bool disjoint = plan.offsets[a] + buffers[a].bytes <= plan.offsets[b] ||
                                  plan.offsets[b] + buffers[b].bytes <= plan.offsets[a];
            ASSERT_TRUE(disjoint) << buffers[a].value << " and " << buffers[b].value;
        }
    }
    EXPECT_FALSE(find_aliasing(buffers, plan).has_value());
    EXPECT_GE(plan.arena_bytes, plan.peak_live_bytes);
    EXPECT_LE(plan.arena_bytes, plan.separate_bytes);
}

TEST(MemoryPlan, AChainReusesTheBytesOfValuesNoLongerRead) {
    // a -> b -> c -> d: the step writing b reads a, so a and b are alive together at
    // step 1; a and c never are.
    const std::vector<BufferLifetime> chain = {
        {"a", 1000, 0, 1}, {"b", 1000, 1, 2}, {"c", 1000, 2, 3}, {"d", 1000, 3, 4}};
    const MemoryPlan plan = plan_memory(chain);
    expect_no_aliasing(chain, plan);
    EXPECT_EQ(plan.arena_bytes, 2 * 1024u);  // two buffers of 1000 bytes, aligned
    EXPECT_EQ(plan.peak_live_bytes, 2 * 1024u);
    EXPECT_EQ(plan.separate_bytes, 4 * 1024u);
}

TEST(MemoryPlan, FindAliasingNamesTwoLiveValuesThatShareBytes) {
    const std::vector<BufferLifetime> buffers = {{"x", 256, 0, 2}, {"y", 256, 1, 3}, {"z", 256, 3, 4}};
    MemoryPlan plan = plan_memory(buffers);
    expect_no_aliasing(buffers, plan);
    plan.offsets = {0, 128, 0};  // x and y overlap at steps 1-2; x and z never live together
    const auto pair = find_aliasing(buffers, plan);
    ASSERT_TRUE(pair.has_value());
    EXPECT_EQ(pair->first, 0u);
    EXPECT_EQ(pair->second, 1u);
}

TEST(MemoryPlan, RandomLifetimesNeverAlias) {
    std::mt19937 rng(unsigned(tessera::test::test_seed("memory plan: random lifetimes")));
    for (int trial = 0; trial < 300; trial++) {
        std::vector<BufferLifetime> buffers;
        const int steps = 2 + int(rng() % 40), count = 1 + int(rng() % 60);
        for (int k = 0; k < count; k++) {
            const int first = int(rng() % unsigned(steps));
            const int last = first + int(rng() % unsigned(steps - first));
            buffers.push_back({"v" + std::to_string(k), 1 + rng() % 100000, first, last});
        }
        const MemoryPlan plan = plan_memory(buffers);
        expect_no_aliasing(buffers, plan);
        if (HasFatalFailure()) return;
    }
}

}  // namespace
}  // namespace tessera::graph
