#include "cudnn_conv.h"

#include "cuda_device.h"
#include "op_catalog.h"
#include "op_params.h"

#include <cuda_runtime.h>
#include <cudnn.h>

#include <stdexcept>

namespace tessera::cuda {
namespace {

void check_cudnn(cudnnStatus_t status, const char *what) {
    if (status != CUDNN_STATUS_SUCCESS) {
        throw std::runtime_error(std::string(what) + ": " + cudnnGetErrorString(status));
    }
}

// Fair use, as with oneDNN: descriptors, the algorithm (cudnnFindConvolutionForwardAlgorithm,
// which times the candidates on this GPU), its workspace and the device buffers are
// made here; launch() only calls cudnnConvolutionForward.
class CudnnConv : public GpuBaseline {
public:
    explicit CudnnConv(const ops::OpConfig &config) : p_(ops::parse_conv(config)) {
        const ops::OpSignature sig = ops::describe_op(config);
        input_ = DeviceArray(ops::num_elements(sig.inputs[0].shape));
        weights_ = DeviceArray(ops::num_elements(sig.inputs[1].shape));
        output_ = DeviceArray(ops::num_elements(sig.output.shape));
        const int groups = int(p_.depthwise ? p_.c : p_.groups);
        const int oc = int(p_.depthwise ? p_.c : p_.oc);

        check_cudnn(cudnnCreate(&handle_), "cudnnCreate");
        check_cudnn(cudnnCreateTensorDescriptor(&x_desc_), "cudnnCreateTensorDescriptor");
        check_cudnn(cudnnCreateTensorDescriptor(&y_desc_), "cudnnCreateTensorDescriptor");
        check_cudnn(cudnnCreateFilterDescriptor(&w_desc_), "cudnnCreateFilterDescriptor");
        check_cudnn(cudnnCreateConvolutionDescriptor(&conv_desc_), "cudnnCreateConvolutionDescriptor");
        check_cudnn(cudnnSetTensor4dDescriptor(x_desc_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, int(p_.n), int(p_.c),
                                               int(p_.h), int(p_.w)),
                    "input descriptor");
        check_cudnn(cudnnSetFilter4dDescriptor(w_desc_, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, oc, int(p_.c) / groups,
                                               int(p_.kh), int(p_.kw)),
                    "weights descriptor");
        check_cudnn(cudnnSetConvolution2dDescriptor(conv_desc_, int(p_.pad), int(p_.pad), int(p_.stride),
                                                    int(p_.stride), int(p_.dilation), int(p_.dilation),
                                                    CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
                    "convolution descriptor");
        check_cudnn(cudnnSetConvolutionGroupCount(conv_desc_, groups), "group count");
        int n, c, h, w;
        check_cudnn(cudnnGetConvolution2dForwardOutputDim(conv_desc_, x_desc_, w_desc_, &n, &c, &h, &w), "output dims");
        if (n != p_.n || c != oc || h != p_.oh || w != p_.ow) throw std::logic_error("cuDNN: output shape differs");
        check_cudnn(cudnnSetTensor4dDescriptor(y_desc_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w),
                    "output descriptor");

        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        int found = 0;
        check_cudnn(cudnnFindConvolutionForwardAlgorithm(handle_, x_desc_, w_desc_, conv_desc_, y_desc_,
                                                         CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found, perf),
                    "cudnnFindConvolutionForwardAlgorithm");
        int best = -1;  // the fastest that succeeded (the list is sorted by time)
        for (int i = 0; i < found && best < 0; i++) {
            if (perf[i].status == CUDNN_STATUS_SUCCESS) best = i;
        }
        if (best < 0) throw std::runtime_error("cuDNN found no working forward algorithm");
        algo_ = perf[best].algo;
        workspace_bytes_ = perf[best].memory;
        if (workspace_bytes_ > 0) check_cuda(cudaMalloc(&workspace_, workspace_bytes_), "cudaMalloc (workspace)");
        impl_ = "cudnnConvolutionForward algo " + std::to_string(int(algo_)) + ", workspace " +
                std::to_string(workspace_bytes_) + " B";
    }

    ~CudnnConv() override {
        if (workspace_) cudaFree(workspace_);
        cudnnDestroyConvolutionDescriptor(conv_desc_);
        cudnnDestroyFilterDescriptor(w_desc_);
        cudnnDestroyTensorDescriptor(y_desc_);
        cudnnDestroyTensorDescriptor(x_desc_);
        cudnnDestroy(handle_);
    }

    void upload(const std::vector<Tensor> &inputs) override {
        input_.upload(inputs[0]);
        weights_.upload(inputs[1]);
    }

    void launch() override {
        const float one = 1.0f, zero = 0.0f;
        check_cudnn(cudnnConvolutionForward(handle_, &one, x_desc_, input_.data(), w_desc_, weights_.data(),
                                            conv_desc_, algo_, workspace_, workspace_bytes_, &zero, y_desc_,
                                            output_.data()),
                    "cudnnConvolutionForward");
    }

    void download(Tensor &output) override { output_.download(output); }  // synchronous: waits for the convolution

private:
    ops::ConvParams p_;
    DeviceArray input_, weights_, output_;
    cudnnHandle_t handle_ = nullptr;
    cudnnTensorDescriptor_t x_desc_ = nullptr, y_desc_ = nullptr;
    cudnnFilterDescriptor_t w_desc_ = nullptr;
    cudnnConvolutionDescriptor_t conv_desc_ = nullptr;
    cudnnConvolutionFwdAlgo_t algo_{};
    void *workspace_ = nullptr;
    size_t workspace_bytes_ = 0;
};

}  // namespace

std::unique_ptr<GpuBaseline> make_cudnn_op(const ops::OpConfig &config) {
    if (config.op != "conv2d" && config.op != "depthwise_conv2d") {
        return std::make_unique<UnsupportedGpuBaseline>("cuDNN", "the cuDNN baseline runs conv2d and depthwise_conv2d only");
    }
    if (ops::parse_conv(config).nhwc) {
        return std::make_unique<UnsupportedGpuBaseline>("cuDNN", "the cuDNN baseline takes NCHW only (nhwc weights are HWIO, cuDNN's KRSC)");
    }
    const std::string no_gpu = why_no_gpu();
    if (!no_gpu.empty()) return std::make_unique<UnsupportedGpuBaseline>("cuDNN", no_gpu);
    return std::make_unique<CudnnConv>(config);
}

}  // namespace tessera::cuda
