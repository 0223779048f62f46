// Integer and boolean tensors computed at run time in compiled partitions: token ids
// gathered from embedding tables (negative ids count from the end), an attention mask
// cast to a bias, masks from comparisons and logic applied by Where, ArgMax/ArgMin
// outputs, index arithmetic and running sums; against the reference evaluator, fused
// and one kernel per node. An id outside its table or a division by zero stops the run
// naming the node; an op without an integer form refuses an integer input naming it.
#include "evaluate.h"
#include "host_target.h"
#include "fold_constants.h"
#include "graph_error.h"
#include "import_onnx.h"
#include "device_profile.h"
#include "jit_model.h"
#include "model_builder.h"
#include "plan_fusion.h"
#include "remove_dead.h"
#include "pinned_options.h"
#include "sample_inputs.h"
#include "tessera_scheduler.h"

#include <gtest/gtest.h>

namespace tessera::graph {
namespace {

using testing::ModelBuilder;

constexpr int kFloat = 1, kInt64 = 7, kBool = 9;

Graph imported(const ModelBuilder &b) {
    Graph g = import_onnx_bytes(b.bytes(), "test model");
    fold_constants(g);
    remove_dead(g);
    return g;
}

void schedule_with_tessera(Halide::Pipeline &p) {
    p.auto_schedule("Tessera", tessera::hal::host_target(), Halide::MachineParams(2, 32 << 20, 40));
}

// Compiles `g` fused and unfused and compares every output with the evaluator's.
void expect_matches_reference(const Graph &g, const TensorMap &inputs) {
    Halide::load_plugin(TESSERA_PLUGIN_PATH);
    const TensorMap want = evaluate(g, inputs);
    for (bool fuse : {true, false}) {
        JitModel model(g, plan_fusion(g, {4.0, fuse}), schedule_with_tessera, tessera::hal::host_target());
        const TensorMap got = model.run(inputs);
        for (const std::string &name : g.outputs) {
            EXPECT_EQ(got.at(name).dtype, want.at(name).dtype) << name;
            EXPECT_LE(testing::relative_error(got.at(name), want.at(name)), 1e-5)
                << name << (fuse ? " fused" : " one kernel per node");
        }
    }
}

// Token ids and types gathered from two tables and summed; an attention mask
// (1 = attend) turned into an additive bias on the scores x x^T; the best key per
// query (ArgMax) as a second output.
ModelBuilder token_model() {
    ModelBuilder b(13);
    b.input("ids", {2, 7}, kInt64).input("types", {2, 7}, kInt64).input("mask", {2, 7}, kInt64);
    b.output("scores").output("best", kInt64);
    b.initializer("words", testing::random_floats({50, 12}, 1));
    b.initializer("kinds", testing::random_floats({2, 12}, 2));
    b.initializer("axis1", TensorData::ints({1}, {1}));
    b.initializer("one", TensorData::floats({}, {1.0f}));
    b.initializer("big", TensorData::floats({}, {-1000.0f}));
    b.node("Gather", {"words", "ids"}, {"w"}, "word_embeddings");
    b.node("Gather", {"kinds", "types"}, {"k"});
    b.node("Add", {"w", "k"}, {"x"});
    testing::set_ints(b.node("Transpose", {"x"}, {"xt"}), "perm", {0, 2, 1});
    b.node("MatMul", {"x", "xt"}, {"raw"});
    b.node("Unsqueeze", {"mask", "axis1"}, {"m"});
    testing::set_int(b.node("Cast", {"m"}, {"mf"}), "to", kFloat);
    b.node("Sub", {"one", "mf"}, {"inv"});
    b.node("Mul", {"inv", "big"}, {"bias"});
    b.node("Add", {"raw", "bias"}, {"scores"});
    testing::set_int(b.node("ArgMax", {"scores"}, {"best"}), "axis", 2);
    return b;
}

TensorMap token_inputs(const Graph &g, uint64_t seed) {
    TensorMap in;
    in["ids"] = random_integers(DType::i64, {2, 7}, {-50, 50}, seed);  // negative: from the end
    in["types"] = random_integers(DType::i64, {2, 7}, sample_range(g, "types"), seed + 1);
    in["mask"] = random_integers(DType::i64, {2, 7}, sample_range(g, "mask"), seed + 2);
    return in;
}

TEST(GraphLowering, TokenIdsGatherFromEmbeddingTablesAndMasksBecomeBiases) {
    const Graph g = imported(token_model());
    expect_matches_reference(g, token_inputs(g, 1));
    expect_matches_reference(g, token_inputs(g, 11));
}

TEST(GraphLowering, SampleRangesFollowIdsToTheirTables) {
    const Graph g = imported(token_model());
    EXPECT_EQ(sample_range(g, "ids").lo, 0);
    EXPECT_EQ(sample_range(g, "ids").hi, 50);
    EXPECT_EQ(sample_range(g, "types").hi, 2);
    EXPECT_EQ(sample_range(g, "mask").hi, 2);  // a mask: no table
    const TensorData ids = random_integers(DType::i64, {2, 7}, sample_range(g, "ids"), 3);
    for (int64_t v : ids.i) {
        EXPECT_GE(v, 0);
        EXPECT_LT(v, 50);
    }
}

// Masks from comparisons on floats and on integers, combined by Not/And/Or/Xor and
// applied by Where; a boolean output; ArgMin over values with ties, the last one
// taken (select_last_index), keeping the axis.
ModelBuilder mask_model() {
    ModelBuilder b(13);
    b.input("x", {3, 10}).input("k", {3, 10}, kInt64);
    b.output("applied").output("flags", kBool).output("lowest", kInt64).output("as_int", kInt64);
    b.initializer("half", TensorData::floats({}, {0.5f}));
    b.initializer("minus_half", TensorData::floats({}, {-0.5f}));
    b.initializer("zero", TensorData::floats({1}, {0.0f}));
    b.initializer("two", TensorData::ints({}, {2}));
    b.initializer("double", TensorData::floats({}, {2.0f}));
    b.node("Greater", {"x", "half"}, {"high"});
    b.node("Less", {"x", "minus_half"}, {"low"});
    b.node("Or", {"high", "low"}, {"far"});
    b.node("Not", {"far"}, {"near"});
    b.node("Equal", {"k", "two"}, {"is_two"});
    b.node("And", {"near", "is_two"}, {"chosen"});
    b.node("Xor", {"chosen", "high"}, {"flags"});
    b.node("Where", {"flags", "x", "zero"}, {"applied"});
    b.node("Mul", {"x", "double"}, {"x2"});
    b.node("Floor", {"x2"}, {"steps"});
    auto &argmin = b.node("ArgMin", {"steps"}, {"lowest"});
    testing::set_int(argmin, "axis", 1);
    testing::set_int(argmin, "select_last_index", 1);
    b.node("GreaterOrEqual", {"k", "two"}, {"ge"});
    b.node("LessOrEqual", {"x", "half"}, {"le"});
    b.node("And", {"ge", "le"}, {"both"});
    testing::set_int(b.node("Cast", {"both"}, {"as_int"}), "to", kInt64);
    return b;
}

TEST(GraphLowering, MasksFromComparisonsAndLogicApplyThroughWhere) {
    const Graph g = imported(mask_model());
    for (uint64_t seed : {5, 6}) {
        TensorMap in;
        in["x"] = testing::random_floats({3, 10}, seed);
        in["k"] = random_integers(DType::i64, {3, 10}, {0, 4}, seed);
        expect_matches_reference(g, in);
    }
}

// Index arithmetic on integers with negative values: Div truncating toward zero, Mod
// with the divisor's sign and with the dividend's (fmod), Add, Sub, Mul, Neg, Abs,
// Relu, Max, Min, Sum; running sums (CumSum) of integers (exclusive, reverse) and of
// floats; RoBERTa-style position ids (a running sum of the mask, times the mask).
ModelBuilder index_arithmetic_model() {
    ModelBuilder b(13);
    b.input("a", {3, 8}, kInt64).input("d", {3, 8}, kInt64).input("x", {3, 8});
    for (const char *out : {"quot", "py_mod", "c_mod", "mix", "positions", "back", "running"}) {
        b.output(out, std::string(out) == "running" ? kFloat : kInt64);
    }
    b.initializer("axis1", TensorData::ints({}, {1}));
    b.initializer("three", TensorData::ints({}, {3}));
    b.node("Div", {"a", "d"}, {"quot"});
    b.node("Mod", {"a", "d"}, {"py_mod"});
    testing::set_int(b.node("Mod", {"a", "d"}, {"c_mod"}), "fmod", 1);
    b.node("Mul", {"a", "three"}, {"a3"});
    b.node("Sub", {"a3", "d"}, {"s"});
    b.node("Neg", {"s"}, {"ns"});
    b.node("Abs", {"ns"}, {"abs"});
    b.node("Relu", {"s"}, {"r"});
    b.node("Max", {"abs", "d", "r"}, {"mx"});
    b.node("Min", {"mx", "a"}, {"mn"});
    b.node("Sum", {"mn", "r", "three"}, {"mix"});
    b.node("Equal", {"a", "three"}, {"pad"});
    b.node("Not", {"pad"}, {"keep"});
    testing::set_int(b.node("Cast", {"keep"}, {"mask"}), "to", kInt64);
    b.node("CumSum", {"mask", "axis1"}, {"counted"});
    b.node("Mul", {"counted", "mask"}, {"positions"});
    auto &back = b.node("CumSum", {"a", "axis1"}, {"back"});
    testing::set_int(back, "exclusive", 1);
    testing::set_int(back, "reverse", 1);
    b.node("CumSum", {"x", "axis1"}, {"running"});
    return b;
}

TEST(GraphLowering, IndexArithmeticAndRunningSumsMatchTheReference) {
    const Graph g = imported(index_arithmetic_model());
    for (uint64_t seed : {7, 8}) {
        TensorMap in;
        in["a"] = random_integers(DType::i64, {3, 8}, {-20, 20}, seed);
        in["d"] = random_integers(DType::i64, {3, 8}, {1, 6}, seed + 1);
        for (size_t k = 0; k < in["d"].i.size(); k += 3) in["d"].i[k] = -in["d"].i[k];  // negative divisors
        in["x"] = testing::random_floats({3, 8}, seed);
        expect_matches_reference(g, in);
    }
}

TEST(GraphLowering, AMaskReadByARunningSumAndAfterItIsComputedAtRoot) {
    // positions = CumSum(mask) * mask: the mask is read by the running sum (a
    // compute stage) and by its epilogue. Under every pinned machine's figures the
    // sums take one L2 tile, so they are computed at root before the epilogue, and
    // the mask, computed inside their loops, was a schedule Halide refused.
    ModelBuilder b(13);
    b.input("a", {3, 8}, kInt64).output("positions", kInt64);
    b.initializer("axis1", TensorData::ints({}, {1}));
    b.initializer("three", TensorData::ints({}, {3}));
    b.node("Equal", {"a", "three"}, {"pad"});
    b.node("Not", {"pad"}, {"keep"});
    testing::set_int(b.node("Cast", {"keep"}, {"mask"}), "to", kInt64);
    b.node("CumSum", {"mask", "axis1"}, {"counted"});
    b.node("Mul", {"counted", "mask"}, {"positions"});
    const Graph g = imported(b);
    TensorMap in;
    in["a"] = random_integers(DType::i64, {3, 8}, {1, 5}, 3);
    const TensorMap want = evaluate(g, in);
    for (const test::PinnedMachine &machine : test::pinned_machines()) {
        const SchedulerOptions options = test::pinned_options(machine);
        // The pinned figures on the host's target: the program is the machine's, the code runs here.
        const auto schedule = [&](Halide::Pipeline &p) { schedule_pipeline(p, tessera::hal::host_target(), options); };
        JitModel model(g, plan_fusion(g, {4.0, true}), schedule, tessera::hal::host_target());
        const TensorMap got = model.run(in);
        EXPECT_EQ(got.at("positions").i, want.at("positions").i) << machine.name;
    }
}

TEST(GraphLowering, AnIntegerDivisionByZeroStopsTheRunNamingTheNode) {
    Halide::load_plugin(TESSERA_PLUGIN_PATH);
    ModelBuilder b(13);
    b.input("a", {4}, kInt64).input("d", {4}, kInt64).output("q", kInt64);
    b.node("Div", {"a", "d"}, {"q"}, "per_head");
    const Graph g = imported(b);
    JitModel model(g, plan_fusion(g, {4.0, true}), schedule_with_tessera, tessera::hal::host_target());
    try {
        model.run({{"a", TensorData::ints({4}, {1, 2, 3, 4})}, {"d", TensorData::ints({4}, {1, 0, 1, 1})}});
        FAIL() << "a division by zero ran";
    } catch (const std::exception &e) {
        EXPECT_NE(std::string(e.what()).find("Div 'per_head': integer division by zero"), std::string::npos) << e.what();
    }
}

TEST(GraphLowering, AnIdOutsideItsTableStopsTheRunNamingTheGather) {
    Halide::load_plugin(TESSERA_PLUGIN_PATH);
    const Graph g = imported(token_model());
    JitModel model(g, plan_fusion(g, {4.0, true}), schedule_with_tessera, tessera::hal::host_target());
    TensorMap in = token_inputs(g, 2);
    in["ids"].i[5] = 50;
    try {
        model.run(in);
        FAIL() << "an id past the table ran";
    } catch (const std::exception &e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("Gather 'word_embeddings': index"), std::string::npos) << what;
        EXPECT_NE(what.find("is outside [-50, 50)"), std::string::npos) << what;
    }
}

TEST(GraphLowering, AnOpWithoutAnIntegerFormRefusesIntegerInputsNamingTheNode) {
    ModelBuilder b(13);
    b.input("a", {4}, kInt64).output("y", kInt64);
    b.node("Pow", {"a", "a"}, {"y"}, "largest");
    const Graph g = imported(b);
    Halide::load_plugin(TESSERA_PLUGIN_PATH);
    try {
        JitModel model(g, plan_fusion(g, {4.0, true}), schedule_with_tessera, tessera::hal::host_target());
        FAIL() << "an integer Add compiled";
    } catch (const GraphError &e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("largest"), std::string::npos) << what;
        EXPECT_NE(what.find("Pow of a i64 tensor computed at run time is not compiled"), std::string::npos)
            << what;
    }
}

}  // namespace
}  // namespace tessera::graph
