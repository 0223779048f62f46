// Models compiled partition by partition (plan_fusion, lower_partition, the Tessera
// plugin, Halide's JIT) against the reference evaluator, on random inputs with
// every partition's output poisoned (NaN) before it runs: a ResNet basic block
// with a classifier, a MobileNetV2 inverted residual, and an attention layer in
// PyTorch's export form. The fusion plan's partitions are checked too.
#include "evaluate.h"
#include "host_target.h"
#include "fold_batch_norm.h"
#include "fold_constants.h"
#include "graph_error.h"
#include "assign_layouts.h"
#include "import_onnx.h"
#include "jit_model.h"
#include "model_builder.h"
#include "pinned_options.h"
#include "pack_weights.h"
#include "plan_chains.h"
#include "plan_fusion.h"
#include "planes_as_rows.h"
#include "prepare_graph.h"
#include "tessera_scheduler.h"
#include "remove_dead.h"
#include "uniform_windows.h"
#include "conv_transpose_as_conv.h"
#include "rewrite_patterns.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace tessera::graph {
namespace {

using testing::ModelBuilder;

constexpr double kTolerance = 1e-4;

Graph prepared(const ModelBuilder &b) {
    Graph g = import_onnx_bytes(b.bytes(), "test model");
    fold_constants(g);
    fold_batch_norm(g);
    rewrite_patterns(g);
    remove_dead(g);
    return g;
}

void schedule_with_tessera(Halide::Pipeline &p) {
    p.auto_schedule("Tessera", tessera::hal::host_target(), Halide::MachineParams(2, 32 << 20, 40));
}

// The ops of each partition, "Conv+Relu", in plan order.
std::vector<std::string> partition_ops(const Graph &g, const FusionPlan &plan) {
    std::vector<std::string> out;
    for (const Partition &p : plan.partitions) {
        out.push_back(partition_op_types(g, p));
    }
    return out;
}

// Compiles `g` under `plan` and compares every output with the reference evaluator
// on `reference` (default: `g` itself; a packed graph is checked against the model
// as written).
void expect_matches_reference(const Graph &g, const FusionPlan &plan, uint64_t seed, const Graph *reference = nullptr) {
    Halide::load_plugin(TESSERA_PLUGIN_PATH);
    JitModel model(g, plan, schedule_with_tessera, tessera::hal::host_target());
    TensorMap inputs;
    for (const std::string &name : g.inputs) inputs[name] = testing::random_floats(g.value(name).shape, seed++);
    const TensorMap got = model.run(inputs), want = evaluate(reference ? *reference : g, inputs);
    for (const std::string &name : g.outputs) {
        const double err = testing::relative_error(got.at(name), want.at(name));
        EXPECT_LE(err, kTolerance) << name << " (NaN: a partition left elements unwritten)";
    }
}

// Tessera's outcome for partition `p` on each pinned machine (its target and profile,
// whatever the host), beside the machine's name.
std::vector<std::pair<std::string, ScheduleOutcome>> pinned_outcomes(const Graph &g, const Partition &p) {
    std::vector<std::pair<std::string, ScheduleOutcome>> out;
    for (const test::PinnedMachine &machine : test::pinned_machines()) {
        const LoweredPartition lp = lower_partition(g, p);
        out.emplace_back(machine.name, schedule_pipeline(lp.pipeline, Halide::Target(machine.target),
                                                         test::pinned_options(machine)));
    }
    return out;
}

TensorData weights(const Shape &shape, uint64_t seed, float scale = 0.3f) {
    return testing::random_floats(shape, seed, -scale, scale);
}

// conv3x3+BN+relu, conv3x3+BN, + skip, relu, global pool, flatten, linear.
ModelBuilder resnet_block() {
    ModelBuilder b(13);
    const int64_t c = 8;
    b.input("x", {1, c, 10, 10}).output("logits");
    for (const char *conv : {"w1", "w2"}) b.initializer(conv, weights({c, c, 3, 3}, conv[1]));
    for (const char *bn : {"bn1", "bn2"}) {
        const std::string p = bn;
        b.initializer(p + "_scale", weights({c}, 11, 1.0f));
        b.initializer(p + "_bias", weights({c}, 12));
        b.initializer(p + "_mean", weights({c}, 13));
        b.initializer(p + "_var", testing::random_floats({c}, 14, 0.5f, 1.5f));
    }
    b.initializer("fc_w", weights({5, c}, 15));
    b.initializer("fc_b", weights({5}, 16));
    for (int i = 1; i <= 2; i++) {
        const std::string k = std::to_string(i);
        auto &conv = b.node("Conv", {i == 1 ? "x" : "r1", "w" + k}, {"c" + k}, "/layer1/conv" + k + "/Conv");
        testing::set_ints(conv, "kernel_shape", {3, 3});
        testing::set_ints(conv, "pads", {1, 1, 1, 1});
        b.node("BatchNormalization", {"c" + k, "bn" + k + "_scale", "bn" + k + "_bias", "bn" + k + "_mean",
                                      "bn" + k + "_var"},
               {"b" + k});
        if (i == 1) b.node("Relu", {"b1"}, {"r1"});
    }
    b.node("Add", {"b2", "x"}, {"sum"});
    b.node("Relu", {"sum"}, {"r2"});
    b.node("GlobalAveragePool", {"r2"}, {"pooled"});
    testing::set_int(b.node("Flatten", {"pooled"}, {"flat"}), "axis", 1);
    auto &fc = b.node("Gemm", {"flat", "fc_w", "fc_b"}, {"logits"});
    testing::set_int(fc, "transB", 1);
    return b;
}

// 1x1 expand + relu6, 3x3 depthwise + relu6, 1x1 project, + skip.
ModelBuilder inverted_residual() {
    ModelBuilder b(13);
    b.input("x", {1, 32, 14, 13}).output("y");
    b.initializer("expand", weights({96, 32, 1, 1}, 21));
    b.initializer("expand_b", weights({96}, 22));
    b.initializer("dw", weights({96, 1, 3, 3}, 23));
    b.initializer("dw_b", weights({96}, 24));
    b.initializer("project", weights({32, 96, 1, 1}, 25));
    b.initializer("zero", TensorData::floats({}, {0.0f}));
    b.initializer("six", TensorData::floats({}, {6.0f}));
    testing::set_ints(b.node("Conv", {"x", "expand", "expand_b"}, {"e"}), "kernel_shape", {1, 1});
    b.node("Clip", {"e", "zero", "six"}, {"e6"});
    auto &dw = b.node("Conv", {"e6", "dw", "dw_b"}, {"d"}, "depthwise");
    testing::set_ints(dw, "kernel_shape", {3, 3});
    testing::set_ints(dw, "pads", {1, 1, 1, 1});
    testing::set_int(dw, "group", 96);
    b.node("Clip", {"d", "zero", "six"}, {"d6"});
    testing::set_ints(b.node("Conv", {"d6", "project"}, {"p"}), "kernel_shape", {1, 1});
    b.node("Add", {"p", "x"}, {"y"});
    return b;
}

// A convolution followed by the activations of mobile and detection nets, each
// with non-default attributes where it has some: LeakyRelu, HardSigmoid, Elu,
// Selu, Softplus, PRelu with a slope per channel, HardSwish.
ModelBuilder activations() {
    ModelBuilder b(14);
    b.input("x", {1, 8, 9, 11}).output("y");
    b.initializer("w", weights({8, 8, 3, 3}, 31));
    b.initializer("slope", weights({8, 1, 1}, 32));
    auto &conv = b.node("Conv", {"x", "w"}, {"c"});
    testing::set_ints(conv, "kernel_shape", {3, 3});
    testing::set_ints(conv, "pads", {1, 1, 1, 1});
    testing::set_float(b.node("LeakyRelu", {"c"}, {"l"}), "alpha", 0.2f);
    auto &hs = b.node("HardSigmoid", {"l"}, {"hs"});
    testing::set_float(hs, "alpha", 0.3f);
    testing::set_float(hs, "beta", 0.4f);
    b.node("Add", {"hs", "c"}, {"a"});
    testing::set_float(b.node("Elu", {"a"}, {"e"}), "alpha", 0.5f);
    b.node("Selu", {"e"}, {"s"});
    b.node("Softplus", {"s"}, {"sp"});
    b.node("Sub", {"sp", "c"}, {"d"});
    b.node("PRelu", {"d", "slope"}, {"p"});
    b.node("HardSwish", {"p"}, {"y"});
    return b;
}

TEST(GraphLowering, ActivationsWithAttributesMatchTheReference) {
    const Graph g = prepared(activations());
    expect_matches_reference(g, plan_fusion(g, {4.0, true}), 11);
    expect_matches_reference(g, plan_fusion(g, {4.0, false}), 12);
}

TEST(GraphLowering, ResnetBlockFusesEpiloguesAndMatchesTheReference) {
    const Graph g = prepared(resnet_block());
    // Balance 4 FLOP/B: both convolutions are compute-intensive, the classifier not.
    const FusionPlan plan = plan_fusion(g, {4.0, true});
    EXPECT_EQ(partition_ops(g, plan),
              (std::vector<std::string>{"Conv+Relu", "Conv+Add+Relu", "GlobalAveragePool+Flatten+Gemm"}))
        << describe_plan(g, plan);
    EXPECT_LT(plan.dram_bytes_after, plan.dram_bytes_before);
    expect_matches_reference(g, plan, 1);
    // One kernel per node (the Flatten stays with its pool: it moves no data)
    // computes the same.
    const FusionPlan unfused = plan_fusion(g, {4.0, false});
    EXPECT_EQ(unfused.partitions.size(), g.nodes.size() - 1);
    EXPECT_EQ(unfused.partitions.size(), size_t(unfused.kernels_before));
    expect_matches_reference(g, unfused, 2);
}

// A product over a batch of one ([1, M, K] x [K, N]) is a 2-D matmul the graph
// reshapes back to [1, M, N]: its bias and activation read it with an outer dim of
// one point more. They are still its epilogue, computed per tile of it, not a
// pass over the whole output at root (BERT's FFN layers). Pinned machines' figures.
TEST(GraphLowering, ABatchOfOneProductTakesItsEpilogueInItsTiles) {
    ModelBuilder b(13);
    b.input("x", {1, 64, 96}).output("y");
    b.initializer("w", weights({96, 160}, 41));
    b.initializer("bias", weights({160}, 42));
    b.node("MatMul", {"x", "w"}, {"p"});
    b.node("Add", {"p", "bias"}, {"s"});
    b.node("Relu", {"s"}, {"y"});
    const Graph g = prepared(b);
    const FusionPlan plan = plan_fusion(g, {4.0, true});
    ASSERT_EQ(plan.partitions.size(), 1u);
    for (const auto &[machine, o] : pinned_outcomes(g, plan.partitions[0])) {
        int fused = 0;
        for (const StageDecision &d : o.decisions.stages) fused += d.role == StageRole::EpilogueOutput && !d.epilogue.empty();
        EXPECT_EQ(fused, 1) << machine << "\n" << o.explanation;
    }
    expect_matches_reference(g, plan, 43);
}

// A squeeze-excite's pooled vector fused with the 1x1 convolution after it: every
// output channel reads all of the pool, so the pool is computed once at root, not
// per row of the convolution's output (440 -> 110 channels at 7x7 had recomputed it
// per output channel, 0.30 ms where onnxruntime took 0.013). Pinned machines.
TEST(GraphLowering, APoolReadWholeByEveryOutputChannelIsComputedOnce) {
    ModelBuilder b(13);
    b.input("x", {1, 96, 7, 7}).output("y");
    b.initializer("w", weights({24, 96, 1, 1}, 44));
    b.initializer("bias", weights({24}, 45));
    b.node("GlobalAveragePool", {"x"}, {"pooled"});
    testing::set_ints(b.node("Conv", {"pooled", "w", "bias"}, {"s"}), "kernel_shape", {1, 1});
    b.node("Relu", {"s"}, {"y"});
    const Graph g = prepared(b);
    const FusionPlan plan = plan_fusion(g, {4.0, true});
    ASSERT_EQ(plan.partitions.size(), 1u);
    for (const auto &[machine, o] : pinned_outcomes(g, plan.partitions[0])) {
        int pools = 0;
        for (const StageDecision &d : o.decisions.stages) {
            if (d.role != StageRole::Reduction || d.func.rfind("global_sum", 0) != 0) continue;
            pools++;
            EXPECT_EQ(d.computed_at, "") << machine << "\n" << o.explanation;
        }
        EXPECT_EQ(pools, 1) << machine << "\n" << o.explanation;
    }
    expect_matches_reference(g, plan, 46);
}

// A convolution under a hard-swish, x * hardsigmoid(x) (MobileNetV3; SiLU, EfficientNet's,
// has the same form): the bias add is read twice at each point, and is still inlined,
// so the tail is the convolution's epilogue computed per tile of it, not a pass of its
// own over sums computed at root. Pinned machines' figures.
TEST(GraphLowering, AConvolutionKeepsAHardSwishAsItsEpilogue) {
    ModelBuilder b(14);
    b.input("x", {1, 240, 28, 28}).output("y");
    b.initializer("w", weights({240, 1, 3, 3}, 47));
    b.initializer("bias", weights({240}, 48));
    auto &conv = b.node("Conv", {"x", "w", "bias"}, {"c"});
    testing::set_ints(conv, "kernel_shape", {3, 3});
    testing::set_ints(conv, "pads", {1, 1, 1, 1});
    testing::set_ints(conv, "strides", {2, 2});
    testing::set_int(conv, "group", 240);
    b.node("HardSigmoid", {"c"}, {"h"});
    b.node("Mul", {"c", "h"}, {"y"});
    const Graph g = prepared(b);
    const FusionPlan plan = plan_fusion(g, {4.0, true});
    ASSERT_EQ(plan.partitions.size(), 1u) << ::testing::PrintToString(partition_ops(g, plan));
    for (const auto &[machine, o] : pinned_outcomes(g, plan.partitions[0])) {
        int fused = 0, shared = 0;
        for (const StageDecision &d : o.decisions.stages) {
            fused += d.role == StageRole::EpilogueOutput && !d.epilogue.empty();
            shared += d.role == StageRole::SharedProducer;
        }
        EXPECT_EQ(fused, 1) << machine << "\n" << o.explanation;
        EXPECT_EQ(shared, 0) << machine << "\n" << o.explanation;
    }
    expect_matches_reference(g, plan, 49);
}

// Every buffer of a lowered partition has its static shape as constant extents, so
// the compiled code sizes its loops and tile buffers at compile time (no
// halide_malloc per parallel task for a tile whose size it would read at run time).
TEST(GraphLowering, PartitionBuffersHaveStaticExtents) {
    const Graph g = prepared(resnet_block());
    const FusionPlan plan = plan_fusion(g, {4.0, true});
    const LoweredPartition lp = lower_partition(g, plan.partitions.at(0));
    auto expect_static = [](Halide::OutputImageParam buffer, const Shape &shape, const std::string &what) {
        ASSERT_EQ(buffer.dimensions(), int(shape.size())) << what;
        for (int d = 0; d < buffer.dimensions(); d++) {
            const int64_t *extent = Halide::Internal::as_const_int(buffer.parameter().extent_constraint(d));
            ASSERT_TRUE(extent) << what << " dim " << d << " has no constant extent";
            EXPECT_EQ(*extent, shape[shape.size() - 1 - size_t(d)]) << what << " dim " << d;
        }
    };
    ASSERT_FALSE(lp.params.empty());
    for (size_t k = 0; k < lp.params.size(); k++) {
        expect_static(lp.params[k], g.value(lp.input_values[k]).shape, lp.input_values[k]);
    }
    expect_static(lp.output.output_buffer(), g.value(lp.output_value).shape, lp.output_value);
}

// Constant weights packed at compile time (pack_weights): both convolutions (8
// output channels in a panel of 16: half of it padding) and the classifier (Gemm,
// transB) read panels, fused and unfused, and compute what the model as written does.
TEST(GraphLowering, PackedWeightsComputeTheModelAsWritten) {
    const Graph original = prepared(resnet_block());
    Graph g = original;
    EXPECT_EQ(pack_weights(g), 3);
    for (const Node &n : g.nodes) {
        if (n.op_type != "Conv" && n.op_type != "Gemm") continue;
        EXPECT_GT(packed_block(n), 0) << n.name;
        EXPECT_EQ(g.value(n.inputs[1]).shape, n.op_type == "Conv" ? (Shape{1, 8, 3, 3, 16}) : (Shape{1, 8, 64}));
    }
    EXPECT_EQ(pack_weights(g), 0);  // packed once
    const FusionPlan plan = plan_fusion(g, {4.0, true});
    EXPECT_EQ(partition_ops(g, plan),
              (std::vector<std::string>{"Conv+Relu", "Conv+Add+Relu", "GlobalAveragePool+Flatten+Gemm"}))
        << describe_plan(g, plan);
    expect_matches_reference(g, plan, 21, &original);
    expect_matches_reference(g, plan_fusion(g, {4.0, false}), 22, &original);
    // --layout auto: the classifier (a matrix-vector product) only.
    Graph vector_products = original;
    EXPECT_EQ(pack_weights(vector_products, default_packing()), 1);
    for (const Node &n : vector_products.nodes) EXPECT_EQ(packed_block(n) > 0, n.op_type == "Gemm") << n.name;
    expect_matches_reference(vector_products, plan_fusion(vector_products, {4.0, true}), 24, &original);
}

// --layout auto packs 1x1 convolutions (default_packing): on a 7x7 plane with
// blocked sums, on a 15x15 one (64 input channels) with planar sums, 64 output
// channels in 32-wide panels, with a bias and fused epilogues; both compute what
// the model as written does, fused and unfused.
TEST(GraphLowering, PackedPointwiseConvolutionsComputeTheModelAsWritten) {
    for (const int64_t side : {7, 15}) {
        ModelBuilder b(19);
        b.input("x", {1, 64, side, side}).output("y");
        b.initializer("w", weights({64, 64, 1, 1}, 1));
        b.initializer("bias", weights({64}, 2));
        testing::set_ints(b.node("Conv", {"x", "w", "bias"}, {"c"}, "pointwise"), "kernel_shape", {1, 1});
        b.node("Relu", {"c"}, {"y"});
        const Graph original = prepared(b);
        Graph g = original;
        EXPECT_EQ(pack_weights(g, default_packing()), 1);
        for (const Node &n : g.nodes) {
            EXPECT_EQ(packed_block(n), n.op_type == "Conv" ? 32 : 0) << n.name;
            EXPECT_EQ(n.get_int(kPackedPlanarAttr, 0), n.op_type == "Conv" && side == 15 ? 1 : 0) << n.name;
        }
        expect_matches_reference(g, plan_fusion(g, {4.0, true}), 31, &original);
        expect_matches_reference(g, plan_fusion(g, {4.0, false}), 32, &original);
    }
}

// A classifier's packed matrix-vector product under a hard-swish (MobileNetV3-Small's
// 576 -> 1024): the tail, read twice at each point, is the product's epilogue per
// tile of it, whose tiles read the panels only within their 16 panels.
TEST(GraphLowering, APackedMatrixVectorProductUnderAHardSwishComputesTheModel) {
    ModelBuilder b(14);
    b.input("x", {1, 576}).output("y");
    b.initializer("w", weights({1024, 576}, 76, 0.05f));
    b.initializer("bias", weights({1024}, 77));
    testing::set_int(b.node("Gemm", {"x", "w", "bias"}, {"g"}), "transB", 1);
    b.node("HardSigmoid", {"g"}, {"h"});
    b.node("Mul", {"g", "h"}, {"y"});
    const Graph original = prepared(b);
    Graph g = original;
    EXPECT_EQ(pack_weights(g, default_packing()), 1);
    expect_matches_reference(g, plan_fusion(g, {4.0, true}), 78, &original);
}

// --layout auto packs windowed convolutions on planes of at most 7x7 (a 3x3 at
// 7x7, a 3x3 stride 2 from 14x14 onto 7x7), 64 output channels in 32-wide panels,
// with a bias, a residual add and a relu: they compute what the model as written
// does, fused and unfused.
TEST(GraphLowering, PackedWindowedConvolutionsOnSmallPlanesComputeTheModelAsWritten) {
    for (const int64_t stride : {1, 2}) {
        ModelBuilder b(19);
        const int64_t side = 7 * stride;
        b.input("x", {1, 48, side, side}).input("skip", {1, 64, 7, 7}).output("y");
        b.initializer("w", weights({64, 48, 3, 3}, 1));
        b.initializer("bias", weights({64}, 2));
        auto &conv = b.node("Conv", {"x", "w", "bias"}, {"c"}, "window");
        testing::set_ints(conv, "kernel_shape", {3, 3});
        testing::set_ints(conv, "pads", {1, 1, 1, 1});
        testing::set_ints(conv, "strides", {stride, stride});
        b.node("Add", {"c", "skip"}, {"s"});
        b.node("Relu", {"s"}, {"y"});
        const Graph original = prepared(b);
        Graph g = original;
        EXPECT_EQ(pack_weights(g, default_packing()), 1);
        for (const Node &n : g.nodes) EXPECT_EQ(packed_block(n), n.op_type == "Conv" ? 32 : 0) << n.name;
        expect_matches_reference(g, plan_fusion(g, {4.0, true}), 33, &original);
        expect_matches_reference(g, plan_fusion(g, {4.0, false}), 34, &original);
    }
}

// --layout auto packs a Gemm with transB whatever its rows (a transformer's
// projection, B stored [N,K]), N not a multiple of the panel: it computes what the
// model as written does, with its bias and a relu after it.
TEST(GraphLowering, PackedTransposedGemmsComputeTheModelAsWritten) {
    ModelBuilder b(13);
    b.input("a", {24, 40}).output("y");
    b.initializer("w", weights({56, 40}, 1));
    b.initializer("bias", weights({56}, 2));
    testing::set_int(b.node("Gemm", {"a", "w", "bias"}, {"g"}, "projection"), "transB", 1);
    b.node("Relu", {"g"}, {"y"});
    const Graph original = prepared(b);
    Graph g = original;
    EXPECT_EQ(pack_weights(g, default_packing()), 1);
    for (const Node &n : g.nodes) EXPECT_EQ(packed_block(n) > 0, n.op_type == "Gemm") << n.name;
    expect_matches_reference(g, plan_fusion(g, {4.0, true}), 35, &original);
    expect_matches_reference(g, plan_fusion(g, {4.0, false}), 36, &original);
}

LayoutOptions blocks_of(int64_t block) {
    LayoutOptions o;
    o.block = block;
    return o;
}

// Channel-blocked layouts (assign_layouts, block 8): the whole block computes in
// NCHW8c, from one conversion of the input (read by the first convolution and by
// the skip connection) to one after the global pool; fused and unfused, it computes
// what the model as written does.
TEST(GraphLowering, BlockedLayoutComputesTheModelAsWritten) {
    const Graph original = prepared(resnet_block());
    Graph g = original;
    const LayoutReport r = assign_layouts(g, blocks_of(8));
    ASSERT_EQ(r.regions.size(), 1u) << r.describe();
    EXPECT_TRUE(r.regions[0].kept) << r.describe();
    EXPECT_EQ(r.blocked_nodes, 6) << r.describe();
    EXPECT_EQ(r.conversions, 2) << r.describe();
    std::vector<std::string> blocked;
    for (const Node &n : g.nodes) {
        if (layout_block(n) > 0) blocked.push_back(n.op_type);
    }
    EXPECT_EQ(blocked, (std::vector<std::string>{"Conv", "Relu", "Conv", "Add", "Relu", "GlobalAveragePool"}))
        << r.describe();
    EXPECT_EQ(g.nodes.front().op_type, kToBlockedOp);
    for (const Node &n : g.nodes) {
        if (n.op_type == "Conv") EXPECT_EQ(g.value(n.inputs[1]).shape, (Shape{1, 8, 3, 3, 8})) << n.name;
        if (n.op_type == "Conv") EXPECT_EQ(g.value(n.outputs[0]).shape, (Shape{1, 1, 10, 10, 8})) << n.name;
    }
    const FusionPlan plan = plan_fusion(g, {4.0, true});
    expect_matches_reference(g, plan, 25, &original);
    expect_matches_reference(g, plan_fusion(g, {4.0, false}), 26, &original);
    // Blocks of 16 divide none of its 8 channels: the graph stays as it was.
    Graph wide = original;
    EXPECT_EQ(assign_layouts(wide, blocks_of(16)).blocked_nodes, 0);
    EXPECT_EQ(wide.nodes.size(), original.nodes.size());
}

// A bottleneck's last stage at 7x7: 1x1 convolution, bias, the skip connection
// added, ReLU. `stride` 2 or a 3x3 kernel make it read neighbouring points.
ModelBuilder pointwise_residual(int64_t kernel = 1, int64_t stride = 1) {
    ModelBuilder b(13);
    const int64_t c = 16, side = 7;
    b.input("x", {1, c, side, side}).input("skip", {1, c, side, side}).output("y");
    b.initializer("w", weights({c, c, kernel, kernel}, 3));
    b.initializer("bias", weights({c}, 4));
    auto &conv = b.node("Conv", {"x", "w", "bias"}, {"c"}, "pointwise");
    testing::set_ints(conv, "kernel_shape", {kernel, kernel});
    testing::set_ints(conv, "strides", {stride, stride});
    if (kernel == 3) testing::set_ints(conv, "pads", {1, 1, 1, 1});
    if (stride == 1) {
        b.node("Add", {"c", "skip"}, {"sum"});
    } else {
        b.node("Add", {"c", "c"}, {"sum"});
    }
    b.node("Relu", {"sum"}, {"y"});
    return b;
}

// A partition pointwise across the plane (1x1 stride-1 convolution and element-wise
// nodes) is lowered with its 7x7 planes as rows of 49 points, NCHW and NCHW8c, its
// buffers in those shapes; a GPU's lowering (planes_as_rows off), a 3x3 kernel or a
// stride keeps the plane. Each computes the model as written.
TEST(GraphLowering, PointwisePartitionsSeeTheirPlanesAsRows) {
    for (const bool blocked : {false, true}) {
        const Graph original = prepared(pointwise_residual());
        Graph g = original;
        if (blocked) {
            LayoutOptions o = blocks_of(8);
            o.max_conversion_share = 1;  // a region this small: its conversions are most of its traffic
            const LayoutReport r = assign_layouts(g, o);
            ASSERT_EQ(r.blocked_nodes, 3) << r.describe();
        }
        const FusionPlan plan = plan_fusion(g, {4.0, true});
        const Partition *conv = nullptr;
        for (const Partition &p : plan.partitions) {
            if (partition_op_types(g, p).find("Conv") != std::string::npos) conv = &p;
        }
        ASSERT_TRUE(conv) << blocked << ": " << ::testing::PrintToString(partition_ops(g, plan));
        // Blocked, the input's and the skip's conversions join it.
        EXPECT_EQ(partition_op_types(g, *conv), blocked ? "ToBlockedLayout+ToBlockedLayout+Conv+Add+Relu" : "Conv+Add+Relu");
        ASSERT_TRUE(pointwise_plane(g, *conv)) << blocked;
        EXPECT_EQ(*pointwise_plane(g, *conv), (std::pair<int64_t, int64_t>{7, 7}));
        const Shape rows = blocked ? Shape{1, 2, 1, 49, 8} : Shape{1, 16, 1, 49};
        const LoweredPartition lp = lower_partition(g, *conv);
        EXPECT_EQ(lp.output_shape, rows) << blocked;
        for (size_t k = 0; k < lp.params.size(); k++) {
            const Shape &own = g.value(lp.input_values[k]).shape;
            EXPECT_EQ(lp.param_shapes[k], plane_as_row(own, 7, 7)) << lp.input_values[k];
            EXPECT_EQ(num_elements(lp.param_shapes[k]), num_elements(own)) << lp.input_values[k];
            EXPECT_EQ(lp.params[k].dimensions(), int(own.size())) << lp.input_values[k];
        }
        LowerOptions gpu;
        gpu.planes_as_rows = false;
        EXPECT_EQ(lower_partition(g, *conv, gpu).output_shape, g.value(conv->output).shape) << blocked;
        expect_matches_reference(g, plan, 61, &original);
        expect_matches_reference(g, plan_fusion(g, {4.0, false}), 62, &original);
    }
    for (const auto &[kernel, stride] : {std::pair<int64_t, int64_t>{3, 1}, {1, 2}}) {
        const Graph g = prepared(pointwise_residual(kernel, stride));
        const FusionPlan plan = plan_fusion(g, {4.0, true});
        for (const Partition &p : plan.partitions) {
            EXPECT_FALSE(pointwise_plane(g, p)) << kernel << " " << stride << ": " << partition_op_types(g, p);
        }
        expect_matches_reference(g, plan, 63);
    }
}

// A value broadcast along the plane's last axis alone ([7] against [1, 16, 7, 7])
// would meet the row's 49 points: the partition keeps its plane.
TEST(GraphLowering, AValueAlignedWithThePlanesLastAxisKeepsThePlane) {
    ModelBuilder b = pointwise_residual();
    b.initializer("row", weights({7}, 5));
    b.node("Mul", {"y", "row"}, {"scaled"});
    b.output("scaled");
    const Graph g = prepared(b);
    const FusionPlan plan = plan_fusion(g, {4.0, true});
    for (const Partition &p : plan.partitions) {
        if (partition_op_types(g, p).find("Mul") != std::string::npos) EXPECT_FALSE(pointwise_plane(g, p));
    }
    expect_matches_reference(g, plan, 64);
}

// SqueezeNet's fire module blocked: two expand convolutions (bias, relu) concatenated
// and max-pooled. The pool reads the first expand's bias through the inlined
// concatenation, a read Halide cannot wrap in the pool's own Func ("Cannot wrap ...
// does not call ..."): it is not copied into a packed tile. Pinned machines.
TEST(GraphLowering, BlockedConcatenationUnderAPoolSchedulesAndComputesTheModel) {
    ModelBuilder b(13);
    b.input("x", {1, 16, 13, 13}).output("y");
    b.initializer("squeeze", weights({8, 16, 1, 1}, 70));
    b.initializer("e1", weights({16, 8, 1, 1}, 71));
    b.initializer("e1_b", weights({16}, 72));
    b.initializer("e3", weights({16, 8, 3, 3}, 73));
    b.initializer("e3_b", weights({16}, 74));
    testing::set_ints(b.node("Conv", {"x", "squeeze"}, {"s"}), "kernel_shape", {1, 1});
    b.node("Relu", {"s"}, {"sr"});
    testing::set_ints(b.node("Conv", {"sr", "e1", "e1_b"}, {"a"}), "kernel_shape", {1, 1});
    auto &e3 = b.node("Conv", {"sr", "e3", "e3_b"}, {"c"});
    testing::set_ints(e3, "kernel_shape", {3, 3});
    testing::set_ints(e3, "pads", {1, 1, 1, 1});
    b.node("Relu", {"a"}, {"ar"});
    b.node("Relu", {"c"}, {"cr"});
    testing::set_int(b.node("Concat", {"ar", "cr"}, {"cat"}), "axis", 1);
    auto &pool = b.node("MaxPool", {"cat"}, {"y"});
    testing::set_ints(pool, "kernel_shape", {3, 3});
    testing::set_ints(pool, "strides", {2, 2});
    const Graph original = prepared(b);
    Graph g = original;
    const LayoutReport r = assign_layouts(g, blocks_of(8));
    ASSERT_GT(r.blocked_nodes, 0) << r.describe();
    const FusionPlan plan = plan_fusion(g, {4.0, true});
    for (const Partition &p : plan.partitions) EXPECT_NO_THROW(pinned_outcomes(g, p)) << p.name;
    expect_matches_reference(g, plan, 75, &original);
}

// A 1x1 expand, a depthwise 3x3 and a 1x1 project with relu6 clips and the skip,
// blocked: the depthwise weights as [c/8][kh][kw][8], the clips' scalar bounds kept.
TEST(GraphLowering, BlockedInvertedResidual) {
    const Graph original = prepared(inverted_residual());
    Graph g = original;
    const LayoutReport r = assign_layouts(g, blocks_of(8));
    EXPECT_EQ(r.blocked_nodes, 6) << r.describe();
    EXPECT_EQ(r.conversions, 2) << r.describe();
    for (const Node &n : g.nodes) {
        if (n.name == "depthwise") EXPECT_EQ(g.value(n.inputs[1]).shape, (Shape{12, 3, 3, 8}));
    }
    expect_matches_reference(g, plan_fusion(g, {4.0, true}), 27, &original);
}

// What stays NCHW: a convolution whose weights dwarf its output (3x3, 64 -> 64
// channels on a 2x2 image: 144x), and a region whose conversions would move more
// than a quarter of its traffic (one 1x1 convolution between the caller's tensors).
TEST(GraphLowering, LayoutsStayNchwWhereBlockingDoesNotPay) {
    ModelBuilder small(13);
    small.input("x", {1, 64, 2, 2}).output("y");
    small.initializer("w", weights({64, 64, 3, 3}, 31));
    auto &conv = small.node("Conv", {"x", "w"}, {"y"});
    testing::set_ints(conv, "kernel_shape", {3, 3});
    testing::set_ints(conv, "pads", {1, 1, 1, 1});
    Graph g = prepared(small);
    const LayoutOptions o = blocks_of(8);
    EXPECT_TRUE(assign_layouts(g, o).regions.empty());

    ModelBuilder alone(13);
    alone.input("x", {1, 16, 12, 12}).output("y");
    alone.initializer("w", weights({16, 16, 1, 1}, 32));
    testing::set_ints(alone.node("Conv", {"x", "w"}, {"y"}), "kernel_shape", {1, 1});
    Graph h = prepared(alone);
    const LayoutReport r = assign_layouts(h, o);
    ASSERT_EQ(r.regions.size(), 1u);
    EXPECT_FALSE(r.regions[0].kept) << r.describe();
    EXPECT_EQ(r.conversions, 0);
    EXPECT_EQ(h.nodes.size(), 1u);
    EXPECT_EQ(layout_block(h.nodes[0]), 0);
}

// The default `--layout auto` blocks only regions that hold a depthwise convolution or
// do a share of their work in 1x1 convolutions (LayoutOptions::only_where_blocking_gains):
// a MobileNet-style block and a ResNet-50-style bottleneck are blocked and still compute
// the model; a chain of dense 3x3 convolutions stays NCHW, saying why.
TEST(GraphLowering, AutoBlocksRegionsWithDepthwiseOrPointwiseWork) {
    LayoutOptions o = blocks_of(8);
    o.only_where_blocking_gains = true;
    ModelBuilder dense(13);
    dense.input("x", {1, 32, 10, 10}).output("y");
    std::string x = "x";
    for (int k = 0; k < 3; k++) {
        const std::string w = "w" + std::to_string(k), c = k == 2 ? "y" : "c" + std::to_string(k);
        dense.initializer(w, weights({32, 32, 3, 3}, 50 + k, 0.1f));
        auto &conv = dense.node("Conv", {x, w}, {c});
        testing::set_ints(conv, "kernel_shape", {3, 3});
        testing::set_ints(conv, "pads", {1, 1, 1, 1});
        if (k < 2) dense.node("Relu", {c}, {x = "r" + std::to_string(k)});
    }
    Graph d = prepared(dense);
    const LayoutReport dr = assign_layouts(d, o);
    ASSERT_EQ(dr.regions.size(), 1u) << dr.describe();
    EXPECT_FALSE(dr.regions[0].kept) << dr.describe();
    EXPECT_NE(dr.regions[0].reason.find("no depthwise convolution and 0% of its convolutions' work in 1x1s"),
              std::string::npos)
        << dr.describe();
    for (const Node &n : d.nodes) EXPECT_EQ(layout_block(n), 0) << n.name;

    // Pointwise, depthwise, pointwise, twice: one region, blocked.
    ModelBuilder mobile(13);
    mobile.input("x", {1, 32, 10, 10}).output("y");
    x = "x";
    for (int k = 0; k < 5; k++) {
        const bool depthwise = k % 2 == 1;
        const std::string w = "m" + std::to_string(k), c = k == 4 ? "y" : "d" + std::to_string(k);
        mobile.initializer(w, weights({32, depthwise ? 1 : 32, depthwise ? 3 : 1, depthwise ? 3 : 1}, 60 + k, 0.2f));
        auto &conv = mobile.node("Conv", {x, w}, {c});
        testing::set_ints(conv, "kernel_shape", depthwise ? std::vector<int64_t>{3, 3} : std::vector<int64_t>{1, 1});
        if (depthwise) {
            testing::set_int(conv, "group", 32);
            testing::set_ints(conv, "pads", {1, 1, 1, 1});
        }
        if (k < 4) mobile.node("Relu", {c}, {x = "q" + std::to_string(k)});
    }
    const Graph original = prepared(mobile);
    Graph m = original;
    const LayoutReport mr = assign_layouts(m, o);
    ASSERT_EQ(mr.regions.size(), 1u) << mr.describe();
    EXPECT_TRUE(mr.regions[0].kept) << mr.describe();
    EXPECT_EQ(mr.regions[0].depthwise, 2) << mr.describe();
    expect_matches_reference(m, plan_fusion(m, {4.0, true}), 61, &original);

    // Three bottlenecks, each 1x1 32 -> 8, 3x3 8 -> 8, 1x1 8 -> 32 and the skip: 47% of
    // their multiply-adds in the 1x1s, blocked.
    ModelBuilder bottleneck(13);
    bottleneck.input("x", {1, 32, 10, 10}).output("y");
    const std::vector<Shape> shapes = {{8, 32, 1, 1}, {8, 8, 3, 3}, {32, 8, 1, 1}};
    std::string block_in = "x";
    for (int k = 0; k < 9; k++) {
        const Shape &shape = shapes[size_t(k % 3)];
        const std::string w = "b" + std::to_string(k), c = "e" + std::to_string(k);
        bottleneck.initializer(w, weights(shape, 70 + uint64_t(k), 0.2f));
        auto &conv = bottleneck.node("Conv", {k % 3 == 0 ? block_in : x, w}, {c});
        testing::set_ints(conv, "kernel_shape", {shape[2], shape[3]});
        if (shape[2] == 3) testing::set_ints(conv, "pads", {1, 1, 1, 1});
        if (k % 3 < 2) {
            bottleneck.node("Relu", {c}, {x = "t" + std::to_string(k)});
            continue;
        }
        const std::string sum = "sum" + std::to_string(k), out = k == 8 ? "y" : "o" + std::to_string(k);
        bottleneck.node("Add", {c, block_in}, {sum});
        bottleneck.node("Relu", {sum}, {out});
        block_in = out;
    }
    const Graph plain = prepared(bottleneck);
    Graph bn = plain;
    const LayoutReport br = assign_layouts(bn, o);
    ASSERT_EQ(br.regions.size(), 1u) << br.describe();
    EXPECT_TRUE(br.regions[0].kept) << br.describe();
    EXPECT_NEAR(br.regions[0].pointwise_macs / br.regions[0].conv_macs, 512.0 / 1088.0, 1e-6) << br.describe();
    expect_matches_reference(bn, plan_fusion(bn, {4.0, true}), 62, &plain);
}

// RegNetX's and ResNeXt's grouped 3x3s with one block per group (c / group = block)
// are blocked with their 1x1s: each output block reads its own input block. Narrower
// groups that divide the block are widened to one per block (zero weights between
// them); groups whose width does not divide the block stay NCHW (their region too).
TEST(GraphLowering, GroupedConvolutionsAreBlockedOnePerBlock) {
    for (const int64_t group : {4, 8, 2}) {  // widths 8 (the block), 4 and 16
        SCOPED_TRACE("group " + std::to_string(group));
        ModelBuilder b(13);
        b.input("x", {1, 32, 11, 9}).output("y");
        b.initializer("w0", weights({32, 32, 1, 1}, 90, 0.2f));
        b.initializer("w1", weights({32, 32 / group, 3, 3}, 91, 0.2f));
        b.initializer("w2", weights({32, 32 / group, 3, 3}, 92, 0.2f));
        b.initializer("bias", weights({32}, 93, 0.5f));
        b.node("Conv", {"x", "w0"}, {"c0"});
        b.node("Relu", {"c0"}, {"r0"});
        auto &grouped = b.node("Conv", {"r0", "w1", "bias"}, {"c1"});
        testing::set_int(grouped, "group", group);
        testing::set_ints(grouped, "pads", {1, 1, 1, 1});
        b.node("Relu", {"c1"}, {"r1"});
        auto &strided = b.node("Conv", {"r1", "w2"}, {"y"});
        testing::set_int(strided, "group", group);
        testing::set_ints(strided, "pads", {1, 1, 1, 1});
        testing::set_ints(strided, "strides", {2, 2});
        const Graph original = prepared(b);
        Graph g = original;
        LayoutOptions o = blocks_of(8);
        o.only_where_blocking_gains = true;
        o.max_conversion_share = 0.5;  // three layers: the way in and out is a quarter of them
        const LayoutReport r = assign_layouts(g, o);
        int blocked = 0;
        for (const Node &n : g.nodes) {
            if (n.op_type != "Conv" || layout_block(n) != 8) continue;
            blocked++;
            if (n.get_int("group", 1) > 1) EXPECT_EQ(n.get_int("group", 1), 4) << n.name;  // one per block
        }
        EXPECT_EQ(blocked, group == 2 ? 0 : 3) << r.describe();
        expect_matches_reference(g, plan_fusion(g, {4.0, true}), 94, &original);
    }
}

// A squeeze-excite's multiply by one scale per channel ([1, C, 1, 1]) stays in the
// blocked layout with the convolutions around it: no conversion of the activations
// out and back per block (RegNetY, EfficientNet, MobileNetV3).
TEST(GraphLowering, ASqueezeExciteScaleKeepsItsBlockInTheLayout) {
    ModelBuilder b(13);
    b.input("x", {1, 32, 9, 11}).output("y");
    b.initializer("w0", weights({32, 1, 3, 3}, 95, 0.3f));
    b.initializer("fc1", weights({8, 32, 1, 1}, 96, 0.3f));
    b.initializer("fc2", weights({32, 8, 1, 1}, 97, 0.3f));
    b.initializer("w1", weights({32, 32, 1, 1}, 98, 0.2f));
    auto &dw = b.node("Conv", {"x", "w0"}, {"c0"});
    testing::set_int(dw, "group", 32);
    testing::set_ints(dw, "pads", {1, 1, 1, 1});
    b.node("Relu", {"c0"}, {"r0"});
    b.node("GlobalAveragePool", {"r0"}, {"pooled"});
    b.node("Conv", {"pooled", "fc1"}, {"s1"});
    b.node("Relu", {"s1"}, {"s2"});
    b.node("Conv", {"s2", "fc2"}, {"s3"});
    b.node("Sigmoid", {"s3"}, {"scale"});
    b.node("Mul", {"r0", "scale"}, {"excited"}, "excite");
    b.node("Conv", {"excited", "w1"}, {"y"});
    const Graph original = prepared(b);
    Graph g = original;
    LayoutOptions o = blocks_of(8);
    o.only_where_blocking_gains = true;
    o.max_conversion_share = 0.5;  // a small region: the way in and out weighs more
    const LayoutReport r = assign_layouts(g, o);
    for (const Node &n : g.nodes) {
        if (n.name == "excite") EXPECT_EQ(layout_block(n), 8) << r.describe();
    }
    ASSERT_EQ(r.regions.size(), 1u) << r.describe();
    EXPECT_TRUE(r.regions[0].kept) << r.describe();
    expect_matches_reference(g, plan_fusion(g, {4.0, true}), 99, &original);
}

// The layout choice by the scheduler's model: each candidate convolution lowered
// alone in both forms and scheduled by Tessera, whose outcome carries its
// predicted time; a convolution predicted slower blocked stays NCHW.
TEST(GraphLowering, LayoutsFollowTheSchedulersPredictions) {
    const Graph original = prepared(resnet_block());
    const Halide::Target host = tessera::hal::host_target();
    SchedulerOptions options;
    options.parallelism = 2;
    auto predict = [&](const Graph &g, int node) {
        const ScheduleOutcome o = schedule_pipeline(lower_single_node(g, node).pipeline, host, options);
        EXPECT_EQ(o.predicted_stages, 1);
        return o.predicted_ms;
    };
    int conv = 0;
    while (original.nodes[size_t(conv)].op_type != "Conv") conv++;
    const double nchw = predict(original, conv);
    const double blocked = predict(with_node_in_layout(original, conv, Layout::blocked, 8), conv);
    EXPECT_GT(nchw, 0);
    EXPECT_GT(blocked, 0);

    // A model of our own: the first convolution blocked is slower, the second not.
    for (bool first_slower : {true, false}) {
        Graph g = original;
        LayoutOptions o = blocks_of(8);
        o.max_conversion_share = 1.0;  // the predictions alone decide here
        o.predict_ms = [&](const Graph &graph, int node) {
            const bool is_blocked = layout_block(graph.nodes[size_t(node)]) > 0;
            const bool first = graph.nodes[size_t(node)].name == "/layer1/conv1/Conv";
            return !is_blocked ? 1.0 : first == first_slower ? 2.0 : 0.5;
        };
        const LayoutReport r = assign_layouts(g, o);
        ASSERT_EQ(r.predictions.size(), 2u) << r.describe();
        EXPECT_EQ(r.predictions[0].chosen == Layout::nchw, first_slower) << r.describe();
        EXPECT_EQ(r.predictions[1].chosen == Layout::nchw, !first_slower) << r.describe();
        for (const Node &n : g.nodes) {
            if (n.op_type == "Conv") {
                EXPECT_EQ(layout_block(n) > 0, (n.name == "/layer1/conv1/Conv") != first_slower) << r.describe();
            }
        }
        EXPECT_NE(r.describe().find(": nchw\n"), std::string::npos) << r.describe();
        expect_matches_reference(g, plan_fusion(g, {4.0, true}), 28, &original);
    }
}

// A predictor under which each convolution's fastest form is the one `preferred`
// names (by node name; NCHW for the others).
LayoutOptions preferring(std::map<std::string, Layout> preferred, bool nhwc, bool blocked) {
    LayoutOptions o = blocks_of(8);
    o.nhwc = nhwc;
    o.blocked = blocked;
    o.max_conversion_share = 100;  // the predictions alone decide
    o.predict_ms = [preferred](const Graph &graph, int node) {
        const Node &n = graph.nodes[size_t(node)];
        auto it = preferred.find(n.name);
        return it != preferred.end() && node_layout(n) == it->second ? 1.0 : 2.0;
    };
    return o;
}

std::vector<std::string> ops_in(const Graph &g, Layout l) {
    std::vector<std::string> ops;
    for (const Node &n : g.nodes) {
        if (node_layout(n) == l) ops.push_back(n.op_type);
    }
    return ops;
}

// NHWC (assign_layouts with NHWC predicted fastest): the block computes in NHWC from
// one Transpose of the input to one after the global pool, the weights HWIO.
TEST(GraphLowering, NhwcLayoutComputesTheModelAsWritten) {
    const Graph original = prepared(resnet_block());
    Graph g = original;
    const LayoutReport r = assign_layouts(
        g, preferring({{"/layer1/conv1/Conv", Layout::nhwc}, {"/layer1/conv2/Conv", Layout::nhwc}}, true, false));
    EXPECT_EQ(r.nhwc_nodes, 6) << r.describe();
    EXPECT_EQ(r.blocked_nodes, 0) << r.describe();
    EXPECT_EQ(r.conversions, 2) << r.describe();
    EXPECT_EQ(ops_in(g, Layout::nhwc),
              (std::vector<std::string>{"Conv", "Relu", "Conv", "Add", "Relu", "GlobalAveragePool"}))
        << r.describe();
    EXPECT_EQ(g.nodes.front().op_type, "Transpose");
    EXPECT_EQ(g.nodes.front().get_ints("perm", {}), (std::vector<int64_t>{0, 2, 3, 1}));
    for (const Node &n : g.nodes) {
        if (n.op_type == "Conv") EXPECT_EQ(g.value(n.inputs[1]).shape, (Shape{3, 3, 8, 8})) << n.name;
        if (n.op_type == "Conv") EXPECT_EQ(g.value(n.outputs[0]).shape, (Shape{1, 10, 10, 8})) << n.name;
    }
    EXPECT_NE(r.summary().find("nhwc: 1 region(s), 6 node(s)"), std::string::npos) << r.summary();
    EXPECT_NE(r.describe().find("    x nchw -> nhwc\n"), std::string::npos) << r.describe();
    EXPECT_NE(r.describe().find("    pooled nchw <- nhwc\n"), std::string::npos) << r.describe();
    expect_matches_reference(g, plan_fusion(g, {4.0, true}), 29, &original);
    expect_matches_reference(g, plan_fusion(g, {4.0, false}), 30, &original);
}

// Two convolutions whose outputs a Concat joins directly, the Concat in a partition
// with them, under every plan. (The Concat reads each through a clamp of its
// channels and is no convolution's epilogue: TesseraDecisions.
// AnOutputLargerThanItsProducerIsNoEpilogue checks the scheduler's side.)
// Pools with ceil_mode whose last window reaches past the edge (GoogLeNet- and
// SqueezeNet-class nets): a max pool without padding, an average pool with it,
// counting the padding and not.
// GroupNormalization as PyTorch exports it (opsets before 18): the channels reshaped
// into groups, InstanceNormalization per group with unit scale and zero bias, reshaped
// back, then the per-channel scale and shift; after a convolution and before a SiLU.
TEST(GraphLowering, GroupNormalizationInItsExportedFormMatchesTheReference) {
    ModelBuilder b(13);
    b.input("x", {1, 3, 9, 7}).output("y");
    b.initializer("w", weights({12, 3, 3, 3}, 41));
    b.initializer("groups", TensorData::ints({3}, {1, 4, -1}));
    b.initializer("image", TensorData::ints({4}, {1, 12, 9, 7}));
    b.initializer("ones", TensorData::floats({4}, {1, 1, 1, 1}));
    b.initializer("zeros", TensorData::floats({4}, {0, 0, 0, 0}));
    b.initializer("gamma", weights({12, 1, 1}, 42, 1.0f));
    b.initializer("beta", weights({12, 1, 1}, 43));
    auto &conv = b.node("Conv", {"x", "w"}, {"c"});
    testing::set_ints(conv, "kernel_shape", {3, 3});
    testing::set_ints(conv, "pads", {1, 1, 1, 1});
    b.node("Reshape", {"c", "groups"}, {"g"});
    testing::set_float(b.node("InstanceNormalization", {"g", "ones", "zeros"}, {"n"}), "epsilon", 1e-5f);
    b.node("Reshape", {"n", "image"}, {"back"});
    b.node("Mul", {"back", "gamma"}, {"scaled"});
    b.node("Add", {"scaled", "beta"}, {"shifted"});
    b.node("Sigmoid", {"shifted"}, {"gate"});
    b.node("Mul", {"shifted", "gate"}, {"y"});
    const Graph g = prepared(b);
    expect_matches_reference(g, plan_fusion(g, {4.0, true}), 44);
    expect_matches_reference(g, plan_fusion(g, {4.0, false}), 45);
}

// Dilations that differ between the axes and dilated averages (AveragePool's
// dilations, opset 19): a convolution dilated (1, 2) and one (2, 3) (their kernels
// inflated with zero taps), average pools dilated (2, 1) counting the padding or
// not (uneven pads too), a max pool dilated (1, 3).
TEST(GraphLowering, DilationsThatDifferBetweenAxesAndDilatedAverages) {
    for (int count_include_pad : {0, 1}) {
        ModelBuilder b(19);
        b.input("x", {1, 3, 13, 15}).output("y");
        b.initializer("w1", weights({6, 3, 3, 3}, 51));
        b.initializer("w2", weights({4, 6, 2, 3}, 52));
        auto &c1 = b.node("Conv", {"x", "w1"}, {"c1"});
        testing::set_ints(c1, "dilations", {1, 2});
        testing::set_ints(c1, "pads", {1, 2, 1, 2});
        auto &c2 = b.node("Conv", {"c1", "w2"}, {"c2"});
        testing::set_ints(c2, "dilations", {2, 3});
        auto &avg = b.node("AveragePool", {"c2"}, {"a"});
        testing::set_ints(avg, "kernel_shape", {3, 2});
        testing::set_ints(avg, "dilations", {2, 1});
        testing::set_ints(avg, "pads", {1, 0, 2, 1});
        testing::set_int(avg, "count_include_pad", count_include_pad);
        auto &mx = b.node("MaxPool", {"a"}, {"y"});
        testing::set_ints(mx, "kernel_shape", {2, 2});
        testing::set_ints(mx, "dilations", {1, 3});
        const Graph written = prepared(b);
        Graph g = written;
        prepare_graph(g);  // the convolutions' dilations made one, the pads a Pad
        for (const Node &n : g.nodes) {
            if (n.op_type == "Conv") EXPECT_EQ(n.get_ints("dilations", {1, 1}), (std::vector<int64_t>{1, 1}));
        }
        expect_matches_reference(g, plan_fusion(g, {4.0, true}), 46 + count_include_pad, &written);
        expect_matches_reference(g, plan_fusion(g, {4.0, false}), 48 + count_include_pad, &written);
    }
}

TEST(GraphLowering, CeilModePoolsAddTheLastWindow) {
    for (int count_include_pad : {0, 1}) {
        ModelBuilder b(13);
        b.input("x", {1, 4, 12, 13}).output("y");
        auto &max = b.node("MaxPool", {"x"}, {"m"});
        testing::set_ints(max, "kernel_shape", {3, 3});
        testing::set_ints(max, "strides", {2, 2});
        testing::set_int(max, "ceil_mode", 1);
        auto &avg = b.node("AveragePool", {"m"}, {"y"});
        testing::set_ints(avg, "kernel_shape", {3, 3});
        testing::set_ints(avg, "strides", {2, 2});
        testing::set_ints(avg, "pads", {1, 1, 1, 1});
        testing::set_int(avg, "ceil_mode", 1);
        testing::set_int(avg, "count_include_pad", count_include_pad);
        const Graph g = prepared(b);
        EXPECT_EQ(g.value("m").shape, (Shape{1, 4, 6, 6}));  // floor would give 5x6
        EXPECT_EQ(g.value("y").shape, (Shape{1, 4, 4, 4}));  // floor: 3x3
        expect_matches_reference(g, plan_fusion(g, {4.0, true}), 70 + count_include_pad);
        expect_matches_reference(g, plan_fusion(g, {4.0, false}), 72 + count_include_pad);
    }
}

TEST(GraphLowering, ConcatOfConvolutionsInOnePartition) {
    ModelBuilder b(13);
    b.input("x", {1, 8, 9, 11}).output("y");
    b.initializer("wa", weights({8, 8, 3, 3}, 61));
    b.initializer("wb", weights({8, 8, 1, 1}, 62));
    auto &a = b.node("Conv", {"x", "wa"}, {"a"}, "conv_a");
    testing::set_ints(a, "kernel_shape", {3, 3});
    testing::set_ints(a, "pads", {1, 1, 1, 1});
    testing::set_ints(b.node("Conv", {"x", "wb"}, {"bb"}, "conv_b"), "kernel_shape", {1, 1});
    testing::set_int(b.node("Concat", {"a", "bb"}, {"y"}), "axis", 1);
    const Graph g = prepared(b);
    // One partition for all three nodes: the memory-bound Concat joins its producers.
    const FusionPlan fused = plan_fusion(g, {1000.0, true});
    expect_matches_reference(g, fused, 63);
    expect_matches_reference(g, plan_fusion(g, {4.0, true}), 64);
    expect_matches_reference(g, plan_fusion(g, {4.0, false}), 65);
}

// Two branches from one input (a 3x3 and a 1x1), relus, a Concat of their channels, a
// 3x3 over it and a max pool: Concat computes in its inputs' layout (its axis moved),
// and where layouts meet, the values pass through NCHW.
ModelBuilder branches_and_concat() {
    ModelBuilder b(13);
    b.input("x", {1, 16, 9, 11}).output("y");
    b.initializer("wa", weights({16, 16, 3, 3}, 51));
    b.initializer("wb", weights({16, 16, 1, 1}, 52));
    b.initializer("wb_b", weights({16}, 53));
    b.initializer("wc", weights({8, 32, 3, 3}, 54));
    auto &a = b.node("Conv", {"x", "wa"}, {"a"}, "conv_a");
    testing::set_ints(a, "kernel_shape", {3, 3});
    testing::set_ints(a, "pads", {1, 1, 1, 1});
    testing::set_ints(b.node("Conv", {"x", "wb", "wb_b"}, {"bb"}, "conv_b"), "kernel_shape", {1, 1});
    b.node("Relu", {"a"}, {"ra"});
    b.node("Relu", {"bb"}, {"rb"});
    testing::set_int(b.node("Concat", {"ra", "rb"}, {"cat"}), "axis", 1);
    auto &c = b.node("Conv", {"cat", "wc"}, {"c"}, "conv_c");
    testing::set_ints(c, "kernel_shape", {3, 3});
    testing::set_ints(c, "pads", {1, 1, 1, 1});
    auto &pool = b.node("MaxPool", {"c"}, {"y"});
    testing::set_ints(pool, "kernel_shape", {3, 3});
    testing::set_ints(pool, "strides", {2, 2});
    testing::set_ints(pool, "pads", {1, 1, 1, 1});
    return b;
}

TEST(GraphLowering, ConcatComputesInItsInputsLayout) {
    const Graph original = prepared(branches_and_concat());
    for (Layout l : {Layout::blocked, Layout::nhwc}) {
        Graph g = original;
        const LayoutReport r =
            assign_layouts(g, preferring({{"conv_a", l}, {"conv_b", l}, {"conv_c", l}}, true, true));
        EXPECT_EQ(ops_in(g, l), (std::vector<std::string>{"Conv", "Conv", "Relu", "Relu", "Concat", "Conv", "MaxPool"}))
            << r.describe();
        EXPECT_EQ(r.conversions, 2) << r.describe();  // x in, y out
        for (const Node &n : g.nodes) {
            if (n.op_type == "Concat") EXPECT_EQ(n.get_int("axis", -1), l == Layout::nhwc ? 3 : 1);
        }
        expect_matches_reference(g, plan_fusion(g, {4.0, true}), 31, &original);
    }
    // Mixed: conv_a NHWC, conv_b blocked, conv_c NHWC: the Concat takes conv_a's
    // layout, conv_b's output reaches it through NCHW.
    Graph g = original;
    const LayoutReport r = assign_layouts(
        g, preferring({{"conv_a", Layout::nhwc}, {"conv_b", Layout::blocked}, {"conv_c", Layout::nhwc}}, true, true));
    EXPECT_EQ(ops_in(g, Layout::nhwc), (std::vector<std::string>{"Conv", "Relu", "Concat", "Conv", "MaxPool"}))
        << r.describe();
    EXPECT_EQ(ops_in(g, Layout::blocked), (std::vector<std::string>{"Conv", "Relu"})) << r.describe();
    expect_matches_reference(g, plan_fusion(g, {4.0, true}), 32, &original);
    expect_matches_reference(g, plan_fusion(g, {4.0, false}), 33, &original);
}

// An explicit Pad between two convolutions (H and W, asymmetric, a nonzero fill):
// it computes in their layout with its pads moved to the layout's axes; evaluated
// and compiled as written too.
TEST(GraphLowering, PadComputesInItsInputsLayout) {
    ModelBuilder b(13);
    b.input("x", {1, 16, 7, 9}).output("y");
    b.initializer("w1", weights({16, 16, 1, 1}, 71));
    b.initializer("w2", weights({16, 16, 3, 3}, 72));
    b.initializer("pads", TensorData::ints({8}, {0, 0, 1, 2, 0, 0, 2, 0}));
    b.initializer("fill", TensorData::floats({}, {0.5f}));
    testing::set_ints(b.node("Conv", {"x", "w1"}, {"c1"}, "conv_1"), "kernel_shape", {1, 1});
    b.node("Pad", {"c1", "pads", "fill"}, {"p"});
    testing::set_ints(b.node("Conv", {"p", "w2"}, {"c2"}, "conv_2"), "kernel_shape", {3, 3});
    b.node("Relu", {"c2"}, {"y"});
    const Graph original = prepared(b);
    EXPECT_EQ(original.value("p").shape, (Shape{1, 16, 10, 11}));
    expect_matches_reference(original, plan_fusion(original, {4.0, true}), 36);
    for (Layout l : {Layout::blocked, Layout::nhwc}) {
        Graph g = original;
        const LayoutReport r = assign_layouts(g, preferring({{"conv_1", l}, {"conv_2", l}}, true, true));
        EXPECT_EQ(ops_in(g, l), (std::vector<std::string>{"Conv", "Pad", "Conv", "Relu"})) << r.describe();
        for (const Node &n : g.nodes) {
            if (n.op_type != "Pad") continue;
            const std::vector<int64_t> pads = g.value(n.inputs[1]).data->as_ints();
            const std::vector<int64_t> want = l == Layout::nhwc ? std::vector<int64_t>{0, 1, 2, 0, 0, 2, 0, 0}
                                                                : std::vector<int64_t>{0, 0, 1, 2, 0, 0, 0, 2, 0, 0};
            EXPECT_EQ(pads, want);
        }
        expect_matches_reference(g, plan_fusion(g, {4.0, true}), 37, &original);
    }
    // Wrap padding before opset 19 is refused on import, naming the node.
    ModelBuilder wrap(13);
    wrap.input("x", {1, 2, 3, 3}).output("y");
    wrap.initializer("pads", TensorData::ints({8}, {0, 0, 1, 1, 0, 0, 1, 1}));
    testing::set_string(wrap.node("Pad", {"x", "pads"}, {"y"}, "wrapped"), "mode", "wrap");
    try {
        prepared(wrap);
        ADD_FAILURE() << "wrap padding was accepted at opset 13";
    } catch (const GraphError &e) {
        EXPECT_NE(std::string(e.what()).find("mode 'wrap' is not supported"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("wrapped"), std::string::npos) << e.what();
    }
}

// A candidate is charged the conversions its input needs: conv_c, predicted a hair
// faster in NHWC, stays in the blocked layout its input (the Concat) arrives in;
// with the conversions free it takes NHWC.
TEST(GraphLowering, LayoutChoiceCountsTheInputsConversions) {
    const Graph original = prepared(branches_and_concat());
    for (double gbs : {10.0, 1e12}) {
        Graph g = original;
        LayoutOptions o = preferring({{"conv_a", Layout::blocked}, {"conv_b", Layout::blocked}}, true, true);
        o.conversion_gbs = gbs;
        const auto preferred = o.predict_ms;
        o.predict_ms = [preferred](const Graph &graph, int node) {
            const Node &n = graph.nodes[size_t(node)];
            if (n.name != "conv_c") return preferred(graph, node);
            const Layout l = node_layout(n);
            return l == Layout::nhwc ? 1.0 : l == Layout::blocked ? 1.001 : 2.0;
        };
        const LayoutReport r = assign_layouts(g, o);
        ASSERT_EQ(r.predictions.size(), 3u) << r.describe();
        EXPECT_EQ(r.predictions[2].chosen, gbs < 100 ? Layout::blocked : Layout::nhwc) << r.describe();
        EXPECT_GT(r.predictions[2].conversion_ms[int(Layout::nhwc)], 0) << r.describe();
        EXPECT_EQ(r.predictions[2].conversion_ms[int(Layout::blocked)], 0) << r.describe();
    }
}

// A ResNet stem (7x7 stride 2, relu, 3x3 stride-2 max pool) in NHWC feeding a 1x1
// convolution in NCHW[8]c: the pool computes in NHWC, the value meets the blocked
// region through NCHW.
TEST(GraphLowering, NhwcStemFeedsABlockedConvolution) {
    ModelBuilder b(13);
    b.input("x", {1, 3, 30, 30}).output("y");
    b.initializer("w_stem", weights({16, 3, 7, 7}, 61));
    b.initializer("w_1x1", weights({16, 16, 1, 1}, 62));
    auto &stem = b.node("Conv", {"x", "w_stem"}, {"s"}, "stem");
    testing::set_ints(stem, "kernel_shape", {7, 7});
    testing::set_ints(stem, "strides", {2, 2});
    testing::set_ints(stem, "pads", {3, 3, 3, 3});
    b.node("Relu", {"s"}, {"r"});
    auto &pool = b.node("MaxPool", {"r"}, {"p"});
    testing::set_ints(pool, "kernel_shape", {3, 3});
    testing::set_ints(pool, "strides", {2, 2});
    testing::set_ints(pool, "pads", {1, 1, 1, 1});
    testing::set_ints(b.node("Conv", {"p", "w_1x1"}, {"c"}, "conv_1x1"), "kernel_shape", {1, 1});
    b.node("Relu", {"c"}, {"y"});
    const Graph original = prepared(b);
    Graph g = original;
    const LayoutReport r =
        assign_layouts(g, preferring({{"stem", Layout::nhwc}, {"conv_1x1", Layout::blocked}}, true, true));
    EXPECT_EQ(ops_in(g, Layout::nhwc), (std::vector<std::string>{"Conv", "Relu", "MaxPool"})) << r.describe();
    EXPECT_EQ(ops_in(g, Layout::blocked), (std::vector<std::string>{"Conv", "Relu"})) << r.describe();
    expect_matches_reference(g, plan_fusion(g, {4.0, false}), 35, &original);
    expect_matches_reference(g, plan_fusion(g, {4.0, true}), 34, &original);
}

// A MatMul of 3-D activations by a constant B (a transformer's projection): rows
// merged, B packed as panels no block divides (N=40, block 64) with a bias after it.
TEST(GraphLowering, PackedMatMulOverMergedRows) {
    ModelBuilder b(17);
    b.input("x", {2, 5, 12}).output("y");
    b.initializer("w", weights({12, 40}, 41));
    b.initializer("bias", weights({40}, 42));
    b.node("MatMul", {"x", "w"}, {"xw"});
    b.node("Add", {"xw", "bias"}, {"y"});
    const Graph original = prepared(b);
    Graph g = original;
    EXPECT_EQ(pack_weights(g), 1);
    expect_matches_reference(g, plan_fusion(g, {4.0, true}), 23, &original);
}

TEST(GraphLowering, InvertedResidualWithDepthwiseAndClip) {
    const Graph g = prepared(inverted_residual());
    const FusionPlan plan = plan_fusion(g, {4.0, true});
    // The depthwise convolution (2.2 FLOP/B) is memory-bound: its own kernel with its clip.
    EXPECT_EQ(partition_ops(g, plan), (std::vector<std::string>{"Conv+Clip", "Conv+Clip", "Conv+Add"}))
        << describe_plan(g, plan);
    EXPECT_FALSE(plan.partitions[1].compute_intensive) << describe_plan(g, plan);
    expect_matches_reference(g, plan, 3);
}

// One attention head pair as PyTorch exports it: projections, reshape to heads,
// transpose, scaled scores, softmax, weighted values, merge heads, exact GELU
// (Erf form), residual and LayerNormalization; plus Split, Slice, Concat, Gather.
TEST(GraphLowering, AttentionLayerInExportForm) {
    const int64_t s = 6, d = 8, heads = 2, hd = d / heads;
    ModelBuilder b(17);
    b.input("x", {1, s, d}).output("y").output("first");
    b.initializer("wqkv", weights({d, 3 * d}, 31));
    b.initializer("bqkv", weights({3 * d}, 32));
    b.initializer("split", TensorData::ints({3}, {d, d, d}));
    b.initializer("heads_shape", TensorData::ints({4}, {1, s, heads, hd}));
    b.initializer("merge_shape", TensorData::ints({3}, {1, s, d}));
    b.initializer("scale", TensorData::floats({}, {std::sqrt(float(hd))}));
    b.initializer("half", TensorData::floats({}, {0.5f}));
    b.initializer("one", TensorData::floats({}, {1.0f}));
    b.initializer("sqrt2", TensorData::floats({}, {std::sqrt(2.0f)}));
    b.initializer("gamma", weights({d}, 33, 1.0f));
    b.initializer("beta", weights({d}, 34));
    b.initializer("starts", TensorData::ints({1}, {0}));
    b.initializer("ends", TensorData::ints({1}, {1}));
    b.initializer("axes1", TensorData::ints({1}, {1}));
    b.initializer("index0", TensorData::ints({}, {0}));
    b.node("MatMul", {"x", "wqkv"}, {"qkv0"});
    b.node("Add", {"qkv0", "bqkv"}, {"qkv"});
    testing::set_int(b.node("Split", {"qkv", "split"}, {"q", "k", "v"}), "axis", 2);
    for (const char *t : {"q", "k", "v"}) {
        const std::string n = t;
        b.node("Reshape", {n, "heads_shape"}, {n + "h"});
        testing::set_ints(b.node("Transpose", {n + "h"}, {n + "t"}), "perm", n == "k" ? std::vector<int64_t>{0, 2, 3, 1}
                                                                                     : std::vector<int64_t>{0, 2, 1, 3});
    }
    b.node("MatMul", {"qt", "kt"}, {"scores0"});
    b.node("Div", {"scores0", "scale"}, {"scores"});
    testing::set_int(b.node("Softmax", {"scores"}, {"probs"}), "axis", -1);
    b.node("MatMul", {"probs", "vt"}, {"ctx"});
    testing::set_ints(b.node("Transpose", {"ctx"}, {"ctx_t"}), "perm", {0, 2, 1, 3});
    b.node("Reshape", {"ctx_t", "merge_shape"}, {"merged"});
    // GELU, Erf form: x * 0.5 * (1 + erf(x / sqrt 2))
    b.node("Div", {"merged", "sqrt2"}, {"g0"});
    b.node("Erf", {"g0"}, {"g1"});
    b.node("Add", {"g1", "one"}, {"g2"});
    b.node("Mul", {"merged", "g2"}, {"g3"});
    b.node("Mul", {"g3", "half"}, {"gelu"});
    b.node("Add", {"gelu", "x"}, {"res"});
    auto &ln = b.node("LayerNormalization", {"res", "gamma", "beta"}, {"normed"});
    testing::set_int(ln, "axis", -1);
    testing::set_int(b.node("Concat", {"normed", "x"}, {"both"}), "axis", 1);
    b.node("Slice", {"both", "starts", "ends", "axes1"}, {"first_row"});
    testing::set_int(b.node("Gather", {"first_row", "index0"}, {"first"}), "axis", 1);
    b.node("Identity", {"normed"}, {"y"});
    const Graph g = prepared(b);
    const FusionPlan plan = plan_fusion(g, {4.0, true});
    SCOPED_TRACE(describe_plan(g, plan));
    // The Erf form became one Gelu, the Split three Slices.
    int gelus = 0, slices = 0;
    for (const Node &n : g.nodes) {
        gelus += n.op_type == "Gelu";
        slices += n.op_type == "Slice";
        EXPECT_NE(n.op_type, "Erf");
    }
    EXPECT_EQ(gelus, 1);
    EXPECT_EQ(slices, 4);
    expect_matches_reference(g, plan, 4);
    expect_matches_reference(g, plan_fusion(g, {4.0, false}), 5);
}

// Scalars enter the library's builders as [1] Funcs: the rules see them with shape [1]
// (a Gemm's scalar C, broadcast), and a scalar result is a scalar again for its
// consumers in the partition; a scalar partition output is a 0-D buffer.
TEST(GraphLowering, ScalarValuesKeepTheirRank) {
    ModelBuilder b(13);
    b.input("s", {}).input("a", {2, 3}).output("y");
    b.initializer("w", weights({3, 4}, 51));
    b.initializer("c", TensorData::floats({}, {0.25f}));
    b.node("Relu", {"s"}, {"rs"});
    b.node("Neg", {"rs"}, {"ns"});
    b.node("Gemm", {"a", "w", "c"}, {"g"});
    b.node("Mul", {"ns", "g"}, {"y"});
    const Graph g = prepared(b);
    const FusionPlan plan = plan_fusion(g, {4.0, true});
    EXPECT_EQ(partition_ops(g, plan), (std::vector<std::string>{"Relu+Neg+Gemm+Mul"})) << describe_plan(g, plan);
    expect_matches_reference(g, plan, 6);
    // Unfused, 'rs' and 'ns' are scalar partition outputs (computed at root by the plugin).
    expect_matches_reference(g, plan_fusion(g, {4.0, false}), 7);
}

// LayerNorm as exporters decompose it before opset 17 becomes one LayerNormalization.
TEST(GraphLowering, DecomposedLayerNormBecomesOneOp) {
    ModelBuilder b(13);
    b.input("x", {2, 5, 12}).output("y");
    b.initializer("two", TensorData::floats({}, {2.0f}));
    b.initializer("eps", TensorData::floats({}, {1e-5f}));
    b.initializer("gamma", weights({12}, 61, 1.0f));
    b.initializer("beta", weights({12}, 62));
    testing::set_ints(b.node("ReduceMean", {"x"}, {"mean"}), "axes", {-1});
    b.node("Sub", {"x", "mean"}, {"d"});
    b.node("Pow", {"d", "two"}, {"d2"});
    testing::set_ints(b.node("ReduceMean", {"d2"}, {"var"}), "axes", {-1});
    b.node("Add", {"var", "eps"}, {"var_eps"});
    b.node("Sqrt", {"var_eps"}, {"std"});
    b.node("Div", {"d", "std"}, {"n"});
    b.node("Mul", {"n", "gamma"}, {"scaled"});
    b.node("Add", {"scaled", "beta"}, {"y"});
    const Graph g = prepared(b);
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].op_type, "LayerNormalization");
    expect_matches_reference(g, plan_fusion(g, {4.0, true}), 8);
}

