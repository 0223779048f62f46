// PipelineSchedule: Tessera's schedule of a pipeline as data. The rules build it
// (through a ScheduleBuilder); apply/ emits it to the live Funcs and to schedule
// source; TESSERA_EXPLAIN and the tests read it. Per Func: where it is computed
// and stored, its storage (bounds, alignment, memory type, order) and, per stage,
// the loop directives in order and the loop nest they leave.
#pragma once

#include "schedule_steps.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tessera::schedule {

// One loop of a stage's final nest.
struct Loop {
    std::string name;   // the loop's own name ("n_p_vi"), without the lineage Halide prefixes
    bool rvar = false;  // a reduction loop
    LoopKind kind = LoopKind::Serial;
};

struct StageSchedule {
    std::string func;
    int update = -1;  // -1: the pure definition
    std::vector<LoopDirective> directives;
    std::vector<Loop> loops;  // innermost first, as the directives leave the nest

    const Loop *loop(const std::string &name) const;
    // The factor of the split that made loop `inner` (0: none).
    int split_factor(const std::string &inner) const;
    const Split *split_of(const std::string &old_var) const;
    bool prefetches() const;
};

// Where a Func is computed or stored: inlined (no placement), at root, or inside
// loop `var` of `consumer`.
struct Placement {
    enum class Kind { Inline, Root, At } kind = Kind::Inline;
    std::string consumer, var;
    std::string to_string() const;
};

struct FuncSchedule {
    std::string name;
    // How the Func came to be: a pipeline Function, a wrapper (`of`.in(`consumer`))
    // or an update's rfactor intermediate (of `of`).
    enum class Origin { Pipeline, Wrapper, Rfactor } origin = Origin::Pipeline;
    std::string of, consumer;
    Placement compute, store;  // store: Inline kind when not set apart from compute
    std::map<std::string, int> bound_extents;
    std::map<std::string, std::pair<int, int>> bounds;  // bound: an output's (min, extent)
    std::map<std::string, int> storage_alignment;
    std::map<std::string, int> storage_extents;  // bound_storage: padded storage
    Halide::MemoryType memory = Halide::MemoryType::Auto;
    std::vector<std::string> storage_order;  // innermost first; empty: Halide's
    std::vector<StageSchedule> stages;       // the stages given directives, pure first

    const StageSchedule *stage(int update = -1) const;
};

class PipelineSchedule {
public:
    const std::vector<Step> &steps() const { return steps_; }
    const std::vector<FuncSchedule> &funcs() const { return funcs_; }
    // Null when no step names the Func / stage.
    const FuncSchedule *func(const std::string &name) const;
    const StageSchedule *stage(const std::string &func, int update = -1) const;

    // Every scheduled Func: placement, storage and loop nests (outermost first),
    // one line each, for TESSERA_EXPLAIN.
    std::string describe() const;

private:
    friend class ScheduleBuilder;
    FuncSchedule &touch(const std::string &name);
    std::vector<Step> steps_;
    std::vector<FuncSchedule> funcs_;  // in the order the steps first name them
};

}  // namespace tessera::schedule
