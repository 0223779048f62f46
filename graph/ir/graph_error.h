// GraphError: a user-caused problem with a model (unsupported op, attribute, dtype or
// opset; a bad file; a missing input shape). The message names the thing at fault:
// the node (name, index in the model, op type, opset) or the file or the input.
#pragma once

#include <stdexcept>
#include <string>

namespace tessera::graph {

class GraphError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

} // namespace tessera::graph
