// tessera-bench: compares Halide's autoschedulers (and Tessera's, once registered)
// with the oneDNN baseline on any op or suite: each contender is checked against the
// reference, then all are timed side by side in interleaved rounds with the same
// thread count. Writes a table, and optionally JSON, CSV and a PNG plot.
// Exit status: 0 the run completed (failures are recorded in their rows), 1 a report
// could not be written, 2 a usage error (unknown op, scheduler or key, bad value).
#include "bench_record.h"
#include "contender.h"
#include "device_profile.h"
#include "op_bench.h"
#include "op_catalog.h"
#include "schedulers.h"
#include "shape_option.h"
#include "suite_file.h"
#include "thread_env.h"
#include "unfused_chain.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
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
    bool default_schedulers = false;  // no --schedulers: Tessera-unfused joins for chain ops
    // Each contender timed alone in its own process, oneDNN's OpenMP threads on
    // libgomp's default wait policy: measured fairest (docs/results.md, "OpenMP wait
    // policy"); --timing interleaved with --omp-wait passive is the other way.
    std::string omp_wait = "default";
    std::string timing = "auto";  // alone with oneDNN among the contenders, else interleaved
    bool interleaved = false;
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
    return all;
}

// Every Halide autoscheduler but "none" (Halide's unscheduled default), and oneDNN;
// with a chain op among `configs`, Tessera-unfused after Tessera.
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
        if (!canonical.empty() && !variant.env.empty()) {
            if (canonical == kOnednn) throw UsageError("oneDNN takes no variant settings ('" + name + "')");
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

void usage(std::FILE *to) {
    std::string names;
    for (const std::string &s : known_contenders()) names += (names.empty() ? "" : ",") + s;
    std::fprintf(to,
                 "usage: tessera-bench (--op NAME [--shape K=V,...] | --suite default|roller|chimera|memory | --suite-file F)\n"
                 "                     [--schedulers LIST] [--reps N] [--threads N] [--seed N] [--timeout S]\n"
                 "                     [--timing alone|interleaved] [--omp-wait default|active|passive]\n"
                 "                     [--json F] [--csv F] [--plot F.png] [--verbose]\n"
                 "       tessera-bench --list\n"
                 "  --op, --shape  one op, e.g. --op matmul --shape M=512,N=1024,K=64\n"
                 "  --suite        built-in suite file (apps/suites/NAME.suite)\n"
                 "  --suite-file   your own suite: one op per line, 'op key=value ...'\n"
                 "  --schedulers   comma-separated, case-insensitive, of: %s\n"
                 "                 (default: all but none, Tessera-unfused only with chain ops); NAME+VAR=VALUE[+...]\n"
                 "                 adds a variant scheduled with those environment variables, e.g.\n"
                 "                 Tessera+TESSERA_CANDIDATE=1. Tessera-unfused: a chain op (attention, gemm_chain,\n"
                 "                 conv_chain) as its separate ops, each scheduled by Tessera on its own\n"
                 "  --reps         timed interleaved rounds at most (default 20, at least 3; stops after ~1.5 s)\n"
                 "  --threads      threads for every contender (HL_NUM_THREADS, OMP_NUM_THREADS; default all cores)\n"
                 "  --seed         seed of the random inputs (default 1)\n"
                 "  --timeout      seconds one op may take before its running contender is marked crashed (180)\n"
                 "  --timing       alone: each contender timed in its own process, one after the other (the\n"
                 "                 default when oneDNN takes part); interleaved: all in one process, rounds\n"
                 "                 A B C A B C (a slow spell hits all alike, but OpenMP threads spinning after\n"
                 "                 oneDNN take Halide's cores; the default among Halide schedulers)\n"
                 "  --omp-wait     OMP_WAIT_POLICY of oneDNN's OpenMP threads: default (libgomp's: spin, then\n"
                 "                 sleep), active, passive (docs/results.md compares them)\n"
                 "  --json, --csv  write every record; --plot draws speedups over oneDNN and a roofline\n"
                 "  --verbose      keep the autoschedulers' own output on stderr\n"
                 "  --list         every op with its keys\n",
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
        else if (arg == "--shape") o.shape = next();
        else if (arg == "--schedulers") schedulers = next();
        else if (arg == "--suite") o.suite = next();
        else if (arg == "--suite-file") o.suite_file = next();
        else if (arg == "--json") o.json = next();
        else if (arg == "--csv") o.csv = next();
        else if (arg == "--plot") o.plot = next();
        else if (arg == "--reps") o.settings.reps = to_int(arg, next(), 1);
        else if (arg == "--threads") o.threads = to_int(arg, next(), 1);
        else if (arg == "--timeout") o.settings.timeout_s = to_int(arg, next(), 1);
        else if (arg == "--seed") o.settings.seed = uint64_t(to_int(arg, next(), 0));
        else if (arg == "--list") o.list = true;
        else if (arg == "--help" || arg == "-h") o.help = true;
        else if (arg == "--verbose") o.settings.quiet = false;
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
    o.default_schedulers = schedulers.empty();
    o.schedulers = o.default_schedulers ? default_contenders() : parse_schedulers(schedulers);
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
    char buf[512];
    std::snprintf(buf, sizeof buf, "device profile: %s (%s), peak %.1f GFLOP/s per core, DRAM copy %.1f GB/s",
                  p.source.c_str(),
                  p.source == "built-in" ? ("no usable " + tessera::hal::default_profile_path() +
                                            "; run tessera-profile for measured peaks")
                                               .c_str()
                                         : tessera::hal::default_profile_path().c_str(),
                  p.fma_gflops_per_core, p.dram_copy_gbs);
    std::string line = buf;
    if (p.dram_transpose_gbs > 0) {
        std::snprintf(buf, sizeof buf, ", DRAM 2-D transpose %.1f GB/s", p.dram_transpose_gbs);
        line += buf;
    }
    return line;
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

    const std::vector<std::string> schedulers = o.default_schedulers ? default_contenders(configs) : o.schedulers;
    const tessera::hal::DeviceProfile profile = tessera::hal::host_profile();
    std::string names;
    for (const std::string &s : schedulers) names += " " + s;
    std::printf("tessera-bench: %zu ops from %s, %d threads, seed %llu, contenders:%s\n", configs.size(),
                source.c_str(), o.threads, (unsigned long long)o.settings.seed, names.c_str());
    std::printf("%s\n", profile_line(profile).c_str());
    std::printf("timing: %s; OMP_WAIT_POLICY=%s", o.interleaved ? "interleaved rounds" : "each contender alone",
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
            records = tessera::bench::bench_op_isolated(config, schedulers, o.settings);
        } else {
            for (const std::string &s : schedulers) {
                for (const auto &r : tessera::bench::bench_op_isolated(config, {s}, o.settings)) records.push_back(r);
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
    if (!o.plot.empty()) {
        // Debian's interpreter has python3-matplotlib; a python3 earlier on PATH may not.
        const std::string python = access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
        const std::string command = python + " '" + std::string(TESSERA_SOURCE_DIR) + "/scripts/bench_plot.py' '" +
                                    json + "' '" + o.plot + "'";
        if (std::system(command.c_str()) != 0) {
            std::fprintf(stderr, "tessera-bench: plotting failed: %s\n", command.c_str());
            status = 1;
        } else {
            std::printf("plot: %s\n", o.plot.c_str());
        }
    }
    if (!json.empty()) std::printf("json: %s\n", json.c_str());
    return status;
}

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
            std::printf("\nschedulers:%s\nsuites: default roller chimera memory (apps/suites/)\n", names.c_str());
            return 0;
        }
        // Validate the ops before the re-exec so a usage error is reported once.
        if (!options.op.empty()) tessera::parse_shape_option(options.op, options.shape);
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
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tessera-bench: %s\n", e.what());
        return 1;
    }
}
