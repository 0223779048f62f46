#include "reference.h"

#include "op_params.h"
#include "op_registry.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace tessera {

using namespace ops;

namespace {

// Visits every multi-index of `shape` in row-major order.
void for_each_index(const Shape &shape, const std::function<void(const std::vector<int64_t> &)> &fn) {
    std::vector<int64_t> idx(shape.size(), 0);
    if (num_elements(shape) == 0) return;
    while (true) {
        fn(idx);
        int axis = int(shape.size()) - 1;
        while (axis >= 0 && ++idx[axis] == shape[axis]) idx[axis--] = 0;
        if (axis < 0) return;
    }
}

int64_t offset(const Tensor &t, const std::vector<int64_t> &idx) {
    int64_t off = 0;
    for (size_t i = 0; i < idx.size(); i++) off = off * t.shape[i] + idx[i];
    return off;
}

Tensor matmul_ref(const MatmulParams &p, const std::vector<Tensor> &in) {
    const Tensor &a = in[0], &b = in[1];
    Tensor out(p.batched ? Shape{p.batch, p.m, p.n} : Shape{p.m, p.n});
    for (int64_t bt = 0; bt < p.batch; bt++) {
        const float *A = a.data.data() + bt * p.m * p.k;
        const float *B = b.data.data() + bt * p.k * p.n;
        float *C = out.data.data() + bt * p.m * p.n;
        for (int64_t i = 0; i < p.m; i++) {
            for (int64_t j = 0; j < p.n; j++) {
                double acc = p.bias ? in[2].data[j] : 0.0;
                for (int64_t k = 0; k < p.k; k++) {
                    double av = p.trans_a ? A[k * p.m + i] : A[i * p.k + k];
                    // Packed: panel j / block, row k, lane j % block.
                    double bv = p.packed    ? B[((j / p.block) * p.k + k) * p.block + j % p.block]
                                : p.trans_b ? B[j * p.k + k]
                                            : B[k * p.n + j];
                    acc += av * bv;
                }
                C[i * p.n + j] = float(acc);
            }
        }
    }
    return out;
}

// Offset of logical (n, c, y, x) in NCHW, NHWC or (block > 0) NCHW[block]c.
int64_t image_offset(bool nhwc, int64_t block, int64_t c, int64_t h, int64_t w, int64_t n, int64_t ch, int64_t y,
                     int64_t x) {
    if (block > 0) return (((n * (c / block) + ch / block) * h + y) * w + x) * block + ch % block;
    return nhwc ? ((n * h + y) * w + x) * c + ch : ((n * c + ch) * h + y) * w + x;
}

// Image access in any layout, logical (n, c, y, x), over floats (a Tensor) or
// doubles (an intermediate of a chain).
template <typename Data>
struct ImageOf {
    const Data &data;
    bool nhwc;
    int64_t c, h, w;
    int64_t block = 0;  // channel-blocked NCHW[block]c when positive
    double at(int64_t n, int64_t ch, int64_t y, int64_t x) const {
        return data[size_t(image_offset(nhwc, block, c, h, w, n, ch, y, x))];
    }
};

using Image = ImageOf<decltype(Tensor::data)>;

// The convolution's sums in double, in the output's layout.
template <typename In>
std::vector<double> conv_sums(const ConvParams &p, const In &img, const Tensor &wt) {
    const int64_t cg = p.c / p.groups, ocg = p.oc / p.groups;
    std::vector<double> out(size_t(p.n * p.oc * p.oh * p.ow));
    for (int64_t n = 0; n < p.n; n++)
        for (int64_t o = 0; o < p.oc; o++)
            for (int64_t y = 0; y < p.oh; y++)
                for (int64_t x = 0; x < p.ow; x++) {
                    double acc = 0;
                    const int64_t g = o / ocg;
                    for (int64_t ci = 0; ci < (p.depthwise ? 1 : cg); ci++)
                        for (int64_t ky = 0; ky < p.kh; ky++)
                            for (int64_t kx = 0; kx < p.kw; kx++) {
                                int64_t iy = y * p.stride + ky * p.dilation - p.pad;
                                int64_t ix = x * p.stride + kx * p.dilation - p.pad;
                                if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) continue;
                                int64_t ch = p.depthwise ? o : g * cg + ci;
                                double wv;
                                if (p.packed || (p.depthwise && p.blocked)) {
                                    // Panel o / block, then [c][kh][kw] (depthwise: [kh][kw]), lane o % block.
                                    const int64_t per_panel = p.depthwise ? 1 : cg;
                                    wv = wt.data[(((o / p.block * per_panel + ci) * p.kh + ky) * p.kw + kx) * p.block +
                                                 o % p.block];
                                } else if (p.depthwise) {
                                    wv = p.nhwc ? wt.data[(ky * p.kw + kx) * p.c + o]
                                                : wt.data[(o * p.kh + ky) * p.kw + kx];
                                } else {
                                    wv = p.nhwc ? wt.data[((ky * p.kw + kx) * cg + ci) * p.oc + o]
                                                : wt.data[((o * cg + ci) * p.kh + ky) * p.kw + kx];
                                }
                                acc += img.at(n, ch, iy, ix) * wv;
                            }
                    out[image_offset(p.nhwc, p.blocked ? p.block : 0, p.oc, p.oh, p.ow, n, o, y, x)] = acc;
                }
    return out;
}

