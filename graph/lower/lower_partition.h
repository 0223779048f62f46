// lower_partition: one Partition of the fusion plan as one Halide Pipeline. Its
// inputs computed at run time (graph inputs, weights, other partitions' outputs)
// become ImageParams with estimates from their static shapes; integer constants
// (indices, masks) are compiled into the pipeline; its nodes are lowered in order
// (lower_node), the intermediates left as Funcs for the scheduler to fuse; its
// output Func carries the output's estimates. A partition pointwise across the
// image plane is lowered with its planes as rows (planes_as_rows.h): its buffers
// then take the same bytes under the shapes in param_shapes and output_shape.
#pragma once

#include "graph.h"
#include "partition.h"

#include <Halide.h>

#include <string>
#include <vector>

namespace tessera::graph {

// The element type a value of `dtype` has in compiled code, wherever it crosses a
// partition's edge: fp32 as float, every integer-like type (int64, int32, bool) as
// int64, which holds them all exactly. The emitted library's C API takes the same.
Halide::Type boundary_type(DType dtype);

struct LowerOptions {
    // Planes as rows where the partition allows it. Off for GPU targets, whose
    // device buffers are shared between kernels in the values' own shapes.
    bool planes_as_rows = true;
};

struct LoweredPartition {
    std::string name;                        // the partition's, a valid C identifier
    std::vector<std::string> input_values;   // graph values bound to `params`, in order
    std::vector<Halide::ImageParam> params;
    std::vector<Shape> param_shapes;         // the shape each param's buffer takes (dense)
    std::string output_value;                // the graph value `output` computes
    Shape output_shape;                      // the shape the output buffer takes (dense)
    Halide::Func output;
    Halide::Pipeline pipeline;
};

LoweredPartition lower_partition(const Graph &g, const Partition &p, const LowerOptions &options = {});

// Node `node` of `g` as a partition of its own, lowered: what the layout choice
// schedules to compare a convolution's forms by the scheduler's predicted time.
LoweredPartition lower_single_node(const Graph &g, int node);

}  // namespace tessera::graph
