// tessera-bench --model: a whole ONNX model compiled by Tessera (the library `tessera
// compile` writes, loaded with dlopen) timed side by side with onnxruntime and PyTorch
// (peers in Python child processes, apps/bench/peer.h) in interleaved rounds with the
// same thread count, every output checked against the first peer's.
#pragma once

#include "compiled_library.h"
#include "model_record.h"
#include "opened_model.h"
#include "scheduler_options.h"
#include "tensor_data.h"

#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::bench {

// Something the user gave that cannot be used: a missing or unreadable model or input
// file, an input of the wrong shape or dtype, an unknown tensor name. Exit status 2.
struct ModelInputError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct ModelBenchOptions {
    std::string model;                     // the .onnx file
    std::vector<std::string> inputs;       // "[name=]x.npy"; none: MODEL.input.npy next to a one-input model
    std::vector<std::string> against = {kOnnxRuntime, kPyTorch};  // the peers; the first that runs is the reference
    int threads = 1;
    int reps = 20;                         // timed rounds
    int warmup = 5;                        // untimed rounds first (PyTorch's first runs are slow)
    bool interleaved = true;               // rounds A B C A B C; false: each contender's runs back to back
    double tolerance = 1e-3;               // on the max relative error against the reference
    std::string python;                    // the peers' interpreter; empty: peers skipped (python_missing says why)
    std::string python_missing;            // the line printed for a skipped peer when there is no interpreter
    std::string runner;                    // scripts/peer_runner.py, or a stand-in speaking its protocol
    std::string work_dir;                  // where the library is compiled; empty: a temporary folder, removed after
    std::string layout = "auto";           // tessera compile's --layout (apps/model/opened_model.h)
    int timeout_s = 900;                   // the whole model (isolated), and each peer reply (its load included)
    bool verbose = false;                  // tessera compile's lines per partition, the peers' stderr
    SchedulerOptions scheduler_options;    // Tessera's, as tessera compile gets them
    std::string cxx = "c++";               // compiles the library's generated wrapper
    bool tune = false;                     // tessera compile --tune (at `threads`)
    bool tune_graph = true;                // with tune: the layout and fusion alternatives timed first
};

// The peers' interpreter: `flag` (--python) when given, else `from_environment` (the
// tool's $TESSERA_PEER_PYTHON), else REPO/.venv-peers/bin/python
// (scripts/install-peers.sh). Empty when none is found, with `missing` set to the line
// saying how to get one. Throws ModelInputError when `flag` or `from_environment`
// names no executable.
std::string find_peer_python(const std::string &flag, const std::string &from_environment, const std::string &repo_dir,
                             std::string &missing);

// Max over the outputs of graph::relative_error(actual, reference): +infinity when the
// counts, shapes or dtypes differ or an actual value is NaN (NaN never passes).
double max_relative_error(const std::vector<graph::TensorData> &actual,
                          const std::vector<graph::TensorData> &reference);

// Waits until the processes `pids` have gone idle: none of their threads (the calling
// one left out) running or waiting for a core in two polls 1 ms apart (state R in
// /proc/PID/task/TID/stat), at most `max_ms`. A thread pool that spins after its run
// (onnxruntime's keeps a worker busy for tens of milliseconds) would otherwise take
// cores from whoever runs next. Returns the milliseconds waited.
double settle(const std::vector<int> &pids, double max_ms);

// The benchmark's folder: the one given (kept), or a temporary one removed afterwards.
class WorkDir {
public:
    explicit WorkDir(const std::string &given);
    ~WorkDir();
    WorkDir(const WorkDir &) = delete;
    WorkDir &operator=(const WorkDir &) = delete;
    const std::string &path() const { return path_; }

private:
    std::string path_;
    bool owned_ = false;
};

// A model opened as tessera compile opens it, with its inputs read and checked.
struct ModelUnderTest {
    cli::ModelOptions model_options;
    cli::OpenedModel opened;
    std::vector<cli::TensorSpec> input_specs;
    std::vector<graph::TensorData> inputs;   // in the order of input_specs
    std::vector<std::string> input_paths;
};

// Throws ModelInputError for a missing or bad model, a missing input file (none given and
// no MODEL.input.npy beside a one-input model) or an input of the wrong shape.
ModelUnderTest open_model_under_test(const ModelBenchOptions &options);

// Benchmarks one model: prints its progress and table on stdout and returns one record
// per contender (Tessera first, then the peers of options.against in order). Throws
// ModelInputError for a bad model or input file (before anything is compiled). Must
// run in a process that has not started Halide's thread pool (compilation forks).
std::vector<ModelRecord> bench_model(const ModelBenchOptions &options);

// The same in a forked child: a crash of Tessera's library, or a model that takes more
// than timeout_s, costs this model only (a crashed tessera row). ModelInputError still
// reaches the caller.
std::vector<ModelRecord> bench_model_isolated(const ModelBenchOptions &options);

// A model suite: one `model NAME` per line ('#' comments), NAME.onnx (and
// NAME.input.npy, NAME.pt) in the models folder. Throws SuiteError "FILE:LINE: ...".
std::vector<std::string> load_model_suite(const std::string &path);

}  // namespace tessera::bench
