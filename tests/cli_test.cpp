// Command-line tools given bad input exit non-zero with a message naming the
// culprit: tessera-suite (exit 2) and the generator executable.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <sys/wait.h>

namespace {

struct Result {
    int exit_code;
    std::string output;
};

Result run(const std::string &command) {
    Result r{-1, ""};
    FILE *pipe = popen((command + " 2>&1").c_str(), "r");
    if (!pipe) return r;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
    int status = pclose(pipe);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return r;
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