Tensor conv_ref(const ConvParams &p, const std::vector<Tensor> &in) {
    const std::vector<double> sums =
        conv_sums(p, Image{in[0].data, p.nhwc, p.c, p.h, p.w, p.blocked ? p.block : 0}, in[1]);
    Tensor out(p.blocked ? Shape{p.n, p.oc / p.block, p.oh, p.ow, p.block}
               : p.nhwc  ? Shape{p.n, p.oh, p.ow, p.oc}
                         : Shape{p.n, p.oc, p.oh, p.ow});
    for (size_t i = 0; i < sums.size(); i++) out.data[i] = float(sums[i]);
    return out;
}

Tensor pool_ref(const PoolParams &p, const std::vector<Tensor> &in) {
    const int64_t block = p.blocked ? p.block : 0;
    Image img{in[0].data, p.nhwc, p.c, p.h, p.w, block};
    if (p.kind == PoolKind::GlobalAvg) {
        Tensor out(p.blocked ? Shape{p.n, p.c / p.block, p.block} : Shape{p.n, p.c});  // the same order
        for (int64_t n = 0; n < p.n; n++)
            for (int64_t c = 0; c < p.c; c++) {
                double acc = 0;
                for (int64_t y = 0; y < p.h; y++)
                    for (int64_t x = 0; x < p.w; x++) acc += img.at(n, c, y, x);
                out.data[n * p.c + c] = float(acc / double(p.h * p.w));
            }
        return out;
    }
    Tensor out(p.blocked ? Shape{p.n, p.c / p.block, p.oh, p.ow, p.block}
               : p.nhwc  ? Shape{p.n, p.oh, p.ow, p.c}
                         : Shape{p.n, p.c, p.oh, p.ow});
    for (int64_t n = 0; n < p.n; n++)
        for (int64_t c = 0; c < p.c; c++)
            for (int64_t y = 0; y < p.oh; y++)
                for (int64_t x = 0; x < p.ow; x++) {
                    double acc = p.kind == PoolKind::Max ? -INFINITY : 0.0;
                    int64_t count = 0, padded_count = 0;
                    for (int64_t ky = 0; ky < p.kh; ky++)
                        for (int64_t kx = 0; kx < p.kw; kx++) {
                            int64_t iy = y * p.stride + ky - p.pad, ix = x * p.stride + kx - p.pad;
                            // count_include_pad counts the padding, not what a ceil_mode
                            // window reaches past it.
                            if (iy < p.h + p.pad && ix < p.w + p.pad) padded_count++;
                            if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) continue;
                            double v = img.at(n, c, iy, ix);
                            acc = p.kind == PoolKind::Max ? std::max(acc, v) : acc + v;
                            count++;
                        }
                    if (p.kind == PoolKind::Avg) acc /= double(p.count_include_pad ? padded_count : count);
                    out.data[image_offset(p.nhwc, block, p.c, p.oh, p.ow, n, c, y, x)] = float(acc);
                }
    return out;
}

