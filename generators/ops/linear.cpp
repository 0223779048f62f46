#include "linear.h"

namespace tessera::ops {

using namespace Halide;

Func matmul(const MatmulParams &p, const Func &a, const Func &b, const Func &bias) {
    Var n("n"), m("m"), batch("batch");
    RDom k(0, static_cast<int>(p.k), "k");
    // Halide order is innermost first: A[M,K] -> a(k, m); trans_a A[K,M] -> a(m, k).
    std::vector<Expr> a_args = p.trans_a ? std::vector<Expr>{m, k} : std::vector<Expr>{k, m};
    std::vector<Expr> b_args = p.trans_b ? std::vector<Expr>{k, n} : std::vector<Expr>{n, k};
    std::vector<Var> out_args = {n, m};
    if (p.batched) {
        a_args.push_back(batch);
        b_args.push_back(batch);
        out_args.push_back(batch);
    }
    Func product(p.batched ? "batch_matmul" : "matmul");
    product(out_args) = 0.0f;
    product(out_args) += Func(a)(a_args) * Func(b)(b_args);
    if (!p.bias) return product;

    Func with_bias("matmul_bias");
    with_bias(out_args) = product(out_args) + Func(bias)(n);
    return with_bias;
}

}  // namespace tessera::ops
