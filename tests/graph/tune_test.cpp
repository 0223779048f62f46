// Measured selection (apps/model/tune_partitions, tuning_log) without the machine's
// noise: a stand-in timer ranks the candidates, so the tests assert the choice, never a
// time. Fusion decisions: a fused partition against its pieces. The untuned candidate wins when it is fastest (the never-slower rule), another
// when it is; a log written by one tuning makes the next measure nothing; a log of
// another device profile is ignored; candidate names and partition signatures.
#include "device_profile.h"
#include "host_target.h"
#include "graph_error.h"
#include "lower_partition.h"
#include "model_builder.h"
#include "opened_model.h"
#include "pack_weights.h"
#include "evaluate.h"
#include "compare.h"
#include "jit_model.h"
#include "split_partitions.h"
#include "tune_fusion.h"
#include "tune_graph.h"
#include "tune_partitions.h"
#include "tuning_log.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

namespace tessera::cli {
namespace {

using graph::testing::ModelBuilder;

// Two convolutions and a matrix product: three partitions to tune.
std::string write_model(const std::string &file, int64_t width) {
    ModelBuilder b(13);
    b.input("image", {1, 4, width, width}).output("logits");
    b.initializer("w1", graph::testing::random_floats({8, 4, 3, 3}, 1, -0.3f, 0.3f));
    b.initializer("w2", graph::testing::random_floats({8, 8, 1, 1}, 2, -0.3f, 0.3f));
    b.initializer("fc", graph::testing::random_floats({8, 5}, 3, -0.3f, 0.3f));
    auto &c1 = b.node("Conv", {"image", "w1"}, {"c1"});
    graph::testing::set_ints(c1, "pads", {1, 1, 1, 1});
    b.node("Relu", {"c1"}, {"r1"});
    b.node("Conv", {"r1", "w2"}, {"c2"});
    b.node("GlobalAveragePool", {"c2"}, {"g"});
    b.node("Flatten", {"g"}, {"f"});
    b.node("MatMul", {"f", "fc"}, {"logits"});
    return b.save(file);
}

OpenedModel open(const std::string &path) {
    ModelOptions o;
    o.model = path;
    o.ahead_of_time = true;
    return open_model(o);
}

TuneSettings settings(const std::string &log, const std::string &fastest) {
    TuneSettings s;
    s.candidates = 2;
    s.halide_schedulers = {};
    s.log_path = log;
    s.timer_override = [fastest](const std::string &, const std::string &candidate) {
        return candidate == fastest ? 1.0 : 2.0;
    };
    return s;
}

TEST(Tune, TheUntunedCandidateIsKeptWhenItIsFastest) {
    const OpenedModel m = open(write_model("tune_a.onnx", 9));
    const std::vector<graph::MeasuredCandidates> t = tune_partitions(m, settings("", "Tessera:0"));
    ASSERT_GE(t.size(), 3u);
    for (const graph::MeasuredCandidates &c : t) {
        EXPECT_EQ(c.names, (std::vector<std::string>{"Tessera:0", "Tessera:1"}));
        EXPECT_EQ(c.chosen, 0) << c.partition;
        EXPECT_FALSE(c.from_log);
    }
}

TEST(Tune, TheFastestIsChosenAndTheLogIsReusedWithoutMeasuring) {
    const std::string log = graph::testing::temp_path("tune_reuse.jsonl");
    std::filesystem::remove(log);
    const OpenedModel m = open(write_model("tune_b.onnx", 9));
    const std::vector<graph::MeasuredCandidates> first = tune_partitions(m, settings(log, "Tessera:1"));
    for (const graph::MeasuredCandidates &c : first) EXPECT_EQ(c.chosen, 1) << c.partition;

    TuneSettings again = settings(log, "Tessera:0");
    again.timer_override = [](const std::string &partition, const std::string &) -> double {
        ADD_FAILURE() << partition << " measured again though the log has it";
        return 1;
    };
    const std::vector<graph::MeasuredCandidates> second = tune_partitions(m, again);
    ASSERT_EQ(second.size(), first.size());
    for (const graph::MeasuredCandidates &c : second) {
        EXPECT_TRUE(c.from_log) << c.partition;
        EXPECT_EQ(c.chosen, 1) << c.partition;
    }
    // The schedule of a tuned partition applies (compiles); an untuned one keeps the default.
    const auto schedule = tuned_schedule(m, second);
    graph::LoweredPartition lp = graph::lower_partition(m.graph, m.plan.partitions[0]);
    schedule(lp.pipeline, 0);
    lp.pipeline.compile_jit(m.target);

    // Another model: its convolutions (other shapes) are measured; its classifier, the same
    // product of the same shapes, takes the first model's record.
    const OpenedModel other = open(write_model("tune_c.onnx", 11));
    int measured = 0;
    TuneSettings counting = settings(log, "Tessera:0");
    counting.timer_override = [&measured](const std::string &, const std::string &) { return double(++measured); };
    const std::vector<graph::MeasuredCandidates> third = tune_partitions(other, counting);
    ASSERT_EQ(third.size(), first.size());
    for (size_t k = 0; k + 1 < third.size(); k++) EXPECT_FALSE(third[k].from_log) << third[k].partition;
    EXPECT_TRUE(third.back().from_log) << third.back().partition;
    EXPECT_EQ(measured, 2 * int(third.size() - 1));
}

TEST(Tune, AnotherProfilesLogIsIgnored) {
    const std::string log = graph::testing::temp_path("tune_other.jsonl");
    std::filesystem::remove(log);
    const OpenedModel m = open(write_model("tune_d.onnx", 9));
    tune_partitions(m, settings(log, "Tessera:1"));
    // The same log read for another device profile fingerprint and another target.
    EXPECT_TRUE(read_tuning_log(log, m.target.to_string(), "another profile").records.empty());
    EXPECT_GT(read_tuning_log(log, m.target.to_string(), "another profile").elsewhere, 0);
    EXPECT_TRUE(read_tuning_log(log, "x86-64-linux", "").records.empty());
}

TEST(Tune, CandidateNames) {
    const SchedulerChoice base;
    EXPECT_EQ(candidate_choice(base, "Tessera:2").options.candidate, 2);
    EXPECT_EQ(candidate_choice(base, "Tessera:2").name, "Tessera");
    EXPECT_EQ(candidate_choice(base, "mullapudi2016").name, "Mullapudi2016");
    for (const char *bad : {"Tessera:", "Tessera:x", "Tessera:-1", "Tessera", "none", "magic"}) {
        EXPECT_THROW(candidate_choice(base, bad), graph::GraphError) << bad;
    }
}

TEST(Tune, SignaturesIgnoreNamesAndWeightsButNotShapes) {
    const OpenedModel a = open(write_model("sig_a.onnx", 9)), b = open(write_model("sig_b.onnx", 9));
    const OpenedModel c = open(write_model("sig_c.onnx", 10));
    ASSERT_EQ(a.plan.partitions.size(), c.plan.partitions.size());
    for (size_t k = 0; k < a.plan.partitions.size(); k++) {
        EXPECT_EQ(partition_signature(a.graph, a.plan.partitions[k]), partition_signature(b.graph, b.plan.partitions[k]));
    }
    EXPECT_NE(partition_signature(a.graph, a.plan.partitions[0]), partition_signature(c.graph, c.plan.partitions[0]));
}

TEST(Tune, AMalformedLogNamesItsLine) {
    const std::string log = graph::testing::temp_path("tune_bad.jsonl");
    std::ofstream(log) << "\n{\"signature\": \"1\", \"target\": \"t\", \"profile\": \"p\", \"candidates\": [], \"chosen\": 0}\n";
    try {
        read_tuning_log(log, "t", "p");
        FAIL() << "no error";
    } catch (const graph::GraphError &e) {
        EXPECT_NE(std::string(e.what()).find("tune_bad.jsonl:2: not a tuning record"), std::string::npos) << e.what();
    }
}

// The log carries what the calibration fits to: the measured figures' fingerprint and,
// per Tessera candidate, its compute stages' model terms, which add up to the
// candidate's predicted time.
TEST(Tune, TheLogRecordsTheModelsTermsForTheCalibration) {
    const std::string log = graph::testing::temp_path("tune_terms.jsonl");
    std::filesystem::remove(log);
    const OpenedModel m = open(write_model("tune_e.onnx", 9));
    TuneSettings s = settings(log, "Tessera:1");
    s.candidates = 3;
    tune_partitions(m, s);
    const TuningLog read = read_tuning_log(log, m.target.to_string(),
                                           hal::profile_fingerprint(profile_or_builtin(m.choice.options)));
    ASSERT_FALSE(read.records.empty());
    const std::string figures = hal::figures_fingerprint(profile_or_builtin(m.choice.options));
    int stages = 0;
    for (const TuningRecord &r : read.records) {
        EXPECT_EQ(r.figures, figures);
        ASSERT_EQ(r.stages.size(), r.names.size());
        for (size_t c = 0; c < r.names.size(); c++) {
            hal::CalibrationCandidate cand;
            cand.stages = r.stages[c];
            EXPECT_NEAR(hal::predicted_ms(cand, {}), r.predicted_ms[c], 1e-9 * r.predicted_ms[c]) << r.partition;
            for (const hal::ModelTerms &t : r.stages[c]) {
                EXPECT_TRUE(t.family == "conv" || t.family == "matmul") << t.family;
                stages++;
            }
        }
    }
    EXPECT_GT(stages, 0);
    int skipped = 0;
    const std::vector<hal::CalibrationSample> samples = hal::read_calibration_samples(log, figures, &skipped);
    EXPECT_EQ(samples.size(), read.records.size());
    EXPECT_EQ(skipped, 0);
}

// A model's repeated blocks (the same ops and shapes, other weights) are measured once.
TEST(Tune, RepeatedBlocksAreMeasuredOnce) {
    ModelBuilder b(17);
    b.input("image", {1, 8, 9, 9}).output("y");
    std::string x = "image";
    for (int k = 0; k < 3; k++) {
        const std::string w = "w" + std::to_string(k), c = "c" + std::to_string(k);
        const std::string r = k == 2 ? "y" : "r" + std::to_string(k);
        b.initializer(w, graph::testing::random_floats({8, 8, 3, 3}, unsigned(k + 1), -0.3f, 0.3f));
        graph::testing::set_ints(b.node("Conv", {x, w}, {c}), "pads", {1, 1, 1, 1});
        b.node("Relu", {c}, {r});
        x = r;
    }
    const OpenedModel m = open(b.save("tune_repeated.onnx"));
    const std::string log = graph::testing::temp_path("tune_repeated.jsonl");
    std::filesystem::remove(log);
    TuneSettings s = settings(log, "Tessera:1");
    int timed = 0;
    s.timer_override = [&timed](const std::string &, const std::string &candidate) {
        timed++;
        return candidate == "Tessera:1" ? 1.0 : 2.0;
    };
    const std::vector<graph::MeasuredCandidates> t = tune_partitions(m, s);
    ASSERT_EQ(t.size(), 3u);
    EXPECT_EQ(timed, 2);  // two candidates, once
    for (const graph::MeasuredCandidates &c : t) EXPECT_EQ(c.chosen, 1) << c.partition;
    EXPECT_NE(t[1].partition, t[0].partition);
    EXPECT_EQ(read_tuning_log(log, m.target.to_string(), hal::profile_fingerprint(profile_or_builtin(m.choice.options)))
                  .records.size(), 1u);
}

TEST(Tune, CandidatesCompiledAtOnceRunAndMatchOneByOne) {
    const OpenedModel m = open(write_model("tune_jobs.onnx", 9));
    TuneSettings one = settings("", "Tessera:1");
    one.halide_schedulers = {"Mullapudi2016"};
    one.jobs = 1;
    TuneSettings three = one;
    three.jobs = 3;
    three.rounds = 1;
    three.timer_override = nullptr;  // each compiled candidate runs
    const std::vector<graph::MeasuredCandidates> serial = tune_partitions(m, one);
    const std::vector<graph::MeasuredCandidates> parallel = tune_partitions(m, three);
    ASSERT_EQ(parallel.size(), serial.size());
    for (size_t k = 0; k < serial.size(); k++) {
        EXPECT_EQ(parallel[k].names, (std::vector<std::string>{"Tessera:0", "Tessera:1", "Mullapudi2016"}));
        EXPECT_EQ(parallel[k].names, serial[k].names);
        EXPECT_EQ(parallel[k].predicted_ms, serial[k].predicted_ms) << parallel[k].partition;
        ASSERT_EQ(parallel[k].candidate_ms.size(), 3u);
        for (double ms : parallel[k].candidate_ms) EXPECT_TRUE(ms > 0 && std::isfinite(ms)) << parallel[k].partition;
        EXPECT_EQ(serial[k].chosen, 1);
    }
}

TEST(TuneGraph, AlternativesAreNamedAndReadBack) {
    ModelOptions asked;
    asked.model = "m.onnx";
    // Blocks of 16 are an alternative where the host's vectors hold 8 floats.
    const bool block8 = channel_block_for(tessera::hal::host_target()) == 8;
    std::vector<std::string> expected = {"layout=auto", "layout=chosen", "layout=nchwc", "layout=measured"};
    if (block8) expected.push_back("layout=nchwc,block=16");
    expected.push_back("layout=auto,no-fusion");
    EXPECT_EQ(graph_alternative_names(asked), expected);
    const ModelOptions wide = graph_alternative(asked, "layout=nchwc,block=16");
    EXPECT_EQ(wide.layout, "nchwc");
    EXPECT_EQ(wide.channel_block, 16);
    EXPECT_EQ(graph_alternative(wide, "layout=chosen").channel_block, 0);
    const ModelOptions unfused = graph_alternative(asked, "layout=auto,no-fusion");
    EXPECT_FALSE(unfused.fuse);
    EXPECT_EQ(unfused.layout, "auto");
    EXPECT_EQ(graph_alternative(asked, "layout=chosen").layout, "chosen");
    EXPECT_TRUE(graph_alternative(asked, "layout=chosen").fuse);
    asked.layout = "chosen";
    asked.fuse = false;
    expected = {"layout=chosen,no-fusion", "layout=nchwc,no-fusion", "layout=measured,no-fusion"};
    if (block8) expected.push_back("layout=nchwc,block=16,no-fusion");
    EXPECT_EQ(graph_alternative_names(asked), expected);
    for (const char *bad : {"layout=sideways", "no-fusion", "fast", "", "layout=nchwc,block=12"}) {
        EXPECT_THROW(graph_alternative(asked, bad), graph::GraphError) << bad;
    }
}

// The fastest alternative is compiled, the one asked for when it is fastest, and a log
// written by one compile is taken by the next without measuring.
TEST(TuneGraph, TheFastestAlternativeIsChosenAndLogged) {
    ModelOptions asked;
    asked.model = write_model("tune_graph.onnx", 9);
    asked.ahead_of_time = true;
    const std::string log = graph::testing::temp_path("tune_graph.jsonl");
    std::filesystem::remove(log);
    TuneSettings s;
    s.log_path = log;
    std::vector<std::string> timed;
    s.timer_override = [&timed](const std::string &partition, const std::string &name) {
        if (partition.rfind("node ", 0) == 0) return 1.0;  // layout=measured timing a convolution's form
        EXPECT_EQ(partition, "graph");
        timed.push_back(name);
        return name == "layout=auto,no-fusion" ? 1.0 : 2.0;
    };
    const GraphTuning first = tune_graph(asked, s);
    ASSERT_GE(timed.size(), 2u);
    EXPECT_EQ(timed[0], "layout=auto");
    EXPECT_FALSE(first.chosen.fuse);
    EXPECT_EQ(first.names[size_t(first.choice)], "layout=auto,no-fusion");
    EXPECT_FALSE(first.from_log);

    s.timer_override = [](const std::string &partition, const std::string &name) -> double {
        ADD_FAILURE() << partition << " " << name << " timed again though the log has the graph's choice";
        return 1;
    };
    const GraphTuning again = tune_graph(asked, s);
    EXPECT_TRUE(again.from_log);
    EXPECT_FALSE(again.chosen.fuse);

    // The one asked for wins where it is fastest (a fresh log).
    std::filesystem::remove(log);
    s.timer_override = [](const std::string &, const std::string &name) { return name == "layout=auto" ? 0.5 : 2.0; };
    const GraphTuning kept = tune_graph(asked, s);
    EXPECT_EQ(kept.choice, 0);
    EXPECT_TRUE(kept.chosen.fuse);
    EXPECT_EQ(kept.chosen.layout, "auto");
    // The log's graph record is not a partition's: the partitions' tuning reads past it.
    const OpenedModel m = open(asked.model);
    EXPECT_NO_THROW(tune_partitions(m, settings(log, "Tessera:0")));
}

// Fusion decisions. The test model's partitions Conv+Relu and Conv+GlobalAveragePool
// (+Flatten) have pieces: without fusion each node is a partition of its own.
size_t with_pieces(const std::vector<std::vector<graph::Partition>> &pieces) {
    size_t n = 0;
    for (const std::vector<graph::Partition> &p : pieces) n += p.empty() ? 0 : 1;
    return n;
}

TEST(TuneFusion, APartitionsPiecesCoverItAndSplitInOrder) {
    const std::string path = write_model("fusion_pieces.onnx", 9);
    const OpenedModel m = open(path);
    const std::vector<std::vector<graph::Partition>> pieces = graph::fusion_pieces(m.graph, m.plan);
    ASSERT_EQ(pieces.size(), m.plan.partitions.size());
    EXPECT_EQ(with_pieces(pieces), 2u);
    size_t k = 0;
    while (k < pieces.size() && (pieces[k].empty() || m.graph.nodes[size_t(pieces[k][1].nodes[0])].op_type != "Relu")) k++;
    ASSERT_LT(k, pieces.size()) << "no Conv+Relu partition with pieces";
    const graph::Partition &fused = m.plan.partitions[k];
    ASSERT_EQ(pieces[k].size(), 2u);
    EXPECT_EQ(m.graph.nodes[size_t(pieces[k][0].nodes.at(0))].op_type, "Conv");
    EXPECT_EQ(m.graph.nodes[size_t(pieces[k][1].nodes.at(0))].op_type, "Relu");
    EXPECT_EQ(pieces[k][1].output, fused.output);
    EXPECT_EQ(pieces[k][1].inputs, (std::vector<std::string>{pieces[k][0].output}));

    std::vector<bool> split(pieces.size(), false);
    split[k] = true;
    const graph::FusionPlan plan = graph::split_partitions(m.plan, pieces, split);
    ASSERT_EQ(plan.partitions.size(), m.plan.partitions.size() + 1);
    // Every node in one partition; every input a graph input, a constant or an earlier
    // partition's output; the names numbered again in order.
    std::set<std::string> available(m.graph.inputs.begin(), m.graph.inputs.end());
    std::vector<int> seen(m.graph.nodes.size(), 0);
    for (size_t q = 0; q < plan.partitions.size(); q++) {
        const graph::Partition &p = plan.partitions[q];
        EXPECT_EQ(p.name.rfind("p" + std::to_string(q) + "_", 0), 0u) << p.name;
        for (int n : p.nodes) seen[size_t(n)]++;
        for (const std::string &in : p.inputs) {
            EXPECT_TRUE(available.count(in) || m.graph.value(in).is_constant()) << p.name << " reads " << in << " early";
        }
        available.insert(p.output);
    }
    for (size_t n = 0; n < seen.size(); n++) EXPECT_EQ(seen[n], 1) << m.graph.nodes[n].name;

    // The split plan computes what the model does (outputs poisoned by the run).
    graph::TensorMap inputs;
    inputs["image"] = graph::testing::random_floats({1, 4, 9, 9}, 5, -1.0f, 1.0f);
    const graph::JitModel jit(m.graph, plan, m.schedule, m.target);
    const graph::TensorMap got = jit.run(inputs);
    ModelOptions as_written;  // the evaluator reads the weights unpacked
    as_written.model = path;
    as_written.layout = "fixed";
    const graph::TensorMap want = graph::evaluate(open_model(as_written).graph, inputs);
    EXPECT_LT(graph::relative_error(got.at("logits"), want.at("logits")), 1e-5);

    std::vector<bool> one_piece(pieces.size(), false);
    size_t whole = 0;
    while (!pieces[whole].empty()) whole++;
    one_piece[whole] = true;
    EXPECT_THROW(graph::split_partitions(m.plan, pieces, one_piece), graph::GraphError);
}

TuneSettings fusion_settings(const std::string &log, double fused_ms, double pieces_ms, int *timed = nullptr) {
    TuneSettings s;
    s.log_path = log;
    s.timer_override = [=](const std::string &, const std::string &form) {
        if (timed) (*timed)++;
        EXPECT_TRUE(form == "fused" || form == "pieces") << form;
        return form == "fused" ? fused_ms : pieces_ms;
    };
    return s;
}

TEST(TuneFusion, AFusionIsTakenBackOnlyWhenItsPiecesRanFaster) {
    const OpenedModel m = open(write_model("fusion_tune.onnx", 9));
    const size_t partitions = m.plan.partitions.size();
    const int decisions = int(with_pieces(graph::fusion_pieces(m.graph, m.plan)));
    for (double pieces_ms : {3.0, 1.99}) {  // slower, and a tie within noise: kept fused
        const FusionTuning kept = tune_fusion(m, fusion_settings("", 2.0, pieces_ms));
        EXPECT_EQ(kept.decisions, decisions);
        EXPECT_EQ(kept.split, 0);
        EXPECT_EQ(kept.plan.partitions.size(), partitions);
    }
    const FusionTuning split = tune_fusion(m, fusion_settings("", 2.0, 1.0));
    EXPECT_EQ(split.decisions, decisions);
    EXPECT_EQ(split.split, decisions);
    EXPECT_EQ(split.plan.partitions.size(), partitions + size_t(decisions));
}

TEST(TuneFusion, DecisionsAreLoggedAndReadBackWithoutMeasuring) {
    const std::string log = graph::testing::temp_path("fusion_log.jsonl");
    std::filesystem::remove(log);
    const OpenedModel m = open(write_model("fusion_log.onnx", 9));
    const int decisions = int(with_pieces(graph::fusion_pieces(m.graph, m.plan)));
    int timed = 0;
    const FusionTuning first = tune_fusion(m, fusion_settings(log, 2.0, 1.0, &timed));
    EXPECT_EQ(timed, 2 * decisions);
    EXPECT_EQ(first.split, decisions);
    const TuningLog written =
        read_tuning_log(log, m.target.to_string(), hal::profile_fingerprint(profile_or_builtin(m.choice.options)));
    ASSERT_EQ(written.records.size(), size_t(decisions));
    const TuningRecord &r = written.records[0];
    EXPECT_EQ(r.names, (std::vector<std::string>{"fused", "pieces"}));
    EXPECT_EQ(r.measured_ms, (std::vector<double>{2.0, 1.0}));
    EXPECT_EQ(r.chosen, 1);
    EXPECT_EQ(r.ops, "Conv+Relu");

    timed = 0;
    const FusionTuning again = tune_fusion(m, fusion_settings(log, 1.0, 2.0, &timed));
    EXPECT_EQ(timed, 0);
    EXPECT_EQ(again.split, decisions);
    // The partitions' tuning reads past the decision; the split plan's partitions tune.
    OpenedModel split = open(write_model("fusion_log.onnx", 9));
    split.plan = again.plan;
    EXPECT_EQ(tune_partitions(split, settings(log, "Tessera:0")).size(), 3u);  // two convolutions, a product

    // A decision this build does not know is an error naming the log.
    TuningRecord bad = r;
    bad.names = {"fused", "sideways"};
    append_tuning_log(log, {bad});
    try {
        tune_fusion(m, fusion_settings(log, 1.0, 2.0));
        ADD_FAILURE() << "a bad decision in the log was taken";
    } catch (const graph::GraphError &e) {
        EXPECT_NE(std::string(e.what()).find(log), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("sideways"), std::string::npos) << e.what();
    }
}

// --layout measured: each convolution's forms timed (here by a stand-in timer) instead
// of predicted; the layout pass takes the fastest, and the times go to the log, from
// which the next open reads them without measuring. Four alike convolutions (with
// Relus): a region whose conversions are a small share of its traffic, and one
// signature, so each form is measured once.
std::string write_blockable_model(const std::string &file) {
    ModelBuilder b(13);
    b.input("image", {1, 16, 10, 10}).output("y");
    std::string x = "image";
    for (int k = 0; k < 4; k++) {
        const std::string w = "w" + std::to_string(k), c = "c" + std::to_string(k);
        const std::string r = k == 3 ? "y" : "r" + std::to_string(k);
        b.initializer(w, graph::testing::random_floats({16, 16, 3, 3}, unsigned(k + 1), -0.3f, 0.3f));
        graph::testing::set_ints(b.node("Conv", {x, w}, {c}), "pads", {1, 1, 1, 1});
        b.node("Relu", {c}, {r});
        x = r;
    }
    return b.save(file);
}

TEST(MeasuredLayouts, TheFastestMeasuredFormIsTakenAndLogged) {
    const std::string model = write_blockable_model("measured_layouts.onnx");
    const std::string log = graph::testing::temp_path("measured_layouts.jsonl");
    auto open_measured = [&](const std::string &fastest, int *timed) {
        ModelOptions o;
        o.model = model;
        o.layout = "measured";
        o.layout_timing.log_path = log;
        o.layout_timing.timer_override = [fastest, timed](const std::string &, const std::string &form) {
            if (timed) (*timed)++;
            return form == fastest ? 1.0 : 3.0;
        };
        return open_model(o);
    };
    const std::string blocked_form =
        graph::layout_name(graph::Layout::blocked, channel_block_for(tessera::hal::host_target()));
    for (const std::string &fastest : {blocked_form, std::string("nhwc"), std::string("nchw")}) {
        SCOPED_TRACE(fastest);
        std::filesystem::remove(log);
        int timed = 0;
        const OpenedModel m = open_measured(fastest, &timed);
        EXPECT_EQ(timed, 3);  // nchw, blocked and nhwc, once for the four convolutions alike
        ASSERT_EQ(m.layouts.predictions.size(), 4u) << m.layouts.describe();
        EXPECT_EQ(m.layouts.blocked_nodes >= 4, fastest == blocked_form) << m.layouts.describe();
        if (fastest != blocked_form) EXPECT_EQ(m.layouts.blocked_nodes, 0) << m.layouts.describe();
        EXPECT_EQ(m.layouts.nhwc_nodes >= 4, fastest == "nhwc") << m.layouts.describe();
        if (fastest != "nhwc") EXPECT_EQ(m.layouts.nhwc_nodes, 0) << m.layouts.describe();
        EXPECT_EQ(read_tuning_log(log, m.target.to_string(), hal::profile_fingerprint(profile_or_builtin(m.choice.options)))
                      .records.size(),
                  3u);
    }
    // The log holds NCHW as the fastest: a second open measures nothing and keeps it.
    int timed = 0;
    const OpenedModel again = open_measured("nhwc", &timed);
    EXPECT_EQ(timed, 0);
    EXPECT_EQ(again.layouts.blocked_nodes + again.layouts.nhwc_nodes, 0) << again.layouts.describe();
}

// --layout auto follows the target's register file: with AVX2's 16 vector registers every
// region is blocked and every matrix product with a constant B packed in panels two vectors
// wide; with AVX-512's 32 a region of dense 3x3 convolutions stays NCHW, only matrix-vector
// products and transB Gemms are packed, in panels 64 wide.
TEST(OpenModel, AutoLayoutFollowsTheTargetsRegisterFile) {
    ModelBuilder b(13);
    b.input("image", {1, 16, 8, 8}).output("logits");
    b.initializer("w", graph::testing::random_floats({16, 16, 3, 3}, 1, -0.3f, 0.3f));
    b.initializer("fc", graph::testing::random_floats({64, 16}, 2, -0.3f, 0.3f));
    b.initializer("w2", graph::testing::random_floats({16, 16, 3, 3}, 3, -0.3f, 0.3f));
    graph::testing::set_ints(b.node("Conv", {"image", "w"}, {"c"}), "pads", {1, 1, 1, 1});
    b.node("Relu", {"c"}, {"r"});
    graph::testing::set_ints(b.node("Conv", {"r", "w2"}, {"c2"}), "pads", {1, 1, 1, 1});
    b.node("Relu", {"c2"}, {"r2"});
    b.node("GlobalAveragePool", {"r2"}, {"g"});
    graph::testing::set_int(b.node("Flatten", {"g"}, {"f"}), "axis", 1);
    graph::testing::set_int(b.node("Gemm", {"f", "fc"}, {"logits"}, "fc_gemm"), "transB", 1);
    const std::string path = b.save("auto_register_file.onnx");
    for (const bool avx512 : {false, true}) {
        SCOPED_TRACE(avx512 ? "avx512" : "avx2");
        ModelOptions o;
        o.model = path;
        o.ahead_of_time = true;
        o.target = avx512 ? "x86-64-linux-avx-avx2-f16c-fma-sse41-avx512-avx512_skylake" : "x86-64-linux-avx-avx2-f16c-fma-sse41";
        const OpenedModel m = open_model(o);
        EXPECT_EQ(m.layouts.blocked_nodes > 0, !avx512) << m.layouts.describe();
        int64_t block = 0;
        for (const graph::Node &n : m.graph.nodes) {
            if (n.op_type == "Gemm") block = graph::packed_block(n);
        }
        EXPECT_EQ(block, avx512 ? 64 : graph::kPackedMatmulBlockAvx2);
        // A matrix product of several rows with constant B: packed only with 16 registers.
        ModelBuilder mm(13);
        mm.input("a", {4, 16}).output("c");
        mm.initializer("b", graph::testing::random_floats({16, 32}, 4, -0.3f, 0.3f));
        mm.node("MatMul", {"a", "b"}, {"c"});
        o.model = mm.save("auto_register_file_matmul.onnx");
        const OpenedModel rows = open_model(o);
        ASSERT_EQ(rows.graph.nodes.size(), 1u);
        EXPECT_EQ(graph::packed_block(rows.graph.nodes[0]), avx512 ? 0 : graph::kPackedMatmulBlockAvx2);
    }
}

}  // namespace
}  // namespace tessera::cli
