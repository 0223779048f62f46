// What the command-line tools read from the environment, called from their main
// functions only: Tessera's scheduler options (TESSERA_*, options_from_environment.h),
// the thread count (TESSERA_NUM_THREADS), Halide's JIT target (HL_JIT_TARGET) and
// the measured pick of the JIT tools (TESSERA_MEASURE), the C++ compiler (CXX). Below main, everything
// takes these as values.
#pragma once

#include "schedulers.h"

namespace tessera {

// $TESSERA_NUM_THREADS, else every hardware thread.
int threads_from_environment();

// The scheduler `name` with the options and the JIT target the environment gives
// (TESSERA_* and HL_JIT_TARGET; threads: threads_from_environment()). Throws
// std::runtime_error or std::invalid_argument naming a malformed variable.
SchedulerChoice scheduler_choice_from_environment(const std::string &name);

// TESSERA_MEASURE=1: how many of Tessera's top rPrograms the JIT tools time to keep
// the fastest ($TESSERA_TOPK, default 4); 0 when unset or 0.
int measured_candidates_from_environment();

// $CXX, else "c++": what compiles a compiled model's generated wrapper.
std::string cxx_from_environment();

}  // namespace tessera