// A pointwise producer only a compute-intensive node reads joins it as a prologue:
// the sequence-first transpose PyTorch puts before an attention's projection.
TEST(GraphLowering, PointwisePrologueJoinsItsComputeIntensiveReader) {
    ModelBuilder b(13);
    b.input("x", {1, 48, 64}).output("y");
    b.initializer("w", weights({64, 96}, 71));
    b.initializer("half", TensorData::floats({}, {0.5f}));
    testing::set_ints(b.node("Transpose", {"x"}, {"xt"}), "perm", {1, 0, 2});
    b.node("Mul", {"xt", "half"}, {"xs"});
    b.node("MatMul", {"xs", "w"}, {"y"});
    const Graph g = prepared(b);
    const FusionPlan plan = plan_fusion(g, {4.0, true});
    EXPECT_EQ(partition_ops(g, plan), (std::vector<std::string>{"Transpose+Mul+MatMul"})) << describe_plan(g, plan);
    expect_matches_reference(g, plan, 9);
}

// A memory-bound region whose inner values fan out is one kernel: d is read by the
// square and by the division, both inside (a normalisation without sqrt, which the
// LayerNorm rewrite leaves alone).
TEST(GraphLowering, FanOutInsideAMemoryBoundRegionIsOneKernel) {
    ModelBuilder b(13);
    b.input("x", {6, 40}).output("y");
    b.initializer("eps", TensorData::floats({}, {0.5f}));
    testing::set_ints(b.node("ReduceMean", {"x"}, {"m"}), "axes", {-1});
    b.node("Sub", {"x", "m"}, {"d"});
    b.node("Mul", {"d", "d"}, {"d2"});
    testing::set_ints(b.node("ReduceMean", {"d2"}, {"v"}), "axes", {-1});
    b.node("Add", {"v", "eps"}, {"ve"});
    b.node("Div", {"d", "ve"}, {"y"});
    const Graph g = prepared(b);
    const FusionPlan plan = plan_fusion(g, {4.0, true});
    EXPECT_EQ(partition_ops(g, plan), (std::vector<std::string>{"ReduceMean+Sub+Mul+ReduceMean+Add+Div"}))
        << describe_plan(g, plan);
    expect_matches_reference(g, plan, 10);
}

