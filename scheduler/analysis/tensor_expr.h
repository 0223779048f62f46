// TensorExpr: one stage (a Function's pure definition or one of its updates) seen
// as a tensor expression: loop dimensions with extents, an affine access map for
// every tensor it reads and for the one it writes, arithmetic per point, and a
// class that tells the constructor how to treat it. Footprints and traffic of any
// tile follow from the access maps (see rtile/), never from per-operator rules.
#pragma once

#include "affine.h"
#include "function_dag.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tessera::analysis {

struct LoopDim {
    std::string name;
    int64_t min = 0, extent = 1;
    bool reduction = false;
    // A fused dim (analysis/axis_fusion.h): points per row of the inner dim it
    // merged, whose tiles beyond the registers cover whole rows; 0 otherwise.
    int64_t fused_row = 0;
};

// A loop dim v seen as two, v = div * factor + mod (analysis/axis_split.h): the
// stage's dims hold `mod` and `div` in v's place; its schedule splits v first.
struct AxisSplit {
    std::string var;
    int64_t factor = 1;
    std::string mod, div;  // names of the split dims: v % factor (inner), v / factor (outer)
    std::string access;    // the read that asked for it, as written (for messages)
};

// index along storage dimension d = sum_j coef[d][j] * loop_j + offset[d]
// (storage dimensions in Halide order: 0 is innermost).
struct AccessMap {
    std::string tensor;
    std::string text;       // the access as written, for messages
    bool is_input = false;  // an ImageParam / input buffer rather than a computed Function
    // An input whose every stride is constrained to a constant (a dense buffer whose
    // layout the caller fixed): its rows are constant offsets from one address.
    bool constant_strides = false;
    bool affine = true;
    std::vector<bool> clamped;  // per storage dim: index clamped to constants (safe for any loop value)
    std::vector<std::vector<int64_t>> coef;
    std::vector<int64_t> offset;

    // Whether any storage index moves with loop dimension j.
    bool depends_on(size_t j) const;
    // Extent of the data tile along storage dim d when loop j covers tile[j] points.
    int64_t tile_extent(size_t d, const std::vector<int64_t> &tile) const;
    // Elements of the data tile (product over storage dims).
    int64_t tile_elements(const std::vector<int64_t> &tile) const;
    // Indices actually touched along storage dim d, and elements in all: fewer
    // than the data tile's when a stride skips some (a stride-2 convolution's
    // input columns under one kernel tap).
    int64_t touched_extent(size_t d, const std::vector<int64_t> &tile) const;
    int64_t touched_elements(const std::vector<int64_t> &tile) const;
};

// Reduction points per output below which a stage with reuse is still treated as
// a (memory-bound) reduction: a 3x3 or 5x5 depthwise window (9, 25 points) is
// computed at its consumer's rows like pooling (see scheduler/README.md).
constexpr int64_t kMinComputeReductionPoints = 32;
// The widest channel block a blocked layout vectorises as one vector (AVX-512's 16).
constexpr int64_t kMaxBlockLanes = 16;

enum class StageClass {
    ComputeIntensive,  // a reduction whose operands are reused across output points: reuse grows with the tile
    Reduction,         // a reduction without such reuse (sum, max, pooling window, depthwise)
    Elementwise,       // pure, affine: elementwise, broadcast, transpose, pad (or folded into consumers)
    Unanalysable,      // non-affine or data-dependent access, extern: safe schedule only
};

const char *to_string(StageClass c);

struct TensorExpr {
    std::string func;
    int stage = 0;                // 0 = pure definition, k = update k-1
    std::vector<LoopDim> dims;    // pure vars in Halide order, then RVars innermost first
    std::vector<AccessMap> reads;
    AccessMap write;
    int64_t ops_per_point = 0;
    int element_bytes = 4;        // of the values the stage writes (its Function's type)
    StageClass cls = StageClass::Elementwise;
    std::string reason;           // why it is Unanalysable
    std::optional<AxisSplit> split;  // dims seen split (a pure stage affine only so)

    int64_t points() const;       // product of loop extents
    std::vector<size_t> spatial_dims() const;
    std::vector<size_t> reduction_dims() const;
    int find_dim(const std::string &name) const;  // -1 if absent
    std::vector<int64_t> extents() const;         // of every loop dim: the whole stage as one tile
    // The spatial dim the stage writes along its innermost storage dim with
    // coefficient 1 (the output's contiguous dim); -1 if none.
    int contiguous_write_dim() const;
    // Roller's reuse test for one read: it ignores a spatial dim with more than one
    // point, so each of its elements serves several output points.
    bool reused(const AccessMap &m) const;
    // Whether a reduction dim moves read m along its innermost storage dim: a window
    // sliding along the contiguous dim (x + r.x), whose vector loads are unaligned,
    // or a sum running along contiguous memory (a GEMV's matrix row, a channel's plane).
    bool slides_innermost(const AccessMap &m) const;
};

// Builds the TensorExpr of every stage of node.func. `inlined(name)` tells which
// producers will be inlined: their definitions are folded in, so accesses point
// through them (e.g. through a boundary condition) to the tensors really read.
std::vector<TensorExpr> build_tensor_exprs(const FunctionNode &node,
                                           const std::function<bool(const std::string &)> &inlined,
                                           const std::map<std::string, Halide::Internal::Function> &env);

}  // namespace tessera::analysis
