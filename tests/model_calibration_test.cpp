// The performance model's calibration (scheduler/hal/model_calibration.h): the fit
// recovers factors that made the measurements, rank agreement, the profile's JSON,
// and the tuning-log reader's errors.
#include "device_profile.h"
#include "model_calibration.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <random>

namespace {

using namespace tessera::hal;

ModelTerms terms(const std::string &family, double compute, double registers, double l1, double l2,
                 double overhead = 0, double efficiency = 1) {
    ModelTerms t;
    t.family = family;
    t.compute_ms = compute;
    t.registers_ms = registers;
    t.l1_ms = l1;
    t.l2_ms = l2;
    t.overhead_ms = overhead;
    t.parallel_efficiency = efficiency;
    return t;
}

TEST(ModelCalibration, TermsCombineAsTheModelDoes) {
    const ModelTerms t = terms("conv", 2, 1, 0.5, 3, 0.25, 0.5);
    // Uncalibrated: (max(2, 1, 0.5, 3) + 0.25) / 0.5.
    EXPECT_DOUBLE_EQ(calibrated_ms(t, FamilyCalibration{}), 6.5);
    FamilyCalibration f;
    f.compute = 2;
    f.l2 = 0.5;
    f.overhead = 4;
    EXPECT_DOUBLE_EQ(calibrated_ms(t, f), (4 + 1) / 0.5);
    // Another family's factors leave the stage alone.
    EXPECT_DOUBLE_EQ(calibrated_ms(t, ModelCalibration{{"matmul", f}}), 6.5);
    EXPECT_DOUBLE_EQ(calibrated_ms(t, ModelCalibration{{"conv", f}}), 10);
}

TEST(ModelCalibration, SpearmanRanksWithTies) {
    EXPECT_DOUBLE_EQ(spearman({1, 2, 3}, {10, 20, 30}), 1);
    EXPECT_DOUBLE_EQ(spearman({1, 2, 3}, {3, 2, 1}), -1);
    EXPECT_DOUBLE_EQ(spearman({1, 1, 1}, {1, 2, 3}), 0);
    EXPECT_DOUBLE_EQ(spearman({1}, {1}), 0);
    EXPECT_NEAR(spearman({1, 2, 2, 3}, {1, 2, 3, 4}), 0.9486832980505138, 1e-12);
}

// Partitions of random candidates whose measured times are the model's with `truth`
// for their family: what a machine that reaches a different share of each figure
// would measure.
std::vector<CalibrationSample> samples_measured_with(const ModelCalibration &truth, const std::string &family,
                                                     int partitions, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(0.1, 2.0);
    // Each term drawn so that, scaled by its true factor, it binds as often as the others
    // (a term that never binds cannot be fitted).
    const auto known = truth.find(family);
    const FamilyCalibration f = known == truth.end() ? FamilyCalibration{} : known->second;
    std::vector<CalibrationSample> out;
    for (int p = 0; p < partitions; p++) {
        CalibrationSample s;
        s.partition = family + std::to_string(p);
        for (int c = 0; c < 4; c++) {
            CalibrationCandidate cand;
            cand.name = "Tessera:" + std::to_string(c);
            cand.stages.push_back(terms(family, u(rng) / f.compute, u(rng) / f.registers, u(rng) / f.l1,
                                        u(rng) / f.l2, 0.1 * u(rng) / f.overhead, 0.8));
            cand.measured_ms = predicted_ms(cand, truth);
            s.candidates.push_back(cand);
        }
        out.push_back(s);
    }
    return out;
}

TEST(ModelCalibration, TheFitRecoversTheFactorsThatMadeTheMeasurements) {
    FamilyCalibration conv;
    conv.compute = 2;     // arithmetic at half the measured peak
    conv.registers = 1.5;
    conv.l2 = 0.5;        // the L2 faster than the profile says
    FamilyCalibration matmul;
    matmul.compute = 1.25;
    const ModelCalibration truth = {{"conv", conv}, {"matmul", matmul}};
    std::vector<CalibrationSample> samples = samples_measured_with(truth, "conv", 12, 1);
    const std::vector<CalibrationSample> more = samples_measured_with(truth, "matmul", 6, 2);
    samples.insert(samples.end(), more.begin(), more.end());
    // Two depthwise partitions: fewer than the fit needs.
    const std::vector<CalibrationSample> few = samples_measured_with(truth, "depthwise", 2, 3);
    samples.insert(samples.end(), few.begin(), few.end());

    const ModelCalibration fitted = fit_calibration(samples, 3);
    ASSERT_EQ(fitted.count("conv"), 1u);
    ASSERT_EQ(fitted.count("matmul"), 1u);
    EXPECT_EQ(fitted.count("depthwise"), 0u);
    EXPECT_EQ(fitted.at("conv").partitions, 12);
    // On the fit's grid (steps of 2^(1/8), 9%): within a step of the truth.
    EXPECT_NEAR(std::log2(fitted.at("conv").compute), std::log2(2.0), 0.13);
    EXPECT_NEAR(std::log2(fitted.at("conv").registers), std::log2(1.5), 0.13);
    EXPECT_NEAR(std::log2(fitted.at("conv").l2), std::log2(0.5), 0.13);
    EXPECT_NEAR(std::log2(fitted.at("matmul").compute), std::log2(1.25), 0.13);

    // The report: uncalibrated the conv times are off; calibrated they agree.
    auto conv_row = [](const std::vector<FamilyAgreement> &rows) {
        for (const FamilyAgreement &a : rows) {
            if (a.family == "conv") return a;
        }
        ADD_FAILURE() << "no conv row";
        return FamilyAgreement{};
    };
    const FamilyAgreement before = conv_row(model_agreement(samples, {}));
    const FamilyAgreement after = conv_row(model_agreement(samples, fitted));
    EXPECT_EQ(before.partitions, 12);
    EXPECT_EQ(before.candidates, 48);
    EXPECT_GT(std::abs(std::log(before.median_ratio)), std::log(1.1));  // more than 10% off
    EXPECT_NEAR(after.median_ratio, 1.0, 0.1);
    EXPECT_GT(after.rank_correlation, before.rank_correlation);
    EXPECT_GT(after.rank_correlation, 0.9);
    EXPECT_GE(after.best_found, before.best_found);
    EXPECT_NEAR(after.median_pick_over_best, 1.0, 0.05);
}

TEST(ModelCalibration, TheProfileCarriesItsCalibration) {
    DeviceProfile p = builtin_profile();
    const std::string uncalibrated = profile_fingerprint(p);
    EXPECT_EQ(figures_fingerprint(p), uncalibrated);
    FamilyCalibration f;
    f.compute = 1.5;
    f.partitions = 7;
    p.calibration["conv"] = f;
    // Schedules depend on the factors: another fingerprint; the measured figures keep theirs.
    EXPECT_NE(profile_fingerprint(p), uncalibrated);
    EXPECT_EQ(figures_fingerprint(p), uncalibrated);

    const std::string path = ::testing::TempDir() + "calibrated_profile.json";
    save_profile(p, path);
    std::string error;
    const std::optional<DeviceProfile> back = load_profile(path, &error);
    ASSERT_TRUE(back) << error;
    ASSERT_EQ(back->calibration.count("conv"), 1u);
    EXPECT_DOUBLE_EQ(back->calibration.at("conv").compute, 1.5);
    EXPECT_DOUBLE_EQ(back->calibration.at("conv").l2, 1);
    EXPECT_EQ(back->calibration.at("conv").partitions, 7);
    EXPECT_EQ(profile_fingerprint(*back), profile_fingerprint(p));

    // A factor that is not a positive number is refused, naming it.
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = text.find("\"compute\": 1.5");
    ASSERT_NE(at, std::string::npos) << text;
    text.replace(at, 14, "\"compute\": -2");
    std::ofstream(path) << text;
    EXPECT_FALSE(load_profile(path, &error));
    EXPECT_NE(error.find("factor 'compute' must be positive"), std::string::npos) << error;
}

TEST(ModelCalibration, TheLogReaderTakesTheFiguresRecordsAndNamesABadLine) {
    const std::string path = ::testing::TempDir() + "calibration_log.jsonl";
    const std::string stage = R"([{"family": "conv", "compute_ms": 1, "registers_ms": 0.5, "l1_ms": 0.2,)"
                              R"( "l2_ms": 0.1, "overhead_ms": 0, "parallel_efficiency": 1, "weight": 1}])";
    {
        std::ofstream out(path);
        // Measured under these figures; Mullapudi2016's candidate has no terms and is left out.
        out << R"({"partition": "p1", "ops": "Conv", "figures": "abc", "candidates": [)"
            << R"({"name": "Tessera:0", "measured_ms": 2, "stages": )" << stage << "},"
            << R"({"name": "Mullapudi2016", "measured_ms": 3}]})" << "\n";
        // Other figures; an older record without terms.
        out << R"({"partition": "p2", "figures": "other", "candidates": [{"name": "Tessera:0", "measured_ms": 2, "stages": )"
            << stage << "}]}\n";
        out << R"({"partition": "p3", "figures": "abc", "candidates": [{"name": "Tessera:0", "measured_ms": 2}]})" << "\n";
    }
    int skipped = 0;
    const std::vector<CalibrationSample> samples = read_calibration_samples(path, "abc", &skipped);
    ASSERT_EQ(samples.size(), 1u);
    EXPECT_EQ(samples[0].partition, "p1");
    ASSERT_EQ(samples[0].candidates.size(), 1u);
    EXPECT_EQ(samples[0].candidates[0].stages.at(0).family, "conv");
    EXPECT_DOUBLE_EQ(samples[0].candidates[0].measured_ms, 2);
    EXPECT_EQ(skipped, 2);

    std::ofstream(path, std::ios::app) << R"({"partition": "p4", "figures": "abc", "candidates": [{"name": "Tessera:0", )"
                                       << R"("measured_ms": 2, "stages": [{"family": "conv", "compute_ms": -1}]}]})" << "\n";
    try {
        read_calibration_samples(path, "abc", &skipped);
        ADD_FAILURE() << "a negative term was read";
    } catch (const std::runtime_error &e) {
        EXPECT_NE(std::string(e.what()).find(path + ":4: not a tuning record"), std::string::npos) << e.what();
    }
    EXPECT_THROW(read_calibration_samples(path + ".missing", "abc", &skipped), std::runtime_error);
}

}  // namespace