// Attention as PyTorch exports it: Q·Kᵀ / sqrt(d) + mask, softmax, ·V (3-D:
// heads x sequence x features), then a projection. The two products and the
// stages between them go to one partition (plan_chains), the projection stays
// apart (a chain holds two products). Computed by the plugin, whose chain
// analysis fuses or not, it matches the reference.
TEST(GraphLowering, AttentionChainIsOnePartition) {
    ModelBuilder b(13);
    b.input("q", {4, 24, 16}).input("k", {4, 16, 24}).input("v", {4, 24, 8}).output("y");
    b.initializer("scale", TensorData::floats({}, {4.0f}));
    b.initializer("mask", weights({24, 24}, 41, 1.0f));
    b.initializer("proj", weights({8, 8}, 42));
    b.node("MatMul", {"q", "k"}, {"scores"});
    b.node("Div", {"scores", "scale"}, {"scaled"});
    b.node("Add", {"scaled", "mask"}, {"masked"});
    testing::set_int(b.node("Softmax", {"masked"}, {"probs"}), "axis", -1);
    b.node("MatMul", {"probs", "v"}, {"context"});
    b.node("MatMul", {"context", "proj"}, {"y"});
    const Graph g = prepared(b);
    const FusionPlan fused = plan_fusion(g, {4.0, true});
    const FusionPlan chained = plan_chains(g, fused);
    const std::vector<std::string> ops = partition_ops(g, chained);
    ASSERT_EQ(ops.size(), fused.partitions.size() - 1) << describe_plan(g, chained);
    EXPECT_EQ(ops[0], "MatMul+Div+Add+Softmax+MatMul") << describe_plan(g, chained);
    EXPECT_TRUE(chained.partitions[0].chain);
    EXPECT_EQ(chained.partitions[0].name.substr(0, 3), "p0_");
    EXPECT_NE(describe_plan(g, chained).find(" chain "), std::string::npos);
    expect_matches_reference(g, chained, 43);
    // A product whose output is also read elsewhere (here: the graph's output)
    // is no chain.
    ModelBuilder two(13);
    two.input("a", {16, 16}).input("b", {16, 16}).output("ab").output("abb");
    two.node("MatMul", {"a", "b"}, {"ab"});
    two.node("MatMul", {"ab", "b"}, {"abb"});
    const Graph g2 = prepared(two);
    EXPECT_EQ(plan_chains(g2, plan_fusion(g2, {4.0, true})).partitions.size(), 2u);
}

