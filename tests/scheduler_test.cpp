// The Tessera scheduler, called with typed options (schedule_pipeline, check_op)
// and as the plugin loaded the JIT way (load_plugin + Pipeline::auto_schedule):
// determinism, the emitted .schedule.h, missing estimates, stages it cannot
// analyse, schedule shapes on pinned machines, and a 30-stage pipeline.
// Halide's generated headers never use their `target` parameter.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "aot_batch_matmul.schedule.h"
#include "host_target.h"
#include "aot_conv2d_1x1.schedule.h"
#include "aot_conv2d_nhwc.schedule.h"
#include "aot_matmul.schedule.h"
#include "aot_transpose.schedule.h"
#include "prefetched_layer_norm.schedule.h"
#include "prefetched_softmax.schedule.h"
#pragma GCC diagnostic pop
#include "built_op.h"
#include "halide_axes.h"
#include "halide_io.h"
#include "jit_op.h"
#include "op_builder.h"
#include "op_check.h"
#include "pinned_machine.h"
#include "reference.h"
#include "schedulers.h"
#include "test_seed.h"
#include "test_scheduler_choice.h"
#include "device_profile.h"
#include "block_order.h"
#include "operator_chain.h"
#include "read_patterns.h"
#include "stage_plan.h"
#include "tessera_scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <regex>
#include <set>

