#include "op_registry.h"

#include "op_entries.h"
#include "op_signatures.h"

#include <map>

namespace tessera::ops {

const std::vector<OpRow> &op_registry() {
    static const std::vector<OpRow> rows = {
// The builder column belongs to op_builder.cpp (Halide); the core does not link it.
#define TESSERA_OP_ROW(id, entries, signature, builder) {#id, entries(), signature},
#include "op_registry.def"
#undef TESSERA_OP_ROW
    };
    return rows;
}

const OpRow &op_row(const std::string &op) {
    static const std::map<std::string, const OpRow *> row_of_op = [] {
        std::map<std::string, const OpRow *> rows;
        for (const OpRow &row : op_registry()) {
            for (const OpInfo &info : row.ops) rows.emplace(info.name, &row);
        }
        return rows;
    }();
    find_op(op);  // throws for an unknown op, listing the known ones
    return *row_of_op.at(op);
}

}  // namespace tessera::ops