Tensor reduce_ref(const ReduceParams &p, const std::vector<Tensor> &in) {
    const Tensor &x = in[0];
    // Each output's reduced elements, in double, then the kind's formula.
    std::vector<std::vector<double>> groups(num_elements(p.out_shape));
    for_each_index(p.shape, [&](const std::vector<int64_t> &idx) {
        int64_t o = 0;
        for (size_t i = 0; i < idx.size(); i++) {
            if (std::find(p.axes.begin(), p.axes.end(), int(i)) == p.axes.end()) o = o * p.shape[i] + idx[i];
        }
        groups[o].push_back(x.data[offset(x, idx)]);
    });
    Tensor out(p.out_shape);
    for (size_t i = 0; i < groups.size(); i++) {
        const std::vector<double> &g = groups[i];
        double v = 0;
        switch (p.kind) {
        case ReduceKind::Sum: for (double e : g) v += e; break;
        case ReduceKind::Mean: for (double e : g) v += e; v /= double(g.size()); break;
        case ReduceKind::Max: v = -INFINITY; for (double e : g) v = std::max(v, e); break;
        case ReduceKind::Min: v = INFINITY; for (double e : g) v = std::min(v, e); break;
        case ReduceKind::Prod: v = 1; for (double e : g) v *= e; break;
        case ReduceKind::L1: for (double e : g) v += std::abs(e); break;
        case ReduceKind::L2: for (double e : g) v += e * e; v = std::sqrt(v); break;
        case ReduceKind::LogSum: for (double e : g) v += e; v = std::log(v); break;
        case ReduceKind::LogSumExp: for (double e : g) v += std::exp(e); v = std::log(v); break;
        case ReduceKind::SumSquare: for (double e : g) v += e * e; break;
        }
        out.data[i] = float(v);
    }
    return out;
}

double unary_value(const UnaryParams &p, double x) {
    switch (p.kind) {
    case UnaryKind::Relu: return x > 0 ? x : 0;
    case UnaryKind::Gelu: return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    case UnaryKind::GeluErf: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    case UnaryKind::Sigmoid: return 1 / (1 + std::exp(-x));
    case UnaryKind::Tanh: return std::tanh(x);
    case UnaryKind::Exp: return std::exp(x);
    case UnaryKind::Sqrt: return std::sqrt(x);
    case UnaryKind::Erf: return std::erf(x);
    case UnaryKind::Neg: return -x;
    case UnaryKind::Reciprocal: return 1 / x;
    case UnaryKind::Clip: return std::min(std::max(x, p.lo), p.hi);
    case UnaryKind::HardSigmoid: return std::max(0.0, std::min(1.0, p.alpha * x + p.beta));
    case UnaryKind::HardSwish: return x * std::max(0.0, std::min(1.0, x / 6 + 0.5));
    case UnaryKind::LeakyRelu: return x >= 0 ? x : p.alpha * x;
    case UnaryKind::Elu: return x >= 0 ? x : p.alpha * (std::exp(x) - 1);
    case UnaryKind::Selu: return p.gamma * (x > 0 ? x : p.alpha * (std::exp(x) - 1));
    case UnaryKind::Softplus: return std::log1p(std::exp(x));
    case UnaryKind::Abs: return std::abs(x);
    case UnaryKind::Log: return std::log(x);
    case UnaryKind::Softsign: return x / (1 + std::abs(x));
    case UnaryKind::Mish: return x * std::tanh(std::log1p(std::exp(x)));
    case UnaryKind::Sin: return std::sin(x);
    case UnaryKind::Cos: return std::cos(x);
    case UnaryKind::Floor: return std::floor(x);
    case UnaryKind::Ceil: return std::ceil(x);
    case UnaryKind::Round: return std::nearbyint(x);  // the default rounding mode: halves to even
    case UnaryKind::Sign: return x > 0 ? 1 : x < 0 ? -1 : 0;
    case UnaryKind::Tan: return std::tan(x);
    case UnaryKind::Asin: return std::asin(x);
    case UnaryKind::Acos: return std::acos(x);
    case UnaryKind::Atan: return std::atan(x);
    case UnaryKind::Sinh: return std::sinh(x);
    case UnaryKind::Cosh: return std::cosh(x);
    case UnaryKind::Asinh: return std::asinh(x);
    case UnaryKind::Acosh: return std::acosh(x);
    case UnaryKind::Atanh: return std::atanh(x);
    case UnaryKind::ThresholdedRelu: return x > p.alpha ? x : 0;
    case UnaryKind::Shrink: return x < -p.alpha ? x + p.beta : x > p.alpha ? x - p.beta : 0;
    case UnaryKind::Celu: return std::max(0.0, x) + std::min(0.0, p.alpha * std::expm1(x / p.alpha));
    }
    return x;
}

