// The correctness matrix: every operator case x every test scheduler, JIT-compiled,
// run on random inputs (seed printed, see test_seed.h) with a NaN-poisoned
// output, checked against the plain C++ reference with a relative error bound.
// Tessera's schedules also run for a pinned AVX2 target under the pinned AVX2
// profile (tests/profiles/), whatever the host: the code another CPU gets. The host
// kernels also run on a model's own thread pool with 1, 2 and more threads than cores
// (graph/runtime/model_thread_pool.h).
#include "op_cases.h"
#include "op_check.h"
#include "pinned_machine.h"
#include "test_scheduler_choice.h"
#include "test_schedulers.h"
#include "test_seed.h"

#include <gtest/gtest.h>

#include <cctype>
#include <thread>

namespace tessera {
namespace {

using Case = std::tuple<std::string, std::string, std::string>;  // machine ("host" or pinned), scheduler, op line

class OpCorrectness : public ::testing::TestWithParam<Case> {};

TEST_P(OpCorrectness, MatchesReference) {
    const auto &[machine, scheduler, line] = GetParam();
    std::optional<SchedulerChoice> choice;
    if (machine == "host") choice = test::host_choice(scheduler);
    for (const test::PinnedMachine &m : test::pinned_machines()) {
        if (m.name == machine) choice = test::pinned_choice(m, scheduler);
    }
    ASSERT_TRUE(choice.has_value()) << "no pinned machine " << machine;
    const uint64_t seed = test::test_seed(machine + ", " + scheduler + ": " + line);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + machine + ", " + scheduler + ": " + line);
    // Every kernel also runs on a model's thread pool of 1, 2 and three times the
    // machine's cores (on the host: a pinned machine's code runs here too, once is enough).
    std::vector<int> pool_threads;
    if (machine == "host") pool_threads = {1, 2, 3 * int(std::thread::hardware_concurrency())};
    OpCheck r = check_op(ops::parse_op_line(line), *choice, seed, 0, 0, pool_threads);
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_LE(r.rel_error, kRelTolerance);
}

std::string case_name(const ::testing::TestParamInfo<Case> &info) {
    const std::string &machine = std::get<0>(info.param);
    std::string name = (machine == "host" ? "" : machine + "_") + std::get<1>(info.param) + "_" + std::get<2>(info.param);
    for (char &c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return name;
}

INSTANTIATE_TEST_SUITE_P(AllOps, OpCorrectness,
                         ::testing::Combine(::testing::Values("host"), ::testing::ValuesIn(test::test_schedulers()),
                                            ::testing::ValuesIn(test::op_cases())),
                         case_name);

// AVX2 code runs on every x86-64 machine this project builds on.
INSTANTIATE_TEST_SUITE_P(PinnedAvx2, OpCorrectness,
                         ::testing::Combine(::testing::Values("avx2-zen3"), ::testing::Values("Tessera"),
                                            ::testing::ValuesIn(test::op_cases())),
                         case_name);

}  // namespace
}  // namespace tessera
