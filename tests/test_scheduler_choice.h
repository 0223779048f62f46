// The scheduler choices tests pass to check_op and schedule_pipeline, as typed
// values: the host's (its own target, built-in figures: no profile in the user's
// cache reaches a test) or a pinned machine's (its target and profile file).
#pragma once

#include "device_profile.h"
#include "pinned_machine.h"
#include "schedulers.h"

#include <Halide.h>

#include <stdexcept>
#include <string>
#include <thread>

namespace tessera::test {

// A profile file of tests/profiles (or any path), loaded; throws naming the file.
inline hal::DeviceProfile load_test_profile(const std::string &path) {
    std::string error;
    std::optional<hal::DeviceProfile> p = hal::load_profile(path, &error);
    if (!p) throw std::runtime_error(error);
    return *p;
}

// `scheduler` on this host: its target, every hardware thread, and the built-in
// figures or the profile file `profile`.
inline SchedulerChoice host_choice(const std::string &scheduler = "Tessera", const std::string &profile = "") {
    SchedulerChoice c;
    c.name = scheduler;
    c.target = Halide::get_host_target();
    c.options.parallelism = int(std::max(1u, std::thread::hardware_concurrency()));
    if (!profile.empty()) c.options.device_profile = load_test_profile(profile);
    return c;
}

// Tessera's options for a pinned machine: two threads and its profile (or `profile`).
inline SchedulerOptions pinned_options(const PinnedMachine &machine, const std::string &profile = "") {
    SchedulerOptions o;
    o.parallelism = 2;
    o.device_profile = load_test_profile(profile.empty() ? machine.profile : profile);
    return o;
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
