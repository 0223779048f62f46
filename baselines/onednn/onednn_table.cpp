#include "onednn_table.h"

namespace tessera::onednn {

namespace {

// A row oneDNN runs: its params parser, then its factory. A row it cannot run
// would be {nullptr, "why"}.
template <auto parse, auto make>
OnednnRow runs() {
    return {[](const ops::OpConfig &config) -> std::unique_ptr<Kernel> { return make(parse(config)); }, ""};
}

}  // namespace

const std::map<std::string, OnednnRow> &onednn_table() {
    static const std::map<std::string, OnednnRow> table = {
        {"matmul", runs<ops::parse_matmul, make_matmul_kernel>()},
        {"conv", runs<ops::parse_conv, make_conv_kernel>()},
        {"pool", runs<ops::parse_pool, make_pool_kernel>()},
        {"reduce", runs<ops::parse_reduce, make_reduce_kernel>()},
        {"unary", runs<ops::parse_unary, make_unary_kernel>()},
        {"binary", runs<ops::parse_binary, make_binary_kernel>()},
        {"bias_add", runs<ops::parse_bias_add, make_bias_add_kernel>()},
        {"softmax", runs<ops::parse_softmax, make_softmax_kernel>()},
        {"norm", runs<ops::parse_norm, make_norm_kernel>()},
        {"transpose", runs<ops::parse_transpose, make_transpose_kernel>()},
        {"pad", runs<ops::parse_pad, make_pad_kernel>()},
        {"pack", {nullptr,
                  "packing is a layout change of constant weights done once at compile time, or of activations "
                  "between layouts; oneDNN's own reorders are outside its timer too"}},
        {"attention", runs<ops::parse_attention, make_attention_kernel>()},
        {"gemm_chain", runs<ops::parse_gemm_chain, make_gemm_chain_kernel>()},
        {"conv_chain", runs<ops::parse_conv_chain, make_conv_chain_kernel>()},
    };
    return table;
}

}  // namespace tessera::onednn
