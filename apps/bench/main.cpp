// tessera-bench: compares Halide's autoschedulers (and Tessera's, once registered)
// with the oneDNN baseline on any op or suite: each contender is checked against the
// reference, then all are timed side by side in interleaved rounds with the same
// thread count. Writes a table, and optionally JSON, CSV and a PNG plot.
// Exit status: 0 the run completed (failures are recorded in their rows), 1 a report
// could not be written, 2 a usage error (unknown op, scheduler or key, bad value).
//
// With --model (or --suite models) it benchmarks whole ONNX models instead: Tessera's
// compiled library against onnxruntime and PyTorch (apps/bench/model_bench.h). Exit
// status: 0 every contender that ran is correct, 1 one mismatched, failed or crashed
// (or a report could not be written), 2 a usage error or a bad model or input file.
#include "bench_record.h"
#include "contender.h"
#include "device_profile.h"
#include "layout_option.h"
#ifdef TESSERA_WITH_MODELS
#include "model_bench.h"
#include "per_layer.h"
#endif
#include "model_record.h"
#include "op_bench.h"
#include "op_catalog.h"
#include "options_from_environment.h"
#include "schedulers.h"
#include "tool_environment.h"
#include "shape_option.h"
#include "suite_file.h"
#include "thread_env.h"
#include "unfused_chain.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using tessera::bench::kOnednn;
using tessera::bench::kTesseraUnfused;

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct Options {
    std::string op, shape, suite, suite_file, json, csv, plot;
    std::vector<std::string> schedulers;
    // Models (--model, or --suite models / --models DIR).
    std::string model, models_dir, python, work_dir, layout = "auto";
    std::vector<std::string> inputs;
    std::vector<std::string> against = {tessera::bench::kOnnxRuntime, tessera::bench::kPyTorch};
    int warmup = 5;
    double tolerance = 1e-3;
    bool timeout_given = false;
    bool per_layer = false;  // --per-layer: every partition against the same nodes in onnxruntime
    bool tune_graph = true;  // --no-tune-graph: with --tune (models), the partitions only
    bool tune = false;       // --tune: Tessera's library compiled with tessera compile --tune
    bool models() const { return !model.empty() || suite == "models" || !models_dir.empty(); }
    bool default_schedulers = false;  // no --schedulers: Tessera-unfused joins for chain ops
    // Each contender timed alone in its own process, oneDNN's OpenMP threads on
    // libgomp's default wait policy: measured fairest (docs/results.md, "OpenMP wait
    // policy"); --timing interleaved with --omp-wait passive is the other way.
    std::string omp_wait = "default";
    std::string timing = "auto";  // alone with oneDNN among the contenders, else interleaved
    std::string target;  // --target: the Halide contenders' JIT target (HL_JIT_TARGET), e.g. host-cuda
    bool interleaved = false;
    bool thread_pool_given = false;
    bool list = false;
    bool help = false;
    int threads = int(std::max(1u, std::thread::hardware_concurrency()));
    tessera::bench::BenchSettings settings;
};

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

std::vector<std::string> known_contenders() {
    std::vector<std::string> all = tessera::scheduler_names();
    all.push_back(kTesseraUnfused);
    all.push_back(kOnednn);
    all.push_back(tessera::bench::kCublas);
    all.push_back(tessera::bench::kCudnn);
    return all;
}

// Every Halide autoscheduler but "none" (Halide's unscheduled default), and oneDNN;
// with a chain op among `configs`, Tessera-unfused after Tessera; cuBLAS and cuDNN
// where the build has them and a GPU is present.
std::vector<std::string> default_contenders(const std::vector<tessera::ops::OpConfig> &configs = {}) {
    const bool chains = std::any_of(configs.begin(), configs.end(), [](const tessera::ops::OpConfig &c) {
        return tessera::bench::is_chain_op(c.op);
    });
    std::vector<std::string> all;
    for (const std::string &s : tessera::scheduler_names()) {
        if (s != "none") all.push_back(s);
        if (s == "Tessera" && chains) all.push_back(kTesseraUnfused);
    }
    all.push_back(kOnednn);
    for (const std::string &gpu : tessera::bench::usable_gpu_baselines()) all.push_back(gpu);
    return all;
}

