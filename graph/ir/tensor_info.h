// TensorInfo: a value of the graph (graph input, node output or constant): its dtype,
// its static shape once known, and for a constant its data.
#pragma once

#include "tensor_data.h"

#include <memory>
#include <string>

namespace tessera::graph {

struct TensorInfo {
    std::string name;
    DType dtype = DType::f32;
    Shape shape;
    // False until shape inference could work it out: a shape computed from values
    // (Reshape fed by a Shape chain) becomes known once fold_constants ran.
    bool shape_known = false;
    // Set for constants (initializers, Constant nodes, folded values). Shared so that
    // copies of a graph or of a value are cheap; never mutated in place.
    std::shared_ptr<const TensorData> data;
    // Set for a value the layout pass made: the NCHW value (of the model, or of a
    // pass before it) whose data this one holds in another layout.
    std::string layout_of;

    bool is_constant() const { return data != nullptr; }

    static TensorInfo constant(std::string name, TensorData value);
    // "f32[1x3x224x224]"; "?" stands for an unknown shape.
    std::string type_string() const;
};

} // namespace tessera::graph
