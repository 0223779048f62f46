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
    // Cody-Waite: ln 2 split so that k * kLn2High is exact for |k| <= 127.
    const float kLn2High = 0.693145751953125f, kLn2Low = 1.42860682030941723212e-6f;
    Expr r = (x - k * kLn2High) - k * kLn2Low;
    // Taylor series to degree 6: truncation below 1.7e-7 on |r| <= 0.347; with
    // float rounding, at most 2.3e-7 relative over [-87, 88] (checked on 4M points).
    Expr p = 1.0f / 720;
    for (float c : {1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f}) p = p * r + c;
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

}  // namespace tessera::ops
