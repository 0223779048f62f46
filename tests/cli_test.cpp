// Command-line tools given bad input exit non-zero with a message naming the
// culprit: tessera-suite (exit 2) and the generator executable.
#include "pinned_machine.h"
#include "run_command.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

using Result = tessera::test::CommandResult;

Result run(const std::string &command) {
    return tessera::test::run_command(command);
}

std::string write_file(const std::string &name, const std::string &text) {
    std::string path = ::testing::TempDir() + name;
    std::ofstream(path) << text;
    return path;
}

TEST(SuiteCli, UnknownOpNamesTheLine) {
    std::string path = write_file("bad_op.suite", "# comment\nrelu shape=4\n\nconvolve c=3\n");
    Result r = run(std::string(TESSERA_SUITE_BIN) + " --suite-file " + path);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("bad_op.suite:4: unknown op 'convolve'"), std::string::npos) << r.output;
}

TEST(SuiteCli, MalformedValueNamesLineAndKey) {
    std::string path = write_file("bad_value.suite", "matmul M=4 N=four K=4\n");
    Result r = run(std::string(TESSERA_SUITE_BIN) + " --suite-file " + path);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("bad_value.suite:1: key 'N'"), std::string::npos) << r.output;
}

TEST(SuiteCli, UnknownSchedulerAndMissingFile) {
    Result r = run(std::string(TESSERA_SUITE_BIN) + " --scheduler Magic");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("unknown scheduler 'Magic'"), std::string::npos) << r.output;
    r = run(std::string(TESSERA_SUITE_BIN) + " --suite-file /nonexistent.suite");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.output.find("cannot open"), std::string::npos) << r.output;
}

TEST(SuiteCli, RunsAUserSuite) {
    std::string path = write_file("small.suite", "relu shape=33\nmatmul M=5 N=7 K=3\n");
    Result r = run(std::string(TESSERA_SUITE_BIN) + " --reps 3 --suite-file " + path);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("2 ops: 2 correct, 0 failed"), std::string::npos) << r.output;
}

TEST(SuiteCli, TuneKeepsTheMeasuredPickAndStaysCorrect) {
    std::string path = write_file("tune.suite", "matmul M=37 N=29 K=23\n");
    Result r = run(std::string(TESSERA_SUITE_BIN) + " --reps 3 --tune --suite-file " + path);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("keeps candidate"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("1 ops: 1 correct, 0 failed"), std::string::npos) << r.output;
}

TEST(SuiteCli, AnOpThatHangsIsStoppedAndTheRestStillRuns) {
    // Each op runs in a child process: one past --timeout (a 2048^3 GEMM timed 50
    // times under no scheduler takes minutes) is reported with its line, and the
    // next op still runs. The limit leaves the small op's JIT compile time to spare
    // on a loaded machine (at 1 s it once timed out too).
    std::string path = write_file("slow.suite", "matmul M=2048 N=2048 K=2048\nrelu shape=33\n");
    Result r = run(std::string(TESSERA_SUITE_BIN) + " --scheduler none --reps 50 --timeout 8 --suite-file " + path);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("timed out after 8 s (" + path + ":1)"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("2 ops: 1 correct, 1 failed"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("1 of them crashed or timed out"), std::string::npos) << r.output;
}

TEST(GeneratorCli, BadParameterIsNamed) {
    std::string out = ::testing::TempDir();
    Result r = run(std::string(TESSERA_GENERATOR_BIN) + " -g conv -o " + out +
                   " -e static_library op=conv2d c=6 h=8 w=8 oc=4 kh=3 kw=3 groups=4 target=host");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("not divisible by groups"), std::string::npos) << r.output;

    r = run(std::string(TESSERA_GENERATOR_BIN) + " -g matmul -o " + out +
            " -e static_library op=matmul M=0 N=4 K=4 target=host");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("'M' must be positive"), std::string::npos) << r.output;
}

// Runs the generator with the Tessera plugin as a user's build would load it, for
// the pinned AVX2 machine (tests/pinned_machine.h), and returns the emitted .schedule.h.
std::string generate_with_tessera(const std::string &dir, const std::string &params) {
    std::string out = ::testing::TempDir() + dir;
    run("mkdir -p " + out);
    const tessera::test::PinnedMachine &avx2 = tessera::test::pinned_machines().front();
    Result r = run("TESSERA_DEVICE_PROFILE=" + avx2.profile + " " + TESSERA_GENERATOR_BIN + " -o " + out +
                   " -f op -e static_library,h,schedule -p " + TESSERA_PLUGIN_PATH +
                   " -s Tessera auto_schedule=true machine_params=2,33554432,40 target=" + avx2.target + " " + params);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::ifstream schedule(out + "/op.schedule.h");
    return std::string((std::istreambuf_iterator<char>(schedule)), std::istreambuf_iterator<char>());
}

