// ScheduleBuilder: what the rules write a schedule through. Each call becomes a
// typed step of a PipelineSchedule; nothing touches the pipeline's Funcs (apply/
// emits the finished schedule). The rules still ask what Halide would answer (a
// wrapper's arguments, a stage's loops after its splits), so every step is also
// applied to a private deep copy of the pipeline, the sandbox, by the same
// apply::StepApplier that later replays the schedule onto the live Funcs, and
// queries read it: the answers are Halide's own, and the loop nests of the
// finished schedule are read from it.
#pragma once

#include "pipeline_schedule.h"
#include "schedule_script.h"
#include "step_applier.h"

#include <Halide.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace tessera::schedule {

class ScheduleBuilder;

// Directives on one stage (update -1: the pure definition), one block of steps.
class StageBuilder {
public:
    StageBuilder(ScheduleBuilder &builder, const std::string &func, int update);
    ~StageBuilder();
    StageBuilder(const StageBuilder &) = delete;
    StageBuilder &operator=(const StageBuilder &) = delete;

    StageBuilder &split(const std::string &old, const std::string &outer, const std::string &inner, int factor,
                        Halide::TailStrategy tail = Halide::TailStrategy::Auto);
    StageBuilder &fuse(const std::string &inner, const std::string &outer, const std::string &fused);
    StageBuilder &reorder(const std::vector<std::string> &inner_first);
    StageBuilder &vectorize(const std::string &var);
    StageBuilder &unroll(const std::string &var);
    StageBuilder &parallel(const std::string &var);
    // The loop runs as GPU blocks / as a block's threads (innermost marked first
    // becomes the x dimension, as in Halide).
    StageBuilder &gpu_blocks(const std::string &var);
    StageBuilder &gpu_threads(const std::string &var);
    StageBuilder &gpu_single_thread();
    // In loop `at`, prefetches what iteration `from` + `offset` reads of input
    // buffer `input` (Halide's prefetch; `guarded`: not past the buffer's end,
    // else unguarded, which x86's prefetch instructions allow: they never
    // fault); false, recording nothing, when no pipeline Function wraps the buffer.
    bool prefetch_input(const std::string &input, const std::string &at, const std::string &from, int offset,
                        bool guarded = true);
    // Leaves a serial update as written (Halide's Stage::unscheduled), on purpose.
    StageBuilder &unscheduled();

private:
    StageBuilder &record(LoopDirective d);
    ScheduleBuilder &builder_;
    std::string func_;
    int update_;
    int block_;
};

class ScheduleBuilder {
public:
    // `order`: the pipeline's Functions in Halide's topological order
    // (Pipeline::get_func); `outputs`: the names of its outputs (computed at root).
    ScheduleBuilder(const std::vector<Halide::Internal::Function> &order, const std::vector<std::string> &outputs);

    // The sandbox's handle on a Function: for queries (args, schedules so far).
    Halide::Func func(const std::string &name);
    // Whether f is one of the pipeline's outputs (its storage is the caller's buffer).
    bool is_output(const std::string &f) const { return outputs_.count(f) != 0; }
    void compute_root(const std::string &f);
    void compute_at(const std::string &f, const std::string &consumer, const std::string &var);
    // f's storage hoisted to consumer's loop `var` (Halide's store_at), a pure var.
    void store_at(const std::string &f, const std::string &consumer, const std::string &var);
    // Creates `result` = the stage's rfactor intermediate (see Halide's Stage::rfactor).
    void rfactor(const std::string &f, int update, const std::string &rvar, const std::string &new_var,
                 const std::string &result);
    // Creates `result` = f.in(consumer): a wrapper of f used only by consumer.
    void wrap(const std::string &f, const std::string &consumer, const std::string &result);
    // Fixes the extent f is computed over along `var` (Halide's bound_extent): a
    // tile at a guarded tail is then still computed whole, over padding.
    void bound_extent(const std::string &f, const std::string &var, int extent);
    // Fixes the region output f covers along `var` (Halide's bound): its
    // buffer must have that min and extent, which the loops then know.
    void bound(const std::string &f, const std::string &var, int min, int extent);
    // Rounds the storage extent of dim `var` up to a multiple of `align` elements
    // (Halide's align_storage): how a packed tile gets its row padding.
    void align_storage(const std::string &f, const std::string &var, int align);
    // f's storage along var has `extent` points (at least what is computed: the
    // rest pads the rows, as against shared-memory bank conflicts).
    void bound_storage(const std::string &f, const std::string &var, int extent);
    // f's buffer on the stack (Halide's runtime backs a run-time size above 16 KiB
    // with the heap, so any size is safe).
    void store_on_stack(const std::string &f);
    // Stores `f` in registers (every access unrolled or vectorised, extents bounded).
    void store_in_registers(const std::string &f);
    // f's buffer in a GPU block's shared memory (computed at a block-level loop).
    void store_in_shared(const std::string &f);
    // Storage order of f's pure vars, innermost first (Halide's reorder_storage).
    void reorder_storage(const std::string &f, const std::vector<std::string> &inner_first);
    // The pipeline Function that wraps input buffer `input` (what a generator's
    // Input or a Func made from an ImageParam is), and the buffer's parameter;
    // empty when no Function wraps it.
    std::string input_wrapper(const std::string &input, Halide::Internal::Parameter &param);

    // While set, parallel() marks nothing: a stage computed inside another's
    // parallel tiles (a fused chain's producer) runs its own loops serially.
    void set_serial(bool serial) { serial_ = serial; }
    bool serial() const { return serial_; }

    // Braced: a stage's directives are one block (one statement in the source).
    StageBuilder stage(const std::string &f, int update = -1) { return StageBuilder(*this, f, update); }

    // The schedule, with every stage's final loop nest read from the sandbox.
    PipelineSchedule finish();

private:
    friend class StageBuilder;
    std::set<std::string> outputs_;
    void record(Step step, const std::vector<std::string> &names);
    FuncSchedule &func_schedule(const std::string &name) { return schedule_.touch(name); }
    StageSchedule &stage_schedule(const std::string &f, int update);

    PipelineSchedule schedule_;
    apply::ScheduleScript sandbox_;
    apply::StepApplier applier_{sandbox_};  // every recorded step, applied to the sandbox
    std::set<std::string> named_;  // Funcs some step names (the emitter has declared them)
    int blocks_ = 0;
    bool serial_ = false;
};

// The pipeline's Functions deep-copied (the sandbox a builder works on), in the same order.
std::vector<Halide::Internal::Function> sandbox_copy(const std::vector<Halide::Internal::Function> &order);

}  // namespace tessera::schedule
