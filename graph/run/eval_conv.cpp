// Reference Conv and ConvTranspose: N-d, groups, dilations, strides, resolved pads
// (graph/onnx/window.h).
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

// Each input element scattered through the kernel: x[b, c, q] * w[c, m', t] adds into
// y[b, g * M/group + m', q * stride - pad_begin + t * dilation].
void conv_transpose(KernelContext &kc) {
    const TensorData &x = kc.input(0), &w = kc.input(1);
    const TensorData *bias = kc.in.size() > 2 ? kc.in[2] : nullptr;
    TensorData &y = kc.out[0];
    const size_t n = x.shape.size() - 2;
    const Shape spatial(x.shape.begin() + 2, x.shape.end()), kernel(w.shape.begin() + 2, w.shape.end());
    const Shape out_spatial(y.shape.begin() + 2, y.shape.end());
    const TransposedWindow win = resolve_transposed_window(kc.ic, spatial, kernel);
    const int64_t batch = x.shape[0], channels = x.shape[1], group = kc.node().get_int("group", 1);
    const int64_t cin_g = channels / group, cout_g = w.shape[1], out_channels = y.shape[1];
    const std::vector<int64_t> ys = strides_of(y.shape), ws = strides_of(w.shape), xs = strides_of(x.shape);
    std::vector<double> acc(y.size(), 0.0);
    for (int64_t b = 0; b < batch; b++)
        for (int64_t m = 0; m < out_channels; m++)
            for (int64_t k = 0; k < num_elements(out_spatial); k++)
                acc[size_t(b * ys[0] + m * ys[1] + k)] = bias ? bias->f[m] : 0.0;
    std::vector<std::vector<int64_t>> taps;
    for_each_index(kernel, [&](const std::vector<int64_t> &t) { taps.push_back(t); });
    for (int64_t b = 0; b < batch; b++)
        for (int64_t c = 0; c < channels; c++) {
            const int64_t g = c / cin_g;
            for_each_index(spatial, [&](const std::vector<int64_t> &q) {
                int64_t x_off = b * xs[0] + c * xs[1];
                for (size_t i = 0; i < n; i++) x_off += q[i] * xs[2 + i];
                const double v = x.f[size_t(x_off)];
                for (const std::vector<int64_t> &t : taps) {
                    int64_t y_off = b * ys[0], w_off = c * ws[0];
                    bool inside = true;
                    for (size_t i = 0; i < n && inside; i++) {
                        const int64_t pos = q[i] * win.strides[i] - win.pad_begin[i] + t[i] * win.dilations[i];
                        inside = pos >= 0 && pos < out_spatial[i];
                        y_off += pos * ys[2 + i];
                        w_off += t[i] * ws[2 + i];
                    }
                    if (!inside) continue;
                    for (int64_t mo = 0; mo < cout_g; mo++)
                        acc[size_t(y_off + (g * cout_g + mo) * ys[1])] += v * w.f[size_t(w_off + mo * ws[1])];
                }
            });
        }
    for (size_t k = 0; k < acc.size(); k++) y.f[k] = float(acc[k]);
}

} // namespace

void register_conv_kernels(KernelTable &table) {
    table["Conv"] = conv;
    table["ConvTranspose"] = conv_transpose;
}

} // namespace tessera::graph
