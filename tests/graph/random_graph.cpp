#include "random_graph.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace tessera::graph::testing {

namespace {

struct Value {
    std::string name;
    Shape shape;  // NCHW
};

class Generator {
public:
    Generator(uint64_t seed, RandomGraph &g) : rng_(seed), g_(g) {}

    int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
    bool coin(double p = 0.5) { return std::bernoulli_distribution(p)(rng_); }

    const Value &any() { return values_[size_t(pick(0, int(values_.size()) - 1))]; }
    // Prefer recent values: chains grow deeper, earlier values still fan out.
    const Value &recent() { return values_[size_t(std::max(0, int(values_.size()) - 1 - pick(0, 2)))]; }

    std::string fresh(const std::string &prefix) { return prefix + std::to_string(counter_++); }

    void add(const std::string &line, const Value &v) {
        values_.push_back(v);
        g_.values.push_back(v.name);
        g_.nodes.push_back(line + " -> " + shape_string(v.shape));
    }

    TensorData constant(const Shape &s, float scale) {
        return random_floats(s, seed_counter_++, -scale, scale);
    }

    std::string initializer(const Shape &s, float scale) {
        const std::string name = fresh("k");
        g_.model.initializer(name, constant(s, scale));
        return name;
    }

    bool conv();
    bool activation();
    bool binary();
    bool pool();
    bool concat();
    bool squeeze_excite();
    bool softmax();
    bool conv_transpose();
    bool reduce_gate();
    bool transpose_pair();
    bool matmul();
    bool pad();
    bool lrn();
    bool space_to_depth();
    bool resize();
    bool mask();

    std::mt19937_64 rng_;
    RandomGraph &g_;
    std::vector<Value> values_;
    int counter_ = 0;
    uint64_t seed_counter_ = 1000;
};

int64_t window_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil) {
    const int64_t span = in + 2 * p - (d * (k - 1) + 1);
    if (span < 0) return 0;
    int64_t out = (ceil ? (span + s - 1) / s : span / s) + 1;
    if (ceil && (out - 1) * s >= in + p) out--;
    return out;
}

bool Generator::conv() {
    const Value x = recent();
    const int64_t c = x.shape[1], h = x.shape[2], w = x.shape[3];
    const int64_t k = std::vector<int64_t>{1, 3, 3, 5}[size_t(pick(0, 3))];
    const int64_t s = coin(0.3) ? 2 : 1, d = k > 1 && coin(0.2) ? 2 : 1, p = coin(0.7) ? d * (k / 2) : 0;
    // Sometimes one more pad at the end (SAME_UPPER's odd pad; a Pad before the window).
    const int64_t extra = p > 0 && coin(0.2) ? 1 : 0;
    const bool depthwise = coin(0.25), grouped = !depthwise && c % 2 == 0 && coin(0.2);
    const int64_t group = depthwise ? c : grouped ? 2 : 1;
    const int64_t oc = depthwise ? c : group * pick(1, 12);
    const int64_t oh = (h + 2 * p + extra - (d * (k - 1) + 1)) / s + 1, ow = (w + 2 * p + extra - (d * (k - 1) + 1)) / s + 1;
    if (h + 2 * p + extra < d * (k - 1) + 1 || w + 2 * p + extra < d * (k - 1) + 1) return false;
    const std::string wname = initializer({oc, c / group, k, k}, 1.0f / float(std::sqrt(double(c / group * k * k))));
    std::vector<std::string> inputs = {x.name, wname};
    const bool bias = coin();
    if (bias) inputs.push_back(initializer({oc}, 0.5f));
    const std::string y = fresh("conv");
    auto &n = g_.model.node("Conv", inputs, {y});
    set_ints(n, "kernel_shape", {k, k});
    set_ints(n, "strides", {s, s});
    set_ints(n, "pads", {p, p, p + extra, p + extra});
    set_ints(n, "dilations", {d, d});
    set_int(n, "group", group);
    add("Conv " + y + " = " + x.name + " k" + std::to_string(k) + " s" + std::to_string(s) + " p" + std::to_string(p) +
            (extra ? "+1" : "") +
            " d" + std::to_string(d) + " g" + std::to_string(group) + (bias ? " bias" : ""),
        {y, {1, oc, oh, ow}});
    return true;
}

