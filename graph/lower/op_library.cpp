#include "op_library.h"

#include "op_config.h"

namespace tessera::graph {

Halide::Func build_library_op(const LowerContext &ctx, const std::string &line,
                              const std::vector<Halide::Func> &inputs) {
    try {
        return ops::build_op(ops::parse_op_line(line), inputs);
    } catch (const ops::OpError &e) {
        ctx.fail(std::string("the op library rejects '") + line + "': " + e.what());
    }
}

}  // namespace tessera::graph
