// The steps of a schedule, typed, in the order the rules took them. A
// PipelineSchedule keeps them as its record of what to do; apply/ replays them
// onto the live Funcs and into schedule source (the order is the source's order:
// each name is declared just before its first use).
#pragma once

#include <Halide.h>

#include <string>
#include <variant>
#include <vector>

namespace tessera::schedule {

// GpuBlock / GpuThread: the loop runs as a GPU's blocks / a block's threads.
enum class LoopKind { Serial, Vectorized, Unrolled, Parallel, GpuBlock, GpuThread };
const char *to_string(LoopKind k);

// Directives on the loops of one stage (a Func's pure definition or an update).
struct Split {
    std::string old_var, outer, inner;
    int factor;
    Halide::TailStrategy tail;
};
struct Fuse {
    std::string inner, outer, fused;
};
struct Reorder {
    std::vector<std::string> inner_first;
};
struct MarkLoop {  // vectorize, unroll, parallel, gpu_blocks or gpu_threads
    std::string var;
    LoopKind kind;
};
struct PrefetchInput {  // Halide's prefetch of an input buffer (see StageBuilder::prefetch_input)
    std::string input, at, from;
    int offset;
    bool guarded;
};
struct LeaveUnscheduled {};  // a serial update left as written, on purpose
struct GpuSingleThread {};   // a stage without loops run by one GPU thread (Halide's gpu_single_thread)
using LoopDirective = std::variant<Split, Fuse, Reorder, MarkLoop, PrefetchInput, LeaveUnscheduled, GpuSingleThread>;

// Func-level steps.
struct DeclareFunc {  // a handle on a pipeline Function (named in the source)
    std::string func;
};
struct ComputeRoot {
    std::string func;
};
struct ComputeAt {
    std::string func, consumer, var;
};
struct StoreAt {
    std::string func, consumer, var;
};
struct Rfactor {  // `result` = the update's rfactor intermediate
    std::string func;
    int update;
    std::string rvar, new_var, result;
};
struct Wrap {  // `result` = func.in(consumer); func.in() for every consumer when `consumer` is empty
    std::string func, consumer, result;
};
struct BoundExtent {
    std::string func, var;
    int extent;
};
struct Bound {  // an output computed over exactly [min, min + extent) along var (Halide's bound)
    std::string func, var;
    int min, extent;
};
struct BoundStorage {  // f's storage extent along var: at least what is computed (padding)
    std::string func, var;
    int extent;
};
struct AlignStorage {
    std::string func, var;
    int align;
};
struct StoreIn {
    std::string func;
    Halide::MemoryType memory;
};
struct ReorderStorage {
    std::string func;
    std::vector<std::string> inner_first;
};
// A block of loop directives on one stage, opened, filled and closed (the source
// writes each block as one chained statement when it closes).
struct OpenStage {
    int block;
    std::string func;
    int update;  // -1: the pure definition
};
struct StageDirective {
    int block;
    LoopDirective directive;
};
struct CloseStage {
    int block;
};

using Step = std::variant<DeclareFunc, ComputeRoot, ComputeAt, StoreAt, Rfactor, Wrap, BoundExtent, Bound, BoundStorage, AlignStorage,
                          StoreIn, ReorderStorage, OpenStage, StageDirective, CloseStage>;

}  // namespace tessera::schedule
