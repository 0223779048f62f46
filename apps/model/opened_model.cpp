#include "opened_model.h"

#include "gpu_device.h"
#include "host_target.h"
#include "import_onnx.h"
#include "layout_option.h"
#include "lower_partition.h"
#include "options_from_environment.h"
#include "schedulers.h"
#include "tessera_scheduler.h"
#include "x86_device.h"

namespace tessera::cli {

void add_input_shape(ModelOptions &options, const std::string &arg) {
    const size_t eq = arg.find('=');
    if (eq == std::string::npos || eq == 0) throw UsageError("--input-shape takes name=AxBxC, got '" + arg + "'");
    std::vector<int64_t> dims;
    std::string text = arg.substr(eq + 1);
    size_t at = 0;
    while (at <= text.size()) {
        const size_t x = text.find('x', at);
        const std::string piece = text.substr(at, x == std::string::npos ? std::string::npos : x - at);
        char *end = nullptr;
        const long long v = std::strtoll(piece.c_str(), &end, 10);
        if (piece.empty() || *end != '\0' || v <= 0) {
            throw UsageError("--input-shape " + arg + ": '" + piece + "' is not a positive extent");
        }
        dims.push_back(v);
        if (x == std::string::npos) break;
        at = x + 1;
    }
    options.input_shapes[arg.substr(0, eq)] = dims;
}

void set_layout(ModelOptions &options, const std::string &arg) {
    if (const std::string error = layout_option_error(arg); !error.empty()) throw UsageError(error);
    options.layout = arg;
}

void set_channel_block(ModelOptions &options, const std::string &arg) {
    if (arg != "8" && arg != "16") throw UsageError("--channel-block takes 8 or 16, got '" + arg + "'");
    options.channel_block = std::stoi(arg);
}

int64_t channel_block_of(const ModelOptions &options, const Halide::Target &target) {
    return options.channel_block > 0 ? options.channel_block : channel_block_for(target);
}

int64_t channel_block_for(const Halide::Target &target) {
    return target.has_feature(Halide::Target::AVX512) || target.has_feature(Halide::Target::AVX512_Skylake) ? 16 : 8;
}

bool assigns_layouts(const ModelOptions &o) {
    return o.layout == "auto" || o.layout == "chosen" || o.layout == "measured" || o.layout == "blocked" ||
           o.layout == "nchwc" || o.layout == "nhwc";
}

std::string describe_layouts(const ModelOptions &o, const OpenedModel &s) {
    if (o.layout == "fixed") return "layouts: fixed (the model's own)";
    std::string line = "layouts: " + o.layout;
    if (assigns_layouts(o)) {
        line += s.layouts.block > 0 ? ", " + s.layouts.summary()
                                    : " (not on GPU targets: NCHW kept; the GPU schedules read NCHW)";
    }
    return line + "; constant weights of " + std::to_string(s.packed_weights) +
           (assigns_layouts(o) ? " more" : "") + " node(s) packed into panels at compile time";
}

Halide::Target target_of(const ModelOptions &o) {
    try {
        return hal::target_named(o.target);
    } catch (const Halide::CompileError &e) {
        throw UsageError("--target '" + o.target + "' is not a Halide target string");
    }
}

OpenedModel open_model(const ModelOptions &o) {
    OpenedModel s;
    std::string scheduler;
    try {
        scheduler = canonical_scheduler(o.scheduler);
    } catch (const std::invalid_argument &e) {
        throw UsageError(e.what());
    }
    s.target = target_of(o);
    const bool gpu = s.target.has_feature(Halide::Target::CUDA) || s.target.has_feature(Halide::Target::OpenCL);
    if (s.target.has_gpu_feature() && !gpu) {
        throw UsageError("--target " + o.target + ": of the GPU APIs only CUDA and OpenCL are compiled");
    }
    if (gpu && !o.ahead_of_time) {
        // A JIT run would load the GPU driver into this process, which links
        // libHalide: PoCL's LLVM and Halide's collide there.
        throw UsageError("--target " + o.target + ": GPU targets are compiled ahead of time (tessera compile "
                         "--target ...), then run with tessera-run-library DIR");
    }
    s.graph = graph::import_onnx(o.model, o.input_shapes);
    s.prepared = graph::prepare_graph(s.graph);
    // Nodes are classified against the device the kernels run on.
    const hal::DeviceProfile profile = profile_or_builtin(o.scheduler_options);
    const double balance =
        gpu ? hal::balance_flops_per_byte(hal::gpu_figures_for_target(s.target, o.scheduler_options.gpu_profile))
            : hal::balance_flops_per_byte(profile);
    if (o.channel_block > 0 && !(assigns_layouts(o) && o.layout != "nhwc")) {
        throw UsageError("--channel-block goes with a channel-blocked --layout (auto, chosen, measured, blocked or nchwc)");
    }
    // AVX-512's 32 vector registers or AVX2's 16 (GPU targets: as the former).
    const bool wide_register_file = gpu || hal::make_x86_device_spec(s.target, 0, profile, 4).vector_registers >= 32;
    // Before the plan: the partitions then read the blocked values and packed constants.
    if (assigns_layouts(o) && !gpu) {
        graph::LayoutOptions lo;
        lo.block = channel_block_of(o, s.target);
        lo.blocked = o.layout != "nhwc";
        lo.nhwc = o.layout == "chosen" || o.layout == "measured" || o.layout == "nhwc";
        // auto: as nchwc, but with 32 vector registers (AVX-512) only regions with a
        // depthwise convolution or a share of 1x1 ones (MobileNet- and bottleneck-class
        // nets; ResNet-18's dense 3x3 convolutions ran faster in NCHW there, see
        // LayoutOptions). With 16 (AVX2) every region: NCHW's tiles, vectorised along
        // the output channels, keep a 4-register margin, the blocked ones hold pixels x
        // two output blocks. Zen 3, one core: dense 3x3s 1.17-1.24x faster blocked
        // (64x112x112 11.5 -> 9.7 ms, 512x14x14 12.0 -> 9.9), ResNet-18 26.6 -> 24.5 ms
        // whole on two (docs/experiments.md, "Dense 3x3 convolutions blocked on AVX2").
        lo.only_where_blocking_gains = o.layout == "auto" && wide_register_file;
        // A conversion moves its tensor at about the machine's copy rate.
        if (profile.dram_copy_gbs > 0) lo.conversion_gbs = profile.dram_copy_gbs;
        // Each candidate's forms as Tessera's model predicts them (whatever scheduler
        // compiles the model: the layout is a graph decision made by one model).
        // Quietly: one explanation per compiled partition, not per prediction.
        SchedulerOptions quiet = o.scheduler_options;
        quiet.explain = false;
        const Halide::Target target = s.target;
        // nchwc: no predictions, every convolution blocked that can be (assign_layouts
        // without a predictor). The model predicts a blocked 1x1 convolution 2x slower
        // than NCHW on planes of 56x56 where the two ran alike, which kept MobileNetV2's
        // blocks NCHW under `chosen` (docs/experiments.md, "Channel-blocked models").
        if (o.layout == "measured") {
            const Halide::Target host = hal::host_target();
            bool runs_here = s.target.arch == host.arch && s.target.bits == host.bits && s.target.os == host.os;
            for (Halide::Target::Feature f : {Halide::Target::AVX, Halide::Target::AVX2, Halide::Target::FMA,
                                              Halide::Target::F16C, Halide::Target::AVX512, Halide::Target::AVX512_Skylake}) {
                runs_here &= !s.target.has_feature(f) || host.has_feature(f);
            }
            if (!runs_here) {
                throw UsageError("--layout measured times each convolution on this machine: target " + o.target +
                                 " does not run here (" + host.to_string() + ")");
            }
            lo.predict_ms = measured_node_ms(SchedulerChoice{"Tessera", s.target, quiet}, o.layout_timing);
        } else if (o.layout != "nchwc" && o.layout != "auto") {
            lo.predict_ms = [target, quiet](const graph::Graph &g, int node) {
                const ScheduleOutcome outcome = schedule_pipeline(graph::lower_single_node(g, node).pipeline, target, quiet);
                return outcome.predicted_stages > 0 ? outcome.predicted_ms : -1.0;
            };
        }
        s.layouts = graph::assign_layouts(s.graph, lo);
    }
    if (o.layout != "fixed") {
        graph::PackOptions packing = o.layout == "packed" ? graph::PackOptions{} : graph::default_packing();
        if (!wide_register_file) packing = graph::for_sixteen_vector_registers(packing);
        s.packed_weights = graph::pack_weights(s.graph, packing);
    }
    s.plan = graph::plan_fusion(s.graph, {balance, o.fuse});
    if (o.fuse && o.chains) s.plan = graph::plan_chains(s.graph, s.plan);
    s.choice = SchedulerChoice{scheduler, s.target, o.scheduler_options};
    s.schedule = [choice = s.choice](Halide::Pipeline &p) { apply_scheduler(p, choice); };
    return s;
}

}  // namespace tessera::cli
