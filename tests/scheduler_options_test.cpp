// SchedulerOptions as typed values: parsed from text (tessera-bench's variants),
// read from the environment only by options_from_environment (the plugin entry and
// the tools' mains), and the device profile named in every emitted schedule.
#include "options_from_environment.h"
#include "scheduler_options.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string>

namespace tessera {
namespace {

std::string pinned_profile(const std::string &file) {
    return std::string(TESSERA_TEST_PROFILES) + "/" + file;
}

// Sets (or unsets, with nullptr) one variable for a scope.
class EnvironmentVariable {
public:
    EnvironmentVariable(const char *name, const char *value) : name_(name) {
        if (const char *old = std::getenv(name)) old_ = old, had_ = true;
        if (value) setenv(name, value, 1);
        else unsetenv(name);
    }
    ~EnvironmentVariable() {
        if (had_) setenv(name_.c_str(), old_.c_str(), 1);
        else unsetenv(name_.c_str());
    }

private:
    std::string name_, old_;
    bool had_ = false;
};

TEST(SchedulerOptions, SetFromTextWithClearErrors) {
    SchedulerOptions o;
    set_scheduler_option(o, "top_k", "5");
    set_scheduler_option(o, "candidate", "2");
    set_scheduler_option(o, "fuse_chains", "0");
    set_scheduler_option(o, "explain", "on");
    set_scheduler_option(o, "threads", "3");
    set_scheduler_option(o, "gpu_profile", "cuda-sm90");
    set_scheduler_option(o, "device_profile", pinned_profile("avx2_zen3.json"));
    set_scheduler_option(o, "stage_candidate", "matmul_sum:2");
    set_scheduler_option(o, "stage_candidate", "conv:1");
    EXPECT_EQ(o.top_k, 5);
    EXPECT_EQ(o.candidate, 2);
    EXPECT_FALSE(o.fuse_chains);
    EXPECT_TRUE(o.explain);
    EXPECT_EQ(o.parallelism, 3);
    EXPECT_EQ(o.gpu_profile, "cuda-sm90");
    ASSERT_TRUE(o.device_profile.has_value());
    EXPECT_EQ(o.device_profile->vector_lanes_fp32, 8);
    EXPECT_EQ(o.stage_candidates, (std::map<std::string, int>{{"matmul_sum", 2}, {"conv", 1}}));

    auto error_of = [](const std::string &name, const std::string &value) {
        SchedulerOptions x;
        try {
            set_scheduler_option(x, name, value);
        } catch (const std::invalid_argument &e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(error_of("colour", "red").find("unknown scheduler option 'colour' (known: "), std::string::npos);
    EXPECT_NE(error_of("top_k", "0").find("top_k=0"), std::string::npos);
    EXPECT_NE(error_of("top_k", "3x").find("whole number"), std::string::npos);
    EXPECT_NE(error_of("candidate", "-1").find("candidate=-1"), std::string::npos);
    EXPECT_NE(error_of("stage_candidate", "3").find("needs FUNC:N"), std::string::npos);
    EXPECT_NE(error_of("stage_candidate", "f:x").find("whole number"), std::string::npos);
    EXPECT_NE(error_of("fuse_chains", "maybe").find("needs 1 or 0"), std::string::npos);
    EXPECT_NE(error_of("device_profile", "/no/such/profile.json").find("/no/such/profile.json: cannot open"),
              std::string::npos);
}

TEST(SchedulerOptions, ReadFromTheEnvironmentAtTheEdge) {
    const EnvironmentVariable explain("TESSERA_EXPLAIN", "1"), topk("TESSERA_TOPK", "4"),
        candidate("TESSERA_CANDIDATE", nullptr), chains("TESSERA_FUSE_CHAINS", "0"), gpu("TESSERA_GPU_PROFILE", nullptr),
        profile("TESSERA_DEVICE_PROFILE", pinned_profile("avx512_xeon.json").c_str());
    const SchedulerOptions o = scheduler_options_from_environment(2);
    EXPECT_EQ(o.parallelism, 2);
    EXPECT_TRUE(o.explain);
    EXPECT_EQ(o.top_k, 4);
    EXPECT_EQ(o.candidate, 0);
    EXPECT_FALSE(o.fuse_chains);
    ASSERT_TRUE(o.device_profile.has_value());
    EXPECT_EQ(o.device_profile->vector_lanes_fp32, 16);
}

TEST(SchedulerOptions, ANamedProfileThatDoesNotLoadIsAnError) {
    const EnvironmentVariable profile("TESSERA_DEVICE_PROFILE", "/no/such/profile.json");
    try {
        scheduler_options_from_environment(2);
        FAIL() << "expected an error";
    } catch (const std::runtime_error &e) {
        EXPECT_NE(std::string(e.what()).find("TESSERA_DEVICE_PROFILE: /no/such/profile.json: cannot open"),
                  std::string::npos)
            << e.what();
    }
    const EnvironmentVariable bad_topk("TESSERA_TOPK", "many");
    const EnvironmentVariable no_profile("TESSERA_DEVICE_PROFILE", nullptr);
    try {
        scheduler_options_from_environment(2);
        FAIL() << "expected an error";
    } catch (const std::invalid_argument &e) {
        EXPECT_NE(std::string(e.what()).find("TESSERA_TOPK=many"), std::string::npos) << e.what();
    }
}

TEST(SchedulerOptions, WithoutAProfileFileTheBuiltInFiguresAreUsed) {
    const EnvironmentVariable profile("TESSERA_DEVICE_PROFILE", nullptr);
    const EnvironmentVariable cache("XDG_CACHE_HOME", "/nonexistent-cache-folder");
    EXPECT_FALSE(device_profile_from_environment().has_value());
    EXPECT_EQ(default_profile_path(), "/nonexistent-cache-folder/tessera/device_profile.json");
    EXPECT_EQ(profile_or_builtin(SchedulerOptions{}).source, "built-in");
}

TEST(DeviceProfile, FingerprintsNameTheFigures) {
    std::string error;
    const auto zen3 = hal::load_profile(pinned_profile("avx2_zen3.json"), &error);
    const auto xeon = hal::load_profile(pinned_profile("avx512_xeon.json"), &error);
    ASSERT_TRUE(zen3 && xeon) << error;
    EXPECT_EQ(hal::profile_fingerprint(*zen3), hal::profile_fingerprint(*zen3));
    EXPECT_EQ(hal::profile_fingerprint(*zen3).size(), 16u);
    EXPECT_NE(hal::profile_fingerprint(*zen3), hal::profile_fingerprint(*xeon));
    hal::DeviceProfile changed = *zen3;
    changed.fma_gflops_per_core += 1;
    EXPECT_NE(hal::profile_fingerprint(changed), hal::profile_fingerprint(*zen3));
}

}  // namespace
}  // namespace tessera
