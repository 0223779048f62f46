#include "masked_boundary_loads.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace tessera::hal {

namespace {

using namespace Halide::Internal;
using Halide::Expr;

using VectorLets = std::map<std::string, Expr>;

// One lane of a vector expression, as a scalar in the lane's index `lane`: a ramp is
// base + stride * lane, a broadcast its value. `failed` where a lane cannot be
// written so (a load, a shuffle, a vector variable bound outside the select).
class OneLane : public IRMutator {
public:
    OneLane(Expr lane, const VectorLets &lets) : lane_(std::move(lane)), lets_(lets) {}
    bool failed = false;

    using IRMutator::mutate;
    using IRMutator::visit;

protected:
    Expr visit(const Ramp *op) override {
        if (op->base.type().is_vector()) return fail(op);
        return mutate(op->base) + mutate(op->stride) * lane_;
    }
    Expr visit(const Broadcast *op) override {
        if (op->value.type().is_vector()) return fail(op);
        return mutate(op->value);
    }
    Expr visit(const Variable *op) override {
        if (op->type.is_scalar()) return op;
        auto it = lets_.find(op->name);
        return it == lets_.end() ? fail(op) : mutate(it->second);
    }
    Expr visit(const Cast *op) override { return Cast::make(op->type.element_of(), mutate(op->value)); }
    Expr visit(const Load *op) override { return op->type.is_scalar() ? Expr(op) : fail(op); }
    Expr visit(const Call *op) override { return op->type.is_scalar() ? Expr(op) : fail(op); }
    Expr visit(const Shuffle *op) override { return fail(op); }
    Expr visit(const VectorReduce *op) override { return fail(op); }
    Expr visit(const Let *op) override { return op->value.type().is_scalar() ? IRMutator::visit(op) : fail(op); }

private:
    // A scalar of the lane's type keeps the enclosing nodes well-typed while they are
    // rebuilt; a failed lane is discarded.
    Expr fail(const BaseExprNode *op) {
        failed = true;
        return make_zero(op->type.element_of());
    }
    Expr lane_;
    const VectorLets &lets_;
};

// What holds on every lane a select's branch takes, one lane at a time: for the
// false branch the negation of each term of the condition's ||, for the true branch
// each term of its &&. A term whose lane cannot be written is left out (it only
// weakens what can be proved).
std::vector<Expr> lane_facts(const Expr &cond, bool branch_taken_when, const Expr &lane, const VectorLets &lets) {
    std::vector<Expr> terms, facts;
    std::vector<Expr> pending{cond};
    while (!pending.empty()) {
        Expr e = pending.back();
        pending.pop_back();
        const Or *o = e.as<Or>();
        const And *a = e.as<And>();
        if (!branch_taken_when && o) {
            pending.push_back(o->a);
            pending.push_back(o->b);
        } else if (branch_taken_when && a) {
            pending.push_back(a->a);
            pending.push_back(a->b);
        } else {
            terms.push_back(e);
        }
    }
    for (const Expr &t : terms) {
        OneLane one(lane, lets);
        Expr l = one.mutate(t);
        if (!one.failed) facts.push_back(branch_taken_when ? l : Not::make(l));
    }
    return facts;
}

// True where `target` (one lane) follows from one of the facts alone. One at a
// time: Halide's simplifier proves !F || T for a single fact where it misses the
// conjunction of all of them.
bool follows(const Expr &target, const std::vector<Expr> &facts) {
    for (const Expr &f : facts) {
        if (can_prove(Not::make(f) || target)) return true;
    }
    return false;
}

// A load index without the clamps that the facts prove inactive: min(R, hi) where
// R <= hi and max(R, lo) where R >= lo on the lanes taken, R the varying operand
// and the bound a broadcast.
class DropInactiveClamps : public IRMutator {
public:
    DropInactiveClamps(const std::vector<Expr> &facts, const Expr &lane, const VectorLets &lets)
        : facts_(facts), lane_(lane), lets_(lets) {}
    bool dropped = false;

