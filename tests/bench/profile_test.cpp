// tessera-profile --quick writes a profile that the HAL loads, with every figure measured.
#include "device_profile.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>

namespace {

int run(const std::string &command) {
    int status = std::system((command + " > /dev/null 2>&1").c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(ProfileCli, QuickWritesALoadableProfile) {
    const std::string path = ::testing::TempDir() + "profile_test/device_profile.json";
    std::remove(path.c_str());
    ASSERT_EQ(run(std::string(TESSERA_PROFILE_BIN) + " --quick --output " + path), 0);
    std::string error;
    auto p = tessera::hal::load_profile(path, &error);
    ASSERT_TRUE(p) << error;
    EXPECT_EQ(p->source, "measured (quick)");
    EXPECT_GT(p->fma_gflops_per_core, 1.0);
    EXPECT_TRUE(p->vector_lanes_fp32 == 8 || p->vector_lanes_fp32 == 16);
    EXPECT_GT(p->dram_copy_gbs, 0.1);
    ASSERT_EQ(p->layers.size(), 4u);
    for (const auto &l : p->layers) {
        EXPECT_GT(l.read_gbs_per_core, 0.1) << l.name;
        EXPECT_GT(l.read_gbs_all_cores, 0.1) << l.name;
    }
    // The L1 is read faster than DRAM by any core ever made.
    EXPECT_GT(p->layer("L1")->read_gbs_per_core, p->layer("DRAM")->read_gbs_per_core);
}

TEST(ProfileCli, BadArgumentExitsTwo) {
    EXPECT_EQ(run(std::string(TESSERA_PROFILE_BIN) + " --frobnicate"), 2);
    EXPECT_EQ(run(std::string(TESSERA_PROFILE_BIN) + " --output"), 2);
}

}  // namespace
