// tessera-bench --model without onnxruntime or PyTorch: the peer protocol against a
// stand-in runner (tests/bench/fake_peer.py, numpy only), the records and their JSON,
// the output comparison (NaN never passes), the model suite file, the command line's
// errors, and small models benchmarked end to end against fake peers.
#include "evaluate.h"
#include "import_onnx.h"
#include "model_bench.h"
#include "model_builder.h"
#include "model_record.h"
#include "npy.h"
#include "peer.h"
#include "run_command.h"
#include "suite_file.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sys/wait.h>
#include <unistd.h>

namespace tessera::bench {
namespace {

namespace fs = std::filesystem;
using graph::TensorData;
using graph::testing::ModelBuilder;
using graph::testing::temp_path;
using test::CommandResult;

const double kInf = std::numeric_limits<double>::infinity();

bool contains(const std::string &text, const std::string &part) {
    return text.find(part) != std::string::npos;
}

// A fresh folder under the test temp dir.
std::string fresh_dir(const std::string &name) {
    const std::string dir = temp_path(name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

// The stand-in runner for one kind of peer, in the given mode (see fake_peer.py).
PeerLaunch fake_launch(const std::string &kind, const std::string &mode, const std::string &input) {
    setenv(("FAKE_PEER_" + std::string(kind == kPyTorch ? "PYTORCH" : "ONNXRUNTIME")).c_str(), mode.c_str(), 1);
    PeerLaunch l;
    l.python = "/usr/bin/python3";
    l.runner = TESSERA_FAKE_PEER;
    l.kind = kind;
    l.model = "model.onnx";
    l.threads = 1;
    l.inputs = {input};
    l.timeout_s = 20;
    return l;
}

std::string small_input(const std::string &name) {
    const std::string path = temp_path(name);
    graph::write_npy(path, TensorData::floats({2, 3}, {1, 2, 3, 4, 5, 6}));
    return path;
}

TEST(PeerProtocol, RepliesAreParsedStrictly) {
    EXPECT_EQ(parse_times_reply("times 1.5 2 0.25", 3), (std::vector<double>{1.5, 2, 0.25}));
    EXPECT_THROW(parse_times_reply("times 1.5", 2), std::invalid_argument);
    EXPECT_THROW(parse_times_reply("times 1.5 fast", 2), std::invalid_argument);
    EXPECT_THROW(parse_times_reply("times nan", 1), std::invalid_argument);
    EXPECT_THROW(parse_times_reply("times -1", 1), std::invalid_argument);
    EXPECT_THROW(parse_times_reply("saved 1", 1), std::invalid_argument);
    try {
        parse_times_reply("error RuntimeError: out of memory", 1);
        FAIL() << "an error reply parsed";
    } catch (const std::invalid_argument &e) {
        EXPECT_EQ(std::string(e.what()), "RuntimeError: out of memory");
    }
    EXPECT_EQ(parse_saved_reply("saved 2"), 2);
    EXPECT_THROW(parse_saved_reply("saved"), std::invalid_argument);
    EXPECT_THROW(parse_saved_reply("saved 0"), std::invalid_argument);
    EXPECT_THROW(parse_saved_reply("saved two"), std::invalid_argument);
    EXPECT_THROW(parse_saved_reply("times 1"), std::invalid_argument);
}

TEST(PeerProtocol, ReadyPeerRunsAndSavesItsOutputs) {
    Peer peer(fake_launch(kOnnxRuntime, "ok", small_input("peer_ok_x.npy")));
    ASSERT_EQ(peer.state(), Peer::State::ready) << peer.why();
    EXPECT_EQ(peer.description(), "fake onnxruntime 0.1");
    const std::vector<double> times = peer.run(3);
    ASSERT_EQ(times.size(), 3u);
    EXPECT_DOUBLE_EQ(times[0], 0.5);
    const std::string dir = fresh_dir("peer_ok_out");
    const std::vector<std::string> paths = peer.save(dir);
    ASSERT_EQ(paths.size(), 1u);
    const TensorData out = graph::read_npy(paths[0]);
    EXPECT_EQ(out.shape, (graph::Shape{2, 3}));
    EXPECT_EQ(out.f[5], 12.0f);  // the fake's output: the input doubled
}

TEST(PeerProtocol, UnavailableAndFailingPeersSayWhy) {
    const std::string x = small_input("peer_states_x.npy");
    Peer unavailable(fake_launch(kPyTorch, "unavailable", x));
    EXPECT_EQ(unavailable.state(), Peer::State::unavailable);
    EXPECT_TRUE(contains(unavailable.why(), "No module named 'pytorch'")) << unavailable.why();

    Peer error(fake_launch(kPyTorch, "error", x));
    EXPECT_EQ(error.state(), Peer::State::failed);
    EXPECT_FALSE(error.crashed());
    EXPECT_TRUE(contains(error.why(), "cannot load model.onnx")) << error.why();

    Peer silent(fake_launch(kPyTorch, "silent", x));
    EXPECT_EQ(silent.state(), Peer::State::failed);
    EXPECT_TRUE(contains(silent.why(), "exited with status 3: fake peer: leaving without a word")) << silent.why();

    PeerLaunch nowhere = fake_launch(kPyTorch, "ok", x);
    nowhere.python = "/nonexistent/python";
    Peer missing(nowhere);
    EXPECT_EQ(missing.state(), Peer::State::failed);
    EXPECT_TRUE(contains(missing.why(), "could not be started")) << missing.why();
}

TEST(PeerProtocol, CrashGarbageAndHangFailThePeer) {
    const std::string x = small_input("peer_fail_x.npy");
    Peer crash(fake_launch(kOnnxRuntime, "crash:2", x));
    ASSERT_EQ(crash.state(), Peer::State::ready) << crash.why();
    EXPECT_EQ(crash.run(2).size(), 2u);
    try {
        crash.run(1);
        FAIL() << "the crash went unnoticed";
    } catch (const PeerError &e) {
        EXPECT_TRUE(e.crashed);
        EXPECT_TRUE(contains(e.what(), "crashed (Killed): fake peer: crashing at run 3")) << e.what();
    }
    EXPECT_EQ(crash.state(), Peer::State::failed);
    EXPECT_THROW(crash.run(1), PeerError);  // stays failed

    Peer garbage(fake_launch(kOnnxRuntime, "garbage", x));
    try {
        garbage.run(1);
        FAIL() << "a garbage reply parsed";
    } catch (const PeerError &e) {
        EXPECT_FALSE(e.crashed);
        EXPECT_TRUE(contains(e.what(), "expected 'times ...', got 'what run?'")) << e.what();
    }

    PeerLaunch slow = fake_launch(kOnnxRuntime, "hang", x);
    slow.timeout_s = 1;
    Peer hang(slow);
    try {
        hang.run(1);
        FAIL() << "a hang went unnoticed";
    } catch (const PeerError &e) {
        EXPECT_TRUE(e.crashed);
        EXPECT_TRUE(contains(e.what(), "timed out after 1 s")) << e.what();
    }
}

TEST(ModelCompare, NaNShapesAndCountsNeverPass) {
    const TensorData a = TensorData::floats({2}, {1.0f, 2.0f});
    const TensorData close = TensorData::floats({2}, {1.0f, 2.0f + 2e-6f});
    const TensorData nan = TensorData::floats({2}, {1.0f, std::nanf("")});
    const TensorData other_shape = TensorData::floats({1, 2}, {1.0f, 2.0f});
    EXPECT_EQ(max_relative_error({a}, {a}), 0.0);
    EXPECT_NEAR(max_relative_error({close, a}, {a, a}), 1e-6, 1e-7);
    EXPECT_EQ(max_relative_error({a, nan}, {a, a}), kInf);
    // NaN where the reference is NaN is equal (onnxruntime's runner); a number there
    // is not; a reference of NaN only checks nothing.
    EXPECT_EQ(max_relative_error({nan}, {nan}), 0.0);
    EXPECT_EQ(max_relative_error({a}, {nan}), kInf);
    const TensorData all_nan = TensorData::floats({2}, {std::nanf(""), std::nanf("")});
    EXPECT_EQ(max_relative_error({all_nan}, {all_nan}), kInf);
    EXPECT_EQ(max_relative_error({other_shape}, {a}), kInf);
    EXPECT_EQ(max_relative_error({a}, {a, a}), kInf);
    EXPECT_EQ(max_relative_error({}, {}), kInf);
    EXPECT_EQ(model_status(0.0, 1e-3), "ok");
    EXPECT_EQ(model_status(1e-3, 1e-3), "ok");
    EXPECT_EQ(model_status(2e-3, 1e-3), "mismatch");
    EXPECT_EQ(model_status(kInf, 1e-3), "mismatch");
    EXPECT_EQ(model_status(std::nan(""), 1e-3), "mismatch");
}

std::vector<ModelRecord> three_records() {
    std::vector<ModelRecord> rs(3);
    const char *names[] = {"tessera", "onnxruntime", "pytorch"};
    const double ms[] = {8, 10, 40};
    for (int k = 0; k < 3; k++) {
        rs[k].model = "m.onnx";
        rs[k].scheduler = names[k];
        rs[k].status = "ok";
        rs[k].ok = true;
        rs[k].reference = "onnxruntime";
        rs[k].time_ms_min = ms[k] * 0.9;
        rs[k].time_ms_median = ms[k];
        rs[k].threads = 2;
        rs[k].rounds = 20;
    }
    rs[2].status = "mismatch";
    rs[2].ok = false;
    rs[2].rel_error = kInf;
    return rs;
}

TEST(ModelRecords, JsonHasEveryFieldAndNullForANaNError) {
    std::vector<ModelRecord> rs = three_records();
    derive_model_speedups(rs);
    EXPECT_DOUBLE_EQ(rs[0].speedup_vs_onnxruntime, 1.25);
    EXPECT_DOUBLE_EQ(rs[1].speedup_vs_onnxruntime, 1.0);
    EXPECT_EQ(rs[2].speedup_vs_onnxruntime, 0.0);  // not ok: no speedup
    const std::string path = temp_path("model_records.json");
    write_model_json(rs, path);
    std::ifstream in(path);
    const nlohmann::json all = nlohmann::json::parse(in);
    ASSERT_EQ(all.size(), 3u);
    for (const char *field : {"model", "scheduler", "time_ms_min", "time_ms_median", "rel_error", "ok",
                              "speedup_vs_onnxruntime", "threads", "status", "reference", "rounds"}) {
        EXPECT_TRUE(all[0].contains(field)) << field;
    }
    EXPECT_EQ(all[0]["scheduler"], "tessera");
    EXPECT_EQ(all[0]["threads"], 2);
    EXPECT_TRUE(all[2]["rel_error"].is_null());
    EXPECT_FALSE(all[2]["ok"].get<bool>());
    const ModelRecord back = model_record_from_json(all[2]);
    EXPECT_EQ(back.rel_error, kInf);
    EXPECT_EQ(back.status, "mismatch");
    EXPECT_EQ(model_record_from_json(all[0]).speedup_vs_onnxruntime, 1.25);
    EXPECT_THROW(write_model_json(rs, "/nonexistent/dir/x.json"), std::runtime_error);
}

TEST(ModelRecords, TableAndSummary) {
    std::vector<ModelRecord> rs = three_records();
    rs.push_back(rs[2]);
    rs[3].scheduler = "pytorch";
    rs[3].model = "other.onnx";
    rs[3].status = "skipped";
    rs[3].error = "no other.pt next to the model";
    derive_model_speedups(rs);
    const std::string table = format_model_table({rs[0], rs[1], rs[2]});
    for (const char *column : {"contender", "min ms", "median ms", "rel err", "ok", "vs onnxruntime"}) {
        EXPECT_TRUE(contains(table, column)) << column << "\n" << table;
    }
    EXPECT_TRUE(contains(table, "1.25x")) << table;
    EXPECT_TRUE(contains(table, "reference")) << table;
    EXPECT_TRUE(contains(table, "NO")) << table;
    EXPECT_TRUE(contains(format_model_table({rs[3]}), "pytorch      skipped: no other.pt")) << format_model_table({rs[3]});
    const std::string summary = format_model_summary(rs);
    EXPECT_TRUE(contains(summary, "8.00 (1.25x)")) << summary;
    EXPECT_TRUE(contains(summary, "skipped")) << summary;
    EXPECT_TRUE(contains(summary, "1.25x (1)")) << summary;
}

TEST(ModelSuite, BuiltInSuiteAndBadLines) {
    const std::vector<std::string> names = load_model_suite(TESSERA_MODEL_SUITE);
    EXPECT_EQ(names, (std::vector<std::string>{"resnet18", "mobilenet_v2", "resnet50", "bert_encoder"}));
    const std::string bad = temp_path("bad_models.suite");
    std::ofstream(bad) << "# models\nmodel resnet18\nresnet50\n";
    try {
        load_model_suite(bad);
        FAIL() << "a bad line parsed";
    } catch (const SuiteError &e) {
        EXPECT_TRUE(contains(e.what(), "bad_models.suite:3: expected 'model NAME'")) << e.what();
    }
    std::ofstream(bad) << "# nothing\n";
    EXPECT_THROW(load_model_suite(bad), SuiteError);
    EXPECT_THROW(load_model_suite("/nonexistent.suite"), SuiteError);
}

TEST(ModelBenchPython, FlagEnvironmentThenTheRepositorysEnvironment) {
    std::string missing;
    const std::string repo = fresh_dir("repo_without_venv");
    EXPECT_EQ(find_peer_python("", "", repo, missing), "");
    EXPECT_TRUE(contains(missing, "bash scripts/install-peers.sh")) << missing;
    EXPECT_EQ(find_peer_python("/usr/bin/python3", "", repo, missing), "/usr/bin/python3");
    EXPECT_THROW(find_peer_python("/nonexistent/python", "", repo, missing), ModelInputError);
    EXPECT_EQ(find_peer_python("", "/usr/bin/python3", repo, missing), "/usr/bin/python3");
    EXPECT_EQ(find_peer_python("/usr/bin/python3", "/nonexistent/python", repo, missing), "/usr/bin/python3");
    EXPECT_THROW(find_peer_python("", "/nonexistent/python", repo, missing), ModelInputError);
}

TEST(ModelBenchSettle, WaitsWhileAProcessSpinsAndNotWhenIdle) {
    // Idle: one window.
    EXPECT_LT(settle({int(getpid())}, 200), 50);
    // A child spinning for about 60 ms: waited for, within the cap.
    const pid_t spinner = fork();
    ASSERT_GE(spinner, 0);
    if (spinner == 0) {
        const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(60);
        while (std::chrono::steady_clock::now() < end) {
        }
        _exit(0);
    }
    usleep(2000);
    const double waited = settle({int(getpid()), int(spinner)}, 400);
    int status = 0;
    waitpid(spinner, &status, 0);
    EXPECT_GT(waited, 30);
    EXPECT_LT(waited, 400);
    // A process that spins for longer than the cap: the cap.
    const pid_t forever = fork();
    ASSERT_GE(forever, 0);
    if (forever == 0) {
        for (;;) {
        }
    }
    EXPECT_GE(settle({int(forever)}, 40), 40);
    kill(forever, SIGKILL);
    waitpid(forever, &status, 0);
}

// ---- the command line -------------------------------------------------------------

// TESSERA_PEER_RUNNER is the fake; the environment's FAKE_PEER_* pick its modes.
CommandResult bench(const std::string &args, const std::string &env = "") {
    return test::run_command("env -u TESSERA_PEER_PYTHON TESSERA_PEER_RUNNER=" + std::string(TESSERA_FAKE_PEER) + " " +
                             env + " " + TESSERA_BENCH_BIN + " " + args);
}

// A small model: features[3x24] -> MatMul -> Relu -> y[3x10], with its input and the
// reference evaluator's output written next to it.
struct SmallModel {
    std::string onnx, input, output;
};

SmallModel small_model(const std::string &dir) {
    ModelBuilder b(13);
    b.input("features", {3, 24}).output("y");
    b.initializer("w", graph::testing::random_floats({24, 10}, 3, -0.3f, 0.3f));
    b.node("MatMul", {"features", "w"}, {"h"});
    b.node("Relu", {"h"}, {"y"});
    SmallModel m;
    m.onnx = dir + "/small.onnx";
    std::ofstream(m.onnx, std::ios::binary) << b.bytes();
    const TensorData x = graph::testing::random_floats({3, 24}, 7);
    m.input = dir + "/small.input.npy";
    graph::write_npy(m.input, x);
    m.output = dir + "/want.npy";
    graph::write_npy(m.output, graph::evaluate(graph::import_onnx(m.onnx), {{"features", x}}).at("y"));
    return m;
}

void expect_exit(const CommandResult &r, int code, const std::string &message) {
    EXPECT_EQ(r.exit_code, code) << r.output;
    EXPECT_TRUE(contains(r.output, message)) << "expected '" << message << "' in:\n" << r.output;
}

TEST(ModelBenchCli, UsageErrorsExitTwo) {
    const std::string dir = fresh_dir("model_cli_usage");
    const SmallModel m = small_model(dir);
    expect_exit(bench("--model " + m.onnx + " --op relu"), 2, "exactly one of --op, --suite, --suite-file, --model");
    expect_exit(bench("--model " + m.onnx + " --suite default"), 2, "not both");
    expect_exit(bench("--model " + m.onnx + " --against magic"), 2, "unknown peer 'magic'");
    expect_exit(bench("--model " + m.onnx + " --schedulers tessera"), 2, "--schedulers is for ops");
    expect_exit(bench("--model " + m.onnx + " --csv x.csv"), 2, "--csv is for ops");
    expect_exit(bench("--model " + m.onnx + " --tolerance -1"), 2, "--tolerance needs a number >= 0");
    expect_exit(bench("--model " + m.onnx + " --reps 0"), 2, "--reps needs an integer >= 1");
    expect_exit(bench("--model " + m.onnx + " --seed 3"), 2, "--seed is for ops");
    expect_exit(bench("--model " + m.onnx + " --timing sometimes"), 2, "--timing takes alone or interleaved");
    expect_exit(bench("--model"), 2, "--model needs a value");
    expect_exit(bench("--op relu --shape shape=4 --input x.npy"), 2, "--input is for models");
    expect_exit(bench("--suite models --input x.npy"), 2, "--input is for one --model");
    expect_exit(bench("--model " + dir + "/nothing.onnx"), 2, "nothing.onnx: no such file");
    expect_exit(bench("--model " + m.onnx + " --python /nonexistent/python"), 2, "not an executable file");
}

// --per-layer: every partition timed inside model runs against onnxruntime's time for
// the same nodes alone and inside its whole model (here the stand-in
// tests/bench/per_layer_peer.py): the table sorted by time lost, the per-family sums,
// the JSON records; a failing or missing peer leaves
// Tessera's times with the reason.
TEST(ModelBenchCli, PerLayerTimesEveryPartitionAgainstThePeer) {
    const std::string dir = fresh_dir("per_layer");
    ModelBuilder b(13);
    b.input("image", {1, 8, 12, 12}).output("pooled");
    b.initializer("dw", graph::testing::random_floats({8, 1, 3, 3}, 1, -0.4f, 0.4f));
    b.initializer("pw", graph::testing::random_floats({16, 8, 1, 1}, 2, -0.4f, 0.4f));
    auto &dw = b.node("Conv", {"image", "dw"}, {"d"});
    graph::testing::set_int(dw, "group", 8);
    graph::testing::set_ints(dw, "kernel_shape", {3, 3});
    graph::testing::set_ints(dw, "pads", {1, 1, 1, 1});
    b.node("Relu", {"d"}, {"r"});
    b.node("Conv", {"r", "pw"}, {"p"});
    auto &pool = b.node("MaxPool", {"p"}, {"pooled"});
    graph::testing::set_ints(pool, "kernel_shape", {2, 2});
    graph::testing::set_ints(pool, "strides", {2, 2});
    const std::string model = dir + "/dwnet.onnx";
    std::ofstream(model, std::ios::binary) << b.bytes();
    graph::write_npy(dir + "/dwnet.input.npy", graph::testing::random_floats({1, 8, 12, 12}, 5));

    const std::string common = "--model " + model + " --per-layer --against onnxruntime --python /usr/bin/python3 "
                               "--reps 2 --warmup 1 --threads 2";
    CommandResult r = bench(common + " --json " + dir + "/layers.json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "depthwise 3x3 conv")) << r.output;
    EXPECT_TRUE(contains(r.output, "fake: no such value")) << r.output;
    EXPECT_TRUE(contains(r.output, "per family")) << r.output;
    EXPECT_TRUE(contains(r.output, "0.250 ms with nothing to compute")) << r.output;
    EXPECT_TRUE(contains(r.output, "whole model 500.000 ms a run")) << r.output;
    EXPECT_TRUE(contains(r.output, "7.000 ms in kernels no partition claims")) << r.output;
    std::ifstream in(dir + "/layers.json");
    const nlohmann::json layers = nlohmann::json::parse(in);
    ASSERT_GE(layers.size(), 2u) << r.output;
    EXPECT_TRUE(layers[0].contains("onnxruntime_error"));
    int with_peer = 0, in_model = 0;
    for (const nlohmann::json &l : layers) {
        if (l.contains("onnxruntime_in_model_ms")) {
            EXPECT_EQ(l.at("onnxruntime_in_model_ms").get<double>(), 50.0);
            in_model++;
        }
        EXPECT_GT(l.at("tessera_ms").get<double>(), 0.0) << l.dump();
        EXPECT_FALSE(l.at("family").get<std::string>().empty());
        if (!l.contains("onnxruntime_ms")) continue;
        with_peer++;
        EXPECT_EQ(l.at("onnxruntime_ms").get<double>(), 100.0);
        EXPECT_NEAR(l.at("lost_ms").get<double>(), l.at("tessera_ms").get<double>() - 100.0, 1e-9);
    }
    EXPECT_EQ(with_peer, int(layers.size()) - 1);
    EXPECT_EQ(in_model, int(layers.size()) - 1);  // the last one claimed no kernel

    r = bench(common, "FAKE_PER_LAYER=missing");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "onnxruntime is not installed (bash scripts/install-peers.sh)")) << r.output;
    r = bench(common, "FAKE_PER_LAYER=fail");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "failed (exit status 1)")) << r.output;
    // Channel-blocked partitions name the model's values: their nodes are cut out of
    // the model in its own layout (32 channels: blocks of 8 with AVX2, 16 with AVX-512).
    ModelBuilder blocked(13);
    blocked.input("image", {1, 32, 10, 10}).output("out");
    // Three 3x3 convolutions: enough traffic inside the region for its two conversions.
    std::string x = "image";
    for (int k = 0; k < 3; k++) {
        const std::string w = "w" + std::to_string(k), c = k == 2 ? "out" : "c" + std::to_string(k);
        blocked.initializer(w, graph::testing::random_floats({32, 32, 3, 3}, 3 + k, -0.1f, 0.1f));
        auto &conv = blocked.node("Conv", {x, w}, {c});
        graph::testing::set_ints(conv, "kernel_shape", {3, 3});
        graph::testing::set_ints(conv, "pads", {1, 1, 1, 1});
        if (k < 2) blocked.node("Relu", {c}, {x = "r" + std::to_string(k)});
    }
    const std::string blocked_model = dir + "/blocked.onnx";
    std::ofstream(blocked_model, std::ios::binary) << blocked.bytes();
    graph::write_npy(dir + "/blocked.input.npy", graph::testing::random_floats({1, 32, 10, 10}, 6));
    r = bench("--model " + blocked_model + " --per-layer --against onnxruntime --python /usr/bin/python3 "
              "--reps 2 --warmup 1 --threads 2 --layout nchwc");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "nchw8c") || contains(r.output, "nchw16c")) << r.output;
    EXPECT_FALSE(contains(r.output, "not a value of the model")) << r.output;
    EXPECT_TRUE(contains(r.output, "ToBlockedLayout")) << r.output;
    expect_exit(bench("--op relu --shape shape=4 --per-layer"), 2, "--per-layer is for models");
    expect_exit(bench(common + " --plot x.png"), 2, "--per-layer writes --json");
}

