#include "fast_math.h"

namespace tessera::ops {

using namespace Halide;

Expr vector_exp(const Expr &x) {
    return fast_exp(clamp(x, -87.0f, 88.0f));
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
