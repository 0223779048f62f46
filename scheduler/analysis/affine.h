// Affine forms of index expressions: sum_j coef_j * loop_var_j + offset.
// Clamps against constants (boundary conditions) are seen through, since they
// only change which element is read at the border, not the tile footprint.
#pragma once

#include <Halide.h>

#include <map>
#include <optional>
#include <string>

namespace tessera::analysis {

struct AffineForm {
    std::map<std::string, int64_t> coef;  // loop variable name -> coefficient (zeros omitted)
    int64_t offset = 0;
    bool clamped = false;  // the whole index is clamped to constants (a boundary condition)
};

// nullopt when `e` is not affine in the loop variables (e.g. c / 4, or a data-dependent index).
std::optional<AffineForm> affine_form(const Halide::Expr &e);

}  // namespace tessera::analysis