// --tune, as tessera compile --tune: the graph's alternatives (layout, fusion) timed
// whole first, the one chosen named in the impl; --no-tune-graph keeps the layout asked.
TEST(ModelBenchCli, TuneTimesTheGraphAlternativesFirst) {
    const std::string dir = fresh_dir("model_cli_tune");
    ModelBuilder b(13);
    b.input("image", {1, 4, 10, 10}).output("y");
    b.initializer("w", graph::testing::random_floats({8, 4, 3, 3}, 1, -0.4f, 0.4f));
    auto &conv = b.node("Conv", {"image", "w"}, {"c"});
    graph::testing::set_ints(conv, "kernel_shape", {3, 3});
    graph::testing::set_ints(conv, "pads", {1, 1, 1, 1});
    b.node("Relu", {"c"}, {"y"});
    const std::string model = dir + "/convnet.onnx";
    std::ofstream(model, std::ios::binary) << b.bytes();
    graph::write_npy(dir + "/convnet.input.npy", graph::testing::random_floats({1, 4, 10, 10}, 5));

    const std::string common = "--model " + model + " --against none --tune --reps 2 --warmup 1 --threads 2";
    CommandResult r = bench(common + " --json " + dir + "/tuned.json");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "tessera: graph alternative layout=")) << r.output;
    EXPECT_TRUE(contains(r.output, " ms, ")) << r.output;  // each alternative's time
    const nlohmann::json tuned = nlohmann::json::parse(std::ifstream(dir + "/tuned.json"));
    ASSERT_EQ(tuned.size(), 1u);
    EXPECT_TRUE(tuned[0]["ok"].get<bool>()) << tuned.dump();
    EXPECT_TRUE(contains(tuned[0]["impl"].get<std::string>(), "layout=")) << tuned.dump();

    r = bench(common + " --no-tune-graph");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_FALSE(contains(r.output, "graph alternative")) << r.output;
    expect_exit(bench("--model " + model + " --against none --no-tune-graph"), 2, "--no-tune-graph goes with --tune");
}

