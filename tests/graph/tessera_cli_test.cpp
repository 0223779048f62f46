// The tessera command line: a small model compiled ahead of time, a C++ program
// compiled and linked against the emitted header and library, run and compared
// with the reference evaluator; `tessera run` on the .onnx, the compiled folder
// and --reference; bad models and input files exit 2 naming the culprit.
#include "evaluate.h"
#include "import_onnx.h"
#include "model_builder.h"
#include "pinned_machine.h"
#include "random_graph.h"
#include "npy.h"
#include "run_command.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace tessera::graph {
namespace {

using testing::ModelBuilder;
using tessera::test::CommandResult;

CommandResult tessera(const std::string &args) {
    return tessera::test::run_command(std::string(TESSERA_BIN) + " " + args);
}

// `tessera ARGS` is refused: exit status 2, saying `message`.
void expect_refused(const std::string &args, const std::string &message) {
    const CommandResult r = tessera(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
}

// An MLP: Gemm + bias, GELU (tanh-free Erf form), Gemm, softmax: 1x24 -> 1x10.
std::string write_mlp(const std::string &file) {
    ModelBuilder b(13);
    b.input("features", {3, 24}).output("probs");
    b.initializer("w1", testing::random_floats({24, 40}, 1, -0.3f, 0.3f));
    b.initializer("b1", testing::random_floats({40}, 2));
    b.initializer("w2", testing::random_floats({40, 10}, 3, -0.3f, 0.3f));
    b.initializer("b2", testing::random_floats({10}, 4));
    b.node("MatMul", {"features", "w1"}, {"h0"});
    b.node("Add", {"h0", "b1"}, {"h1"});
    b.node("Relu", {"h1"}, {"h2"});
    testing::set_int(b.node("Gemm", {"h2", "w2", "b2"}, {"logits"}), "transB", 0);
    testing::set_int(b.node("Softmax", {"logits"}, {"probs"}), "axis", 1);
    return b.save(file);
}

TEST(TesseraCli, CompiledLibraryLinksIntoAProgramAndMatchesTheReference) {
    const std::string model = write_mlp("mlp.onnx"), out = testing::temp_path("mlp_out");
    std::filesystem::remove_all(out);
    CommandResult r = tessera("compile " + model + " -o " + out + " --name mlp");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("fusion: 5 kernels -> "), std::string::npos) << r.output;
    for (const char *f : {"libmlp.a", "libmlp.so", "mlp.h", "mlp.weights", "mlp.plan.json"}) {
        EXPECT_TRUE(std::filesystem::exists(out + "/" + f)) << f << "\n" << r.output;
    }
    // A user's program: inputs from a file, outputs to a file.
    const TensorData x = testing::random_floats({3, 24}, 7);
    write_npy(out + "/x.npy", x);
    {
        std::ofstream in(out + "/x.bin", std::ios::binary);
        in.write(reinterpret_cast<const char *>(x.f.data()), std::streamsize(x.f.size() * sizeof(float)));
    }
    std::ofstream(out + "/main.cpp") << R"(#include "mlp.h"
#include <cstdio>
int main(int, char **argv) {
    mlp_options options = {2, 0};
    mlp_model *m = mlp_create_with_options(argv[1], &options);
    if (!m) { std::fprintf(stderr, "%s\n", mlp_last_error()); return 3; }
    if (mlp_threads(m) != 2) return 7;
    float x[72], y[30];
    std::FILE *f = std::fopen(argv[2], "rb");
    if (std::fread(x, sizeof(float), 72, f) != 72) return 4;
    std::fclose(f);
    for (float &v : y) v = 0.0f / 0.0f;
    if (mlp_run(m, x, y) != 0) { std::fprintf(stderr, "%s\n", mlp_last_error()); return 5; }
    for (float v : y) std::printf("%.9g\n", v);
    mlp_destroy(m);
    return mlp_create("/nonexistent.weights") == nullptr ? 0 : 6;
}
)";
    r = tessera::test::run_command("c++ -std=c++17 -O1 " + out + "/main.cpp -I " + out + " " + out +
                                   "/libmlp.a -lpthread -ldl -o " + out + "/main");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = tessera::test::run_command(out + "/main " + out + "/mlp.weights " + out + "/x.bin");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    TensorData got(DType::f32, {3, 10});
    std::istringstream lines(r.output);
    for (float &v : got.f) lines >> v;
    const Graph g = import_onnx(model);
    const TensorData want = evaluate(g, {{"features", x}}).at("probs");
    EXPECT_LE(testing::relative_error(got, want), 1e-5) << r.output;

