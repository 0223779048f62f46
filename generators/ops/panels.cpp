#include "panels.h"

#include "halide_axes.h"

namespace tessera::ops {

using namespace Halide;

namespace {

// Position a within block of axis `axis` -> the axis' coordinate: the inverse needs
// a division and a modulo (the only non-affine access of a channel-blocked graph:
// its conversions back to NCHW).
Func unpack_panels(const PackParams &p, const Func &input) {
    const size_t rank = p.shape.size(), axis = size_t(p.axis);
    std::vector<Var> v = logical_vars(rank);
    std::vector<Expr> in_coords(as_exprs(v));
    in_coords[axis] = v[axis] / int(p.block);
    in_coords.push_back(v[axis] % int(p.block));
    Func out("unpack_panels");
    ref(out, as_exprs(v)) = at(input, in_coords);
    return out;
}

}  // namespace

Func pack_panels(const PackParams &p, const Func &input) {
    if (p.unpack) return unpack_panels(p, input);
    const size_t rank = p.shape.size();
    const size_t axis = size_t(p.axis);
    // The last block reads past the axis' end: zeros there.
    Func padded = BoundaryConditions::constant_exterior(input, 0.0f, halide_region(p.shape));
    std::vector<Var> v = logical_vars(rank + 1);
    const Var &within = v[rank];
    std::vector<Expr> in_coords(rank);
    for (size_t a = 0; a < rank; a++) {
        // Output position of input axis a: the blocks' axis at 0 when front, the
        // axes before it shifted one outwards.
        const size_t pos = p.front ? (a == axis ? 0 : a < axis ? a + 1 : a) : a;
        in_coords[a] = a == axis ? v[pos] * int(p.block) + within : Expr(v[pos]);
    }
    Func out("pack_panels");
    ref(out, as_exprs(v)) = at(padded, in_coords);
    return out;
}

}  // namespace tessera::ops
