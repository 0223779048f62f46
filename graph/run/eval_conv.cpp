// Reference Conv: N-d, groups, dilations, strides, resolved pads (graph/onnx/window.h).
#include "kernel.h"
#include "window.h"

namespace tessera::graph {

namespace {

void conv(KernelContext &kc) {
    const TensorData &x = kc.input(0), &w = kc.input(1);
    const TensorData *bias = kc.in.size() > 2 ? kc.in[2] : nullptr;
    TensorData &y = kc.out[0];
    size_t n = x.shape.size() - 2;
    Shape spatial(x.shape.begin() + 2, x.shape.end());
    Shape kernel(w.shape.begin() + 2, w.shape.end());
    Window win = resolve_window(kc.ic, spatial, kernel, false);
    int64_t batch = x.shape[0], channels = x.shape[1], out_channels = w.shape[0];
    int64_t group = kc.node().get_int("group", 1);
    int64_t cin_g = channels / group, cout_g = out_channels / group;
    std::vector<int64_t> xs = strides_of(x.shape), ws = strides_of(w.shape);
    Shape out_spatial(y.shape.begin() + 2, y.shape.end());
    int64_t out_size = num_elements(out_spatial), k_size = num_elements(kernel);
    // Kernel taps as multi-indices, enumerated once.
    std::vector<std::vector<int64_t>> taps;
    for_each_index(kernel, [&](const std::vector<int64_t> &k) { taps.push_back(k); });

    for (int64_t b = 0; b < batch; b++)
        for (int64_t m = 0; m < out_channels; m++) {
            int64_t g = m / cout_g;
            int64_t o = 0;
            for_each_index(out_spatial, [&](const std::vector<int64_t> &pos) {
                double acc = bias ? bias->f[m] : 0.0;
                for (int64_t t = 0; t < k_size; t++) {
                    int64_t x_off = b * xs[0], w_off = m * ws[0];
                    bool inside = true;
                    for (size_t i = 0; i < n && inside; i++) {
                        int64_t coord = pos[i] * win.strides[i] - win.pad_begin[i] + taps[t][i] * win.dilations[i];
                        inside = coord >= 0 && coord < spatial[i];
                        x_off += coord * xs[2 + i];
                        w_off += taps[t][i] * ws[2 + i];
                    }
                    if (!inside) continue; // zero padding
                    for (int64_t c = 0; c < cin_g; c++)
                        acc += double(x.f[x_off + (g * cin_g + c) * xs[1]]) * w.f[w_off + c * ws[1]];
                }
                y.f[(b * out_channels + m) * out_size + o++] = float(acc);
            });
        }
}

} // namespace

void register_conv_kernels(KernelTable &table) {
    table["Conv"] = conv;
}

} // namespace tessera::graph