    // tessera run on the folder, the .onnx (JIT) and --reference agree with --expect.
    write_npy(out + "/want.npy", want);
    // (--threads sizes the model's own thread pool, JIT and compiled.)
    for (const std::string &target : {out, model, model + " --reference", model + " --no-fusion",
                                      model + " --layout packed", model + " --layout packed --reference",
                                      model + " --threads 1", out + " --threads 1"}) {
        r = tessera("run " + target + " --input " + out + "/x.npy --expect " + out + "/want.npy --reps 2");
        EXPECT_EQ(r.exit_code, 0) << target << "\n" << r.output;
        EXPECT_NE(r.output.find("max relative error"), std::string::npos) << r.output;
    }
    // A wrong expectation fails the check (exit 1).
    write_npy(out + "/wrong.npy", testing::random_floats({3, 10}, 9));
    r = tessera("run " + out + " --input " + out + "/x.npy --expect " + out + "/wrong.npy --reps 1");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("FAILED"), std::string::npos) << r.output;
}

// Random graphs compiled ahead of time, one kernel per node (the most intermediate
// values, so the most sharing in the arena) and fused, run by `tessera run DIR` on
// three threads (more than this machine may have) against the evaluator; the memory
// plan in plan.json never gives two values alive at the same step common bytes, and
// `tessera inspect` reports the same arena.
TEST(TesseraCli, RandomGraphsCompiledAheadOfTimeMatchTheEvaluatorAndTheirArenaNeverAliases) {
    for (uint64_t seed : {3, 5, 8, 11}) {
        testing::RandomGraph rg = testing::random_graph(seed, 9);
        const std::string model = rg.model.save("random_" + std::to_string(seed) + ".onnx");
        Graph g = import_onnx(model);
        std::string input_args;
        TensorMap inputs;
        for (const std::string &name : g.inputs) {
            inputs[name] = testing::random_floats(g.value(name).shape, seed, -2, 2);
            const std::string file = testing::temp_path("random_in_" + std::to_string(inputs.size()) + ".npy");
            write_npy(file, inputs[name]);
            input_args += " --input " + name + "=" + file;
        }
        const TensorMap want = evaluate(g, inputs);
        std::string expect_args;
        for (const std::string &name : g.outputs) {
            const std::string file = testing::temp_path("random_want_" + std::to_string(expect_args.size()) + ".npy");
            write_npy(file, want.at(name));
            expect_args += " --expect " + name + "=" + file;
        }
        for (const std::string fusion : {" --no-fusion", ""}) {
            const std::string out = testing::temp_path("random_out");
            std::filesystem::remove_all(out);
            CommandResult r = tessera("compile " + model + " -o " + out + " --name random" + fusion);
            ASSERT_EQ(r.exit_code, 0) << "seed " << seed << fusion << "\n" << r.output;
            r = tessera("run " + out + input_args + expect_args + " --threads 3 --reps 2 --tolerance 1e-4");
            EXPECT_EQ(r.exit_code, 0) << "seed " << seed << fusion << "\n" << r.output;
            EXPECT_NE(r.output.find("3 threads"), std::string::npos) << r.output;

            std::ifstream in(out + "/random.plan.json");
            const nlohmann::json memory = nlohmann::json::parse(in).at("memory");
            const nlohmann::json &buffers = memory.at("buffers");
            for (size_t a = 0; a < buffers.size(); a++) {
                for (size_t b = a + 1; b < buffers.size(); b++) {
                    const nlohmann::json &x = buffers[a], &y = buffers[b];
                    const bool together = x.at("first_step") <= y.at("last_step") && y.at("first_step") <= x.at("last_step");
                    const size_t x0 = x.at("offset"), y0 = y.at("offset");
                    const size_t x1 = x0 + size_t(x.at("bytes")), y1 = y0 + size_t(y.at("bytes"));
                    EXPECT_FALSE(together && x0 < y1 && y0 < x1)
                        << "seed " << seed << fusion << ": " << x.dump() << " and " << y.dump();
                }
            }
            EXPECT_LE(memory.at("arena_bytes"), memory.at("separate_bytes"));
            EXPECT_GE(memory.at("arena_bytes"), memory.at("peak_live_bytes"));
            // tessera inspect plans the same arena from the fusion plan alone.
            r = tessera("inspect " + model + fusion);
            ASSERT_EQ(r.exit_code, 0) << r.output;
            char line[160];
            std::snprintf(line, sizeof line, "memory: %zu intermediate values in an arena of %.3f MB", buffers.size(),
                          double(memory.at("arena_bytes")) / 1e6);
            EXPECT_NE(r.output.find(line), std::string::npos) << line << "\n" << r.output;
        }
    }
}

