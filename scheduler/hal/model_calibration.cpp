#include "model_calibration.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <numeric>
#include <stdexcept>

namespace tessera::hal {

double calibrated_ms(const ModelTerms &t, const FamilyCalibration &f) {
    const double bound = std::max({t.compute_ms * f.compute, t.registers_ms * f.registers, t.l1_ms * f.l1,
                                   t.l2_ms * f.l2});
    return (bound + t.overhead_ms * f.overhead) / std::max(1e-9, t.parallel_efficiency);
}

FamilyCalibration family_factors(const ModelCalibration &calibration, const std::string &family) {
    const auto it = calibration.find(family);
    return it == calibration.end() ? FamilyCalibration{} : it->second;
}

double calibrated_ms(const ModelTerms &t, const ModelCalibration &calibration) {
    return calibrated_ms(t, family_factors(calibration, t.family));
}

double predicted_ms(const CalibrationCandidate &c, const ModelCalibration &calibration) {
    double ms = 0;
    for (const ModelTerms &t : c.stages) ms += t.weight * calibrated_ms(t, calibration);
    return ms;
}

std::string sample_family(const CalibrationSample &s) {
    if (s.candidates.empty() || s.candidates[0].stages.empty()) return "";
    const std::vector<ModelTerms> &stages = s.candidates[0].stages;
    auto heavier = [](const ModelTerms &a, const ModelTerms &b) {
        return a.weight * calibrated_ms(a, FamilyCalibration{}) < b.weight * calibrated_ms(b, FamilyCalibration{});
    };
    return std::max_element(stages.begin(), stages.end(), heavier)->family;
}

namespace {

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const size_t m = v.size() / 2;
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Weight of the pick's loss, per candidate of the partition: log(1.1) of a pick 10%
// slower than the best then costs about as much as a candidate predicted 2x off.
constexpr double kPickWeight = 4;
// Per partition and squared log factor: a factor of 2 costs 0.005 per partition,
// against ~0.5 per candidate that it is 2x off.
constexpr double kFactorPrior = 0.01;

// The log of the measured time of the candidate `calibration` predicts fastest over
// the fastest measured: what the untuned construction loses to a tuned one.
double pick_loss(const CalibrationSample &s, const ModelCalibration &calibration) {
    size_t pick = 0;
    double best_predicted = predicted_ms(s.candidates[0], calibration), best = s.candidates[0].measured_ms;
    for (size_t c = 1; c < s.candidates.size(); c++) {
        const double p = predicted_ms(s.candidates[c], calibration);
        if (p < best_predicted) {
            best_predicted = p;
            pick = c;
        }
        best = std::min(best, s.candidates[c].measured_ms);
    }
    return std::log(s.candidates[pick].measured_ms / best);
}

// The fit's loss: each candidate's log ratio of predicted to measured time, its log
// time relative to its partition's first candidate, predicted against measured (the
// order inside a partition, which a scale alone cannot fix), and the pick's loss.
double loss(const std::vector<const CalibrationSample *> &samples, const ModelCalibration &calibration) {
    double sum = 0;
    for (const CalibrationSample *s : samples) {
        const double p0 = std::log(predicted_ms(s->candidates[0], calibration));
        const double m0 = std::log(s->candidates[0].measured_ms);
        for (const CalibrationCandidate &c : s->candidates) {
            const double p = std::log(predicted_ms(c, calibration)), m = std::log(c.measured_ms);
            sum += (p - m) * (p - m) + ((p - p0) - (m - m0)) * ((p - p0) - (m - m0));
        }
        sum += kPickWeight * double(s->candidates.size()) * pick_loss(*s, calibration);
    }
    // A pull towards 1 (the model as built), far weaker than any measured effect: a
    // term that never binds in the data stays where it was instead of drifting to the
    // grid's end wherever rounding makes a flat loss lean.
    for (const auto &[family, f] : calibration) {
        double squares = 0;
        for (double factor : {f.compute, f.registers, f.l1, f.l2, f.overhead}) squares += std::log(factor) * std::log(factor);
        sum += kFactorPrior * double(f.partitions) * squares;
    }
    return sum;
}

// The picks' loss of one family's partitions.
double family_pick_loss(const std::vector<const CalibrationSample *> &samples, const std::string &family,
                        const ModelCalibration &calibration) {
    double sum = 0;
    for (const CalibrationSample *s : samples) {
        if (sample_family(*s) == family) sum += pick_loss(*s, calibration);
    }
    return sum;
}

bool usable(const CalibrationSample &s) {
    if (s.candidates.empty()) return false;
    for (const CalibrationCandidate &c : s.candidates) {
        if (c.stages.empty() || !(c.measured_ms > 0) || !(predicted_ms(c, {}) > 0)) return false;
    }
    return true;
}

}  // namespace

ModelCalibration fit_calibration(const std::vector<CalibrationSample> &samples, int min_partitions) {
    std::vector<const CalibrationSample *> used;
    std::map<std::string, int> partitions;
    for (const CalibrationSample &s : samples) {
        if (!usable(s)) continue;
        used.push_back(&s);
        partitions[sample_family(s)]++;
    }
    ModelCalibration calibration;
    for (const auto &[family, n] : partitions) {
        if (n >= min_partitions && !family.empty()) calibration[family].partitions = n;
    }
    // Factors on a grid of powers of 2^(1/8) from 1/16 to 16; every term of every
    // family in turn takes the grid point of least loss, until a sweep changes nothing.
    std::vector<double> grid;
    for (int k = -32; k <= 32; k++) grid.push_back(std::pow(2.0, k / 8.0));
    for (int sweep = 0; sweep < 20; sweep++) {
        bool changed = false;
        for (auto &[family, f] : calibration) {
            for (double *factor : {&f.compute, &f.registers, &f.l1, &f.l2, &f.overhead}) {
                const double was = *factor;
                double best = was, best_loss = loss(used, calibration);
                for (double g : grid) {
                    *factor = g;
                    const double l = loss(used, calibration);
                    if (l < best_loss - 1e-12) {
                        best_loss = l;
                        best = g;
                    }
                }
                *factor = best;
                changed = changed || best != was;
            }
        }
        if (!changed) break;
    }
    // A family whose fitted factors pick worse than the model as built keeps its order:
    // one factor on every term, the median ratio of measured to predicted time.
    for (auto &[family, f] : calibration) {
        if (family_pick_loss(used, family, calibration) <= family_pick_loss(used, family, {}) + 1e-9) continue;
        std::vector<double> ratios;
        for (const CalibrationSample *s : used) {
            if (sample_family(*s) != family) continue;
            for (const CalibrationCandidate &c : s->candidates) ratios.push_back(c.measured_ms / predicted_ms(c, {}));
        }
        const double scale = median(ratios);
        const int partitions = f.partitions;
        f = FamilyCalibration{scale, scale, scale, scale, scale, partitions};
    }
    return calibration;
}

double spearman(const std::vector<double> &a, const std::vector<double> &b) {
    const size_t n = a.size();
    if (n < 2 || b.size() != n) return 0;
    auto ranks = [n](const std::vector<double> &v) {
        std::vector<size_t> order(n);
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](size_t x, size_t y) { return v[x] < v[y]; });
        std::vector<double> r(n);
        for (size_t i = 0; i < n;) {
            size_t j = i;
            while (j + 1 < n && v[order[j + 1]] == v[order[i]]) j++;
            for (size_t k = i; k <= j; k++) r[order[k]] = (double(i) + double(j)) / 2;
            i = j + 1;
        }
        return r;
    };
    const std::vector<double> ra = ranks(a), rb = ranks(b);
    const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / double(n);
    const double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / double(n);
    double cov = 0, va = 0, vb = 0;
    for (size_t i = 0; i < n; i++) {
        cov += (ra[i] - ma) * (rb[i] - mb);
        va += (ra[i] - ma) * (ra[i] - ma);
        vb += (rb[i] - mb) * (rb[i] - mb);
    }
    return va > 0 && vb > 0 ? cov / std::sqrt(va * vb) : 0;
}

