// ScheduleScript: what apply/emit_schedule replays a PipelineSchedule's steps
// through. It applies each directive to the live Funcs of a pipeline and records
// the equivalent C++ at the same time, so the schedule_source Halide writes into a
// .schedule.h is, by construction, what was applied (the ScheduleBuilder also runs
// one over its sandbox copy, to answer the rules' questions). Names follow the
// source Mullapudi2016 emits: `Func f = pipeline.get_func(i);`.
#pragma once

#include <Halide.h>

#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace tessera::apply {

class ScheduleScript;

// Directives on one stage of a Func (stage -1: the Func's pure definition via Func
// methods, which also set its storage; k >= 0: update k).
class StageScript {
public:
    // `name`: the handle's name in the source (a pipeline Function's, or the alias
    // given to an rfactor intermediate or a wrapper).
    StageScript(ScheduleScript &script, const std::string &name, Halide::Func func, int update);
    ~StageScript();

    StageScript &split(const std::string &old, const std::string &outer, const std::string &inner, int factor,
                       Halide::TailStrategy tail = Halide::TailStrategy::Auto);
    StageScript &fuse(const std::string &inner, const std::string &outer, const std::string &fused);
    StageScript &reorder(const std::vector<std::string> &inner_first);
    StageScript &vectorize(const std::string &var);
    StageScript &unroll(const std::string &var);
    StageScript &parallel(const std::string &var);
    StageScript &gpu_blocks(const std::string &var);
    StageScript &gpu_threads(const std::string &var);
    StageScript &gpu_single_thread();
    // As schedule::StageBuilder's (documented there); false, applying nothing,
    // when no pipeline Function wraps the buffer.
    bool prefetch_input(const std::string &input, const std::string &at, const std::string &from, int offset,
                        bool guarded = true);
    // Leaves a serial update as written (Halide's Stage::unscheduled), on purpose.
    StageScript &unscheduled();

private:
    Halide::VarOrRVar handle(const std::string &name);
    StageScript &loop_directive(const std::string &directive, const std::string &var);
    void emit(const std::string &call);

    ScheduleScript &script_;
    Halide::Func func_;
    int update_;
    std::optional<Halide::Stage> stage_;  // set for updates
    std::set<std::string> rvars_;  // names in this stage that are reduction variables
    std::ostringstream text_;
    bool any_ = false;
};

class ScheduleScript {
public:
    // `order`: the pipeline's Functions in Halide's topological order (Pipeline::get_func).
    explicit ScheduleScript(const std::vector<Halide::Internal::Function> &order);

    // A live handle on a pipeline Function, declared in the source on first use.
    Halide::Func func(const std::string &name);
    // Func-level directives: each is schedule::ScheduleBuilder's of the same name
    // (documented there), applied to the live Funcs and written as source.
    void compute_root(const std::string &f);
    void compute_at(const std::string &f, const std::string &consumer, const std::string &var);
    void store_at(const std::string &f, const std::string &consumer, const std::string &var);
    void rfactor(const std::string &f, int update, const std::string &rvar, const std::string &new_var,
                 const std::string &result);
    void wrap(const std::string &f, const std::string &consumer, const std::string &result);
    void bound_extent(const std::string &f, const std::string &var, int extent);
    void align_storage(const std::string &f, const std::string &var, int align);
    void bound(const std::string &f, const std::string &var, int min, int extent);
    void bound_storage(const std::string &f, const std::string &var, int extent);
    void store_on_stack(const std::string &f);
    void store_in_registers(const std::string &f);
    void store_in_shared(const std::string &f);
    void reorder_storage(const std::string &f, const std::vector<std::string> &inner_first);

    // The name of the pipeline Function that wraps input buffer `input` (what a
    // generator's Input or a Func made from an ImageParam is), declared in the
    // source, and the buffer's parameter; empty when no Function wraps it.
    std::string input_wrapper(const std::string &input, Halide::Internal::Parameter &param);

    StageScript stage(const std::string &f, int update = -1) { return StageScript(*this, f, func(f), update); }

    // C++ statements equivalent to everything applied.
    std::string source() const;
    // A C++ identifier for a Halide name ("k$x" -> "k_x").
    static std::string ident(const std::string &name);

private:
    friend class StageScript;
    void declare_var(const std::string &name, bool rvar, const std::string &init = "");
    void statement(const std::string &s) { body_ << s << "\n"; }

    std::map<std::string, Halide::Internal::Function> by_name_;
    std::map<std::string, int> index_;
    std::map<std::string, Halide::Func> handles_;
    std::set<std::string> declared_;
    // Declarations and statements in one stream, each declaration just before its
    // first use (an rfactor intermediate's RVars exist only after the rfactor).
    std::ostringstream body_;
};

}  // namespace tessera::apply
