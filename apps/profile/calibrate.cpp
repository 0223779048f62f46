#include "calibrate.h"

#include "device_profile.h"
#include "model_calibration.h"

#include <cstdio>
#include <map>
#include <stdexcept>

namespace tessera::profile {

namespace {

void print_agreement(const std::vector<hal::FamilyAgreement> &before, const std::vector<hal::FamilyAgreement> &after) {
    std::map<std::string, hal::FamilyAgreement> fitted;
    for (const hal::FamilyAgreement &a : after) fitted[a.family] = a;
    std::printf("  %-10s %5s %6s  %-15s %-15s %-15s %-15s\n", "family", "parts", "cands", "rank corr.",
                "predicted/meas", "best found", "pick/best");
    auto pair = [](double a, double b, const char *format) {
        char one[16], two[16], out[40];
        std::snprintf(one, sizeof one, format, a);
        std::snprintf(two, sizeof two, format, b);
        std::snprintf(out, sizeof out, "%s -> %s", one, two);
        return std::string(out);
    };
    for (const hal::FamilyAgreement &b : before) {
        const hal::FamilyAgreement &a = fitted[b.family];
        std::printf("  %-10s %5d %6d  %-15s %-15s %-15s %-15s\n", b.family.c_str(), b.partitions, b.candidates,
                    pair(b.rank_correlation, a.rank_correlation, "%.2f").c_str(),
                    pair(b.median_ratio, a.median_ratio, "%.2f").c_str(),
                    pair(100 * b.best_found, 100 * a.best_found, "%.0f%%").c_str(),
                    pair(b.median_pick_over_best, a.median_pick_over_best, "%.3f").c_str());
    }
}

}  // namespace

int calibrate(const CalibrateSettings &s) {
    std::string why;
    std::optional<hal::DeviceProfile> profile = hal::load_profile(s.profile_path, &why);
    if (!profile) {
        std::fprintf(stderr, "tessera-profile: %s (calibrate the profile the tuning logs were measured under; "
                             "write one with tessera-profile first)\n", why.c_str());
        return 2;
    }
    const std::string figures = hal::figures_fingerprint(*profile);
    std::vector<hal::CalibrationSample> samples;
    for (const std::string &log : s.logs) {
        int skipped = 0;
        try {
            std::vector<hal::CalibrationSample> more = hal::read_calibration_samples(log, figures, &skipped);
            std::printf("tessera-profile: %s: %zu measured partition(s)%s\n", log.c_str(), more.size(),
                        skipped ? (", " + std::to_string(skipped) + " record(s) of other device figures or "
                                   "without the model's terms skipped").c_str() : "");
            samples.insert(samples.end(), more.begin(), more.end());
        } catch (const std::exception &e) {
            std::fprintf(stderr, "tessera-profile: %s\n", e.what());
            return 2;
        }
    }
    if (samples.empty()) {
        std::fprintf(stderr, "tessera-profile: no tuning record in the log(s) was measured under %s (figures %s): "
                             "run `tessera compile --tune` with this profile first\n",
                     s.profile_path.c_str(), figures.c_str());
        return 1;
    }
    const hal::ModelCalibration fitted = hal::fit_calibration(samples, s.min_partitions);
    std::printf("the model against the measurements, uncalibrated -> calibrated (rank corr.: Spearman's within a "
                "partition; pick/best: the predicted best's time over the measured best's, median):\n");
    print_agreement(hal::model_agreement(samples, {}), hal::model_agreement(samples, fitted));
    std::printf("factors (compute, registers, L1, L2, overhead):\n");
    for (const auto &[family, f] : fitted) {
        std::printf("  %-10s %.3f %.3f %.3f %.3f %.3f (%d partitions)\n", family.c_str(), f.compute, f.registers, f.l1,
                    f.l2, f.overhead, f.partitions);
    }
    for (const hal::FamilyAgreement &a : hal::model_agreement(samples, {})) {
        if (!fitted.count(a.family)) {
            std::printf("  %-10s uncalibrated: %d partition(s), fewer than %d\n", a.family.c_str(), a.partitions,
                        s.min_partitions);
        }
    }
    if (!s.write) return 0;
    profile->calibration = fitted;
    try {
        hal::save_profile(*profile, s.profile_path);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tessera-profile: %s\n", e.what());
        return 1;
    }
    std::printf("wrote %s (fingerprint %s; tuning logs keyed to the old one are not reused)\n",
                s.profile_path.c_str(), hal::profile_fingerprint(*profile).c_str());
    return 0;
}

}  // namespace tessera::profile
