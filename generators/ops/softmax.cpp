#include "softmax.h"

#include "fast_math.h"
#include "halide_axes.h"

namespace tessera::ops {

using namespace Halide;

Func softmax(const SoftmaxParams &p, const Func &input, const std::string &prefix, const std::string &out_name) {
    std::vector<Var> v = logical_vars(p.shape.size());
    RDom r(0, int(p.shape[p.axis]), "r");
    // Row functions are indexed like the input with the softmax axis fixed at 0,
    // which keeps every Func's rank equal to the input's.
    std::vector<Expr> row = as_exprs(v), along = as_exprs(v);
    row[p.axis] = 0;
    along[p.axis] = r;
    std::vector<Expr> row_args = as_exprs(v);

    Func row_max(prefix + "_max"), exps(prefix + "_exp"), row_sum(prefix + "_sum"), out(out_name);
    ref(row_max, row_args) = Float(32).min();
    ref(row_max, row_args) = max(at(row_max, row_args), at(input, along));
    ref(exps, as_exprs(v)) = vector_exp(at(input, as_exprs(v)) - at(row_max, row));
    ref(row_sum, row_args) = 0.0f;
    ref(row_sum, row_args) += at(exps, along);
    if (p.log) {
        ref(out, as_exprs(v)) = at(input, as_exprs(v)) - at(row_max, row) - log(at(row_sum, row));
    } else {
        ref(out, as_exprs(v)) = at(exps, as_exprs(v)) * (1.0f / at(row_sum, row));
    }
    return out;
}

}  // namespace tessera::ops
