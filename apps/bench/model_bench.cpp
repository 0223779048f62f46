#include "model_bench.h"

#include "child_process.h"
#include "compare.h"
#include "compile_model.h"
#include "compiled_library.h"
#include "graph_error.h"
#include "npy.h"
#include "opened_model.h"
#include "peer.h"
#include "stopwatch.h"
#include "suite_file.h"
#include "tensor_files.h"
#include "tune_graph.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <sstream>
#include <unistd.h>

namespace tessera::bench {

namespace fs = std::filesystem;

namespace {

bool executable(const std::string &path) {
    return access(path.c_str(), X_OK) == 0 && !fs::is_directory(path);
}

// How to get a peer that is not there.
std::string install_hint(const std::string &kind) {
    return kind == kOnnxRuntime ? "bash scripts/install-peers.sh"
                                : "Debian's python3-torch: bash scripts/install-deps.sh --models";
}

std::string shape_list(const std::vector<cli::TensorSpec> &specs) {
    std::string s;
    for (const cli::TensorSpec &t : specs) {
        s += (s.empty() ? "" : ", ") + ("'" + t.name + "' " + t.describe());
    }
    return s;
}

void say(const char *format, ...) __attribute__((format(printf, 1, 2)));
void say(const char *format, ...) {
    va_list args;
    va_start(args, format);
    std::vprintf(format, args);
    va_end(args);
    std::fflush(stdout);
}

// One contender of a model's run: its record and, once it has run, its outputs.
struct Contender {
    ModelRecord record;
    std::unique_ptr<Peer> peer;  // null for Tessera
    bool running = false;        // ran its check run and is timed
    std::vector<graph::TensorData> outputs;
};

void mark_failed(Contender &c, const std::string &stage, const std::string &why, bool crashed) {
    c.running = false;
    c.record.ok = false;
    c.record.status = crashed ? "crashed" : "failed";
    c.record.error = stage + ": " + why;
    say("%s: %s %s\n", c.record.scheduler.c_str(), c.record.status.c_str(), c.record.error.c_str());
}

// Threads of process `pid` running or waiting for a core (state R in
// /proc/PID/task/TID/stat), the calling thread left out.
int busy_threads(int pid) {
    const std::string self = std::to_string(gettid());
    int busy = 0;
    std::error_code ignored;
    for (const auto &task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task", ignored)) {
        if (task.path().filename() == self) continue;
        std::ifstream in(task.path() / "stat");
        std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const size_t paren = stat.rfind(')');  // the name may hold spaces and parentheses
        if (paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] == 'R') busy++;
    }
    return busy;
}

}  // namespace

double settle(const std::vector<int> &pids, double max_ms) {
    Stopwatch watch;
    double waited = 0;
    for (int idle_polls = 0; idle_polls < 2 && waited < max_ms;) {
        int busy = 0;
        for (int pid : pids) busy += busy_threads(pid);
        idle_polls = busy == 0 ? idle_polls + 1 : 0;
        if (idle_polls < 2) usleep(1000);
        waited += watch.lap_ms();
    }
    return waited;
}

std::string find_peer_python(const std::string &flag, const std::string &from_environment, const std::string &repo_dir,
                             std::string &missing) {
    if (!flag.empty()) {
        if (!executable(flag)) throw ModelInputError("--python " + flag + ": not an executable file");
        return flag;
    }
    if (!from_environment.empty()) {
        if (!executable(from_environment))
            throw ModelInputError("TESSERA_PEER_PYTHON=" + from_environment + ": not an executable file");
        return from_environment;
    }
    const std::string venv = repo_dir + "/.venv-peers/bin/python";
    if (executable(venv)) return venv;
    missing = "no Python environment for the peers (" + venv + "): bash scripts/install-peers.sh, or --python PATH";
    return "";
}

