#include "schedule_script.h"
#include "diagnostics.h"

namespace tessera::apply {

using namespace Halide;

namespace {
std::string tail_name(TailStrategy t) {
    switch (t) {
    case TailStrategy::RoundUp: return "TailStrategy::RoundUp";
    case TailStrategy::GuardWithIf: return "TailStrategy::GuardWithIf";
    case TailStrategy::ShiftInwards: return "TailStrategy::ShiftInwards";
    default: return "TailStrategy::Auto";
    }
}
}  // namespace

std::string ScheduleScript::ident(const std::string &name) {
    std::string s;
    for (char c : name) s += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "v_" + s;
    return s;
}

ScheduleScript::ScheduleScript(const std::vector<Internal::Function> &order) {
    for (size_t i = 0; i < order.size(); i++) {
        by_name_[order[i].name()] = order[i];
        index_[order[i].name()] = int(i);
    }
}

Func ScheduleScript::func(const std::string &name) {
    auto h = handles_.find(name);
    if (h != handles_.end()) return h->second;
    auto f = by_name_.find(name);
    internal_assert(f != by_name_.end()) << "no Function " << name << " in the pipeline\n";
    Func handle(f->second);
    handles_[name] = handle;
    declared_.insert(ident(name));
    body_ << "Func " << ident(name) << " = pipeline.get_func(" << index_.at(name) << ");\n";
    return handle;
}

void ScheduleScript::declare_var(const std::string &name, bool rvar, const std::string &init) {
    std::string id = ident(name);
    if (declared_.count(id)) return;
    declared_.insert(id);
    if (!init.empty()) {
        body_ << (rvar ? "RVar " : "Var ") << id << "(" << init << ");\n";
    } else {
        body_ << (rvar ? "RVar " : "Var ") << id << "(\"" << name << "\");\n";
    }
}

void ScheduleScript::compute_root(const std::string &f) {
    func(f).compute_root();
    statement(ident(f) + ".compute_root();");
}

void ScheduleScript::compute_at(const std::string &f, const std::string &consumer, const std::string &var) {
    Func c = func(consumer);
    // The loop may be a pure var or an RVar of the consumer's last stage.
    bool is_rvar = false;
    for (const auto &d : c.function().updates().empty() ? std::vector<Internal::Dim>{}
                                                        : c.function().updates().back().schedule().dims()) {
        if (d.var == var) is_rvar = d.is_rvar();
    }
    if (is_rvar) {
        func(f).compute_at(c, RVar(var));
    } else {
        func(f).compute_at(c, Var(var));
    }
    declare_var(var, is_rvar);
    statement(ident(f) + ".compute_at(" + ident(consumer) + ", " + ident(var) + ");");
}

void ScheduleScript::store_at(const std::string &f, const std::string &consumer, const std::string &var) {
    func(f).store_at(func(consumer), Var(var));
    declare_var(var, false);
    statement(ident(f) + ".store_at(" + ident(consumer) + ", " + ident(var) + ");");
}

void ScheduleScript::rfactor(const std::string &f, int update, const std::string &rvar, const std::string &new_var,
                             const std::string &result) {
    Func intm = func(f).update(update).rfactor(RVar(rvar), Var(new_var));
    handles_[result] = intm;
    by_name_[result] = intm.function();
    declare_var(rvar, true);
    declare_var(new_var, false);
    declared_.insert(ident(result));
    statement("Func " + ident(result) + " = " + ident(f) + ".update(" + std::to_string(update) + ").rfactor(" +
              ident(rvar) + ", " + ident(new_var) + ");");
}

void ScheduleScript::wrap(const std::string &f, const std::string &consumer, const std::string &result) {
    Func w = consumer.empty() ? func(f).in() : func(f).in(func(consumer));
    handles_[result] = w;
    by_name_[result] = w.function();
    declared_.insert(ident(result));
    statement("Func " + ident(result) + " = " + ident(f) + ".in(" + (consumer.empty() ? "" : ident(consumer)) + ");");
}

void ScheduleScript::bound_extent(const std::string &f, const std::string &var, int extent) {
    func(f).bound_extent(Var(var), extent);
    declare_var(var, false);
    statement(ident(f) + ".bound_extent(" + ident(var) + ", " + std::to_string(extent) + ");");
}

void ScheduleScript::bound(const std::string &f, const std::string &var, int min, int extent) {
    func(f).bound(Var(var), min, extent);
    declare_var(var, false);
    statement(ident(f) + ".bound(" + ident(var) + ", " + std::to_string(min) + ", " + std::to_string(extent) + ");");
}

void ScheduleScript::align_storage(const std::string &f, const std::string &var, int align) {
    func(f).align_storage(Var(var), align);
    declare_var(var, false);
    statement(ident(f) + ".align_storage(" + ident(var) + ", " + std::to_string(align) + ");");
}

void ScheduleScript::bound_storage(const std::string &f, const std::string &var, int extent) {
    func(f).bound_storage(Var(var), extent);
    declare_var(var, false);
    statement(ident(f) + ".bound_storage(" + ident(var) + ", " + std::to_string(extent) + ");");
}

void ScheduleScript::store_on_stack(const std::string &f) {
    func(f).store_in(MemoryType::Stack);
    statement(ident(f) + ".store_in(MemoryType::Stack);");
}

void ScheduleScript::store_in_registers(const std::string &f) {
    func(f).store_in(MemoryType::Register);
    statement(ident(f) + ".store_in(MemoryType::Register);");
}

void ScheduleScript::store_in_shared(const std::string &f) {
    func(f).store_in(MemoryType::GPUShared);
    statement(ident(f) + ".store_in(MemoryType::GPUShared);");
}

void ScheduleScript::reorder_storage(const std::string &f, const std::vector<std::string> &inner_first) {
    std::vector<Var> vars;
    std::string args;
    for (const std::string &v : inner_first) {
        vars.push_back(Var(v));
        declare_var(v, false);
        args += (args.empty() ? "" : ", ") + ident(v);
    }
    func(f).reorder_storage(vars);
    statement(ident(f) + ".reorder_storage(" + args + ");");
}

std::string ScheduleScript::input_wrapper(const std::string &input, Internal::Parameter &param) {
    for (const auto &[name, function] : by_name_) {
        if (!function.is_pure() || function.values().size() != 1) continue;
        const Internal::Call *c = function.values()[0].as<Internal::Call>();
        if (!c || c->call_type != Internal::Call::Image || !c->param.defined() || c->name != input) continue;
        param = c->param;
        func(name);
        return name;
    }
    return "";
}

std::string ScheduleScript::source() const {
    return body_.str();
}

StageScript::StageScript(ScheduleScript &script, const std::string &name, Func func, int update)
    : script_(script), func_(func), update_(update) {
    if (update >= 0) {
        stage_ = func.update(update);
        const auto &rvars = func.function().update(update).schedule().rvars();
        for (size_t i = 0; i < rvars.size(); i++) {
            rvars_.insert(rvars[i].var);
            script_.declare_var(rvars[i].var, true,
                                ScheduleScript::ident(name) + ".update(" + std::to_string(update) +
                                    ").get_schedule().rvars()[" + std::to_string(i) + "].var");
        }
        // Loops split from a reduction variable before (an rfactor intermediate
        // copies them from the stage it came from) are reduction loops too, named
        // by their lineage ("k$x.k$x_i"): their pieces must be RVars.
        for (const Halide::Internal::Dim &d : func.function().update(update).schedule().dims()) {
            if (d.is_rvar()) rvars_.insert(d.var.substr(d.var.rfind('.') + 1));
        }
    }
    text_ << ScheduleScript::ident(name);
    if (update >= 0) text_ << ".update(" << update << ")";
}

StageScript::~StageScript() {
    if (any_) script_.statement(text_.str() + ";");
}

VarOrRVar StageScript::handle(const std::string &name) {
    bool r = rvars_.count(name) > 0;
    script_.declare_var(name, r);
    return r ? VarOrRVar(RVar(name)) : VarOrRVar(Var(name));
}

void StageScript::emit(const std::string &call) {
    text_ << "\n    ." << call;
    any_ = true;
}

StageScript &StageScript::split(const std::string &old, const std::string &outer, const std::string &inner,
                                int factor, TailStrategy tail) {
    if (rvars_.count(old)) {
        rvars_.insert(outer);
        rvars_.insert(inner);
    }
    VarOrRVar o = handle(old), po = handle(outer), pi = handle(inner);
    if (update_ < 0) {
        func_.split(o, po, pi, factor, tail);
    } else {
        stage_->split(o, po, pi, factor, tail);
    }
    emit("split(" + ScheduleScript::ident(old) + ", " + ScheduleScript::ident(outer) + ", " +
         ScheduleScript::ident(inner) + ", " + std::to_string(factor) + ", " + tail_name(tail) + ")");
    return *this;
}

StageScript &StageScript::fuse(const std::string &inner, const std::string &outer, const std::string &fused) {
    VarOrRVar i = handle(inner), o = handle(outer), f = handle(fused);
    if (update_ < 0) {
        func_.fuse(i, o, f);
    } else {
        stage_->fuse(i, o, f);
    }
    emit("fuse(" + ScheduleScript::ident(inner) + ", " + ScheduleScript::ident(outer) + ", " +
         ScheduleScript::ident(fused) + ")");
    return *this;
}

StageScript &StageScript::reorder(const std::vector<std::string> &inner_first) {
    std::vector<VarOrRVar> vars;
    std::string args;
    for (const std::string &v : inner_first) {
        vars.push_back(handle(v));
        args += (args.empty() ? "" : ", ") + ScheduleScript::ident(v);
    }
    if (update_ < 0) {
        func_.reorder(vars);
    } else {
        stage_->reorder(vars);
    }
    emit("reorder(" + args + ")");
    return *this;
}

StageScript &StageScript::loop_directive(const std::string &directive, const std::string &var) {
    VarOrRVar v = handle(var);
    // The same directive on a Func (its pure stage) or on one of its updates.
    if (directive == "vectorize") {
        update_ < 0 ? (void)func_.vectorize(v) : (void)stage_->vectorize(v);
    } else if (directive == "unroll") {
        update_ < 0 ? (void)func_.unroll(v) : (void)stage_->unroll(v);
    } else if (directive == "gpu_blocks") {
        update_ < 0 ? (void)func_.gpu_blocks(v) : (void)stage_->gpu_blocks(v);
    } else if (directive == "gpu_threads") {
        update_ < 0 ? (void)func_.gpu_threads(v) : (void)stage_->gpu_threads(v);
    } else {
        internal_assert(directive == "parallel") << directive;
        update_ < 0 ? (void)func_.parallel(v) : (void)stage_->parallel(v);
    }
    emit(directive + "(" + ScheduleScript::ident(var) + ")");
    return *this;
}

bool StageScript::prefetch_input(const std::string &input, const std::string &at, const std::string &from,
                                 int offset, bool guarded) {
    Internal::Parameter param;
    const std::string wrapper = script_.input_wrapper(input, param);
    if (wrapper.empty()) return false;
    const VarOrRVar a = handle(at), f = handle(from);
    const PrefetchBoundStrategy strategy = guarded ? PrefetchBoundStrategy::GuardWithIf : PrefetchBoundStrategy::NonFaulting;
    if (update_ < 0) {
        func_.prefetch(param, a, f, offset, strategy);
    } else {
        stage_->prefetch(param, a, f, offset, strategy);
    }
    emit("prefetch(" + ScheduleScript::ident(wrapper) + ".value().as<::Halide::Internal::Call>()->param, " +
         ScheduleScript::ident(at) + ", " + ScheduleScript::ident(from) + ", " + std::to_string(offset) + ", ::Halide::PrefetchBoundStrategy::" +
         (guarded ? "GuardWithIf" : "NonFaulting") + ")");
    return true;
}

StageScript &StageScript::vectorize(const std::string &var) {
    return loop_directive("vectorize", var);
}

StageScript &StageScript::unroll(const std::string &var) {
    return loop_directive("unroll", var);
}

StageScript &StageScript::unscheduled() {
    internal_assert(update_ >= 0) << "only updates can be left unscheduled\n";
    stage_->unscheduled();
    emit("unscheduled()");
    return *this;
}

StageScript &StageScript::parallel(const std::string &var) {
    return loop_directive("parallel", var);
}

}  // namespace tessera::apply

namespace tessera::apply {

StageScript &StageScript::gpu_blocks(const std::string &var) {
    return loop_directive("gpu_blocks", var);
}

StageScript &StageScript::gpu_threads(const std::string &var) {
    return loop_directive("gpu_threads", var);
}

StageScript &StageScript::gpu_single_thread() {
    update_ < 0 ? (void)func_.gpu_single_thread() : (void)stage_->gpu_single_thread();
    emit("gpu_single_thread()");
    return *this;
}

}  // namespace tessera::apply
