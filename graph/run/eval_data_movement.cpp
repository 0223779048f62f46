// Reference Transpose, Concat, Split, Slice, Gather, Tile and Pad: each output element
// copied from the input element the op maps it to (Pad: the fill elsewhere).
#include "kernel.h"

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

void register_data_movement_kernels(KernelTable &table) {
    table["Pad"] = pad;
    table["Transpose"] = transpose;
    table["DepthToSpace"] = [](KernelContext &kc) { depth_to_space(kc, true); };
    table["SpaceToDepth"] = [](KernelContext &kc) { depth_to_space(kc, false); };
    table["Concat"] = concat;
    table["Split"] = split;
    table["Slice"] = slice;
    table["Gather"] = gather;
    table["Tile"] = tile;
    table["Resize"] = resize;
    table["Upsample"] = resize;
}

} // namespace tessera::graph
