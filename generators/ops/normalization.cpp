#include "normalization.h"

#include "halide_axes.h"

namespace tessera::ops {

using namespace Halide;

namespace {

Func layer_norm(const NormParams &p, const Func &x, const Func &gamma, const Func &beta) {
    std::vector<Var> v = logical_vars(p.shape.size());
    const int d = int(p.shape[p.axis]);
    RDom r(0, d, "r");
    std::vector<Expr> row = as_exprs(v), along = as_exprs(v);
    row[p.axis] = 0;  // row statistics live at index 0 of the normalised axis
    along[p.axis] = r;

    Func mean("ln_mean"), var("ln_var"), out("layer_norm");
    ref(mean, as_exprs(v)) = 0.0f;
    ref(mean, as_exprs(v)) += at(x, along) * (1.0f / d);
    Expr centered = at(x, along) - at(mean, row);
    ref(var, as_exprs(v)) = 0.0f;
    ref(var, as_exprs(v)) += centered * centered * (1.0f / d);
    Expr norm = (at(x, as_exprs(v)) - at(mean, row)) * (1.0f / sqrt(at(var, row) + float(p.epsilon)));
    ref(out, as_exprs(v)) = norm * Func(gamma)(v[p.axis]) + Func(beta)(v[p.axis]);
    return out;
}

Func batch_norm(const NormParams &p, const std::vector<Func> &in) {
    std::vector<Var> v = logical_vars(p.shape.size());
    Var c = v[p.axis];
    Func scale = in[1], bias = in[2], mean = in[3], var = in[4];
    Func out("batch_norm");
    Expr inv_std = 1.0f / sqrt(var(c) + float(p.epsilon));
    ref(out, as_exprs(v)) = (at(in[0], as_exprs(v)) - mean(c)) * inv_std * scale(c) + bias(c);
    return out;
}

}  // namespace

Func normalize(const NormParams &p, const std::vector<Func> &inputs) {
    return p.batch_norm ? batch_norm(p, inputs) : layer_norm(p, inputs[0], inputs[1], inputs[2]);
}

}  // namespace tessera::ops