bool Generator::activation() {
    const Value x = recent();
    static const std::vector<std::string> ops = {"Relu", "Sigmoid",  "Tanh",        "LeakyRelu", "HardSwish", "Elu",
                                                 "Softplus", "HardSigmoid", "Clip", "Abs", "Softsign", "Mish",
                                                 "Celu", "ThresholdedRelu", "Shrink", "Atan"};
    const std::string op = ops[size_t(pick(0, int(ops.size()) - 1))];
    const std::string y = fresh("act");
    std::vector<std::string> inputs = {x.name};
    if (op == "Clip") {
        const std::string lo = fresh("lo"), hi = fresh("hi");
        g_.model.initializer(lo, TensorData::floats({}, {0.0f}));
        g_.model.initializer(hi, TensorData::floats({}, {6.0f}));
        inputs = {x.name, lo, hi};
    }
    auto &n = g_.model.node(op, inputs, {y});
    if (op == "LeakyRelu") set_float(n, "alpha", 0.1f);
    add(op + " " + y + " = " + x.name, {y, x.shape});
    return true;
}

bool Generator::binary() {
    const Value a = recent();
    static const std::vector<std::string> ops = {"Add", "Mul", "Sub"};
    const std::string op = ops[size_t(pick(0, 2))];
    std::string b;
    std::string what;
    // Another value of the same shape (a residual), else a broadcast constant per channel.
    std::vector<const Value *> same;
    for (const Value &v : values_) {
        if (v.shape == a.shape && v.name != a.name) same.push_back(&v);
    }
    if (!same.empty() && coin(0.7)) {
        b = same[size_t(pick(0, int(same.size()) - 1))]->name;
        what = b;
    } else {
        b = initializer({1, a.shape[1], 1, 1}, 1.0f);
        what = "a constant per channel";
    }
    const std::string y = fresh("bin");
    g_.model.node(op, {a.name, b}, {y});
    add(op + " " + y + " = " + a.name + ", " + what, {y, a.shape});
    return true;
}

bool Generator::pool() {
    const Value x = recent();
    const bool max = coin();
    const int64_t k = pick(2, 3), s = pick(1, 2), p = coin(0.5) ? k / 2 : 0;
    const bool ceil = coin(0.3);
    const int64_t oh = window_out(x.shape[2], k, s, p, 1, ceil), ow = window_out(x.shape[3], k, s, p, 1, ceil);
    if (oh < 1 || ow < 1 || p >= k) return false;
    const std::string y = fresh("pool");
    auto &n = g_.model.node(max ? "MaxPool" : "AveragePool", {x.name}, {y});
    set_ints(n, "kernel_shape", {k, k});
    set_ints(n, "strides", {s, s});
    set_ints(n, "pads", {p, p, p, p});
    if (ceil) set_int(n, "ceil_mode", 1);
    if (!max && coin()) set_int(n, "count_include_pad", 1);
    add(std::string(max ? "MaxPool " : "AveragePool ") + y + " = " + x.name + " k" + std::to_string(k) + " s" +
            std::to_string(s) + " p" + std::to_string(p) + (ceil ? " ceil" : ""),
        {y, {1, x.shape[1], oh, ow}});
    return true;
}

bool Generator::concat() {
    const Value a = recent();
    std::vector<const Value *> same;
    for (const Value &v : values_) {
        if (v.shape[2] == a.shape[2] && v.shape[3] == a.shape[3]) same.push_back(&v);
    }
    const Value b = *same[size_t(pick(0, int(same.size()) - 1))];  // possibly a itself
    const std::string y = fresh("cat");
    set_int(g_.model.node("Concat", {a.name, b.name}, {y}), "axis", 1);
    add("Concat " + y + " = " + a.name + ", " + b.name, {y, {1, a.shape[1] + b.shape[1], a.shape[2], a.shape[3]}});
    return true;
}