    using IRMutator::mutate;
    using IRMutator::visit;

protected:
    Expr visit(const Min *op) override { return drop(mutate(op->a), mutate(op->b), true); }
    Expr visit(const Max *op) override { return drop(mutate(op->a), mutate(op->b), false); }

private:
    Expr drop(const Expr &a, const Expr &b, bool is_min) {
        const bool a_bound = a.as<Broadcast>() != nullptr, b_bound = b.as<Broadcast>() != nullptr;
        if (a.type().is_vector() && a_bound != b_bound) {
            const Expr &varying = a_bound ? b : a, &bound = a_bound ? a : b;
            OneLane one(lane_, lets_);
            const Expr v = one.mutate(varying), k = one.mutate(bound);
            if (!one.failed && follows(is_min ? v <= k : v >= k, facts_)) {
                dropped = true;
                return varying;
            }
        }
        return is_min ? Min::make(a, b) : Max::make(a, b);
    }
    const std::vector<Expr> &facts_;
    const Expr &lane_;
    const VectorLets &lets_;
};

// The loads of one branch of a select, lane for lane with it (not under a shuffle,
// a vector reduction or a call that changes the lane count).
class MaskBranchLoads : public IRMutator {
public:
    MaskBranchLoads(const std::vector<Expr> &facts, const Expr &mask, const Expr &lane, const VectorLets &lets)
        : facts_(facts), mask_(mask), lane_(lane), lets_(lets) {}

    using IRMutator::mutate;
    using IRMutator::visit;

protected:
    Expr visit(const Load *op) override {
        if (op->type.lanes() != mask_.type().lanes()) return op;
        DropInactiveClamps drop(facts_, lane_, lets_);
        const Expr index = drop.mutate(op->index);
        if (!drop.dropped) return op;
        const Expr dense = simplify(index);
        const Ramp *ramp = dense.as<Ramp>();
        if (!ramp || !is_const_one(ramp->stride)) return op;  // still a gather: leave it
        const Expr predicate = is_const_one(op->predicate) ? mask_ : (op->predicate && mask_);
        return Load::make(op->type, op->name, dense, op->image, op->param, predicate, ModulusRemainder());
    }
    Expr visit(const Shuffle *op) override { return op; }
    Expr visit(const VectorReduce *op) override { return op; }
    Expr visit(const Call *op) override {
        for (const Expr &arg : op->args) {
            if (arg.type().is_vector() && arg.type().lanes() != op->type.lanes()) return op;
        }
        return IRMutator::visit(op);
    }

private:
    const std::vector<Expr> &facts_;
    const Expr &mask_;
    const Expr &lane_;
    const VectorLets &lets_;
};

class MaskBoundaryLoads : public IRMutator {
    using IRMutator::visit;

    // Host code only: a GPU kernel's loads go through its own code generator
    // (OpenCL C takes no predicated loads).
    Stmt visit(const For *op) override {
        if (op->device_api != Halide::DeviceAPI::None && op->device_api != Halide::DeviceAPI::Host) return op;
        return IRMutator::visit(op);
    }

    Expr visit(const Select *op) override {
        const Expr cond = mutate(op->condition);
        Expr t = mutate(op->true_value), f = mutate(op->false_value);
        if (cond.type().is_vector()) {
            const Expr lane = Variable::make(Halide::Int(32), "tessera_lane");
            const std::vector<Expr> when_true = lane_facts(cond, true, lane, lets_);
            const std::vector<Expr> when_false = lane_facts(cond, false, lane, lets_);
            if (!when_true.empty()) t = MaskBranchLoads(when_true, cond, lane, lets_).mutate(t);
            if (!when_false.empty()) f = MaskBranchLoads(when_false, Not::make(cond), lane, lets_).mutate(f);
        }
        return Select::make(cond, t, f);
    }

    // Vector lets stay visible to the lanes of the selects under them.
    template<typename LetOrStmt, typename Body>
    Body under_let(const LetOrStmt *op) {
        if (op->value.type().is_scalar()) return IRMutator::visit(op);
        const auto shadowed = lets_.find(op->name);
        const Expr saved = shadowed == lets_.end() ? Expr() : shadowed->second;  // undefined: none
        const Expr value = mutate(op->value);
        lets_[op->name] = value;
        const Body body = mutate(op->body);
        if (saved.defined()) {
            lets_[op->name] = saved;
        } else {
            lets_.erase(op->name);
        }
        return LetOrStmt::make(op->name, value, body);
    }
    Expr visit(const Let *op) override { return under_let<Let, Expr>(op); }
    Stmt visit(const LetStmt *op) override { return under_let<LetStmt, Stmt>(op); }

    VectorLets lets_;
};

}  // namespace

Stmt mask_boundary_loads(const Stmt &s) { return MaskBoundaryLoads().mutate(s); }

IRMutator *new_masked_boundary_loads_pass() { return new MaskBoundaryLoads; }

}  // namespace tessera::hal
