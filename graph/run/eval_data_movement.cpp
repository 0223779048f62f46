// Reference Transpose, Concat, Split, Slice, Gather, Tile and Pad: each output element
// copied from the input element the op maps it to (Pad: the fill elsewhere).
#include "kernel.h"

#include <algorithm>
#include <cmath>

namespace tessera::graph {

namespace {

void transpose(KernelContext &kc) {
    kc.out[0] = transposed(kc.input(0), transpose_perm(kc.ic));
}

// y[n, c, h b + i, w b + j] = x[n, channel, h, w] with channel (i b + j) C' + c in
// DCR mode, c b b + i b + j in CRD (C' = C / b^2). SpaceToDepth is DCR's inverse.
int64_t block_channel(int64_t c, int64_t i, int64_t j, int64_t b, int64_t channels, bool crd) {
    return crd ? (c * b + i) * b + j : (i * b + j) * channels + c;
}

void depth_to_space(KernelContext &kc, bool to_space) {
    const int64_t b = kc.node().get_int("blocksize", 1);
    const bool crd = to_space && kc.node().get_string("mode", "DCR") == "CRD";
    const TensorData &x = kc.input(0);
    TensorData &y = kc.out[0];
    const Shape &space = to_space ? y.shape : x.shape, &depth = to_space ? x.shape : y.shape;
    const int64_t channels = space[1], rows = depth[2], cols = depth[3];
    for (int64_t n = 0; n < space[0]; n++)
        for (int64_t c = 0; c < channels; c++)
            for (int64_t h = 0; h < rows; h++)
                for (int64_t i = 0; i < b; i++)
                    for (int64_t w = 0; w < cols; w++)
                        for (int64_t j = 0; j < b; j++) {
                            const int64_t s = ((n * channels + c) * rows * b + h * b + i) * cols * b + w * b + j;
                            const int64_t d =
                                ((n * depth[1] + block_channel(c, i, j, b, channels, crd)) * rows + h) * cols + w;
                            if (to_space)
                                copy_element(x, d, y, s);
                            else
                                copy_element(x, s, y, d);
                        }
}

// Rows of `outer` blocks: the axis and everything inside it are contiguous.
void concat(KernelContext &kc) {
    TensorData &y = kc.out[0];
    int64_t axis = kc.ic.axis(kc.node().get_int("axis", 0), int64_t(y.shape.size()), "axis");
    int64_t outer = num_elements(Shape(y.shape.begin(), y.shape.begin() + axis));
    int64_t y_block = num_elements(Shape(y.shape.begin() + axis, y.shape.end()));
    int64_t at = 0;
    for (const TensorData *x : kc.in) {
        int64_t block = num_elements(Shape(x->shape.begin() + axis, x->shape.end()));
        for (int64_t o = 0; o < outer; o++)
            for (int64_t j = 0; j < block; j++)
                copy_element(*x, o * block + j, y, o * y_block + at + j);
        at += block;
    }
}

void split(KernelContext &kc) {
    const TensorData &x = kc.input(0);
    int64_t axis = 0;
    std::vector<int64_t> sizes = *split_sizes(kc.ic, &axis);
    int64_t outer = num_elements(Shape(x.shape.begin(), x.shape.begin() + axis));
    int64_t x_block = num_elements(Shape(x.shape.begin() + axis, x.shape.end()));
    int64_t inner = num_elements(Shape(x.shape.begin() + axis + 1, x.shape.end()));
    int64_t at = 0;
    for (size_t k = 0; k < sizes.size(); k++) {
        int64_t block = sizes[k] * inner;
        for (int64_t o = 0; o < outer; o++)
            for (int64_t j = 0; j < block; j++)
                copy_element(x, o * x_block + at + j, kc.out[k], o * block + j);
        at += block;
    }
}

void slice(KernelContext &kc) {
    const TensorData &x = kc.input(0);
    TensorData &y = kc.out[0];
    SliceParams p = *slice_params(kc.ic);
    std::vector<int64_t> xs = strides_of(x.shape);
    size_t o = 0;
    for_each_index(y.shape, [&](const std::vector<int64_t> &idx) {
        int64_t off = 0;
        for (size_t i = 0; i < idx.size(); i++)
            off += (p.start[i] + idx[i] * p.step[i]) * xs[i];
        copy_element(x, off, y, o++);
    });
}

// Each output element from the input element at its index modulo the input's extents.
void tile(KernelContext &kc) {
    const TensorData &x = kc.input(0);
    TensorData &y = kc.out[0];
    const std::vector<int64_t> xs = strides_of(x.shape);
    size_t o = 0;
    for_each_index(y.shape, [&](const std::vector<int64_t> &idx) {
        int64_t off = 0;
        for (size_t i = 0; i < idx.size(); i++) off += (idx[i] % x.shape[i]) * xs[i];
        copy_element(x, off, y, o++);
    });
}

// Each output element: the multilinear mix of the input at its taps' positions (one
// position per axis for nearest).
void resize(KernelContext &kc) {
    const TensorData &x = kc.input(0);
    TensorData &y = kc.out[0];
    const std::vector<ResizeTaps> taps = *resize_taps(kc.ic);
    const std::vector<int64_t> xs = strides_of(x.shape);
    size_t o = 0;
    // Every combination of one tap per resized axis (counted in mixed radix).
    int64_t combinations = 1;
    for (const ResizeTaps &t : taps) combinations *= t.resized ? int64_t(t.index.size()) : 1;
    for_each_index(y.shape, [&](const std::vector<int64_t> &idx) {
        double acc = 0;
        for (int64_t c = 0; c < combinations; c++) {
            double weight = 1;
            int64_t off = 0, rest = c;
            for (size_t a = 0; a < idx.size(); a++) {
                const ResizeTaps &t = taps[a];
                if (!t.resized) {
                    off += idx[a] * xs[a];
                    continue;
                }
                const size_t k = size_t(rest % int64_t(t.index.size()));
                rest /= int64_t(t.index.size());
                weight *= t.weight[k][size_t(idx[a])];
                off += t.index[k][size_t(idx[a])] * xs[a];
            }
            if (weight != 0) acc += weight * x.f[size_t(off)];
        }
        y.f[o++] = float(acc);
    });
}

void gather(KernelContext &kc) {
    const TensorData &x = kc.input(0), &indices = kc.input(1);
    TensorData &y = kc.out[0];
    int64_t axis = kc.ic.axis(kc.node().get_int("axis", 0), int64_t(x.shape.size()), "axis");
    int64_t extent = x.shape[axis];
    int64_t outer = num_elements(Shape(x.shape.begin(), x.shape.begin() + axis));
    int64_t inner = num_elements(Shape(x.shape.begin() + axis + 1, x.shape.end()));
    int64_t count = int64_t(indices.size());
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < count; j++) {
            int64_t at = indices.i[j] < 0 ? indices.i[j] + extent : indices.i[j];
            if (at < 0 || at >= extent)
                kc.ic.fail("index " + std::to_string(indices.i[j]) + " is out of range for axis extent " +
                           std::to_string(extent));
            for (int64_t k = 0; k < inner; k++)
                copy_element(x, (o * extent + at) * inner + k, y, (o * count + j) * inner + k);
        }
}

// Each index tuple (the last axis of indices) addresses a slice of data; its update
// replaces it or is combined with it, in order.
void scatter_nd(KernelContext &kc) {
    const TensorData &data = kc.input(0), &indices = kc.input(1), &updates = kc.input(2);
    TensorData &y = kc.out[0];
    y = data;
    const std::string reduction = kc.node().get_string("reduction", "none");
    const int64_t depth = indices.shape.back(), tuples = num_elements(indices.shape) / std::max<int64_t>(1, depth);
    const int64_t slice = num_elements(Shape(data.shape.begin() + depth, data.shape.end()));
    const std::vector<int64_t> strides = strides_of(data.shape);
    for (int64_t t = 0; t < tuples; t++) {
        int64_t base = 0;
        for (int64_t a = 0; a < depth; a++) {
            int64_t i = indices.i[size_t(t * depth + a)];
            if (i < 0) i += data.shape[size_t(a)];
            if (i < 0 || i >= data.shape[size_t(a)])
                kc.ic.fail("index " + std::to_string(indices.i[size_t(t * depth + a)]) + " is out of range for axis " +
                           std::to_string(a) + " of extent " + std::to_string(data.shape[size_t(a)]));
            base += i * strides[size_t(a)];
        }
        for (int64_t k = 0; k < slice; k++) {
            const size_t at = size_t(base + k);
            const double u = updates.get(size_t(t * slice + k)), old = y.get(at);
            y.set(at, reduction == "add" ? old + u : reduction == "mul" ? old * u : reduction == "max" ? std::max(old, u)
                      : reduction == "min" ? std::min(old, u) : u);
        }
    }
}

void pad(KernelContext &kc) {
    const TensorData &x = kc.input(0);
    TensorData &y = kc.out[0];
    const PadSpec p = *pad_spec(kc.ic);  // the evaluator's inputs are all constants
    if (p.mode != PadMode::Constant) {
        const std::vector<int64_t> xs = strides_of(x.shape);
        size_t to = 0;
        for_each_index(y.shape, [&](const std::vector<int64_t> &idx) {
            int64_t from = 0;
            for (size_t a = 0; a < idx.size(); a++) from += pad_source(idx[a] - p.before[a], x.shape[a], p.mode) * xs[a];
            copy_element(x, size_t(from), y, to++);
        });
        return;
    }
    for (size_t k = 0; k < y.size(); k++) y.set(k, p.value);
    const std::vector<int64_t> ys = strides_of(y.shape);
    size_t from = 0;
    for_each_index(x.shape, [&](const std::vector<int64_t> &idx) {
        int64_t to = 0;
        for (size_t a = 0; a < idx.size(); a++) to += (idx[a] + p.before[a]) * ys[a];
        copy_element(x, from++, y, size_t(to));
    });
}

} // namespace