double binary_value(BinaryKind kind, double a, double b) {
    switch (kind) {
    case BinaryKind::Add: return a + b;
    case BinaryKind::Sub: return a - b;
    case BinaryKind::Mul: return a * b;
    case BinaryKind::Div: return a / b;
    case BinaryKind::Pow: return std::pow(a, b);
    case BinaryKind::Max: return std::max(a, b);
    case BinaryKind::Min: return std::min(a, b);
    case BinaryKind::Prelu: return a < 0 ? a * b : a;
    }
    return a;
}

Tensor unary_ref(const UnaryParams &p, const std::vector<Tensor> &in) {
    Tensor out(p.shape);
    for (size_t i = 0; i < out.size(); i++) out.data[i] = float(unary_value(p, in[0].data[i]));
    return out;
}

Tensor binary_ref(const BinaryParams &p, const std::vector<Tensor> &in) {
    const Tensor &a = in[0], &b = in[1];
    Tensor out(p.out_shape);
    size_t rank = p.out_shape.size();
    auto source_index = [&](const Tensor &t, const std::vector<int64_t> &idx) {
        std::vector<int64_t> sub;
        for (size_t i = rank - t.shape.size(); i < rank; i++) {
            sub.push_back(t.shape[i - (rank - t.shape.size())] == 1 ? 0 : idx[i]);
        }
        return offset(t, sub);
    };
    for_each_index(p.out_shape, [&](const std::vector<int64_t> &idx) {
        double va = a.data[source_index(a, idx)], vb = b.data[source_index(b, idx)];
        out.data[offset(out, idx)] = float(binary_value(p.kind, va, vb));
    });
    return out;
}

Tensor bias_add_ref(const BiasAddParams &p, const std::vector<Tensor> &in) {
    Tensor out(p.shape);
    for_each_index(p.shape, [&](const std::vector<int64_t> &idx) {
        int64_t o = offset(out, idx);
        out.data[o] = float(double(in[0].data[o]) + in[1].data[idx[p.axis]]);
    });
    return out;
}

// Applies fn to each 1-D row along `axis` (the row as doubles, written back as floats).
Tensor map_rows(const Tensor &x, int axis, const std::function<void(std::vector<double> &)> &fn) {
    Tensor out(x.shape);
    Shape outer = x.shape;
    outer[axis] = 1;
    const int64_t stride = x.strides()[axis], len = x.shape[axis];
    for_each_index(outer, [&](const std::vector<int64_t> &idx) {
        int64_t base = offset(x, idx);
        std::vector<double> row(len);
        for (int64_t i = 0; i < len; i++) row[i] = x.data[base + i * stride];
        fn(row);
        for (int64_t i = 0; i < len; i++) out.data[base + i * stride] = float(row[i]);
    });
    return out;
}