TEST(ModelBenchCli, BadInputFilesExitTwoBeforeCompiling) {
    const std::string dir = fresh_dir("model_cli_inputs");
    const SmallModel m = small_model(dir);
    expect_exit(bench("--model " + m.onnx + " --input " + dir + "/missing.npy --against none"), 2, "missing.npy");
    std::ofstream(dir + "/garbage.npy") << "not numpy at all";
    expect_exit(bench("--model " + m.onnx + " --input " + dir + "/garbage.npy --against none"), 2, "garbage.npy");
    graph::write_npy(dir + "/wrong.npy", graph::testing::random_floats({3, 25}, 1));
    expect_exit(bench("--model " + m.onnx + " --input " + dir + "/wrong.npy --against none"), 2,
                "'features' takes float32[3x24], the file holds f32[3x25]");
    expect_exit(bench("--model " + m.onnx + " --input nosuch=" + m.input + " --against none"), 2,
                "the model has no tensor 'nosuch'");
    fs::remove(m.input);  // no --input and no small.input.npy beside the model
    expect_exit(bench("--model " + m.onnx + " --against none"), 2, "no --input given");
    std::ofstream(dir + "/broken.onnx") << "not a model";
    expect_exit(bench("--model " + dir + "/broken.onnx --against none"), 2, "broken.onnx");
}

