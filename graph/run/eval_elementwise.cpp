// Reference elementwise ops: unary math, broadcast binary arithmetic, Pow, Equal, Clip,
// Where, Cast, Identity. Floats compute in double; integers in int64.
#include "kernel.h"
#include "resolved_params.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tessera::graph {

namespace {

Kernel unary_float(double (*fn)(double)) {
    return [fn](KernelContext &kc) {
        const TensorData &x = kc.input(0);
        for (size_t k = 0; k < x.size(); k++)
            kc.out[0].f[k] = float(fn(x.f[k]));
    };
}

// A float op whose value depends on the node's attributes (an activation's slope).
Kernel unary_with_attributes(double (*fn)(const Node &, double)) {
    return [fn](KernelContext &kc) {
        const TensorData &x = kc.input(0);
        for (size_t k = 0; k < x.size(); k++)
            kc.out[0].f[k] = float(fn(kc.node(), x.f[k]));
    };
}

// Ops that exist for integers too (shape arithmetic).
Kernel unary_any(double (*f_fn)(double), int64_t (*i_fn)(int64_t)) {
    return [f_fn, i_fn](KernelContext &kc) {
        const TensorData &x = kc.input(0);
        TensorData &y = kc.out[0];
        for (size_t k = 0; k < x.size(); k++) {
            if (x.is_float())
                y.f[k] = float(f_fn(x.f[k]));
            else
                y.i[k] = i_fn(x.i[k]);
        }
    };
}

enum class BinOp { Add, Sub, Mul, Div, Pow, Equal, Prelu, Mod };

// A comparison or a logical op, broadcast; booleans are 0 and 1.
void compare(KernelContext &kc, const std::string &op) {
    const TensorData &a = kc.input(0), &b = kc.input(1);
    TensorData &y = kc.out[0];
    const std::vector<int64_t> ao = broadcast_offsets(a.shape, y.shape), bo = broadcast_offsets(b.shape, y.shape);
    const bool integers = !a.is_float() && !b.is_float();  // compared exactly, not as doubles
    for (size_t k = 0; k < ao.size(); k++) {
        const double x = a.get(size_t(ao[k])), z = b.get(size_t(bo[k]));
        if (integers && op != "And" && op != "Or" && op != "Xor") {
            const int64_t p = a.i[size_t(ao[k])], q = b.i[size_t(bo[k])];
            y.i[k] = op == "Greater" ? p > q : op == "Less" ? p < q : op == "GreaterOrEqual" ? p >= q : p <= q;
            continue;
        }
        const bool r = op == "Greater"          ? x > z
                       : op == "Less"           ? x < z
                       : op == "GreaterOrEqual" ? x >= z
                       : op == "LessOrEqual"    ? x <= z
                       : op == "And"            ? (x != 0) && (z != 0)
                       : op == "Or"             ? (x != 0) || (z != 0)
                                                : (x != 0) != (z != 0);  // Xor
        y.i[k] = r;
    }
}

void binary(KernelContext &kc, BinOp op) {
    const TensorData &a = kc.input(0), &b = kc.input(1);
    TensorData &y = kc.out[0];
    std::vector<int64_t> ao = broadcast_offsets(a.shape, y.shape), bo = broadcast_offsets(b.shape, y.shape);
    for (size_t k = 0; k < ao.size(); k++) {
        if (op == BinOp::Equal) {
            y.i[k] = a.is_float() ? a.f[ao[k]] == b.f[bo[k]] : a.i[ao[k]] == b.i[bo[k]];
        } else if (a.is_float()) {
            double x = a.f[ao[k]], z = b.get(bo[k]);
            double r = op == BinOp::Add   ? x + z
                       : op == BinOp::Sub ? x - z
                       : op == BinOp::Mul ? x * z
                       : op == BinOp::Div   ? x / z
                       : op == BinOp::Prelu ? (x < 0 ? x * z : x)
                       : op == BinOp::Mod   ? std::fmod(x, z)  // floats: fmod = 1, the dividend's sign
                                            : std::pow(x, z);
            y.f[k] = float(r);
        } else if (op == BinOp::Pow) {
            // Integer base: an integral exponent rounds the double result (exact for
            // anything int64 holds), a fractional one truncates as numpy's cast does.
            double x = double(a.i[ao[k]]), z = b.get(bo[k]), r = std::pow(x, z);
            y.i[k] = z == std::floor(z) ? std::llround(r) : int64_t(r);
            if (y.dtype == DType::i32) y.i[k] = int64_t(int32_t(y.i[k]));
        } else {
            int64_t x = a.i[ao[k]], z = b.i[bo[k]];
            if ((op == BinOp::Div || op == BinOp::Mod) && z == 0) kc.ic.fail("integer division by zero");
            int64_t r = op == BinOp::Add ? x + z : op == BinOp::Sub ? x - z : op == BinOp::Mul ? x * z : x / z;
            if (op == BinOp::Mod) {  // fmod = 0: the divisor's sign (Python's %); 1: the dividend's (C's)
                r = x % z;
                if (kc.node().get_int("fmod", 0) == 0 && r != 0 && ((r < 0) != (z < 0))) r += z;
            }
            y.i[k] = y.dtype == DType::i32 ? int64_t(int32_t(r)) : r;
        }
    }
}

// Max, Min, Sum or Mean of every input, broadcast to the output.
Kernel variadic(const std::string &op) {
    return [op](KernelContext &kc) {
        TensorData &y = kc.out[0];
        std::vector<std::vector<int64_t>> offsets;
        for (const TensorData *in : kc.in) offsets.push_back(broadcast_offsets(in->shape, y.shape));
        for (size_t e = 0; e < y.size(); e++) {
            if (!y.is_float()) {  // integers: exactly
                int64_t v = kc.in[0]->i[offsets[0][e]];
                for (size_t k = 1; k < kc.in.size(); k++) {
                    const int64_t x = kc.in[k]->i[offsets[k][e]];
                    v = op == "Max" ? std::max(v, x) : op == "Min" ? std::min(v, x) : v + x;
                }
                y.i[e] = v;
                continue;
            }
            double v = kc.in[0]->f[offsets[0][e]];
            for (size_t k = 1; k < kc.in.size(); k++) {
                const double x = kc.in[k]->f[offsets[k][e]];
                v = op == "Max" ? std::max(v, x) : op == "Min" ? std::min(v, x) : v + x;
            }
            y.f[e] = float(op == "Mean" ? v / double(kc.in.size()) : v);
        }
    };
}

void clip(KernelContext &kc) {
    const TensorData &x = kc.input(0);
    TensorData &y = kc.out[0];
    const TensorData *lo = kc.in.size() > 1 ? kc.in[1] : nullptr;
    const TensorData *hi = kc.in.size() > 2 ? kc.in[2] : nullptr;
    if (kc.ic.opset < 11) {  // bounds as attributes
        const ClipBounds b = *clip_bounds(kc.ic);
        const double l = b.lo.value_or(-std::numeric_limits<double>::infinity());
        const double h = b.hi.value_or(std::numeric_limits<double>::infinity());
        for (size_t k = 0; k < x.size(); k++)
            y.f[k] = float(std::min(std::max(double(x.f[k]), l), h));
    } else if (x.is_float()) {
        double l = lo ? lo->f[0] : -std::numeric_limits<double>::infinity();
        double h = hi ? hi->f[0] : std::numeric_limits<double>::infinity();
        for (size_t k = 0; k < x.size(); k++)
            y.f[k] = float(std::min(std::max(double(x.f[k]), l), h));
    } else {
        int64_t l = lo ? lo->i[0] : std::numeric_limits<int64_t>::min();
        int64_t h = hi ? hi->i[0] : std::numeric_limits<int64_t>::max();
        for (size_t k = 0; k < x.size(); k++)
            y.i[k] = std::min(std::max(x.i[k], l), h);
    }
}

void where(KernelContext &kc) {
    const TensorData &c = kc.input(0), &a = kc.input(1), &b = kc.input(2);
    TensorData &y = kc.out[0];
    std::vector<int64_t> co = broadcast_offsets(c.shape, y.shape), ao = broadcast_offsets(a.shape, y.shape),
                         bo = broadcast_offsets(b.shape, y.shape);
    for (size_t k = 0; k < co.size(); k++) {
        if (c.i[co[k]])
            copy_element(a, ao[k], y, k);
        else
            copy_element(b, bo[k], y, k);
    }
}

void cast(KernelContext &kc) {
    const TensorData &x = kc.input(0);
    TensorData &y = kc.out[0];
    for (size_t k = 0; k < x.size(); k++) {
        if (!x.is_float() && !y.is_float())
            y.i[k] = y.dtype == DType::boolean ? x.i[k] != 0
                     : y.dtype == DType::i32   ? int64_t(int32_t(x.i[k]))
                                               : x.i[k];
        else
            y.set(k, x.get(k)); // float -> int truncates toward zero, as C casts do
    }
}

double relu(double v) {
    return v > 0 ? v : 0;
}
int64_t relu_i(int64_t v) {
    return v > 0 ? v : 0;
}
double neg(double v) {
    return -v;
}
int64_t neg_i(int64_t v) {
    return -v;
}
double abs_f(double v) {
    return std::abs(v);
}
int64_t abs_i(int64_t v) {
    return v < 0 ? -v : v;
}
double sigmoid(double v) {
    return 1.0 / (1.0 + std::exp(-v));
}
double reciprocal(double v) {
    return 1.0 / v;
}

} // namespace

