#include "scheduler_options.h"

#include <functional>
#include <map>
#include <stdexcept>

namespace tessera {

namespace {

int whole_number(const std::string &name, const std::string &value, int least) {
    size_t used = 0;
    int v = 0;
    try {
        v = std::stoi(value, &used);
    } catch (const std::exception &) {
        used = 0;
    }
    if (used == 0 || used != value.size() || v < least) {
        throw std::invalid_argument("scheduler option " + name + "=" + value + ": needs a whole number of at least " +
                                    std::to_string(least));
    }
    return v;
}

bool switch_value(const std::string &name, const std::string &value) {
    if (value == "1" || value == "true" || value == "on") return true;
    if (value == "0" || value == "false" || value == "off") return false;
    throw std::invalid_argument("scheduler option " + name + "=" + value + ": needs 1 or 0");
}

using Setter = std::function<void(SchedulerOptions &, const std::string &, const std::string &)>;

const std::map<std::string, Setter> &setters() {
    static const std::map<std::string, Setter> table = {
        {"explain", [](SchedulerOptions &o, const std::string &n, const std::string &v) { o.explain = switch_value(n, v); }},
        {"top_k", [](SchedulerOptions &o, const std::string &n, const std::string &v) { o.top_k = whole_number(n, v, 1); }},
        {"candidate",
         [](SchedulerOptions &o, const std::string &n, const std::string &v) { o.candidate = whole_number(n, v, 0); }},
        {"stage_candidate",
         [](SchedulerOptions &o, const std::string &n, const std::string &v) {
             const size_t colon = v.rfind(':');
             if (colon == std::string::npos || colon == 0) {
                 throw std::invalid_argument("scheduler option " + n + "=" + v + ": needs FUNC:N");
             }
             o.stage_candidates[v.substr(0, colon)] = whole_number(n, v.substr(colon + 1), 0);
         }},
        {"fuse_chains",
         [](SchedulerOptions &o, const std::string &n, const std::string &v) { o.fuse_chains = switch_value(n, v); }},
        {"threads",
         [](SchedulerOptions &o, const std::string &n, const std::string &v) { o.parallelism = whole_number(n, v, 1); }},
        {"device_profile",
         [](SchedulerOptions &o, const std::string &n, const std::string &v) {
             std::string error;
             o.device_profile = hal::load_profile(v, &error);
             if (!o.device_profile) throw std::invalid_argument("scheduler option " + n + ": " + error);
         }},
        {"gpu_profile", [](SchedulerOptions &o, const std::string &, const std::string &v) { o.gpu_profile = v; }},
    };
    return table;
}

}  // namespace

void set_scheduler_option(SchedulerOptions &options, const std::string &name, const std::string &value) {
    auto it = setters().find(name);
    if (it == setters().end()) {
        std::string known;
        for (const std::string &n : scheduler_option_names()) known += (known.empty() ? "" : ", ") + n;
        throw std::invalid_argument("unknown scheduler option '" + name + "' (known: " + known + ")");
    }
    it->second(options, name, value);
}

hal::DeviceProfile profile_or_builtin(const SchedulerOptions &options) {
    return options.device_profile ? *options.device_profile : hal::builtin_profile();
}

const std::vector<std::string> &scheduler_option_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n;
        for (const auto &[name, setter] : setters()) n.push_back(name);
        return n;
    }();
    return names;
}

}  // namespace tessera
