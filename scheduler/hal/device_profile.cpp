#include "device_profile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <thread>

namespace tessera::hal {

namespace {

uint64_t sysfs_cache_bytes(int level, bool data_or_unified) {
    for (int index = 0; index < 8; index++) {
        std::string base = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
        std::ifstream level_file(base + "level"), type_file(base + "type"), size_file(base + "size");
        int l = 0;
        std::string type, size;
        if (!(level_file >> l) || !(type_file >> type) || !(size_file >> size)) continue;
        if (l != level || (data_or_unified && type == "Instruction")) continue;
        uint64_t v = std::strtoull(size.c_str(), nullptr, 10);
        char unit = size.back();
        return unit == 'K' ? v << 10 : unit == 'M' ? v << 20 : v;
    }
    return 0;
}

// An integer field. nlohmann's get<T>() converts a number out of T's range with
// undefined behaviour (a double such as 1e300) or wraps it (4294967297 read as 1);
// both caught by tests/fuzz's sanitized loader. A double in range is truncated, as before.
template <typename T>
T integer_field(const nlohmann::json &j, const char *key) {
    using limits = std::numeric_limits<T>;
    const nlohmann::json &v = j.at(key);
    const double above = std::ldexp(1.0, limits::digits), below = limits::is_signed ? -above - 1 : -1;
    const bool in_range = v.is_number_unsigned() ? v.get<uint64_t>() <= uint64_t(limits::max())
                          : v.is_number_integer() ? limits::is_signed && v.get<int64_t>() >= int64_t(limits::lowest())
                          : v.is_number_float()   ? v.get<double>() > below && v.get<double>() < above
                                                  : false;
    if (!in_range) {
        throw std::runtime_error(std::string("'") + key + "' must be an integer from " +
                                 std::to_string(limits::lowest()) + " to " + std::to_string(limits::max()) +
                                 ", got " + v.dump());
    }
    return v.get<T>();
}

std::string cpu_model_name() {
    std::ifstream f("/proc/cpuinfo");
    std::string line;
    while (std::getline(f, line)) {
        if (line.rfind("model name", 0) == 0) {
            size_t colon = line.find(':');
            return colon == std::string::npos ? line : line.substr(colon + 2);
        }
    }
    return "unknown";
}

}  // namespace

const MemoryLayerProfile *DeviceProfile::layer(const std::string &name) const {
    for (const MemoryLayerProfile &l : layers) {
        if (l.name == name) return &l;
    }
    return nullptr;
}

DeviceProfile builtin_profile() {
    DeviceProfile p;
    p.source = "built-in";
    p.cpu_model = cpu_model_name();
    p.cores = int(std::max(1u, std::thread::hardware_concurrency()));
    __builtin_cpu_init();
    p.vector_lanes_fp32 = __builtin_cpu_supports("avx512f") ? 16 : __builtin_cpu_supports("avx2") ? 8 : 4;
    // Modest figures: 2 FMA pipes at ~2 GHz, and bandwidths well below typical server parts.
    p.fma_gflops_per_core = 2.0 * 2 * p.vector_lanes_fp32 * 2.0;
    auto or_default = [](uint64_t v, uint64_t d) { return v ? v : d; };
    p.layers = {
        {"L1", or_default(sysfs_cache_bytes(1, true), 32 << 10), 100, 100.0 * p.cores},
        {"L2", or_default(sysfs_cache_bytes(2, true), 1 << 20), 50, 50.0 * p.cores},
        {"LLC", or_default(sysfs_cache_bytes(3, true), 8 << 20), 20, 30},
        {"DRAM", 0, 6, 8},
    };
    p.dram_copy_gbs = 8;
    return p;
}

bool peak_measured_by_an_old_loop(const DeviceProfile &p) {
    return p.source.rfind("measured", 0) == 0 && p.fma_peak_revision < kFmaPeakRevision;
}

std::optional<DeviceProfile> load_profile(const std::string &path, std::string *error) {
    std::ifstream in(path);
    if (!in) {
        if (error) *error = path + ": cannot open";
        return std::nullopt;
    }
    try {
        nlohmann::json j = nlohmann::json::parse(in);
        DeviceProfile p;
        p.version = integer_field<int>(j, "version");
        if (p.version != 1) throw std::runtime_error("unsupported version " + std::to_string(p.version));
        p.source = j.value("source", "measured");
        p.cpu_model = j.value("cpu_model", "unknown");
        p.cores = integer_field<int>(j, "cores");
        p.vector_lanes_fp32 = integer_field<int>(j, "vector_lanes_fp32");
        p.fma_gflops_per_core = j.at("fma_gflops_per_core").get<double>();
        p.dram_copy_gbs = j.at("dram_copy_gbs").get<double>();
        p.dram_transpose_gbs = j.value("dram_transpose_gbs", 0.0);
        for (const auto &l : j.at("layers")) {
            p.layers.push_back({l.at("name").get<std::string>(), integer_field<uint64_t>(l, "capacity_bytes"),
                                l.at("read_gbs_per_core").get<double>(), l.at("read_gbs_all_cores").get<double>()});
        }
        if (p.cores <= 0 || p.fma_gflops_per_core <= 0 || p.layers.empty()) {
            throw std::runtime_error("cores, fma_gflops_per_core and layers must be positive / non-empty");
        }
        for (const char *key : {"fma_pipes", "fma_latency", "vector_registers", "row_address_registers"}) {
            const int v = j.contains(key) ? integer_field<int>(j, key) : 0;
            if (v < 0 || v > 1024) throw std::runtime_error(std::string("'") + key + "' must be 0 to 1024");
        }
        p.fma_pipes = j.contains("fma_pipes") ? integer_field<int>(j, "fma_pipes") : 0;
        p.fma_latency = j.contains("fma_latency") ? integer_field<int>(j, "fma_latency") : 0;
        p.vector_registers = j.contains("vector_registers") ? integer_field<int>(j, "vector_registers") : 0;
        p.row_address_registers =
            j.contains("row_address_registers") ? integer_field<int>(j, "row_address_registers") : 0;
        p.fma_peak_revision = j.contains("fma_peak_revision") ? integer_field<int>(j, "fma_peak_revision") : 0;
        p.broadcasts_per_cycle = j.value("broadcasts_per_cycle", 0.0);
        if (!(p.broadcasts_per_cycle >= 0 && p.broadcasts_per_cycle <= 16)) {
            throw std::runtime_error("'broadcasts_per_cycle' must be 0 to 16");
        }
        if (j.contains("calibration")) p.calibration = calibration_from_json(j.at("calibration"));
        // The HAL reads the layers by role (hal/device_spec.h): caches innermost
        // first, a shared "LLC" last among them, "DRAM" last of all. Anything else
        // once stopped the scheduler on an internal error or read past the layers
        // (tests/fuzz).
        std::string names;
        for (const MemoryLayerProfile &l : p.layers) names += (names.empty() ? "" : ", ") + l.name;
        auto count = [&](const std::string &name) {
            return std::count_if(p.layers.begin(), p.layers.end(),
                                 [&](const MemoryLayerProfile &l) { return l.name == name; });
        };
        const bool llc_last_cache =
            count("LLC") == 0 || (p.layers.size() >= 2 && p.layers[p.layers.size() - 2].name == "LLC");
        bool named = true;
        for (const MemoryLayerProfile &l : p.layers) named = named && !l.name.empty() && count(l.name) == 1;
        if (p.layers.size() < 2 || p.layers.back().name != "DRAM" || !llc_last_cache || !named) {
            throw std::runtime_error("layers must be one or more caches with distinct names, innermost first (a "
                                     "shared one named LLC last among them), then DRAM; got " + names);
        }
        return p;
    } catch (const std::exception &e) {
        if (error) *error = path + ": " + e.what();
        return std::nullopt;
    }
}

namespace {

nlohmann::json profile_json(const DeviceProfile &p) {
    nlohmann::json j;
    j["version"] = p.version;
    j["source"] = p.source;
    j["cpu_model"] = p.cpu_model;
    j["cores"] = p.cores;
    j["vector_lanes_fp32"] = p.vector_lanes_fp32;
    j["fma_gflops_per_core"] = p.fma_gflops_per_core;
    j["dram_copy_gbs"] = p.dram_copy_gbs;
    if (p.dram_transpose_gbs > 0) j["dram_transpose_gbs"] = p.dram_transpose_gbs;
    if (p.fma_pipes > 0) j["fma_pipes"] = p.fma_pipes;
    if (p.fma_latency > 0) j["fma_latency"] = p.fma_latency;
    if (p.vector_registers > 0) j["vector_registers"] = p.vector_registers;
    if (p.row_address_registers > 0) j["row_address_registers"] = p.row_address_registers;
    if (p.fma_peak_revision > 0) j["fma_peak_revision"] = p.fma_peak_revision;
    if (p.broadcasts_per_cycle > 0) j["broadcasts_per_cycle"] = p.broadcasts_per_cycle;
    j["layers"] = nlohmann::json::array();
    for (const MemoryLayerProfile &l : p.layers) {
        j["layers"].push_back({{"name", l.name},
                               {"capacity_bytes", l.capacity_bytes},
                               {"read_gbs_per_core", l.read_gbs_per_core},
                               {"read_gbs_all_cores", l.read_gbs_all_cores}});
    }
    if (!p.calibration.empty()) j["calibration"] = calibration_json(p.calibration);
    return j;
}

}  // namespace

std::string profile_fingerprint(const DeviceProfile &p) {
    // FNV-1a over the profile as save_profile writes it: the same figures give the
    // same fingerprint on any machine.
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : profile_json(p).dump()) h = (h ^ c) * 1099511628211ull;
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
    return text;
}

std::string figures_fingerprint(const DeviceProfile &p) {
    DeviceProfile figures = p;
    figures.calibration.clear();
    return profile_fingerprint(figures);
}

void save_profile(const DeviceProfile &p, const std::string &path) {
    const nlohmann::json j = profile_json(p);
    std::filesystem::path file(path);
    if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path());
    std::ofstream out(path);
    if (!out) throw std::runtime_error(path + ": cannot write");
    out << j.dump(2) << "\n";
}

double balance_flops_per_byte(const DeviceProfile &p) {
    return p.dram_copy_gbs > 0 ? p.fma_gflops_per_core * p.cores / p.dram_copy_gbs : 0;
}

bool compute_bound(double flops, double bytes, double balance) {
    return (bytes > 0 ? flops / bytes : 0) >= balance;
}

}  // namespace tessera::hal
