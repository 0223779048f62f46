#include "pipeline_schedule.h"

#include <sstream>

namespace tessera::schedule {

const char *to_string(LoopKind k) {
    switch (k) {
    case LoopKind::Vectorized: return "vectorized";
    case LoopKind::Unrolled: return "unrolled";
    case LoopKind::Parallel: return "parallel";
    case LoopKind::GpuBlock: return "gpu_block";
    case LoopKind::GpuThread: return "gpu_thread";
    default: return "serial";
    }
}

const Loop *StageSchedule::loop(const std::string &name) const {
    for (const Loop &l : loops) {
        if (l.name == name) return &l;
    }
    return nullptr;
}

const Split *StageSchedule::split_of(const std::string &old_var) const {
    for (const LoopDirective &d : directives) {
        const Split *s = std::get_if<Split>(&d);
        if (s && s->old_var == old_var) return s;
    }
    return nullptr;
}

int StageSchedule::split_factor(const std::string &inner) const {
    for (const LoopDirective &d : directives) {
        const Split *s = std::get_if<Split>(&d);
        if (s && s->inner == inner) return s->factor;
    }
    return 0;
}

bool StageSchedule::prefetches() const {
    for (const LoopDirective &d : directives) {
        if (std::holds_alternative<PrefetchInput>(d)) return true;
    }
    return false;
}

std::string Placement::to_string() const {
    switch (kind) {
    case Kind::Root: return "root";
    case Kind::At: return consumer + "." + var;
    default: return "inline";
    }
}

const StageSchedule *FuncSchedule::stage(int update) const {
    for (const StageSchedule &s : stages) {
        if (s.update == update) return &s;
    }
    return nullptr;
}

FuncSchedule &PipelineSchedule::touch(const std::string &name) {
    for (FuncSchedule &f : funcs_) {
        if (f.name == name) return f;
    }
    funcs_.push_back(FuncSchedule{});
    funcs_.back().name = name;
    return funcs_.back();
}

const FuncSchedule *PipelineSchedule::func(const std::string &name) const {
    for (const FuncSchedule &f : funcs_) {
        if (f.name == name) return &f;
    }
    return nullptr;
}

const StageSchedule *PipelineSchedule::stage(const std::string &func_name, int update) const {
    const FuncSchedule *f = func(func_name);
    return f ? f->stage(update) : nullptr;
}

namespace {
const char *memory_name(Halide::MemoryType m) {
    switch (m) {
    case Halide::MemoryType::Stack: return "stack";
    case Halide::MemoryType::Register: return "registers";
    case Halide::MemoryType::Heap: return "heap";
    case Halide::MemoryType::GPUShared: return "GPU shared memory";
    default: return "";
    }
}
}  // namespace

std::string PipelineSchedule::describe() const {
    std::ostringstream s;
    for (const FuncSchedule &f : funcs_) {
        if (f.compute.kind == Placement::Kind::Inline && f.stages.empty() && f.bound_extents.empty() &&
            f.bounds.empty()) continue;
        s << "    " << f.name;
        if (f.origin == FuncSchedule::Origin::Wrapper) s << " (" << f.of << " copied for " << f.consumer << ")";
        if (f.origin == FuncSchedule::Origin::Rfactor) s << " (rfactor of " << f.of << ")";
        s << ": computed " << (f.compute.kind == Placement::Kind::Inline ? "" : "at ") << f.compute.to_string();
        if (f.store.kind != Placement::Kind::Inline) s << ", stored at " << f.store.to_string();
        if (memory_name(f.memory)[0]) s << ", in " << memory_name(f.memory);
        for (const auto &[var, extent] : f.bound_extents)
            s << ", " << var << " bound to " << extent;
        for (const auto &[var, region] : f.bounds)
            s << ", " << var << " bound to [" << region.first << ", " << region.first + region.second << ")";
        for (const auto &[var, align] : f.storage_alignment)
            s << ", " << var << " aligned to " << align;
        for (const auto &[var, extent] : f.storage_extents)
            s << ", " << var << " stored " << extent << " wide";
        if (!f.storage_order.empty()) {
            s << ", storage";
            for (const std::string &v : f.storage_order)
                s << " " << v;
        }
        s << "\n";
        for (const StageSchedule &st : f.stages) {
            s << "      " << (st.update < 0 ? "pure" : "update " + std::to_string(st.update)) << " loops:";
            for (auto it = st.loops.rbegin(); it != st.loops.rend(); ++it) {
                s << " " << it->name;
                if (it->kind != LoopKind::Serial) s << "(" << to_string(it->kind) << ")";
            }
            if (st.prefetches()) s << "; prefetches";
            s << "\n";
        }
    }
    return s.str();
}

}  // namespace tessera::schedule
