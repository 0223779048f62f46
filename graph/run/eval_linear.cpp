// Reference Gemm and MatMul (numpy matmul with broadcast batch axes).
#include "kernel.h"

namespace tessera::graph {

namespace {

void gemm(KernelContext &kc) {
    const TensorData &a = kc.input(0), &b = kc.input(1);
    const TensorData *c = kc.in.size() > 2 ? kc.in[2] : nullptr;
    TensorData &y = kc.out[0];
    bool ta = kc.node().get_int("transA", 0) != 0, tb = kc.node().get_int("transB", 0) != 0;
    double alpha = kc.node().get_float("alpha", 1.0f), beta = kc.node().get_float("beta", 1.0f);
    int64_t m = y.shape[0], n = y.shape[1], k_len = ta ? a.shape[0] : a.shape[1];
    std::vector<int64_t> c_off = c ? broadcast_offsets(c->shape, y.shape) : std::vector<int64_t>{};
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < n; j++) {
            double acc = 0;
            for (int64_t k = 0; k < k_len; k++) {
                double av = ta ? a.f[k * m + i] : a.f[i * k_len + k];
                double bv = tb ? b.f[j * k_len + k] : b.f[k * n + j];
                acc += av * bv;
            }
            double bias = c ? beta * c->f[c_off[i * n + j]] : 0.0;
            y.f[i * n + j] = float(alpha * acc + bias);
        }
}

void matmul(KernelContext &kc) {
    const TensorData &a = kc.input(0), &b = kc.input(1);
    TensorData &y = kc.out[0];
    // Promote 1-D operands to matrices as numpy does; the output shape already
    // dropped the promoted axes.
    Shape as = a.shape, bs = b.shape;
    if (as.size() == 1) as.insert(as.begin(), 1);
    if (bs.size() == 1) bs.push_back(1);
    int64_t m = as[as.size() - 2], k_len = as.back(), n = bs.back();
    Shape a_batch(as.begin(), as.end() - 2), b_batch(bs.begin(), bs.end() - 2);
    Shape out_batch = *broadcast_shapes(a_batch, b_batch);
    std::vector<int64_t> a_off = broadcast_offsets(a_batch, out_batch), b_off = broadcast_offsets(b_batch, out_batch);
    for (size_t bt = 0; bt < a_off.size(); bt++) {
        const float *A = a.f.data() + a_off[bt] * m * k_len;
        const float *B = b.f.data() + b_off[bt] * k_len * n;
        float *Y = y.f.data() + bt * m * n;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double acc = 0;
                for (int64_t k = 0; k < k_len; k++)
                    acc += double(A[i * k_len + k]) * B[k * n + j];
                Y[i * n + j] = float(acc);
            }
    }
}

} // namespace

void register_linear_kernels(KernelTable &table) {
    table["Gemm"] = gemm;
    table["MatMul"] = matmul;
}

} // namespace tessera::graph
