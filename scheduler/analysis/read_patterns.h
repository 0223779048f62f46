// Read patterns: what a stage's accesses say about how it must be scheduled
// (an epilogue read at the point it is written, a reduction read by a row, an
// input read again after a reduction streamed it, a window sliding along a
// loop). Questions about the analysed pipeline, asked by the driver's steps.
#pragma once

#include "stage_plan.h"

#include <string>
#include <vector>

namespace tessera::analysis {

const TensorExpr *compute_stage(const std::vector<TensorExpr> &stages);

std::string unanalysable_reason(const std::vector<TensorExpr> &stages);

// Whether a consumer of `producer` reads it through a window sliding along its
// loop dim `var`: an index moving with both `var` and a reduction dim (an NCHW
// pooling's padded input, read at y * stride + r.y), or reads alike but for their
// offsets along a dim that moves with `var` (the window's taps unrolled).
bool window_slides_along(const FunctionNode &producer, const std::string &var, const StagePlan &plan);

// `m` reads its tensor at the point `out` writes (out(x, y) = f(x, y) + ...).
bool identity_read(const AccessMap &m, const TensorExpr &out);

// The compute-intensive stage whose epilogue the pure output `out` is: a
// non-inlined Function with one update, read by nothing else, read here at the
// same point it is written (out(x, y) = f(x, y) + bias(x); outer dims of one
// point beyond f's, a batch of one, allowed) and over the same points (not one
// branch of a Concat, read through a clamp). Else null.
const FunctionNode *epilogue_producer(const TensorExpr &out, const FunctionDag &dag, const StagePlan &plan);

// The reduction (a non-inlined Function with updates) that read `m` reads; null
// for an input or any other Function.
const FunctionNode *read_reduction(const AccessMap &m, const FunctionDag &dag, const StagePlan &plan);

// Input buffers the pure output `out` reads at the point it writes that a
// reduction it reads also reads (layer_norm's x, under its mean and variance):
// see rules::schedule_pure_output.
std::vector<std::string> reread_inputs(const TensorExpr &out, const FunctionDag &dag, const StagePlan &plan);

// Whether the pure output `out` reads, at the point it writes, a pure producer
// that reads an input again (softmax's exponentials read x after its maximum
// streamed it; see rules::schedule_pure_output).
bool producers_reread(const TensorExpr &out, const FunctionDag &dag, const StagePlan &plan);

// Whether the pure output `out` reads, at the point it writes, a reduction whose
// pure dims all have one point but the rows', and which reads an input that does
// not move along the rows (a matrix-vector product's vector; see
// rules::Attachment::register_rows).
bool reads_matrix_vector(const TensorExpr &out, const FunctionDag &dag, const StagePlan &plan);

// Whether stage `t` reads Function `name` (through the Functions it inlines).
bool reads_tensor(const TensorExpr &t, const std::string &name);

// Whether stage `t` reads Function `name` at the point it writes.
bool reads_at_point(const TensorExpr &t, const std::string &name);

// Whether every read of Function `name` by stage `t` is at the point it writes
// (and there is one).
bool reads_only_at_point(const TensorExpr &t, const std::string &name);

// A pure output of one row reading, at the point it writes, a reduction whose
// every read runs along a reduction dim in its innermost storage dim (NCHW
// global_avg_pool: each channel's sum reads its plane's contiguous points). Its
// row is cut into blocks, the reduction computed per block (see
// rules::kRowBlockVectors). A reduction reading along a pure dim (NHWC, a sum
// across rows) would read a short piece of every input row per block; it keeps
// its own parallel blocks.
bool reads_row_reduction(const TensorExpr &out, const FunctionDag &dag, const StagePlan &plan);

// Whether `out` reads a reduction (not a compute-intensive one) that is constant
// along one of its pure dims: a softmax's probabilities divided by each row's sum,
// a layer norm's output scaled by each row's variance.
bool reads_reduction_across_rows(const TensorExpr &out, const FunctionDag &dag, const StagePlan &plan);

// Whether every Function that reads `node` (readers_of) reads all of it at each of
// its own points: no read of it moves with a pure dim of the reader (a
// squeeze-excite's pooled vector, read whole by every output channel of the 1x1
// convolution after it). Computed inside a loop over the reader's points, such a
// producer is computed whole again in each iteration.
bool read_whole_at_each_point(const FunctionNode &node, const FunctionDag &dag, const StagePlan &plan);

// The Functions that read `node`'s values where they run: its consumers, with an
// inlined consumer looked through to its own readers (x - mean, inlined into a
// variance computed at root, is read where the variance runs).
std::vector<std::string> readers_of(const FunctionNode &node, const FunctionDag &dag, const StagePlan &plan);

}  // namespace tessera::analysis
