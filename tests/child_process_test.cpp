// run_in_child (apps/common/child_process.h): what tessera-suite and tessera-bench
// report when the work in a child returns, throws, crashes or hangs.
#include "child_process.h"

#include <gtest/gtest.h>

#include <chrono>
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

TEST(ChildProcess, ChildrenRunSideBySideAndReportInOrder) {
    // Four works two at a time: each sleeps 300 ms, so together they take about
    // 600 ms, not 1200; the third crashes and the others still report.
    std::vector<std::function<std::string()>> works;
    for (int k = 0; k < 4; k++) {
        works.push_back([k]() -> std::string {
            usleep(300000);
            if (k == 2) std::raise(SIGSEGV);
            return "work " + std::to_string(k);
        });
    }
    std::vector<size_t> order;
    const auto start = std::chrono::steady_clock::now();
    const std::vector<ChildOutcome> out =
        run_in_children(works, 2, 10, true, [&](size_t k, const ChildOutcome &) { order.push_back(k); });
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3}));
    EXPECT_EQ(out[0].text, "work 0");
    EXPECT_EQ(out[3].text, "work 3");
    EXPECT_EQ(out[2].signal, SIGSEGV);
    EXPECT_LT(ms, 1100) << "the children did not run side by side";
}

}  // namespace
}  // namespace tessera
