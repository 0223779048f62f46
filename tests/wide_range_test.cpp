// Transcendental ops over wide input ranges, checked per element: exp, sigmoid,
// tanh, gelu, erf and gelu_erf on [-87, 88] and at their formulas' switch points, softmax on
// rows of large magnitude and rows with one dominant value. The op matrix feeds
// [-1, 1], where a norm-wise bound would hide a wrong tail; here every element
// meets the op's own accuracy claim (fast_math.h: exp within 4.2e-7 relative).
#include "jit_op.h"
#include "reference.h"
#include "test_scheduler_choice.h"
#include "test_seed.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace tessera {
namespace {

// Uniform values over [lo, hi] plus `special` points, as one row.
Tensor wide_input(size_t n, float lo, float hi, const std::vector<float> &special, uint64_t seed) {
    Tensor t({int64_t(n + special.size())});
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    for (size_t i = 0; i < n; i++) t.data[i] = dist(rng);
    for (size_t i = 0; i < special.size(); i++) t.data[n + i] = special[i];
    return t;
}

// Runs `line` (whose input has the shape of `input`) under Tessera on `input` and
// checks each element: |out - ref| <= rel * |ref| + abs_floor. Returns the worst
// relative error among elements with |ref| > abs_floor.
double check_per_element(const std::string &line, const Tensor &input, double rel, double abs_floor) {
    const ops::OpConfig config = ops::parse_op_line(line);
    JitOp op(config, test::host_choice());
    std::vector<Tensor> inputs = {input};
    Tensor out = make_poisoned_output(op.signature());
    op.run(inputs, out);
    const Tensor ref = reference(config, inputs);
    double worst = 0;
    int reported = 0;
    for (size_t i = 0; i < out.size(); i++) {
        const double r = ref.data[i], o = out.data[i], err = std::fabs(o - r);
        const bool ok = std::isfinite(o) && err <= rel * std::fabs(r) + abs_floor;
        if (!ok && reported++ < 5) {
            ADD_FAILURE() << line << ": element " << i << " input " << input.data[i % input.size()] << " got " << o
                          << " want " << r << " (relative error " << err / std::fabs(r) << ", bound " << rel << ")";
        }
        if (std::fabs(r) > abs_floor) worst = std::max(worst, err / std::fabs(r));
    }
    return worst;
}

TEST(WideRange, ExpMeetsItsRelativeErrorClaimPerElement) {
    // [-87, 88] is where exp is specified (it saturates outside, fast_math.h).
    const Tensor x = wide_input(200000, -87.0f, 88.0f, {0.0f, -0.0f, 1e-30f, -1e-30f, 0.3465736f, -0.3465736f, 88.0f, -87.0f},
                                test::test_seed("wide exp"));
    const std::string line = "exp shape=" + std::to_string(x.size());
    const double worst = check_per_element(line, x, 4.2e-7, 0.0);
    std::printf("exp over [-87, 88]: worst relative error %.3g per element\n", worst);
}

TEST(WideRange, SigmoidTanhGeluOverWideRanges) {
    // Large magnitudes (+-80: sigmoid's and tanh's saturation), and tanh's switch
    // from its series to exp at |x| = 1/8.
    const std::vector<float> special = {0.0f,   80.0f, -80.0f, 0.125f, -0.125f, 0.12499999f, 1e-20f, -1e-20f,
                                        20.0f, -20.0f, 0.5f,   -0.5f,  0.49999997f, 9.0f};
    const Tensor x = wide_input(100000, -80.0f, 80.0f, special, test::test_seed("wide unary"));
    const Tensor small = wide_input(100000, -0.5f, 0.5f, special, test::test_seed("wide unary near 0"));
    for (const Tensor *input : {&x, &small}) {
        const std::string n = std::to_string(input->size());
        // sigmoid and tanh: relative per element (1e-6: a few ulps beyond exp's claim).
        std::printf("sigmoid: worst %.3g\n", check_per_element("sigmoid shape=" + n, *input, 1e-6, 1e-37));
        std::printf("tanh: worst %.3g\n", check_per_element("tanh shape=" + n, *input, 1e-6, 1e-37));
        // gelu = 0.5 x (1 + tanh(z)): for x << 0 the sum 1 + tanh(z) cancels in fp32,
        // so the tail below -5 is bounded absolutely (its true value is below 1e-6).
        std::printf("gelu: worst %.3g\n", check_per_element("gelu shape=" + n, *input, 2e-6, 2e-6));
        // erf: its series below |x| = 0.5 (relative), above it 1 - erfc (absolute 3e-7);
        // gelu_erf = x/2 (1 + erf(x / sqrt 2)) cancels like gelu for x << 0.
        std::printf("erf: worst %.3g\n", check_per_element("erf shape=" + n, *input, 1e-6, 3e-7));
        std::printf("gelu_erf: worst %.3g\n", check_per_element("gelu_erf shape=" + n, *input, 2e-6, 2e-6));
    }
}

TEST(WideRange, SoftmaxOfLargeAndDominatedRows) {
    // Rows: uniform over [-80, 80]; all equal to 80 (a sum without overflow:
    // 1/n each); zeros with one element of +80 (one dominant value, the rest
    // ~e-80 relative); alternating +-80.
    const int64_t rows = 4, cols = 1000;
    Tensor x({rows, cols});
    std::mt19937_64 rng(test::test_seed("wide softmax"));
    std::uniform_real_distribution<float> dist(-80.0f, 80.0f);
    for (int64_t j = 0; j < cols; j++) {
        x.data[size_t(j)] = dist(rng);
        x.data[size_t(cols + j)] = 80.0f;
        x.data[size_t(2 * cols + j)] = j == 617 ? 80.0f : 0.0f;
        x.data[size_t(3 * cols + j)] = j % 2 ? 80.0f : -80.0f;
    }
    const std::string line = "softmax shape=" + std::to_string(rows) + "x" + std::to_string(cols) + " axis=-1";
    std::printf("softmax: worst %.3g\n", check_per_element(line, x, 2e-6, 1e-37));
}

}  // namespace
}  // namespace tessera