// Windows the op library takes only after graph/passes/uniform_windows: uneven pads
// (a Pad before the window) and 1-D convolutions and pools (lifted to k x 1), compiled
// and checked against the model as written.
TEST(GraphLowering, UnevenAndOneDimensionalWindowsCompileAfterUniformWindows) {
    ModelBuilder lopsided(13);
    lopsided.input("x", {1, 2, 8, 8}).output("y");
    lopsided.initializer("w", weights({3, 2, 3, 3}, 41));
    auto &conv = lopsided.node("Conv", {"x", "w"}, {"c"}, "lopsided");
    testing::set_ints(conv, "kernel_shape", {3, 3});
    testing::set_ints(conv, "pads", {0, 0, 1, 1});
    lopsided.node("Relu", {"c"}, {"y"});

    ModelBuilder audio(13);
    audio.input("x", {2, 4, 37}).output("y");
    audio.initializer("w", weights({6, 4, 5}, 42)).initializer("b", weights({6}, 43));
    auto &conv1d = audio.node("Conv", {"x", "w", "b"}, {"c"}, "conv1d");
    testing::set_ints(conv1d, "pads", {2, 1});
    testing::set_ints(conv1d, "strides", {2});
    audio.node("Relu", {"c"}, {"r"});
    auto &pool = audio.node("MaxPool", {"r"}, {"y"}, "pool1d");
    testing::set_ints(pool, "kernel_shape", {3});
    testing::set_ints(pool, "pads", {1, 1});
    testing::set_ints(pool, "strides", {2});

    // Strides that differ between the axes: computed at their gcd, every few kept.
    ModelBuilder strided(13);
    strided.input("x", {1, 3, 11, 10}).output("y");
    strided.initializer("w", weights({4, 3, 3, 3}, 44));
    auto &tall = strided.node("Conv", {"x", "w"}, {"c"}, "strided_conv");
    testing::set_ints(tall, "pads", {1, 1, 1, 1});
    testing::set_ints(tall, "strides", {2, 1});
    auto &wide = strided.node("AveragePool", {"c"}, {"y"}, "strided_pool");
    testing::set_ints(wide, "kernel_shape", {2, 3});
    testing::set_ints(wide, "pads", {0, 1, 1, 1});
    testing::set_ints(wide, "strides", {1, 3});

    for (const ModelBuilder *b : {&lopsided, &audio, &strided}) {
        const Graph written = prepared(*b);
        Graph g = written;
        const UniformWindowCounts counts = uniform_windows(g);
        EXPECT_GE(counts.padded + counts.strided, 1);
        expect_matches_reference(g, plan_fusion(g, {4.0, true}), 51, &written);
    }
}

