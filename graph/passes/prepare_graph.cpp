#include "prepare_graph.h"

#include "conv_transpose_as_conv.h"
#include "einsum_as_matmul.h"
#include "expand_definitions.h"
#include "fold_batch_norm.h"
#include "fold_constants.h"
#include "uniform_windows.h"
#include "windows_3d_as_2d.h"
#include "remove_dead.h"
#include "shape_inference.h"

namespace tessera::graph {

std::string PrepareReport::summary() const {
    return "folded " + std::to_string(folded) + " constant node(s), expanded " + std::to_string(expanded) +
           " node(s) into their definitions, " + std::to_string(batch_norms) +
           " BatchNormalization(s) into convolutions, " + std::to_string(conv_transposes) +
           " ConvTranspose(s) into convolutions, " + std::to_string(einsums) +
           " Einsum(s) into matrix products, " + std::to_string(windows_3d) + " 3-D window(s) into 2-D ones, " +
           std::to_string(windows.lifted_1d) +
           " 1-D window(s) lifted to 2-D, " + std::to_string(windows.padded) + " window(s) padded by a Pad, " + std::to_string(rewrites.gelu) + " Erf-form GELU(s) into Gelu, " +
           std::to_string(rewrites.split) + " Split(s) into Slices, " + std::to_string(rewrites.layer_norm) +
           " decomposed LayerNorm(s) into LayerNormalization; removed " + std::to_string(removed) +
           " dead node(s)";
}

PrepareReport prepare_graph(Graph &g) {
    PrepareReport r;
    r.folded = fold_constants(g);
    r.expanded = expand_definitions(g);
    r.batch_norms = fold_batch_norm(g);
    r.conv_transposes = conv_transpose_as_conv(g);
    r.einsums = einsum_as_matmul(g);
    r.windows_3d = windows_3d_as_2d(g);
    r.windows = uniform_windows(g);
    r.rewrites = rewrite_patterns(g);
    r.removed = remove_dead(g);
    require_static_shapes(g);
    return r;
}

}  // namespace tessera::graph