std::vector<std::string> parse_schedulers(const std::string &list) {
    std::vector<std::string> out;
    std::stringstream in(list);
    std::string name;
    while (std::getline(in, name, ',')) {
        if (name.empty()) continue;
        std::string canonical;
        tessera::bench::Variant variant;
        try {
            variant = tessera::bench::split_variant(name);
        } catch (const std::invalid_argument &e) {
            throw UsageError(e.what());
        }
        for (const std::string &known : known_contenders()) {
            if (lower(known) == lower(variant.base)) canonical = known;
        }
        if (!canonical.empty() && !variant.settings.empty()) {
            // Settings are Tessera's typed options; Halide's own autoschedulers read
            // their HL_* variables from the environment tessera-bench runs in.
            if (canonical != "Tessera" && canonical != kTesseraUnfused) {
                throw UsageError(canonical + " takes no variant settings ('" + name + "': they are Tessera's options)");
            }
            try {
                tessera::bench::apply_variant(variant, {});
            } catch (const std::invalid_argument &e) {
                throw UsageError("--schedulers " + name + ": " + e.what());
            }
            canonical += name.substr(variant.base.size());
        }
        if (canonical.empty()) {
            std::string names;
            for (const std::string &known : known_contenders()) names += " " + known;
            throw UsageError("unknown scheduler '" + name + "' (known:" + names + ")");
        }
        if (std::find(out.begin(), out.end(), canonical) == out.end()) out.push_back(canonical);
    }
    if (out.empty()) throw UsageError("--schedulers needs at least one name");
    return out;
}

// --against: onnxruntime, pytorch (case-insensitive, in the order given), or none.
std::vector<std::string> parse_peers(const std::string &list) {
    using namespace tessera::bench;
    std::vector<std::string> out;
    std::stringstream in(list);
    std::string name;
    while (std::getline(in, name, ',')) {
        name = lower(name);
        if (name.empty()) continue;
        if (name == "none") return {};
        if (name != kOnnxRuntime && name != kPyTorch) {
            throw UsageError("unknown peer '" + name + "' for --against (known: onnxruntime, pytorch, none)");
        }
        if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    }
    if (out.empty()) throw UsageError("--against needs onnxruntime, pytorch or none");
    return out;
}