// A ConvTranspose (stride 2, uneven pads, output_padding, groups; and a 1-D one) runs as
// the Conv it equals (graph/passes/conv_transpose_as_conv) and matches the model as written.
TEST(GraphLowering, ConvTransposeRunsAsAConvolution) {
    ModelBuilder up(13);
    up.input("x", {1, 4, 5, 6}).output("y");
    up.initializer("w", weights({4, 3, 3, 3}, 61)).initializer("b", weights({6}, 62));
    auto &t = up.node("ConvTranspose", {"x", "w", "b"}, {"t"}, "up");
    testing::set_ints(t, "strides", {2, 2});
    testing::set_ints(t, "pads", {1, 0, 0, 1});
    testing::set_ints(t, "output_padding", {1, 0});
    testing::set_int(t, "group", 2);
    up.node("Relu", {"t"}, {"y"});

    ModelBuilder audio(13);
    audio.input("x", {2, 3, 9}).output("y");
    audio.initializer("w", weights({3, 5, 4}, 63));
    auto &t1 = audio.node("ConvTranspose", {"x", "w"}, {"y"}, "up1d");
    testing::set_ints(t1, "strides", {3});
    testing::set_ints(t1, "dilations", {2});

    for (const ModelBuilder *b : {&up, &audio}) {
        const Graph written = prepared(*b);
        Graph g = written;
        EXPECT_EQ(conv_transpose_as_conv(g), 1);
        uniform_windows(g);
        for (const Node &n : g.nodes) EXPECT_NE(n.op_type, "ConvTranspose");
        expect_matches_reference(g, plan_fusion(g, {4.0, true}), 71, &written);
    }
}

