// The operator catalogue: every operator Tessera knows, its family, its keys with
// defaults and documentation, and its signature (input/output shapes, work).
// `tessera-suite`, `tessera-bench --list`, the generators and the references all
// use these names and keys. Entries and signatures come from the op registry's
// rows (op_registry.def), in the rows' order.
#pragma once

#include "op_config.h"

namespace tessera::ops {

struct KeyInfo {
    std::string name;
    std::string default_value;  // empty: required
    std::string doc;
};

struct OpInfo {
    std::string name;
    std::string family;  // the generator that builds it, e.g. "conv" for conv2d and depthwise_conv2d
    std::string doc;
    std::vector<KeyInfo> keys;
};

struct TensorSpec {
    std::string name;
    Shape shape;
    // Range test data is drawn from (a variance input must be positive).
    float lo = -1.0f, hi = 1.0f;
};

struct OpSignature {
    std::vector<TensorSpec> inputs;
    TensorSpec output;
    double flops = 0;        // arithmetic operations (an FMA counts 2)
    double bytes = 0;        // compulsory traffic: every input read once, the output written once
    bool compute_bound = false;  // report GFLOP/s rather than GB/s
};

const std::vector<OpInfo> &op_catalog();

// Throws OpError for an unknown op (listing the known ones) or a key the op does
// not have (listing its keys).
const OpInfo &find_op(const std::string &name);
void check_keys(const OpConfig &config);

// Validates the whole configuration and returns the operator's signature.
OpSignature describe_op(const OpConfig &config);

// Human-readable listing of every op and its keys (for --list).
std::string catalog_listing();

}  // namespace tessera::ops
