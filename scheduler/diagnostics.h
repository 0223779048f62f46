// Halide's error macros for code outside libHalide (Halide.h undefines its short
// names at the end). User errors name the stage or output at fault; internal
// assertions guard the scheduler's own invariants.
#pragma once

#include <Halide.h>

#define user_assert(c) _halide_user_assert(c)
#define internal_assert(c) _halide_internal_assertion(c, 0)
#define internal_error Halide::Internal::ErrorReport(__FILE__, __LINE__, nullptr, 0)
#define user_error Halide::Internal::ErrorReport(__FILE__, __LINE__, nullptr, Halide::Internal::ErrorReport::User)
#define user_warning                                      \
    Halide::Internal::ErrorReport(__FILE__, __LINE__, nullptr, \
                                  Halide::Internal::ErrorReport::User | Halide::Internal::ErrorReport::Warning)
