#include "tensor.h"

#include <cmath>
#include <limits>
#include <random>

namespace tessera {

std::vector<int64_t> Tensor::strides() const {
    std::vector<int64_t> s(shape.size(), 1);
    for (int i = int(shape.size()) - 2; i >= 0; i--) s[i] = s[i + 1] * shape[i + 1];
    return s;
}

Tensor random_tensor(const ops::Shape &shape, uint64_t seed, float lo, float hi) {
    Tensor t(shape);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    for (float &v : t.data) v = dist(rng);
    return t;
}

void poison(Tensor &t) {
    for (float &v : t.data) v = std::numeric_limits<float>::quiet_NaN();
}

double relative_error(const Tensor &actual, const Tensor &expected) {
    const double inf = std::numeric_limits<double>::infinity();
    if (actual.shape != expected.shape || actual.size() != expected.size()) return inf;
    double max_diff = 0, max_ref = 0;
    for (size_t i = 0; i < actual.size(); i++) {
        double a = actual.data[i], e = expected.data[i];
        if (!std::isfinite(a)) return inf;  // NaN never passes
        max_diff = std::max(max_diff, std::fabs(a - e));
        max_ref = std::max(max_ref, std::fabs(e));
    }
    return max_diff / std::max(max_ref, 1e-30);
}

}  // namespace tessera
