// matmul and batch_matmul with dnnl::matmul. Both operands are read in place in their
// stored layout (transposes become strides), like the Halide kernels read them.
// The chains' GEMMs add an epilogue: an output scale and post-ops fused into the
// primitive (make_matmul_stage).
#include "onednn_common.h"

namespace tessera::onednn {

namespace {

using dims = dnnl::memory::dims;

// Descriptor of a logical [batch,] rows x cols operand stored row-major, or
// column-major when `transposed` (stored as [cols, rows]).
dnnl::memory::desc operand_desc(const ops::MatmulParams &p, int64_t rows, int64_t cols, bool transposed) {
    dims d = {rows, cols};
    dims s = transposed ? dims{1, rows} : dims{cols, 1};
    if (p.batched) {
        d.insert(d.begin(), p.batch);
        s.insert(s.begin(), rows * cols);
    }
    return strided_desc(d, s);
}

class MatmulKernel : public Kernel {
public:
    MatmulKernel(const ops::MatmulParams &p, const Epilogue &e) : bias_(p.bias), add_input_(e.add_input) {
        dnnl::memory::desc a = operand_desc(p, p.m, p.k, p.trans_a);
        dnnl::memory::desc b = operand_desc(p, p.k, p.n, p.trans_b);
        dnnl::memory::desc c = operand_desc(p, p.m, p.n, false);
        dnnl::memory::desc bias = p.bias ? plain_desc(dims{1, p.n}) : dnnl::memory::desc();
        dnnl::primitive_attr attr;
        if (e.scale != 1.0f) attr.set_output_scales(0, {e.scale});
        dnnl::post_ops ops;
        if (e.eltwise != dnnl::algorithm::undef) ops.append_eltwise(1.0f, e.eltwise, e.alpha, e.beta);
        if (e.add_input) ops.append_binary(dnnl::algorithm::binary_add, c);
        attr.set_post_ops(ops);
        pd_ = dnnl::matmul::primitive_desc(dnnl::matmul::desc(a, b, bias, c), attr, cpu_engine());
        prim_ = dnnl::matmul(pd_);
        a_ = user_memory(a);
        b_ = user_memory(b);
        c_ = user_memory(c);
        args_ = {{DNNL_ARG_SRC, a_}, {DNNL_ARG_WEIGHTS, b_}, {DNNL_ARG_DST, c_}};
        if (bias_) {
            bias_mem_ = user_memory(bias);
            args_[DNNL_ARG_BIAS] = bias_mem_;
        }
        if (add_input_) {
            added_ = user_memory(c);
            args_[DNNL_ARG_ATTR_MULTIPLE_POST_OP(ops.len() - 1) | DNNL_ARG_SRC_1] = added_;
        }
    }
    std::string impl() const override { return impl_of(pd_); }
    std::string main_impl() const override { return impl_of(pd_); }
    void run(std::vector<Tensor> &in, Tensor &out) override {
        point(a_, in[0]);
        point(b_, in[1]);
        point(c_, out);
        if (bias_) point(bias_mem_, in[2]);
        if (add_input_) point(added_, in[bias_ ? 3 : 2]);
        prim_.execute(cpu_stream(), args_);
        cpu_stream().wait();
    }

private:
    bool bias_, add_input_;
    dnnl::matmul::primitive_desc pd_;
    dnnl::matmul prim_;
    dnnl::memory a_, b_, c_, bias_mem_, added_;
    std::unordered_map<int, dnnl::memory> args_;  // handles shared with the members above
};

}  // namespace

std::unique_ptr<Kernel> make_matmul_stage(const ops::MatmulParams &p, const Epilogue &epilogue) {
    return std::make_unique<MatmulKernel>(p, epilogue);
}

std::unique_ptr<Kernel> make_matmul_kernel(const ops::MatmulParams &p) {
    if (p.packed) {
        ops::MatmulParams plain = p;
        plain.packed = false;
        const int64_t k = p.k, block = p.block;
        // Panels [N/block][K][block] -> B[K,N].
        return with_unpacked_weights(
            make_matmul_stage(plain, Epilogue()), 1, {p.k, p.n}, [k, block](const Tensor &packed, Tensor &b) {
                const int64_t n = b.shape[1];
                for (int64_t r = 0; r < k; r++)
                    for (int64_t j = 0; j < n; j++)
                        b.data[size_t(r * n + j)] = packed.data[size_t((j / block * k + r) * block + j % block)];
            });
    }
    return make_matmul_stage(p, Epilogue());
}

}  // namespace tessera::onednn
