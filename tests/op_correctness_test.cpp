// The correctness matrix: every operator case x every test scheduler, JIT-compiled,
// run on fresh random inputs with a NaN-poisoned output, checked against the
// plain C++ reference with a relative error bound.
#include "op_cases.h"
#include "op_check.h"
#include "test_schedulers.h"

#include <gtest/gtest.h>

#include <cctype>
#include <random>

namespace tessera {
namespace {

using Case = std::tuple<std::string, std::string>;  // scheduler, op line

class OpCorrectness : public ::testing::TestWithParam<Case> {};

TEST_P(OpCorrectness, MatchesReference) {
    const auto &[scheduler, line] = GetParam();
    const uint64_t seed = std::random_device{}();
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + scheduler + ": " + line);
    std::printf("seed %llu\n", (unsigned long long)seed);
    OpCheck r = check_op(ops::parse_op_line(line), scheduler, seed, 0);
    ASSERT_TRUE(r.error.empty()) << r.error;
    EXPECT_LE(r.rel_error, kRelTolerance);
}

std::string case_name(const ::testing::TestParamInfo<Case> &info) {
    std::string name = std::get<0>(info.param) + "_" + std::get<1>(info.param);
    for (char &c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return name;
}

INSTANTIATE_TEST_SUITE_P(AllOps, OpCorrectness,
                         ::testing::Combine(::testing::ValuesIn(test::test_schedulers()),
                                            ::testing::ValuesIn(test::op_cases())),
                         case_name);

}  // namespace
}  // namespace tessera
