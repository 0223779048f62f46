// Elementwise ops: unary math, numpy-broadcast binary arithmetic, comparison, Clip,
// Where, Cast and Identity.
#include "onnx_dtype.h"
#include "op_rule.h"
#include "resolved_params.h"

namespace tessera::graph {

namespace {

bool same_shape(InferContext &ctx) {
    ctx.set_output(0, ctx.dtype(0), ctx.shape(0));
    return true;
}

// Every present input broadcast together (Add..Div, Pow, Equal, Where).
bool broadcast_all(InferContext &ctx, DType out) {
    Shape s;
    for (size_t k = 0; k < ctx.in.size(); k++) {
        auto b = broadcast_shapes(s, ctx.shape(k));
        if (!b) {
            std::string shapes;
            for (size_t j = 0; j < ctx.in.size(); j++)
                shapes += (j ? ", " : "") + shape_string(ctx.shape(j));
            ctx.fail("input shapes " + shapes + " do not broadcast");
        }
        s = *b;
    }
    ctx.set_output(0, out, s);
    return true;
}

void same_dtype(const InferContext &ctx, size_t a, size_t b) {
    if (ctx.has(a) && ctx.has(b) && ctx.dtype(a) != ctx.dtype(b))
        ctx.fail(std::string("inputs ") + std::to_string(a) + " and " + std::to_string(b) + " have dtypes " +
                 dtype_name(ctx.dtype(a)) + " and " + dtype_name(ctx.dtype(b)) + "; they must match");
}

OpRule unary(std::vector<DType> allowed) {
    OpRule r;
    r.check = [allowed](const InferContext &ctx) { ctx.require_dtype(0, allowed); };
    r.infer = same_shape;
    return r;
}

OpRule binary(bool comparison) {
    OpRule r;
    r.min_inputs = r.max_inputs = 2;
    r.check = [](const InferContext &ctx) {
        ctx.require_dtype(0, {DType::f32, DType::i64, DType::i32});
        same_dtype(ctx, 0, 1);
    };
    if (comparison) {
        r.dtype = [](const InferContext &) { return DType::boolean; };
        r.infer = [](InferContext &ctx) { return broadcast_all(ctx, DType::boolean); };
    } else {
        r.infer = [](InferContext &ctx) { return broadcast_all(ctx, ctx.dtype(0)); };
    }
    return r;
}

void check_clip(const InferContext &ctx) {
    if (ctx.opset < 11) {
        if (ctx.node.inputs.size() != 1) ctx.fail("before opset 11, min and max are attributes, not inputs");
        ctx.require_dtype(0, {DType::f32});
        return;
    }
    if (!ctx.node.attrs.empty()) ctx.fail("from opset 11 on, min and max are inputs, not attributes");
    ctx.require_dtype(0, {DType::f32, DType::i64, DType::i32});
    same_dtype(ctx, 0, 1);
    same_dtype(ctx, 0, 2);
}

bool infer_clip(InferContext &ctx) {
    for (size_t k = 1; k < 3; k++)
        if (ctx.has(k) && num_elements(ctx.shape(k)) != 1)
            ctx.fail((k == 1 ? "min" : "max") + std::string(" must be a scalar, got ") + shape_string(ctx.shape(k)));
    return same_shape(ctx);
}

} // namespace

std::optional<ClipBounds> clip_bounds(const InferContext &ctx) {
    ClipBounds b;
    if (ctx.opset < 11) {
        if (ctx.node.has_attr("min")) b.lo = ctx.node.get_float("min", 0.0f);
        if (ctx.node.has_attr("max")) b.hi = ctx.node.get_float("max", 0.0f);
        return b;
    }
    for (size_t k = 1; k <= 2; k++) {
        if (!ctx.has(k)) continue;
        const TensorData *bound = ctx.value(k);
        if (!bound) return std::nullopt;
        if (bound->size() != 1) ctx.fail((k == 1 ? "min" : "max") + std::string(" must be a scalar"));
        (k == 1 ? b.lo : b.hi) = bound->get(0);
    }
    return b;
}

namespace {

void check_cast(const InferContext &ctx) {
    if (!ctx.node.has_attr("to")) ctx.fail("attribute 'to' is required");
    int64_t to = ctx.node.get_int("to", 0);
    if (!dtype_from_onnx(int(to)))
        ctx.fail("cast to " + onnx_dtype_name(int(to)) + " is not supported (supported: " + supported_onnx_dtypes() +
                 ")");
}

} // namespace

void register_elementwise_rules(RuleTable &table) {
    for (const char *op : {"Sigmoid", "Tanh", "Erf", "Sqrt", "Exp", "Reciprocal", "Log", "Softsign", "Mish",
                           "Sin", "Cos", "Floor", "Ceil", "Round", "Sign", "Tan", "Asin", "Acos", "Atan", "Sinh",
                           "Cosh", "Asinh", "Acosh", "Atanh"})
        table[op] = unary({DType::f32});
    table["Relu"] = unary({DType::f32, DType::i64, DType::i32});
    table["Abs"] = unary({DType::f32, DType::i64, DType::i32});
    // Activations with ONNX's attributes (defaults as the operators define them).
    for (const auto &[op, attributes] : std::vector<std::pair<const char *, std::vector<std::string>>>{
             {"HardSigmoid", {"alpha", "beta"}}, {"HardSwish", {}}, {"LeakyRelu", {"alpha"}},
             {"Elu", {"alpha"}}, {"Selu", {"alpha", "gamma"}}, {"Softplus", {}}, {"ThresholdedRelu", {"alpha"}},
             {"Shrink", {"lambd", "bias"}}, {"Celu", {"alpha"}}}) {
        OpRule r = unary({DType::f32});
        r.attributes = attributes;
        table[op] = r;
    }
    table["Celu"].check = [check = table["Celu"].check](const InferContext &ctx) {
        check(ctx);
        if (ctx.node.get_float("alpha", 1.0f) == 0.0f) ctx.fail("alpha 0 is not allowed (x / alpha)");
    };
    // PRelu: the slope broadcasts to x (unidirectionally).
    OpRule prelu = binary(false);
    prelu.check = [](const InferContext &ctx) {
        ctx.require_dtype(0, {DType::f32});
        same_dtype(ctx, 0, 1);
    };
    table["PRelu"] = prelu;
    // ONNX's Gelu arrives in opset 20 (exact, or the tanh form with approximate =
    // "tanh"); graph/passes/rewrite_patterns also makes it from the Erf form PyTorch
    // exports at older opsets (x * 0.5 * (1 + erf(x / sqrt 2))).
    OpRule gelu = unary({DType::f32});
    gelu.attributes = {"approximate"};
    gelu.check = [](const InferContext &ctx) {
        ctx.require_dtype(0, {DType::f32});
        ctx.require_one_of("approximate", ctx.node.get_string("approximate", "none"), {"none", "tanh"});
    };
    table["Gelu"] = gelu;
    table["Neg"] = unary({DType::f32, DType::i64, DType::i32});
    table["Identity"] = unary({DType::f32, DType::i64, DType::i32, DType::boolean});
    // Dropout at inference: the identity, its ratio ignored, its mask all true
    // (expand_definitions makes it a constant). Training mode (random output) is not
    // compiled.
    OpRule dropout = unary({DType::f32});
    dropout.max_inputs = 3;  // data, ratio and training_mode (inputs from opset 12)
    dropout.max_outputs = 2;
    dropout.attributes = {"ratio", "seed", "is_test"};
    dropout.check = [](const InferContext &ctx) {
        ctx.require_dtype(0, {DType::f32});
        if (ctx.has(2)) {
            // Training mode drops nothing at ratio 0 (torchvision 0.14's Swin exports
            // its attention dropout so).
            const TensorData *training = ctx.value(2), *ratio = ctx.has(1) ? ctx.value(1) : nullptr;
            const bool drops_nothing = ratio && ratio->size() == 1 && ratio->get(0) == 0;
            if (!training || training->size() != 1 || (training->get(0) != 0 && !drops_nothing)) {
                ctx.fail("training_mode must be a constant false (or the ratio a constant 0): a training-mode "
                         "Dropout is not supported");
            }
        }
    };
    dropout.infer = [](InferContext &ctx) {
        ctx.set_output(0, ctx.dtype(0), ctx.shape(0));
        if (ctx.out.size() > 1) ctx.set_output(1, DType::boolean, ctx.shape(0));
        return true;
    };
    table["Dropout"] = dropout;
    // Max, Min, Sum and Mean of one or more inputs, numpy broadcasting (opset 8 on;
    // before it the shapes were equal, the same values).
    // Max, Min and Sum of integers too (index arithmetic), all inputs of one dtype.
    for (const char *op : {"Max", "Min", "Sum", "Mean"}) {
        OpRule r;
        r.min_inputs = 1;
        r.max_inputs = 1 << 16;
        r.check = [mean = std::string(op) == "Mean"](const InferContext &ctx) {
            for (size_t k = 0; k < ctx.in.size(); k++) {
                if (mean) ctx.require_dtype(k, {DType::f32});
                else ctx.require_dtype(k, {ctx.dtype(0)});
            }
            if (!mean) ctx.require_dtype(0, {DType::f32, DType::i64, DType::i32});
        };
        r.infer = [](InferContext &ctx) { return broadcast_all(ctx, ctx.dtype(0)); };
        table[op] = r;
    }
    for (const char *op : {"Add", "Sub", "Mul", "Div"})
        table[op] = binary(false);
    table["Equal"] = binary(true);
    table["Equal"].check = [](const InferContext &ctx) { same_dtype(ctx, 0, 1); };
    // Comparisons and logic (masks); the evaluator computes them, fold_constants folds
    // those of constants (attention masks built at export), compiled kernels do not.
    for (const char *op : {"Greater", "Less", "GreaterOrEqual", "LessOrEqual"}) table[op] = table["Equal"];
    OpRule logic = binary(true);
    logic.check = [](const InferContext &ctx) {
        ctx.require_dtype(0, {DType::boolean});
        ctx.require_dtype(1, {DType::boolean});
    };
    for (const char *op : {"And", "Or", "Xor"}) table[op] = logic;
    OpRule negation = unary({DType::boolean});
    table["Not"] = negation;

    OpRule pow = binary(false);
    pow.check = [](const InferContext &ctx) {
        ctx.require_dtype(0, {DType::f32, DType::i64, DType::i32});
        ctx.require_dtype(1, {DType::f32, DType::i64, DType::i32});
    };
    table["Pow"] = pow;

    // Mod (opset 10): integers with fmod 0 (the divisor's sign) or 1, floats with fmod 1.
    // Shape arithmetic folds it; compiled kernels compute the float form.
    OpRule mod = binary(false);
    mod.attributes = {"fmod"};
    mod.check = [](const InferContext &ctx) {
        ctx.require_dtype(0, {DType::f32, DType::i64, DType::i32});
        same_dtype(ctx, 0, 1);
        if (ctx.has(0) && ctx.dtype(0) == DType::f32 && ctx.node.get_int("fmod", 0) != 1)
            ctx.fail("fmod must be 1 for floating-point inputs");
    };
    mod.min_opset = 10;
    table["Mod"] = mod;

    OpRule clip;
    clip.attributes = {"min", "max"}; // before opset 11; from 11 on optional inputs
    clip.max_inputs = 3;
    clip.check = check_clip;
    clip.infer = infer_clip;
    table["Clip"] = clip;

    OpRule where;
    where.min_inputs = where.max_inputs = 3;
    where.check = [](const InferContext &ctx) {
        ctx.require_dtype(0, {DType::boolean});
        same_dtype(ctx, 1, 2);
    };
    where.dtype = [](const InferContext &ctx) { return ctx.dtype(1); };
    where.infer = [](InferContext &ctx) { return broadcast_all(ctx, ctx.dtype(1)); };
    table["Where"] = where;

    OpRule cast;
    cast.attributes = {"to", "saturate"};  // saturate (opset 19) concerns float8 targets only
    cast.check = check_cast;
    cast.dtype = [](const InferContext &ctx) { return *dtype_from_onnx(int(ctx.node.get_int("to", 0))); };
    cast.infer = [](InferContext &ctx) {
        ctx.set_output(0, *dtype_from_onnx(int(ctx.node.get_int("to", 0))), ctx.shape(0));
        return true;
    };
    table["Cast"] = cast;
}

} // namespace tessera::graph
