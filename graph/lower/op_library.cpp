#include "op_library.h"

#include "op_config.h"

namespace tessera::graph {

Halide::Func build_library_op(const LowerContext &ctx, const ops::OpConfig &config,
                              const std::vector<Halide::Func> &inputs) {
    try {
        return ops::build_op(config, inputs);
    } catch (const ops::OpError &e) {
        ctx.fail(std::string("the op library rejects '") + config.to_string() + "': " + e.what());
    }
}

}  // namespace tessera::graph