// exp(x - max) / sum(exp(x - max)) in place.
void softmax_row(std::vector<double> &row) {
    double mx = *std::max_element(row.begin(), row.end()), total = 0;
    for (double &v : row) total += (v = std::exp(v - mx));
    for (double &v : row) v /= total;
}

Tensor softmax_ref(const SoftmaxParams &p, const std::vector<Tensor> &in) {
    if (!p.log) return map_rows(in[0], p.axis, softmax_row);
    return map_rows(in[0], p.axis, [](std::vector<double> &row) {
        double mx = *std::max_element(row.begin(), row.end()), total = 0;
        for (double v : row) total += std::exp(v - mx);
        for (double &v : row) v = v - mx - std::log(total);
    });
}

Tensor layer_norm_ref(const NormParams &p, const std::vector<Tensor> &in) {
    return map_rows(in[0], p.axis, [&](std::vector<double> &row) {
        double mean = 0, var = 0;
        for (double v : row) mean += v;
        mean /= double(row.size());
        for (double v : row) var += (v - mean) * (v - mean);
        var /= double(row.size());
        for (size_t i = 0; i < row.size(); i++) {
            row[i] = (row[i] - mean) / std::sqrt(var + p.epsilon) * in[1].data[i] + in[2].data[i];
        }
    });
}

Tensor batch_norm_ref(const NormParams &p, const std::vector<Tensor> &in) {
    Tensor out(p.shape);
    for_each_index(p.shape, [&](const std::vector<int64_t> &idx) {
        int64_t c = idx[p.axis], o = offset(out, idx);
        double inv_std = 1.0 / std::sqrt(double(in[4].data[c]) + p.epsilon);
        out.data[o] = float((in[0].data[o] - double(in[3].data[c])) * inv_std * in[1].data[c] + in[2].data[c]);
    });
    return out;
}

Tensor transpose_ref(const TransposeParams &p, const std::vector<Tensor> &in) {
    const Tensor &x = in[0];
    Tensor out(p.out_shape);
    for_each_index(p.out_shape, [&](const std::vector<int64_t> &idx) {
        std::vector<int64_t> src(idx.size());
        for (size_t i = 0; i < idx.size(); i++) src[p.perm[i]] = idx[i];
        out.data[offset(out, idx)] = x.data[offset(x, src)];
    });
    return out;
}

Tensor pad_ref(const PadParams &p, const std::vector<Tensor> &in) {
    const Tensor &x = in[0];
    Tensor out(p.out_shape);
    for_each_index(p.out_shape, [&](const std::vector<int64_t> &idx) {
        std::vector<int64_t> src(idx.size());
        bool inside = true;
        for (size_t i = 0; i < idx.size(); i++) {
            src[i] = idx[i] - p.before[i];
            inside = inside && src[i] >= 0 && src[i] < p.shape[i];
        }
        out.data[offset(out, idx)] = inside ? x.data[offset(x, src)] : float(p.value);
    });
    return out;
}

Tensor norm_ref(const NormParams &p, const std::vector<Tensor> &in) {
    return p.batch_norm ? batch_norm_ref(p, in) : layer_norm_ref(p, in);
}

// The chains keep their intermediates in double: the chain's exact value, whatever
// precision a kernel keeps between its stages.

// sum over r < n of a[r * stride_a] * b[r * stride_b], in double.
double dot(const float *a, int64_t stride_a, const float *b, int64_t stride_b, int64_t n) {
    double acc = 0;
    for (int64_t r = 0; r < n; r++) acc += double(a[r * stride_a]) * b[r * stride_b];
    return acc;
}

