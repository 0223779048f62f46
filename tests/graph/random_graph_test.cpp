// Random-graph differential testing: each graph of random_graph.h runs through the
// reference evaluator and the JIT compiler, fused and one kernel per node, and fused in
// a layout (every convolution predicted fastest channel-blocked, or NHWC), and the
// outputs are compared element by element (relative error; NaN never passes). A
// failure names the seed and the graph's nodes, so it reproduces with
// TESSERA_FUZZ_SEED=<seed> TESSERA_FUZZ_GRAPHS=1, and writes the smallest failing graph
// (the shortest prefix of the generator's steps that still fails, dead nodes removed)
// as an ONNX model. `make fuzz-graphs N=...` runs more.
#include "assign_layouts.h"
#include "host_target.h"
#include "evaluate.h"
#include "graph_error.h"
#include "import_onnx.h"
#include "jit_model.h"
#include "plan_fusion.h"
#include "prepare_graph.h"
#include "random_graph.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <string>

namespace tessera::graph {
namespace {

constexpr double kTolerance = 1e-4;

uint64_t env_number(const char *name, uint64_t fallback) {
    const char *v = std::getenv(name);
    return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

// The first difference between the evaluator and a compiled run, or "".
std::string difference(const Graph &g, const FusionPlan &plan, const TensorMap &inputs, const TensorMap &want,
                       const Halide::Target &target = tessera::hal::host_target()) {
    try {
        const auto schedule_with_tessera = [&target](Halide::Pipeline &p) {
            p.auto_schedule("Tessera", target, Halide::MachineParams(2, 32 << 20, 40));
        };
        JitModel model(g, plan, schedule_with_tessera, target);
        const TensorMap got = model.run(inputs);
        for (const std::string &name : g.outputs) {
            const double err = testing::relative_error(got.at(name), want.at(name));
            if (!(err <= kTolerance)) return "output " + name + ": relative error " + std::to_string(err);
        }
    } catch (const std::exception &e) {
        return std::string("compile or run: ") + e.what();
    }
    return "";
}

// The graph with only `output` as its output (what does not lead to it falls away).
std::string difference_up_to(const testing::RandomGraph &rg, const std::string &output, uint64_t seed, bool fuse,
                             testing::ModelBuilder *model) {
    *model = rg.model;
    model->model.mutable_graph()->clear_output();
    model->output(output);
    Graph g = import_onnx_bytes(model->bytes(), "random graph " + std::to_string(seed) + " up to " + output);
    prepare_graph(g);
    TensorMap inputs;
    for (const std::string &name : g.inputs) inputs[name] = testing::random_floats(g.value(name).shape, seed, -2, 2);
    return difference(g, plan_fusion(g, {4.0, fuse}), inputs, evaluate(g, inputs));
}

// The smallest failing prefix of a failing graph, written as a model: its path and size.
std::string shrink(const testing::RandomGraph &rg, uint64_t seed, bool fuse) {
    for (const std::string &value : rg.values) {
        testing::ModelBuilder model;
        std::string diff;
        try {
            diff = difference_up_to(rg, value, seed, fuse, &model);
        } catch (const std::exception &e) {
            diff = e.what();
        }
        if (diff.empty()) continue;
        const std::string path = model.save("random_graph_" + std::to_string(seed) + "_smallest.onnx");
        return "smallest failing graph: up to " + value + " (" + diff + "), written to " + path;
    }
    return "no smaller graph fails";
}

// Layouts as if every convolution ran fastest in `preferred` (blocks of 8 channels).
LayoutOptions preferring(Layout preferred) {
    LayoutOptions o;
    o.block = 8;
    o.nhwc = preferred == Layout::nhwc;
    o.blocked = preferred == Layout::blocked;
    o.max_conversion_share = 100;  // the predictions alone decide
    o.predict_ms = [preferred](const Graph &graph, int node) {
        return node_layout(graph.nodes[size_t(node)]) == preferred ? 1.0 : 2.0;
    };
    return o;
}

// A seed's smallest failing graph, kept: a squeeze-excite's channel sums read per
// channel only through a max pool's window reduction (on AVX2's 8 lanes, 9 channels
// made one 9-lane vector whose update rounded a channel's iteration up to 9 and read
// input channel 16 of 9).
TEST(RandomGraphs, ChannelSumsReadThroughAPoolStayInsideTheInput) {
    Halide::load_plugin(TESSERA_PLUGIN_PATH);
    const Halide::Target avx2("x86-64-linux-avx-avx2-f16c-fma-sse41");
    if (!tessera::hal::host_target().has_feature(Halide::Target::AVX2)) GTEST_SKIP() << "runs AVX2 code";
    testing::ModelBuilder b;
    b.input("x", {1, 9, 6, 5}).output("pool");
    TensorData pads(DType::i64, {8});
    pads.i = {0, 0, 3, 2, 0, 0, 1, 2};
    b.initializer("pads", pads);
    b.node("GlobalAveragePool", {"x"}, {"gap"});
    b.node("Sigmoid", {"gap"}, {"gate"});
    b.node("Mul", {"x", "gate"}, {"se"});
    b.node("Elu", {"se"}, {"act"});
    b.node("Pad", {"act", "pads"}, {"padded"});
    onnx::NodeProto &pool = b.node("MaxPool", {"padded"}, {"pool"});
    testing::set_ints(pool, "kernel_shape", {2, 2});
    testing::set_ints(pool, "pads", {1, 1, 1, 1});
    Graph g = import_onnx_bytes(b.bytes(), "squeeze-excite then pool");
    prepare_graph(g);
    const TensorMap inputs = {{"x", testing::random_floats({1, 9, 6, 5}, 14, -2, 2)}};
    EXPECT_EQ(difference(g, plan_fusion(g, {4.0, true}), inputs, evaluate(g, inputs), avx2), "");
}

// A seed's smallest failing graph, kept: a max pool's taps (3x3 stride 2) over a padded
// row buffer of 3x9 points computed per output row, so small that each tap's index
// folded to a constant; Halide 14 then marked the odd taps' dense loads aligned and
// the program died of a general-protection fault (see hal::guard_strided_load_alignment).
TEST(RandomGraphs, PoolTapsOverATinyPaddedRowLoadUnaligned) {
    Halide::load_plugin(TESSERA_PLUGIN_PATH);
    testing::ModelBuilder b;
    b.input("x", {1, 3, 13, 7}).output("pool");
    b.node("Relu", {"x"}, {"act"});
    onnx::NodeProto &stat = b.node("ReduceMax", {"act"}, {"stat"});
    testing::set_ints(stat, "axes", {2, 3});
    b.node("Mul", {"act", "stat"}, {"gated"});
    onnx::NodeProto &pool = b.node("MaxPool", {"gated"}, {"pool"});
    testing::set_ints(pool, "kernel_shape", {3, 3});
    testing::set_ints(pool, "strides", {2, 2});
    testing::set_ints(pool, "pads", {1, 1, 1, 1});
    testing::set_int(pool, "ceil_mode", 1);
    Graph g = import_onnx_bytes(b.bytes(), "pool taps over a tiny padded row");
    prepare_graph(g);
    const TensorMap inputs = {{"x", testing::random_floats({1, 3, 13, 7}, 12, -2, 2)}};
    EXPECT_EQ(difference(g, plan_fusion(g, {4.0, true}), inputs, evaluate(g, inputs)), "");
}

TEST(RandomGraphs, CompiledMatchesTheEvaluator) {
    Halide::load_plugin(TESSERA_PLUGIN_PATH);
    const uint64_t first = env_number("TESSERA_FUZZ_SEED", 1), count = env_number("TESSERA_FUZZ_GRAPHS", 40);
    const auto start = std::chrono::steady_clock::now();
    int compiled = 0, refused = 0;
    for (uint64_t seed = first; seed < first + count; seed++) {
        testing::RandomGraph rg = testing::random_graph(seed, 3 + int(seed % 8));
        std::string nodes;
        for (const std::string &n : rg.nodes) nodes += "  " + n + "\n";
        // An exception outside the planner's refusals (import, a pass, the evaluator,
        // the layouts) fails this seed, named, and the next seeds still run.
        try {
            Graph g = import_onnx_bytes(rg.model.bytes(), "random graph " + std::to_string(seed));
            prepare_graph(g);
            TensorMap inputs;
            for (const std::string &name : g.inputs) inputs[name] = testing::random_floats(g.value(name).shape, seed, -2, 2);
            const TensorMap want = evaluate(g, inputs);
            for (bool fuse : {true, false}) {
                FusionPlan plan;
                try {
                    plan = plan_fusion(g, {4.0, fuse});
                } catch (const GraphError &) {
                    refused++;  // a form the planner declines, said by its message
                    continue;
                }
                const std::string diff = difference(g, plan, inputs, want);
                EXPECT_EQ(diff, "") << "seed " << seed << (fuse ? ", fused" : ", one kernel per node") << ":\n"
                                    << nodes << describe_plan(g, plan) << (diff.empty() ? "" : shrink(rg, seed, fuse));
                compiled++;
            }
            // The same graph in a layout (NCHW[8]c on odd seeds, NHWC on even ones), fused.
            const Layout layout = seed % 2 ? Layout::blocked : Layout::nhwc;
            Graph laid_out = g;
            const LayoutReport report = assign_layouts(laid_out, preferring(layout));
            if (report.blocked_nodes + report.nhwc_nodes == 0) continue;
            try {
                const std::string diff = difference(laid_out, plan_fusion(laid_out, {4.0, true}), inputs, want);
                EXPECT_EQ(diff, "") << "seed " << seed << ", " << (layout == Layout::blocked ? "blocked" : "NHWC")
                                    << " layout:\n" << nodes << report.describe();
                compiled++;
            } catch (const GraphError &) {
                refused++;
            }
        } catch (const std::exception &e) {
            ADD_FAILURE() << "seed " << seed << ": " << e.what() << "\n" << nodes;
        }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("random graphs: seeds %llu-%llu, %d compiled runs, %d refused by the planner, %.1f s\n",
                (unsigned long long)first, (unsigned long long)(first + count - 1), compiled, refused, seconds);
}

}  // namespace
}  // namespace tessera::graph
