// The scheduler choices tests pass to check_op and schedule_pipeline, as typed
// values: the host's (its own target, built-in figures: no profile in the user's
// cache reaches a test) or a pinned machine's (its target and profile file).
#pragma once

#include "pinned_options.h"
#include "host_target.h"
#include "schedulers.h"

#include <Halide.h>

#include <string>
#include <thread>

namespace tessera::test {

// `scheduler` on this host: its target, every hardware thread, and the built-in
// figures or the profile file `profile`.
inline SchedulerChoice host_choice(const std::string &scheduler = "Tessera", const std::string &profile = "") {
    SchedulerChoice c;
    c.name = scheduler;
    c.target = tessera::hal::host_target();
    c.options.parallelism = int(std::max(1u, std::thread::hardware_concurrency()));
    if (!profile.empty()) c.options.device_profile = load_test_profile(profile);
    return c;
}

// `scheduler` for a pinned machine's target and profile (run on this host: the
// pinned targets are ones every x86-64 host here runs).
inline SchedulerChoice pinned_choice(const PinnedMachine &machine, const std::string &scheduler = "Tessera") {
    SchedulerChoice c;
    c.name = scheduler;
    c.target = Halide::Target(machine.target);
    c.options = pinned_options(machine);
    return c;
}

}  // namespace tessera::test
