// tessera-bench from the command line: bad input exits 2 naming the culprit; a tiny
// run writes JSON and CSV with every required field; a contender that crashes is
// recorded as such while the others still run.
#include "run_command.h"
#ifdef TESSERA_HAVE_CUBLAS
#include "cuda_device.h"
#endif

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace {

using Result = tessera::test::CommandResult;

Result bench(const std::string &args, const std::string &env = "") {
    return tessera::test::run_command(env + " " + TESSERA_BENCH_BIN + " " + args);
}

void expect_usage_error(const std::string &args, const std::string &message) {
    Result r = bench(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
}

nlohmann::json read_json(const std::string &path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

TEST(BenchCli, HelpPrintsUsageAndExitsZero) {
    Result r = bench("--help");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("usage: tessera-bench"), std::string::npos) << r.output;
}

TEST(BenchCli, BadInputExitsTwoNamingTheCulprit) {
    expect_usage_error("--op convolve", "unknown op 'convolve'");
    expect_usage_error("--op relu --shape shape=4 --schedulers Mullapudi2016,Magic", "unknown scheduler 'Magic'");
    expect_usage_error("--op relu --shape shape=4,color=red", "unknown key 'color'");
    expect_usage_error("--op relu --shape shape=4xq", "'shape'");
    expect_usage_error("--op matmul --shape M=4,N=4", "missing key 'K'");
    expect_usage_error("--suite nosuch", "unknown built-in suite 'nosuch'");
    expect_usage_error("--op relu --shape shape=4 --reps zero", "--reps");
    expect_usage_error("--frobnicate", "unknown argument '--frobnicate'");
    expect_usage_error("--op relu --shape shape=4 --thread-pool openmp", "--thread-pool takes model or halide, got 'openmp'");
    expect_usage_error("--model m.onnx --thread-pool halide", "--thread-pool is for ops");
    expect_usage_error("", "exactly one of --op, --suite, --suite-file");
    expect_usage_error("--op relu --shape shape=4 --schedulers Tessera+candidate", "'candidate'");
    expect_usage_error("--op relu --shape shape=4 --schedulers Tessera+TESSERA_CANDIDATE=1",
                       "unknown scheduler option 'TESSERA_CANDIDATE'");
    expect_usage_error("--op relu --shape shape=4 --schedulers Tessera+top_k=0", "top_k=0");
    expect_usage_error("--op relu --shape shape=4 --schedulers Tessera+device_profile=/no/such.json",
                       "/no/such.json: cannot open");
    expect_usage_error("--op relu --shape shape=4 --schedulers oneDNN+X=1", "oneDNN takes no variant settings");
    expect_usage_error("--op relu --shape shape=4 --schedulers Adams2019+candidate=1",
                       "Adams2019 takes no variant settings");
}

TEST(BenchCli, VariantIsScheduledWithItsSettingsSideBySide) {
    // Tessera's second-ranked rProgram next to its first: both checked and timed,
    // recorded under their own names.
    const std::string json = ::testing::TempDir() + "bench_variant.json";
    std::remove(json.c_str());
    Result r = bench("--op matmul --shape M=33,N=17,K=9 --schedulers tessera,tessera+candidate=1 --reps 3 "
                     "--threads 2 --json " + json);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    nlohmann::json all = read_json(json);
    ASSERT_EQ(all.size(), 2u) << all.dump(2);
    EXPECT_EQ(all[0]["scheduler"], "Tessera");
    EXPECT_EQ(all[1]["scheduler"], "Tessera+candidate=1");
    for (const auto &rec : all) EXPECT_TRUE(rec["ok"].get<bool>()) << rec.dump();
    EXPECT_NE(r.output.find("Tessera vs Tessera+candidate=1"), std::string::npos) << r.output;
}

TEST(BenchCli, TuneAddsTheMeasuredPickBesideTheUntunedOne) {
    // --tune: Tessera+measure=3 (its top 3 rPrograms timed, the fastest kept) after
    // Tessera, both checked and timed; a bad count and a list without Tessera refused.
    const std::string json = ::testing::TempDir() + "bench_tune.json";
    std::remove(json.c_str());
    Result r = bench("--op matmul --shape M=33,N=17,K=9 --schedulers tessera --tune --reps 3 --threads 2 --json " + json);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    nlohmann::json all = read_json(json);
    ASSERT_EQ(all.size(), 2u) << all.dump(2);
    EXPECT_EQ(all[0]["scheduler"], "Tessera");
    EXPECT_EQ(all[1]["scheduler"], "Tessera+measure=3");
    for (const auto &rec : all) EXPECT_TRUE(rec["ok"].get<bool>()) << rec.dump();
    expect_usage_error("--op relu --shape shape=4 --schedulers onednn --tune", "list Tessera in --schedulers");
    expect_usage_error("--op relu --shape shape=4 --schedulers tessera+measure=0", "measure=0: needs a count");
}

TEST(BenchCli, HalideContendersOnEitherThreadPool) {
    // By default the Halide contenders run on the pool a compiled model runs on;
    // --thread-pool halide puts them on Halide's own. Both checked and timed.
    for (const std::string pool : {"", "model", "halide"}) {
        const std::string json = ::testing::TempDir() + "bench_pool_" + pool + ".json";
        std::remove(json.c_str());
        Result r = bench("--op matmul --shape M=64,N=48,K=32 --schedulers tessera,Mullapudi2016 --reps 3 --threads 2 " +
                         (pool.empty() ? "" : "--thread-pool " + pool + " ") + "--json " + json);
        ASSERT_EQ(r.exit_code, 0) << r.output;
        const std::string said = pool == "halide" ? "Halide contenders on Halide's thread pool"
                                                  : "Halide contenders on a model's thread pool";
        EXPECT_NE(r.output.find(said), std::string::npos) << r.output;
        nlohmann::json all = read_json(json);
        ASSERT_EQ(all.size(), 2u) << all.dump(2);
        for (const auto &rec : all) EXPECT_TRUE(rec["ok"].get<bool>()) << rec.dump();
    }
}

TEST(BenchCli, ListShowsOpsKeysAndSchedulers) {
    Result r = bench("--list");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("conv2d"), std::string::npos);
    EXPECT_NE(r.output.find("count_include_pad"), std::string::npos);
    EXPECT_NE(r.output.find("oneDNN"), std::string::npos);
}

TEST(BenchCli, TinyRunWritesJsonAndCsv) {
    const std::string json = ::testing::TempDir() + "bench_tiny.json", csv = ::testing::TempDir() + "bench_tiny.csv";
    std::remove(json.c_str());
    Result r = bench("--op matmul --shape M=33,N=17,K=9 --schedulers Mullapudi2016,onednn --reps 3 --threads 2 --json " +
                     json + " --csv " + csv);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    nlohmann::json all = read_json(json);
    ASSERT_TRUE(all.is_array());
    ASSERT_EQ(all.size(), 2u) << all.dump(2);
    for (const auto &rec : all) {
        for (const char *field : {"op", "shape", "scheduler", "time_ms_min", "time_ms_median", "gflops", "gbytes_per_s",
                                  "rel_error", "ok", "impl", "schedule_ms", "compile_ms"}) {
            EXPECT_TRUE(rec.contains(field)) << field << " missing in " << rec.dump();
        }
        EXPECT_EQ(rec["op"], "matmul");
        EXPECT_EQ(rec["shape"], "M=33 N=17 K=9");
        EXPECT_TRUE(rec["ok"].get<bool>()) << rec.dump();
        EXPECT_LE(rec["rel_error"].get<double>(), 1e-4);
        EXPECT_GT(rec["time_ms_min"].get<double>(), 0);
        EXPECT_LE(rec["time_ms_min"].get<double>(), rec["time_ms_median"].get<double>());
        EXPECT_GT(rec["gflops"].get<double>(), 0);
        EXPECT_EQ(rec["threads"], 2);
        EXPECT_FALSE(rec["impl"].get<std::string>().empty());
    }
    EXPECT_EQ(all[0]["scheduler"], "Mullapudi2016");
    EXPECT_GT(all[0]["compile_ms"].get<double>(), 0);
    EXPECT_EQ(all[1]["scheduler"], "oneDNN");
    EXPECT_DOUBLE_EQ(all[1]["speedup_vs_onednn"].get<double>(), 1.0);
    EXPECT_NE(r.output.find("Mullapudi2016  1/1 correct; vs oneDNN: compute-bound"), std::string::npos) << r.output;

    std::ifstream in(csv);
    std::string header, row;
    std::getline(in, header);
    EXPECT_EQ(header.rfind("op,shape,scheduler,status,ok,time_ms_min,time_ms_median", 0), 0u) << header;
    int rows = 0;
    while (std::getline(in, row)) rows++;
    EXPECT_EQ(rows, 2);
}

TEST(BenchCli, ListValuesInShapeAndSuiteFile) {
    const std::string json = ::testing::TempDir() + "bench_reduce.json";
    Result r = bench("--op reduce_sum --shape shape=4x6x5,axes=0,2 --schedulers onednn --reps 3 --json " + json);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    nlohmann::json all = read_json(json);
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0]["shape"], "shape=4x6x5 axes=0,2");
    EXPECT_TRUE(all[0]["ok"].get<bool>()) << all[0].dump();

    const std::string suite = ::testing::TempDir() + "tiny.suite";
    std::ofstream(suite) << "# two ops\nrelu shape=37\nsoftmax shape=3x5 axis=0\n";
    r = bench("--suite-file " + suite + " --schedulers oneDNN --reps 3 --json " + json);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    all = read_json(json);
    ASSERT_EQ(all.size(), 2u);
    EXPECT_EQ(all[1]["op"], "softmax");
}

