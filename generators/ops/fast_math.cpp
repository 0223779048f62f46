#include "fast_math.h"

namespace tessera::ops {

using namespace Halide;

Expr vector_exp(const Expr &x_in) {
    // exp(x) = 2^k * exp(r) with k = round(x / ln 2) and |r| <= ln(2) / 2.
    // Halide's fast_exp divides by ln 2 (a vdivps per vector, which LLVM keeps
    // without fast-math); multiplying by 1 / ln 2 picks the same k or, at a tie,
    // its neighbour, and either keeps |r| small enough for the polynomial.
    Expr x = clamp(x_in, -87.0f, 88.0f);
    Expr k = round(x * 1.44269504088896341f);
    // One multiply-add: Halide's simplifier folds a Cody-Waite split of ln 2 back
    // into one constant anyway (its error times |k| <= 126 bounds the result's).
    Expr r = x - k * 0.693147180559945309f;
    // Degree-5 minimax polynomial for exp on |r| <= ln(2) / 2 (Remez on the
    // relative error, 7.5e-8 in exact arithmetic); the degree-6 Taylor series it
    // replaces took one more multiply-add. Through Halide, max relative error
    // 4.2e-7 over [-87, 88] on 4M points against double exp (Taylor: 4.6e-7).
    const float c[] = {1.0000000716969817f, 0.9999996918073826f, 0.49998894413472283f,
                       0.16667575091153447f, 0.04191543143392721f, 0.008297647958816826f};
    Expr p = c[5];
    for (int j = 4; j >= 0; j--) p = p * r + c[j];
    // 2^k built in the exponent field; the clamp keeps k + 127 in [1, 254].
    Expr two_to_k = reinterpret<float>((cast<int>(k) + 127) << 23);
    return p * two_to_k;
}

Expr vector_tanh(const Expr &x) {
    Expr a = abs(x);
    Expr t = vector_exp(-2.0f * a);
    Expr far = (1.0f - t) / (1.0f + t);
    // tanh(a) = a - a^3/3 + 2a^5/15 - 17a^7/315 + ...; below 1/8 the next term is < 1e-10.
    Expr a2 = a * a;
    Expr near = a * (1.0f + a2 * (-1.0f / 3 + a2 * (2.0f / 15 + a2 * (-17.0f / 315))));
    Expr magnitude = select(a < 0.125f, near, far);
    return select(x < 0.0f, -magnitude, magnitude);
}

Expr vector_erf(const Expr &x) {
    Expr a = abs(x);
    // Near 0: 2/sqrt(pi) (x - x^3/3 + x^5/10 - x^7/42 + x^9/216 - x^11/1320); at
    // |x| = 0.5 the next term is below 2e-8 of the result.
    Expr a2 = a * a;
    Expr series = a * (1.0f + a2 * (-1.0f / 3 + a2 * (1.0f / 10 + a2 * (-1.0f / 42 + a2 * (1.0f / 216 + a2 * (-1.0f / 1320))))));
    Expr near = 1.1283791670955126f * series;
    // Away from 0: erfc(a) = t exp(-a^2) P(t), t = 1 / (1 + p a) (Abramowitz and
    // Stegun 7.1.26, absolute error 1.5e-7), clamped so that exp stays in range.
    Expr t = 1.0f / (1.0f + 0.3275911f * a);
    Expr poly = t * (0.254829592f + t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
    Expr far = 1.0f - poly * vector_exp(-min(a2, 80.0f));
    Expr magnitude = select(a < 0.5f, near, far);
    return select(x < 0.0f, -magnitude, magnitude);
}

}  // namespace tessera::ops
