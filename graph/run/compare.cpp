#include "compare.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tessera::graph {

double relative_error(const TensorData &actual, const TensorData &expected) {
    const double inf = std::numeric_limits<double>::infinity();
    if (actual.shape != expected.shape || actual.dtype != expected.dtype || actual.size() != expected.size())
        return inf;
    double max_diff = 0, max_ref = 0;
    size_t compared = 0;
    for (size_t k = 0; k < actual.size(); k++) {
        double a = actual.get(k), e = expected.get(k);
        if (std::isnan(e)) {
            if (std::isnan(a)) continue;
            return inf;
        }
        compared++;
        if (!std::isfinite(a)) {
            if (std::isinf(a) && a == e) continue; // an expected infinity (e.g. Reciprocal(0))
            return inf;                            // NaN never passes
        }
        max_diff = std::max(max_diff, std::fabs(a - e));
        max_ref = std::max(max_ref, std::fabs(e));
    }
    if (compared == 0 && actual.size() > 0) return inf;
    return max_diff == 0 ? 0 : max_diff / std::max(max_ref, 1e-30);
}

}  // namespace tessera::graph