TEST(BenchCli, ChainFusedBesideUnfusedAndOnednn) {
    // The chain as one pipeline, as its separate ops each scheduled by Tessera, and
    // oneDNN's primitives in sequence: all checked, timed, and compared.
    const std::string json = ::testing::TempDir() + "bench_chain.json";
    std::remove(json.c_str());
    Result r = bench("--op attention --shape B=2,M=9,N=5,K=7,L=11,mask=1 --schedulers tessera,TESSERA-UNFUSED,onednn "
                     "--reps 3 --threads 2 --json " + json);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    nlohmann::json all = read_json(json);
    ASSERT_EQ(all.size(), 3u) << all.dump(2);
    EXPECT_EQ(all[0]["scheduler"], "Tessera");
    EXPECT_EQ(all[1]["scheduler"], "Tessera-unfused");
    EXPECT_EQ(all[2]["scheduler"], "oneDNN");
    for (const auto &rec : all) {
        EXPECT_TRUE(rec["ok"].get<bool>()) << rec.dump();
        EXPECT_TRUE(rec["compute_bound"].get<bool>()) << rec.dump();
        EXPECT_GT(rec["time_ms_median"].get<double>(), 0) << rec.dump();
        EXPECT_GT(rec["speedup_vs_onednn"].get<double>(), 0) << rec.dump();
    }
    EXPECT_EQ(all[1]["impl"], "halide:Tessera per stage: batch_matmul, mul, add, softmax, batch_matmul");
    EXPECT_GT(all[1]["compile_ms"].get<double>(), 0);
    EXPECT_NE(r.output.find("Tessera vs Tessera-unfused"), std::string::npos) << r.output;
}