double max_relative_error(const std::vector<graph::TensorData> &actual,
                          const std::vector<graph::TensorData> &reference) {
    if (actual.size() != reference.size() || actual.empty()) return std::numeric_limits<double>::infinity();
    double worst = 0;
    for (size_t k = 0; k < actual.size(); k++) {
        const double e = graph::relative_error(actual[k], reference[k]);
        if (!(e <= worst)) worst = e;  // keeps +inf (and never lets a NaN through)
    }
    return worst;
}

WorkDir::WorkDir(const std::string &given) {
    if (!given.empty()) {
        path_ = given;
        fs::create_directories(path_);
        return;
    }
    char pattern[] = "/tmp/tessera-bench-model-XXXXXX";
    if (!mkdtemp(pattern)) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
    path_ = pattern;
    owned_ = true;
}

WorkDir::~WorkDir() {
    std::error_code ignored;
    if (owned_) fs::remove_all(path_, ignored);
}

ModelUnderTest open_model_under_test(const ModelBenchOptions &o) {
    // The model and its inputs, checked before anything is compiled or started.
    if (!fs::is_regular_file(o.model)) throw ModelInputError(o.model + ": no such model file");
    ModelUnderTest m;
    cli::ModelOptions &model_options = m.model_options;
    model_options.model = o.model;
    model_options.scheduler_options = o.scheduler_options;
    cli::OpenedModel &opened = m.opened;
    try {
        cli::set_layout(model_options, o.layout);
        opened = cli::open_model(model_options);
    } catch (const graph::GraphError &e) {
        throw ModelInputError(e.what());
    }
    std::vector<cli::TensorSpec> &input_specs = m.input_specs;
    for (const std::string &n : opened.graph.inputs) input_specs.push_back(cli::graph_tensor_spec(opened.graph, n));
    std::vector<std::string> input_args = o.inputs;
    if (input_args.empty()) {
        const std::string beside = fs::path(o.model).replace_extension(".input.npy").string();
        if (input_specs.size() != 1 || !fs::exists(beside)) {
            throw ModelInputError(o.model + ": no --input given" +
                                  (input_specs.size() == 1 ? " and no " + beside + " next to it" : std::string()) +
                                  "; the model takes " + shape_list(input_specs));
        }
        input_args = {beside};
    }
    std::map<std::string, std::string> files;
    try {
        files = cli::bind_files(input_args, input_specs, "--input");
    } catch (const cli::UsageError &e) {
        throw ModelInputError(e.what());
    }
    std::vector<graph::TensorData> &inputs = m.inputs;
    std::vector<std::string> &input_paths = m.input_paths;
    for (const cli::TensorSpec &t : input_specs) {
        auto it = files.find(t.name);
        if (it == files.end()) {
            throw ModelInputError("--input: no file for the model's input '" + t.name + "' (" + t.describe() +
                                  "); write --input " + t.name + "=x.npy");
        }
        try {
            inputs.push_back(cli::read_tensor_file("--input", it->second, t));
        } catch (const graph::GraphError &e) {
            throw ModelInputError(e.what());
        }
        input_paths.push_back(it->second);
    }

    return m;
}

