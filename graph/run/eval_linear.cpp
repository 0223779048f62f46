// Reference Gemm, MatMul (numpy matmul with broadcast batch axes) and Einsum.
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

// Every assignment of the indices: the output element at its output indices gains
// the product of the operands' elements at theirs.
void einsum(KernelContext &kc) {
    const EinsumSpec spec = parse_einsum(kc.ic);
    const std::map<char, int64_t> extent = einsum_extents(kc.ic, spec);
    std::string all;
    Shape extents;
    for (const auto &[c, e] : extent) all += c, extents.push_back(e);
    auto offset_of = [&](const std::string &term, const Shape &shape, const std::vector<int64_t> &idx) {
        int64_t off = 0;
        for (size_t a = 0; a < term.size(); a++) off = off * shape[a] + idx[all.find(term[a])];
        return off;
    };
    TensorData &y = kc.out[0];
    std::vector<double> acc(y.size(), 0.0);
    for_each_index(extents, [&](const std::vector<int64_t> &idx) {
        double v = 1;
        for (size_t k = 0; k < spec.inputs.size(); k++)
            v *= kc.in[k]->f[size_t(offset_of(spec.inputs[k], kc.in[k]->shape, idx))];
        acc[size_t(offset_of(spec.output, y.shape, idx))] += v;
    });
    for (size_t k = 0; k < acc.size(); k++) y.f[k] = float(acc[k]);
}

} // namespace

void register_linear_kernels(KernelTable &table) {
    table["Gemm"] = gemm;
    table["MatMul"] = matmul;
    table["Einsum"] = einsum;
}

} // namespace tessera::graph
