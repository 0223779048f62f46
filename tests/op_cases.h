// Operator configurations of the correctness matrix: every op, awkward sizes
// (1, primes, not multiples of 16), both layouts, stride/pad/dilation/groups.
#pragma once

#include <string>
#include <vector>

namespace tessera::test {

inline const std::vector<std::string> &op_cases() {
    static const std::vector<std::string> cases = {
        "matmul M=1 N=1 K=1",
        "matmul M=37 N=53 K=29",
        "matmul M=17 N=16 K=64 trans_a=1",
        "matmul M=31 N=7 K=13 trans_b=1 bias=1",
        "matmul M=300 N=77 K=45 bias=1",  // bias epilogue fused into ragged L2 tiles
        "matmul M=64 N=48 K=2",
        "matmul M=1 N=200 K=37",  // a GEMV: B read once, not packed; 5 accumulators, not 1
        // Matrix-vector products with one output column: reductions along k.
        "matmul M=203 N=1 K=77 bias=1",
        "matmul M=203 N=1 K=80",  // rows in register blocks of 4, the last one shifted
        "matmul M=40 N=1 K=19 trans_a=1",
        "batch_matmul B=2 M=33 N=1 K=45",
        "matmul M=16 N=4096 K=64",  // Tessera packs B with 4 KiB rows: storage padding
        "batch_matmul B=3 M=17 N=19 K=23",
        "batch_matmul B=2 M=13 N=9 K=21 trans_b=1",  // q k^T: keys stored [B,N,K]
        // Shifted L2 tiles (the last one recomputes an overlap): N=1000 in whole
        // vectors, M=197 (prime) in register tiles of several rows
        "matmul M=40 N=1000 K=64",
        "matmul M=197 N=200 K=768 bias=1",
        "conv2d n=1 c=3 h=17 w=13 oc=5 kh=3 kw=3 pad=1",
        "conv2d n=2 c=4 h=11 w=12 oc=6 kh=5 kw=5 stride=2",
        "conv2d n=1 c=5 h=13 w=13 oc=3 kh=3 kw=3 pad=2 dilation=2",
        "conv2d n=1 c=6 h=9 w=7 oc=4 kh=3 kw=3 pad=1 groups=2",
        // Grouped: sums over an explicit group axis, the output their epilogue
        // with its channels seen split (scheduler/analysis/axis_split.h).
        "conv2d n=1 c=8 h=10 w=16 oc=8 kh=3 kw=3 pad=1 groups=2",
        "conv2d n=1 c=32 h=14 w=13 oc=32 kh=3 kw=3 pad=1 groups=4",
        "conv2d n=1 c=12 h=11 w=11 oc=48 kh=1 kw=1 groups=12",  // 4 outputs per channel
        "conv2d n=1 c=48 h=9 w=7 oc=48 kh=3 kw=3 stride=2 pad=1 groups=3 layout=nhwc",
        "conv2d n=1 c=16 h=6 w=5 oc=16 kh=3 kw=3 pad=1 groups=8 layout=nhwc",
        "conv2d n=1 c=16 h=7 w=7 oc=24 kh=1 kw=1",
        "conv2d n=1 c=3 h=17 w=13 oc=5 kh=3 kw=3 pad=1 layout=nhwc",
        "conv2d n=2 c=6 h=10 w=9 oc=9 kh=3 kw=2 stride=2 pad=1 groups=3 layout=nhwc",
        "conv2d n=1 c=4 h=12 w=12 oc=5 kh=3 kw=3 dilation=3 layout=nhwc",
        "depthwise_conv2d n=1 c=7 h=15 w=15 kh=5 kw=5 stride=2 pad=2",
        "depthwise_conv2d n=2 c=5 h=9 w=11 kh=3 kw=3 pad=2 dilation=2 layout=nhwc",
        "depthwise_conv2d n=1 c=6 h=23 w=23 kh=5 kw=5 pad=2",  // prime width: tiles overrun, guarded tails
        // NHWC depthwise as a window reduction per output row, 2-3 channel vectors
        // x 7 or 6 columns accumulating together (the weights reused across columns)
        "depthwise_conv2d n=1 c=32 h=9 w=14 kh=3 kw=3 pad=1 layout=nhwc",
        "depthwise_conv2d n=1 c=48 h=11 w=11 kh=5 kw=5 stride=2 pad=2 layout=nhwc",
        "conv2d n=1 c=8 h=23 w=29 oc=8 kh=3 kw=3 pad=1",
        // Narrow NCHW rows: Tessera vectorises along the output channels (transposed)
        "conv2d n=2 c=5 h=9 w=11 oc=32 kh=3 kw=3 stride=2 pad=1",
        "conv2d n=1 c=24 h=7 w=7 oc=48 kh=3 kw=3 pad=1",
        "conv2d n=1 c=64 h=8 w=56 oc=64 kh=3 kw=3 pad=1",  // register tile x=8: output added along x
        "conv2d n=1 c=16 h=17 w=17 oc=32 kh=3 kw=3 stride=2",  // strided window: input channels innermost
        // rows 38 and 23/20 wide (2 x 19, primes): transposed L2 tiles shifted inwards
        "conv2d n=1 c=8 h=75 w=75 oc=32 kh=3 kw=3 stride=2 pad=1",
        "conv2d n=2 c=8 h=45 w=39 oc=48 kh=3 kw=3 stride=2 pad=1",
        // 7-wide rows, a transposed program whose L2 tiles of all 7 rows outgrow
        // the L2: swept panel by panel of 8 output channels
        "conv2d n=1 c=512 h=14 w=14 oc=32 kh=3 kw=3 stride=2 pad=1",
        "conv2d n=1 c=512 h=14 w=14 oc=64 kh=3 kw=3 stride=2 pad=1 layout=nhwc",  // the same, packed weights
        "matmul M=32 N=7 K=45",  // N=7: transposed, A packed with M innermost
        // NCHW 1x1: x and y fused (axis fusion), L2 tiles of whole rows, the last
        // shifted inwards along y (14 rows in tiles of 8, 9 in tiles of 2)
        "conv2d n=2 c=20 h=14 w=14 oc=24 kh=1 kw=1",
        "conv2d n=1 c=16 h=9 w=12 oc=40 kh=1 kw=1",
        "conv2d n=3 c=8 h=6 w=6 oc=16 kh=1 kw=1",
        "conv2d n=1 c=16 h=37 w=1 oc=24 kh=1 kw=1",  // rows of one point: 37 fused, tiles of 16 rows
        "max_pool2d n=1 c=3 h=13 w=11 kh=3 kw=3 stride=2 pad=1",
        "max_pool2d n=2 c=5 h=8 w=8 kh=2 kw=2 stride=2 layout=nhwc",
        "max_pool2d n=1 c=2 h=5 w=20000 kh=3 kw=3 stride=1 pad=1",  // 80 KB padded rows: stack storage backed by the heap
        "avg_pool2d n=1 c=3 h=13 w=11 kh=3 kw=3 stride=2 pad=1",
        // ceil_mode: a last window past the edge (GoogLeNet-class nets); 13 and 12
        // round up, the avg with and without the padding counted, NHWC.
        "max_pool2d n=1 c=3 h=13 w=12 kh=3 kw=3 stride=2 ceil_mode=1",
        "max_pool2d n=1 c=4 h=14 w=14 kh=3 kw=3 stride=2 pad=1 ceil_mode=1 layout=nhwc",
        "avg_pool2d n=1 c=3 h=12 w=13 kh=3 kw=3 stride=2 pad=1 ceil_mode=1",
        "avg_pool2d n=1 c=3 h=12 w=13 kh=3 kw=3 stride=2 pad=1 ceil_mode=1 count_include_pad=1",
        // Rows of 130-140 points with enough images for the tasks: the padded input
        // is computed per output row and stored outside it (a sliding window)
        "max_pool2d n=4 c=2 h=20 w=260 kh=3 kw=3 stride=2 pad=1",
        "avg_pool2d n=4 c=2 h=9 w=140 kh=3 kw=3 stride=1 pad=1",
        // Rows of 37, 21 and 12 points read from the padded input: the window
        // reduction computes whole vectors past the row's end (rounded up)
        "avg_pool2d n=1 c=3 h=20 w=37 kh=3 kw=3 pad=1",
        "max_pool2d n=1 c=2 h=9 w=41 kh=3 kw=3 stride=2 pad=1",
        "avg_pool2d n=1 c=2 h=23 w=23 kh=3 kw=3 stride=2 pad=1",
        // Rows of 100 points in planes of 10000: attached per row, not per plane
        // (kMaxAttachPoints)
        "max_pool2d n=1 c=2 h=200 w=200 kh=3 kw=3 stride=2 pad=1",
        "avg_pool2d n=1 c=4 h=9 w=10 kh=3 kw=3 pad=1 count_include_pad=1 layout=nhwc",
        // 17 channels, no vector divides them: the window sum takes one 17-lane vector.
        "avg_pool2d n=2 c=17 h=13 w=11 kh=5 kw=5 stride=3 pad=2 layout=nhwc",
        "global_avg_pool n=2 c=5 h=7 w=3",
        "global_avg_pool n=1 c=17 h=5 w=5 layout=nhwc",
        "reduce_sum shape=13x7 axes=0",
        "reduce_sum shape=100x300 axes=0",  // rows streamed in chunks of 16 (100 = 6 chunks + 4)
        "reduce_sum shape=3x5x7 axes=1,2",
        "reduce_mean shape=4x6x31 axes=-1",
        "reduce_mean shape=3x5x7 axes=0,1,2",
        "reduce_max shape=13x7 axes=0",
        "reduce_max shape=4x6x31 axes=-1",
        "reduce_min shape=3x5x7 axes=1,2",
        "reduce_prod shape=6x5 axes=1",
        "reduce_l1 shape=4x6x31 axes=1",
        "reduce_l2 shape=13x7 axes=0",
        "reduce_log_sum shape=3x5x7 axes=0,2",
        "reduce_log_sum_exp shape=4x37 axes=-1",
        "reduce_sum_square shape=7x3x5 axes=0",
        // Inner-axis reductions computed per vector of a 1-D output (its block once
        // read past row 300); rows of 110 points vectorised along the row with a
        // masked last vector, rows of 14 (x5), 9 (x9) and 150 in vectors dividing
        // them (14, 9 and 15 lanes), rows of 37 by gathers across rows
        "reduce_mean shape=300x5 axes=1",
        "reduce_mean shape=70x37 axes=1",
        "reduce_mean shape=70x110 axes=1",
        "reduce_mean shape=20x150 axes=1",
        "global_avg_pool n=2 c=19 h=5 w=14",
        "global_avg_pool n=1 c=6 h=9 w=9",
        "global_avg_pool n=1 c=192 h=7 w=7",  // one row: sums computed per block of 4 vectors
        "relu shape=7x131",
        "gelu shape=3x5x7",
        "sigmoid shape=1",
        // Activations past their knees (op_signatures' input ranges), ONNX's defaults and set slopes.
        "hard_sigmoid shape=5x67",
        "hard_sigmoid shape=37 alpha=0.3 beta=0.4",
        "hard_swish shape=3x41",
        "leaky_relu shape=5x67 alpha=0.2",
        "elu shape=3x41",
        "selu shape=2x3x17",
        "softplus shape=257",
        "prelu shape_a=2x8x5x5 shape_b=8x1x1",
        "prelu shape_a=5x7 shape_b=1",
        "tanh shape=257",
        "exp shape=2x3x17",
        "add shape_a=2x3x17 shape_b=17",
        "add shape_a=5x1x7 shape_b=3x1",
        "mul shape_a=13x1 shape_b=1x11",
        // The elementwise ops ONNX models need beyond those: the exact (erf) gelu,
        // erf on both sides of its series/rational switch, clip with one or two bounds
        "gelu_erf shape=5x67",
        "erf shape=3x41",
        "sqrt shape=129",
        "abs shape=3x37",
        "log shape=129",
        "softsign shape=5x33",
        "mish shape=2x3x17",
        "sin shape=61",
        "cos shape=61",
        "floor shape=4x29",
        "ceil shape=4x29",
        "round shape=4x29",
        "sign shape=4x29",
        "tan shape=61",
        "asin shape=3x19",
        "acos shape=3x19",
        "atan shape=61",
        "sinh shape=2x31",
        "cosh shape=2x31",
        "asinh shape=61",
        "acosh shape=3x19",
        "atanh shape=3x19",
        "thresholded_relu shape=5x33 alpha=0.7",
        "shrink shape=5x33 lambd=1.5 bias=0.5",
        "celu shape=2x3x17 alpha=2",
        "neg shape=2x9",
        "reciprocal shape=33",
        "clip shape=4x37 min=0 max=6",
        "clip shape=19 min=-0.5",
        "sub shape_a=2x3x17 shape_b=3x1",
        "div shape_a=6x19 shape_b=19",
        "pow shape_a=5x11 shape_b=1",
        "max shape_a=7x1 shape_b=1x9",
        "min shape_a=31 shape_b=31",
        "bias_add shape=2x5x7x3 axis=1",
        "bias_add shape=4x19 axis=-1",
        "softmax shape=5x37 axis=-1",
        "softmax shape=7x3x5 axis=0",
        "softmax shape=37",
        "log_softmax shape=5x37 axis=-1",
        "log_softmax shape=7x3x5 axis=0",
        // A 1-D softmax: its sum and exponentials at root, the output's rows apart
        // (computed per output vector, the sum was recomputed per vector)
        "softmax shape=3000",
        "layer_norm shape=9x65",
        "layer_norm shape=1x1x31 epsilon=1e-3",
        "batch_norm shape=2x3x5x7 axis=1",
        "batch_norm shape=2x5x7x3 axis=-1",
        "transpose shape=3x5x7 perm=2,0,1",
        "transpose shape=17x31 perm=1,0",
        // Transposed reads tiled in blocks of 64 output rows: a ragged block (131),
        // and NHWC to NCHW, where h stays inside the block
        "transpose shape=37x131 perm=1,0",
        "transpose shape=2x5x19x131 perm=0,3,1,2",
        // Blocks of fewer rows than 64 (all 40 or 24 of them); 11 vectors per row
        // in pairs with a guarded last pair; a whole 3-vector row per block row
        "transpose shape=163x40 perm=1,0",
        "transpose shape=2x7x37x24 perm=0,3,1,2",
        // In cache with an extent-1 batch: the squares' other dims are bound to one point
        "transpose shape=1x16x4x16 perm=0,2,3,1",
        // Input rows of a page or more are swept (1100 points: a ragged last block
        // of 16), tasks of 2 vectors of input rows (300: a guarded last pair); with a
        // dim between the vector dim and the swept one (112x3x1030), and too few
        // tasks to sweep (40x1100: blocks)
        "transpose shape=300x1100 perm=1,0",
        "transpose shape=112x3x1030 perm=2,1,0",
        "transpose shape=40x1100 perm=1,0",
        "pad shape=3x5x7 pads=0,1,2,1,0,3 value=-1.5",
        "pad shape=6x9 pads=2,0,0,1",
        // Panels (packed weights, NCHW[x]c): blocks no extent divides (zero-padded),
        // the blocks' axis moved to the front (a matmul's B)
        "pack_panels shape=5x3x3x3 axis=0 block=8",
        "pack_panels shape=37x21 axis=1 block=16 front=1",
        "pack_panels shape=2x20x5x7 axis=1 block=8",
        // and back (NCHW[x]c -> NCHW): the last block's padding dropped
        "unpack_panels shape=2x20x5x7 axis=1 block=8",
        "unpack_panels shape=37x21 axis=0 block=16",
        // Packed weights: oc and N no block divides (the last panel's padding lanes are
        // computed and dropped), strides, 1x1, a bias, A stored transposed, planar sums
        "conv2d n=1 c=3 h=17 w=13 oc=5 kh=3 kw=3 pad=1 packed=1 block=8",
        "conv2d n=2 c=6 h=11 w=12 oc=40 kh=3 kw=3 stride=2 pad=1 packed=1",
        "conv2d n=1 c=16 h=14 w=14 oc=32 kh=3 kw=3 pad=1 packed=1",
        "conv2d n=1 c=8 h=9 w=7 oc=24 kh=1 kw=1 packed=1 block=8",
        "conv2d n=1 c=24 h=15 w=17 oc=64 kh=1 kw=1 packed=1 block=32 sums=planar",
        "conv2d n=2 c=5 h=13 w=11 oc=24 kh=3 kw=3 stride=2 pad=1 packed=1 block=8 sums=planar",
        "matmul M=37 N=53 K=29 packed=1",
        "matmul M=17 N=40 K=64 trans_a=1 bias=1 packed=1 block=8",
        // Channel-blocked NCHW[x]c (layout=nchwc): blocks of 8 and 16, strides, 1x1,
        // batch 2, widths no vector divides, depthwise, and the pools a CNN carries
        "conv2d n=1 c=16 h=13 w=11 oc=32 kh=3 kw=3 pad=1 layout=nchwc",
        "conv2d n=2 c=8 h=9 w=10 oc=24 kh=3 kw=3 stride=2 pad=1 layout=nchwc block=8",
        "conv2d n=1 c=32 h=7 w=7 oc=16 kh=1 kw=1 layout=nchwc",
        "conv2d n=1 c=16 h=15 w=15 oc=16 kh=1 kw=1 stride=2 layout=nchwc block=8",
        "conv2d n=1 c=32 h=9 w=7 oc=32 kh=3 kw=3 pad=1 groups=2 layout=nchwc",  // one block per group
        "conv2d n=2 c=24 h=11 w=9 oc=24 kh=3 kw=3 stride=2 pad=1 groups=3 layout=nchwc block=8",
        "depthwise_conv2d n=1 c=32 h=13 w=13 kh=3 kw=3 pad=1 layout=nchwc",
        "depthwise_conv2d n=2 c=24 h=11 w=9 kh=3 kw=3 stride=2 pad=1 layout=nchwc block=8",
        "max_pool2d n=1 c=16 h=13 w=11 kh=3 kw=3 stride=2 pad=1 layout=nchwc",
        "avg_pool2d n=2 c=8 h=9 w=9 kh=2 kw=2 stride=2 layout=nchwc block=8",
        "global_avg_pool n=2 c=32 h=7 w=5 layout=nchwc",
        // Chains of compute-intensive ops, one pipeline each: sizes of one, primes and
        // lengths no vector width divides (the softmax axis L, the reductions K and L);
        // the online-softmax form (key_block) with blocks that divide L, that do not,
        // of one key, and beyond L
        "attention M=1 N=1 K=1 L=1",
        "attention B=2 M=13 N=11 K=7 L=19",
        "attention M=37 N=5 K=9 L=53 mask=1",
        "attention B=3 M=17 N=24 K=20 L=33 scale=0.3",
        "attention M=9 N=70 K=19 L=130 mask=1",
        "attention M=1 N=1 K=1 L=1 key_block=1",
        "attention B=2 M=13 N=11 K=7 L=19 key_block=4",
        "attention M=37 N=5 K=9 L=53 mask=1 key_block=16",
        "attention B=3 M=17 N=24 K=20 L=64 key_block=32 scale=0.3",
        "attention M=9 N=70 K=19 L=130 mask=1 key_block=64",
        "attention M=20 N=16 K=16 L=48 key_block=100",
        "gemm_chain M=13 N=11 K=7 L=19",
        "gemm_chain B=2 M=17 N=9 K=23 L=37 between=relu",
        "gemm_chain M=33 N=20 K=12 L=45 between=gelu",
        "gemm_chain B=3 M=5 N=31 K=11 L=29 between=scale scale=0.25",
        "conv_chain c=3 h=13 w=11 oc1=5 oc2=7 kh1=3 kw1=3 kh2=1 kw2=1 pad1=1",
        "conv_chain n=2 c=4 h=12 w=9 oc1=6 oc2=5 kh1=3 kw1=3 kh2=3 kw2=3 stride1=2 pad1=1 pad2=1 layout=nhwc",
        "conv_chain c=8 h=9 w=10 oc1=12 oc2=7 kh1=1 kw1=1 kh2=3 kw2=3 pad2=1",
        "conv_chain c=5 h=17 w=19 oc1=9 oc2=3 kh1=3 kw1=3 kh2=1 kw2=1 stride1=2 layout=nhwc",
        "conv_chain c=6 h=11 w=11 oc1=4 oc2=10 kh1=1 kw1=1 kh2=3 kw2=2 stride2=2 pad2=1",
        // intermediates of 4.5 MB and more (beyond two 2 MiB L2s): fused by bands
        "conv_chain c=4 h=101 w=99 oc1=112 oc2=5 kh1=3 kw1=3 kh2=1 kw2=1 pad1=1",
        "conv_chain c=3 h=75 w=77 oc1=200 oc2=9 kh1=3 kw1=3 kh2=1 kw2=1 pad1=1 layout=nhwc",
        "conv_chain c=5 h=203 w=197 oc1=112 oc2=7 kh1=3 kw1=3 kh2=1 kw2=1 stride1=2 pad1=1",
    };
    return cases;
}

}  // namespace tessera::test
