#include "reduction.h"

#include "halide_axes.h"

#include <algorithm>

namespace tessera::ops {

using namespace Halide;

Func reduce(const ReduceParams &p, const Func &input) {
    // RDom dimensions are listed innermost first: the last reduced logical axis first.
    Region extents;
    for (auto it = p.axes.rbegin(); it != p.axes.rend(); ++it) extents.emplace_back(0, int(p.shape[*it]));
    RDom r(extents, "r");

    std::vector<Var> out_vars = logical_vars(p.out_shape.size());
    std::vector<Expr> in_coords;
    size_t kept = 0;
    for (size_t axis = 0; axis < p.shape.size(); axis++) {
        auto pos = std::find(p.axes.begin(), p.axes.end(), int(axis));
        if (pos != p.axes.end()) {
            in_coords.push_back(r[int(p.axes.end() - pos) - 1]);
        } else {
            in_coords.push_back(out_vars[kept++]);
        }
    }

    Func total("reduce_sum");
    ref(total, as_exprs(out_vars)) = 0.0f;
    ref(total, as_exprs(out_vars)) += at(input, in_coords);
    if (!p.mean) return total;

    float count = 1.0f;
    for (int axis : p.axes) count *= float(p.shape[axis]);
    Func mean("reduce_mean");
    ref(mean, as_exprs(out_vars)) = at(total, as_exprs(out_vars)) * (1.0f / count);
    return mean;
}

}  // namespace tessera::ops