// A small CNN: 3x3 conv with bias and ReLU, 2x2 max pool, 1x1 conv, global average.
std::string write_cnn(const std::string &file) {
    ModelBuilder b(13);
    b.input("image", {1, 3, 12, 12}).output("pooled");
    b.initializer("w1", testing::random_floats({8, 3, 3, 3}, 21, -0.4f, 0.4f));
    b.initializer("b1", testing::random_floats({8}, 22));
    b.initializer("w2", testing::random_floats({6, 8, 1, 1}, 23, -0.4f, 0.4f));
    auto &c1 = b.node("Conv", {"image", "w1", "b1"}, {"c1"});
    testing::set_ints(c1, "pads", {1, 1, 1, 1});
    testing::set_ints(c1, "kernel_shape", {3, 3});
    b.node("Relu", {"c1"}, {"r1"});
    auto &pool = b.node("MaxPool", {"r1"}, {"p1"});
    testing::set_ints(pool, "kernel_shape", {2, 2});
    testing::set_ints(pool, "strides", {2, 2});
    b.node("Conv", {"p1", "w2"}, {"c2"});
    b.node("GlobalAveragePool", {"c2"}, {"pooled"});
    return b.save(file);
}

// A bottleneck's tail at 7x7 (1x1 expand with ReLU, 1x1 project, the skip added):
// its partitions are pointwise across the plane and take their buffers as rows of
// 49 points (lower_partition); the compiled library, NCHW and NCHW8c, computes the
// model as written.
TEST(TesseraCli, PointwisePartitionsCompiledWithPlanesAsRowsMatchTheReference) {
    ModelBuilder b(13);
    b.input("x", {1, 16, 7, 7}).output("y");
    b.initializer("w1", testing::random_floats({32, 16, 1, 1}, 41, -0.3f, 0.3f));
    b.initializer("b1", testing::random_floats({32}, 42));
    b.initializer("w2", testing::random_floats({16, 32, 1, 1}, 43, -0.3f, 0.3f));
    b.node("Conv", {"x", "w1", "b1"}, {"c1"});
    b.node("Relu", {"c1"}, {"r1"});
    b.node("Conv", {"r1", "w2"}, {"c2"});
    b.node("Add", {"c2", "x"}, {"y"});
    const std::string model = b.save("pointwise_rows.onnx");
    const std::string x = testing::temp_path("pointwise_rows_x.npy"), want = testing::temp_path("pointwise_rows_want.npy");
    write_npy(x, testing::random_floats({1, 16, 7, 7}, 44));
    CommandResult r = tessera("run " + model + " --reference --input " + x + " --output " + want + " --reps 1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    for (const char *layout : {"fixed", "nchwc"}) {
        const std::string out = testing::temp_path(std::string("pointwise_rows_") + layout);
        std::filesystem::remove_all(out);
        r = tessera("compile " + model + " -o " + out + " --layout " + layout);
        ASSERT_EQ(r.exit_code, 0) << layout << "\n" << r.output;
        r = tessera("run " + out + " --input " + x + " --expect " + want + " --reps 2 --tolerance 1e-4");
        EXPECT_EQ(r.exit_code, 0) << layout << "\n" << r.output;
    }
}

