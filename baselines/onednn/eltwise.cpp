// Elementwise ops: the unary ones with dnnl::eltwise_forward (erf has no primitive),
// add/sub/mul/div/max/min and bias_add with dnnl::binary (src1 broadcast along its
// extent-1 axes; oneDNN 2.6 has no binary pow).
#include "simple_kernel.h"

#include <algorithm>
#include <cfloat>

#include "op_catalog.h"

namespace tessera::onednn {

namespace {

using dims = dnnl::memory::dims;

// numpy broadcasting aligns trailing axes: prepend extent-1 axes up to `rank`.
dims aligned(const ops::Shape &shape, size_t rank) {
    dims d(rank - shape.size(), 1);
    d.insert(d.end(), shape.begin(), shape.end());
    return d;
}

dnnl::binary::primitive_desc binary_pd(dnnl::algorithm alg, const dnnl::memory::desc &a,
                                       const dnnl::memory::desc &b, const dnnl::memory::desc &dst) {
    return dnnl::binary::primitive_desc(dnnl::binary::desc(alg, a, b, dst), cpu_engine());
}

// oneDNN broadcasts only its second source. When neither operand has the output's
// shape (e.g. [4,1] + [1,5]) the closest composition is two binaries: broadcast a
// onto zeros of the output shape, then combine with b in place. Both are timed.
class TwoSidedBroadcastKernel : public Kernel {
public:
    TwoSidedBroadcastKernel(dnnl::algorithm alg, const dnnl::memory::desc &a, const dnnl::memory::desc &b,
                            const dnnl::memory::desc &out)
        : broadcast_pd_(binary_pd(dnnl::algorithm::binary_add, out, a, out)), combine_pd_(binary_pd(alg, out, b, out)),
          broadcast_(broadcast_pd_), combine_(combine_pd_), zeros_(out, cpu_engine()), a_(user_memory(a)),
          b_(user_memory(b)), out_(user_memory(out)) {
        float *z = static_cast<float *>(zeros_.get_data_handle());
        std::fill(z, z + out.get_size() / sizeof(float), 0.0f);
    }
    std::string impl() const override {
        return "composite: binary_add(zeros, a) " + impl_of(broadcast_pd_) + " + in-place binary " +
               impl_of(combine_pd_);
    }
    std::string main_impl() const override { return impl_of(combine_pd_); }
    void run(std::vector<Tensor> &in, Tensor &out) override {
        point(a_, in[0]);
        point(b_, in[1]);
        point(out_, out);
        broadcast_.execute(cpu_stream(), {{DNNL_ARG_SRC_0, zeros_}, {DNNL_ARG_SRC_1, a_}, {DNNL_ARG_DST, out_}});
        combine_.execute(cpu_stream(), {{DNNL_ARG_SRC_0, out_}, {DNNL_ARG_SRC_1, b_}, {DNNL_ARG_DST, out_}});
        cpu_stream().wait();
    }

private:
    dnnl::binary::primitive_desc broadcast_pd_, combine_pd_;
    dnnl::binary broadcast_, combine_;
    dnnl::memory zeros_, a_, b_, out_;
};

// SimpleKernel with its two sources given in the reverse order (add, mul, max and min commute).
class SwappedBinaryKernel : public Kernel {
public:
    explicit SwappedBinaryKernel(std::unique_ptr<Kernel> inner) : inner_(std::move(inner)) {}
    std::string impl() const override { return inner_->impl(); }
    std::string main_impl() const override { return inner_->main_impl(); }
    void run(std::vector<Tensor> &in, Tensor &out) override {
        std::swap(in[0], in[1]);
        try {
            inner_->run(in, out);
        } catch (...) {
            std::swap(in[0], in[1]);
            throw;
        }
        std::swap(in[0], in[1]);
    }

private:
    std::unique_ptr<Kernel> inner_;
};

}  // namespace

std::unique_ptr<Kernel> make_unary_kernel(const ops::UnaryParams &p) {
    dnnl::algorithm alg;
    float alpha = 0.f, beta = 0.f;
    switch (p.kind) {
    case ops::UnaryKind::Relu: alg = dnnl::algorithm::eltwise_relu; break;
    case ops::UnaryKind::LeakyRelu: alg = dnnl::algorithm::eltwise_relu, alpha = float(p.alpha); break;
    case ops::UnaryKind::Elu: alg = dnnl::algorithm::eltwise_elu, alpha = float(p.alpha); break;
    // oneDNN 2.6's soft_relu is log(1 + exp(x)), its hardswish x relu6(x + 3) / 6.
    case ops::UnaryKind::Softplus: alg = dnnl::algorithm::eltwise_soft_relu; break;
    case ops::UnaryKind::HardSwish: alg = dnnl::algorithm::eltwise_hardswish; break;
    case ops::UnaryKind::Gelu: alg = dnnl::algorithm::eltwise_gelu_tanh; break;
    case ops::UnaryKind::GeluErf: alg = dnnl::algorithm::eltwise_gelu_erf; break;
    case ops::UnaryKind::Sigmoid: alg = dnnl::algorithm::eltwise_logistic; break;
    case ops::UnaryKind::Tanh: alg = dnnl::algorithm::eltwise_tanh; break;
    case ops::UnaryKind::Exp: alg = dnnl::algorithm::eltwise_exp; break;
    case ops::UnaryKind::Sqrt: alg = dnnl::algorithm::eltwise_sqrt; break;
    case ops::UnaryKind::Abs: alg = dnnl::algorithm::eltwise_abs; break;
    case ops::UnaryKind::Log: alg = dnnl::algorithm::eltwise_log; break;
    case ops::UnaryKind::Mish: alg = dnnl::algorithm::eltwise_mish; break;
    case ops::UnaryKind::Round: alg = dnnl::algorithm::eltwise_round; break;
    // alpha x + beta, and alpha x^beta
    case ops::UnaryKind::Neg: alg = dnnl::algorithm::eltwise_linear, alpha = -1.f; break;
    case ops::UnaryKind::Reciprocal: alg = dnnl::algorithm::eltwise_pow, alpha = 1.f, beta = -1.f; break;
    case ops::UnaryKind::Clip:
        alg = dnnl::algorithm::eltwise_clip;
        alpha = float(std::max(p.lo, -double(FLT_MAX)));
        beta = float(std::min(p.hi, double(FLT_MAX)));
        break;
    default: throw Unsupported("oneDNN has no eltwise primitive for this op");
    }
    dnnl::memory::desc md = plain_desc(p.shape);
    dnnl::eltwise_forward::primitive_desc pd(
        dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, alg, md, alpha, beta), cpu_engine());
    return std::make_unique<SimpleKernel<dnnl::eltwise_forward>>(pd, std::vector<int>{DNNL_ARG_SRC, DNNL_ARG_DST},
                                                                 std::vector<dnnl::memory::desc>{md, md});
}