void usage(std::FILE *to) {
    std::string names;
    for (const std::string &s : known_contenders()) names += (names.empty() ? "" : ",") + s;
    std::fprintf(to,
                 "usage: tessera-bench (--op NAME [--shape K=V,...] | --suite default|roller|chimera|memory | --suite-file F)\n"
                 "                     [--schedulers LIST] [--reps N] [--threads N] [--seed N] [--timeout S] [--target T]\n"
                 "                     [--timing alone|interleaved] [--thread-pool model|halide] [--omp-wait default|active|passive]\n"
                 "                     [--json F] [--csv F] [--plot F.png] [--verbose]\n"
                 "       tessera-bench --model F.onnx [--input [name=]x.npy]... [--against onnxruntime,pytorch|none]\n"
                 "                     [--threads T] [--reps N] [--warmup N] [--timing interleaved|alone]\n"
                 "                     [--tolerance E] [--python PY]\n"
                 "                     [--json F] [--plot F.png] [--work-dir D] [--layout L] [--timeout S]\n"
                 "                     [--tune [--no-tune-graph] | --per-layer] [--verbose]\n"
                 "       tessera-bench --suite models [--models DIR] [same options as --model but --input]\n"
                 "       tessera-bench --list\n"
                 "  --op, --shape  one op, e.g. --op matmul --shape M=512,N=1024,K=64\n"
                 "  --suite        built-in suite file (apps/suites/NAME.suite)\n"
                 "  --suite-file   your own suite: one op per line, 'op key=value ...'\n"
                 "  --schedulers   comma-separated, case-insensitive, of: %s\n"
                 "                 (default: all but none, Tessera-unfused only with chain ops); Tessera+OPTION=VALUE[+...]\n"
                 "                 adds a variant scheduled with those options (explain, top_k, candidate,\n"
                 "                 fuse_chains, device_profile, gpu_profile), e.g. Tessera+candidate=1;\n"
                 "                 Tessera+measure=K times Tessera's top K and keeps the fastest\n"
                 "                 Tessera-unfused: a chain op (attention, gemm_chain,\n"
                 "                 conv_chain) as its separate ops, each scheduled by Tessera on its own\n"
                 "  --reps         timed interleaved rounds at most (default 20, at least 3; stops after ~1.5 s)\n"
                 "  --threads      threads for every contender (HL_NUM_THREADS, OMP_NUM_THREADS; default all cores)\n"
                 "  --target       the Halide contenders' JIT target (default host; host-cuda and host-opencl\n"
                 "                 need a GPU or OpenCL device: JIT with PoCL crashes, see tests/README.md)\n"
                 "  --seed         seed of the random inputs (default 1)\n"
                 "  --tune         adds Tessera+measure=3 after Tessera: its measured pick beside the untuned one\n"
                 "  --timeout      seconds one op may take before its running contender is marked crashed (180)\n"
                 "  --timing       alone: each contender timed in its own process, one after the other (the\n"
                 "                 default when oneDNN takes part); interleaved: all in one process, rounds\n"
                 "                 A B C A B C (a slow spell hits all alike, but OpenMP threads spinning after\n"
                 "                 oneDNN take Halide's cores; the default among Halide schedulers)\n"
                 "  --thread-pool  model (default): Halide contenders' parallel loops on the pool a compiled\n"
                 "                 model runs on (--threads threads); halide: on Halide's own pool\n"
                 "  --omp-wait     OMP_WAIT_POLICY of oneDNN's OpenMP threads: default (libgomp's: spin, then\n"
                 "                 sleep), active, passive (docs/results.md compares them)\n"
                 "  --json, --csv  write every record; --plot draws speedups over oneDNN and a roofline\n"
                 "  --verbose      keep the autoschedulers' own output on stderr\n"
                 "  --list         every op with its keys\n"
                 "models: Tessera's compiled library (tessera compile) against onnxruntime and PyTorch, run by Python\n"
                 "children (scripts/peer_runner.py in the environment of scripts/install-peers.sh), timed in\n"
                 "interleaved rounds, every output checked against the first peer's:\n"
                 "  --model        an ONNX model; its input defaults to F.input.npy next to it (make models)\n"
                 "  --input        an .npy file per model input: [name=]x.npy\n"
                 "  --against      the peers, the first that runs the reference (default onnxruntime,pytorch);\n"
                 "                 pytorch loads the TorchScript F.pt next to F.onnx (make models writes it)\n"
                 "  --reps         timed rounds (default 20); --warmup untimed rounds first (default 5)\n"
                 "  --timing       interleaved (default): rounds, each run once no contender's threads are busy;\n"
                 "                 alone: each contender's runs back to back, one contender after another\n"
                 "  --tolerance    on the max relative error against the reference (default 1e-3; NaN fails)\n"
                 "  --python       the peers' interpreter (default $TESSERA_PEER_PYTHON, else .venv-peers/bin/python)\n"
                 "  --suite models apps/suites/models.suite: each NAME.onnx in --models DIR (default models/)\n"
                 "  --work-dir     keep the compiled library there (default: a temporary folder)\n"
                 "  --layout       auto (default), chosen, measured, blocked, nchwc, nhwc, packed or fixed: as tessera compile\n"
                 "  --timeout      seconds for each model, and for each peer's reply (default 900)\n"
                 "  --json, --plot one record per model and contender; a bar chart of the speedups over onnxruntime\n"
                 "  --tune         Tessera's library compiled with tessera compile --tune: the graph's layout and\n"
                 "                 fusion alternatives timed whole, then each partition's candidates\n"
                 "  --no-tune-graph  with --tune, the partitions' candidates only (layout and fusion as asked)\n"
                 "  --per-layer    where a model loses: every partition timed inside model runs (JIT, --threads)\n"
                 "                 against the same nodes cut out as a model of their own in onnxruntime\n"
                 "                 (scripts/per_layer_peer.py); a table by time lost, sums per op family; --json\n",
                 names.c_str());
}

