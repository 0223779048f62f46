// Random-graph differential testing: each graph of random_graph.h runs through the
// reference evaluator and the JIT compiler, fused and one kernel per node, and the
// outputs are compared element by element (relative error; NaN never passes). A
// failure names the seed and the graph's nodes, so it reproduces with
// TESSERA_FUZZ_SEED=<seed> TESSERA_FUZZ_GRAPHS=1. `make fuzz-graphs N=...` runs more.
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

void schedule_with_tessera(Halide::Pipeline &p) {
    p.auto_schedule("Tessera", Halide::get_host_target(), Halide::MachineParams(2, 32 << 20, 40));
}

// The first difference between the evaluator and a compiled run, or "".
std::string difference(const Graph &g, const FusionPlan &plan, const TensorMap &inputs, const TensorMap &want) {
    try {
        JitModel model(g, plan, schedule_with_tessera, Halide::get_host_target());
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

TEST(RandomGraphs, CompiledMatchesTheEvaluator) {
    Halide::load_plugin(TESSERA_PLUGIN_PATH);
    const uint64_t first = env_number("TESSERA_FUZZ_SEED", 1), count = env_number("TESSERA_FUZZ_GRAPHS", 40);
    const auto start = std::chrono::steady_clock::now();
    int compiled = 0, refused = 0;
    for (uint64_t seed = first; seed < first + count; seed++) {
        testing::RandomGraph rg = testing::random_graph(seed, 3 + int(seed % 8));
        std::string nodes;
        for (const std::string &n : rg.nodes) nodes += "  " + n + "\n";
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
                                << nodes << describe_plan(g, plan);
            compiled++;
        }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("random graphs: seeds %llu-%llu, %d compiled runs, %d refused by the planner, %.1f s\n",
                (unsigned long long)first, (unsigned long long)(first + count - 1), compiled, refused, seconds);
}

}  // namespace
}  // namespace tessera::graph
