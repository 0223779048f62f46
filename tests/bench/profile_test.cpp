// tessera-profile --quick writes a profile that the HAL loads, with every figure measured;
// its FMA loops, as the compiler emitted them, issue every FMA the peak counts.
#include "device_profile.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <algorithm>
#include <memory>
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
    // The L1 is read faster than DRAM by any core ever made, but not through
    // AddressSanitizer: it checks every load of the read loops against shadow memory,
    // and a sanitized quick profile measured the L1 at 6.9 GB/s against DRAM's 7.1.
#if defined(__SANITIZE_ADDRESS__)
    constexpr bool sanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    constexpr bool sanitized = true;
#else
    constexpr bool sanitized = false;
#endif
#else
    constexpr bool sanitized = false;
#endif
    if (!sanitized) EXPECT_GT(p->layer("L1")->read_gbs_per_core, p->layer("DRAM")->read_gbs_per_core);
}

// FMA instructions in the body of function `name` of objdump's listing (-1: not found).
int fmas_in(const std::string &listing, const std::string &name) {
    const size_t start = listing.find(name);
    if (start == std::string::npos) return -1;
    const size_t end = listing.find("\n\n", start);
    const std::string body = listing.substr(start, end == std::string::npos ? std::string::npos : end - start);
    int count = 0;
    for (size_t at = body.find("vfmadd"); at != std::string::npos; at = body.find("vfmadd", at + 1)) count++;
    return count;
}

// The peak is counted as 12 FMA chains (AVX-512) and 10 (AVX2) per iteration; GCC once
// merged the chains, which all started equal, into one, and the profile reported 1.5-3x
// the machine's peak (every balance and prediction inherited it). The loops as emitted
// must hold one FMA per chain.
TEST(ProfileCli, FmaLoopsIssueEveryChainTheyCount) {
    if (run("objdump --version") != 0) GTEST_SKIP() << "no objdump (binutils) to read the loops back";
    std::unique_ptr<FILE, int (*)(FILE *)> pipe(
        popen(("objdump -d --no-show-raw-insn " + std::string(TESSERA_PROFILE_BIN)).c_str(), "r"), pclose);
    ASSERT_TRUE(pipe);
    std::string listing;
    char buffer[1 << 16];
    for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe.get())) > 0;) listing.append(buffer, n);
    EXPECT_EQ(fmas_in(listing, "fma_loop_avx512Em>:"), 12);
    EXPECT_EQ(fmas_in(listing, "fma_loop_avx2Em>:"), 10);
}

// A cached profile measured by the old loop is measured again by --if-missing; a
// current one is kept.
TEST(ProfileCli, IfMissingMeasuresAgainAProfileOfTheOldPeakLoop) {
    const std::string path = ::testing::TempDir() + "profile_test/old_profile.json";
    std::remove(path.c_str());
    ASSERT_EQ(run(std::string(TESSERA_PROFILE_BIN) + " --quick --output " + path), 0);
    std::string error;
    tessera::hal::DeviceProfile p = *tessera::hal::load_profile(path, &error);
    EXPECT_EQ(p.fma_peak_revision, tessera::hal::kFmaPeakRevision);
    EXPECT_FALSE(tessera::hal::peak_measured_by_an_old_loop(p));
    p.fma_peak_revision = 0;  // as written before the revision was recorded
    p.fma_gflops_per_core = 1e6;
    tessera::hal::save_profile(p, path);
    ASSERT_EQ(run(std::string(TESSERA_PROFILE_BIN) + " --quick --if-missing --output " + path), 0);
    p = *tessera::hal::load_profile(path, &error);
    EXPECT_EQ(p.fma_peak_revision, tessera::hal::kFmaPeakRevision);
    EXPECT_LT(p.fma_gflops_per_core, 1e6);
    p.fma_gflops_per_core = 2e6;  // current revision: kept as it is
    tessera::hal::save_profile(p, path);
    ASSERT_EQ(run(std::string(TESSERA_PROFILE_BIN) + " --quick --if-missing --output " + path), 0);
    EXPECT_EQ(tessera::hal::load_profile(path, &error)->fma_gflops_per_core, 2e6);
}