namespace tessera {
namespace {

using namespace Halide;

using test::BuiltOp;
using test::build;

// aot_* libraries are generated with Tessera; their .schedule.h files, applied to
// the same pipeline built here, must compile (they are included above) and compute
// the same results.
void check_schedule_header(const std::string &line, void (*apply)(Pipeline, Target)) {
    BuiltOp b = build(line);
    Pipeline pipeline(b.out);
    apply(pipeline, tessera::hal::host_target());
    pipeline.compile_jit(tessera::hal::host_target());

    ops::OpConfig config = ops::parse_op_line(line);
    ops::OpSignature sig = ops::describe_op(config);
    const uint64_t seed = test::test_seed("schedule header: " + line);
    SCOPED_TRACE("seed " + std::to_string(seed) + ", " + line);
    std::vector<Tensor> inputs = make_inputs(sig, seed);
    Tensor out = make_poisoned_output(sig);
    for (size_t i = 0; i < inputs.size(); i++) b.params[i].set(as_halide_buffer(inputs[i]));
    Buffer<float> ob = as_halide_buffer(out);
    pipeline.realize(ob, tessera::hal::host_target());
    EXPECT_LE(relative_error(out, reference(config, inputs)), kRelTolerance);
}

using test::PinnedMachine;
using test::pinned_machines;

// Tessera's schedule source for a pipeline as the scheduler returns it for the
// pinned machine (its target, its profile, two threads), whatever the host.
std::string pinned_schedule_source(Pipeline pipeline, const PinnedMachine &machine,
                                   const std::string &profile = "") {
    return schedule_pipeline(pipeline, Target(machine.target), test::pinned_options(machine, profile)).source;
}


// Tessera's schedule of an op under a pinned machine, as data (the scheduler
// called directly, as the plugin calls it), and its source for messages.
struct PinnedSchedule {
    schedule::PipelineSchedule schedule;
    std::string source;
};
PinnedSchedule tessera_schedule(const std::string &line, const PinnedMachine &machine,
                                const std::string &profile = "") {
    BuiltOp b = build(line);
    ScheduleOutcome outcome =
        schedule_pipeline(Pipeline(b.out), Target(machine.target), test::pinned_options(machine, profile));
    return {outcome.schedule, outcome.source};
}

// A name without Halide's rename suffixes (a Func built again in one process
// becomes "softmax_max$1"; its wrappers "softmax$1_square").
std::string base_name(const std::string &name) {
    return std::regex_replace(name, std::regex("\\$\\d+"), "");
}

// The schedule of the Func whose name, without rename suffixes, is `base`; null if none.
const schedule::FuncSchedule *func_named(const schedule::PipelineSchedule &s, const std::string &base) {
    for (const schedule::FuncSchedule &f : s.funcs()) {
        if (base_name(f.name) == base) return &f;
    }
    return nullptr;
}

// Every loop directive of kind D in the schedule, with the Func it applies to.
template <class D>
std::vector<std::pair<std::string, D>> directives_of(const schedule::PipelineSchedule &s) {
    std::vector<std::pair<std::string, D>> found;
    for (const schedule::FuncSchedule &f : s.funcs()) {
        for (const schedule::StageSchedule &st : f.stages) {
            for (const schedule::LoopDirective &d : st.directives) {
                if (const D *x = std::get_if<D>(&d)) found.push_back({base_name(f.name), *x});
            }
        }
    }
    return found;
}

bool in_registers(const schedule::FuncSchedule *f) {
    return f && f->memory == MemoryType::Register;
}

// The extent `var` of the Func named `base` is bound to (0: not bound, or no such Func).
int bound_extent(const schedule::PipelineSchedule &s, const std::string &base, const std::string &var) {
    const schedule::FuncSchedule *f = func_named(s, base);
    return f && f->bound_extents.count(var) ? f->bound_extents.at(var) : 0;
}

// Whether a GEMV's reduction is vectorised: k's vector loop rfactored into lanes.
bool rfactors_lanes(const schedule::PipelineSchedule &s) {
    for (const schedule::Step &step : s.steps()) {
        const schedule::Rfactor *r = std::get_if<schedule::Rfactor>(&step);
        if (r && r->rvar == "k$x_vi" && r->new_var == "lane") return true;
    }
    return false;
}

// The op under Tessera (JIT, as check_op runs it, on this host; with the profile
// file `profile`, else the built-in figures) matches the reference.
void expect_tessera_correct(const std::string &line, const std::string &profile = "") {
    const uint64_t seed = test::test_seed("Tessera: " + line);
    OpCheck r = check_op(ops::parse_op_line(line), test::host_choice("Tessera", profile), seed, 0);
    EXPECT_TRUE(r.error.empty()) << line << ": " << r.error;
    EXPECT_LE(r.rel_error, kRelTolerance) << line << ", seed " << seed;
}

TEST(TesseraPlugin, EmittedScheduleHeadersReproduceTheResults) {
    // Must match the configurations in generators/aot_suite.cmake.
    check_schedule_header("matmul M=37 N=53 K=29 bias=1", apply_schedule_aot_matmul);
    check_schedule_header("batch_matmul B=3 M=17 N=33 K=20", apply_schedule_aot_batch_matmul);
    check_schedule_header("conv2d n=1 c=5 h=12 w=12 oc=7 kh=3 kw=3 pad=1 dilation=2 layout=nhwc",
                          apply_schedule_aot_conv2d_nhwc);
    // NCHW 1x1: Tessera fuses x and y (axis fusion; the header fuses them too).
    check_schedule_header("conv2d n=2 c=20 h=14 w=14 oc=24 kh=1 kw=1", apply_schedule_aot_conv2d_1x1);
    // A transpose in cache: squares of the input wrapped (in()) and held in registers.
    check_schedule_header("transpose shape=37x131 perm=1,0", apply_schedule_aot_transpose);
    // Emitted under tests/small_llc_profile.json (tests/CMakeLists.txt): prefetches
    // the input's next row through the Function that wraps it.
    check_schedule_header("layer_norm shape=999x256", apply_schedule_prefetched_layer_norm);
    // The same profile: the exponentials prefetch the next block of rows (unguarded).
    check_schedule_header("softmax shape=999x256 axis=-1", apply_schedule_prefetched_softmax);
}

TEST(TesseraScheduler, DecisionsCarryRolesCandidatesAndTheChoice) {
    // What a tuner reads: per stage its role, the rPrograms weighed with their
    // predicted times, the one applied and why; the outcome's predicted time is the
    // chosen program's. Pinned machine, so the shapes hold on any host.
    const PinnedMachine &avx512 = pinned_machines().back();
    for (int candidate : {0, 2}) {
        SchedulerOptions options = test::pinned_options(avx512);
        options.top_k = 3;
        options.candidate = candidate;
        BuiltOp b = build("matmul M=256 N=192 K=128 bias=1");
        const ScheduleOutcome o = schedule_pipeline(Pipeline(b.out), Target(avx512.target), options);
        const StageDecision *sum = nullptr;
        for (const StageDecision &d : o.decisions.stages) {
            if (base_name(d.func) == "matmul_sum") sum = &d;
        }
        ASSERT_NE(sum, nullptr) << o.explanation;
        EXPECT_EQ(sum->role, StageRole::EpilogueOutput);
        EXPECT_EQ(base_name(sum->epilogue), "matmul_bias");
        ASSERT_EQ(sum->candidates.size(), 3u);
        EXPECT_EQ(sum->chosen, candidate);
        EXPECT_EQ(sum->choice, candidate == 0 ? ProgramChoice::BestPredicted : ProgramChoice::CandidateOption);
        for (const rtile::RProgram &p : sum->candidates) {
            // Best predicted first (a first one short of accumulators may yield to one within 2%).
            EXPECT_GT(p.predicted_ms, 0);
            EXPECT_LE(sum->candidates[0].predicted_ms, p.predicted_ms * 1.02);
        }
        EXPECT_EQ(o.predicted_stages, 1);
        EXPECT_DOUBLE_EQ(o.predicted_ms, sum->candidates[size_t(candidate)].predicted_ms);
    }
    // One stage's candidate, by its Func's name (how a tuner applies a measured pick).
    SchedulerOptions per_stage = test::pinned_options(avx512);
    per_stage.stage_candidates["matmul_sum"] = 1;
    BuiltOp b = build("matmul M=256 N=192 K=128 bias=1");
    const ScheduleOutcome picked = schedule_pipeline(Pipeline(b.out), Target(avx512.target), per_stage);
    bool applied = false;
    for (const StageDecision &d : picked.decisions.stages) {
        if (base_name(d.func) != "matmul_sum") continue;
        applied = d.chosen == 1 && d.choice == ProgramChoice::CandidateOption && d.candidates.size() >= 2;
    }
    EXPECT_TRUE(applied) << picked.explanation;
    // A memory-bound pipeline: no candidates, roles only, nothing predicted.
    BuiltOp softmax = build("softmax shape=999x256 axis=-1");
    const ScheduleOutcome o =
        schedule_pipeline(Pipeline(softmax.out), Target(avx512.target), test::pinned_options(avx512));
    std::set<StageRole> roles;
    for (const StageDecision &d : o.decisions.stages) {
        roles.insert(d.role);
        EXPECT_TRUE(d.candidates.empty()) << d.func;
    }
    EXPECT_TRUE(roles.count(StageRole::MemoryOutput)) << o.explanation;
    EXPECT_TRUE(roles.count(StageRole::Reduction)) << o.explanation;
    EXPECT_FALSE(roles.count(StageRole::Compute));
    EXPECT_EQ(o.predicted_stages, 0);
}

TEST(TesseraScheduler, EverySchedulesFirstLineNamesItsDevice) {
    // A .schedule.h says which figures it was built for: the profile's CPU model
    // and fingerprint (the same figures give the same fingerprint on any host).
    for (const PinnedMachine &m : pinned_machines()) {
        BuiltOp b = build("relu shape=1000");
        const std::string source = pinned_schedule_source(Pipeline(b.out), m);
        const hal::DeviceProfile profile = test::load_test_profile(m.profile);
        const std::string first = source.substr(0, source.find('\n'));
        EXPECT_EQ(first.rfind("// Device: " + profile.cpu_model, 0), 0u) << source;
        EXPECT_NE(first.find(hal::profile_fingerprint(profile)), std::string::npos) << source;
    }
}

TEST(TesseraPlugin, EveryTopKCandidateIsCorrect) {
    // The candidate option applies the n-th best rProgram: each must compute the same.
    for (const char *line : {"matmul M=64 N=48 K=96", "conv2d n=1 c=8 h=13 w=11 oc=12 kh=3 kw=3 pad=1",
                             "conv2d n=1 c=8 h=9 w=10 oc=16 kh=3 kw=3 stride=2 pad=1 layout=nhwc",
                             "batch_matmul B=2 M=24 N=40 K=16", "conv2d n=1 c=16 h=9 w=12 oc=40 kh=1 kw=1"}) {
        for (int candidate = 0; candidate < 3; candidate++) {
            SchedulerChoice choice = test::host_choice();
            choice.options.candidate = candidate;
            const uint64_t seed = test::test_seed("candidate " + std::to_string(candidate) + ": " + line);
            OpCheck r = check_op(ops::parse_op_line(line), choice, seed, 0);
            EXPECT_TRUE(r.error.empty()) << line << " candidate " << candidate << ": " << r.error;
            EXPECT_LE(r.rel_error, kRelTolerance) << line << " candidate " << candidate << ", seed " << seed;
        }
    }
}

TEST(TesseraPlugin, MeasuredTopKKeepsACorrectKernel) {
    const uint64_t seed = test::test_seed("measured top-k: matmul M=96 N=80 K=64");
    OpCheck r = check_op(ops::parse_op_line("matmul M=96 N=80 K=64"), test::host_choice(), seed, 0, 3);
    EXPECT_TRUE(r.error.empty()) << r.error;
    EXPECT_LE(r.rel_error, kRelTolerance) << "seed " << seed;
}

TEST(TesseraPlugin, MissingEstimateNamesOutputAndDimension) {
    ImageParam in(Float(32), 2, "in");
    in.set_estimates({{0, 64}, {0, 64}});
    Var x("x"), y("y");
    Func f("no_estimates");
    f(x, y) = in(x, y) * 2.0f;
    f.set_estimate(x, 0, 64);  // y has none
    load_plugin(TESSERA_PLUGIN_PATH);
    try {
        Pipeline(f).auto_schedule("Tessera", tessera::hal::host_target(), MachineParams(2, 32 << 20, 40));
        FAIL() << "expected an error";
    } catch (const CompileError &e) {
        std::string message = e.what();
        EXPECT_NE(message.find("output no_estimates has no estimate for dimension 1 (y)"), std::string::npos)
            << message;
    }
}

TEST(TesseraPlugin, UnanalysableStageGetsSafeScheduleAndWarning) {
    // A gather: the index comes from data, so no affine access map exists.
    ImageParam table(Float(32), 1, "table"), index(Int(32), 1, "index");
    table.set_estimates({{0, 10}});
    index.set_estimates({{0, 100}});
    Var x("x");
    Func gather("gather");
    gather(x) = table(clamp(index(x), 0, 9)) + 1.0f;
    gather.set_estimate(x, 0, 100);
    load_plugin(TESSERA_PLUGIN_PATH);
    Pipeline p(gather);
    testing::internal::CaptureStderr();
    p.auto_schedule("Tessera", tessera::hal::host_target(), MachineParams(2, 32 << 20, 40));
    std::string err = testing::internal::GetCapturedStderr();
    // By the Func's own name: Halide makes names unique per process (gather$1 when
    // an earlier test's names took the same slot of its counters).
    EXPECT_NE(err.find("stage " + gather.name() + " cannot be analysed"), std::string::npos) << err;

    Buffer<float> t(10);
    Buffer<int> idx(100);
    for (int i = 0; i < 10; i++) t(i) = float(i) * 0.5f;
    for (int i = 0; i < 100; i++) idx(i) = (i * 7) % 13 - 1;  // some out of range: clamped
    table.set(t);
    index.set(idx);
    Buffer<float> out(100);
    for (int i = 0; i < 100; i++) out(i) = NAN;
    p.realize(out, tessera::hal::host_target());
    for (int i = 0; i < 100; i++) {
        int j = std::min(9, std::max(0, idx(i)));
        EXPECT_FLOAT_EQ(out(i), t(j) + 1.0f) << "at " << i;  // exact: one add of representable values
    }
}

// `source` with its Func identifiers renamed as in `like` (matched by their
// pipeline.get_func index): Halide renames a Func whose name is taken ("conv2d$1",
// written conv2d_1 in schedule source).
std::string with_func_names_of(const std::string &like, std::string source) {
    const std::regex decl("Func (\\w+) = pipeline\\.get_func\\((\\d+)\\)");
    std::map<std::string, std::string> name_of_index;
    for (std::sregex_iterator it(like.begin(), like.end(), decl), end; it != end; ++it) {
        name_of_index[(*it)[2]] = (*it)[1];
    }
    std::vector<std::pair<std::string, std::string>> renames;
    for (std::sregex_iterator it(source.begin(), source.end(), decl), end; it != end; ++it) {
        renames.push_back({(*it)[1], name_of_index[(*it)[2]]});
    }
    // Longest first: conv2d_1 before a shorter name that is its prefix.
    std::sort(renames.begin(), renames.end(), [](const auto &a, const auto &b) { return a.first.size() > b.first.size(); });
    for (const auto &[from, to] : renames) {
        if (from == to || to.empty()) continue;
        source = std::regex_replace(source, std::regex("\\b" + from + "(?=\\b|_)"), to);
    }
    return source;
}

// Without Halide's rename suffixes inside quoted loop names ("conv2d$1_tasks1").
std::string without_rename_suffixes(const std::string &source) {
    return std::regex_replace(source, std::regex("\\$\\d+"), "");
}

TEST(TesseraPlugin, SecondPipelineWithTheSameNamesGetsTheSameSchedule) {
    // A process that builds an op twice (tessera-bench's variants, a graph's
    // partitions) gets renamed Funcs. Inputs' wrappers were once looked up by
    // name, so the second NCHW conv lost its packed, transposed program and ran
    // 2.5x slower.
    load_plugin(TESSERA_PLUGIN_PATH);
    const std::string line = "conv2d n=1 c=64 h=28 w=28 oc=64 kh=3 kw=3 stride=1 pad=1 layout=nchw";
    for (const PinnedMachine &machine : pinned_machines()) {
        std::string sources[2];
        for (std::string &source : sources) {
            BuiltOp b = build(line);
            source = pinned_schedule_source(Pipeline(b.out), machine);
        }
        EXPECT_NE(sources[0].find("reorder_storage"), std::string::npos)
            << machine.name << ": expected a transposed program:\n" << sources[0];
        EXPECT_EQ(without_rename_suffixes(sources[0]),
                  without_rename_suffixes(with_func_names_of(sources[0], sources[1])))
            << machine.name;
    }
}

TEST(TesseraPlugin, RowsReadAgainFromDramArePrefetched) {
    // layer_norm reads x in its mean and variance passes and again in its output
    // pass. With rows beyond the LLC the output prefetches the next row (a task
    // split that shifts inwards keeps the row loop visible to Halide's prefetch:
    // 999 rows in two tasks overlap by one) and the statistics keep several
    // vectors of partial sums. tests/small_llc_profile.json (a 64 KiB LLC share)
    // puts the 1 MB of a 999x256 input beyond it (7x33x256 too: its row loop is
    // d1's, inside tasks of d2); 9x65 stays inside. 2x999x72 is beyond it but its
    // rows are d1 and d2 fused, along which the next row's box is all of d1: no
    // prefetch there (it once fetched 999 rows per vector). (The header emitted
    // under the profile is checked in EmittedScheduleHeadersReproduceTheResults.)
    // Shapes under the AVX2 target; results on the host under the same profile.
    const PinnedMachine &avx2 = pinned_machines().front();
    const std::vector<std::pair<std::string, bool>> cases = {{"layer_norm shape=999x256", true},
                                                              {"layer_norm shape=7x33x256", true},
                                                              {"layer_norm shape=9x65", false},
                                                              {"layer_norm shape=2x999x72", false}};
    for (const auto &[line, prefetched] : cases) {
        const PinnedSchedule s = tessera_schedule(line, avx2, TESSERA_SMALL_LLC_PROFILE);
        EXPECT_EQ(!directives_of<schedule::PrefetchInput>(s.schedule).empty(), prefetched) << line << ":\n"
                                                                                           << s.source;
        if (line == "layer_norm shape=999x256" || line == "layer_norm shape=9x65") {
            bool shifted_tasks = false;
            for (const auto &[func, split] : directives_of<schedule::Split>(s.schedule)) {
                shifted_tasks |= split.outer == "d0_task" && split.inner == "d0_r" &&
                                 split.tail == TailStrategy::ShiftInwards;
            }
            EXPECT_EQ(shifted_tasks, prefetched) << line << ":\n" << s.source;
        }
        expect_tessera_correct(line, TESSERA_SMALL_LLC_PROFILE);
    }
}

TEST(TesseraPlugin, RowsAProducerReadsAgainArePrefetchedABlockAhead) {
    // softmax's exponentials read x again after its max streamed it. Computed per
    // row they cannot prefetch (their one-point row loop disappears before Halide
    // places prefetches), so with rows beyond the LLC (tests/small_llc_profile.json)
    // the rows go in blocks and the exponentials, computed per block, prefetch the
    // next block's rows. 999 rows: blocks of 4 end in a partial one; 7x33x256: the
    // row loop is d1's, inside tasks of d2; 9x65 stays inside the LLC.
    const PinnedMachine &avx2 = pinned_machines().front();
    // The row dim each case's blocks run along ("" when nothing is prefetched).
    const std::vector<std::pair<std::string, std::string>> cases = {{"softmax shape=999x256 axis=-1", "d0"},
                                                                     {"softmax shape=997x250 axis=-1", "d0"},
                                                                     {"softmax shape=7x33x256 axis=-1", "d1"},
                                                                     {"softmax shape=9x65 axis=-1", ""}};
    for (const auto &[line, rows] : cases) {
        const PinnedSchedule s = tessera_schedule(line, avx2, TESSERA_SMALL_LLC_PROFILE);
        const auto prefetches = directives_of<schedule::PrefetchInput>(s.schedule);
        if (rows.empty()) {
            EXPECT_TRUE(prefetches.empty()) << line << ":\n" << s.source;
        } else {
            ASSERT_EQ(prefetches.size(), 1u) << line << ":\n" << s.source;
            EXPECT_EQ(prefetches[0].first, "softmax_exp") << line;
            EXPECT_EQ(prefetches[0].second.from, rows) << line;
            EXPECT_EQ(prefetches[0].second.offset, 4) << line;
            EXPECT_FALSE(prefetches[0].second.guarded) << line;
            const schedule::FuncSchedule *exp = func_named(s.schedule, "softmax_exp");
            ASSERT_NE(exp, nullptr) << line;
            EXPECT_EQ(base_name(exp->compute.consumer), "softmax") << line << ":\n" << s.source;
            EXPECT_TRUE(std::regex_match(exp->compute.var, std::regex("d\\d(_r)?_blk"))) << line << ":\n" << s.source;
        }
        expect_tessera_correct(line, TESSERA_SMALL_LLC_PROFILE);
    }
}

TEST(TesseraPlugin, RowReductionsOverCachedRowsKeepSeveralPartialSums) {
    // softmax's sum reads the exponentials computed at its row (in cache): several
    // vectors of partial sums break its add chain. Its max streams the input from
    // memory: one vector (more measured slower there).
    load_plugin(TESSERA_PLUGIN_PATH);
    const std::string line = "softmax shape=4x1024 axis=-1";
    for (const PinnedMachine &machine : pinned_machines()) {
        const PinnedSchedule s = tessera_schedule(line, machine);
        auto split_factor = [&](const std::string &func) {
            const schedule::FuncSchedule *f = func_named(s.schedule, func);
            const schedule::StageSchedule *update = f ? f->stage(0) : nullptr;
            const schedule::Split *split = update ? update->split_of("r$x") : nullptr;
            return split ? split->factor : 0;
        };
        const int sum_lanes = split_factor("softmax_sum"), max_lanes = split_factor("softmax_max");
        EXPECT_GT(max_lanes, 0) << machine.name << ":\n" << s.source;
        EXPECT_GT(sum_lanes, max_lanes) << machine.name << ":\n" << s.source;
    }
    expect_tessera_correct(line);
}

TEST(TesseraPlugin, MatrixVectorProductsAreVectorisedAlongTheirReduction) {
    // One output column (N=1): only the vector is reused, the matrix streams. As a
    // compute-intensive stage its register tile had no vector dim (scalar FMAs,
    // 0.34 ms for 1000x1000); as a reduction it is vectorised along k (rfactor),
    // and the rows go in blocks whose partial sums live in registers, one vector
    // per row (0.07 ms). 203 rows: blocks of 4 shift inwards at the end.
    load_plugin(TESSERA_PLUGIN_PATH);
    const std::vector<std::string> gemvs = {"matmul M=1000 N=1 K=1000", "matmul M=203 N=1 K=80 bias=1"};
    for (const PinnedMachine &machine : pinned_machines()) {
        for (const std::string &line : gemvs) {
            const PinnedSchedule s = tessera_schedule(line, machine);
            EXPECT_TRUE(rfactors_lanes(s.schedule)) << machine.name << ", " << line << ":\n" << s.source;
            const schedule::FuncSchedule *blocks = nullptr;  // the register blocks' partial sums
            for (const schedule::FuncSchedule &f : s.schedule.funcs()) {
                if (base_name(f.name).find("_lanes0") != std::string::npos) blocks = &f;
            }
            ASSERT_NE(blocks, nullptr) << machine.name << ", " << line << ":\n" << s.source;
            EXPECT_TRUE(in_registers(blocks)) << machine.name << ", " << line << ":\n" << s.source;
            EXPECT_EQ(blocks->bound_extents.count("m") ? blocks->bound_extents.at("m") : 0, 4)
                << machine.name << ", " << line;
        }
        // The matrix stored with its rows innermost (trans_a): vectorised along the rows
        // by the compute-intensive program (as a reduction it ran 3.7x slower).
        const PinnedSchedule rows_inner = tessera_schedule("matmul M=1000 N=1 K=1000 trans_a=1", machine);
        EXPECT_FALSE(rfactors_lanes(rows_inner.schedule)) << machine.name << ":\n" << rows_inner.source;
        // Several wide pure dims (a batch of GEMVs): no register blocks.
        const PinnedSchedule batch = tessera_schedule("batch_matmul B=2 M=33 N=1 K=48", machine);
        for (const schedule::FuncSchedule &f : batch.schedule.funcs()) {
            EXPECT_FALSE(in_registers(&f)) << machine.name << ", " << f.name << ":\n" << batch.source;
        }
    }
    for (const std::string &line : gemvs) expect_tessera_correct(line);
    expect_tessera_correct("batch_matmul B=2 M=33 N=1 K=48");
}

TEST(TesseraPlugin, InCacheTransposesTransposeSquaresInRegisters) {
    // A transpose that fits the LLC spends its time on gathers (a float from each
    // of `lanes` input rows per vector): each lanes x lanes square is loaded into
    // registers a row per vector and transposed there (512x1024: 0.44 -> 0.28 ms).
    // Sizes that do not divide shift the last square inwards; a copy past the LLC
    // keeps the gathers (slower staged: the access pattern is its limit). A
    // square needs lanes rows and columns: 9x8 has them with 8 lanes, not with 16.
    load_plugin(TESSERA_PLUGIN_PATH);
    const std::vector<std::string> lines = {"transpose shape=37x131 perm=1,0", "transpose shape=300x1100 perm=1,0",
                                            "transpose shape=2x5x19x131 perm=0,3,1,2",
                                            "transpose shape=2x7x37x24 perm=0,3,1,2", "transpose shape=9x8 perm=1,0"};
    for (const PinnedMachine &machine : pinned_machines()) {
        for (const std::string &line : lines) {
            const PinnedSchedule s = tessera_schedule(line, machine);
            const bool whole_square = !(line == "transpose shape=9x8 perm=1,0" && machine.lanes > 8);
            EXPECT_EQ(in_registers(func_named(s.schedule, "transpose_square")), whole_square)
                << machine.name << ", " << line << ":\n" << s.source;
        }
        // 4096x8192: 256 MiB moved, past either machine's LLC.
        const PinnedSchedule dram = tessera_schedule("transpose shape=4096x8192 perm=1,0", machine);
        EXPECT_EQ(func_named(dram.schedule, "transpose_square"), nullptr) << machine.name << ":\n" << dram.source;
    }
    for (const std::string &line : lines) expect_tessera_correct(line);
}

TEST(TesseraPlugin, ReductionsComputedPerConsumerRowHaveConstantExtents) {
    // An NHWC depthwise sum is computed per output row, its accumulators a tile of
    // channel vectors x columns across the taps. With the row buffer's extents left
    // to run time LLVM kept every accumulator in memory (a load and a store per
    // FMA): the row's extents are given (bound_extent), and the tile leaves
    // registers for the weights (32x112x112: 0.57 -> 0.36 ms). Pooling window sums
    // per output point get them too; a consumer whose rows fuse three dims (NCHW
    // pooling: y, c and n) does not (Halide's bounds then span all of y). A batch of
    // one is not fused into the rows (its own loop): there the rows fuse y and c,
    // and the window gets its extents.
    load_plugin(TESSERA_PLUGIN_PATH);
    const std::string pool_line = "avg_pool2d n=2 c=24 h=9 w=10 kh=3 kw=3 pad=1 layout=nhwc";
    const std::string fused_line = "max_pool2d n=2 c=1 h=5 w=20000 kh=3 kw=3 stride=1 pad=1";
    const std::string batch_of_one = "max_pool2d n=1 c=2 h=5 w=20000 kh=3 kw=3 stride=1 pad=1";
    const std::vector<std::string> depthwise = {
        "depthwise_conv2d n=1 c=32 h=112 w=112 kh=3 kw=3 stride=1 pad=1 layout=nhwc",
        "depthwise_conv2d n=2 c=24 h=13 w=16 kh=3 kw=3 stride=2 pad=1 layout=nhwc",
        "depthwise_conv2d n=1 c=16 h=11 w=12 kh=5 kw=5 stride=1 pad=2 layout=nhwc"};
    for (const PinnedMachine &machine : pinned_machines()) {
        const PinnedSchedule pool = tessera_schedule(pool_line, machine);
        EXPECT_EQ(bound_extent(pool.schedule, "window_sum", "c"), 24) << machine.name << ":\n" << pool.source;
        const PinnedSchedule fused = tessera_schedule(fused_line, machine);
        for (const schedule::FuncSchedule &f : fused.schedule.funcs()) {
            EXPECT_TRUE(f.bound_extents.empty()) << machine.name << ", " << f.name << ":\n" << fused.source;
        }
        const PinnedSchedule one = tessera_schedule(batch_of_one, machine);
        EXPECT_EQ(bound_extent(one.schedule, "window_max", "y"), 1) << machine.name << ":\n" << one.source;
        for (const std::string &line : depthwise) {
            const PinnedSchedule s = tessera_schedule(line, machine);
            EXPECT_EQ(bound_extent(s.schedule, "depthwise_sum", "y"), 1) << machine.name << ", " << line << ":\n"
                                                                          << s.source;
        }
    }
    expect_tessera_correct(pool_line);
    expect_tessera_correct(fused_line);
    expect_tessera_correct(batch_of_one);
    for (const std::string &line : depthwise) expect_tessera_correct(line);
}

TEST(TesseraPlugin, StridedNchwWindowsAreUnrolledAndTheirPaddedRowsSlide) {
    // A strided NCHW pooling window is one expression of its taps per output point
    // (no window buffer to initialise and read back: 64x112x112 3x3 stride 2
    // 0.17-0.25 -> 0.13-0.18 ms). Its taps read the padded input at rows 2y - 1,
    // 2y, 2y + 1: where the padded copy goes per output row (planes too large to
    // copy whole), it is stored outside the row loop so that each row copies only
    // the rows the last one did not (Halide's sliding window), as for the window
    // as a reduction. Stride 1 keeps the reduction (its register tile along the row).
    load_plugin(TESSERA_PLUGIN_PATH);
    const std::string strided = "max_pool2d n=1 c=64 h=112 w=112 kh=3 kw=3 stride=2 pad=1";
    const std::string large_planes = "max_pool2d n=8 c=4 h=224 w=224 kh=3 kw=3 stride=2 pad=1";
    const std::string stride_one = "max_pool2d n=1 c=8 h=28 w=28 kh=3 kw=3 stride=1 pad=1";
    for (const PinnedMachine &machine : pinned_machines()) {
        const PinnedSchedule s = tessera_schedule(strided, machine);
        EXPECT_EQ(func_named(s.schedule, "window_max"), nullptr) << machine.name << ":\n" << s.source;
        const PinnedSchedule large = tessera_schedule(large_planes, machine);
        const schedule::FuncSchedule *padded = func_named(large.schedule, "constant_exterior");
        ASSERT_NE(padded, nullptr) << machine.name << ":\n" << large.source;
        EXPECT_EQ(padded->compute.var, "y") << machine.name << ":\n" << large.source;
        EXPECT_EQ(padded->store.kind, schedule::Placement::Kind::At) << machine.name << ":\n" << large.source;
        EXPECT_NE(padded->store.var, padded->compute.var) << machine.name << ":\n" << large.source;
        const PinnedSchedule one = tessera_schedule(stride_one, machine);
        EXPECT_NE(func_named(one.schedule, "window_max"), nullptr) << machine.name << ":\n" << one.source;
    }
    expect_tessera_correct(strided);
    expect_tessera_correct(large_planes);
    expect_tessera_correct("avg_pool2d n=1 c=5 h=17 w=19 kh=3 kw=3 stride=2 pad=1 count_include_pad=0");
    expect_tessera_correct("max_pool2d n=2 c=3 h=15 w=21 kh=3 kw=2 stride=2 pad=1 ceil_mode=1");
}

TEST(TesseraPlugin, PaddedRowsShorterThanAVectorAreVectorised) {
    // A pool over a 14x14 or 7x7 plane copies padded rows of 15 or 9 columns, fewer
    // than 16 lanes: they are copied in vectors of 8 (the widest power of two the row
    // holds), the last one shifted inwards, where they were copied one float at a time
    // (avg_pool2d 512x14x14 3x3/2 0.062-0.087 -> 0.037-0.062 ms). Rows of a vector or
    // more keep the vector width of the machine.
    load_plugin(TESSERA_PLUGIN_PATH);
    const std::vector<std::string> lines = {"avg_pool2d n=1 c=512 h=14 w=14 kh=3 kw=3 stride=2 pad=1",
                                            "max_pool2d n=1 c=32 h=7 w=7 kh=3 kw=3 stride=1 pad=1"};
    for (const PinnedMachine &machine : pinned_machines()) {
        for (const std::string &line : lines) {
            const PinnedSchedule s = tessera_schedule(line, machine);
            int copy_lanes = 0;
            for (const auto &[func, split] : directives_of<schedule::Split>(s.schedule)) {
                if (func.find("constant_exterior") == std::string::npos || split.old_var != "_0") continue;
                copy_lanes = split.factor;
                if (split.factor < machine.lanes) EXPECT_EQ(split.tail, Halide::TailStrategy::ShiftInwards) << s.source;
            }
            const int row = line.find("h=14") != std::string::npos ? 15 : 9;
            EXPECT_EQ(copy_lanes, std::min(machine.lanes, 8)) << machine.name << ", " << line << " (rows of " << row
                                                              << "):\n" << s.source;
        }
    }
    for (const std::string &line : lines) expect_tessera_correct(line);
    expect_tessera_correct("avg_pool2d n=2 c=3 h=5 w=7 kh=3 kw=3 stride=1 pad=1 count_include_pad=1");
    expect_tessera_correct("max_pool2d n=1 c=4 h=11 w=9 kh=3 kw=3 stride=2 pad=1 ceil_mode=1");
}

// The loops a Func's stages unroll, by their names.
std::set<std::string> unrolled_loops(const schedule::PipelineSchedule &s, const std::string &func) {
    std::set<std::string> unrolled;
    for (const auto &[name, mark] : directives_of<schedule::MarkLoop>(s)) {
        if (name == func && mark.kind == schedule::LoopKind::Unrolled) unrolled.insert(mark.var);
    }
    return unrolled;
}

// The vector width of the padded copy of a convolution's input (0: none split).
int padded_copy_lanes(const schedule::PipelineSchedule &s) {
    for (const auto &[func, split] : directives_of<schedule::Split>(s)) {
        if (func == "constant_exterior" && split.inner == split.old_var + "_vi") return split.factor;
    }
    return 0;
}

TEST(TesseraPlugin, DepthwiseRegisterTilesUnrollTheirWindowsTaps) {
    // A depthwise register tile sums only a window: its taps unrolled, the tile's
    // neighbouring points that read one input vector load it once (NCHW16c 3x3
    // 144x56x56 on Zen 4 0.24-0.27 -> 0.15 ms). A dense convolution's tile also sums
    // channels: its taps stay loops around the channel sum. The padded copy takes
    // whole vectors where a vector is one point's channel block (NCHW16c), half
    // vectors where rows straddle the edge (NCHW).
    load_plugin(TESSERA_PLUGIN_PATH);
    const std::vector<std::string> depthwise = {
        "depthwise_conv2d n=1 c=144 h=56 w=56 kh=3 kw=3 stride=1 pad=1 layout=nchwc block=16",
        "depthwise_conv2d n=1 c=24 h=28 w=28 kh=5 kw=5 stride=1 pad=2",
        "depthwise_conv2d n=1 c=32 h=21 w=19 kh=7 kw=7 stride=1 pad=3 layout=nchwc block=16"};
    const std::string dense = "conv2d n=1 c=64 h=28 w=28 oc=64 kh=3 kw=3 stride=1 pad=1 layout=nchwc block=16";
    for (const PinnedMachine &machine : pinned_machines()) {
        for (const std::string &line : depthwise) {
            const PinnedSchedule s = tessera_schedule(line, machine);
            const std::set<std::string> unrolled = unrolled_loops(s.schedule, "depthwise_sum");
            EXPECT_TRUE(unrolled.count("r$x") && unrolled.count("r$y")) << machine.name << ", " << line << ":\n"
                                                                        << s.source;
            const bool blocked = line.find("layout=nchwc") != std::string::npos;
            EXPECT_EQ(padded_copy_lanes(s.schedule), blocked ? machine.lanes : machine.lanes / 2)
                << machine.name << ", " << line << ":\n" << s.source;
        }
        const PinnedSchedule d = tessera_schedule(dense, machine);
        for (const std::string &tap : {"r$y", "r$z"}) {
            EXPECT_EQ(unrolled_loops(d.schedule, "conv2d_sum_acc").count(tap) +
                          unrolled_loops(d.schedule, "conv2d_sum").count(tap),
                      0u)
                << machine.name << ", " << tap << ":\n" << d.source;
        }
    }
    for (const std::string &line : depthwise) expect_tessera_correct(line);
}

TEST(TesseraPlugin, PaddedCopiesPerTileKeepWholeRows) {
    // An NCHW depthwise convolution copies its padded input per L2 tile; every row
    // of that copy costs boundary code, so the perf model charges it per row and
    // the tiles span whole rows (x is not split into L2 tiles). With 16-wide tiles
    // (18-float copied rows) 32x112x112 took 0.32 ms, with whole rows 0.17.
    load_plugin(TESSERA_PLUGIN_PATH);
    const std::vector<std::string> lines = {"depthwise_conv2d n=1 c=32 h=112 w=112 kh=3 kw=3 stride=1 pad=1",
                                            "depthwise_conv2d n=2 c=24 h=57 w=61 kh=3 kw=3 stride=1 pad=1"};
    for (const PinnedMachine &machine : pinned_machines()) {
        for (const std::string &line : lines) {
            const PinnedSchedule s = tessera_schedule(line, machine);
            for (const auto &[func, split] : directives_of<schedule::Split>(s.schedule)) {
                EXPECT_FALSE(split.old_var == "x" && split.outer == "x_2") << machine.name << ", " << line << ":\n"
                                                                           << s.source;
            }
            bool padded_copy = false;
            for (const schedule::FuncSchedule &f : s.schedule.funcs()) {
                padded_copy |= f.name.find("constant_exterior") != std::string::npos &&
                               f.compute.kind == schedule::Placement::Kind::At;
            }
            EXPECT_TRUE(padded_copy) << machine.name << ", " << line << ":\n" << s.source;
        }
    }
    for (const std::string &line : lines) expect_tessera_correct(line);
}

TEST(TesseraPlugin, RowStatisticsAlongAnOuterAxisAreComputedOutsideItsLoop) {
    // A softmax over a non-innermost axis: its max and sum are constant along the
    // axis, so they attach outside the axis's loop (per image of an NCHW channel
    // softmax) or at root (when the axis is part of the parallel task loop).
    // Attached inside it they were recomputed once per point of the axis
    // (8x64x56x56 axis=1: 31.7 ms, now 1.4; 5x3000x7 axis=1: 505 ms, now 0.25).
    load_plugin(TESSERA_PLUGIN_PATH);
    // (Funcs built again in one process get suffixes: softmax_max_2.)
    const std::vector<std::pair<std::string, std::string>> cases = {{"softmax shape=8x64x56x56 axis=1", "softmax.d0_r"},
                                                                     {"softmax shape=2x16x9x12 axis=1", "root"}};
    for (const PinnedMachine &machine : pinned_machines()) {
        for (const auto &[line, placement] : cases) {
            const PinnedSchedule s = tessera_schedule(line, machine);
            const schedule::FuncSchedule *max = func_named(s.schedule, "softmax_max");
            ASSERT_NE(max, nullptr) << machine.name << ", " << line << ":\n" << s.source;
            EXPECT_EQ(base_name(max->compute.to_string()), placement) << machine.name << ", " << line << ":\n"
                                                                      << s.source;
        }
    }
    for (const auto &[line, placement] : cases) expect_tessera_correct(line);
}

TEST(TesseraPlugin, OtherCacheHierarchiesScheduleCorrectly) {
    // The HAL takes memory layers in any number (hal/device_spec.h): three private
    // caches and a shared one, or a single cache. Programs built for either are
    // correct on the host, and their L2 tiles are sized to the layer they map to.
    const std::vector<std::string> lines = {"matmul M=96 N=80 K=72 bias=1",
                                            "conv2d n=1 c=16 h=15 w=15 oc=24 kh=3 kw=3 pad=1 layout=nchw",
                                            "layer_norm shape=33x100", "softmax shape=9x70 axis=-1"};
    for (const char *file : {"five_layer_caches.json", "one_cache.json"}) {
        for (const std::string &line : lines) expect_tessera_correct(line, test::test_profile(file));
        const PinnedSchedule s = tessera_schedule("matmul M=512 N=512 K=512", pinned_machines().front(),
                                                  test::test_profile(file));
        EXPECT_NE(func_named(s.schedule, "matmul_sum"), nullptr) << file << ":\n" << s.source;
    }
}

// Batched attention written out in Halide: scores = q . k^T (a GEMM over d), a
// numerically stable softmax over l, out = probs . v (a GEMM over l).
struct Attention {
    ImageParam q{Float(32), 3, "q"}, k{Float(32), 3, "k"}, v{Float(32), 3, "v"};
    Func out{"att_out"};
    Attention(int B, int M, int N, int D, int L) {
        Var n("n"), m("m"), l("l"), b("b");
        RDom rd(0, D, "rd"), rl(0, L, "rl"), rs(0, L, "rs");
        Func scores("att_scores"), mx("att_max"), e("att_exp"), sum("att_sum"), probs("att_probs");
        scores(l, m, b) = 0.0f;
        scores(l, m, b) += q(rd, m, b) * k(rd, l, b);
        mx(m, b) = maximum(scores(rs, m, b));
        e(l, m, b) = exp(scores(l, m, b) - mx(m, b));
        sum(m, b) = 0.0f;
        sum(m, b) += e(rs, m, b);
        probs(l, m, b) = e(l, m, b) / sum(m, b);
        out(n, m, b) = 0.0f;
        out(n, m, b) += probs(rl, m, b) * v(n, rl, b);
        q.set_estimates({{0, D}, {0, M}, {0, B}});
        k.set_estimates({{0, D}, {0, L}, {0, B}});
        v.set_estimates({{0, N}, {0, L}, {0, B}});
        out.set_estimates({{0, N}, {0, M}, {0, B}});
    }
};

TEST(TesseraPlugin, ChainsOfComputeIntensiveStagesGetABlockOrder) {
    // Chimera's analysis (scheduler/chain/): the GEMM -> softmax -> GEMM chain is
    // found by what its stages do, its block orders ranked by the movement they
    // predict per level, the ops one by one beside them; shapes pinned, G4-like
    // (12 heads of 256 x 64, L = 256) under the AVX-512 machine.
    const PinnedMachine &avx512 = pinned_machines().back();
    Attention a(12, 256, 64, 64, 256);
    const ScheduleOutcome outcome =
        schedule_pipeline(Pipeline(a.out), Target(avx512.target), test::pinned_options(avx512));
    const std::string &x = outcome.explanation;
    // The decision, as data (names as Halide made them unique in this process,
    // "att_scores$1" once earlier tests made others: without the suffixes).
    ASSERT_EQ(outcome.decisions.chains.size(), 1u) << x;
    const ChainDecision &decided = outcome.decisions.chains[0];
    EXPECT_EQ(base_name(decided.producer), "att_scores");
    EXPECT_EQ(base_name(decided.consumer), "att_out");
    EXPECT_GT(decided.orders_considered, 1);
    EXPECT_GT(decided.predicted_gain, 1) << x;
    EXPECT_EQ(decided.outcome, ChainOutcome::Fused) << x;
    EXPECT_FALSE(decided.form.empty());
    // The explanation renders it, with the orders ranked and the ops one by one.
    EXPECT_NE(x.find("best order:"), std::string::npos) << x;
    EXPECT_NE(x.find("one by one"), std::string::npos) << x;
    EXPECT_NE(x.find("fused: " + decided.form), std::string::npos) << x;

    // With fusion off the same chain is decided one by one, for that reason.
    SchedulerOptions off = test::pinned_options(avx512);
    off.fuse_chains = false;
    Attention unfused(12, 256, 64, 64, 256);
    const ScheduleOutcome one_by_one = schedule_pipeline(Pipeline(unfused.out), Target(avx512.target), off);
    ASSERT_EQ(one_by_one.decisions.chains.size(), 1u);
    EXPECT_EQ(one_by_one.decisions.chains[0].outcome, ChainOutcome::FusionOff);
    // One by one, the probabilities the second GEMM reads are divided by each row's
    // sum: computed at root row by row, the softmax's statistics and exponentials
    // at each of its rows (in L1), not each at root in a pass of its own (the
    // attention op, B=12 M=L=256 as above).
    BuiltOp op = build("attention B=12 M=256 N=64 K=64 L=256");
    const ScheduleOutcome rows = schedule_pipeline(Pipeline(op.out), Target(avx512.target), off);
    std::map<std::string, std::string> placed;
    for (const StageDecision &s : rows.decisions.stages) placed[base_name(s.func)] = base_name(s.computed_at);
    ASSERT_EQ(placed.count("attention_probs"), 1u) << rows.explanation;
    EXPECT_EQ(placed["attention_probs"], "") << rows.explanation;
    for (const char *row_stage : {"attention_max", "attention_sum"}) {
        EXPECT_EQ(placed[row_stage].rfind("attention_probs.", 0), 0u) << row_stage << ": " << placed[row_stage] << "\n"
                                                                      << rows.explanation;
    }
    EXPECT_NE(rows.explanation.find("attention_exp: shared producer, at attention_probs."), std::string::npos)
        << rows.explanation;
    // And correct on this host so placed (chains unfused there or not).
    SchedulerChoice host_off = test::host_choice("Tessera");
    host_off.options.fuse_chains = false;
    const std::string line = "attention B=2 M=40 N=24 K=16 L=56";
    const uint64_t seed = test::test_seed("Tessera unfused: " + line);
    const OpCheck r = check_op(ops::parse_op_line(line), host_off, seed, 0);
    EXPECT_TRUE(r.error.empty()) << line << ": " << r.error;
    EXPECT_LE(r.rel_error, kRelTolerance) << line << ", seed " << seed;

    // The model in numbers: fusing keeps the 12x256x256 scores on chip, so the best
    // order moves less than the two GEMMs one by one beyond L1. Its blocks hold the
    // scores' rows whole (the softmax's statistics need them, and no schedule makes
    // them running ones), which L1 cannot hold: there it moves more.
    Attention fresh(12, 256, 64, 64, 256);  // the first one's Funcs now carry their schedule
    analysis::FunctionDag dag({fresh.out.function()});
    const analysis::StagePlan plan = analysis::plan_stages(dag);
    const std::vector<chain::OperatorChain> chains = chain::find_chains(dag, plan);
    ASSERT_EQ(chains.size(), 1u);
    const chain::OperatorChain &c = chains[0];
    EXPECT_EQ(base_name(c.producer), "att_scores");
    EXPECT_EQ(base_name(c.consumer), "att_out");
    const hal::DeviceSpec d = hal::make_device_spec(Target(avx512.target), 2, test::load_test_profile(avx512.profile));
    const chain::ChainAnalysis analysis = chain::analyse_chain(c, d);
    ASSERT_FALSE(analysis.orders.empty());
    EXPECT_TRUE(c.row_statistic_between);
    for (size_t l = 0; l < analysis.unfused.levels.size(); l++) {
        const chain::LevelBlocks &fused = analysis.orders[0].levels[l];
        if (fused.level != "L1") {
            EXPECT_LT(fused.dv_bytes, analysis.unfused.levels[l].dv_bytes) << fused.level;
        }
        for (size_t i = 0; i < c.loops.size(); i++) {
            if (c.loops[i].in_producer && c.loops[i].in_consumer && c.loops[i].reduction) {
                EXPECT_EQ(fused.tile[i], c.loops[i].extent) << fused.level << " " << c.loops[i].name;
            }
        }
    }
    EXPECT_GT(analysis.predicted_gain, 1.0);
    // Algorithm 1 by hand for one order and block: the whole chain in one block
    // moves every IO tensor once (q, k, v read, out written), nothing else.
    std::vector<int64_t> whole;
    for (const chain::ChainLoop &l : c.loops) whole.push_back(l.extent);
    std::vector<size_t> perm(c.loops.size());
    std::iota(perm.begin(), perm.end(), 0);
    const chain::Movement once = chain::data_movement(c, {0, 1}, perm, whole, false);
    EXPECT_DOUBLE_EQ(once.dv_elements, 12.0 * (256 * 64 + 256 * 64 + 256 * 64 + 256 * 64));
    // One by one, the scores go out and come back: 2 x 12 x 256 x 256 more.
    const chain::Movement apart = chain::data_movement(c, {0, 1}, perm, whole, true);
    EXPECT_DOUBLE_EQ(apart.dv_elements - once.dv_elements, 2.0 * 12 * 256 * 256);
}

TEST(TesseraPlugin, HeadsOfAChainRunOutsideItsBlocksAtAnyCount) {
    // Every tensor of attention is indexed by its head, so blocking the heads never
    // saves a move: 16 heads (as long as a vector's lanes, the smallest block) stay
    // outside the blocks like 12 do, and the chain is fused. Blocked, every block held
    // all 16 heads and the ops ran one by one (B=16 M=512: 13-14 ms -> 7.3).
    const PinnedMachine &avx512 = pinned_machines().back();
    for (int heads : {12, 16}) {
        Attention a(heads, 512, 64, 64, 512);
        const ScheduleOutcome outcome =
            schedule_pipeline(Pipeline(a.out), Target(avx512.target), test::pinned_options(avx512));
        ASSERT_EQ(outcome.decisions.chains.size(), 1u) << outcome.explanation;
        EXPECT_EQ(outcome.decisions.chains[0].outcome, ChainOutcome::Fused) << heads << "\n" << outcome.explanation;

        Attention fresh(heads, 512, 64, 64, 512);
        analysis::FunctionDag dag({fresh.out.function()});
        const std::vector<chain::OperatorChain> chains = chain::find_chains(dag, analysis::plan_stages(dag));
        ASSERT_EQ(chains.size(), 1u);
        const chain::OperatorChain &c = chains[0];
        const hal::DeviceSpec d = hal::make_device_spec(Target(avx512.target), 2, test::load_test_profile(avx512.profile));
        const chain::ChainAnalysis analysis = chain::analyse_chain(c, d);
        ASSERT_FALSE(analysis.orders.empty());
        for (size_t i = 0; i < c.loops.size(); i++) {
            if (c.loops[i].extent != heads) continue;
            EXPECT_EQ(analysis.orders[0].perm.front(), i) << heads << " heads: " << analysis.orders[0].to_string(c);
            for (const chain::LevelBlocks &level : analysis.orders[0].levels) EXPECT_EQ(level.tile[i], 1) << level.level;
        }
        EXPECT_GT(analysis.predicted_gain, 1.0) << heads;
    }
}

// Runs a scheduled Attention on fresh random inputs (output poisoned) and returns
// its norm-wise relative error (as relative_error) against a plain C++ reference
// (double sums); infinity when an output is NaN.
double attention_error(Attention &a, Pipeline &p, int B, int M, int N, int D, int L, uint64_t seed) {
    std::mt19937 rng{uint32_t(seed)};
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    Buffer<float> q(D, M, B), k(D, L, B), v(N, L, B), out(N, M, B);
    for (Buffer<float> *buf : {&q, &k, &v}) buf->for_each_value([&](float &x) { x = u(rng); });
    out.fill(NAN);
    a.q.set(q);
    a.k.set(k);
    a.v.set(v);
    p.realize(out, tessera::hal::host_target());
    double max_diff = 0, max_ref = 0;
    for (int b = 0; b < B; b++) {
        for (int m = 0; m < M; m++) {
            std::vector<double> s(size_t(L), 0.0);
            double mx = -1e300, sum = 0;
            for (int l = 0; l < L; l++) {
                for (int d = 0; d < D; d++) s[size_t(l)] += double(q(d, m, b)) * k(d, l, b);
                mx = std::max(mx, s[size_t(l)]);
            }
            for (int l = 0; l < L; l++) sum += (s[size_t(l)] = std::exp(s[size_t(l)] - mx));
            for (int n = 0; n < N; n++) {
                double ref = 0;
                for (int l = 0; l < L; l++) ref += s[size_t(l)] / sum * v(n, l, b);
                if (!std::isfinite(out(n, m, b))) return INFINITY;
                max_diff = std::max(max_diff, std::abs(out(n, m, b) - ref));
                max_ref = std::max(max_ref, std::abs(ref));
            }
        }
    }
    return max_diff / std::max(max_ref, 1e-30);
}

TEST(TesseraPlugin, ChainProducerScheduledOneByOneKeepsItsOwnProgram) {
    // A GEMM chain without a softmax between is scheduled one by one: the first
    // GEMM at root with its own rProgram (parallel tasks, its update scheduled),
    // never recomputed per chunk of the second with its update left serial (that
    // once ran G12 at 37.7 ms against 0.72 ms for the two ops apart).
    const PinnedMachine &avx512 = pinned_machines().back();
    BuiltOp b = build("gemm_chain B=1 M=1024 N=64 K=64 L=512");
    const ScheduleOutcome o = schedule_pipeline(Pipeline(b.out), Target(avx512.target), test::pinned_options(avx512));
    const schedule::FuncSchedule *first = nullptr;
    for (const schedule::FuncSchedule &f : o.schedule.funcs()) {
        if (f.name.rfind("gemm_chain_first", 0) == 0 && f.origin == schedule::FuncSchedule::Origin::Pipeline) first = &f;
    }
    ASSERT_NE(first, nullptr) << o.explanation;
    EXPECT_EQ(first->compute.kind, schedule::Placement::Kind::Root) << o.explanation;
    const schedule::StageSchedule *update = first->stage(0);
    ASSERT_NE(update, nullptr) << o.explanation;
    EXPECT_FALSE(update->directives.empty()) << o.explanation;
}

TEST(TesseraPlugin, FusedAttentionChainsAreCorrect) {
    // The fused GEMM chain schedule (rules/chain_schedules): rows in blocks, the
    // scores, softmax and probabilities per block. Odd sizes, batch 1, columns
    // that no vector divides; on the host's own target and profile.
    for (const std::vector<int> &shape : std::vector<std::vector<int>>{
             {2, 64, 64, 64, 64}, {1, 37, 19, 24, 53}, {3, 100, 40, 16, 77}}) {
        const int B = shape[0], M = shape[1], N = shape[2], D = shape[3], L = shape[4];
        Attention a(B, M, N, D, L);
        SchedulerOptions options = test::host_choice().options;
        options.explain = true;
        const ScheduleOutcome outcome = schedule_pipeline(Pipeline(a.out), tessera::hal::host_target(), options);
        Pipeline p(a.out);
        const double err = attention_error(a, p, B, M, N, D, L, test::test_seed("attention"));
        EXPECT_LE(err, kRelTolerance) << B << "x" << M << "x" << N << "x" << D << "x" << L << "\n" << outcome.explanation;
    }
}

TEST(TesseraPlugin, OnlineSoftmaxAttentionStreamsItsKeyBlocks) {
    // The attention op's online-softmax form (key_block): the chain's stages and
    // the second GEMM computed per block of rows and one block of keys, inside the
    // running combine's loop over the blocks, so no stage holds a row of scores
    // whole; the block statistics in vectors. Shapes pinned (both machines);
    // correctness: the op matrix's key_block cases.
    for (const PinnedMachine &machine : pinned_machines()) {
        const PinnedSchedule s = tessera_schedule("attention B=2 M=96 N=64 K=64 L=2048 key_block=128", machine);
        const schedule::FuncSchedule *out = func_named(s.schedule, "attention_block_out");
        const schedule::FuncSchedule *scores = func_named(s.schedule, "attention_scores");
        const schedule::FuncSchedule *running = func_named(s.schedule, "attention_running");
        ASSERT_TRUE(out && scores && running) << machine.name << ":\n" << s.source;
        for (const schedule::FuncSchedule *f : {out, scores}) {
            EXPECT_EQ(f->compute.kind, schedule::Placement::Kind::At) << machine.name << " " << f->name;
            EXPECT_EQ(base_name(f->compute.consumer), "attention_running") << machine.name << " " << f->name;
            EXPECT_EQ(f->compute.var.rfind("j", 0), 0u) << machine.name << " " << f->name << ": " << f->compute.var;
        }
        EXPECT_EQ(running->compute.kind, schedule::Placement::Kind::Root) << machine.name;
        EXPECT_NE(func_named(s.schedule, "attention_block_max_lanes"), nullptr) << machine.name << ":\n" << s.source;
    }
}

TEST(TesseraPlugin, ConvolutionChainsBeyondTheL2sAreFusedByBands) {
    // A conv chain whose intermediate outgrows the cores' L2 caches together: the
    // second convolution's L2 tiles are bands of whole rows, the first's bias and
    // relu computed per band and the first convolution per tile of that. Within
    // the L2s (C7's 0.77 MiB) the ops run one by one, the epilogue at root.
    // Shapes pinned (both machines); correctness: the op matrix's large conv_chain cases.
    for (const PinnedMachine &machine : pinned_machines()) {
        const PinnedSchedule big = tessera_schedule(
            "conv_chain c=64 h=112 w=112 oc1=128 oc2=64 kh1=3 kw1=3 kh2=1 kw2=1 pad1=1", machine);
        const schedule::FuncSchedule *relu = func_named(big.schedule, "conv_chain_relu");
        const schedule::FuncSchedule *first = func_named(big.schedule, "conv_chain_first_sum");
        ASSERT_TRUE(relu && first) << machine.name << ":\n" << big.source;
        EXPECT_EQ(relu->compute.kind, schedule::Placement::Kind::At) << machine.name << ":\n" << big.source;
        EXPECT_EQ(base_name(relu->compute.consumer), "conv_chain") << machine.name;
        EXPECT_EQ(first->compute.kind, schedule::Placement::Kind::At) << machine.name;
        EXPECT_EQ(base_name(first->compute.consumer), "conv_chain_relu") << machine.name;
        // The first convolution's loops stay serial inside the second's parallel bands.
        for (const auto &[func, loop] : directives_of<schedule::MarkLoop>(big.schedule)) {
            if (loop.kind == schedule::LoopKind::Parallel) {
                EXPECT_NE(base_name(func).rfind("conv_chain_first", 0), 0u) << machine.name << ": " << func;
                EXPECT_NE(base_name(func), "conv_chain_relu") << machine.name;
            }
        }
        const PinnedSchedule small =
            tessera_schedule("conv_chain c=64 h=56 w=56 oc1=64 oc2=64 kh1=1 kw1=1 kh2=1 kw2=1", machine);
        const schedule::FuncSchedule *small_relu = func_named(small.schedule, "conv_chain_relu");
        ASSERT_NE(small_relu, nullptr) << machine.name;
        EXPECT_EQ(small_relu->compute.kind, schedule::Placement::Kind::Root) << machine.name << ":\n" << small.source;
    }
}

TEST(TesseraPlugin, ScalarOutputsAreComputedAtRoot) {
    // A full reduction to a 0-D Func (a model's mean over everything): no dimension
    // to tile or vectorise. It once crashed the scheduler (dims[0] of none).
    ImageParam in(Float(32), 2, "in");
    in.set_estimates({{0, 37}, {0, 5}});
    RDom r(0, 37, 0, 5);
    Func total("total"), mean("mean");
    total() = 0.0f;
    total() += in(r.x, r.y);
    mean() = total() / 185.0f;
    load_plugin(TESSERA_PLUGIN_PATH);
    Pipeline p(mean);
    p.auto_schedule("Tessera", tessera::hal::host_target(), MachineParams(2, 32 << 20, 40));
    Buffer<float> data(37, 5);
    double sum = 0;
    for (int y = 0; y < 5; y++) {
        for (int x = 0; x < 37; x++) sum += data(x, y) = float(x - 2 * y) / 7;
    }
    in.set(data);
    Buffer<float> out = Buffer<float>::make_scalar();
    out() = NAN;
    p.realize(out, tessera::hal::host_target());
    EXPECT_NEAR(out(), sum / 185, 1e-5);
}

TEST(TesseraPlugin, ThirtyStageStencilChain) {
    // 30 chained 3-point blurs: scheduling time is printed (benchmarks, not
    // assertions, judge speed); the result is checked against plain loops.
    const int n = 4096, stages = 30;
    ImageParam in(Float(32), 1, "in");
    in.set_estimates({{0, n + 2 * stages}});
    Var x("x");
    std::vector<Func> chain;
    Func prev = in;
    for (int s = 0; s < stages; s++) {
        Func f("blur" + std::to_string(s));
        f(x) = (prev(x) + prev(x + 1) + prev(x + 2)) * (1.0f / 3);
        chain.push_back(f);
        prev = f;
    }
    prev.set_estimate(x, 0, n);
    load_plugin(TESSERA_PLUGIN_PATH);
    Pipeline p(prev);
    auto start = std::chrono::steady_clock::now();
    p.auto_schedule("Tessera", tessera::hal::host_target(), MachineParams(2, 32 << 20, 40));
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::printf("Tessera scheduled a %d-stage pipeline in %.2f ms\n", stages, ms);

    std::vector<float> data(n + 2 * stages);
    std::mt19937 rng(5);
    for (float &v : data) v = std::uniform_real_distribution<float>(-1, 1)(rng);
    Buffer<float> ib(data.data(), int(data.size()));
    in.set(ib);
    Buffer<float> out(n);
    p.realize(out, tessera::hal::host_target());
    std::vector<double> ref(data.begin(), data.end());
    for (int s = 0; s < stages; s++) {
        for (size_t i = 0; i + 2 < ref.size(); i++) ref[i] = (ref[i] + ref[i + 1] + ref[i + 2]) / 3;
    }
    for (int i = 0; i < n; i++) EXPECT_NEAR(out(i), ref[i], 1e-4) << "at " << i;
}

}  // namespace
}  // namespace tessera
