#include "affine.h"

namespace tessera::analysis {

using namespace Halide;
using namespace Halide::Internal;

namespace {

AffineForm scaled(AffineForm f, int64_t k) {
    for (auto &kv : f.coef) kv.second *= k;
    f.offset *= k;
    return f;
}

AffineForm sum(AffineForm a, const AffineForm &b, int64_t sign) {
    for (const auto &kv : b.coef) {
        a.coef[kv.first] += sign * kv.second;
        if (a.coef[kv.first] == 0) a.coef.erase(kv.first);
    }
    a.offset += sign * b.offset;
    return a;
}

std::optional<AffineForm> form(const Expr &e) {
    if (const int64_t *c = as_const_int(e)) return AffineForm{{}, *c};
    if (const Variable *v = e.as<Variable>()) {
        return AffineForm{{{v->name, 1}}, 0};
    }
    if (const Cast *c = e.as<Cast>()) {
        if (c->type.is_int() || c->type.is_uint()) return form(c->value);
        return std::nullopt;
    }
    if (const Add *a = e.as<Add>()) {
        auto l = form(a->a), r = form(a->b);
        if (l && r) return sum(*l, *r, 1);
        return std::nullopt;
    }
    if (const Sub *s = e.as<Sub>()) {
        auto l = form(s->a), r = form(s->b);
        if (l && r) return sum(*l, *r, -1);
        return std::nullopt;
    }
    if (const Mul *m = e.as<Mul>()) {
        if (const int64_t *k = as_const_int(m->b)) {
            if (auto l = form(m->a)) return scaled(*l, *k);
        }
        if (const int64_t *k = as_const_int(m->a)) {
            if (auto r = form(m->b)) return scaled(*r, *k);
        }
        return std::nullopt;
    }
    // Hints the boundary conditions wrap around indices change nothing.
    if (const Call *c = e.as<Call>()) {
        if (c->is_intrinsic(Call::likely) || c->is_intrinsic(Call::likely_if_innermost) ||
            c->is_intrinsic(Call::promise_clamped) || c->is_intrinsic(Call::unsafe_promise_clamped)) {
            return form(c->args[0]);
        }
        return std::nullopt;
    }
    // Boundary conditions clamp an affine index against constants.
    if (const Min *m = e.as<Min>()) {
        if (is_const(m->b)) return form(m->a);
        if (is_const(m->a)) return form(m->b);
        return std::nullopt;
    }
    if (const Max *m = e.as<Max>()) {
        if (is_const(m->b)) return form(m->a);
        if (is_const(m->a)) return form(m->b);
        return std::nullopt;
    }
    return std::nullopt;
}

}  // namespace

// Whether the outermost operation of an index (under likely()) clamps it to constants.
bool clamped_to_constants(const Expr &e) {
    if (const Call *c = e.as<Call>()) {
        if (c->is_intrinsic(Call::likely) || c->is_intrinsic(Call::likely_if_innermost)) {
            return clamped_to_constants(c->args[0]);
        }
    }
    if (const Max *m = e.as<Max>()) {
        const Min *inner = m->a.as<Min>();
        return is_const(m->b) && inner && is_const(inner->b);
    }
    if (const Min *m = e.as<Min>()) {
        const Max *inner = m->a.as<Max>();
        return is_const(m->b) && inner && is_const(inner->b);
    }
    return false;
}

std::optional<AffineForm> affine_form(const Expr &e) {
    Expr s = simplify(e);
    std::optional<AffineForm> f = form(s);
    if (f) f->clamped = clamped_to_constants(s);
    return f;
}

}  // namespace tessera::analysis