int to_int(const std::string &flag, const std::string &value, int lo) {
    try {
        size_t used = 0;
        int v = std::stoi(value, &used);
        if (used == value.size() && v >= lo) return v;
    } catch (const std::exception &) {
    }
    throw UsageError(flag + " needs an integer >= " + std::to_string(lo) + ", got '" + value + "'");
}

// The options of a model run: every model flag, and none of the op-only ones.
void check_model_options(Options &o, int argc, char **argv, const std::string &schedulers) {
    const bool suite = o.suite == "models" || !o.models_dir.empty();
    if (!o.model.empty() && (suite || !o.suite.empty())) throw UsageError("give --model or --suite models, not both");
    if (!o.op.empty() || !o.suite_file.empty() || (!o.suite.empty() && o.suite != "models")) {
        throw UsageError("give exactly one of --op, --suite, --suite-file, --model");
    }
    if (suite && !o.inputs.empty()) throw UsageError("--input is for one --model; a suite's models read NAME.input.npy");
    if (!schedulers.empty()) throw UsageError("--schedulers is for ops; a model's contenders are tessera and --against");
    if (!o.csv.empty()) throw UsageError("--csv is for ops; write a model run with --json");
    if (o.per_layer && !o.plot.empty()) throw UsageError("--plot draws whole models; --per-layer writes --json");
    if (o.per_layer && o.tune) throw UsageError("--per-layer times the untuned partitions: no --tune");
    if (!o.tune_graph && !o.tune) throw UsageError("--no-tune-graph goes with --tune");
    if (o.per_layer && o.timing == "alone") throw UsageError("--per-layer times partitions inside model runs: no --timing");
    for (int i = 1; i < argc; i++) {
        if (std::string(argv[i]) == "--seed") throw UsageError("--seed is for ops; a model runs on its input files");
    }
    if (!o.timeout_given) o.settings.timeout_s = 900;
}