std::unique_ptr<Kernel> make_binary_kernel(const ops::BinaryParams &p) {
    const size_t rank = p.out_shape.size();
    const dims a = aligned(p.shape_a, rank), b = aligned(p.shape_b, rank), out = to_dims(p.out_shape);
    dnnl::algorithm alg;
    switch (p.kind) {
    case ops::BinaryKind::Add: alg = dnnl::algorithm::binary_add; break;
    case ops::BinaryKind::Sub: alg = dnnl::algorithm::binary_sub; break;
    case ops::BinaryKind::Mul: alg = dnnl::algorithm::binary_mul; break;
    case ops::BinaryKind::Div: alg = dnnl::algorithm::binary_div; break;
    case ops::BinaryKind::Max: alg = dnnl::algorithm::binary_max; break;
    case ops::BinaryKind::Min: alg = dnnl::algorithm::binary_min; break;
    default: throw Unsupported("oneDNN 2.6 has no binary pow or prelu primitive");
    }
    auto simple = [&](const dims &first, const dims &second) -> std::unique_ptr<Kernel> {
        dnnl::memory::desc s0 = plain_desc(first), s1 = plain_desc(second), d = plain_desc(out);
        return std::make_unique<SimpleKernel<dnnl::binary>>(
            binary_pd(alg, s0, s1, d), std::vector<int>{DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_DST},
            std::vector<dnnl::memory::desc>{s0, s1, d});
    };
    if (a == out) return simple(a, b);
    const bool commutes = p.kind != ops::BinaryKind::Sub && p.kind != ops::BinaryKind::Div;
    if (b == out && commutes) return std::make_unique<SwappedBinaryKernel>(simple(b, a));
    return std::make_unique<TwoSidedBroadcastKernel>(alg, plain_desc(a), plain_desc(b), plain_desc(out));
}

std::unique_ptr<Kernel> make_bias_add_kernel(const ops::BiasAddParams &p) {
    dims x = to_dims(p.shape), bias(p.shape.size(), 1);
    bias[p.axis] = x[p.axis];
    dnnl::memory::desc x_md = plain_desc(x), bias_md = plain_desc(bias);
    return std::make_unique<SimpleKernel<dnnl::binary>>(
        binary_pd(dnnl::algorithm::binary_add, x_md, bias_md, x_md),
        std::vector<int>{DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_DST},
        std::vector<dnnl::memory::desc>{x_md, bias_md, x_md});
}

}  // namespace tessera::onednn
