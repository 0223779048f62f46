// FunctionDag: the Functions a pipeline computes, producers first, with the
// concrete region each one must produce, derived from the output estimates by
// walking every definition backwards (Halide's boxes_required).
#pragma once

#include <Halide.h>

#include <map>
#include <string>
#include <vector>

namespace tessera::analysis {

struct Extent {
    int64_t min = 0, extent = 0;
};

struct FunctionNode {
    Halide::Internal::Function func;
    std::vector<Extent> region;          // per pure argument, in Halide order
    std::vector<std::string> consumers;  // names of the Functions that call this one
    bool is_output = false;
};

class FunctionDag {
public:
    // Raises a Halide user error naming the output and dimension when an
    // estimate is missing or not a constant.
    explicit FunctionDag(const std::vector<Halide::Internal::Function> &outputs);

    const std::vector<FunctionNode> &nodes() const { return nodes_; }  // producers first
    const FunctionNode *find(const std::string &name) const;

private:
    std::vector<FunctionNode> nodes_;
};

}  // namespace tessera::analysis