Options parse_args(int argc, char **argv) {
    Options o;
    std::string schedulers;
    for (int i = 1; i < argc; i++) {
        const std::string arg = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) throw UsageError(arg + " needs a value");
            return argv[++i];
        };
        if (arg == "--op") o.op = next();
        else if (arg == "--model") o.model = next();
        else if (arg == "--models") o.models_dir = next();
        else if (arg == "--input") o.inputs.push_back(next());
        else if (arg == "--against") o.against = parse_peers(next());
        else if (arg == "--python") o.python = next();
        else if (arg == "--work-dir") o.work_dir = next();
        else if (arg == "--per-layer") o.per_layer = true;
        else if (arg == "--tune") o.tune = true;
        else if (arg == "--no-tune-graph") o.tune_graph = false;
        else if (arg == "--layout") {
            o.layout = next();
            if (const std::string error = tessera::layout_option_error(o.layout); !error.empty()) throw UsageError(error);
        }
        else if (arg == "--warmup") o.warmup = to_int(arg, next(), 0);
        else if (arg == "--tolerance") {
            const std::string v = next();
            char *end = nullptr;
            o.tolerance = std::strtod(v.c_str(), &end);
            if (v.empty() || *end || !(o.tolerance >= 0)) throw UsageError("--tolerance needs a number >= 0, got '" + v + "'");
        }
        else if (arg == "--shape") o.shape = next();
        else if (arg == "--schedulers") schedulers = next();
        else if (arg == "--suite") o.suite = next();
        else if (arg == "--suite-file") o.suite_file = next();
        else if (arg == "--json") o.json = next();
        else if (arg == "--csv") o.csv = next();
        else if (arg == "--plot") o.plot = next();
        else if (arg == "--reps") o.settings.reps = to_int(arg, next(), 1);
        else if (arg == "--threads") o.threads = to_int(arg, next(), 1);
        else if (arg == "--target") {
            o.target = next();
            if (!Halide::Target::validate_target_string(o.target)) {
                throw UsageError("--target: '" + o.target + "' is not a Halide target (e.g. host, host-cuda, host-opencl)");
            }
        }
        else if (arg == "--timeout") {
            o.settings.timeout_s = to_int(arg, next(), 1);
            o.timeout_given = true;
        }
        else if (arg == "--seed") o.settings.seed = uint64_t(to_int(arg, next(), 0));
        else if (arg == "--list") o.list = true;
        else if (arg == "--help" || arg == "-h") o.help = true;
        else if (arg == "--verbose") o.settings.quiet = false;
        else if (arg == "--thread-pool") {
            const std::string t = next();
            if (t == "model") o.settings.thread_pool = tessera::bench::BenchSettings::ThreadPool::Model;
            else if (t == "halide") o.settings.thread_pool = tessera::bench::BenchSettings::ThreadPool::Halide;
            else throw UsageError("--thread-pool takes model or halide, got '" + t + "'");
            o.thread_pool_given = true;
        }
        else if (arg == "--timing") {
            const std::string t = next();
            if (t != "alone" && t != "interleaved") throw UsageError("--timing takes alone or interleaved, got '" + t + "'");
            o.timing = t;
        } else if (arg == "--omp-wait") {
            o.omp_wait = next();
            if (o.omp_wait != "active" && o.omp_wait != "passive" && o.omp_wait != "default") {
                throw UsageError("--omp-wait takes default, active or passive, got '" + o.omp_wait + "'");
            }
        }
        else throw UsageError("unknown argument '" + arg + "'");
    }
    if (o.models()) {
        if (!o.target.empty()) throw UsageError("--target is for ops: a model is compiled for this host");
        if (o.thread_pool_given) throw UsageError("--thread-pool is for ops: a model runs on its library's own pool");
        check_model_options(o, argc, argv, schedulers);
        return o;
    }
    for (const char *flag : {"--input", "--against", "--python", "--work-dir", "--warmup", "--tolerance", "--layout",
                             "--per-layer"}) {
        for (int i = 1; i < argc; i++) {
            if (flag == std::string(argv[i])) throw UsageError(std::string(flag) + " is for models: use it with --model or --suite models");
        }
    }
    o.default_schedulers = schedulers.empty();
    o.schedulers = o.default_schedulers ? default_contenders() : parse_schedulers(schedulers);
    if (o.tune && std::find(o.schedulers.begin(), o.schedulers.end(), "Tessera") == o.schedulers.end()) {
        throw UsageError("--tune measures Tessera's candidates: list Tessera in --schedulers");
    }
    // Halide contenders among themselves share no OpenMP threads: interleaved rounds
    // then only protect against slow spells.
    const bool with_onednn = std::find(o.schedulers.begin(), o.schedulers.end(), kOnednn) != o.schedulers.end();
    o.interleaved = o.timing == "interleaved" || (o.timing == "auto" && !with_onednn);
    const int sources = int(!o.op.empty()) + int(!o.suite.empty()) + int(!o.suite_file.empty());
    if (!o.list && !o.help && sources != 1) throw UsageError("give exactly one of --op, --suite, --suite-file");
    if (!o.shape.empty() && o.op.empty()) throw UsageError("--shape needs --op");
    return o;
}

std::string profile_line(const tessera::hal::DeviceProfile &p) {
    const std::string path = tessera::default_profile_path();
    char buf[512];
    std::snprintf(buf, sizeof buf, "device profile: %s (%s), peak %.1f GFLOP/s per core, DRAM copy %.1f GB/s",
                  p.source.c_str(),
                  p.source == "built-in" ? ("no usable " + path + "; run tessera-profile for measured peaks").c_str()
                                         : path.c_str(),
                  p.fma_gflops_per_core, p.dram_copy_gbs);
    std::string line = buf;
    if (p.dram_transpose_gbs > 0) {
        std::snprintf(buf, sizeof buf, ", DRAM 2-D transpose %.1f GB/s", p.dram_transpose_gbs);
        line += buf;
    }
    return line;
}

// scripts/bench_plot.py draws `json` (op or model records) into `png`.
bool plot(const std::string &json, const std::string &png) {
    // Debian's interpreter has python3-matplotlib; a python3 earlier on PATH may not.
    const std::string python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
    const std::string command =
        python + " '" + std::string(TESSERA_SOURCE_DIR) + "/scripts/bench_plot.py' '" + json + "' '" + png + "'";
    if (std::system(command.c_str()) != 0) {
        std::fprintf(stderr, "tessera-bench: plotting failed: %s\n", command.c_str());
        return false;
    }
    std::printf("plot: %s\n", png.c_str());
    return true;
}

