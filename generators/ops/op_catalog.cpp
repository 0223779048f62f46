#include "op_catalog.h"

#include "op_registry.h"

#include <algorithm>
#include <sstream>

namespace tessera::ops {

namespace {

void finish(OpSignature &sig) {
    double elems = num_elements(sig.output.shape);
    for (const TensorSpec &t : sig.inputs) elems += num_elements(t.shape);
    sig.bytes = 4.0 * elems;
}

}  // namespace

const std::vector<OpInfo> &op_catalog() {
    static const std::vector<OpInfo> catalog = [] {
        std::vector<OpInfo> ops;
        for (const OpRow &row : op_registry()) ops.insert(ops.end(), row.ops.begin(), row.ops.end());
        return ops;
    }();
    return catalog;
}

const OpInfo &find_op(const std::string &name) {
    for (const OpInfo &op : op_catalog()) {
        if (op.name == name) return op;
    }
    std::string known;
    for (const OpInfo &op : op_catalog()) known += " " + op.name;
    throw OpError("unknown op '" + name + "' (known:" + known + ")");
}

void check_keys(const OpConfig &config) {
    const OpInfo &info = find_op(config.op);
    for (const auto &kv : config.attrs) {
        bool known = std::any_of(info.keys.begin(), info.keys.end(),
                                 [&](const KeyInfo &k) { return k.name == kv.first; });
        if (!known) {
            std::string keys;
            for (const KeyInfo &k : info.keys) keys += " " + k.name;
            throw OpError(config.op + ": unknown key '" + kv.first + "' (keys:" + keys + ")");
        }
    }
    for (const KeyInfo &k : info.keys) {
        if (k.default_value.empty() && !config.has(k.name)) {
            throw OpError(config.op + ": missing key '" + k.name + "' (" + k.doc + ")");
        }
    }
}

OpSignature describe_op(const OpConfig &config) {
    OpSignature sig = op_row(config.op).signature(config);
    finish(sig);
    return sig;
}

std::string catalog_listing() {
    std::ostringstream out;
    for (const OpInfo &op : op_catalog()) {
        out << op.name << "  [" << op.family << "]  " << op.doc << "\n";
        for (const KeyInfo &k : op.keys) {
            out << "    " << k.name << (k.default_value.empty() ? " (required)" : "=" + k.default_value) << "  "
                << k.doc << "\n";
        }
    }
    return out.str();
}

}  // namespace tessera::ops