// GPU targets: compiled ahead of time (Tessera's GPU schedules for every
// partition); an OpenCL library runs on PoCL in tessera-run-library (no libHalide
// in the process) and matches the reference; a CUDA library compiles (no GPU
// here to run it); `tessera run` refuses both with the way to run them.
// --tune: each fused partition timed against its pieces, then every partition with a
// convolution measured with Tessera's top 2 candidates, the fastest kept (plan.json says which, with each time and prediction), the library
// still matching the evaluator; the tuning log written beside it makes a second
// compile take every choice unmeasured; records for another target or profile are
// ignored with a note; a malformed log exits 2 naming its file and line.
TEST(TesseraCli, TuneKeepsTheFastestCandidateAndReusesItsLog) {
    const std::string model = write_cnn("tune_cnn.onnx"), out = testing::temp_path("tune_out");
    std::filesystem::remove_all(out);
    CommandResult r = tessera("compile " + model + " -o " + out +
                              " --name tuned --tune --tune-candidates 2 --tune-with Mullapudi2016 --threads 2");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("tune [1/"), std::string::npos) << r.output;
    // The graph's alternatives are timed for real: on this model of microseconds a
    // loaded host (CTest's other jobs) can make the unfused graph win, and then there
    // is no fused partition to decide (TuneFusion.* cover the decisions with a stand-in timer).
    const bool kept_fusion = r.output.find("-> layout=auto,no-fusion") == std::string::npos;
    if (kept_fusion) {
        EXPECT_NE(r.output.find("fuse [1/"), std::string::npos) << r.output;  // Conv+Relu against its pieces
        EXPECT_NE(r.output.find("fused partitions split"), std::string::npos) << r.output;
    }
    EXPECT_NE(r.output.find("record(s) added"), std::string::npos) << r.output;
    auto measured_partitions = [](const std::string &plan_path) {
        std::ifstream in(plan_path);
        const nlohmann::json plan = nlohmann::json::parse(in);
        std::vector<nlohmann::json> measured;
        for (const nlohmann::json &p : plan.at("partitions")) {
            if (p.contains("measured")) measured.push_back(p.at("measured"));
        }
        return measured;
    };
    const std::vector<nlohmann::json> first = measured_partitions(out + "/tuned.plan.json");
    ASSERT_GE(first.size(), 2u) << r.output;  // both convolutions
    for (const nlohmann::json &m : first) {
        const std::vector<double> ms = m.at("candidate_ms");
        ASSERT_EQ(ms.size(), 3u);
        EXPECT_EQ(m.at("candidates"), nlohmann::json({"Tessera:0", "Tessera:1", "Mullapudi2016"}));
        EXPECT_EQ(m.at("predicted_ms").size(), 3u);
        EXPECT_GT(m.at("predicted_ms")[0].get<double>(), 0.0);
        EXPECT_EQ(m.at("chosen").get<int>(), int(std::min_element(ms.begin(), ms.end()) - ms.begin()));
        EXPECT_FALSE(m.at("from_log").get<bool>());
    }
    const TensorData x = testing::random_floats({1, 3, 12, 12}, 11);
    write_npy(out + "/x.npy", x);
    write_npy(out + "/want.npy", evaluate(import_onnx(model), {{"image", x}}).at("pooled"));
    r = tessera("run " + out + " --input " + out + "/x.npy --expect " + out + "/want.npy --reps 2");
    EXPECT_EQ(r.exit_code, 0) << r.output;

    // The log: a second compile takes every choice from it.
    const std::string log = out + "/tuned.tune.jsonl", out2 = testing::temp_path("tune_out2");
    std::filesystem::remove_all(out2);
    r = tessera("compile " + model + " -o " + out2 + " --name again --tune-log " + log + " --tune-with none");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("from the log"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("record(s) added"), std::string::npos) << r.output;
    const std::vector<nlohmann::json> second = measured_partitions(out2 + "/again.plan.json");
    ASSERT_EQ(second.size(), first.size());
    for (size_t k = 0; k < second.size(); k++) {
        EXPECT_TRUE(second[k].at("from_log").get<bool>());
        EXPECT_EQ(second[k].at("chosen"), first[k].at("chosen"));
    }

    r = tessera("inspect " + model + " --tune-log " + log);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const nlohmann::json &chosen = first[0].at("candidates")[first[0].at("chosen").get<size_t>()];
    EXPECT_NE(r.output.find(chosen.get<std::string>() + " from the log"), std::string::npos) << r.output;
    if (kept_fusion) EXPECT_NE(r.output.find(" from the log (fused "), std::string::npos) << r.output;  // a fusion decision

    // Another machine's records are ignored (and this one's measured again).
    std::ifstream in(log);
    std::string line, elsewhere;
    while (std::getline(in, line)) {
        nlohmann::json j = nlohmann::json::parse(line);
        j["profile"] = "another machine";
        elsewhere += j.dump() + "\n";
    }
    std::ofstream(out + "/elsewhere.jsonl") << elsewhere;
    r = tessera("compile " + model + " -o " + out2 + " --name again --tune-log " + out +
                "/elsewhere.jsonl --tune-candidates 2 --tune-with none");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("for another target or device profile ignored"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("record(s) added"), std::string::npos) << r.output;

    // A budget spent after the first partition leaves the others untuned.
    r = tessera("compile " + model + " -o " + out2 + " --name budget --tune-budget 0.001 --tune-candidates 2 --tune-with none");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("untuned: the tuning budget"), std::string::npos) << r.output;

    std::ofstream(out + "/bad.jsonl") << elsewhere << "{\"signature\": 3}\n";
    r = tessera("compile " + model + " -o " + out2 + " --tune-log " + out + "/bad.jsonl");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    const int bad_line = int(std::count(elsewhere.begin(), elsewhere.end(), '\n')) + 1;
    EXPECT_NE(r.output.find("bad.jsonl:" + std::to_string(bad_line) + ": not a tuning record"), std::string::npos)
        << r.output;
    expect_refused("compile " + model + " -o " + out2 + " --tune-with magic",
                   "--tune-with: 'magic' is not a tuning candidate");
    expect_refused("compile " + model + " -o " + out2 + " --threads 2",
                   "--threads is the thread count --tune (or --layout measured) measures with");
}

