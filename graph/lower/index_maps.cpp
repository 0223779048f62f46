#include "index_maps.h"

#include "halide_axes.h"

namespace tessera::graph {

using Halide::Expr;
using Halide::Func;
using Halide::Var;

namespace {

// Axes of `s` whose extent is not 1.
std::vector<size_t> wide_axes(const Shape &s) {
    std::vector<size_t> axes;
    for (size_t i = 0; i < s.size(); i++) {
        if (s[i] != 1) axes.push_back(i);
    }
    return axes;
}

}  // namespace

std::string shape_key(const Shape &shape) {
    return shape.empty() ? "1" : shape_string(shape);
}

Func reshape_func(const Func &in, const Shape &from, const Shape &to, const std::string &name) {
    std::vector<Var> v = ops::logical_vars(to.size(), "r");
    // Input coordinates start at 0 (extent-1 axes stay there).
    std::vector<Expr> coords(from.size(), Expr(0));
    const std::vector<size_t> fa = wide_axes(from), ta = wide_axes(to);
    // Walk both lists of wide axes, closing a group whenever the products agree.
    size_t i = 0, j = 0;
    while (i < fa.size() || j < ta.size()) {
        size_t i_end = i, j_end = j;
        int64_t pf = 1, pt = 1;
        do {
            if (pf <= pt && i_end < fa.size()) pf *= from[fa[i_end++]];
            else if (j_end < ta.size()) pt *= to[ta[j_end++]];
            else break;
        } while (pf != pt);
        if (i_end - i == 1 && j_end - j == 1) {
            coords[fa[i]] = v[ta[j]];
        } else {
            // Flat position within the group (row-major over its output axes), then
            // split over its input axes. The group's outermost input axis takes what
            // is left without a modulo: a split of one input axis stays affine.
            Expr flat = 0;
            for (size_t k = j; k < j_end; k++) flat = flat * Expr(int(to[ta[k]])) + v[ta[k]];
            for (size_t k = i_end; k-- > i;) {
                if (k == i) {
                    coords[fa[k]] = flat;
                } else {
                    coords[fa[k]] = flat % Expr(int(from[fa[k]]));
                    flat = flat / Expr(int(from[fa[k]]));
                }
            }
        }
        i = i_end;
        j = j_end;
    }
    Func out(name);
    ops::ref(out, ops::as_exprs(v)) = ops::at(in, coords);
    return out;
}

Func broadcast_func(const Func &in, const Shape &from, const Shape &to, const std::string &name) {
    std::vector<Var> v = ops::logical_vars(to.size(), "b");
    std::vector<Expr> coords;
    const size_t extra = from.size() > to.size() ? from.size() - to.size() : 0;  // leading 1s
    const size_t offset = to.size() + extra - from.size();
    for (size_t k = 0; k < from.size(); k++) {
        coords.push_back(k < extra || from[k] == 1 ? Expr(0) : Expr(v[offset + k]));
    }
    Func out(name);
    ops::ref(out, ops::as_exprs(v)) = ops::at(in, coords);
    return out;
}

}  // namespace tessera::graph