// The same with weights computed at run time (the swap and flip are nodes), and a
// 3-D one without strides (then a 3-D Conv, through windows_3d_as_2d).
TEST(GraphLowering, ConvTransposeWithRunTimeWeightsAndThreeAxesRunsAsAConvolution) {
    ModelBuilder runtime(13);
    runtime.input("x", {1, 4, 5, 6}).input("w", {4, 3, 3, 2}).output("y");
    auto &t = runtime.node("ConvTranspose", {"x", "w"}, {"y"}, "up");
    testing::set_ints(t, "strides", {2, 1});
    testing::set_ints(t, "pads", {1, 0, 0, 1});
    testing::set_int(t, "group", 2);

    ModelBuilder volume(13);
    volume.input("x", {1, 2, 3, 4, 5}).output("y");
    volume.initializer("w", weights({2, 3, 2, 3, 2}, 64));
    testing::set_ints(volume.node("ConvTranspose", {"x", "w"}, {"y"}, "up3d"), "pads", {0, 1, 0, 1, 0, 1});

    for (const ModelBuilder *b : {&runtime, &volume}) {
        const Graph written = prepared(*b);
        Graph g = written;
        prepare_graph(g);
        for (const Node &n : g.nodes) EXPECT_NE(n.op_type, "ConvTranspose");
        expect_matches_reference(g, plan_fusion(g, {4.0, true}), 72, &written);
    }
}