bool Generator::squeeze_excite() {
    const Value x = recent();
    const std::string pooled = fresh("gap"), gate = fresh("gate"), y = fresh("se");
    g_.model.node("GlobalAveragePool", {x.name}, {pooled});
    g_.model.node("Sigmoid", {pooled}, {gate});
    g_.model.node("Mul", {x.name, gate}, {y});
    g_.nodes.push_back("GlobalAveragePool " + pooled + " = " + x.name);
    g_.nodes.push_back("Sigmoid " + gate + " = " + pooled);
    add("Mul " + y + " = " + x.name + ", " + gate, {y, x.shape});
    return true;
}

bool Generator::softmax() {
    const Value x = recent();
    const std::string y = fresh("softmax");
    set_int(g_.model.node("Softmax", {x.name}, {y}), "axis", 1);
    add("Softmax " + y + " = " + x.name + " axis 1", {y, x.shape});
    return true;
}

bool Generator::conv_transpose() {
    const Value x = recent();
    const int64_t c = x.shape[1], k = pick(2, 3), s = pick(1, 2), p = pick(0, k - 1), op = s > 1 && coin() ? 1 : 0;
    const int64_t group = c % 2 == 0 && coin(0.3) ? 2 : 1, oc = group * pick(1, 6);
    const int64_t oh = (x.shape[2] - 1) * s + k - 2 * p + op, ow = (x.shape[3] - 1) * s + k - 2 * p + op;
    if (oh < 1 || ow < 1 || oh > 64 || ow > 64) return false;
    const std::string wname = initializer({c, oc / group, k, k}, 1.0f / float(std::sqrt(double(c / group * k * k))));
    const std::string y = fresh("deconv");
    auto &n = g_.model.node("ConvTranspose", {x.name, wname}, {y});
    set_ints(n, "strides", {s, s});
    set_ints(n, "pads", {p, p, p, p});
    if (op) set_ints(n, "output_padding", {op, op});
    set_int(n, "group", group);
    add("ConvTranspose " + y + " = " + x.name + " k" + std::to_string(k) + " s" + std::to_string(s) + " p" +
            std::to_string(p) + " op" + std::to_string(op) + " g" + std::to_string(group),
        {y, {1, oc, oh, ow}});
    return true;
}

// x times a per-channel statistic of itself (ReduceMax, ReduceMean, ReduceL2 over H and W).
bool Generator::reduce_gate() {
    const Value x = recent();
    static const std::vector<std::string> ops = {"ReduceMax", "ReduceMean", "ReduceL2", "ReduceLogSumExp"};
    const std::string op = ops[size_t(pick(0, int(ops.size()) - 1))];
    const std::string stat = fresh("stat"), y = fresh("gated");
    set_ints(g_.model.node(op, {x.name}, {stat}), "axes", {2, 3});
    g_.model.node("Mul", {x.name, stat}, {y});
    g_.nodes.push_back(op + " " + stat + " = " + x.name + " axes 2,3");
    add("Mul " + y + " = " + x.name + ", " + stat, {y, x.shape});
    return true;
}

// To NHWC, an activation there, and back.
bool Generator::transpose_pair() {
    const Value x = recent();
    const std::string nhwc = fresh("nhwc"), act = fresh("act"), y = fresh("nchw");
    set_ints(g_.model.node("Transpose", {x.name}, {nhwc}), "perm", {0, 2, 3, 1});
    g_.model.node("Relu", {nhwc}, {act});
    set_ints(g_.model.node("Transpose", {act}, {y}), "perm", {0, 3, 1, 2});
    g_.nodes.push_back("Transpose " + nhwc + " = " + x.name + " perm 0,2,3,1");
    g_.nodes.push_back("Relu " + act + " = " + nhwc);
    add("Transpose " + y + " = " + act + " perm 0,3,1,2", {y, x.shape});
    return true;
}

