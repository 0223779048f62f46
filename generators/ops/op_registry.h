// The op registry: every operator as one row of op_registry.def, naming its
// catalogue entries, its signature and its Halide builder. This is the Halide-free
// side of a row (entries and signature, used by the catalogue and the references);
// op_builder.cpp reads the same rows for the builders. Libraries outside the op
// library (the plain C++ references, the oneDNN baseline) keep one table each,
// keyed by the row's id.
#pragma once

#include "op_catalog.h"

#include <string>
#include <vector>

namespace tessera::ops {

using SignatureFn = OpSignature (*)(const OpConfig &config);

struct OpRow {
    std::string id;           // "conv", "unary", "bias_add", ...: the key of the other tables
    std::vector<OpInfo> ops;  // catalogue entries, in catalogue order
    SignatureFn signature;    // validates the configuration; bytes are left to describe_op
};

// Every row, in catalogue order.
const std::vector<OpRow> &op_registry();

// The row holding `op`. Throws OpError for an unknown op, listing the known ones.
const OpRow &op_row(const std::string &op);

}  // namespace tessera::ops