std::vector<ModelRecord> bench_model(const ModelBenchOptions &o) {
    ModelUnderTest m = open_model_under_test(o);
    const cli::ModelOptions &model_options = m.model_options;
    const cli::OpenedModel &opened = m.opened;
    const std::vector<cli::TensorSpec> &input_specs = m.input_specs;
    const std::vector<graph::TensorData> &inputs = m.inputs;
    const std::vector<std::string> &input_paths = m.input_paths;
    std::string given;
    for (size_t k = 0; k < input_specs.size(); k++) {
        given += (k ? ", " : "") + ("'" + input_specs[k].name + "' " + input_specs[k].describe() + " from " +
                                    input_paths[k]);
    }
    say("model %s: %zu nodes after the passes; input %s\n", o.model.c_str(), opened.graph.nodes.size(), given.c_str());
    if (o.interleaved) {
        say("%d thread(s) for every contender; %d warm-up + %d timed rounds, interleaved, each run once no "
            "contender's threads are busy\n",
            o.threads, o.warmup, o.reps);
    } else {
        say("%d thread(s) for every contender; each alone: %d warm-up + %d timed runs back to back, one contender "
            "after another\n",
            o.threads, o.warmup, o.reps);
    }

    WorkDir work(o.work_dir);
    std::vector<Contender> contenders(1 + o.against.size());
    for (size_t k = 0; k < contenders.size(); k++) {
        ModelRecord &r = contenders[k].record;
        r.model = o.model;
        r.scheduler = k == 0 ? kTessera : o.against[k - 1];
        r.threads = o.threads;
        r.timing = o.interleaved ? "interleaved" : "alone";
    }

    // Tessera: the library `tessera compile` writes, loaded with dlopen.
    Contender &tessera = contenders[0];
    std::unique_ptr<cli::CompiledLibrary> library;
    try {
        const size_t kernels = opened.plan.partitions.size();
        say("tessera: compiling %zu partition%s...\n", kernels, kernels == 1 ? "" : "s");
        Stopwatch watch;
        cli::CompileSettings settings;
        settings.out_dir = work.path() + "/tessera";
        settings.cxx = o.cxx;
        settings.tune = o.tune;
        settings.tuning.threads = o.threads;
        settings.tuning.fusion = o.tune_graph;
        auto progress = [&](const std::string &line) {
            if (o.verbose) say("  %s\n", line.c_str());
        };
        // As tessera compile --tune: the graph's alternatives (layout, fusion) timed
        // whole first, then the chosen one's partitions tuned.
        cli::OpenedModel *compiled = &m.opened;  // its plan becomes the one compiled (tuned fusion)
        cli::ModelOptions compiled_options = model_options;
        std::shared_ptr<cli::OpenedModel> alternative;
        std::string graph_choice;
        if (o.tune && o.tune_graph) {
            cli::GraphTuning g = cli::tune_graph(model_options, settings.tuning, progress);
            compiled_options = g.chosen;
            alternative = g.opened ? g.opened : std::make_shared<cli::OpenedModel>(cli::open_model(g.chosen));
            compiled = alternative.get();
            graph_choice = g.names.at(size_t(g.choice));
            std::string timed;
            for (size_t k = 0; k < g.measured_ms.size() && k < g.names.size(); k++) {
                char ms[32];
                std::snprintf(ms, sizeof ms, " %.2f ms", g.measured_ms[k]);
                timed += (k ? ", " : "") + g.names[k] + ms;
            }
            say("tessera: graph alternative %s%s\n", graph_choice.c_str(),
                g.from_log ? " (from the tuning log)" : timed.empty() ? "" : (" of " + timed).c_str());
        }
        const size_t compiled_kernels = compiled->plan.partitions.size();
        const graph::EmitReport report = cli::compile_model(*compiled, compiled_options, settings, progress);
        tessera.record.compile_s = watch.lap_ms() / 1e3;
        library = std::make_unique<cli::CompiledLibrary>(settings.out_dir, o.threads);
        tessera.record.impl = "Tessera, " + std::to_string(compiled_kernels) +
                              (compiled_kernels == 1 ? " kernel" : " kernels") +
                              (graph_choice.empty() ? "" : ", " + graph_choice);
        say("tessera: compiled in %.1f s (schedule %.0f ms, codegen %.0f ms summed over the partitions)\n",
            tessera.record.compile_s, report.schedule_ms, report.codegen_ms);
        tessera.running = true;
    } catch (const std::exception &e) {
        mark_failed(tessera, "while compiling", e.what(), false);
    }

    // The peers, each a Python child that loads its model once.
    for (size_t k = 1; k < contenders.size(); k++) {
        Contender &c = contenders[k];
        const std::string &kind = c.record.scheduler;
        const std::string file = kind == kPyTorch ? fs::path(o.model).replace_extension(".pt").string() : o.model;
        c.record.status = "skipped";
        if (o.python.empty()) {
            c.record.error = o.python_missing;
        } else if (!fs::is_regular_file(file)) {
            c.record.error = "no " + file + " next to the model (make models: scripts/export-models.py writes it)";
        } else {
            PeerLaunch launch;
            launch.python = o.python;
            launch.runner = o.runner;
            launch.kind = kind;
            launch.model = file;
            launch.threads = o.threads;
            launch.inputs = input_paths;
            launch.timeout_s = o.timeout_s;
            launch.quiet = !o.verbose;
            c.peer = std::make_unique<Peer>(launch);
            c.record.compile_s = c.peer->load_s();
            if (c.peer->state() == Peer::State::ready) {
                c.record.impl = c.peer->description();
                c.running = true;
                say("%s: %s, loaded in %.1f s\n", kind.c_str(), c.record.impl.c_str(), c.record.compile_s);
                continue;
            }
            if (c.peer->state() == Peer::State::unavailable) {
                c.record.error = c.peer->why() + " (" + install_hint(kind) + ")";
            } else {
                mark_failed(c, "while loading " + file, c.peer->why(), c.peer->crashed());
                continue;
            }
        }
        say("%s: skipped: %s\n", kind.c_str(), c.record.error.c_str());
    }

    // A check run each: outputs against the first peer's (Tessera's poisoned with NaN
    // first, so an element it never writes is caught).
    std::vector<const graph::TensorData *> input_ptrs;
    for (const graph::TensorData &t : inputs) input_ptrs.push_back(&t);
    if (tessera.running) {
        for (const cli::TensorSpec &t : library->outputs()) {
            tessera.outputs.emplace_back(t.dtype, t.shape);
            std::fill(tessera.outputs.back().f.begin(), tessera.outputs.back().f.end(), std::nanf(""));
            std::fill(tessera.outputs.back().i.begin(), tessera.outputs.back().i.end(), INT64_MIN);
        }
        try {
            library->run(input_ptrs, tessera.outputs);
        } catch (const std::exception &e) {
            mark_failed(tessera, "in its check run", e.what(), false);
        }
    }
    const Contender *reference = nullptr;
    for (size_t k = 1; k < contenders.size(); k++) {
        Contender &c = contenders[k];
        if (!c.running) continue;
        try {
            c.peer->run(1);
            const std::string dir = work.path() + "/" + c.record.scheduler;
            fs::create_directories(dir);
            for (const std::string &path : c.peer->save(dir)) c.outputs.push_back(graph::read_npy(path));
        } catch (const PeerError &e) {
            mark_failed(c, "in its check run", e.what(), e.crashed);
            continue;
        } catch (const graph::GraphError &e) {
            mark_failed(c, "while reading its outputs", e.what(), false);
            continue;
        }
        if (!reference) reference = &c;
    }
    if (reference) {
        say("check: every output against %s's (max relative error, tolerance %.1g)\n",
            reference->record.scheduler.c_str(), o.tolerance);
    } else {
        say("check: no peer ran, so the outputs are only checked to be finite\n");
    }
    for (Contender &c : contenders) {
        if (!c.running) continue;
        c.record.reference = reference ? reference->record.scheduler : "";
        c.record.rel_error = max_relative_error(c.outputs, reference ? reference->outputs : c.outputs);
        c.record.status = model_status(c.record.rel_error, o.tolerance);
        c.record.ok = c.record.status == "ok";
    }

    // Interleaved rounds: every running contender once per round, in an order of its own,
    // each run once every process's threads have gone idle. Alone: each contender's runs
    // back to back (its own pool may spin between them, as when it serves alone), the
    // wait only when the next contender takes over.
    std::vector<Contender *> timed;
    std::vector<int> pids = {int(getpid())};
    for (Contender &c : contenders) {
        if (c.running) timed.push_back(&c);
        if (c.running && c.peer) pids.push_back(int(c.peer->pid()));
    }
    auto run_once = [&](Contender &c) -> double {
        if (!c.running) return -1;
        if (!c.peer) {
            try {
                Stopwatch watch;
                library->run(input_ptrs, c.outputs);
                return watch.lap_ms();
            } catch (const std::exception &e) {
                mark_failed(c, "while timed", e.what(), false);
                return -1;
            }
        }
        try {
            return c.peer->run(1).at(0);
        } catch (const PeerError &e) {
            mark_failed(c, "while timed", e.what(), e.crashed);
            return -1;
        }
    };
    const double max_settle_ms = 500, unbounded = std::numeric_limits<double>::infinity();
    double settled_ms = 0;
    int settles = 0;
    auto settle_all = [&] {
        settled_ms += settle(pids, max_settle_ms);
        settles++;
    };
    std::vector<std::vector<double>> times(timed.size());
    if (o.interleaved) {
        times = time_interleaved_reported(timed.size(), o.warmup, o.reps, o.reps, unbounded, [&](size_t i) {
            if (!timed[i]->running) return -1.0;
            settle_all();
            return run_once(*timed[i]);
        });
    } else {
        for (size_t i = 0; i < timed.size(); i++) {
            settle_all();
            times[i] = time_interleaved_reported(1, o.warmup, o.reps, o.reps, unbounded,
                                                 [&](size_t) { return run_once(*timed[i]); })[0];
        }
    }
    for (size_t i = 0; i < timed.size(); i++) {
        ModelRecord &r = timed[i]->record;
        r.rounds = int(times[i].size());
        if (times[i].empty()) continue;
        r.time_ms_min = *std::min_element(times[i].begin(), times[i].end());
        r.time_ms_median = median(times[i]);
    }

    if (settles > 0) {
        say("before %s: waited %.1f ms on average (at most %.0f) until no process's threads were busy\n",
            o.interleaved ? "each run" : "each contender", settled_ms / settles, max_settle_ms);
    }

    std::vector<ModelRecord> records;
    for (const Contender &c : contenders) records.push_back(c.record);
    derive_model_speedups(records);
    say("%s", format_model_table(records).c_str());
    return records;
}

