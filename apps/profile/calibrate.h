// tessera-profile --calibrate: fits the performance model's factors to the
// candidates `tessera compile --tune` measured (its tuning logs) and writes them into
// the device profile, reporting per program family how well the model ranks and
// scales the measured candidates before and after.
#pragma once

#include <string>
#include <vector>

namespace tessera::profile {

struct CalibrateSettings {
    std::string profile_path;       // the profile the logs were measured under; rewritten with the factors
    std::vector<std::string> logs;  // tuning logs (JSON Lines)
    int min_partitions = 3;         // a family with fewer measured partitions stays uncalibrated
    bool write = true;              // false: report only
};

// Exit status: 0 written (or reported), 1 nothing to fit or the profile cannot be
// written, 2 a missing or malformed profile or log (the message names it).
int calibrate(const CalibrateSettings &settings);

}  // namespace tessera::profile