// 3-D convolutions and pools through windows_3d_as_2d, compiled (the pass itself is
// checked against the evaluator in the passes' tests).
TEST(GraphLowering, ThreeDimensionalWindowsCompileAsTwoDimensionalOnes) {
    ModelBuilder b(13);
    b.input("x", {1, 4, 6, 7, 5}).output("y");
    b.initializer("w", weights({6, 2, 3, 3, 2}, 65)).initializer("bias", weights({6}, 66));
    auto &conv = b.node("Conv", {"x", "w", "bias"}, {"c"}, "conv3d");
    testing::set_ints(conv, "pads", {1, 1, 0, 1, 1, 1});
    testing::set_ints(conv, "strides", {2, 1, 1});
    testing::set_int(conv, "group", 2);
    b.node("Relu", {"c"}, {"r"});
    auto &pool = b.node("MaxPool", {"r"}, {"p"}, "pool3d");
    testing::set_ints(pool, "kernel_shape", {2, 2, 2});
    testing::set_ints(pool, "strides", {1, 2, 2});
    auto &avg = b.node("AveragePool", {"p"}, {"y"}, "avg3d");
    testing::set_ints(avg, "kernel_shape", {2, 3, 1});
    testing::set_ints(avg, "pads", {0, 1, 0, 0, 1, 0});
    testing::set_int(avg, "count_include_pad", 1);
    const Graph written = prepared(b);
    Graph g = written;
    prepare_graph(g);
    for (const Node &n : g.nodes) {
        if (!n.inputs.empty()) EXPECT_LE(g.value(n.inputs[0]).shape.size(), 5u);
        if (n.op_type == "Conv" || n.op_type == "MaxPool" || n.op_type == "AveragePool")
            EXPECT_EQ(g.value(n.inputs[0]).shape.size(), 4u) << n.op_type;
    }
    expect_matches_reference(g, plan_fusion(g, {4.0, true}), 73, &written);
    expect_matches_reference(g, plan_fusion(g, {4.0, false}), 74, &written);
}

