// run_in_child (apps/common/child_process.h): what tessera-suite and tessera-bench
// report when the work in a child returns, throws, crashes or hangs.
#include "child_process.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <stdexcept>
#include <unistd.h>

namespace tessera {
namespace {

TEST(ChildProcess, ReturnsTheWorksText) {
    const ChildOutcome c = run_in_child([] { return std::string(100000, 'x') + "end"; }, 10, true);
    EXPECT_TRUE(c.ok);
    EXPECT_EQ(c.text.size(), 100003u);
    EXPECT_EQ(c.failure(), "");
}

TEST(ChildProcess, AnExceptionComesBackAsText) {
    const ChildOutcome c = run_in_child([]() -> std::string { throw std::runtime_error("bad shape"); }, 10, true);
    EXPECT_FALSE(c.ok);
    EXPECT_TRUE(c.threw);
    EXPECT_EQ(c.text, "error: bad shape");
}

TEST(ChildProcess, ACrashIsNamedWithTheLastStderrLine) {
    const ChildOutcome c = run_in_child(
        []() -> std::string {
            std::fprintf(stderr, "about to fail\n");
            std::raise(SIGSEGV);
            return "";
        },
        10, true);
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.signal, SIGSEGV);
    EXPECT_EQ(c.failure(), "crashed (Segmentation fault)");
    EXPECT_EQ(c.last_stderr_line, "about to fail");
}

TEST(ChildProcess, AHangIsStoppedAtTheTimeout) {
    const ChildOutcome c = run_in_child(
        []() -> std::string {
            for (;;) pause();
        },
        1, false);
    EXPECT_FALSE(c.ok);
    EXPECT_TRUE(c.timed_out);
    EXPECT_EQ(c.failure(), "timed out");
}

}  // namespace
}  // namespace tessera