TEST(TesseraCli, GpuTargetsCompileAheadOfTimeAndOpenClRunsOnPocl) {
    for (const auto &[name, model] : {std::pair<std::string, std::string>{"cnn", write_cnn("gpu_cnn.onnx")},
                                      {"mlp", write_mlp("gpu_mlp.onnx")}}) {
        SCOPED_TRACE(name);
        const Graph g = import_onnx(model);
        const std::string input = g.inputs.at(0), out = testing::temp_path(name + "_opencl");
        std::filesystem::remove_all(out);
        CommandResult r = tessera("compile " + model + " -o " + out + " --target host-opencl");
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const TensorData x = testing::random_floats(g.value(input).shape, 31);
        write_npy(out + "/x.npy", x);
        write_npy(out + "/want.npy", evaluate(g, {{input, x}}).at(g.outputs.at(0)));
        r = tessera::test::run_command(std::string(TESSERA_RUN_LIBRARY_BIN) + " " + out + " --input " + out +
                                       "/x.npy --expect " + out + "/want.npy --tolerance 1e-5 --reps 2");
        EXPECT_EQ(r.exit_code, 0) << r.output;
        EXPECT_NE(r.output.find("max relative error"), std::string::npos) << r.output;
        r = tessera("run " + out + " --input " + out + "/x.npy");
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_NE(r.output.find("run it with tessera-run-library"), std::string::npos) << r.output;

        const std::string cuda = testing::temp_path(name + "_cuda");
        std::filesystem::remove_all(cuda);
        r = tessera("compile " + model + " -o " + cuda + " --target host-cuda-cuda_capability_86");
        EXPECT_EQ(r.exit_code, 0) << r.output;
        EXPECT_TRUE(std::filesystem::exists(cuda + "/lib" + std::filesystem::path(model).stem().string() + ".so"))
            << r.output;
    }
    CommandResult r = tessera("compile " + write_mlp("gpu_mlp.onnx") + " -o " + testing::temp_path("metal") +
                              " --target host-metal");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("only CUDA and OpenCL"), std::string::npos) << r.output;
}

TEST(TesseraCli, EmbeddedWeightsNeedNoFile) {
    const std::string model = write_mlp("mlp_embedded.onnx"), out = testing::temp_path("mlp_embedded_out");
    std::filesystem::remove_all(out);
    CommandResult r = tessera("compile " + model + " -o " + out + " --name mlpe --embed-weights");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ofstream(out + "/main.cpp") << R"(#include "mlpe.h"
#include <cstdio>
int main() {
    mlpe_model *m = mlpe_create_embedded();
    if (!m) { std::fprintf(stderr, "%s\n", mlpe_last_error()); return 3; }
    float x[72], y[30];
    for (int i = 0; i < 72; i++) x[i] = 0.01f * float(i % 13) - 0.05f;
    if (mlpe_run(m, x, y) != 0) return 5;
    for (float v : y) std::printf("%.9g\n", v);
    mlpe_destroy(m);
}
)";
    r = tessera::test::run_command("c++ -std=c++17 -O1 " + out + "/main.cpp -I " + out + " " + out +
                                   "/libmlpe.a -lpthread -ldl -o " + out + "/main && " + out + "/main");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    TensorData x(DType::f32, {3, 24}), got(DType::f32, {3, 10});
    for (size_t i = 0; i < 72; i++) x.f[i] = 0.01f * float(i % 13) - 0.05f;
    std::istringstream lines(r.output);
    for (float &v : got.f) lines >> v;
    const TensorData want = evaluate(import_onnx(model), {{"features", x}}).at("probs");
    EXPECT_LE(testing::relative_error(got, want), 1e-5) << r.output;
}