// A matrix product along the last axis: [1, C, H, W] x [W, W'].
bool Generator::matmul() {
    const Value x = recent();
    const int64_t w = x.shape[3], w2 = pick(3, 17);
    const std::string weights = initializer({w, w2}, 1.0f / float(std::sqrt(double(w))));
    const std::string y = fresh("mm");
    g_.model.node("MatMul", {x.name, weights}, {y});
    add("MatMul " + y + " = " + x.name + " x " + std::to_string(w) + "x" + std::to_string(w2),
        {y, {1, x.shape[1], x.shape[2], w2}});
    return true;
}

// Pad in a random mode, the rows and columns by different amounts (reflect at most
// the extent - 1).
bool Generator::pad() {
    const Value x = recent();
    static const std::vector<std::string> modes = {"constant", "edge", "reflect"};
    const std::string mode = modes[size_t(pick(0, 2))];
    const int64_t most = mode == "reflect" ? std::min<int64_t>(3, std::min(x.shape[2], x.shape[3]) - 1) : 3;
    if (most < 1) return false;
    const int64_t t = pick(0, int(most)), l = pick(0, int(most)), b = pick(0, int(most)), r = pick(1, int(most));
    const std::string pads = fresh("pads"), y = fresh("pad");
    g_.model.initializer(pads, TensorData::ints({8}, {0, 0, t, l, 0, 0, b, r}));
    set_string(g_.model.node("Pad", {x.name, pads}, {y}), "mode", mode);
    add("Pad " + y + " = " + x.name + " " + mode + " " + std::to_string(t) + "," + std::to_string(l) + "," +
            std::to_string(b) + "," + std::to_string(r),
        {y, {1, x.shape[1], x.shape[2] + t + b, x.shape[3] + l + r}});
    return true;
}

bool Generator::lrn() {
    const Value x = recent();
    const int64_t size = pick(2, 5);
    const std::string y = fresh("lrn");
    auto &n = g_.model.node("LRN", {x.name}, {y});
    set_int(n, "size", size);
    set_float(n, "alpha", 0.01f);
    set_float(n, "bias", 1.0f + 0.5f * float(pick(0, 2)));
    add("LRN " + y + " = " + x.name + " size " + std::to_string(size), {y, x.shape});
    return true;
}

// SpaceToDepth by 2, then (half the time) DepthToSpace back in a random mode.
bool Generator::space_to_depth() {
    const Value x = recent();
    if (x.shape[2] % 2 != 0 || x.shape[3] % 2 != 0) return false;
    const std::string y = fresh("s2d");
    set_int(g_.model.node("SpaceToDepth", {x.name}, {y}), "blocksize", 2);
    const Value packed{y, {1, x.shape[1] * 4, x.shape[2] / 2, x.shape[3] / 2}};
    if (!coin()) {
        add("SpaceToDepth " + y + " = " + x.name + " by 2", packed);
        return true;
    }
    g_.nodes.push_back("SpaceToDepth " + y + " = " + x.name + " by 2");
    const std::string z = fresh("d2s"), mode = coin() ? "DCR" : "CRD";
    auto &n = g_.model.node("DepthToSpace", {y}, {z});
    set_int(n, "blocksize", 2);
    set_string(n, "mode", mode);
    add("DepthToSpace " + z + " = " + y + " by 2 " + mode, {z, x.shape});
    return true;
}

