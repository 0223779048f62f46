// tessera: the model compiler's command line. `tessera compile` writes one library
// per ONNX model, `tessera run` runs a model (JIT, compiled, or the reference
// evaluator) and checks its outputs, `tessera inspect` shows the graph and the
// fusion plan. Exit status: 0 success, 1 a failed check or an internal failure,
// 2 a usage error or a bad model or input file (the message names the culprit).
#include "commands.h"
#include "graph_error.h"
#include "opened_model.h"
#include "options_from_environment.h"
#include "tool_environment.h"

#include <Halide.h>

#include <cstdio>
#include <cstdlib>
#include <exception>

namespace {

void usage(std::FILE *to) {
    std::fprintf(to,
                 "usage: tessera compile MODEL.onnx -o DIR [--name N] [--target host|TARGET] [--scheduler S]\n"
                 "                       [--input-shape name=AxBxC]... [--no-fusion] [--no-chains] [--layout L] [--channel-block B]\n"
                 "                       [--explain] [--embed-weights] [-j N]\n"
                 "                       [--tune [--tune-candidates K] [--tune-with S,...|none] [--threads T]\n"
                 "                       [--tune-log F] [--tune-budget S] [--no-tune-graph]]\n"
                 "       tessera run MODEL.onnx|DIR [--input [name=]x.npy]... [--expect [name=]y.npy]...\n"
                 "                       [--output [name=]out.npy]... [--reps N] [--threads T] [--tolerance E]\n"
                 "                       [--json F] [--reference] [--profile] [--no-fusion] [--no-chains] [--scheduler S]\n"
                 "                       [--layout L] [--channel-block B] [--input-shape ...]\n"
                 "       tessera inspect MODEL.onnx [--input-shape name=AxBxC]... [--no-fusion] [--tune-log F]\n"
                 "  compile     lib<name>.a/.so, <name>.h (C API), <name>.weights, <name>.plan.json into DIR\n"
                 "  run         JIT for .onnx, the compiled library for DIR, --reference: the plain C++ evaluator;\n"
                 "              prints median/min latency and the max relative error against --expect\n"
                 "              (exit 1 above --tolerance, default 1e-3, or on NaN)\n"
                 "  --profile   (JIT) each partition's median time, slowest first\n"
                 "  --scheduler Tessera (default), none, Mullapudi2016, Adams2019, Li2018\n"
                 "  --no-fusion one kernel per node, for comparison\n"
                 "  --no-chains an attention's two products in partitions of their own (default: one, fused\n"
                 "              or not by the chain analysis)\n"
                 "  --layout    L = auto (default): convolutions channel-blocked (NCHW[16|8]c) in regions\n"
                 "              with a depthwise or grouped convolution or 10%% of their work in 1x1 ones\n"
                 "              (MobileNet- and ResNet-50-class nets), the rest NCHW (on AVX2: every\n"
                 "              region);\n"
                 "              matrix-vector products' weights and those of 1x1 convolutions on planes\n"
                 "              of 56x56 points or fewer packed into panels at compile time (on AVX2:\n"
                 "              every matrix product's with a constant B, in panels of 16);\n"
                 "              chosen: also each convolution's layout, NCHW, NHWC or\n"
                 "              channel-blocked NCHW[16|8]c, the fastest the plugin's model predicts,\n"
                 "              propagated through the nodes after it (weights transformed at compile\n"
                 "              time, conversions where layouts meet); measured: as chosen, each form\n"
                 "              timed here instead (T threads; logged to F with --tune); blocked, nhwc: chosen with one\n"
                 "              alternative to NCHW; nchwc: every convolution channel-blocked that\n"
                 "              can be, unpredicted (as onnxruntime runs CNNs);\n"
                 "              packed: every convolution's and matrix product's weights as panels;\n"
                 "              fixed: none (the model's own layouts)\n"
                 "  --channel-block B  NCHW[B]c's B for the blocked layouts, 8 or 16 (default: one vector of\n"
                 "              fp32, 16 with AVX-512, else 8)\n"
                 "  -j N        partitions compiled at once, each in its own process, and --tune's candidates\n"
                 "              JIT-compiled at once, a thread each (default: every core)\n"
                 "  --tune      each partition with a convolution or matrix product: Tessera's top K (default\n"
                 "              3) schedules and those of the Halide autoschedulers of --tune-with (default\n"
                 "              Mullapudi2016) JIT-compiled and timed here on T threads (default: every\n"
                 "              core), the fastest kept; plan.json records each time. The tuning log F (default\n"
                 "              DIR/<name>.tune.jsonl) keeps each measurement: a later compile takes the\n"
                 "              choice of a partition it has seen (same ops and shapes, target, profile);\n"
                 "              --tune-budget S: measuring stops after S seconds, the rest untuned. First the\n"
                 "              model is timed whole as asked, with --layout chosen, nchwc, measured, --no-fusion,\n"
                 "              the fastest kept, then each fused partition against its pieces, the slower\n"
                 "              form split (logged too; --no-tune-graph: neither, the graph as asked)\n");
}

}  // namespace

int main(int argc, char **argv) {
    using namespace tessera::cli;
    using tessera::SchedulerOptions;
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const std::string command = argv[1];
    const std::vector<std::string> args(argv + 2, argv + argc);
    try {
        if (command == "--help" || command == "-h" || command == "help") {
            usage(stdout);
            return 0;
        }
        SchedulerOptions scheduler;
        try {
            scheduler = tessera::scheduler_options_from_environment(tessera::threads_from_environment());
        } catch (const std::exception &e) {
            throw UsageError(e.what());
        }
        if (command == "compile") return compile_command(args, scheduler, tessera::cxx_from_environment());
        if (command == "run") return run_command(args, scheduler);
        if (command == "inspect") return inspect_command(args, scheduler);
        throw UsageError("unknown command '" + command + "'");
    } catch (const UsageError &e) {
        std::fprintf(stderr, "tessera: %s\n", e.what());
        usage(stderr);
        return 2;
    } catch (const tessera::graph::GraphError &e) {
        std::fprintf(stderr, "tessera: %s\n", e.what());
        return 2;
    } catch (const Halide::CompileError &e) {
        std::fprintf(stderr, "tessera: Halide compile error: %s\n", e.what());
        return 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "tessera: %s\n", e.what());
        return 1;
    }
}
