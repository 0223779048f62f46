#include "onednn_op.h"

#include "onednn_common.h"
#include "op_catalog.h"

namespace tessera::onednn {

namespace {

std::unique_ptr<Kernel> make_kernel(const ops::OpConfig &config) {
    const std::string &family = ops::find_op(config.op).family;
    if (family == "matmul") return make_matmul_kernel(ops::parse_matmul(config));
    if (family == "conv") return make_conv_kernel(ops::parse_conv(config));
    if (family == "pool") return make_pool_kernel(ops::parse_pool(config));
    if (family == "reduce") return make_reduce_kernel(ops::parse_reduce(config));
    if (family == "softmax") return make_softmax_kernel(ops::parse_softmax(config));
    if (family == "norm") return make_norm_kernel(ops::parse_norm(config));
    if (ops::is_binary_op(config.op)) return make_binary_kernel(ops::parse_binary(config));
    if (config.op == "bias_add") return make_bias_add_kernel(ops::parse_bias_add(config));
    if (family == "elementwise") return make_unary_kernel(ops::parse_unary(config));
    if (config.op == "transpose") return make_transpose_kernel(ops::parse_transpose(config));
    if (config.op == "pad") return make_pad_kernel(ops::parse_pad(config));
    throw Unsupported("no oneDNN mapping for op '" + config.op + "'");
}

}  // namespace

OnednnOp::OnednnOp(const ops::OpConfig &config) {
    ops::describe_op(config);  // validates; throws OpError naming the culprit
    try {
        kernel_ = make_kernel(config);
    } catch (const Unsupported &e) {
        why_not_ = e.what();
    } catch (const dnnl::error &e) {
        why_not_ = std::string("oneDNN has no implementation: ") + e.what();
    }
}

OnednnOp::~OnednnOp() = default;

std::string OnednnOp::impl() const {
    return kernel_ ? kernel_->impl() : "n/a";
}

bool OnednnOp::reference_impl() const {
    return kernel_ && kernel_->main_impl().rfind("ref", 0) == 0;
}

bool OnednnOp::optimised_impl() const {
    return kernel_ && is_optimised_impl(kernel_->main_impl());
}

void OnednnOp::run(std::vector<Tensor> &inputs, Tensor &output) {
    if (!kernel_) throw std::logic_error("OnednnOp::run on an unsupported op: " + why_not_);
    kernel_->run(inputs, output);
}

}  // namespace tessera::onednn