int run(const Options &o) {
    std::vector<tessera::ops::OpConfig> configs;
    std::string source;
    if (!o.op.empty()) {
        configs.push_back(tessera::parse_shape_option(o.op, o.shape));
        source = "the command line";
    } else {
        source = o.suite_file.empty() ? tessera::builtin_suite_path(o.suite) : o.suite_file;
        for (const tessera::SuiteEntry &e : tessera::load_suite_file(source)) configs.push_back(e.config);
    }

    std::vector<std::string> schedulers = o.default_schedulers ? default_contenders(configs) : o.schedulers;
    if (o.tune) {
        // Tessera's measured pick beside its untuned one.
        auto it = std::find(schedulers.begin(), schedulers.end(), "Tessera");
        schedulers.insert(it + 1, "Tessera+" + std::string(tessera::bench::kMeasureSetting) + "=" +
                                      std::to_string(tessera::kDefaultTuneCandidates));
    }
    tessera::bench::BenchSettings settings = o.settings;
    settings.scheduler = tessera::scheduler_choice_from_environment("Tessera");
    settings.scheduler.options.parallelism = o.threads;
    settings.threads = o.threads;
    if (!o.target.empty()) settings.scheduler.target = Halide::Target(o.target);
    settings.measured_candidates = tessera::measured_candidates_from_environment();
#ifdef TESSERA_TEST_HOOKS
    if (const char *inject = std::getenv("TESSERA_BENCH_INJECT_CRASH")) settings.inject_crash = inject;
#endif
    const tessera::hal::DeviceProfile profile = tessera::profile_or_builtin(settings.scheduler.options);
    std::string names;
    for (const std::string &s : schedulers) names += " " + s;
    std::printf("tessera-bench: %zu ops from %s, %d threads, seed %llu, contenders:%s\n", configs.size(),
                source.c_str(), o.threads, (unsigned long long)o.settings.seed, names.c_str());
    if (!o.target.empty()) std::printf("Halide contenders JIT-compiled for %s\n", o.target.c_str());
    std::printf("%s\n", profile_line(profile).c_str());
    std::printf("timing: %s; Halide contenders on %s; OMP_WAIT_POLICY=%s",
                o.interleaved ? "interleaved rounds" : "each contender alone",
                settings.thread_pool == tessera::bench::BenchSettings::ThreadPool::Model ? "a model's thread pool"
                                                                                         : "Halide's thread pool",
                o.omp_wait == "default" ? "unset (libgomp's default)" : o.omp_wait.c_str());
    if (const char *beam = std::getenv("HL_BEAM_SIZE")) {
        std::printf("; Adams2019 searches with HL_BEAM_SIZE=%s%s", beam,
                    std::string(beam) == "1" ? " (greedy, not its default beam of 32)" : "");
    }
    std::printf("\n");
    std::printf("  %-14s %-8s %9s %9s %15s %7s %9s %9s %9s %9s  %s\n", "scheduler", "status", "min ms", "med ms",
                "rate", "%peak", "vs oneDNN", "sched ms", "cg ms", "rel err", "impl");
    std::fflush(stdout);

    std::vector<tessera::bench::BenchRecord> all;
    for (const tessera::ops::OpConfig &config : configs) {
        std::vector<tessera::bench::BenchRecord> records;
        if (o.interleaved) {
            records = tessera::bench::bench_op_isolated(config, schedulers, settings);
        } else {
            for (const std::string &s : schedulers) {
                for (const auto &r : tessera::bench::bench_op_isolated(config, {s}, settings)) records.push_back(r);
            }
        }
        for (auto &r : records) tessera::bench::derive_rates(r, profile, o.threads);
        tessera::bench::derive_speedups(records);
        std::printf("%s %s\n%s", config.op.c_str(), config.attrs_string().c_str(),
                    tessera::bench::format_rows(records).c_str());
        std::fflush(stdout);
        all.insert(all.end(), records.begin(), records.end());
    }
    std::printf("%s", tessera::bench::format_summary(all, schedulers).c_str());

    int status = 0;
    std::string json = o.json;
    if (json.empty() && !o.plot.empty()) json = o.plot + ".json";
    try {
        if (!json.empty()) tessera::bench::write_json(all, json);
        if (!o.csv.empty()) tessera::bench::write_csv(all, o.csv);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tessera-bench: %s\n", e.what());
        return 1;
    }
    if (!o.plot.empty() && !plot(json, o.plot)) status = 1;
    if (!json.empty()) std::printf("json: %s\n", json.c_str());
    return status;
}