// Token ids in, a float tensor and the arg-max (int64) out: the library's C API takes
// and gives int64 arrays for them, plan.json says so (with the ids' range), a made-up
// run draws ids inside the table, and an id past it fails the run naming the Gather.
TEST(TesseraCli, IntegerTensorsAreInt64ArraysOfTheLibrary) {
    ModelBuilder b(13);
    b.input("ids", {2, 5}, 7).output("y").output("top", 7);
    b.initializer("table", testing::random_floats({10, 4}, 1));
    b.node("Gather", {"table", "ids"}, {"rows"}, "lookup");
    b.node("Relu", {"rows"}, {"y"});
    testing::set_int(b.node("ArgMax", {"y"}, {"top"}), "axis", 2);
    const std::string model = b.save("ids.onnx"), out = testing::temp_path("ids_out");
    std::filesystem::remove_all(out);
    CommandResult r = tessera("compile " + model + " -o " + out + " --name ids");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::ifstream header(out + "/ids.h");
    const std::string h((std::istreambuf_iterator<char>(header)), std::istreambuf_iterator<char>());
    EXPECT_NE(h.find("int ids_run(ids_model *m, const int64_t *in_ids, float *out_y, int64_t *out_top);"),
              std::string::npos) << h;
    const nlohmann::json plan = nlohmann::json::parse(std::ifstream(out + "/ids.plan.json"));
    EXPECT_EQ(plan.at("inputs").at(0).at("dtype"), "int64");
    EXPECT_EQ(plan.at("inputs").at(0).at("range"), nlohmann::json({0, 10}));
    EXPECT_EQ(plan.at("outputs").at(1).at("dtype"), "int64");

    TensorData ids = TensorData::ints({2, 5}, {0, 9, -1, 3, -10, 4, 4, 7, 2, 1});
    const TensorMap want = evaluate(import_onnx(model), {{"ids", ids}});
    write_npy(out + "/ids.npy", ids);
    write_npy(out + "/y.npy", want.at("y"));
    write_npy(out + "/top.npy", want.at("top"));
    for (const std::string &target : {out, model}) {
        r = tessera("run " + target + " --input " + out + "/ids.npy --expect y=" + out + "/y.npy --expect top=" + out +
                    "/top.npy --reps 1");
        EXPECT_EQ(r.exit_code, 0) << target << "\n" << r.output;
        EXPECT_NE(r.output.find("output 'top': max relative error 0 "), std::string::npos) << r.output;
    }
    r = tessera("run " + out + " --reps 1");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("random integers in [0, 10)"), std::string::npos) << r.output;
    ids.i[3] = 10;
    write_npy(out + "/bad.npy", ids);
    r = tessera("run " + out + " --input " + out + "/bad.npy --reps 1");
    EXPECT_NE(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("Gather 'lookup': index 10 is outside [-10, 10)"), std::string::npos) << r.output;
    // A float file for the ids is refused naming both.
    write_npy(out + "/floats.npy", testing::random_floats({2, 5}, 3));
    expect_refused("run " + out + " --input " + out + "/floats.npy --reps 1",
                   "'ids' takes int64[2x5], the file holds f32[2x5]");
}

