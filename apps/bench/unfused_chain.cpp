#include "unfused_chain.h"

#include "op_params.h"

#include <stdexcept>

namespace tessera::bench {

namespace {

ops::OpConfig op_line(const std::string &op, const std::vector<std::pair<std::string, std::string>> &keys) {
    ops::OpConfig c;
    c.op = op;
    for (const auto &kv : keys) c.set(kv.first, kv.second);
    return c;
}

std::string str(int64_t v) {
    return std::to_string(v);
}

StageSource input(int i) {
    return {StageSource::Input, i};
}

// Appends a stage reading `sources` and returns the source of its output.
StageSource add(UnfusedPlan &plan, ops::OpConfig config, std::vector<StageSource> sources) {
    plan.stages.push_back({std::move(config), std::move(sources)});
    return {StageSource::Stage, int(plan.stages.size()) - 1};
}

// x times a scalar held in a [1] constant.
StageSource scaled(UnfusedPlan &plan, StageSource x, const ops::Shape &shape, double scale) {
    Tensor factor({1});
    factor.data[0] = float(scale);
    plan.constants.push_back(std::move(factor));
    const StageSource constant{StageSource::Constant, int(plan.constants.size()) - 1};
    return add(plan, op_line("mul", {{"shape_a", ops::shape_to_string(shape)}, {"shape_b", "1"}}), {x, constant});
}

ops::OpConfig batch_matmul(int64_t b, int64_t m, int64_t n, int64_t k, bool trans_b = false) {
    ops::OpConfig c = op_line("batch_matmul", {{"B", str(b)}, {"M", str(m)}, {"N", str(n)}, {"K", str(k)}});
    if (trans_b) c.set("trans_b", "1");
    return c;
}

ops::OpConfig conv2d(const ops::ConvParams &p) {
    return op_line("conv2d", {{"n", str(p.n)}, {"c", str(p.c)}, {"h", str(p.h)}, {"w", str(p.w)}, {"oc", str(p.oc)},
                              {"kh", str(p.kh)}, {"kw", str(p.kw)}, {"stride", str(p.stride)}, {"pad", str(p.pad)},
                              {"layout", p.nhwc ? "nhwc" : "nchw"}});
}

// conv + bias_add, the conv's output and bias as `bias`.
StageSource conv_with_bias(UnfusedPlan &plan, const ops::ConvParams &p, StageSource x, int weights, int bias) {
    const ops::Shape shape = p.nhwc ? ops::Shape{p.n, p.oh, p.ow, p.oc} : ops::Shape{p.n, p.oc, p.oh, p.ow};
    StageSource conv = add(plan, conv2d(p), {x, input(weights)});
    return add(plan,
               op_line("bias_add", {{"shape", ops::shape_to_string(shape)}, {"axis", p.nhwc ? "-1" : "1"}}),
               {conv, input(bias)});
}

UnfusedPlan attention_plan(const ops::AttentionParams &p) {
    UnfusedPlan plan;
    const ops::Shape scores{p.batch, p.m, p.l};
    const std::string shape = ops::shape_to_string(scores);
    StageSource x = add(plan, batch_matmul(p.batch, p.m, p.l, p.k, true), {input(0), input(1)});
    if (p.scale != 1.0) x = scaled(plan, x, scores, p.scale);
    if (p.mask) x = add(plan, op_line("add", {{"shape_a", shape}, {"shape_b", shape}}), {x, input(3)});
    x = add(plan, op_line("softmax", {{"shape", shape}, {"axis", "-1"}}), {x});
    add(plan, batch_matmul(p.batch, p.m, p.n, p.l), {x, input(2)});
    return plan;
}

UnfusedPlan gemm_chain_plan(const ops::GemmChainParams &p) {
    UnfusedPlan plan;
    const ops::Shape first{p.batch, p.m, p.l};
    StageSource x = add(plan, batch_matmul(p.batch, p.m, p.l, p.k), {input(0), input(1)});
    switch (p.between) {
    case ops::ChainBetween::None: break;
    case ops::ChainBetween::Relu:
    case ops::ChainBetween::Gelu:
        x = add(plan,
                op_line(p.between == ops::ChainBetween::Relu ? "relu" : "gelu",
                        {{"shape", ops::shape_to_string(first)}}),
                {x});
        break;
    case ops::ChainBetween::Scale: x = scaled(plan, x, first, p.scale); break;
    }
    add(plan, batch_matmul(p.batch, p.m, p.n, p.l), {x, input(2)});
    return plan;
}

UnfusedPlan conv_chain_plan(const ops::ConvChainParams &p) {
    UnfusedPlan plan;
    const ops::ConvParams first = p.first();
    const ops::Shape mid = p.nhwc ? ops::Shape{p.n, p.h1, p.w1, p.oc1} : ops::Shape{p.n, p.oc1, p.h1, p.w1};
    // Inputs: input, w1, b1, w2, b2.
    StageSource x = conv_with_bias(plan, first, input(0), 1, 2);
    x = add(plan, op_line("relu", {{"shape", ops::shape_to_string(mid)}}), {x});
    conv_with_bias(plan, p.second(), x, 3, 4);
    return plan;
}

}  // namespace

bool is_chain_op(const std::string &op) {
    return op == "attention" || op == "gemm_chain" || op == "conv_chain";
}

UnfusedPlan unfused_plan(const ops::OpConfig &config) {
    if (config.op == "attention") return attention_plan(ops::parse_attention(config));
    if (config.op == "gemm_chain") return gemm_chain_plan(ops::parse_gemm_chain(config));
    if (config.op == "conv_chain") return conv_chain_plan(ops::parse_conv_chain(config));
    throw std::invalid_argument(config.op + " is not a chain op (attention, gemm_chain, conv_chain)");
}

UnfusedChain::UnfusedChain(const ops::OpConfig &config, const SchedulerChoice &scheduler) : scheduler_(scheduler.name) {
    UnfusedPlan plan = unfused_plan(config);
    constants_ = std::move(plan.constants);
    for (UnfusedStage &s : plan.stages) {
        Stage stage;
        stage.op = std::make_unique<JitOp>(s.config, scheduler);
        stage.sources = s.sources;
        if (&s != &plan.stages.back()) stage.out = Tensor(stage.op->signature().output.shape);
        schedule_ms_ += stage.op->schedule_ms();
        compile_ms_ += stage.op->compile_ms();
        stages_.push_back(std::move(stage));
    }
}

std::string UnfusedChain::impl() const {
    std::string ops;
    for (const Stage &s : stages_) ops += (ops.empty() ? "" : ", ") + s.op->config().op;
    return scheduler_ + " per stage: " + ops;
}

void UnfusedChain::run(std::vector<Tensor> &inputs, Tensor &output, graph::JitThreadPool *pool) {
    for (size_t i = 0; i < stages_.size(); i++) {
        Stage &st = stages_[i];
        std::vector<Tensor *> sources;
        for (const StageSource &s : st.sources) {
            sources.push_back(s.kind == StageSource::Input   ? &inputs[size_t(s.index)]
                              : s.kind == StageSource::Stage ? &stages_[size_t(s.index)].out
                                                             : &constants_[size_t(s.index)]);
        }
        Tensor &dst = i + 1 == stages_.size() ? output : st.out;
        with_lent_tensors(sources, st.args, [&](std::vector<Tensor> &args) { st.op->run(args, dst, pool); });
    }
}

}  // namespace tessera::bench
