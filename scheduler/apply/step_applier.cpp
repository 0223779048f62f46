#include "step_applier.h"

#include "diagnostics.h"

namespace tessera::apply {

using namespace tessera::schedule;

namespace {

template <class... Fs> struct Overloaded : Fs... { using Fs::operator()...; };
template <class... Fs> Overloaded(Fs...) -> Overloaded<Fs...>;

}  // namespace

StepApplier::StepApplier(ScheduleScript &script) : script_(script) {}

StepApplier::~StepApplier() = default;

void StepApplier::apply_directive(StageScript &s, const LoopDirective &directive) {
    std::visit(Overloaded{
                   [&](const Split &d) { s.split(d.old_var, d.outer, d.inner, d.factor, d.tail); },
                   [&](const Fuse &d) { s.fuse(d.inner, d.outer, d.fused); },
                   [&](const Reorder &d) { s.reorder(d.inner_first); },
                   [&](const MarkLoop &d) {
                       switch (d.kind) {
                       case LoopKind::Vectorized: s.vectorize(d.var); break;
                       case LoopKind::Unrolled: s.unroll(d.var); break;
                       case LoopKind::Parallel: s.parallel(d.var); break;
                       case LoopKind::GpuBlock: s.gpu_blocks(d.var); break;
                       case LoopKind::GpuThread: s.gpu_threads(d.var); break;
                       case LoopKind::Serial: break;
                       }
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

void StepApplier::apply(const Step &step) {
    ScheduleScript &script = script_;
    std::visit(Overloaded{
                   [&](const DeclareFunc &s) { script.func(s.func); },
                   [&](const ComputeRoot &s) { script.compute_root(s.func); },
                   [&](const ComputeAt &s) { script.compute_at(s.func, s.consumer, s.var); },
                   [&](const StoreAt &s) { script.store_at(s.func, s.consumer, s.var); },
                   [&](const Rfactor &s) { script.rfactor(s.func, s.update, s.rvar, s.new_var, s.result); },
                   [&](const Wrap &s) { script.wrap(s.func, s.consumer, s.result); },
                   [&](const BoundExtent &s) { script.bound_extent(s.func, s.var, s.extent); },
                   [&](const AlignStorage &s) { script.align_storage(s.func, s.var, s.align); },
                   [&](const Bound &s) { script.bound(s.func, s.var, s.min, s.extent); },
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
                       open_[s.block] = std::make_unique<StageScript>(script, s.func, script.func(s.func), s.update);
                   },
                   [&](const StageDirective &s) { apply_directive(*open_.at(s.block), s.directive); },
                   [&](const CloseStage &s) { open_.erase(s.block); },
               },
               step);
}

}  // namespace tessera::apply
