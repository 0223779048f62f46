#include "per_layer.h"

#include "assign_layouts.h"
#include "graph_error.h"
#include "jit_model.h"
#include "plan_fusion.h"
#include "stopwatch.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sys/wait.h>

namespace tessera::bench {

namespace fs = std::filesystem;

namespace {

const graph::Node &anchor_of(const graph::Graph &g, const graph::Partition &p) {
    for (int n : p.nodes) {
        if (graph::is_contraction_op(g.nodes[size_t(n)].op_type)) return g.nodes[size_t(n)];
    }
    return g.nodes[size_t(p.nodes.front())];
}

std::string layout_of(const graph::Node &n) {
    if (const int64_t block = n.get_int(graph::kLayoutBlockAttr, 0)) return "nchw" + std::to_string(block) + "c";
    return n.get_int(graph::kLayoutNhwcAttr, 0) ? "nhwc" : "nchw";
}

// Runs the per-layer peer script; returns its exit status (-1 when it could not run).
int run_script(const std::vector<std::string> &argv) {
    std::string command;
    for (const std::string &a : argv) {
        std::string quoted = "'";
        for (char c : a) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
        command += (command.empty() ? "" : " ") + quoted + "'";
    }
    const int status = std::system(command.c_str());
    return status == -1 || !WIFEXITED(status) ? -1 : WEXITSTATUS(status);
}

// onnxruntime's times for the layers, by scripts/per_layer_peer.py.
void time_layers_in_onnxruntime(const ModelBenchOptions &o, const graph::Graph &g, const graph::FusionPlan &plan,
                                std::vector<LayerRecord> &layers) {
    auto all_fail = [&](const std::string &why) {
        for (LayerRecord &l : layers) l.peer_error = why;
    };
    if (std::find(o.against.begin(), o.against.end(), kOnnxRuntime) == o.against.end()) {
        return all_fail("onnxruntime not asked for (--against)");
    }
    if (o.python.empty()) return all_fail(o.python_missing);
    const WorkDir work(o.work_dir);
    nlohmann::json request = nlohmann::json::array();
    // A value in another layout stands for the model's NCHW value it holds: the
    // nodes are cut out of the model in the model's own layout.
    auto model_value = [&](const std::string &v) {
        const std::string &plain = g.value(v).layout_of;
        return plain.empty() ? v : plain;
    };
    for (const graph::Partition &p : plan.partitions) {
        nlohmann::json inputs = nlohmann::json::array();
        for (const std::string &v : p.inputs) {
            if (!g.is_constant(v)) inputs.push_back(model_value(v));
        }
        nlohmann::json nodes = nlohmann::json::array(), values = nlohmann::json::array();
        for (int n : p.nodes) {
            const graph::Node &node = g.nodes[size_t(n)];
            nodes.push_back(node.name);
            for (const std::string &v : node.outputs) {
                // A layout conversion's output holds the value another node computes:
                // onnxruntime's kernel for it is that node's, not this layer's.
                const bool converts = std::any_of(node.inputs.begin(), node.inputs.end(), [&](const std::string &in) {
                    return !in.empty() && model_value(in) == model_value(v);
                });
                if (!converts) values.push_back(model_value(v));
            }
        }
        request.push_back(
            {{"name", p.name}, {"inputs", inputs}, {"output", model_value(p.output)}, {"nodes", nodes}, {"values", values}});
    }
    const std::string request_path = work.path() + "/layers.json", reply_path = work.path() + "/layer_times.json";
    std::ofstream(request_path) << request.dump();
    const std::string script = (fs::path(o.runner).parent_path() / "per_layer_peer.py").string();
    std::printf("onnxruntime: the nodes of each partition as a model of their own, then the whole model profiled (%s)\n",
                script.c_str());
    std::fflush(stdout);
    const int status = run_script({o.python, script, o.model, std::to_string(o.threads), std::to_string(o.reps),
                                   request_path, reply_path});
    if (status == 3) return all_fail("onnxruntime is not installed (bash scripts/install-peers.sh)");
    if (status != 0) return all_fail(script + " failed (exit status " + std::to_string(status) + ")");
    try {
        std::ifstream in(reply_path);
        const nlohmann::json whole = nlohmann::json::parse(in);
        const nlohmann::json &reply = whole.at("layers");
        if (reply.size() != layers.size()) throw std::runtime_error("a record per layer expected");
        const double overhead_ms = whole.at("call_overhead_ms").get<double>();
        for (LayerRecord &l : layers) l.peer_call_overhead_ms = overhead_ms;
        if (whole.contains("in_model") && whole.at("in_model").contains("run_ms")) {
            const nlohmann::json &m = whole.at("in_model");
            for (LayerRecord &l : layers) {
                l.peer_model_run_ms = m.at("run_ms").get<double>();
                l.peer_unclaimed_ms = m.at("unclaimed_ms").get<double>();
            }
        } else if (whole.contains("in_model")) {
            std::printf("onnxruntime: the whole model not profiled: %s\n",
                        whole.at("in_model").value("error", std::string("no times")).c_str());
        }
        for (size_t k = 0; k < layers.size(); k++) {
            const nlohmann::json &r = reply[k];
            if (r.contains("error")) {
                layers[k].peer_error = r.at("error").get<std::string>();
            } else {
                layers[k].peer_ms = r.at("median_ms").get<double>();
                layers[k].peer_min_ms = r.at("min_ms").get<double>();
            }
            if (r.contains("in_model_ms")) layers[k].peer_in_model_ms = r.at("in_model_ms").get<double>();
        }
    } catch (const std::exception &e) {
        all_fail(reply_path + ": " + e.what());
    }
}

std::string ratio_text(double tessera_ms, double peer_ms) {
    char buf[32];
    if (tessera_ms > 0 && peer_ms > 0) std::snprintf(buf, sizeof buf, "%.2fx", peer_ms / tessera_ms);
    else std::snprintf(buf, sizeof buf, "-");
    return buf;
}

}  // namespace

std::string layer_family(const graph::Graph &g, const graph::Partition &p) {
    if (p.chain) return "chain";
    const graph::Node &n = anchor_of(g, p);
    if (n.op_type == "MatMul" || n.op_type == "Gemm") return "matmul";
    if (n.op_type != "Conv") return n.op_type;
    std::vector<int64_t> k = n.get_ints("kernel_shape", {});
    if (k.empty() && n.inputs.size() > 1 && g.value(n.inputs[1]).shape.size() == 4) {
        const graph::Shape &w = g.value(n.inputs[1]).shape;  // OIHW: the kernel's own shape
        k = {w[2], w[3]};
    }
    const std::vector<int64_t> strides = n.get_ints("strides", {});
    const int64_t group = n.get_int("group", 1);
    const graph::Shape &in = g.value(n.inputs[0]).shape;
    // A channel-blocked input [N, C/b, H, W, b] holds C/b x b channels.
    const int64_t channels = in.size() == 5 ? in[1] * in[4] : in.size() >= 2 ? in[1] : 0;
    std::string size = k.size() == 2 ? std::to_string(k[0]) + "x" + std::to_string(k[1]) : "?";
    const bool strided = std::any_of(strides.begin(), strides.end(), [](int64_t s) { return s > 1; });
    const std::string stride = strided ? " s" + std::to_string(strides[0]) : "";
    if (group > 1 && group == channels) return "depthwise " + size + stride + " conv";
    if (group > 1) return "grouped " + size + stride + " conv";
    return size + stride + " conv";
}

// Tessera's two passes (before and after the peer's) summing further apart than this
// ratio: the host's speed moved while the peer ran.
constexpr double kSteadyHostSpread = 1.15;

std::vector<LayerRecord> bench_layers(const ModelBenchOptions &o) {
    ModelUnderTest m = open_model_under_test(o);
    const graph::Graph &g = m.opened.graph;
    const graph::FusionPlan &plan = m.opened.plan;
    std::printf("model %s: %zu partitions; each timed inside %d model runs (after %d warm-up), %d thread(s)\n",
                o.model.c_str(), plan.partitions.size(), o.reps, o.warmup, o.threads);
    std::fflush(stdout);
    Stopwatch watch;
    const graph::JitModel jit(g, plan, m.opened.schedule, m.opened.target, {}, o.threads);
    std::printf("tessera: compiled %zu partitions in %.1f s (JIT)\n", plan.partitions.size(), watch.lap_ms() / 1e3);
    graph::TensorMap inputs;
    for (size_t k = 0; k < m.input_specs.size(); k++) inputs[m.input_specs[k].name] = m.inputs[k];
    // Each partition's median over one pass of model runs.
    auto tessera_pass = [&]() {
        std::vector<std::vector<double>> times(plan.partitions.size());
        for (int r = 0; r < o.warmup + o.reps; r++) {
            std::vector<double> ms;
            jit.run(inputs, &ms);
            if (r < o.warmup) continue;
            for (size_t k = 0; k < ms.size(); k++) times[k].push_back(ms[k]);
        }
        std::vector<double> medians;
        for (const std::vector<double> &t : times) medians.push_back(median(t));
        return medians;
    };
    const std::vector<double> before = tessera_pass();

    std::vector<LayerRecord> layers;
    for (size_t k = 0; k < plan.partitions.size(); k++) {
        const graph::Partition &p = plan.partitions[k];
        LayerRecord l;
        l.model = o.model;
        l.partition = p.name;
        l.family = layer_family(g, p);
        l.ops = graph::partition_op_types(g, p);
        l.shape = graph::shape_string(g.value(p.output).shape);
        l.layout = layout_of(anchor_of(g, p));
        l.tessera_ms = before[k];
        layers.push_back(l);
    }
    time_layers_in_onnxruntime(o, g, plan, layers);
    if (std::none_of(layers.begin(), layers.end(), [](const LayerRecord &l) { return l.has_peer(); })) return layers;
    // The peer's layers are timed after Tessera's, in another process, so a second
    // pass after them brackets the peer's run: each layer takes the mean of its two
    // medians (the host's speed while the peer ran, if it drifted evenly; the faster
    // pass would favour Tessera), and a host whose speed moved is named.
    const std::vector<double> after = tessera_pass();
    double sum_before = 0, sum_after = 0;
    for (size_t k = 0; k < layers.size(); k++) {
        sum_before += before[k];
        sum_after += after[k];
        layers[k].tessera_ms = (before[k] + after[k]) / 2;
    }
    const double spread = std::max(sum_before, sum_after) / std::max(1e-9, std::min(sum_before, sum_after));
    std::printf("tessera: the partitions summed %.3f ms before onnxruntime's run and %.3f after; each layer takes "
                "the mean of its two medians%s\n",
                sum_before, sum_after,
                spread > kSteadyHostSpread ? " (the host's speed moved between them: read the ratios with care)" : "");
    return layers;
}

std::string format_layer_table(const std::vector<LayerRecord> &layers) {
    std::vector<LayerRecord> sorted = layers;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const LayerRecord &a, const LayerRecord &b) { return a.lost_ms() > b.lost_ms(); });
    std::string out;
    char line[512];
    std::snprintf(line, sizeof line, "  %-26s %-24s %-16s %-8s %10s %10s %7s %9s %10s %7s  %s\n", "partition", "family",
                  "shape", "layout", "tessera ms", "ort ms", "ort/t", "lost ms", "in-model", "in/t", "ops");
    out += line;
    double tessera_sum = 0, peer_sum = 0, in_model_sum = 0;
    for (const LayerRecord &l : sorted) {
        char peer[32], in_model[32];
        if (l.has_peer()) std::snprintf(peer, sizeof peer, "%10.3f", l.peer_ms);
        else std::snprintf(peer, sizeof peer, "%10s", "n/a");
        if (l.has_in_model()) std::snprintf(in_model, sizeof in_model, "%10.3f", l.peer_in_model_ms);
        else std::snprintf(in_model, sizeof in_model, "%10s", "-");
        std::snprintf(line, sizeof line, "  %-26s %-24s %-16s %-8s %10.3f %s %7s %9.3f %s %7s  %s%s\n",
                      l.partition.substr(0, 26).c_str(), l.family.substr(0, 24).c_str(), l.shape.substr(0, 16).c_str(),
                      l.layout.c_str(), l.tessera_ms, peer, ratio_text(l.tessera_ms, l.peer_ms).c_str(), l.lost_ms(),
                      in_model, ratio_text(l.tessera_ms, l.peer_in_model_ms).c_str(), l.ops.substr(0, 60).c_str(),
                      l.has_peer() ? "" : ("  (" + l.peer_error.substr(0, 100) + ")").c_str());
        out += line;
        tessera_sum += l.tessera_ms;
        if (l.has_peer()) peer_sum += l.peer_ms;
        in_model_sum += l.peer_in_model_ms;
    }
    std::snprintf(line, sizeof line, "  sum over %zu partitions: tessera %.3f ms, onnxruntime %.3f ms (layers it ran)\n",
                  layers.size(), tessera_sum, peer_sum);
    out += line;
    if (!layers.empty() && layers.front().peer_model_run_ms > 0) {
        std::snprintf(line, sizeof line,
                      "  in-model: onnxruntime's whole model %.3f ms a run, its kernels for these partitions %.3f ms, "
                      "%.3f ms in kernels no partition claims (its own fusions and layout conversions)\n",
                      layers.front().peer_model_run_ms, in_model_sum, layers.front().peer_unclaimed_ms);
        out += line;
    }
    if (!layers.empty() && layers.front().peer_call_overhead_ms > 0) {
        std::snprintf(line, sizeof line,
                      "  (each onnxruntime time includes one session.run's own cost, %.3f ms with nothing to compute)\n",
                      layers.front().peer_call_overhead_ms);
        out += line;
    }
    return out + format_family_summary(layers);
}