nlohmann::json read_json(const std::string &path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

TEST(ModelBenchCli, AgainstFakePeersWritesTheTableAndJson) {
    const std::string dir = fresh_dir("model_cli_ok");
    const SmallModel m = small_model(dir);
    std::ofstream(dir + "/small.pt") << "stands in for TorchScript";
    const std::string json = dir + "/report.json";
    const CommandResult r = bench("--model " + m.onnx + " --python /usr/bin/python3 --threads 2 --reps 4 --warmup 1 "
                                  "--json " + json,
                                  "FAKE_PEER_ONNXRUNTIME=ok FAKE_PEER_PYTORCH=ok FAKE_PEER_OUTPUT=" + m.output);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "input 'features' float32[3x24] from " + m.input)) << r.output;
    EXPECT_TRUE(contains(r.output, "onnxruntime: fake onnxruntime 0.1")) << r.output;
    EXPECT_TRUE(contains(r.output, "check: every output against onnxruntime's")) << r.output;
    const nlohmann::json all = read_json(json);
    ASSERT_EQ(all.size(), 3u) << all.dump(2);
    EXPECT_EQ(all[0]["scheduler"], "tessera");
    EXPECT_EQ(all[1]["scheduler"], "onnxruntime");
    EXPECT_EQ(all[2]["scheduler"], "pytorch");
    for (const nlohmann::json &rec : all) {
        EXPECT_TRUE(rec["ok"].get<bool>()) << rec.dump();
        EXPECT_EQ(rec["model"], m.onnx);
        EXPECT_EQ(rec["threads"], 2);
        EXPECT_EQ(rec["rounds"], 4);
        EXPECT_EQ(rec["timing"], "interleaved");
        EXPECT_GT(rec["time_ms_median"].get<double>(), 0);
        EXPECT_GT(rec["speedup_vs_onnxruntime"].get<double>(), 0);
        EXPECT_LE(rec["rel_error"].get<double>(), 1e-5) << rec.dump();
    }
    EXPECT_DOUBLE_EQ(all[1]["time_ms_median"].get<double>(), 0.5);  // the peer's own time, not the round trip
    EXPECT_EQ(all[1]["speedup_vs_onnxruntime"].get<double>(), 1.0);
}

