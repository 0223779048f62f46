// One Generator per operator family. Every key of the family's ops is a string
// GeneratorParam (empty = the op's default, see tessera-suite's catalogue), e.g.
//   tessera-generators -g conv -o out op=conv2d c=64 h=56 w=56 oc=64 kh=3 kw=3 pad=1
#include "op_generator.h"

namespace tessera {

using KeyParam = Halide::GeneratorParam<std::string>;

class MatmulGenerator : public OpGenerator<MatmulGenerator> {
public:
    KeyParam op{"op", "matmul"}, B{"B", ""}, M{"M", ""}, N{"N", ""}, K{"K", ""};
    KeyParam trans_a{"trans_a", ""}, trans_b{"trans_b", ""}, bias{"bias", ""};
    KeyParam packed{"packed", ""}, block{"block", ""};
    static const char *family_name() { return "matmul"; }
    ops::OpConfig config() const {
        return make_config(op, {{"B", B}, {"M", M}, {"N", N}, {"K", K}, {"trans_a", trans_a},
                                {"trans_b", trans_b}, {"bias", bias}, {"packed", packed}, {"block", block}});
    }
};

class ConvGenerator : public OpGenerator<ConvGenerator> {
public:
    KeyParam op{"op", "conv2d"}, n{"n", ""}, c{"c", ""}, h{"h", ""}, w{"w", ""}, oc{"oc", ""};
    KeyParam kh{"kh", ""}, kw{"kw", ""}, stride{"stride", ""}, pad{"pad", ""}, dilation{"dilation", ""};
    KeyParam groups{"groups", ""}, layout{"layout", ""}, packed{"packed", ""}, block{"block", ""};
    static const char *family_name() { return "conv"; }
    ops::OpConfig config() const {
        return make_config(op, {{"n", n}, {"c", c}, {"h", h}, {"w", w}, {"oc", oc}, {"kh", kh}, {"kw", kw},
                                {"stride", stride}, {"pad", pad}, {"dilation", dilation}, {"groups", groups},
                                {"layout", layout}, {"packed", packed}, {"block", block}});
    }
};

class PoolGenerator : public OpGenerator<PoolGenerator> {
public:
    KeyParam op{"op", "max_pool2d"}, n{"n", ""}, c{"c", ""}, h{"h", ""}, w{"w", ""}, kh{"kh", ""}, kw{"kw", ""};
    KeyParam stride{"stride", ""}, pad{"pad", ""}, layout{"layout", ""}, count_include_pad{"count_include_pad", ""};
    KeyParam ceil_mode{"ceil_mode", ""};
    static const char *family_name() { return "pool"; }
    ops::OpConfig config() const {
        return make_config(op, {{"n", n}, {"c", c}, {"h", h}, {"w", w}, {"kh", kh}, {"kw", kw}, {"stride", stride},
                                {"pad", pad}, {"layout", layout}, {"count_include_pad", count_include_pad},
                                {"ceil_mode", ceil_mode}});
    }
};

class ReduceGenerator : public OpGenerator<ReduceGenerator> {
public:
    KeyParam op{"op", "reduce_sum"}, shape{"shape", ""}, axes{"axes", ""};
    static const char *family_name() { return "reduce"; }
    ops::OpConfig config() const { return make_config(op, {{"shape", shape}, {"axes", axes}}); }
};

class ElementwiseGenerator : public OpGenerator<ElementwiseGenerator> {
public:
    KeyParam op{"op", "relu"}, shape{"shape", ""}, shape_a{"shape_a", ""}, shape_b{"shape_b", ""}, axis{"axis", ""};
    KeyParam clip_min{"min", ""}, clip_max{"max", ""};  // clip's bounds
    KeyParam alpha{"alpha", ""}, beta{"beta", ""}, gamma{"gamma", ""};  // the activations' slopes
    KeyParam lambd{"lambd", ""}, bias{"bias", ""};                     // shrink's band and shift
    static const char *family_name() { return "elementwise"; }
    ops::OpConfig config() const {
        return make_config(op, {{"shape", shape},
                                {"shape_a", shape_a},
                                {"shape_b", shape_b},
                                {"axis", axis},
                                {"min", clip_min},
                                {"max", clip_max},
                                {"alpha", alpha},
                                {"beta", beta},
                                {"gamma", gamma},
                                {"lambd", lambd},
                                {"bias", bias}});
    }
};

class SoftmaxGenerator : public OpGenerator<SoftmaxGenerator> {
public:
    KeyParam op{"op", "softmax"}, shape{"shape", ""}, axis{"axis", ""};
    static const char *family_name() { return "softmax"; }
    ops::OpConfig config() const { return make_config(op, {{"shape", shape}, {"axis", axis}}); }
};

class NormGenerator : public OpGenerator<NormGenerator> {
public:
    KeyParam op{"op", "layer_norm"}, shape{"shape", ""}, axis{"axis", ""}, epsilon{"epsilon", ""};
    static const char *family_name() { return "norm"; }
    ops::OpConfig config() const {
        return make_config(op, {{"shape", shape}, {"axis", axis}, {"epsilon", epsilon}});
    }
};

class LayoutGenerator : public OpGenerator<LayoutGenerator> {
public:
    KeyParam op{"op", "transpose"}, shape{"shape", ""}, perm{"perm", ""}, pads{"pads", ""}, value{"value", ""};
    KeyParam axis{"axis", ""}, block{"block", ""}, front{"front", ""};
    static const char *family_name() { return "layout"; }
    ops::OpConfig config() const {
        return make_config(op, {{"shape", shape}, {"perm", perm}, {"pads", pads}, {"value", value},
                                {"axis", axis}, {"block", block}, {"front", front}});
    }
};

class ChainGenerator : public OpGenerator<ChainGenerator> {
public:
    KeyParam op{"op", "attention"}, B{"B", ""}, M{"M", ""}, N{"N", ""}, K{"K", ""}, L{"L", ""};
    KeyParam mask{"mask", ""}, scale{"scale", ""}, key_block{"key_block", ""}, between{"between", ""};
    KeyParam n{"n", ""}, c{"c", ""}, h{"h", ""}, w{"w", ""}, oc1{"oc1", ""}, oc2{"oc2", ""};
    KeyParam kh1{"kh1", ""}, kw1{"kw1", ""}, kh2{"kh2", ""}, kw2{"kw2", ""};
    KeyParam stride1{"stride1", ""}, stride2{"stride2", ""}, pad1{"pad1", ""}, pad2{"pad2", ""};
    KeyParam layout{"layout", ""};
    static const char *family_name() { return "chain"; }
    ops::OpConfig config() const {
        return make_config(op, {{"B", B}, {"M", M}, {"N", N}, {"K", K}, {"L", L}, {"mask", mask}, {"scale", scale},
                                {"key_block", key_block}, {"between", between}, {"n", n}, {"c", c}, {"h", h}, {"w", w}, {"oc1", oc1},
                                {"oc2", oc2}, {"kh1", kh1}, {"kw1", kw1}, {"kh2", kh2}, {"kw2", kw2},
                                {"stride1", stride1}, {"stride2", stride2}, {"pad1", pad1}, {"pad2", pad2},
                                {"layout", layout}});
    }
};

}  // namespace tessera

HALIDE_REGISTER_GENERATOR(tessera::MatmulGenerator, matmul)
HALIDE_REGISTER_GENERATOR(tessera::ConvGenerator, conv)
HALIDE_REGISTER_GENERATOR(tessera::PoolGenerator, pool)
HALIDE_REGISTER_GENERATOR(tessera::ReduceGenerator, reduce)
HALIDE_REGISTER_GENERATOR(tessera::ElementwiseGenerator, elementwise)
HALIDE_REGISTER_GENERATOR(tessera::SoftmaxGenerator, softmax)
HALIDE_REGISTER_GENERATOR(tessera::NormGenerator, norm)
HALIDE_REGISTER_GENERATOR(tessera::LayoutGenerator, layout)
HALIDE_REGISTER_GENERATOR(tessera::ChainGenerator, chain)
