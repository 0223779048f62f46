// Reference BatchNormalization (inference), LayerNormalization, Softmax, LogSoftmax,
// and the reductions (ReduceSum, ReduceMean, ReduceMax, ...).
#include "kernel.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace tessera::graph {

namespace {

void batch_norm(KernelContext &kc) {
    const TensorData &x = kc.input(0), &scale = kc.input(1), &bias = kc.input(2), &mean = kc.input(3),
                     &var = kc.input(4);
    double eps = kc.node().get_float("epsilon", 1e-5f);
    int64_t channels = x.shape[1], inner = num_elements(Shape(x.shape.begin() + 2, x.shape.end()));
    for (size_t k = 0; k < x.size(); k++) {
        int64_t c = (int64_t(k) / inner) % channels;
        double inv = 1.0 / std::sqrt(double(var.f[c]) + eps);
        kc.out[0].f[k] = float((x.f[k] - double(mean.f[c])) * inv * scale.f[c] + bias.f[c]);
    }
}

// Each [n, c] plane normalised over its spatial elements, then scale[c] and bias[c].
void instance_norm(KernelContext &kc) {
    const TensorData &x = kc.input(0), &scale = kc.input(1), &bias = kc.input(2);
    const int64_t planes = x.shape[0] * x.shape[1], size = num_elements(x.shape) / std::max<int64_t>(planes, 1);
    const double eps = kc.node().get_float("epsilon", 1e-5f);
    for (int64_t p = 0; p < planes; p++) {
        const float *plane = x.f.data() + p * size;
        double mean = 0, var = 0;
        for (int64_t j = 0; j < size; j++) mean += plane[j];
        mean /= double(size);
        for (int64_t j = 0; j < size; j++) var += (plane[j] - mean) * (plane[j] - mean);
        var /= double(size);
        const int64_t c = p % x.shape[1];
        const double inv = 1.0 / std::sqrt(var + eps);
        for (int64_t j = 0; j < size; j++)
            kc.out[0].f[p * size + j] = float((plane[j] - mean) * inv * scale.f[c] + bias.f[c]);
    }
}

void lrn(KernelContext &kc) {
    const TensorData &x = kc.input(0);
    const Node &n = kc.node();
    const double alpha = n.get_float("alpha", 1e-4f), beta = n.get_float("beta", 0.75f), bias = n.get_float("bias", 1.0f);
    const int64_t size = n.get_int("size", 1), channels = x.shape[1];
    const int64_t inner = num_elements(Shape(x.shape.begin() + 2, x.shape.end()));
    const int64_t below = (size - 1) / 2, above = size - 1 - below;  // floor and ceil of (size - 1) / 2
    for (size_t k = 0; k < x.size(); k++) {
        const int64_t c = (int64_t(k) / inner) % channels, base = int64_t(k) - c * inner;
        double squares = 0;
        for (int64_t j = std::max<int64_t>(0, c - below); j <= std::min(channels - 1, c + above); j++) {
            const double v = x.f[size_t(base + j * inner)];
            squares += v * v;
        }
        kc.out[0].f[k] = float(x.f[k] / std::pow(bias + alpha / double(size) * squares, beta));
    }
}

void mean_variance_norm(KernelContext &kc) {
    const TensorData &x = kc.input(0);
    std::vector<bool> reduced(x.shape.size(), false);
    for (int64_t a : kc.node().get_ints("axes", {0, 2, 3})) reduced[size_t(kc.ic.axis(a, int64_t(x.shape.size()), "axes"))] = true;
    // Each element's group: its index with the reduced axes' coordinates zeroed.
    const std::vector<int64_t> strides = strides_of(x.shape);
    std::vector<int64_t> group(x.size());
    std::map<int64_t, std::pair<double, double>> sums;  // group -> (sum, sum of squares)
    std::map<int64_t, int64_t> counts;
    size_t k = 0;
    for_each_index(x.shape, [&](const std::vector<int64_t> &idx) {
        int64_t g = 0;
        for (size_t a = 0; a < idx.size(); a++) g += reduced[a] ? 0 : idx[a] * strides[a];
        group[k] = g;
        sums[g].first += x.f[k];
        sums[g].second += double(x.f[k]) * x.f[k];
        counts[g]++;
        k++;
    });
    for (size_t i = 0; i < x.size(); i++) {
        const double count = double(counts[group[i]]), mean = sums[group[i]].first / count;
        const double variance = sums[group[i]].second / count - mean * mean;
        kc.out[0].f[i] = float((x.f[i] - mean) / (std::sqrt(std::max(0.0, variance)) + 1e-9));
    }
}

void layer_norm(KernelContext &kc) {
    const TensorData &x = kc.input(0), &scale = kc.input(1);
    const TensorData *bias = kc.in.size() > 2 ? kc.in[2] : nullptr;
    int64_t axis = layer_norm_axis(kc.ic);
    Shape normalized(x.shape.begin() + axis, x.shape.end());
    int64_t inner = num_elements(normalized), outer = num_elements(Shape(x.shape.begin(), x.shape.begin() + axis));
    double eps = kc.node().get_float("epsilon", 1e-5f);
    std::vector<int64_t> so = broadcast_offsets(scale.shape, normalized);
    std::vector<int64_t> bo = bias ? broadcast_offsets(bias->shape, normalized) : std::vector<int64_t>{};
    for (int64_t o = 0; o < outer; o++) {
        const float *row = x.f.data() + o * inner;
        double mean = 0, var = 0;
        for (int64_t j = 0; j < inner; j++)
            mean += row[j];
        mean /= double(inner);
        for (int64_t j = 0; j < inner; j++)
            var += (row[j] - mean) * (row[j] - mean);
        var /= double(inner);
        double inv = 1.0 / std::sqrt(var + eps);
        for (int64_t j = 0; j < inner; j++)
            kc.out[0].f[o * inner + j] = float((row[j] - mean) * inv * scale.f[so[j]] + (bias ? bias->f[bo[j]] : 0.0));
        if (kc.out.size() > 1) kc.out[1].f[o] = float(mean);
        if (kc.out.size() > 2) kc.out[2].f[o] = float(inv);
    }
}

void softmax(KernelContext &kc, bool log) {
    const TensorData &x = kc.input(0);
    SoftmaxGeometry g = softmax_geometry(kc.ic);
    std::vector<double> e(g.n);
    for (int64_t o = 0; o < g.outer; o++)
        for (int64_t in = 0; in < g.inner; in++) {
            int64_t base = o * g.n * g.inner + in;
            double mx = -INFINITY, sum = 0;
            for (int64_t j = 0; j < g.n; j++)
                mx = std::max(mx, double(x.f[base + j * g.inner]));
            for (int64_t j = 0; j < g.n; j++)
                sum += e[j] = std::exp(x.f[base + j * g.inner] - mx);
            for (int64_t j = 0; j < g.n; j++)
                kc.out[0].f[base + j * g.inner] =
                    float(log ? x.f[base + j * g.inner] - mx - std::log(sum) : e[j] / sum);
        }
}

// The index of the first (select_last_index: the last) maximum or minimum along the axis.
void arg_extreme(KernelContext &kc, bool max) {
    const TensorData &x = kc.input(0);
    const int64_t axis = kc.ic.axis(kc.node().get_int("axis", 0), int64_t(x.shape.size()), "axis");
    const bool last = kc.node().get_int("select_last_index", 0) != 0;
    const int64_t n = x.shape[size_t(axis)], inner = num_elements(Shape(x.shape.begin() + axis + 1, x.shape.end()));
    const int64_t outer = num_elements(Shape(x.shape.begin(), x.shape.begin() + axis));
    for (int64_t o = 0; o < outer; o++)
        for (int64_t in = 0; in < inner; in++) {
            int64_t best = 0;
            for (int64_t j = 1; j < n; j++) {
                const double v = x.get(size_t((o * n + j) * inner + in)), b = x.get(size_t((o * n + best) * inner + in));
                if (max ? (v > b || (last && v == b)) : (v < b || (last && v == b))) best = j;
            }
            kc.out[0].i[size_t(o * inner + in)] = best;
        }
}

// 1 at the first maximum along the softmax axis, 0 elsewhere.
void hardmax(KernelContext &kc) {
    const TensorData &x = kc.input(0);
    const SoftmaxGeometry g = softmax_geometry(kc.ic);
    for (int64_t o = 0; o < g.outer; o++)
        for (int64_t in = 0; in < g.inner; in++) {
            const int64_t base = o * g.n * g.inner + in;
            int64_t first = 0;
            for (int64_t j = 1; j < g.n; j++)
                if (x.f[base + j * g.inner] > x.f[base + first * g.inner]) first = j;
            for (int64_t j = 0; j < g.n; j++) kc.out[0].f[base + j * g.inner] = j == first ? 1.0f : 0.0f;
        }
}

// ReduceSum, ReduceMean, ReduceMax, ... by op type.
void reduce(KernelContext &kc) {
    const TensorData &x = kc.input(0);
    const std::string &op = kc.ic.node.op_type;
    if (reduce_axes(kc.ic).empty()) {  // noop_with_empty_axes: the input unchanged
        kc.out[0] = x;
        return;
    }
    // The reduced shape with kept unit axes broadcasts to the input: each input
    // element joins the group of the output element it broadcasts from.
    Shape kept = x.shape;
    for (int64_t a : reduce_axes(kc.ic))
        kept[a] = 1;
    std::vector<int64_t> off = broadcast_offsets(kept, x.shape);
    std::vector<std::vector<double>> groups(kc.out[0].size());
    for (size_t k = 0; k < x.size(); k++)
        groups[off[k]].push_back(x.f[k]);
    for (size_t k = 0; k < groups.size(); k++) {
        const std::vector<double> &g = groups[k];
        double v = op == "ReduceMax" ? -INFINITY : op == "ReduceMin" ? INFINITY : op == "ReduceProd" ? 1 : 0;
        for (double e : g) {
            if (op == "ReduceMax") v = std::max(v, e);
            else if (op == "ReduceMin") v = std::min(v, e);
            else if (op == "ReduceProd") v *= e;
            else if (op == "ReduceL1") v += std::abs(e);
            else if (op == "ReduceL2" || op == "ReduceSumSquare") v += e * e;
            else if (op == "ReduceLogSumExp") v += std::exp(e);
            else v += e;  // ReduceSum, ReduceMean, ReduceLogSum
        }
        if (op == "ReduceMean") v /= double(std::max<size_t>(1, g.size()));
        if (op == "ReduceL2") v = std::sqrt(v);
        if (op == "ReduceLogSum" || op == "ReduceLogSumExp") v = std::log(v);
        kc.out[0].f[k] = float(v);
    }
}

// Running sums along one axis (forward or reverse; exclusive: before each element).
// Floats sum in double, integers exactly.
void cumsum(KernelContext &kc) {
    const TensorData &x = kc.input(0);
    TensorData &y = kc.out[0];
    const int64_t axis = kc.ic.axis(kc.input(1).as_ints().at(0), int64_t(x.shape.size()), "axis");
    const bool exclusive = kc.node().get_int("exclusive", 0) != 0, reverse = kc.node().get_int("reverse", 0) != 0;
    const int64_t n = x.shape[size_t(axis)];
    const int64_t inner = num_elements(Shape(x.shape.begin() + axis + 1, x.shape.end()));
    const int64_t outer = num_elements(Shape(x.shape.begin(), x.shape.begin() + axis));
    for (int64_t o = 0; o < outer; o++) {
        for (int64_t i = 0; i < inner; i++) {
            double f = 0;
            int64_t whole = 0;
            for (int64_t step = 0; step < n; step++) {
                const int64_t j = reverse ? n - 1 - step : step;
                const size_t k = size_t((o * n + j) * inner + i);
                if (exclusive) {
                    if (x.is_float()) y.f[k] = float(f);
                    else y.i[k] = whole;
                }
                if (x.is_float()) f += double(x.f[k]);
                else whole += x.i[k];
                if (!exclusive) {
                    if (x.is_float()) y.f[k] = float(f);
                    else y.i[k] = whole;
                }
            }
        }
    }
}

} // namespace

void register_normalization_kernels(KernelTable &table) {
    table["CumSum"] = cumsum;
    table["BatchNormalization"] = batch_norm;
    table["LayerNormalization"] = layer_norm;
    table["LRN"] = lrn;
    table["MeanVarianceNormalization"] = mean_variance_norm;
    table["InstanceNormalization"] = instance_norm;
    table["Softmax"] = [](KernelContext &kc) { softmax(kc, false); };
    table["LogSoftmax"] = [](KernelContext &kc) { softmax(kc, true); };
    table["Hardmax"] = hardmax;
    table["ArgMax"] = [](KernelContext &kc) { arg_extreme(kc, true); };
    table["ArgMin"] = [](KernelContext &kc) { arg_extreme(kc, false); };
    for (const char *op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                           "ReduceLogSum", "ReduceLogSumExp", "ReduceSumSquare"})
        table[op] = reduce;
}

} // namespace tessera::graph
