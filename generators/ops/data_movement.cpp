#include "data_movement.h"

#include "halide_axes.h"

namespace tessera::ops {

using namespace Halide;

Func transpose(const TransposeParams &p, const Func &input) {
    std::vector<Var> v = logical_vars(p.shape.size());
    std::vector<Expr> in_coords(p.shape.size());
    for (size_t i = 0; i < p.perm.size(); i++) in_coords[p.perm[i]] = v[i];
    Func out("transpose");
    ref(out, as_exprs(v)) = at(input, in_coords);
    return out;
}

Func pad(const PadParams &p, const Func &input) {
    Func padded = BoundaryConditions::constant_exterior(input, float(p.value), halide_region(p.shape));
    std::vector<Var> v = logical_vars(p.shape.size());
    std::vector<Expr> shifted;
    for (size_t i = 0; i < v.size(); i++) shifted.push_back(v[i] - int(p.before[i]));
    Func out("pad");
    ref(out, as_exprs(v)) = at(padded, shifted);
    return out;
}

}  // namespace tessera::ops
