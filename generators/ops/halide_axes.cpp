#include "halide_axes.h"

#include <algorithm>

namespace tessera::ops {

std::vector<Halide::Var> logical_vars(size_t rank, const std::string &prefix) {
    std::vector<Halide::Var> vars;
    for (size_t i = 0; i < rank; i++) vars.emplace_back(prefix + std::to_string(i));
    return vars;
}

Halide::Expr at(const Halide::Func &f, const std::vector<Halide::Expr> &logical) {
    std::vector<Halide::Expr> args(logical.rbegin(), logical.rend());
    return Halide::Func(f)(args);
}

Halide::FuncRef ref(Halide::Func &f, const std::vector<Halide::Expr> &logical) {
    std::vector<Halide::Expr> args(logical.rbegin(), logical.rend());
    return f(args);
}

std::vector<Halide::Expr> as_exprs(const std::vector<Halide::Var> &vars) {
    return std::vector<Halide::Expr>(vars.begin(), vars.end());
}

Halide::Region halide_region(const Shape &logical) {
    Halide::Region region;
    for (auto it = logical.rbegin(); it != logical.rend(); ++it) {
        region.emplace_back(0, static_cast<int>(*it));
    }
    return region;
}

void set_static_extents(Halide::OutputImageParam buffer, const Shape &logical) {
    for (int d = 0; d < int(logical.size()); d++) buffer.dim(d).set_extent(int(logical[logical.size() - 1 - size_t(d)]));
}

void set_dense_strides(Halide::OutputImageParam buffer, const Shape &logical) {
    int stride = 1;
    for (int d = 0; d < int(logical.size()); d++) {
        buffer.dim(d).set_stride(stride);
        stride *= int(logical[logical.size() - 1 - size_t(d)]);
    }
}

Halide::Region image_bounds(bool nhwc, bool blocked, int64_t h, int64_t w) {
    const Halide::Range rh(0, int(h)), rw(0, int(w));
    if (blocked) return {Halide::Range(), rw, rh, Halide::Range(), Halide::Range()};
    return nhwc ? Halide::Region{Halide::Range(), rw, rh, Halide::Range()} : Halide::Region{rw, rh, Halide::Range(), Halide::Range()};
}

}  // namespace tessera::ops