std::vector<FamilyAgreement> model_agreement(const std::vector<CalibrationSample> &samples,
                                             const ModelCalibration &calibration) {
    struct Acc {
        int partitions = 0, candidates = 0, ranked = 0, found = 0;
        double rank_sum = 0;
        std::vector<double> ratios, picks;
    };
    std::map<std::string, Acc> by_family;
    for (const CalibrationSample &s : samples) {
        if (!usable(s)) continue;
        Acc &a = by_family[sample_family(s)];
        std::vector<double> predicted, measured;
        for (const CalibrationCandidate &c : s.candidates) {
            predicted.push_back(predicted_ms(c, calibration));
            measured.push_back(c.measured_ms);
            a.ratios.push_back(predicted.back() / measured.back());
        }
        a.partitions++;
        a.candidates += int(s.candidates.size());
        if (s.candidates.size() >= 2) {
            a.rank_sum += spearman(predicted, measured);
            a.ranked++;
        }
        const size_t pick = size_t(std::min_element(predicted.begin(), predicted.end()) - predicted.begin());
        const double best = *std::min_element(measured.begin(), measured.end());
        a.found += measured[pick] == best;
        a.picks.push_back(measured[pick] / best);
    }
    std::vector<FamilyAgreement> out;
    for (const auto &[family, a] : by_family) {
        FamilyAgreement f;
        f.family = family;
        f.partitions = a.partitions;
        f.candidates = a.candidates;
        f.rank_correlation = a.ranked ? a.rank_sum / a.ranked : 0;
        f.median_ratio = median(a.ratios);
        f.best_found = double(a.found) / double(a.partitions);
        f.median_pick_over_best = median(a.picks);
        out.push_back(f);
    }
    return out;
}