TEST(GeneratorCli, TesseraPluginFromTheCommandLine) {
    // K=1024 is chunked at L1: the sums go through an rfactor'd register tile.
    std::string text = generate_with_tessera("cli_matmul", "-g matmul op=matmul M=64 N=64 K=1024");
    EXPECT_NE(text.find("generated by Tessera"), std::string::npos) << text;
    EXPECT_NE(text.find("rfactor"), std::string::npos) << text;
}

TEST(GeneratorCli, TesseraScheduleIsIdenticalByteForByte) {
    // Same pipeline, target and profile in two processes: the same schedule.
    for (const std::string params : {"-g conv op=conv2d c=16 h=14 w=14 oc=32 kh=3 kw=3 pad=1",
                                     "-g softmax op=softmax shape=6x40", "-g norm op=layer_norm shape=9x65"}) {
        std::string first = generate_with_tessera("det_a", params), second = generate_with_tessera("det_b", params);
        EXPECT_FALSE(first.empty()) << params;
        EXPECT_EQ(first, second) << params;
    }
}

TEST(GeneratorCli, OpOfAnotherFamilyIsRejected) {
    Result r = run(std::string(TESSERA_GENERATOR_BIN) + " -g pool -o " + ::testing::TempDir() +
                   " -e static_library op=relu target=host");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("op 'relu' belongs to generator 'elementwise'"), std::string::npos) << r.output;

    r = run(std::string(TESSERA_GENERATOR_BIN) + " -g pool -o " + ::testing::TempDir() +
            " -e static_library op=max_pool2d shape=4 target=host");
    EXPECT_NE(r.exit_code, 0);
    EXPECT_NE(r.output.find("no GeneratorParam named: shape"), std::string::npos) << r.output;
}

}  // namespace

// The plugin's explanation is checked for one fixed machine, whatever the host: an
// AVX-512 x86 target (16 lanes, 32 registers) and the profile of the 2-core Zen 5
// the rules were measured on. The generator only emits the schedule, so nothing
// runs with the pinned target.
using tessera::test::kAvx512Target;

// The Zen 5 these rules were measured on (tests/profiles/avx512_zen5.json).
std::string pinned_profile() {
    return tessera::test::test_profile("avx512_zen5.json");
}

// TESSERA_EXPLAIN's account of each suite line ("op key=value ...") of generator
// family `family`, scheduled for the pinned machine, in order.
Result explain_pinned(const std::string &family, const std::vector<std::string> &ops,
                      const std::string &env = "") {
    Result all;
    all.exit_code = 0;
    const std::string out = ::testing::TempDir() + "explain", profile = pinned_profile();
    run("mkdir -p " + out);
    for (const std::string &op : ops) {
        Result r = run("TESSERA_EXPLAIN=1 TESSERA_DEVICE_PROFILE=" + profile + " " + env + " " +
                       TESSERA_GENERATOR_BIN + " -g " + family + " -o " + out + " -f op -e schedule -p " +
                       TESSERA_PLUGIN_PATH + " -s Tessera auto_schedule=true machine_params=2,33554432,40 target=" +
                       kAvx512Target + " op=" + op);
        all.output += r.output;
        if (all.exit_code == 0) all.exit_code = r.exit_code;
    }
    return all;
}

// The plugin's explanation, as Halide users see it: the device, each stage's
// role and the programs weighed (the decisions themselves are asserted as data in
// decision_test.cpp), and what TESSERA_TOPK keeps.
TEST(TesseraExplain, ThePluginPrintsItsDecisions) {
    Result r = explain_pinned("matmul", {"matmul M=256 N=256 K=256 bias=1"}, "TESSERA_TOPK=3");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char *expected : {"Tessera: x86:", "epilogue matmul_bias fused", "chosen: predicted ",
                                 "registers tile: ", "L2 tile: ", "runner-up: predicted ", "Tessera: scheduled in"}) {
        EXPECT_NE(r.output.find(expected), std::string::npos) << expected << "\n" << r.output;
    }
}
