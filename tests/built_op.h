// An op of the library as a JIT pipeline with estimates, as JitOp and the
// generators build it: the input parameters and the output Func. Shared by the
// tests that schedule ops directly through the scheduler core.
#pragma once

#include "halide_axes.h"
#include "op_builder.h"

#include <Halide.h>

#include <string>
#include <vector>

namespace tessera::test {

struct BuiltOp {
    std::vector<Halide::ImageParam> params;
    Halide::Func out;
};

inline BuiltOp build(const std::string &line) {
    ops::OpConfig config = ops::parse_op_line(line);
    ops::OpSignature sig = ops::describe_op(config);
    BuiltOp b;
    std::vector<Halide::Func> inputs;
    for (const ops::TensorSpec &spec : sig.inputs) {
        Halide::ImageParam p(Halide::Float(32), int(spec.shape.size()), spec.name);
        p.set_estimates(ops::halide_region(spec.shape));
        b.params.push_back(p);
        inputs.push_back(p);
    }
    b.out = ops::build_op(config, inputs);
    b.out.set_estimates(ops::halide_region(sig.output.shape));
    return b;
}

}  // namespace tessera::test