#ifdef TESSERA_WITH_MODELS
// --model F.onnx, or --suite models: each model in a child process of its own.
// The model files of --model, or of --suite models (the suite's models that exist).
std::vector<std::string> model_files(const Options &o) {
    if (!o.model.empty()) return {o.model};
    const std::string dir = o.models_dir.empty() ? std::string(TESSERA_SOURCE_DIR) + "/models" : o.models_dir;
    const std::string suite = tessera::builtin_suite_path("models");
    std::vector<std::string> files;
    for (const std::string &name : tessera::bench::load_model_suite(suite)) {
        const std::string file = dir + "/" + name + ".onnx";
        if (std::filesystem::is_regular_file(file)) files.push_back(file);
        else std::printf("%s: skipped: no %s (make models)\n", name.c_str(), file.c_str());
    }
    return files;
}

// --per-layer: each model's partitions against the same nodes in onnxruntime.
int run_per_layer(const Options &o, const tessera::bench::ModelBenchOptions &base) {
    using namespace tessera::bench;
    std::vector<LayerRecord> all;
    for (const std::string &file : model_files(o)) {
        ModelBenchOptions m = base;
        m.model = file;
        if (!o.model.empty()) m.inputs = o.inputs;
        std::printf("\n");
        const std::vector<LayerRecord> layers = bench_layers(m);
        std::printf("%s", format_layer_table(layers).c_str());
        all.insert(all.end(), layers.begin(), layers.end());
        std::fflush(stdout);
    }
    if (o.model.empty() && !all.empty()) std::printf("\nall models:\n%s", format_family_summary(all).c_str());
    if (!o.json.empty()) {
        nlohmann::json j = nlohmann::json::array();
        for (const LayerRecord &l : all) j.push_back(to_json(l));
        std::ofstream out(o.json);
        out << j.dump(2) << "\n";
        if (!out) {
            std::fprintf(stderr, "tessera-bench: %s: cannot write\n", o.json.c_str());
            return 1;
        }
        std::printf("json: %s\n", o.json.c_str());
    }
    return 0;
}

