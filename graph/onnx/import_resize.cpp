// GridSample's attributes; Resize (opset 10 on; opsets 11-19 with roi, scales or sizes
// as inputs) and Upsample (opsets 7-9): nearest, (multi)linear and (multi)cubic sampling, every coordinate
// transformation but tf_crop_and_resize. resize_taps resolves each output position of
// each axis into the input positions it reads and their weights, once, for the shape
// rule, the evaluator and the lowering.
#include "resolved_params.h"

#include <cmath>

namespace tessera::graph {

namespace {

// The scales (or the sizes) from the attribute (Upsample 7) or the inputs; nullopt
// while an input is not a constant.
std::optional<std::vector<double>> resize_scales(const InferContext &ctx, Shape *sizes) {
    const int64_t r = ctx.rank(0);
    const bool upsample = ctx.node.op_type == "Upsample";
    std::vector<double> scales;
    if (upsample && ctx.opset < 9) {
        for (float s : ctx.node.get_floats("scales", {})) scales.push_back(s);
    } else {
        // Upsample 9 and Resize 10: X, scales; Resize 11 on: X, roi, scales, sizes.
        const size_t scales_at = upsample || ctx.opset < 11 ? 1 : 2, sizes_at = 3;
        if (ctx.has(sizes_at)) {
            auto v = ctx.int_values(sizes_at);
            if (!v) return std::nullopt;
            if (int64_t(v->size()) != r) ctx.fail("sizes has " + std::to_string(v->size()) + " values for rank " + std::to_string(r));
            *sizes = *v;
            for (int64_t a = 0; a < r; a++) scales.push_back(double((*v)[a]) / double(ctx.shape(0)[a]));
            return scales;
        }
        if (!ctx.has(scales_at)) ctx.fail("neither scales nor sizes is given");
        const TensorData *s = ctx.value(scales_at);
        if (!s) return std::nullopt;
        for (size_t k = 0; k < s->size(); k++) scales.push_back(s->get(k));
    }
    if (int64_t(scales.size()) != r) ctx.fail("scales has " + std::to_string(scales.size()) + " values for rank " + std::to_string(r));
    sizes->clear();
    for (int64_t a = 0; a < r; a++) {
        if (!(scales[a] > 0)) ctx.fail("scale " + std::to_string(scales[a]) + " is not positive");
        sizes->push_back(int64_t(std::floor(double(ctx.shape(0)[a]) * scales[a])));
    }
    return scales;
}

void check_resize(const InferContext &ctx) {
    const bool legacy = ctx.node.op_type == "Upsample" || ctx.opset < 11;  // asymmetric, floor
    ctx.require_one_of("mode", ctx.node.get_string("mode", "nearest"), {"nearest", "linear", "bilinear", "cubic"});
    if (!legacy) {
        ctx.require_one_of("coordinate_transformation_mode",
                           ctx.node.get_string("coordinate_transformation_mode", "half_pixel"),
                           {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn",
                            "half_pixel_symmetric"});
        ctx.require_one_of("nearest_mode", ctx.node.get_string("nearest_mode", "round_prefer_floor"),
                           {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"});
    }
    if (ctx.node.get_int("antialias", 0) != 0) ctx.fail("antialias is not supported");
    if (ctx.node.has_attr("axes")) ctx.fail("the axes attribute is not supported (scales or sizes for every axis)");
    if (ctx.node.get_string("keep_aspect_ratio_policy", "stretch") != "stretch")
        ctx.fail("keep_aspect_ratio_policy other than stretch is not supported");
    ctx.require_dtype(0, {DType::f32});
}

bool infer_resize(InferContext &ctx) {
    Shape sizes;
    if (!resize_scales(ctx, &sizes)) return false;
    for (int64_t s : sizes)
        if (s < 1) ctx.fail("the output " + shape_string(sizes) + " is empty");
    ctx.set_output(0, DType::f32, sizes);
    return true;
}

} // namespace

std::vector<double> cubic_weights(double s, double a) {
    auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; };       // |d| <= 1
    auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; };  // 1 < |d| < 2
    return {far(1 + s), near(s), near(1 - s), far(2 - s)};
}

std::optional<std::vector<ResizeTaps>> resize_taps(const InferContext &ctx) {
    Shape sizes;
    const auto scales = resize_scales(ctx, &sizes);
    if (!scales) return std::nullopt;
    const bool legacy = ctx.node.op_type == "Upsample" || ctx.opset < 11;
    const std::string mode = ctx.node.get_string("mode", "nearest");
    const bool linear = mode == "linear" || mode == "bilinear";
    const double cubic_a = ctx.node.get_float("cubic_coeff_a", -0.75f);
    const bool exclude_outside = ctx.node.get_int("exclude_outside", 0) != 0;
    const std::string transform =
        legacy ? "asymmetric" : ctx.node.get_string("coordinate_transformation_mode", "half_pixel");
    const std::string nearest = legacy ? "floor" : ctx.node.get_string("nearest_mode", "round_prefer_floor");
    std::vector<ResizeTaps> taps(sizes.size());
    for (size_t a = 0; a < sizes.size(); a++) {
        const int64_t in = ctx.shape(0)[a], out = sizes[a];
        const double scale = (*scales)[a];
        ResizeTaps &t = taps[a];
        t.index.assign(mode == "cubic" ? 4 : linear ? 2 : 1, {});
        t.weight.assign(t.index.size(), {});
        for (int64_t i = 0; i < out; i++) {
            double x = 0;  // the output position's coordinate in the input
            if (transform == "align_corners") {
                // The resized length as scale x length, unrounded (as ONNX's reference has it).
                const double length = double(in) * scale;
                x = length <= 1 ? 0 : double(i) * double(in - 1) / (length - 1);
            } else if (transform == "asymmetric") {
                x = double(i) / scale;
            } else if (transform == "tf_half_pixel_for_nn") {
                x = (double(i) + 0.5) / scale;
            } else if (transform == "pytorch_half_pixel") {
                x = out > 1 ? (double(i) + 0.5) / scale - 0.5 : 0;
            } else if (transform == "half_pixel_symmetric") {
                const double adjusted = double(out) / scale, offset = double(in) / 2 * (1 - adjusted / double(in));
                x = offset + (double(i) + 0.5) / scale - 0.5;
            } else {  // half_pixel
                x = (double(i) + 0.5) / scale - 0.5;
            }
            auto clamp = [&](int64_t k) { return std::min<int64_t>(std::max<int64_t>(k, 0), in - 1); };
            if (mode == "cubic") {
                // Taps past the ends read the edge, or (exclude_outside) weigh 0 with
                // the others scaled to sum to 1.
                const double lo = std::floor(x);
                std::vector<double> w = cubic_weights(x - lo, cubic_a);
                double kept = 0;
                for (int k = 0; k < 4; k++) {
                    const int64_t at = int64_t(lo) - 1 + k;
                    if (exclude_outside && (at < 0 || at >= in)) w[size_t(k)] = 0;
                    kept += w[size_t(k)];
                }
                for (int k = 0; k < 4; k++) {
                    t.index[size_t(k)].push_back(clamp(int64_t(lo) - 1 + k));
                    t.weight[size_t(k)].push_back(exclude_outside && kept != 0 ? w[size_t(k)] / kept : w[size_t(k)]);
                }
            } else if (linear) {
                const double lo = std::floor(x);
                t.index[0].push_back(clamp(int64_t(lo)));
                t.index[1].push_back(clamp(int64_t(lo) + 1));
                t.weight[0].push_back(1 - (x - lo));  // edge positions read the edge on both sides
                t.weight[1].push_back(x - lo);
            } else {
                double k = 0;
                if (nearest == "floor") k = std::floor(x);
                else if (nearest == "ceil") k = std::ceil(x);
                else if (nearest == "round_prefer_ceil") k = std::floor(x + 0.5);
                else k = x == std::floor(x) + 0.5 ? std::floor(x) : std::round(x);  // round_prefer_floor
                t.index[0].push_back(clamp(int64_t(k)));
                t.weight[0].push_back(1);
            }
            for (size_t k = 0; k < t.index.size(); k++)
                t.resized |= t.weight[k].back() != (t.index[k].back() == i ? 1 : 0) && t.weight[k].back() != 0;
        }
        t.resized |= out != in;
    }
    return taps;
}

GridSampleSpec grid_sample_spec(const InferContext &ctx) {
    GridSampleSpec s;
    const std::string mode = ctx.node.get_string("mode", ctx.opset >= 20 ? "linear" : "bilinear");
    const std::string padding = ctx.node.get_string("padding_mode", "zeros");
    ctx.require_one_of("mode", mode, {"bilinear", "linear", "nearest", "bicubic", "cubic"});
    ctx.require_one_of("padding_mode", padding, {"zeros", "border", "reflection"});
    s.mode = mode == "nearest" ? GridSampleSpec::Mode::Nearest
             : mode == "bicubic" || mode == "cubic" ? GridSampleSpec::Mode::Cubic
                                                   : GridSampleSpec::Mode::Linear;
    s.padding = padding == "border" ? GridSampleSpec::Padding::Border
                : padding == "reflection" ? GridSampleSpec::Padding::Reflection
                                          : GridSampleSpec::Padding::Zeros;
    s.align_corners = ctx.node.get_int("align_corners", 0) != 0;
    return s;
}

void register_resize_rules(RuleTable &table) {
    OpRule resize;
    resize.min_opset = 10;
    resize.attributes = {"mode",           "coordinate_transformation_mode", "nearest_mode", "cubic_coeff_a",
                         "exclude_outside", "extrapolation_value",           "antialias",    "axes",
                         "keep_aspect_ratio_policy"};
    resize.max_inputs = 4;
    resize.check = check_resize;
    resize.infer = infer_resize;
    table["Resize"] = resize;

    OpRule upsample = resize;
    upsample.min_opset = 7;
    upsample.attributes = {"mode", "scales"};
    upsample.max_inputs = 2;
    table["Upsample"] = upsample;

    // GridSample: X [N, C, H, W] sampled at grid [N, H', W', 2] (x then y, in [-1, 1]).
    OpRule grid_sample;
    grid_sample.min_opset = 16;
    grid_sample.attributes = {"mode", "padding_mode", "align_corners"};
    grid_sample.min_inputs = grid_sample.max_inputs = 2;
    grid_sample.check = [](const InferContext &ctx) {
        grid_sample_spec(ctx);
        ctx.require_dtype(0, {DType::f32});
        ctx.require_dtype(1, {DType::f32});
    };
    grid_sample.infer = [](InferContext &ctx) {
        const Shape &x = ctx.shape(0), &grid = ctx.shape(1);
        if (x.size() != 4) ctx.fail("only 4-D inputs [N, C, H, W] are supported; X is " + shape_string(x));
        if (grid.size() != 4 || grid[0] != x[0] || grid[3] != 2)
            ctx.fail("grid " + shape_string(grid) + " is not [N, H', W', 2] for X " + shape_string(x));
        ctx.set_output(0, DType::f32, {x[0], x[1], grid[1], grid[2]});
        return true;
    };
    table["GridSample"] = grid_sample;
}

} // namespace tessera::graph