// A chain of two batched GEMMs row by row: `first_row(b, i, row)` fills row i of batch
// b of the first stage (its product and whatever follows it, L values), which is
// multiplied by second[b] ([L, N]) into the output [batch, M, N].
Tensor two_gemm_rows(int64_t batch, int64_t m, int64_t n, int64_t l, const Tensor &second,
                     const std::function<void(int64_t, int64_t, std::vector<double> &)> &first_row) {
    Tensor out({batch, m, n});
    std::vector<double> row(static_cast<size_t>(l));
    for (int64_t b = 0; b < batch; b++)
        for (int64_t i = 0; i < m; i++) {
            first_row(b, i, row);
            for (int64_t c = 0; c < n; c++) {
                double acc = 0;
                for (int64_t j = 0; j < l; j++) acc += row[j] * second.data[(b * l + j) * n + c];
                out.data[(b * m + i) * n + c] = float(acc);
            }
        }
    return out;
}

Tensor attention_ref(const AttentionParams &p, const std::vector<Tensor> &in) {
    const Tensor &q = in[0], &k = in[1];
    return two_gemm_rows(p.batch, p.m, p.n, p.l, in[2], [&](int64_t b, int64_t i, std::vector<double> &row) {
        const float *q_row = q.data.data() + (b * p.m + i) * p.k;
        for (int64_t j = 0; j < p.l; j++) {
            const double score = dot(q_row, 1, k.data.data() + (b * p.l + j) * p.k, 1, p.k);
            row[j] = p.scale * score + (p.mask ? double(in[3].data[(b * p.m + i) * p.l + j]) : 0.0);
        }
        softmax_row(row);
    });
}

Tensor gemm_chain_ref(const GemmChainParams &p, const std::vector<Tensor> &in) {
    const Tensor &a = in[0], &b1 = in[1];
    UnaryParams f;
    f.kind = p.between == ChainBetween::Gelu ? UnaryKind::Gelu : UnaryKind::Relu;
    return two_gemm_rows(p.batch, p.m, p.n, p.l, in[2], [&](int64_t b, int64_t i, std::vector<double> &row) {
        const float *a_row = a.data.data() + (b * p.m + i) * p.k;
        for (int64_t j = 0; j < p.l; j++) {
            const double x = dot(a_row, 1, b1.data.data() + b * p.k * p.l + j, p.l, p.k);
            row[j] = p.between == ChainBetween::None    ? x
                     : p.between == ChainBetween::Scale ? p.scale * x
                                                        : unary_value(f, x);
        }
    });
}

Tensor conv_chain_ref(const ConvChainParams &p, const std::vector<Tensor> &in) {
    const ConvParams first = p.first(), second = p.second();
    std::vector<double> mid = conv_sums(first, Image{in[0].data, p.nhwc, p.c, p.h, p.w}, in[1]);
    for (int64_t n = 0; n < p.n; n++)
        for (int64_t c = 0; c < p.oc1; c++)
            for (int64_t y = 0; y < p.h1; y++)
                for (int64_t x = 0; x < p.w1; x++) {
                    double &m = mid[image_offset(p.nhwc, 0, p.oc1, p.h1, p.w1, n, c, y, x)];
                    m = std::max(m + in[2].data[c], 0.0);
                }
    const ImageOf<std::vector<double>> relu{mid, p.nhwc, p.oc1, p.h1, p.w1};
    const std::vector<double> sums = conv_sums(second, relu, in[3]);
    Tensor out(p.nhwc ? Shape{p.n, p.oh, p.ow, p.oc2} : Shape{p.n, p.oc2, p.oh, p.ow});
    for (int64_t n = 0; n < p.n; n++)
        for (int64_t c = 0; c < p.oc2; c++)
            for (int64_t y = 0; y < p.oh; y++)
                for (int64_t x = 0; x < p.ow; x++) {
                    const int64_t o = image_offset(p.nhwc, 0, p.oc2, p.oh, p.ow, n, c, y, x);
                    out.data[o] = float(sums[o] + in[4].data[c]);
                }
    return out;
}