TEST(ProfileCli, BadArgumentExitsTwo) {
    EXPECT_EQ(run(std::string(TESSERA_PROFILE_BIN) + " --frobnicate"), 2);
    EXPECT_EQ(run(std::string(TESSERA_PROFILE_BIN) + " --output"), 2);
}

// A tuning log of conv partitions whose candidates ran twice as slow as the model's
// arithmetic predicts (and 0.9x its L2 traffic), measured under `profile`'s figures.
void write_log(const std::string &path, const tessera::hal::DeviceProfile &profile, int partitions) {
    std::ofstream out(path);
    for (int p = 0; p < partitions; p++) {
        out << R"({"partition": "p)" << p << R"(", "ops": "Conv", "figures": ")"
            << tessera::hal::figures_fingerprint(profile) << R"(", "candidates": [)";
        for (int c = 0; c < 3; c++) {
            const double compute = 1 + p + c, l2 = 3 - c;
            out << (c ? ", " : "") << R"({"name": "Tessera:)" << c << R"(", "measured_ms": )"
                << std::max(2 * compute, 0.9 * l2) << R"(, "stages": [{"family": "conv", "compute_ms": )" << compute
                << R"(, "registers_ms": 0.1, "l1_ms": 0.1, "l2_ms": )" << l2
                << R"(, "overhead_ms": 0, "parallel_efficiency": 1, "weight": 1}]})";
        }
        out << "]}\n";
    }
}

TEST(ProfileCli, CalibrateWritesTheFittedFactorsIntoTheProfile) {
    namespace hal = tessera::hal;
    const std::string dir = ::testing::TempDir() + "profile_test/";
    const std::string profile_path = dir + "calibrated.json", log = dir + "calibrate.tune.jsonl";
    std::string error;
    const hal::DeviceProfile pinned = *hal::load_profile(std::string(TESSERA_TEST_PROFILES) + "/avx2_zen3.json", &error);
    hal::save_profile(pinned, profile_path);
    write_log(log, pinned, 4);
    const std::string bin = std::string(TESSERA_PROFILE_BIN) + " --output " + profile_path;

    // Report only: the profile is left as it was.
    ASSERT_EQ(run(bin + " --calibrate " + log + " --report-only"), 0);
    EXPECT_TRUE(hal::load_profile(profile_path, &error)->calibration.empty());

    ASSERT_EQ(run(bin + " --calibrate " + log), 0);
    const hal::DeviceProfile calibrated = *hal::load_profile(profile_path, &error);
    ASSERT_EQ(calibrated.calibration.count("conv"), 1u);
    EXPECT_NEAR(calibrated.calibration.at("conv").compute, 2.0, 0.2);
    EXPECT_EQ(calibrated.calibration.at("conv").partitions, 4);
    EXPECT_EQ(hal::figures_fingerprint(calibrated), hal::figures_fingerprint(pinned));
    EXPECT_EQ(calibrated.fma_gflops_per_core, pinned.fma_gflops_per_core);
    // Calibrating again from the same log (now under a calibrated profile) fits the same.
    ASSERT_EQ(run(bin + " --calibrate " + log), 0);
    EXPECT_EQ(hal::load_profile(profile_path, &error)->calibration.at("conv").compute,
              calibrated.calibration.at("conv").compute);

    // Too few partitions of a family: nothing fitted for it.
    ASSERT_EQ(run(bin + " --calibrate " + log + " --min-partitions 5"), 0);
    EXPECT_TRUE(hal::load_profile(profile_path, &error)->calibration.empty());

    // A log of other figures has nothing to fit: exit 1; a malformed line: exit 2.
    hal::DeviceProfile other = pinned;
    other.fma_gflops_per_core *= 2;
    write_log(log, other, 4);
    EXPECT_EQ(run(bin + " --calibrate " + log), 1);
    std::ofstream(log, std::ios::app) << "{not json\n";
    EXPECT_EQ(run(bin + " --calibrate " + log), 2);
    EXPECT_EQ(run(bin + " --calibrate " + dir + "no_such.jsonl"), 2);
    EXPECT_EQ(run(std::string(TESSERA_PROFILE_BIN) + " --output " + dir + "no_profile.json --calibrate " + log), 2);
    EXPECT_EQ(run(bin + " --report-only"), 2);  // only with --calibrate
    EXPECT_EQ(run(bin + " --calibrate " + log + " --min-partitions 0"), 2);
}

}  // namespace