TEST(TesseraCli, BadModelsAndInputsExitTwoNamingTheCulprit) {
    const std::string model = write_mlp("mlp_bad.onnx");
    // Not ONNX, truncated.
    const std::string junk = testing::temp_path("junk.onnx"), cut = testing::temp_path("cut.onnx");
    std::ofstream(junk) << "this is not a model";
    {
        std::ifstream in(model, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    }
    for (const std::string &bad : {junk, cut}) {
        CommandResult r = tessera("compile " + bad + " -o " + testing::temp_path("bad_out"));
        EXPECT_EQ(r.exit_code, 2) << r.output;
        EXPECT_NE(r.output.find(bad), std::string::npos) << r.output;
        EXPECT_FALSE(std::filesystem::exists(testing::temp_path("bad_out/junk.h")));
    }
    // An unsupported op names the node.
    ModelBuilder b(13);
    b.input("x", {4}).output("y");
    b.node("LpNormalization", {"x"}, {"y"}, "normalise");
    CommandResult r = tessera("run " + b.save("lp_normalization.onnx"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("node 'normalise'"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("LpNormalization"), std::string::npos) << r.output;
    // A symbolic batch without --input-shape, then with it.
    ModelBuilder s(13);
    s.input("x", {-1, 4}, 1, "batch").output("y");
    s.node("Relu", {"x"}, {"y"});
    const std::string symbolic = s.save("symbolic.onnx");
    expect_refused("run " + symbolic, "--input-shape");
    r = tessera("run " + symbolic + " --input-shape x=3x4 --reps 1");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    // An input file of the wrong shape names the input.
    write_npy(testing::temp_path("x_wrong.npy"), testing::random_floats({3, 25}, 1));
    expect_refused("run " + model + " --input " + testing::temp_path("x_wrong.npy"), "'features' takes float32[3x24]");
    // Usage errors.
    expect_refused("compile " + model, "-o DIR is required");
    r = tessera("frobnicate");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    r = tessera("run " + model + " --layout sideways");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("--layout takes auto, chosen, measured, blocked, nchwc, nhwc, packed or fixed, got 'sideways'"),
              std::string::npos)
        << r.output;
}

// --layout packed: the weights file holds the panels (the widest of 64, 32, 16 or 8
// columns that divides N, else 64 with the last padded), and the library computes what
// the model as written does.
TEST(TesseraCli, PackedLayoutWritesPanelsToTheWeightsFile) {
    const std::string model = write_mlp("mlp_packed.onnx"), out = testing::temp_path("mlp_packed_out");
    std::filesystem::remove_all(out);
    CommandResult r = tessera("compile " + model + " -o " + out + " --name mlp --layout packed");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("constant weights of 2 node(s) packed"), std::string::npos) << r.output;
    // w1 [24,40] -> [5][24][8], w2 [40,10] -> [1][40][64], plus the biases (40 + 10):
    // 3570 floats, against 1410 as written.
    EXPECT_NE(r.output.find("0.01 MB of weights"), std::string::npos) << r.output;
    const std::string x = out + "/x.npy", want = out + "/want.npy";
    write_npy(x, testing::random_floats({3, 24}, 7));
    r = tessera("run " + model + " --reference --input " + x + " --output " + want + " --reps 1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = tessera("run " + out + " --input " + x + " --expect " + want + " --reps 2");
    EXPECT_EQ(r.exit_code, 0) << r.output;
}

// --layout blocked: two 3x3 convolutions with their relus and a max pool on 16
// channels become one channel-blocked region, converted once on the way in and once after the global
// pool; the library computes what the model as written does. The plugin's
// predictions decide which convolutions block, so the compile pins its machine (an
// AVX2 target, blocks of 8, and the Zen 3 profile) and the plan is the same on every
// host; the JIT run on the host's own checks correctness only.
TEST(TesseraCli, BlockedLayoutCompilesAChannelBlockedRegion) {
    ModelBuilder b(13);
    b.input("image", {1, 16, 24, 24}).output("pooled");
    for (int i = 0; i < 2; i++) {
        b.initializer("w" + std::to_string(i + 1), testing::random_floats({16, 16, 3, 3}, 31 + uint64_t(i), -0.3f, 0.3f));
    }
    b.initializer("b1", testing::random_floats({16}, 34));
    for (int i = 0; i < 2; i++) {
        const std::string in = i == 0 ? "image" : "r1", out = "c" + std::to_string(i + 1);
        auto &conv = b.node("Conv", i == 0 ? std::vector<std::string>{in, "w1", "b1"} : std::vector<std::string>{in, "w2"},
                            {out});
        testing::set_ints(conv, "pads", {1, 1, 1, 1});
        testing::set_ints(conv, "kernel_shape", {3, 3});
        b.node("Relu", {out}, {"r" + std::to_string(i + 1)});
    }
    auto &pool = b.node("MaxPool", {"r2"}, {"p"});
    testing::set_ints(pool, "kernel_shape", {2, 2});
    testing::set_ints(pool, "strides", {2, 2});
    b.node("GlobalAveragePool", {"p"}, {"pooled"});
    const std::string model = b.save("cnn_blocked.onnx"), out = testing::temp_path("cnn_blocked_out");
    std::filesystem::remove_all(out);
    // The pinned AVX2 machine, its broadcasts issued as loads (an Intel AVX2 core: on
    // Zen 3, one per cycle, NCHW's transposed programs are predicted faster here and
    // no region forms).
    nlohmann::json machine = nlohmann::json::parse(std::ifstream(std::string(TESSERA_TEST_PROFILES) + "/avx2_zen3.json"));
    machine["broadcasts_per_cycle"] = 2;
    const std::string profile = testing::temp_path("avx2_broadcasts_as_loads.json");
    std::ofstream(profile) << machine.dump();
    const std::string pinned = "TESSERA_DEVICE_PROFILE=" + profile + " ";
    CommandResult r = tessera::test::run_command(pinned + TESSERA_BIN + " compile " + model + " -o " + out +
                                                 " --layout blocked --explain --target " + test::kAvx2Target);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("nchw8c: 1 region(s), 6 node(s); 2 conversion(s)"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("region 0: nchw8c"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(" ms nchw, "), std::string::npos) << r.output;  // each convolution's predictions
    const std::string x = out + "/x.npy", want = out + "/want.npy";
    write_npy(x, testing::random_floats({1, 16, 24, 24}, 35));
    r = tessera("run " + model + " --reference --input " + x + " --output " + want + " --reps 1");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = tessera("run " + out + " --input " + x + " --expect " + want + " --reps 2");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    // JIT, the same plan; and with NHWC among the alternatives (whatever the host's
    // model picks, the result is the model's).
    for (const char *layout : {"blocked", "chosen", "nchwc", "nhwc", "measured"}) {
        r = tessera("run " + model + " --layout " + layout + " --input " + x + " --expect " + want + " --reps 2");
        EXPECT_EQ(r.exit_code, 0) << layout << "\n" << r.output;
    }
    // nchwc: both convolutions blocked without predictions (none printed), on any profile.
    const std::string out_nchwc = testing::temp_path("cnn_nchwc_out");
    std::filesystem::remove_all(out_nchwc);
    r = tessera("compile " + model + " -o " + out_nchwc + " --layout nchwc --explain --target " + test::kAvx2Target);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("region 0: nchw8c, 6 node(s)"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find(" ms nchw, "), std::string::npos) << r.output;
    r = tessera("run " + out_nchwc + " --input " + x + " --expect " + want + " --reps 2");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    // Blocks of 16 channels on any x86 target (two vectors per block on AVX2); a block
    // other than 8 or 16, or one without a blocked layout, is a usage error.
    r = tessera("run " + model + " --layout nchwc --channel-block 16 --input " + x + " --expect " + want + " --reps 2");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    expect_refused("run " + model + " --layout nchwc --channel-block 12 --input " + x + " --reps 1",
                   "--channel-block takes 8 or 16, got '12'");
    expect_refused("run " + model + " --layout fixed --channel-block 16 --input " + x + " --reps 1",
                   "--channel-block goes with a channel-blocked --layout");
    // measured: each convolution's forms timed here (a line each), whatever they pick
    // the library matches; a target this machine cannot run is refused.
    const std::string out_measured = testing::temp_path("cnn_measured_out");
    std::filesystem::remove_all(out_measured);
    r = tessera("compile " + model + " -o " + out_measured + " --layout measured --threads 2");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("layout: "), std::string::npos) << r.output;  // "layout: NODE nchw8c 0.1 ms (predicted 0.1)"
    EXPECT_NE(r.output.find(" ms (predicted "), std::string::npos) << r.output;
    r = tessera("run " + out_measured + " --input " + x + " --expect " + want + " --reps 2");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    expect_refused("compile " + model + " -o " + out_measured + " --layout measured --target arm-64-linux",
                   "--layout measured times each convolution on this machine");
}

}  // namespace
}  // namespace tessera::graph