// GridSample as PyTorch's grid sampler computes it (ONNX's follows it): the grid's
// [-1, 1] coordinates scaled to pixels, then bounded by the padding mode (linear and
// nearest: the coordinate; cubic: each tap's index); taps outside X read 0.
double unnormalise(double g, int64_t size, bool align_corners) {
    return align_corners ? (g + 1) / 2 * double(size - 1) : ((g + 1) * double(size) - 1) / 2;
}

// v folded back into [low, high] = [twice_low / 2, twice_high / 2] by reflections.
double reflect(double v, double twice_low, double twice_high) {
    if (twice_low == twice_high) return 0;
    const double low = twice_low / 2, span = (twice_high - twice_low) / 2;
    v = std::abs(v - low);
    const double extra = std::fmod(v, span);
    return int64_t(std::floor(v / span)) % 2 == 0 ? extra + low : span - extra + low;
}

double bounded(double v, int64_t size, const GridSampleSpec &s) {
    if (s.padding == GridSampleSpec::Padding::Reflection)
        v = s.align_corners ? reflect(v, 0, 2.0 * double(size - 1)) : reflect(v, -1, 2.0 * double(size) - 1);
    if (s.padding != GridSampleSpec::Padding::Zeros) v = std::clamp(v, 0.0, double(size - 1));
    return v;
}

