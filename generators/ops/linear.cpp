#include "linear.h"

namespace tessera::ops {

using namespace Halide;

Func matmul_sum(const MatmulParams &p, const Func &a, const Func &b, const ProductNames &names) {
    Var n(names.col), m("m"), batch("batch");
    RDom k(0, static_cast<int>(p.k), names.reduction);
    // Halide order is innermost first: A[M,K] -> a(k, m); trans_a A[K,M] -> a(m, k).
    std::vector<Expr> a_args = p.trans_a ? std::vector<Expr>{m, k} : std::vector<Expr>{k, m};
    std::vector<Expr> b_args = p.trans_b ? std::vector<Expr>{k, n} : std::vector<Expr>{n, k};
    std::vector<Var> out_args = {n, m};
    if (p.batched) {
        a_args.push_back(batch);
        b_args.push_back(batch);
        out_args.push_back(batch);
    }
    Func product(names.func);
    product(out_args) = 0.0f;
    product(out_args) += Func(a)(a_args) * Func(b)(b_args);
    return product;
}

namespace {

// matmul over B packed as panels [N/block][K][block]: the sums in the order
// [M][N/block][block], so a panel's block of columns is the innermost dim the
// register tile vectorises, read contiguously along k; that order is C's own
// (padded to whole panels), and the output takes the sums back by column.
Func matmul_packed(const MatmulParams &p, const Func &a, const Func &panels, const Func &bias) {
    Var xi("xi"), no("no"), n("n"), m("m");
    RDom k(0, static_cast<int>(p.k), "k");
    Expr a_val = p.trans_a ? Func(a)(m, k) : Func(a)(k, m);
    Func sum("matmul_sum");
    sum(xi, no, m) = 0.0f;
    sum(xi, no, m) += a_val * Func(panels)(xi, k, no);
    const int block = static_cast<int>(p.block);
    Expr product = sum(n % block, n / block, m);
    Func out(p.bias ? "matmul_bias" : "matmul");
    out(n, m) = p.bias ? product + Func(bias)(n) : product;
    return out;
}

}  // namespace

Func matmul(const MatmulParams &p, const Func &a, const Func &b, const Func &bias) {
    if (p.packed) return matmul_packed(p, a, b, bias);
    // The output is a pure Func over the sums (with or without a bias): an output
    // written by an update is first zeroed in a pass of its own (Halide cannot fuse a
    // Func's pure stage with its update), while a pure output lets the scheduler
    // compute the sums per tile of it. Side by side on Zen 5: 4096x4096x64 10.2 ->
    // 6.3 ms (the zeroing pass wrote 64 MB), 1024^3 5.3 -> 5.1 ms, 128x1000x4032
    // 4.9 -> 4.6 ms, 300x77x45 0.046 -> 0.037 ms; K=2 and batch_matmul unchanged.
    const std::string name = p.batched ? "batch_matmul" : "matmul";
    Func product = matmul_sum(p, a, b, {name + "_sum"});
    const std::vector<Var> out_args = product.args();
    Func out(p.bias ? name + "_bias" : name);
    out(out_args) = p.bias ? product(out_args) + Func(bias)(out_args[0]) : product(out_args);
    return out;
}

}  // namespace tessera::ops