int run_models(const Options &o) {
    using namespace tessera::bench;
    ModelBenchOptions base;
    base.against = o.against;
    base.threads = o.threads;
    base.reps = o.settings.reps;
    base.warmup = o.warmup;
    base.tolerance = o.tolerance;
    base.work_dir = o.work_dir;
    base.layout = o.layout;
    base.timeout_s = o.settings.timeout_s;
    base.verbose = !o.settings.quiet;
    base.interleaved = o.timing != "alone";
    base.scheduler_options = tessera::scheduler_options_from_environment(o.threads);
    base.cxx = tessera::cxx_from_environment();
    base.tune = o.tune;
    base.tune_graph = o.tune_graph;
    const char *peer_python = std::getenv("TESSERA_PEER_PYTHON");
    base.python = find_peer_python(o.python, peer_python ? peer_python : "", TESSERA_SOURCE_DIR, base.python_missing);
    const char *runner = std::getenv("TESSERA_PEER_RUNNER");
    base.runner = runner && *runner ? runner : std::string(TESSERA_SOURCE_DIR) + "/scripts/peer_runner.py";
    std::string peers;
    for (const std::string &p : o.against) peers += (peers.empty() ? "" : ", ") + p;
    std::printf("tessera-bench: models, tessera against %s; peers run by %s\n", peers.empty() ? "no peer" : peers.c_str(),
                base.python.empty() ? "(no Python environment)" : base.python.c_str());

    if (o.per_layer) return run_per_layer(o, base);

    std::vector<ModelRecord> all;
    if (!o.model.empty()) {
        ModelBenchOptions m = base;
        m.model = o.model;
        m.inputs = o.inputs;
        all = bench_model_isolated(m);
    } else {
        const std::string dir = o.models_dir.empty() ? std::string(TESSERA_SOURCE_DIR) + "/models" : o.models_dir;
        const std::string suite = tessera::builtin_suite_path("models");
        const std::vector<std::string> names = load_model_suite(suite);
        std::printf("suite %s: %zu models from %s\n", suite.c_str(), names.size(), dir.c_str());
        for (const std::string &name : names) {
            ModelBenchOptions m = base;
            m.model = dir + "/" + name + ".onnx";
            if (!std::filesystem::is_regular_file(m.model)) {
                std::printf("%s: skipped: no %s (make models, or /usr/bin/python3 scripts/export-models.py --out %s)\n",
                            name.c_str(), m.model.c_str(), dir.c_str());
                continue;
            }
            if (!o.work_dir.empty()) m.work_dir = o.work_dir + "/" + name;
            std::printf("\n");
            try {
                const std::vector<ModelRecord> records = bench_model_isolated(m);
                all.insert(all.end(), records.begin(), records.end());
            } catch (const ModelInputError &e) {
                std::printf("%s: failed: %s\n", name.c_str(), e.what());
                ModelRecord r;
                r.model = m.model;
                r.scheduler = kTessera;
                r.threads = o.threads;
                r.error = e.what();
                all.push_back(r);
            }
            std::fflush(stdout);
        }
        if (all.empty()) std::printf("\nno model ran\n");
        else std::printf("\n%s", format_model_summary(all).c_str());
    }

    int status = 0;
    for (const ModelRecord &r : all) {
        if (r.status == "mismatch" || r.status == "failed" || r.status == "crashed") status = 1;
    }
    std::string json = o.json;
    if (json.empty() && !o.plot.empty()) json = o.plot + ".json";
    try {
        if (!json.empty()) write_model_json(all, json);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tessera-bench: %s\n", e.what());
        return 1;
    }
    if (!o.plot.empty() && !plot(json, o.plot)) status = 1;
    if (!json.empty()) std::printf("json: %s\n", json.c_str());
    return status;
}
#endif

}  // namespace

int main(int argc, char **argv) {
    Options options;
    try {
        options = parse_args(argc, argv);
        if (options.help) {
            usage(stdout);
            return 0;
        }
        if (options.list) {
            std::printf("%s", tessera::ops::catalog_listing().c_str());
            std::string names;
            for (const std::string &s : known_contenders()) names += " " + s;
            std::printf("\nschedulers:%s\nsuites: default roller chimera memory (apps/suites/); models (--model, --suite models)\n", names.c_str());
            return 0;
        }
        // Validate the ops before the re-exec so a usage error is reported once.
        if (!options.op.empty()) tessera::parse_shape_option(options.op, options.shape);
        if (options.models()) {
#ifdef TESSERA_WITH_MODELS
            // Before the re-exec, so a bad file is reported once.
            if (!options.model.empty() && !std::filesystem::is_regular_file(options.model)) {
                throw tessera::bench::ModelInputError("--model " + options.model + ": no such file");
            }
            tessera::bench::ensure_thread_environment(options.threads, options.omp_wait.c_str(), argv);
            return run_models(options);
#else
            throw UsageError("this tessera-bench was built without the graph layer (libonnx-dev, libprotobuf-dev): "
                             "no --model");
#endif
        }
        if (!options.target.empty()) {
            try {
                Halide::Target checked(options.target);
            } catch (const std::exception &) {
                throw UsageError("--target '" + options.target + "' is not a Halide target string");
            }
        }
        tessera::bench::ensure_thread_environment(options.threads, options.omp_wait.c_str(), argv);
        return run(options);
    } catch (const UsageError &e) {
        std::fprintf(stderr, "tessera-bench: %s\n", e.what());
        usage(stderr);
        return 2;
    } catch (const tessera::ops::OpError &e) {
        std::fprintf(stderr, "tessera-bench: %s\n", e.what());
        return 2;
    } catch (const tessera::SuiteError &e) {
        std::fprintf(stderr, "tessera-bench: %s\n", e.what());
        return 2;
#ifdef TESSERA_WITH_MODELS
    } catch (const tessera::bench::ModelInputError &e) {
        std::fprintf(stderr, "tessera-bench: %s\n", e.what());
        return 2;
#endif
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tessera-bench: %s\n", e.what());
        return 1;
    }
}
