#include "op_bench.h"

#include "child_process.h"
#include "contender.h"
#include "op_catalog.h"
#include "op_check.h"
#include "reference.h"
#include "stopwatch.h"

#include <Halide.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <sys/mman.h>

namespace tessera::bench {

namespace {

BenchRecord blank_record(const ops::OpConfig &config, const ops::OpSignature &sig, const std::string &scheduler) {
    BenchRecord r;
    r.op = config.op;
    r.shape = config.attrs_string();
    r.scheduler = scheduler;
    r.flops = sig.flops;
    r.bytes = sig.bytes;
    r.compute_bound = sig.compute_bound;
    return r;
}

// Builds and checks one contender; returns it when it can be timed.
std::unique_ptr<Contender> build_and_check(const ops::OpConfig &config, const ops::OpSignature &sig,
                                           const BenchSettings &settings, std::vector<Tensor> &inputs,
                                           const Tensor &expected, graph::JitThreadPool *pool, BenchRecord &r) {
    try {
        auto c = std::make_unique<Contender>(config, r.scheduler, settings.scheduler, settings.measured_candidates, pool);
        r.schedule_ms = c->schedule_ms();
        r.compile_ms = c->compile_ms();
        if (!c->supported()) {
            r.status = "n/a";
            r.error = c->why_not();
            return nullptr;
        }
        r.impl = c->impl();
        r.optimised_impl = c->optimised_impl();
        Tensor out = make_poisoned_output(sig);
        c->run(inputs, out, pool);
        r.rel_error = relative_error(out, expected);
        r.ok = r.rel_error <= kRelTolerance;
        r.status = r.ok ? "ok" : "mismatch";
        if (!r.ok) r.error = "relative error " + std::to_string(r.rel_error) + " above the bound";
        return c;
    } catch (const Halide::CompileError &e) {
        r.error = std::string("compile error: ") + e.what();
    } catch (const Halide::RuntimeError &e) {
        r.error = std::string("runtime error: ") + e.what();
    } catch (const std::exception &e) {
        r.error = e.what();
    }
    r.status = "failed";
    r.ok = false;
    while (!r.error.empty() && (r.error.back() == '\n' || r.error.back() == ' ')) r.error.pop_back();
    return nullptr;
}

}  // namespace

std::vector<BenchRecord> bench_op_here(const ops::OpConfig &config, const std::vector<std::string> &schedulers,
                                       const BenchSettings &settings, Progress *progress) {
    const ops::OpSignature sig = ops::describe_op(config);
    std::vector<Tensor> inputs = make_inputs(sig, settings.seed);
    const Tensor expected = reference(config, inputs);

    // Made in the process that times (bench_op_isolated's child: threads do not
    // survive a fork).
    std::unique_ptr<graph::JitThreadPool> pool;
    if (settings.thread_pool == BenchSettings::ThreadPool::Model) {
        pool = std::make_unique<graph::JitThreadPool>(settings.threads);
    }
    std::vector<BenchRecord> records;
    std::vector<std::unique_ptr<Contender>> contenders;
    for (size_t i = 0; i < schedulers.size(); i++) {
        if (progress) progress->index = int(i);
        if (progress && !settings.inject_crash.empty() && schedulers[i] == settings.inject_crash) std::raise(SIGSEGV);
        records.push_back(blank_record(config, sig, schedulers[i]));
        contenders.push_back(build_and_check(config, sig, settings, inputs, expected, pool.get(), records.back()));
    }

    // Interleaved rounds (see time_interleaved), each contender into its own output;
    // a warm-up round first: caches, thread pools, page faults of the outputs.
    if (progress) progress->timing = 1;
    std::vector<Tensor> outputs;
    for (size_t i = 0; i < contenders.size(); i++) outputs.emplace_back(sig.output.shape);
    const std::vector<std::vector<double>> times =
        time_interleaved(contenders.size(), 1, 3, std::max(3, settings.reps), settings.budget_ms, [&](size_t i) {
            if (!contenders[i]) return false;
            if (progress) progress->index = int(i);
            contenders[i]->run(inputs, outputs[i], pool.get());
            return true;
        });
    for (size_t i = 0; i < contenders.size(); i++) {
        if (times[i].empty()) continue;
        records[i].time_ms_min = *std::min_element(times[i].begin(), times[i].end());
        records[i].time_ms_median = median(times[i]);
        records[i].rounds = int(times[i].size());
    }
    return records;
}

namespace {

struct Attempt {
    std::vector<BenchRecord> records;  // complete when ok
    bool ok = false;
    int culprit = -1;                  // index of the contender running when the child died
    std::string why;
};

Attempt attempt_in_child(const ops::OpConfig &config, const std::vector<std::string> &schedulers,
                         const BenchSettings &settings) {
    Attempt a;
    void *shared = mmap(nullptr, sizeof(Progress), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) throw std::runtime_error(std::string("mmap: ") + std::strerror(errno));
    Progress *progress = new (shared) Progress();
    // The plugins' progress output would bury the table: with `quiet` it goes to a
    // file whose tail explains a crash (e.g. the dynamic linker's message before exit 127).
    const ChildOutcome child = run_in_child(
        [&] {
            nlohmann::json all = nlohmann::json::array();
            for (const BenchRecord &r : bench_op_here(config, schedulers, settings, progress)) all.push_back(to_json(r));
            return all.dump();
        },
        settings.timeout_s, settings.quiet);
    const bool timing = progress->timing != 0;
    a.culprit = progress->index;
    munmap(shared, sizeof(Progress));

    if (child.ok) {
        for (const auto &j : nlohmann::json::parse(child.text)) a.records.push_back(record_from_json(j));
        a.ok = true;
        return a;
    }
    const std::string phase = timing ? "while timing" : "while building or checking";
    if (child.threw) {
        a.why = child.text;  // the op itself failed outside any contender (e.g. the reference)
        a.culprit = -1;
    } else {
        a.why = child.failure() + (child.timed_out ? " after " + std::to_string(settings.timeout_s) + " s " : " ") + phase;
    }
    if (!child.last_stderr_line.empty()) a.why += " (last stderr line: " + child.last_stderr_line + ")";
    return a;
}

}  // namespace

std::vector<BenchRecord> bench_op_isolated(const ops::OpConfig &config, const std::vector<std::string> &schedulers,
                                           const BenchSettings &settings) {
    const ops::OpSignature sig = ops::describe_op(config);
    std::vector<BenchRecord> records;
    std::vector<std::string> remaining = schedulers;
    while (!remaining.empty()) {
        Attempt a = attempt_in_child(config, remaining, settings);
        if (a.ok) {
            records.insert(records.end(), a.records.begin(), a.records.end());
            break;
        }
        if (a.culprit < 0 || a.culprit >= int(remaining.size())) {
            // Not attributable to one contender: every remaining one failed with the reason.
            for (const std::string &s : remaining) {
                BenchRecord r = blank_record(config, sig, s);
                r.status = "crashed";
                r.error = a.why;
                records.push_back(r);
            }
            break;
        }
        BenchRecord r = blank_record(config, sig, remaining[a.culprit]);
        r.status = "crashed";
        r.error = a.why;
        records.push_back(r);
        remaining.erase(remaining.begin() + a.culprit);
    }
    // Report in the order asked for.
    std::vector<BenchRecord> ordered;
    for (const std::string &s : schedulers) {
        for (const BenchRecord &r : records) {
            if (r.scheduler == s) ordered.push_back(r);
        }
    }
    return ordered;
}

}  // namespace tessera::bench