void register_elementwise_kernels(KernelTable &table) {
    table["Sigmoid"] = unary_float(sigmoid);
    table["Tanh"] = unary_float([](double v) { return std::tanh(v); });
    table["Erf"] = unary_float([](double v) { return std::erf(v); });
    table["Gelu"] = [](KernelContext &kc) {
        if (kc.ic.node.get_string("approximate", "none") == "tanh") {
            unary_float([](double v) {
                return 0.5 * v * (1 + std::tanh(std::sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
            })(kc);
        } else {
            unary_float([](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); })(kc);
        }
    };
    table["Sqrt"] = unary_float([](double v) { return std::sqrt(v); });
    table["Exp"] = unary_float([](double v) { return std::exp(v); });
    table["Reciprocal"] = unary_float(reciprocal);
    table["Relu"] = unary_any(relu, relu_i);
    table["HardSigmoid"] = unary_with_attributes([](const Node &n, double v) {
        return std::max(0.0, std::min(1.0, n.get_float("alpha", 0.2f) * v + n.get_float("beta", 0.5f)));
    });
    table["HardSwish"] = unary_float([](double v) { return v * std::max(0.0, std::min(1.0, v / 6 + 0.5)); });
    table["LeakyRelu"] = unary_with_attributes(
        [](const Node &n, double v) { return v >= 0 ? v : n.get_float("alpha", 0.01f) * v; });
    table["Elu"] = unary_with_attributes(
        [](const Node &n, double v) { return v >= 0 ? v : n.get_float("alpha", 1.0f) * (std::exp(v) - 1); });
    table["Selu"] = unary_with_attributes([](const Node &n, double v) {
        const double alpha = n.get_float("alpha", 1.67326319217681884765625f);
        return n.get_float("gamma", 1.05070102214813232421875f) * (v > 0 ? v : alpha * (std::exp(v) - 1));
    });
    table["Abs"] = unary_any(abs_f, abs_i);
    table["Log"] = unary_float([](double v) { return std::log(v); });
    table["Softsign"] = unary_float([](double v) { return v / (1 + std::abs(v)); });
    table["Mish"] = unary_float([](double v) { return v * std::tanh(v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v))); });
    table["Sin"] = unary_float([](double v) { return std::sin(v); });
    table["Cos"] = unary_float([](double v) { return std::cos(v); });
    table["Floor"] = unary_float([](double v) { return std::floor(v); });
    table["Ceil"] = unary_float([](double v) { return std::ceil(v); });
    table["Round"] = unary_float([](double v) { return std::nearbyint(v); });  // halves to even
    table["Sign"] = unary_float([](double v) { return double((v > 0) - (v < 0)); });
    table["Tan"] = unary_float([](double v) { return std::tan(v); });
    table["Asin"] = unary_float([](double v) { return std::asin(v); });
    table["Acos"] = unary_float([](double v) { return std::acos(v); });
    table["Atan"] = unary_float([](double v) { return std::atan(v); });
    table["Sinh"] = unary_float([](double v) { return std::sinh(v); });
    table["Cosh"] = unary_float([](double v) { return std::cosh(v); });
    table["Asinh"] = unary_float([](double v) { return std::asinh(v); });
    table["Acosh"] = unary_float([](double v) { return std::acosh(v); });
    table["Atanh"] = unary_float([](double v) { return std::atanh(v); });
    table["ThresholdedRelu"] = unary_with_attributes(
        [](const Node &n, double v) { return v > n.get_float("alpha", 1.0f) ? v : 0.0; });
    table["Shrink"] = unary_with_attributes([](const Node &n, double v) {
        const double lambd = n.get_float("lambd", 0.5f), bias = n.get_float("bias", 0.0f);
        return v < -lambd ? v + bias : v > lambd ? v - bias : 0.0;
    });
    table["Celu"] = unary_with_attributes([](const Node &n, double v) {
        const double alpha = n.get_float("alpha", 1.0f);
        return std::max(0.0, v) + std::min(0.0, alpha * std::expm1(v / alpha));
    });
    table["Softplus"] = unary_float([](double v) { return v > 0 ? v + std::log1p(std::exp(-v)) : std::log1p(std::exp(v)); });
    table["PRelu"] = [](KernelContext &kc) { binary(kc, BinOp::Prelu); };
    table["Neg"] = unary_any(neg, neg_i);
    table["Identity"] = [](KernelContext &kc) { kc.out[0] = kc.input(0); };
    table["Dropout"] = [](KernelContext &kc) {  // at inference: the identity, the mask all true
        kc.out[0] = kc.input(0);
        if (kc.out.size() > 1)
            for (size_t k = 0; k < kc.out[1].size(); k++) kc.out[1].i[k] = 1;
    };
    for (const char *op : {"Max", "Min", "Sum", "Mean"}) table[op] = variadic(op);
    table["Add"] = [](KernelContext &kc) { binary(kc, BinOp::Add); };
    table["Sub"] = [](KernelContext &kc) { binary(kc, BinOp::Sub); };
    table["Mul"] = [](KernelContext &kc) { binary(kc, BinOp::Mul); };
    table["Div"] = [](KernelContext &kc) { binary(kc, BinOp::Div); };
    table["Pow"] = [](KernelContext &kc) { binary(kc, BinOp::Pow); };
    table["Mod"] = [](KernelContext &kc) { binary(kc, BinOp::Mod); };
    table["Equal"] = [](KernelContext &kc) { binary(kc, BinOp::Equal); };
    for (const char *op : {"Greater", "Less", "GreaterOrEqual", "LessOrEqual", "And", "Or", "Xor"}) {
        const std::string name = op;
        table[op] = [name](KernelContext &kc) { compare(kc, name); };
    }
    table["Not"] = [](KernelContext &kc) {
        for (size_t k = 0; k < kc.out[0].size(); k++) kc.out[0].i[k] = kc.input(0).i[k] == 0;
    };
    table["Clip"] = clip;
    table["Where"] = where;
    table["Cast"] = cast;
}

} // namespace tessera::graph
