// Reference MaxPool, AveragePool (count_include_pad, ceil_mode), GlobalAveragePool and
// GlobalMaxPool.
#include "kernel.h"
#include "window.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tessera::graph {

namespace {

void pool(KernelContext &kc, bool is_max) {
    const TensorData &x = kc.input(0);
    TensorData &y = kc.out[0];
    size_t n = x.shape.size() - 2;
    Shape spatial(x.shape.begin() + 2, x.shape.end());
    Window win =
        resolve_window(kc.ic, spatial, kc.node().get_ints("kernel_shape", {}), kc.node().get_int("ceil_mode", 0) != 0);
    bool include_pad = kc.node().get_int("count_include_pad", 0) != 0;
    std::vector<int64_t> xs = strides_of(x.shape);
    Shape out_spatial(y.shape.begin() + 2, y.shape.end());
    std::vector<std::vector<int64_t>> taps;
    for_each_index(win.kernel, [&](const std::vector<int64_t> &k) { taps.push_back(k); });
    int64_t planes = x.shape[0] * x.shape[1], o = 0;
    for (int64_t p = 0; p < planes; p++) {
        for_each_index(out_spatial, [&](const std::vector<int64_t> &pos) {
            double acc = is_max ? -std::numeric_limits<double>::infinity() : 0.0;
            int64_t count = 0, padded_count = 0;
            for (const std::vector<int64_t> &tap : taps) {
                int64_t off = p * xs[1];
                bool inside = true, in_padded = true;
                for (size_t i = 0; i < n; i++) {
                    int64_t coord = pos[i] * win.strides[i] - win.pad_begin[i] + tap[i] * win.dilations[i];
                    inside = inside && coord >= 0 && coord < spatial[i];
                    // Positions past the explicit padding (ceil_mode overshoot) never count.
                    in_padded = in_padded && coord >= -win.pad_begin[i] && coord < spatial[i] + win.pad_end[i];
                    off += coord * xs[2 + i];
                }
                padded_count += in_padded;
                if (!inside) continue;
                count++;
                acc = is_max ? std::max(acc, double(x.f[off])) : acc + x.f[off];
            }
            if (!is_max) acc /= std::max<int64_t>(1, include_pad ? padded_count : count);
            y.f[o++] = float(acc);
        });
    }
}

// The mean (or the max) of each [n, c] plane.
void global_pool(KernelContext &kc, bool max) {
    const TensorData &x = kc.input(0);
    int64_t planes = x.shape[0] * x.shape[1], size = num_elements(x.shape) / std::max<int64_t>(planes, 1);
    for (int64_t p = 0; p < planes; p++) {
        double acc = max ? -INFINITY : 0;
        for (int64_t k = 0; k < size; k++)
            acc = max ? std::max(acc, double(x.f[p * size + k])) : acc + x.f[p * size + k];
        kc.out[0].f[p] = float(max ? acc : acc / double(size));
    }
}

} // namespace

void register_pool_kernels(KernelTable &table) {
    table["MaxPool"] = [](KernelContext &kc) { pool(kc, true); };
    table["AveragePool"] = [](KernelContext &kc) { pool(kc, false); };
    table["GlobalAveragePool"] = [](KernelContext &kc) { global_pool(kc, false); };
    table["GlobalMaxPool"] = [](KernelContext &kc) { global_pool(kc, true); };
}

} // namespace tessera::graph