void grid_sample(KernelContext &kc) {
    const TensorData &x = kc.input(0), &grid = kc.input(1);
    TensorData &y = kc.out[0];
    const GridSampleSpec s = grid_sample_spec(kc.ic);
    const int64_t channels = x.shape[1], h = x.shape[2], w = x.shape[3], oh = y.shape[2], ow = y.shape[3];
    for (int64_t n = 0; n < x.shape[0]; n++)
        for (int64_t c = 0; c < channels; c++) {
            const float *plane = x.f.data() + (n * channels + c) * h * w;
            auto at = [&](int64_t i, int64_t j) { return i >= 0 && i < h && j >= 0 && j < w ? double(plane[i * w + j]) : 0.0; };
            for (int64_t p = 0; p < oh; p++)
                for (int64_t q = 0; q < ow; q++) {
                    const float *g = grid.f.data() + ((n * oh + p) * ow + q) * 2;
                    double gx = unnormalise(g[0], w, s.align_corners), gy = unnormalise(g[1], h, s.align_corners);
                    double v = 0;
                    if (s.mode == GridSampleSpec::Mode::Cubic) {
                        const double x0 = std::floor(gx), y0 = std::floor(gy);
                        const std::vector<double> wx = cubic_weights(gx - x0, -0.75), wy = cubic_weights(gy - y0, -0.75);
                        for (int a = 0; a < 4; a++)
                            for (int b = 0; b < 4; b++) {
                                const double i = bounded(y0 - 1 + a, h, s), j = bounded(x0 - 1 + b, w, s);
                                v += wy[size_t(a)] * wx[size_t(b)] * at(int64_t(i), int64_t(j));
                            }
                    } else {
                        gx = bounded(gx, w, s), gy = bounded(gy, h, s);
                        if (s.mode == GridSampleSpec::Mode::Nearest) {
                            v = at(int64_t(std::nearbyint(gy)), int64_t(std::nearbyint(gx)));
                        } else {
                            const double x0 = std::floor(gx), y0 = std::floor(gy), fx = gx - x0, fy = gy - y0;
                            const int64_t i = int64_t(y0), j = int64_t(x0);
                            v = (1 - fy) * ((1 - fx) * at(i, j) + fx * at(i, j + 1)) +
                                fy * ((1 - fx) * at(i + 1, j) + fx * at(i + 1, j + 1));
                        }
                    }
                    y.f[size_t(((n * channels + c) * oh + p) * ow + q)] = float(v);
                }
        }
}

void register_data_movement_kernels(KernelTable &table) {
    table["Pad"] = pad;
    table["Transpose"] = transpose;
    table["DepthToSpace"] = [](KernelContext &kc) { depth_to_space(kc, true); };
    table["SpaceToDepth"] = [](KernelContext &kc) { depth_to_space(kc, false); };
    table["Concat"] = concat;
    table["Split"] = split;
    table["Slice"] = slice;
    table["Gather"] = gather;
    table["ScatterND"] = scatter_nd;
    table["Tile"] = tile;
    table["Resize"] = resize;
    table["GridSample"] = grid_sample;
    table["Upsample"] = resize;
}

} // namespace tessera::graph
