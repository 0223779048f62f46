#include "schedule_builder.h"

#include "diagnostics.h"

#include <map>

namespace tessera::schedule {

using namespace Halide;
using Halide::Internal::Function;

std::vector<Function> sandbox_copy(const std::vector<Function> &order) {
    std::map<std::string, Function> env;
    for (const Function &f : order)
        env[f.name()] = f;
    return Internal::deep_copy(order, env).first;
}

ScheduleBuilder::ScheduleBuilder(const std::vector<Function> &order, const std::vector<std::string> &outputs)
    : outputs_(outputs.begin(), outputs.end()), sandbox_(sandbox_copy(order)) {
    for (const std::string &o : outputs)
        func_schedule(o).compute = {Placement::Kind::Root, "", ""};
}

void ScheduleBuilder::record(Step step, const std::vector<std::string> &names) {
    applier_.apply(step);
    schedule_.steps_.push_back(std::move(step));
    named_.insert(names.begin(), names.end());
}

StageSchedule &ScheduleBuilder::stage_schedule(const std::string &f, int update) {
    FuncSchedule &fs = func_schedule(f);
    for (StageSchedule &s : fs.stages) {
        if (s.update == update) return s;
    }
    StageSchedule s;
    s.func = f;
    s.update = update;
    // Pure definition first, then updates in order.
    auto at = fs.stages.begin();
    while (at != fs.stages.end() && at->update < update)
        ++at;
    return *fs.stages.insert(at, s);
}

Func ScheduleBuilder::func(const std::string &name) {
    // A handle the rules take is a name the source declares at this point.
    if (!named_.count(name)) record(DeclareFunc{name}, {name});
    return sandbox_.func(name);
}

void ScheduleBuilder::compute_root(const std::string &f) {
    record(ComputeRoot{f}, {f});
    func_schedule(f).compute = {Placement::Kind::Root, "", ""};
}

void ScheduleBuilder::compute_at(const std::string &f, const std::string &consumer, const std::string &var) {
    record(ComputeAt{f, consumer, var}, {f, consumer});
    func_schedule(consumer);
    func_schedule(f).compute = {Placement::Kind::At, consumer, var};
}

void ScheduleBuilder::store_at(const std::string &f, const std::string &consumer, const std::string &var) {
    record(StoreAt{f, consumer, var}, {f, consumer});
    func_schedule(f).store = {Placement::Kind::At, consumer, var};
}

void ScheduleBuilder::rfactor(const std::string &f, int update, const std::string &rvar, const std::string &new_var,
                              const std::string &result) {
    record(Rfactor{f, update, rvar, new_var, result}, {f, result});
    FuncSchedule &r = func_schedule(result);
    r.origin = FuncSchedule::Origin::Rfactor;
    r.of = f;
}

void ScheduleBuilder::wrap(const std::string &f, const std::string &consumer, const std::string &result) {
    record(Wrap{f, consumer, result}, {f, consumer, result});
    FuncSchedule &w = func_schedule(result);
    w.origin = FuncSchedule::Origin::Wrapper;
    w.of = f;
    w.consumer = consumer;
}

void ScheduleBuilder::bound_extent(const std::string &f, const std::string &var, int extent) {
    record(BoundExtent{f, var, extent}, {f});
    func_schedule(f).bound_extents[var] = extent;
}

void ScheduleBuilder::bound(const std::string &f, const std::string &var, int min, int extent) {
    record(Bound{f, var, min, extent}, {f});
    func_schedule(f).bounds[var] = {min, extent};
}

void ScheduleBuilder::bound_storage(const std::string &f, const std::string &var, int extent) {
    record(BoundStorage{f, var, extent}, {f});
    func_schedule(f).storage_extents[var] = extent;
}

void ScheduleBuilder::align_storage(const std::string &f, const std::string &var, int align) {
    record(AlignStorage{f, var, align}, {f});
    func_schedule(f).storage_alignment[var] = align;
}

void ScheduleBuilder::store_on_stack(const std::string &f) {
    record(StoreIn{f, MemoryType::Stack}, {f});
    func_schedule(f).memory = MemoryType::Stack;
}

void ScheduleBuilder::store_in_registers(const std::string &f) {
    record(StoreIn{f, MemoryType::Register}, {f});
    func_schedule(f).memory = MemoryType::Register;
}

void ScheduleBuilder::store_in_shared(const std::string &f) {
    record(StoreIn{f, MemoryType::GPUShared}, {f});
    func_schedule(f).memory = MemoryType::GPUShared;
}

void ScheduleBuilder::reorder_storage(const std::string &f, const std::vector<std::string> &inner_first) {
    record(ReorderStorage{f, inner_first}, {f});
    func_schedule(f).storage_order = inner_first;
}

std::string ScheduleBuilder::input_wrapper(const std::string &input, Internal::Parameter &param) {
    const std::string wrapper = sandbox_.input_wrapper(input, param);
    if (!wrapper.empty() && !named_.count(wrapper)) record(DeclareFunc{wrapper}, {wrapper});
    return wrapper;
}

PipelineSchedule ScheduleBuilder::finish() {
    for (FuncSchedule &f : schedule_.funcs_) {
        const Function function = sandbox_.func(f.name).function();
        for (StageSchedule &s : f.stages) {
            const Internal::Definition &d = s.update < 0 ? function.definition() : function.update(s.update);
            s.loops.clear();
            for (const Internal::Dim &dim : d.schedule().dims()) {
                if (dim.var == Var::outermost().name()) continue;
                Loop l;
                l.name = dim.var.substr(dim.var.rfind('.') + 1);  // without the lineage ("k$x.k$x_o")
                l.rvar = dim.is_rvar();
                l.kind = dim.for_type == Internal::ForType::Vectorized ? LoopKind::Vectorized
                         : dim.for_type == Internal::ForType::Unrolled ? LoopKind::Unrolled
                         : dim.for_type == Internal::ForType::Parallel ? LoopKind::Parallel
                         : dim.for_type == Internal::ForType::GPUBlock ? LoopKind::GpuBlock
                         : dim.for_type == Internal::ForType::GPUThread ? LoopKind::GpuThread
                                                                        : LoopKind::Serial;
                s.loops.push_back(l);
            }
        }
    }
    return schedule_;
}

StageBuilder::StageBuilder(ScheduleBuilder &builder, const std::string &func, int update)
    : builder_(builder), func_(func), update_(update), block_(builder.blocks_++) {
    builder_.record(OpenStage{block_, func, update}, {func});
    builder_.stage_schedule(func, update);
}

StageBuilder::~StageBuilder() {
    builder_.record(CloseStage{block_}, {});
}

StageBuilder &StageBuilder::record(LoopDirective d) {
    builder_.stage_schedule(func_, update_).directives.push_back(d);
    builder_.record(StageDirective{block_, std::move(d)}, {});
    return *this;
}

StageBuilder &StageBuilder::split(const std::string &old, const std::string &outer, const std::string &inner,
                                  int factor, TailStrategy tail) {
    return record(Split{old, outer, inner, factor, tail});
}

StageBuilder &StageBuilder::fuse(const std::string &inner, const std::string &outer, const std::string &fused) {
    return record(Fuse{inner, outer, fused});
}

StageBuilder &StageBuilder::reorder(const std::vector<std::string> &inner_first) {
    return record(Reorder{inner_first});
}

StageBuilder &StageBuilder::vectorize(const std::string &var) {
    return record(MarkLoop{var, LoopKind::Vectorized});
}

StageBuilder &StageBuilder::unroll(const std::string &var) {
    return record(MarkLoop{var, LoopKind::Unrolled});
}

StageBuilder &StageBuilder::parallel(const std::string &var) {
    if (builder_.serial()) return *this;
    return record(MarkLoop{var, LoopKind::Parallel});
}

StageBuilder &StageBuilder::gpu_blocks(const std::string &var) {
    return record(MarkLoop{var, LoopKind::GpuBlock});
}

StageBuilder &StageBuilder::gpu_threads(const std::string &var) {
    return record(MarkLoop{var, LoopKind::GpuThread});
}

StageBuilder &StageBuilder::gpu_single_thread() {
    return record(GpuSingleThread{});
}

bool StageBuilder::prefetch_input(const std::string &input, const std::string &at, const std::string &from, int offset,
                                  bool guarded) {
    Internal::Parameter param;
    const std::string wrapper = builder_.sandbox_.input_wrapper(input, param);
    if (wrapper.empty()) return false;
    // Declared in the source inside this block, as the emitter's prefetch does.
    builder_.named_.insert(wrapper);
    record(PrefetchInput{input, at, from, offset, guarded});
    return true;
}

StageBuilder &StageBuilder::unscheduled() {
    return record(LeaveUnscheduled{});
}

}  // namespace tessera::schedule
