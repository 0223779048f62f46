// Fuzz target: an operator description down to pipeline construction.
// ops::parse_op_line + ops::describe_op (validation, signature) + ops::build_op on
// ImageParams of the signature's shapes, then a Halide::Pipeline of the result.
// Nothing is scheduled, compiled or run. Sizes are bounded: configurations whose
// tensors hold more than kMaxElements elements in all are skipped after validation
// (validation itself sees every size).
// Accepted: a Func of the output's rank. Rejected: ops::OpError.
// Findings: any other exception (a Halide error means validation let through a
// configuration the builder cannot build), a wrong output rank, a sanitizer report.
#include "fuzz_common.h"
#include "op_builder.h"

#include <Halide.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace {

constexpr double kMaxElements = 1e6;

double elements(const tessera::ops::Shape &shape) {
    double n = 1;
    for (int64_t e : shape) n *= double(e);
    return n;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    using namespace tessera;
    const std::string line(reinterpret_cast<const char *>(data), size);
    ops::OpConfig config;
    ops::OpSignature sig;
    try {
        config = ops::parse_op_line(line);
        sig = ops::describe_op(config);
    } catch (const ops::OpError &e) {
        fuzz::rejected(e.what());
        return 0;
    }
    double total = elements(sig.output.shape);
    for (const ops::TensorSpec &t : sig.inputs) total += elements(t.shape);
    if (total > kMaxElements) {
        fuzz::accepted(config.to_string() + " (validated; too large to build here)");
        return 0;
    }
    try {
        std::vector<Halide::ImageParam> params;
        std::vector<Halide::Func> inputs;
        for (const ops::TensorSpec &t : sig.inputs) {
            params.emplace_back(Halide::Float(32), int(t.shape.size()), t.name);
            inputs.push_back(params.back());
        }
        Halide::Func out = ops::build_op(config, inputs);
        if (!out.defined() || out.dimensions() != int(sig.output.shape.size())) {
            fuzz::finding(config.to_string() + ": built a Func of " + std::to_string(out.dimensions()) +
                          " dimensions for an output of rank " + std::to_string(sig.output.shape.size()));
        }
        Halide::Pipeline pipeline(out);
        fuzz::accepted(config.to_string());
    } catch (const ops::OpError &e) {
        fuzz::finding(config.to_string() + ": describe_op accepted it but build_op threw OpError: " + e.what());
    } catch (const Halide::Error &e) {
        fuzz::finding(config.to_string() + ": validated, but Halide rejected it: " + e.what());
    }
    return 0;
}