// cuBLAS and cuDNN are contenders in every build: where the build lacks them or no
// GPU is present their rows say so (status n/a), and the run goes on.
TEST(BenchCli, GpuBaselinesRunOrSayWhyNot) {
    const std::string json = ::testing::TempDir() + "bench_gpu.json";
    std::remove(json.c_str());
    Result r = bench("--op matmul --shape M=33,N=17,K=9 --schedulers cublas,cudnn --reps 3 --threads 2 --json " + json);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    nlohmann::json all = read_json(json);
    ASSERT_EQ(all.size(), 2u) << all.dump(2);
    EXPECT_EQ(all[0]["scheduler"], "cuBLAS");
    EXPECT_EQ(all[1]["scheduler"], "cuDNN");
    std::string expected = "this build has no cuBLAS";
#ifdef TESSERA_HAVE_CUBLAS
    expected = tessera::cuda::why_no_gpu().empty() ? "" : "no GPU";
#endif
    if (expected.empty()) {
        EXPECT_TRUE(all[0]["ok"].get<bool>()) << all[0].dump();
    } else {
        EXPECT_EQ(all[0]["status"], "n/a") << all[0].dump();
        EXPECT_NE(all[0]["error"].get<std::string>().find(expected), std::string::npos) << all[0].dump();
        EXPECT_NE(r.output.find(expected), std::string::npos) << r.output;
    }
    EXPECT_EQ(all[1]["status"], "n/a") << all[1].dump();  // no matmul in cuDNN's baseline
}