namespace {

double term(const nlohmann::json &j, const char *key) {
    const double v = j.at(key).get<double>();
    if (!std::isfinite(v) || v < 0) throw std::runtime_error(std::string("'") + key + "' must be a finite number >= 0");
    return v;
}

double factor(const nlohmann::json &j, const char *key) {
    const double v = j.value(key, 1.0);
    if (!std::isfinite(v) || v <= 0) throw std::runtime_error(std::string("factor '") + key + "' must be positive");
    return v;
}

}  // namespace

nlohmann::json model_terms_json(const std::vector<ModelTerms> &stages) {
    nlohmann::json out = nlohmann::json::array();
    for (const ModelTerms &t : stages) {
        out.push_back({{"family", t.family},
                       {"compute_ms", t.compute_ms},
                       {"registers_ms", t.registers_ms},
                       {"l1_ms", t.l1_ms},
                       {"l2_ms", t.l2_ms},
                       {"overhead_ms", t.overhead_ms},
                       {"parallel_efficiency", t.parallel_efficiency},
                       {"weight", t.weight}});
    }
    return out;
}

std::vector<ModelTerms> model_terms_list_from_json(const nlohmann::json &j) {
    std::vector<ModelTerms> out;
    for (const nlohmann::json &s : j) {
        ModelTerms t;
        t.family = s.at("family").get<std::string>();
        t.compute_ms = term(s, "compute_ms");
        t.registers_ms = term(s, "registers_ms");
        t.l1_ms = term(s, "l1_ms");
        t.l2_ms = term(s, "l2_ms");
        t.overhead_ms = term(s, "overhead_ms");
        t.parallel_efficiency = term(s, "parallel_efficiency");
        t.weight = term(s, "weight");
        if (t.parallel_efficiency <= 0) throw std::runtime_error("'parallel_efficiency' must be positive");
        out.push_back(t);
    }
    return out;
}

nlohmann::json calibration_json(const ModelCalibration &calibration) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto &[family, f] : calibration) {
        out[family] = {{"compute", f.compute}, {"registers", f.registers}, {"l1", f.l1},
                       {"l2", f.l2},           {"overhead", f.overhead},   {"partitions", f.partitions}};
    }
    return out;
}

ModelCalibration calibration_from_json(const nlohmann::json &j) {
    if (!j.is_object()) throw std::runtime_error("'calibration' must be an object of program families");
    ModelCalibration out;
    for (const auto &[family, v] : j.items()) {
        FamilyCalibration f;
        f.compute = factor(v, "compute");
        f.registers = factor(v, "registers");
        f.l1 = factor(v, "l1");
        f.l2 = factor(v, "l2");
        f.overhead = factor(v, "overhead");
        f.partitions = v.value("partitions", 0);
        out[family] = f;
    }
    return out;
}

std::vector<CalibrationSample> read_calibration_samples(const std::string &path, const std::string &figures,
                                                        int *skipped) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error(path + ": cannot read");
    std::vector<CalibrationSample> samples;
    std::string line;
    for (int number = 1; std::getline(in, line); number++) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        try {
            const nlohmann::json j = nlohmann::json::parse(line);
            if (j.value("figures", "") != figures) {
                if (skipped) (*skipped)++;
                continue;
            }
            CalibrationSample s;
            s.partition = j.value("partition", "");
            s.ops = j.value("ops", "");
            bool terms = true;
            for (const nlohmann::json &c : j.at("candidates")) {
                CalibrationCandidate cand;
                cand.name = c.at("name").get<std::string>();
                cand.measured_ms = c.at("measured_ms").get<double>();
                // Halide's autoschedulers' candidates have no terms: not the model's to fit.
                if (cand.name.rfind("Tessera:", 0) != 0) continue;
                if (!c.contains("stages")) terms = false;
                else cand.stages = model_terms_list_from_json(c.at("stages"));
                s.candidates.push_back(cand);
            }
            if (!terms || s.candidates.empty()) {
                if (skipped) (*skipped)++;
                continue;
            }
            samples.push_back(s);
        } catch (const std::exception &e) {
            throw std::runtime_error(path + ":" + std::to_string(number) + ": not a tuning record (" + e.what() + ")");
        }
    }
    return samples;
}

}  // namespace tessera::hal
