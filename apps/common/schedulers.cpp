#include "schedulers.h"

#include "options_from_environment.h"
#include "tessera_scheduler.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace tessera {

namespace {

// Plugin paths come from CMake (the imported Halide::<name> targets).
const std::map<std::string, std::string> &plugin_paths() {
    static const std::map<std::string, std::string> paths = {
        {"Mullapudi2016", TESSERA_PLUGIN_MULLAPUDI2016},
        {"Adams2019", TESSERA_PLUGIN_ADAMS2019},
        {"Li2018", TESSERA_PLUGIN_LI2018},
    };
    return paths;
}

// Halide's own autoschedulers get the pipeline with run-time extents, the form
// Halide's apps give them: the graph layer and the op bench make every extent a
// constant for Tessera's tiles (graph/lower/lower_partition.cpp), and under constant
// extents Halide 14 computed Mullapudi2016's layer_norm schedule wrong (9 rows of 65:
// relative error 320 against the reference). Strides stay as set.
void drop_extent_constraints(Halide::Pipeline &pipeline) {
    class ImageReads : public Halide::Internal::IRVisitor {
    public:
        std::vector<Halide::Internal::Parameter> params;

    private:
        using Halide::Internal::IRVisitor::visit;
        void visit(const Halide::Internal::Call *c) override {
            if (c->param.defined() && c->param.is_buffer()) params.push_back(c->param);
            Halide::Internal::IRVisitor::visit(c);
        }
    };
    ImageReads reads;
    for (const Halide::Func &out : pipeline.outputs()) {
        for (const auto &[name, f] : Halide::Internal::find_transitive_calls(out.function())) f.accept(&reads);
        for (Halide::OutputImageParam buffer : out.output_buffers()) {
            for (int d = 0; d < buffer.dimensions(); d++) buffer.parameter().set_extent_constraint(d, Halide::Expr());
        }
    }
    for (Halide::Internal::Parameter &param : reads.params) {
        for (int d = 0; d < param.dimensions(); d++) param.set_extent_constraint(d, Halide::Expr());
    }
}

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

}  // namespace

const std::vector<std::string> &scheduler_names() {
    static const std::vector<std::string> names = {"none", "Tessera", "Mullapudi2016", "Adams2019", "Li2018"};
    return names;
}

std::string default_scheduler() {
    return "Tessera";
}

std::string canonical_scheduler(const std::string &name) {
    for (const std::string &known : scheduler_names()) {
        if (lower(known) == lower(name)) return known;
    }
    std::string list;
    for (const std::string &known : scheduler_names()) list += " " + known;
    throw std::invalid_argument("unknown scheduler '" + name + "' (known:" + list + ")");
}

Halide::MachineParams machine_params(const SchedulerOptions &options) {
    const int threads =
        options.parallelism > 0 ? options.parallelism : int(std::max(1u, std::thread::hardware_concurrency()));
    // The LLC size the HAL finds (sysfs, or the measured profile).
    const hal::DeviceProfile profile = profile_or_builtin(options);
    const hal::MemoryLayerProfile *llc = profile.layer("LLC");
    return Halide::MachineParams(threads, llc ? llc->capacity_bytes : (16ull << 20), 40);
}

void load_scheduler(const std::string &scheduler) {
    const std::string name = canonical_scheduler(scheduler);
    if (name == "none" || name == "Tessera") return;
    static std::mutex mutex;
    std::lock_guard<std::mutex> lock(mutex);
    static std::map<std::string, bool> loaded;
    if (!loaded[name]) {
        Halide::load_plugin(plugin_paths().at(name));
        loaded[name] = true;
    }
}

void apply_scheduler(Halide::Pipeline &pipeline, const SchedulerChoice &choice) {
    const std::string name = canonical_scheduler(choice.name);
    if (name == "none") return;
    if (name == "Tessera") {
        const ScheduleOutcome outcome = schedule_pipeline(pipeline, choice.target, choice.options);
        if (choice.options.explain) std::fprintf(stderr, "%s", outcome.explanation.c_str());
        return;
    }
    load_scheduler(name);
    drop_extent_constraints(pipeline);
    pipeline.auto_schedule(name, choice.target, machine_params(choice.options));
}

}  // namespace tessera