std::vector<ModelRecord> bench_model_isolated(const ModelBenchOptions &options) {
    const ChildOutcome c = run_in_child(
        [&]() -> std::string {
            try {
                nlohmann::json records = nlohmann::json::array();
                for (const ModelRecord &r : bench_model(options)) records.push_back(to_json(r));
                return nlohmann::json{{"records", records}}.dump();
            } catch (const ModelInputError &e) {
                return nlohmann::json{{"input_error", e.what()}}.dump();
            }
        },
        options.timeout_s, false);
    if (c.ok) {
        const nlohmann::json j = nlohmann::json::parse(c.text);
        if (j.contains("input_error")) throw ModelInputError(j["input_error"].get<std::string>());
        std::vector<ModelRecord> records;
        for (const nlohmann::json &r : j.at("records")) records.push_back(model_record_from_json(r));
        return records;
    }
    // Tessera's library runs in the child itself: a crash or a hang there is Tessera's.
    ModelRecord r;
    r.model = options.model;
    r.scheduler = kTessera;
    r.threads = options.threads;
    r.status = c.threw ? "failed" : "crashed";
    r.error = c.threw ? c.text : c.failure() + " (Tessera's library runs in the benchmark's own process)";
    say("%s: %s: %s\n", r.model.c_str(), r.status.c_str(), r.error.c_str());
    return {r};
}

std::vector<std::string> load_model_suite(const std::string &path) {
    std::ifstream in(path);
    if (!in) throw SuiteError(path + ": cannot open suite file");
    std::vector<std::string> names;
    std::string line;
    for (int number = 1; std::getline(in, line); number++) {
        const size_t hash = line.find('#');
        if (hash != std::string::npos) line.resize(hash);
        std::istringstream words(line);
        std::string keyword, name, extra;
        if (!(words >> keyword)) continue;
        const bool good_name = (words >> name) && name.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                                                          "0123456789_.-") == std::string::npos;
        if (keyword != "model" || !good_name || (words >> extra)) {
            throw SuiteError(path + ":" + std::to_string(number) +
                             ": expected 'model NAME' (NAME.onnx in the models folder), got '" + line + "'");
        }
        names.push_back(name);
    }
    if (names.empty()) throw SuiteError(path + ": no models in the suite");
    return names;
}

}  // namespace tessera::bench
