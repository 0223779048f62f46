#include "strided_load_alignment.h"

namespace tessera::hal {

namespace {

using namespace Halide::Internal;

class ForgetConstantStridedLoadAlignment : public IRMutator {
    using IRMutator::visit;

    Halide::Expr visit(const Load *op) override {
        Halide::Expr e = IRMutator::visit(op);
        const Load *load = e.as<Load>();
        const Ramp *ramp = load ? load->index.as<Ramp>() : nullptr;
        const int64_t *stride = ramp ? as_const_int(ramp->stride) : nullptr;
        // Only the constant-index case (modulus 0) reaches the division by zero.
        if (!stride || *stride < 2 || *stride > 4 || load->alignment.modulus != 0) return e;
        return Load::make(load->type, load->name, load->index, load->image, load->param, load->predicate,
                          ModulusRemainder());
    }
};

}  // namespace

Stmt forget_constant_strided_load_alignment(const Stmt &s) {
    return ForgetConstantStridedLoadAlignment().mutate(s);
}

IRMutator *new_strided_load_alignment_guard() { return new ForgetConstantStridedLoadAlignment; }

}  // namespace tessera::hal
