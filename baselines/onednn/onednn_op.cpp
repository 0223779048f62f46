#include "onednn_op.h"

#include "onednn_common.h"
#include "onednn_table.h"
#include "op_catalog.h"
#include "op_registry.h"

namespace tessera::onednn {

namespace {

std::unique_ptr<Kernel> make_kernel(const ops::OpConfig &config) {
    auto it = onednn_table().find(ops::op_row(config.op).id);
    if (it == onednn_table().end()) throw Unsupported("no oneDNN mapping for op '" + config.op + "'");
    if (!it->second.make) throw Unsupported(it->second.unsupported);
    return it->second.make(config);
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
