// Tessera's options for a pinned machine (tests/pinned_machine.h) and the test
// profiles they load, without the apps' scheduler choices: for tests that call
// schedule_pipeline directly (the scheduler's and the graph layer's).
#pragma once

#include "device_profile.h"
#include "pinned_machine.h"
#include "scheduler_options.h"

#include <optional>
#include <stdexcept>
#include <string>

namespace tessera::test {

// A profile file of tests/profiles (or any path), loaded; throws naming the file.
inline hal::DeviceProfile load_test_profile(const std::string &path) {
    std::string error;
    std::optional<hal::DeviceProfile> p = hal::load_profile(path, &error);
    if (!p) throw std::runtime_error(error);
    return *p;
}

// Tessera's options for a pinned machine: two threads and its profile (or `profile`).
inline SchedulerOptions pinned_options(const PinnedMachine &machine, const std::string &profile = "") {
    SchedulerOptions o;
    o.parallelism = 2;
    o.device_profile = load_test_profile(profile.empty() ? machine.profile : profile);
    return o;
}

}  // namespace tessera::test
