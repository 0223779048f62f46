// OpGenerator: the shared body of every operator-family Generator. A family
// generator declares one string GeneratorParam per key of its ops (empty = the
// op's default) and returns them as an OpConfig; this base validates it, adds one
// Input per operator input with the right rank, builds the op from the operator
// library, puts estimates on every input and the output, and adds Tessera's
// lowering passes to the pipeline (hal::add_lowering_passes).
#pragma once

#include "halide_axes.h"
#include "op_builder.h"
#include "lowering_passes.h"

#include <Halide.h>

#include <string>
#include <utility>
#include <vector>

namespace tessera {

template <typename Family>
class OpGenerator : public Halide::Generator<Family> {
public:
    void configure() {
        const char *family = Family::family_name();
        try {
            config_ = static_cast<Family *>(this)->config();
            const std::string op_family = ops::find_op(config_.op).family;
            if (op_family != family) {
                throw ops::OpError("op '" + config_.op + "' belongs to generator '" + op_family + "', not '" +
                                   family + "'");
            }
            signature_ = ops::describe_op(config_);
        } catch (const ops::OpError &e) {
            _halide_user_assert(false) << "generator " << family << ": " << e.what() << "\n";
        }
        for (const ops::TensorSpec &spec : signature_.inputs) {
            inputs_.push_back(this->template add_input<Halide::Buffer<float>>(spec.name, int(spec.shape.size())));
        }
        output_ = this->template add_output<Halide::Buffer<float>>("output", int(signature_.output.shape.size()));
    }

    void generate() {
        std::vector<Halide::Func> funcs;
        for (size_t i = 0; i < inputs_.size(); i++) {
            inputs_[i]->set_estimates(ops::halide_region(signature_.inputs[i].shape));
            funcs.push_back(*inputs_[i]);
        }
        Halide::Func result = ops::build_op(config_, funcs);
        *output_ = result;
        output_->set_estimates(ops::halide_region(signature_.output.shape));
    }

    // Runs before an autoscheduler's schedule is applied; the pass stays with the
    // pipeline whatever schedules it.
    void schedule() {
        Halide::Pipeline pipeline = this->get_pipeline();
        hal::add_lowering_passes(pipeline);
    }

protected:
    // Collects the non-empty key params into an OpConfig for `op`.
    static ops::OpConfig make_config(const std::string &op,
                                     const std::vector<std::pair<std::string, std::string>> &keys) {
        ops::OpConfig config;
        config.op = op;
        for (const auto &kv : keys) {
            if (!kv.second.empty()) config.set(kv.first, kv.second);
        }
        return config;
    }

private:
    ops::OpConfig config_;
    ops::OpSignature signature_;
    std::vector<Halide::GeneratorInput<Halide::Buffer<float>> *> inputs_;
    Halide::GeneratorOutput<Halide::Buffer<float>> *output_ = nullptr;
};

}  // namespace tessera
