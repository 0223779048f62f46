#include "plan_json.h"

#include "sample_inputs.h"

#include <nlohmann/json.hpp>

#include <fstream>

namespace tessera::graph {

void write_plan_json(const Graph &g, const FusionPlan &plan, const std::vector<PartitionTimes> &times,
                     const std::vector<BufferLifetime> &intermediates, const MemoryPlan &memory,
                     const EmitOptions &o, const std::string &path) {
    auto tensors = [&](const std::vector<std::string> &names) {
        nlohmann::json list = nlohmann::json::array();
        for (const std::string &n : names) {
            // The element type of the library's array for it (boundary_type); an integer
            // input also gives the values a made-up run may feed it.
            const bool integer = is_integer(g.value(n).dtype);
            nlohmann::json t = {{"name", n}, {"shape", g.value(n).shape}, {"dtype", integer ? "int64" : "float32"}};
            if (integer) {
                const ValueRange r = sample_range(g, n);
                t["range"] = {r.lo, r.hi};
            }
            list.push_back(t);
        }
        return list;
    };
    nlohmann::json j;
    j["name"] = o.name;
    j["model"] = o.model_path;
    j["target"] = o.target.to_string();
    j["scheduler"] = o.scheduler;
    j["inputs"] = tensors(g.inputs);
    j["outputs"] = tensors(g.outputs);
    j["balance_flop_per_byte"] = plan.balance;
    j["kernels_before"] = plan.kernels_before;
    j["kernels_after"] = plan.partitions.size();
    j["dram_bytes_before"] = plan.dram_bytes_before;
    j["dram_bytes_after"] = plan.dram_bytes_after;
    j["partitions"] = nlohmann::json::array();
    for (size_t k = 0; k < plan.partitions.size(); k++) {
        const Partition &p = plan.partitions[k];
        nlohmann::json nodes = nlohmann::json::array();
        for (int n : p.nodes) nodes.push_back({{"name", g.nodes[size_t(n)].name}, {"op", g.nodes[size_t(n)].op_type}});
        j["partitions"].push_back({{"name", p.name},
                                   {"class", p.compute_intensive ? "compute-bound" : "memory-bound"},
                                   {"nodes", nodes},
                                   {"inputs", p.inputs},
                                   {"output", p.output},
                                   {"flops", p.flops},
                                   {"dram_bytes", p.dram_bytes},
                                   {"schedule_ms", k < times.size() ? times[k].schedule_ms : 0.0},
                                   {"codegen_ms", k < times.size() ? times[k].codegen_ms : 0.0}});
    }
    for (const MeasuredCandidates &m : o.measured) {
        for (nlohmann::json &p : j["partitions"]) {
            if (p.at("name") != m.partition) continue;
            p["measured"] = {{"candidates", m.names},
                             {"candidate_ms", m.candidate_ms},
                             {"predicted_ms", m.predicted_ms},
                             {"chosen", m.chosen},
                             {"from_log", m.from_log}};
        }
    }
    j["memory"] = {{"arena_bytes", memory.arena_bytes},
                   {"peak_live_bytes", memory.peak_live_bytes},
                   {"separate_bytes", memory.separate_bytes},
                   {"buffers", nlohmann::json::array()}};
    for (size_t k = 0; k < intermediates.size(); k++) {
        const BufferLifetime &b = intermediates[k];
        j["memory"]["buffers"].push_back({{"value", b.value},
                                          {"bytes", b.bytes},
                                          {"offset", memory.offsets[k]},
                                          {"first_step", b.first_step},
                                          {"last_step", b.last_step}});
    }
    std::ofstream out(path);
    out << j.dump(2) << "\n";
    if (!out) throw std::runtime_error(path + ": cannot write");
}

}  // namespace tessera::graph
