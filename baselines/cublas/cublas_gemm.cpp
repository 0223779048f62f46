#include "cublas_gemm.h"

#include "cuda_device.h"
#include "op_catalog.h"
#include "op_params.h"

#include <cublas_v2.h>

#include <stdexcept>

namespace tessera::cuda {
namespace {

void check_cublas(cublasStatus_t status, const char *what) {
    if (status != CUBLAS_STATUS_SUCCESS) {
        throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(int(status)));
    }
}

// Row-major C[M,N] = A B is column-major C^T = B^T A^T: cuBLAS computes the
// transposed product with the operands swapped, no data moved. Device buffers, the
// handle and the bias's ones vector are made here, outside the timed launch().
class CublasGemm : public GpuBaseline {
public:
    explicit CublasGemm(const ops::OpConfig &config) : p_(ops::parse_matmul(config)), sig_(ops::describe_op(config)) {
        check_cublas(cublasCreate(&handle_), "cublasCreate");
        for (const ops::TensorSpec &in : sig_.inputs) inputs_.emplace_back(ops::num_elements(in.shape));
        output_ = DeviceArray(ops::num_elements(sig_.output.shape));
        if (p_.bias) {
            ones_ = DeviceArray(p_.m);
            Tensor ones({p_.m});
            for (float &v : ones.data) v = 1.0f;
            ones_.upload(ones);
        }
        impl_ = p_.batched ? "cublasSgemmStridedBatched" : "cublasSgemm";
        if (p_.bias) impl_ += " + rank-1 bias";
    }
    ~CublasGemm() override { cublasDestroy(handle_); }

    void upload(const std::vector<Tensor> &inputs) override {
        for (size_t i = 0; i < inputs.size(); i++) inputs_[i].upload(inputs[i]);
    }

    void launch() override {
        const int m = int(p_.m), n = int(p_.n), k = int(p_.k);
        // Column-major views of the row-major operands (see the class comment).
        const cublasOperation_t op_b = p_.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
        const cublasOperation_t op_a = p_.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
        const int ldb = p_.trans_b ? k : n, lda = p_.trans_a ? m : k;
        const float one = 1.0f;
        float beta = 0.0f;
        if (p_.bias) {  // every row of C starts as the bias: C^T = bias (N x 1) ones^T (1 x M)
            check_cublas(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, 1, &one, inputs_[2].data(), n,
                                     ones_.data(), 1, &beta, output_.data(), n),
                         "cublasSgemm (bias)");
            beta = 1.0f;
        }
        if (p_.batched) {
            check_cublas(cublasSgemmStridedBatched(handle_, op_b, op_a, n, m, k, &one, inputs_[1].data(), ldb,
                                                   (long long)k * n, inputs_[0].data(), lda, (long long)m * k, &beta,
                                                   output_.data(), n, (long long)m * n, int(p_.batch)),
                         "cublasSgemmStridedBatched");
        } else {
            check_cublas(cublasSgemm(handle_, op_b, op_a, n, m, k, &one, inputs_[1].data(), ldb, inputs_[0].data(),
                                     lda, &beta, output_.data(), n),
                         "cublasSgemm");
        }
    }

    void download(Tensor &output) override { output_.download(output); }  // synchronous: waits for the GEMM

private:
    ops::MatmulParams p_;
    ops::OpSignature sig_;
    cublasHandle_t handle_ = nullptr;
    std::vector<DeviceArray> inputs_;
    DeviceArray output_, ones_;
};

}  // namespace

std::unique_ptr<GpuBaseline> make_cublas_op(const ops::OpConfig &config) {
    if (config.op != "matmul" && config.op != "batch_matmul") {
        return std::make_unique<UnsupportedGpuBaseline>("cuBLAS", "cuBLAS runs matmul and batch_matmul only");
    }
    const std::string no_gpu = why_no_gpu();
    if (!no_gpu.empty()) return std::make_unique<UnsupportedGpuBaseline>("cuBLAS", no_gpu);
    return std::make_unique<CublasGemm>(config);
}

}  // namespace tessera::cuda
