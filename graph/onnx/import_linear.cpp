// Gemm (transA/transB, alpha, beta, C broadcast to [M, N]) and MatMul (numpy matmul:
// 1-D operands promoted, batch axes broadcast).
#include "op_rule.h"

namespace tessera::graph {

namespace {

bool infer_gemm(InferContext &ctx) {
    const Shape &a = ctx.shape(0), &b = ctx.shape(1);
    if (a.size() != 2 || b.size() != 2)
        ctx.fail("A and B must be matrices, got " + shape_string(a) + " and " + shape_string(b));
    bool ta = ctx.node.get_int("transA", 0) != 0, tb = ctx.node.get_int("transB", 0) != 0;
    int64_t m = ta ? a[1] : a[0], k = ta ? a[0] : a[1];
    int64_t kb = tb ? b[1] : b[0], n = tb ? b[0] : b[1];
    if (k != kb) ctx.fail("inner dimensions differ: " + shape_string(a) + " and " + shape_string(b));
    // C broadcasts one way only: to [M, N].
    if (ctx.has(2)) {
        auto c = broadcast_shapes(ctx.shape(2), {m, n});
        if (!c || *c != Shape{m, n} || ctx.rank(2) > 2)
            ctx.fail("C of shape " + shape_string(ctx.shape(2)) + " does not broadcast to " + shape_string({m, n}));
    }
    ctx.set_output(0, DType::f32, {m, n});
    return true;
}

bool infer_matmul(InferContext &ctx) {
    Shape a = ctx.shape(0), b = ctx.shape(1);
    if (a.empty() || b.empty()) ctx.fail("MatMul operands must have rank 1 or more");
    bool a_vec = a.size() == 1, b_vec = b.size() == 1;
    if (a_vec) a.insert(a.begin(), 1);
    if (b_vec) b.push_back(1);
    if (a.back() != b[b.size() - 2])
        ctx.fail("inner dimensions differ: " + shape_string(ctx.shape(0)) + " and " + shape_string(ctx.shape(1)));
    auto batch = broadcast_shapes(Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2));
    if (!batch)
        ctx.fail("batch dimensions of " + shape_string(ctx.shape(0)) + " and " + shape_string(ctx.shape(1)) +
                 " do not broadcast");
    Shape out = *batch;
    if (!a_vec) out.push_back(a[a.size() - 2]);
    if (!b_vec) out.push_back(b.back());
    ctx.set_output(0, DType::f32, out);
    return true;
}

void require_f32(const InferContext &ctx) {
    for (size_t k = 0; k < ctx.in.size(); k++)
        ctx.require_dtype(k, {DType::f32});
}

} // namespace

void register_linear_rules(RuleTable &table) {
    OpRule gemm;
    gemm.attributes = {"alpha", "beta", "transA", "transB"};
    gemm.min_inputs = 2;
    gemm.max_inputs = 3;
    gemm.check = require_f32;
    gemm.infer = infer_gemm;
    table["Gemm"] = gemm;

    OpRule matmul;
    matmul.min_inputs = matmul.max_inputs = 2;
    matmul.check = require_f32;
    matmul.infer = infer_matmul;
    table["MatMul"] = matmul;
}

} // namespace tessera::graph