// Every output element from its source element, zero past the split axis' end.
// unpack_panels: each element of the unpacked shape read from its block.
Tensor unpack_ref(const PackParams &p, const Tensor &packed) {
    Tensor out(p.shape);
    const size_t axis = size_t(p.axis);
    for_each_index(p.shape, [&](const std::vector<int64_t> &o) {
        std::vector<int64_t> src = o;
        src[axis] = o[axis] / p.block;
        src.push_back(o[axis] % p.block);
        out.data[size_t(offset(out, o))] = packed.data[size_t(offset(packed, src))];
    });
    return out;
}

Tensor pack_ref(const PackParams &p, const std::vector<Tensor> &in) {
    if (p.unpack) return unpack_ref(p, in[0]);
    Tensor out(p.out_shape);
    const size_t rank = p.shape.size(), axis = size_t(p.axis);
    for_each_index(p.out_shape, [&](const std::vector<int64_t> &o) {
        std::vector<int64_t> src(rank);
        for (size_t a = 0; a < rank; a++) {
            const size_t pos = p.front ? (a == axis ? 0 : a < axis ? a + 1 : a) : a;
            src[a] = a == axis ? o[pos] * p.block + o[rank] : o[pos];
        }
        out.data[size_t(offset(out, o))] = src[axis] < p.shape[axis] ? in[0].data[size_t(offset(in[0], src))] : 0.0f;
    });
    return out;
}

// A row's reference: its params parser, then its loops.
template <auto parse, auto ref>
Tensor parsed(const OpConfig &config, const std::vector<Tensor> &inputs) {
    return ref(parse(config), inputs);
}

}  // namespace

const std::map<std::string, ReferenceFn> &reference_table() {
    static const std::map<std::string, ReferenceFn> table = {
        {"matmul", parsed<parse_matmul, matmul_ref>},
        {"conv", parsed<parse_conv, conv_ref>},
        {"pool", parsed<parse_pool, pool_ref>},
        {"reduce", parsed<parse_reduce, reduce_ref>},
        {"unary", parsed<parse_unary, unary_ref>},
        {"binary", parsed<parse_binary, binary_ref>},
        {"bias_add", parsed<parse_bias_add, bias_add_ref>},
        {"softmax", parsed<parse_softmax, softmax_ref>},
        {"norm", parsed<parse_norm, norm_ref>},
        {"transpose", parsed<parse_transpose, transpose_ref>},
        {"pad", parsed<parse_pad, pad_ref>},
        {"pack", parsed<parse_pack, pack_ref>},
        {"attention", parsed<parse_attention, attention_ref>},
        {"gemm_chain", parsed<parse_gemm_chain, gemm_chain_ref>},
        {"conv_chain", parsed<parse_conv_chain, conv_chain_ref>},
    };
    return table;
}

Tensor reference(const OpConfig &config, const std::vector<Tensor> &inputs) {
    const OpSignature sig = describe_op(config);
    if (inputs.size() != sig.inputs.size()) {
        throw OpError(config.op + ": reference expects " + std::to_string(sig.inputs.size()) + " inputs");
    }
    for (size_t i = 0; i < inputs.size(); i++) {
        if (inputs[i].shape != sig.inputs[i].shape) {
            throw OpError(config.op + ": input '" + sig.inputs[i].name + "' has shape " +
                          shape_to_string(inputs[i].shape) + ", expected " + shape_to_string(sig.inputs[i].shape));
        }
    }
    auto it = reference_table().find(op_row(config.op).id);
    if (it == reference_table().end()) throw OpError("internal: op '" + config.op + "' has no reference");
    return it->second(config, inputs);
}

}  // namespace tessera