// A node with an omitted optional input (Resize's roi, "") after a convolution given a
// layout: the layouts read only the inputs it has (the empty name once threw "graph has
// no value named ''"; found by the random graphs).
TEST(GraphLowering, LayoutsSkipOmittedOptionalInputs) {
    ModelBuilder b(13);
    b.input("x", {1, 8, 6, 5}).output("y");
    b.initializer("w", weights({8, 8, 3, 3}, 67));
    b.initializer("no_scales", TensorData::floats({0}, {}));
    b.initializer("sizes", TensorData::ints({4}, {1, 8, 12, 9}));
    testing::set_ints(b.node("Conv", {"x", "w"}, {"c"}, "conv_r"), "pads", {1, 1, 1, 1});
    b.node("Relu", {"c"}, {"r"});
    testing::set_string(b.node("Resize", {"r", "", "no_scales", "sizes"}, {"y"}, "up"), "mode", "linear");
    const Graph original = prepared(b);
    for (Layout l : {Layout::nhwc, Layout::blocked}) {
        Graph g = original;
        const LayoutReport r = assign_layouts(g, preferring({{"conv_r", l}}, true, true));
        EXPECT_GE(r.nhwc_nodes + r.blocked_nodes, 1) << r.describe();
        expect_matches_reference(g, plan_fusion(g, {4.0, true}), 76, &original);
    }
}

// ScatterND with constant indices: rows and single elements of run-time data replaced
// by run-time updates, a repeated index's last write winning.
TEST(GraphLowering, ScatterNdWithConstantIndicesMatchesTheEvaluator) {
    ModelBuilder rows(13);
    rows.input("x", {5, 3, 4}).input("u", {3, 3, 4}).output("y");
    rows.initializer("at", TensorData::ints({3, 1}, {4, 0, 4}));
    rows.node("ScatterND", {"x", "at", "u"}, {"y"}, "rows");
    ModelBuilder points(13);
    points.input("x", {5, 3, 4}).input("u", {2}).output("y");
    points.initializer("at", TensorData::ints({2, 3}, {1, 2, 3, -1, 0, 0}));
    points.node("ScatterND", {"x", "at", "u"}, {"y"}, "points");
    for (const ModelBuilder *b : {&rows, &points}) {
        const Graph g = prepared(*b);
        expect_matches_reference(g, plan_fusion(g, {4.0, true}), 77);
    }
}

// GridSample in every mode, padding and corner alignment, the grid reaching past
// [-1, 1] (ONNX's node tests check the evaluator on a few of these).
TEST(GraphLowering, GridSampleMatchesTheEvaluator) {
    for (const char *mode : {"bilinear", "nearest", "bicubic"})
        for (const char *padding : {"zeros", "border", "reflection"})
            for (int64_t align : {0, 1}) {
                ModelBuilder b(16);
                b.input("x", {2, 3, 5, 6}).input("grid", {2, 4, 7, 2}).output("y");
                auto &n = b.node("GridSample", {"x", "grid"}, {"y"}, "sampled");
                testing::set_string(n, "mode", mode);
                testing::set_string(n, "padding_mode", padding);
                testing::set_int(n, "align_corners", align);
                const Graph g = prepared(b);
                SCOPED_TRACE(std::string(mode) + " " + padding + " align_corners=" + std::to_string(align));
                const TensorMap in{{"x", testing::random_floats({2, 3, 5, 6}, 81, -2, 2)},
                                   {"grid", testing::random_floats({2, 4, 7, 2}, 82, -1.3f, 1.3f)}};
                Halide::load_plugin(TESSERA_PLUGIN_PATH);
                JitModel model(g, plan_fusion(g, {4.0, true}), schedule_with_tessera, tessera::hal::host_target());
                const TensorData got = model.run(in).at("y"), want = evaluate(g, in).at("y");
                EXPECT_LE(testing::relative_error(got, want), kTolerance);
            }
}

// Pad's edge, reflect and wrap (opset 19) modes: each output element read from the
// input element the mode maps it to.
TEST(GraphLowering, PadModesMatchTheEvaluator) {
    for (const char *mode : {"edge", "reflect", "wrap"}) {
        ModelBuilder b(19);
        b.input("x", {2, 3, 5, 4}).output("y");
        b.initializer("pads", TensorData::ints({8}, {0, 1, 2, 3, 0, 0, 4, 1}));
        testing::set_string(b.node("Pad", {"x", "pads"}, {"p"}, "padded"), "mode", mode);
        b.node("Relu", {"p"}, {"y"});
        const Graph g = prepared(b);
        SCOPED_TRACE(mode);
        expect_matches_reference(g, plan_fusion(g, {4.0, true}), 75);
    }
}

// Resize (linear, nearest and cubic, scales and sizes, three coordinate transformations) and
// Einsum (batched products and a permutation, through graph/passes/einsum_as_matmul and
// the library's batch_matmul) against the evaluator, whose Resize and Einsum ONNX's
// node tests check.
TEST(GraphLowering, ResizeAndEinsumMatchTheEvaluator) {
    ModelBuilder resize(13);
    resize.input("x", {1, 3, 5, 7}).output("up").output("near").output("corners").output("cubic").output("outside");
    resize.initializer("scales", TensorData::floats({4}, {1, 1, 2, 1.5f}));
    resize.initializer("sizes", TensorData::ints({4}, {1, 3, 3, 11}));
    resize.initializer("no_scales", TensorData::floats({0}, {}));
    testing::set_string(resize.node("Resize", {"x", "", "scales"}, {"up"}, "linear"), "mode", "linear");
    auto &near = resize.node("Resize", {"x", "", "no_scales", "sizes"}, {"near"}, "nearest");
    testing::set_string(near, "coordinate_transformation_mode", "asymmetric");
    testing::set_string(near, "nearest_mode", "floor");
    auto &corners = resize.node("Resize", {"x", "", "no_scales", "sizes"}, {"corners"}, "corners");
    testing::set_string(corners, "mode", "linear");
    testing::set_string(corners, "coordinate_transformation_mode", "align_corners");
    testing::set_string(resize.node("Resize", {"x", "", "scales"}, {"cubic"}, "cubic"), "mode", "cubic");
    auto &outside = resize.node("Resize", {"x", "", "no_scales", "sizes"}, {"outside"}, "cubic_excluding_outside");
    testing::set_string(outside, "mode", "cubic");
    testing::set_int(outside, "exclude_outside", 1);
    testing::set_float(outside, "cubic_coeff_a", -0.5f);

    ModelBuilder einsum(13);
    einsum.input("a", {2, 3, 4}).input("b", {2, 4, 5}).input("q", {2, 3, 4, 6}).input("k", {2, 3, 5, 6});
    einsum.output("ab").output("qk").output("t");
    testing::set_string(einsum.node("Einsum", {"a", "b"}, {"ab"}, "batched"), "equation", "bij,bjk->bik");
    testing::set_string(einsum.node("Einsum", {"q", "k"}, {"qk"}, "scores"), "equation", "bhid,bhjd->bhij");
    testing::set_string(einsum.node("Einsum", {"q"}, {"t"}, "permute"), "equation", "bhid->bdhi");

    for (const ModelBuilder *b : {&resize, &einsum}) {
        Graph g = import_onnx_bytes(b->bytes(), "test model");
        prepare_graph(g);
        for (const Node &n : g.nodes) EXPECT_NE(n.op_type, "Einsum");
        expect_matches_reference(g, plan_fusion(g, {4.0, true}), 81);
    }
}

// A matrix product read through window-to-image reshapes (MaxViT's departition), end to
// end: computed at root with row tiles that overrun its 3136 rows. The heap corruption
// this partition once caused need not show as a wrong value here; the padded storage
// itself is asserted by TesseraDecisions.AProductComputedAtRootIsStoredInWholeTiles.
TEST(GraphLowering, AMatrixProductWhoseTilesOverrunItsRowsStaysInItsStorage) {
    ModelBuilder b(13);
    b.input("x", {1, 64, 49, 256}).output("y");
    b.initializer("w", weights({256, 64}, 91));
    b.initializer("windows", TensorData::ints({6}, {1, 7, 7, 8, 8, 64}));
    b.initializer("image", TensorData::ints({4}, {1, 64, 56, 56}));
    b.node("MatMul", {"x", "w"}, {"m"});
    testing::set_ints(b.node("Transpose", {"m"}, {"t"}), "perm", {0, 2, 1, 3});
    b.node("Reshape", {"t", "windows"}, {"r"});
    testing::set_ints(b.node("Transpose", {"r"}, {"t2"}), "perm", {0, 5, 1, 3, 2, 4});
    b.node("Reshape", {"t2", "image"}, {"y"});
    const Graph g = prepared(b);
    expect_matches_reference(g, plan_fusion(g, {4.0, true}), 92);
}

// A reshape after a matrix product joins the product's readers, not the product: read
// through a reshape the product is no longer computed per tile of an epilogue, and a
// prime row count (ViT's 197 tokens) then left it one-row tiles (13x slower).
TEST(GraphLowering, AReshapeAfterAProductJoinsItsReaders) {
    ModelBuilder b(13);
    b.input("x", {197, 64}).input("residual", {197, 1, 48}).output("y");
    b.initializer("w", weights({48, 64}, 68)).initializer("bias", weights({48}, 69));
    b.initializer("shape", TensorData::ints({3}, {197, 1, 48}));
    testing::set_int(b.node("Gemm", {"x", "w", "bias"}, {"g"}, "out_proj"), "transB", 1);
    b.node("Reshape", {"g", "shape"}, {"r"});
    b.node("Add", {"r", "residual"}, {"y"});
    const Graph g = prepared(b);
    const FusionPlan plan = plan_fusion(g, {4.0, true});
    EXPECT_EQ(partition_ops(g, plan), (std::vector<std::string>{"Gemm", "Reshape+Add"}));
    expect_matches_reference(g, plan, 94);
}

// A row reduction whose reader needs one point of it per iteration of its row loop
// (ReduceMean with keepdims: the sums [24] read as [24, 1]): the reduction's vector
// blocks once spanned all 24 rows per point and read input row 46 of 24 (a bounds
// error here, NaN with checks off).
TEST(GraphLowering, AReductionReadOnePointPerRowReadsOnlyItsRows) {
    for (int64_t rows : {24, 40, 7}) {
        ModelBuilder b(13);
        b.input("x", {rows, 5}).output("y");
        testing::set_ints(b.node("ReduceMean", {"x"}, {"y"}), "axes", {1});
        const Graph g = prepared(b);
        expect_matches_reference(g, plan_fusion(g, {4.0, true}), 93);
    }
}

TEST(GraphLowering, FormsTheOpLibraryLacksNameTheNode) {
    ModelBuilder b(13);
    b.input("x", {1, 2, 8, 8}).input("w", {2, 2, 3, 3}).output("y");
    auto &conv = b.node("Conv", {"x", "w"}, {"y"}, "lopsided");
    testing::set_ints(conv, "kernel_shape", {3, 3});
    // Dilations that differ between axes on weights computed at run time (constant
    // ones are inflated with zero taps to one dilation).
    testing::set_ints(conv, "dilations", {2, 1});
    Graph g = prepared(b);
    uniform_windows(g);
    const FusionPlan plan = plan_fusion(g, {4.0, true});
    try {
        JitModel model(g, plan, schedule_with_tessera, tessera::hal::host_target());
        FAIL() << "expected a GraphError";
    } catch (const GraphError &e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("node 'lopsided'"), std::string::npos) << message;
        EXPECT_NE(message.find("one pad, stride and dilation"), std::string::npos) << message;
    }
}

}  // namespace
}  // namespace tessera::graph