// Resize by 2 or to odd sizes, nearest, linear or cubic.
bool Generator::resize() {
    const Value x = recent();
    static const std::vector<std::string> modes = {"nearest", "linear", "cubic"};
    const std::string mode = modes[size_t(pick(0, 2))];
    const int64_t oh = coin() ? 2 * x.shape[2] : pick(3, 21), ow = coin() ? 2 * x.shape[3] : pick(3, 21);
    if (oh > 48 || ow > 48) return false;
    const std::string none = fresh("no_scales"), sizes = fresh("sizes"), y = fresh("resize");
    g_.model.initializer(none, TensorData::floats({0}, {}));
    g_.model.initializer(sizes, TensorData::ints({4}, {1, x.shape[1], oh, ow}));
    auto &n = g_.model.node("Resize", {x.name, "", none, sizes}, {y});
    set_string(n, "mode", mode);
    if (coin()) set_string(n, "coordinate_transformation_mode", "align_corners");
    add("Resize " + y + " = " + x.name + " " + mode + " to " + std::to_string(oh) + "x" + std::to_string(ow),
        {y, {1, x.shape[1], oh, ow}});
    return true;
}

// A mask from the graph input (its values are exact in every run, so the mask never
// flips on rounding): where its largest channel is channel k (ArgMax, int64, then
// Equal), maybe negated; applied by Where to a value of the same plane, or cast to a
// float and multiplied.
bool Generator::mask() {
    const Value &x = values_.front();
    std::vector<const Value *> same_plane;
    for (const Value &v : values_) {
        if (v.shape[2] == x.shape[2] && v.shape[3] == x.shape[3]) same_plane.push_back(&v);
    }
    const Value v = *same_plane[size_t(pick(0, int(same_plane.size()) - 1))];
    const std::string top = fresh("argmax"), k = fresh("channel"), hit = fresh("hit");
    auto &argmax = g_.model.node("ArgMax", {x.name}, {top});
    set_int(argmax, "axis", 1);
    g_.model.initializer(k, TensorData::ints({}, {int64_t(pick(0, int(x.shape[1]) - 1))}));
    g_.model.node("Equal", {top, k}, {hit});
    std::string m = hit;
    if (coin()) {
        m = fresh("miss");
        g_.model.node("Not", {hit}, {m});
    }
    const std::string y = fresh("masked");
    if (coin()) {
        g_.model.node("Where", {m, v.name, initializer({1}, 1.0f)}, {y});
        add("Where " + y + " = argmax(" + x.name + ") mask, " + v.name, {y, v.shape});
    } else {
        const std::string f = fresh("maskf");
        set_int(g_.model.node("Cast", {m}, {f}), "to", 1);
        g_.model.node("Mul", {v.name, f}, {y});
        add("Mul " + y + " = " + v.name + ", float(argmax(" + x.name + ") mask)", {y, v.shape});
    }
    return true;
}

}  // namespace

RandomGraph random_graph(uint64_t seed, int nodes) {
    RandomGraph g{ModelBuilder(13), {}, {}};
    Generator gen(seed, g);
    const Shape input = {1, gen.pick(1, 12), gen.pick(5, 19), gen.pick(5, 19)};
    g.model.input("x", input);
    gen.values_.push_back({"x", input});
    for (int attempts = 0; int(g.nodes.size()) < nodes && attempts < 4 * nodes; attempts++) {
        switch (gen.pick(0, 18)) {
        case 0:
        case 1:
        case 2: gen.conv(); break;
        case 3:
        case 4: gen.activation(); break;
        case 5: gen.binary(); break;
        case 6: gen.pool(); break;
        case 7: gen.concat(); break;
        case 8: gen.squeeze_excite(); break;
        case 9:
            if (gen.coin(0.3)) gen.softmax();
            break;
        case 10: gen.conv_transpose(); break;
        case 11: gen.reduce_gate(); break;
        case 12: gen.transpose_pair(); break;
        case 13: gen.matmul(); break;
        case 14: gen.pad(); break;
        case 15: gen.lrn(); break;
        case 16: gen.space_to_depth(); break;
        case 17: gen.resize(); break;
        case 18: gen.mask(); break;
        }
    }
    // The last value is an output; an earlier one too, sometimes (several outputs).
    g.model.output(gen.values_.back().name);
    if (gen.values_.size() > 3 && gen.coin(0.3)) g.model.output(gen.values_[gen.values_.size() / 2].name);
    return g;
}

}  // namespace tessera::graph::testing