TEST(ModelBenchCli, NaNCrashesAndAbsentPeers) {
    const std::string dir = fresh_dir("model_cli_bad_peers");
    const SmallModel m = small_model(dir);
    std::ofstream(dir + "/small.pt") << "stands in for TorchScript";
    // onnxruntime dies while timed (after its check run), PyTorch's output is NaN.
    const std::string json = dir + "/report.json";
    CommandResult r = bench("--model " + m.onnx + " --python /usr/bin/python3 --reps 3 --warmup 0 --json " + json,
                            "FAKE_PEER_ONNXRUNTIME=crash:2 FAKE_PEER_PYTORCH=nan FAKE_PEER_OUTPUT=" + m.output);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    nlohmann::json all = read_json(json);
    ASSERT_EQ(all.size(), 3u) << all.dump(2);
    EXPECT_EQ(all[0]["status"], "ok") << all[0].dump();
    EXPECT_EQ(all[0]["reference"], "onnxruntime");
    EXPECT_EQ(all[1]["status"], "crashed") << all[1].dump();
    EXPECT_TRUE(contains(all[1]["error"], "fake peer: crashing at run 3")) << all[1].dump();
    EXPECT_EQ(all[2]["status"], "mismatch") << all[2].dump();
    EXPECT_TRUE(all[2]["rel_error"].is_null());
    EXPECT_FALSE(all[2]["ok"].get<bool>());

    // No onnxruntime, no .pt: both skipped with how to get them; Tessera is only
    // checked for finite outputs, and the run succeeds.
    fs::remove(dir + "/small.pt");
    r = bench("--model " + m.onnx + " --python /usr/bin/python3 --reps 2 --warmup 0 --timing alone --json " + json,
              "FAKE_PEER_ONNXRUNTIME=unavailable");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(contains(r.output, "onnxruntime: skipped: fake onnxruntime: No module named 'onnxruntime' "
                                   "(bash scripts/install-peers.sh)"))
        << r.output;
    EXPECT_TRUE(contains(r.output, "pytorch: skipped: no " + dir + "/small.pt next to the model (make models"))
        << r.output;
    EXPECT_TRUE(contains(r.output, "outputs are only checked to be finite")) << r.output;
    all = read_json(json);
    ASSERT_EQ(all.size(), 3u) << all.dump(2);
    EXPECT_EQ(all[0]["status"], "ok");
    EXPECT_EQ(all[0]["timing"], "alone");
    EXPECT_EQ(all[0]["rounds"], 2);
    EXPECT_EQ(all[1]["status"], "skipped");
    EXPECT_EQ(all[2]["status"], "skipped");
}

}  // namespace
}  // namespace tessera::bench
