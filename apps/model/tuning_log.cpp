#include "tuning_log.h"

#include "graph_error.h"
#include "shape.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

namespace tessera::cli {

std::string partition_signature(const graph::Graph &g, const graph::Partition &p) {
    std::string text;
    std::map<std::string, size_t> made_here;  // value -> index of the node in p that writes it
    for (size_t k = 0; k < p.nodes.size(); k++) {
        const graph::Node &n = g.nodes[size_t(p.nodes[k])];
        text += n.op_type + "(";
        for (const auto &[key, value] : n.attrs) text += key + "=" + value.to_string() + ";";
        text += ")[";
        for (const std::string &v : n.inputs) {
            if (v.empty()) text += "none,";
            else if (made_here.count(v)) text += "%" + std::to_string(made_here.at(v)) + ",";
            else text += (g.is_constant(v) ? "c" : "x") + graph::shape_string(g.value(v).shape) + ",";
        }
        text += "]->";
        for (const std::string &v : n.outputs) {
            made_here[v] = k;
            text += graph::shape_string(g.value(v).shape) + ",";
        }
        text += "\n";
    }
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
    return hex;
}

const TuningRecord *TuningLog::find(const std::string &signature) const {
    for (size_t k = records.size(); k-- > 0;) {
        if (records[k].signature == signature) return &records[k];
    }
    return nullptr;
}

TuningLog read_tuning_log(const std::string &path, const std::string &target, const std::string &profile) {
    TuningLog log;
    std::ifstream in(path);
    if (!in) return log;
    std::string line;
    for (int number = 1; std::getline(in, line); number++) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        const std::string where = path + ":" + std::to_string(number) + ": ";
        TuningRecord r;
        try {
            const nlohmann::json j = nlohmann::json::parse(line);
            r.signature = j.at("signature").get<std::string>();
            r.ops = j.value("ops", "");
            r.shape = j.value("shape", "");
            r.partition = j.value("partition", "");
            r.target = j.at("target").get<std::string>();
            r.profile = j.at("profile").get<std::string>();
            r.figures = j.value("figures", "");
            for (const nlohmann::json &c : j.at("candidates")) {
                r.names.push_back(c.at("name").get<std::string>());
                r.predicted_ms.push_back(c.at("predicted_ms").get<double>());
                r.measured_ms.push_back(c.at("measured_ms").get<double>());
                r.stages.push_back(c.contains("stages") ? hal::model_terms_list_from_json(c.at("stages"))
                                                        : std::vector<hal::ModelTerms>{});
            }
            r.chosen = j.at("chosen").get<int>();
        } catch (const std::exception &e) {
            throw graph::GraphError(where + "not a tuning record (" + e.what() + ")");
        }
        if (r.measured_ms.empty() || r.chosen < 0 || r.chosen >= int(r.measured_ms.size())) {
            throw graph::GraphError(where + "not a tuning record (chosen " + std::to_string(r.chosen) + " of " +
                                     std::to_string(r.measured_ms.size()) + " candidates)");
        }
        if (r.target != target || r.profile != profile) {
            log.elsewhere++;
            continue;
        }
        log.records.push_back(r);
    }
    return log;
}

void append_tuning_log(const std::string &path, const std::vector<TuningRecord> &records) {
    if (records.empty()) return;
    const std::filesystem::path parent = std::filesystem::path(path).parent_path();
    std::error_code ignored;  // a folder that cannot be made shows as the write failing
    if (!parent.empty()) std::filesystem::create_directories(parent, ignored);
    std::ofstream out(path, std::ios::app);
    for (const TuningRecord &r : records) {
        nlohmann::json candidates = nlohmann::json::array();
        for (size_t c = 0; c < r.measured_ms.size(); c++) {
            nlohmann::json c_json = {{"name", r.names.at(c)},
                                     {"predicted_ms", c < r.predicted_ms.size() ? r.predicted_ms[c] : 0.0},
                                     {"measured_ms", r.measured_ms[c]}};
            if (c < r.stages.size() && !r.stages[c].empty()) c_json["stages"] = hal::model_terms_json(r.stages[c]);
            candidates.push_back(c_json);
        }
        const nlohmann::json j = {{"signature", r.signature}, {"ops", r.ops},         {"shape", r.shape},
                                  {"partition", r.partition}, {"target", r.target},   {"profile", r.profile},
                                  {"figures", r.figures},     {"candidates", candidates}, {"chosen", r.chosen}};
        out << j.dump() << "\n";
    }
    if (!out) throw std::runtime_error(path + ": cannot write the tuning log");
}

}  // namespace tessera::cli
