#include "emit_schedule.h"

#include "diagnostics.h"
#include "schedule_script.h"

#include <map>
#include <memory>

namespace tessera::apply {

using namespace tessera::schedule;

namespace {

template <class... Fs> struct Overloaded : Fs... { using Fs::operator()...; };
template <class... Fs> Overloaded(Fs...) -> Overloaded<Fs...>;

void emit_directive(StageScript &s, const LoopDirective &directive) {
    std::visit(Overloaded{
                   [&](const Split &d) { s.split(d.old_var, d.outer, d.inner, d.factor, d.tail); },
                   [&](const Fuse &d) { s.fuse(d.inner, d.outer, d.fused); },
                   [&](const Reorder &d) { s.reorder(d.inner_first); },
                   [&](const MarkLoop &d) {
                       if (d.kind == LoopKind::Vectorized) s.vectorize(d.var);
                       if (d.kind == LoopKind::Unrolled) s.unroll(d.var);
                       if (d.kind == LoopKind::Parallel) s.parallel(d.var);
                       if (d.kind == LoopKind::GpuBlock) s.gpu_blocks(d.var);
                       if (d.kind == LoopKind::GpuThread) s.gpu_threads(d.var);
                   },
                   [&](const PrefetchInput &d) {
                       const bool found = s.prefetch_input(d.input, d.at, d.from, d.offset, d.guarded);
                       internal_assert(found) << "no Function wraps prefetched input " << d.input << "\n";
                   },
                   [&](const LeaveUnscheduled &) { s.unscheduled(); },
                   [&](const GpuSingleThread &) { s.gpu_single_thread(); },
               },
               directive);
}

}  // namespace

std::string emit_schedule(const PipelineSchedule &schedule, const std::vector<Halide::Internal::Function> &order) {
    ScheduleScript script(order);
    std::map<int, std::unique_ptr<StageScript>> open;
    for (const Step &step : schedule.steps()) {
        std::visit(Overloaded{
                       [&](const DeclareFunc &s) { script.func(s.func); },
                       [&](const ComputeRoot &s) { script.compute_root(s.func); },
                       [&](const ComputeAt &s) { script.compute_at(s.func, s.consumer, s.var); },
                       [&](const StoreAt &s) { script.store_at(s.func, s.consumer, s.var); },
                       [&](const Rfactor &s) { script.rfactor(s.func, s.update, s.rvar, s.new_var, s.result); },
                       [&](const Wrap &s) { script.wrap(s.func, s.consumer, s.result); },
                       [&](const BoundExtent &s) { script.bound_extent(s.func, s.var, s.extent); },
                       [&](const AlignStorage &s) { script.align_storage(s.func, s.var, s.align); },
                       [&](const BoundStorage &s) { script.bound_storage(s.func, s.var, s.extent); },
                       [&](const StoreIn &s) {
                           if (s.memory == Halide::MemoryType::Register)
                               script.store_in_registers(s.func);
                           else if (s.memory == Halide::MemoryType::GPUShared)
                               script.store_in_shared(s.func);
                           else
                               script.store_on_stack(s.func);
                       },
                       [&](const ReorderStorage &s) { script.reorder_storage(s.func, s.inner_first); },
                       [&](const OpenStage &s) {
                           open[s.block] = std::make_unique<StageScript>(script, s.func, script.func(s.func), s.update);
                       },
                       [&](const StageDirective &s) { emit_directive(*open.at(s.block), s.directive); },
                       [&](const CloseStage &s) { open.erase(s.block); },
                   },
                   step);
    }
    internal_assert(open.empty()) << "a stage block of the schedule was never closed\n";
    return script.source();
}

}  // namespace tessera::apply