TEST(BenchCli, UnfusedStagesOfEveryChain) {
    const std::string json = ::testing::TempDir() + "bench_unfused.json";
    const std::string suite = ::testing::TempDir() + "chains.suite";
    std::ofstream(suite) << "gemm_chain B=2 M=7 N=5 K=9 L=13 between=gelu\n"
                            "gemm_chain M=6 N=4 K=5 L=11 between=scale\n"
                            "conv_chain n=1 c=3 h=9 w=7 oc1=4 oc2=5 kh1=3 kw1=3 kh2=1 kw2=1 pad1=1 layout=nhwc\n"
                            "relu shape=37\n";
    Result r = bench("--suite-file " + suite + " --schedulers tessera-unfused --reps 3 --threads 2 --json " + json);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    nlohmann::json all = read_json(json);
    ASSERT_EQ(all.size(), 4u) << all.dump(2);
    const char *stages[] = {"batch_matmul, gelu, batch_matmul", "batch_matmul, mul, batch_matmul",
                            "conv2d, bias_add, relu, conv2d, bias_add"};
    for (int i = 0; i < 3; i++) {
        EXPECT_TRUE(all[i]["ok"].get<bool>()) << all[i].dump();
        EXPECT_EQ(all[i]["impl"], std::string("halide:Tessera per stage: ") + stages[i]);
    }
    // Not a chain: nothing to unfuse.
    EXPECT_EQ(all[3]["status"], "n/a");
    EXPECT_NE(all[3]["error"].get<std::string>().find("chain ops only"), std::string::npos) << all[3].dump();
}

TEST(BenchCli, CrashingContenderIsRecordedAndTheRunGoesOn) {
#ifndef TESSERA_TEST_HOOKS
    GTEST_SKIP() << "built without TESSERA_TEST_HOOKS: tessera-bench has no injected crash";
#endif
    const std::string json = ::testing::TempDir() + "bench_crash.json";
    // Test hook: the isolated child raises SIGSEGV when it builds this contender.
    Result r = bench("--op relu --shape shape=1000 --schedulers Mullapudi2016,onednn --reps 3 --json " + json,
                     "TESSERA_BENCH_INJECT_CRASH=Mullapudi2016");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    nlohmann::json all = read_json(json);
    ASSERT_EQ(all.size(), 2u) << all.dump(2);
    EXPECT_EQ(all[0]["scheduler"], "Mullapudi2016");
    EXPECT_EQ(all[0]["status"], "crashed");
    EXPECT_FALSE(all[0]["ok"].get<bool>());
    EXPECT_NE(all[0]["error"].get<std::string>().find("Segmentation"), std::string::npos) << all[0].dump();
    EXPECT_EQ(all[1]["status"], "ok");
    EXPECT_GT(all[1]["time_ms_median"].get<double>(), 0);
}

}  // namespace