std::string format_family_summary(const std::vector<LayerRecord> &layers) {
    struct Sum {
        double tessera = 0, peer = 0;
        double in_model_tessera = 0, in_model = 0;  // over the layers with an in-model time
        int count = 0, compared = 0;
    };
    std::map<std::string, Sum> families;
    for (const LayerRecord &l : layers) {
        Sum &s = families[l.family];
        s.count++;
        if (l.has_in_model()) {
            s.in_model_tessera += l.tessera_ms;
            s.in_model += l.peer_in_model_ms;
        }
        if (!l.has_peer()) continue;
        s.compared++;
        s.tessera += l.tessera_ms;
        s.peer += l.peer_ms;
    }
    std::vector<std::pair<std::string, Sum>> sorted(families.begin(), families.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](const auto &a, const auto &b) {
        return a.second.tessera - a.second.peer > b.second.tessera - b.second.peer;
    });
    std::string out = "  per family (layers onnxruntime also ran), by time lost:\n";
    char line[256];
    std::snprintf(line, sizeof line, "    %-26s %8s %12s %12s %7s %9s %12s %7s\n", "family", "layers", "tessera ms",
                  "ort ms", "ort/t", "lost ms", "in-model ms", "in/t");
    out += line;
    for (const auto &[family, s] : sorted) {
        std::snprintf(line, sizeof line, "    %-26s %4d/%-3d %12.3f %12.3f %7s %9.3f %12.3f %7s\n",
                      family.substr(0, 26).c_str(), s.compared, s.count, s.tessera, s.peer,
                      ratio_text(s.tessera, s.peer).c_str(), s.tessera - s.peer, s.in_model,
                      ratio_text(s.in_model_tessera, s.in_model).c_str());
        out += line;
    }
    out += "    (in-model: onnxruntime's kernels inside its whole model, against Tessera's time for the layers "
           "onnxruntime's profile claimed)\n";
    return out;
}

nlohmann::json to_json(const LayerRecord &r) {
    nlohmann::json j = {{"model", r.model},   {"partition", r.partition}, {"family", r.family},
                        {"ops", r.ops},       {"shape", r.shape},         {"layout", r.layout},
                        {"tessera_ms", r.tessera_ms}};
    if (r.has_peer()) {
        j["onnxruntime_ms"] = r.peer_ms;
        j["onnxruntime_min_ms"] = r.peer_min_ms;
        j["lost_ms"] = r.lost_ms();
        j["onnxruntime_call_overhead_ms"] = r.peer_call_overhead_ms;
    } else {
        j["onnxruntime_error"] = r.peer_error;
    }
    if (r.has_in_model()) j["onnxruntime_in_model_ms"] = r.peer_in_model_ms;
    return j;
}

}  // namespace tessera::bench
