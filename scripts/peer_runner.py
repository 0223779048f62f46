"""One peer of `tessera-bench --model`: loads a model with onnxruntime or PyTorch and
runs it on request, so tessera-bench can time it in rounds interleaved with Tessera's
compiled library without loading the model again. Run with the peers' interpreter
(scripts/install-peers.sh), as a child of tessera-bench:

    python peer_runner.py onnxruntime MODEL.onnx THREADS INPUT.npy [INPUT.npy ...]
    python peer_runner.py pytorch MODEL.pt THREADS INPUT.npy [INPUT.npy ...]

The inputs are given in the order of the model's inputs. The protocol is one line each
way; the first line is the runner's own:

    ready DESCRIPTION         loaded; DESCRIPTION names the library and its version
    unavailable REASON        the library cannot be imported (the runner then exits 0)
    error MESSAGE             the model or an input could not be loaded (exits 1)

then, for each command read from stdin:

    run N      ->  times T1 ... TN   milliseconds of each of N runs (perf_counter around
                                     the call alone), or: error MESSAGE
    save DIR   ->  saved K           the last run's K outputs as DIR/output0.npy ...
                                     DIR/output{K-1}.npy (float32; integer and boolean
                                     outputs int64), or: error MESSAGE
    quit       ->  (exits 0; so does the end of stdin)

Anything the libraries print goes to stderr: the protocol has stdout to itself.

onnxruntime: an InferenceSession on the CPU provider with intra_op_num_threads=THREADS,
inter_op_num_threads=1, sequential execution and every graph optimisation.
PyTorch: the TorchScript file (scripts/export-models.py writes NAME.pt), frozen
(torch.jit.freeze: constants folded, batch norms folded into convolutions), run under
torch.inference_mode() with torch.set_num_threads(THREADS) and one inter-op thread.
Debian's PyTorch takes its matrix products from libblas.so.3; when the environment holds
an unpacked OpenBLAS (ENV/blas/, scripts/install-peers.sh) the runner starts itself again
with that first on LD_LIBRARY_PATH, and the description says which BLAS was loaded.
"""
import glob
import os
import sys
import time


def openblas_first():
    """For PyTorch: re-executes this runner with the environment's OpenBLAS first on
    the library path (the loader reads LD_LIBRARY_PATH only when a process starts)."""
    found = glob.glob(os.path.join(sys.prefix, "blas", "usr", "lib", "*", "openblas-openmp"))
    path = os.environ.get("LD_LIBRARY_PATH", "")
    if found and found[0] not in path.split(":"):
        os.environ["LD_LIBRARY_PATH"] = found[0] + (":" + path if path else "")
        os.execv(sys.executable, [sys.executable] + sys.argv)


if len(sys.argv) > 1 and sys.argv[1] == "pytorch":
    openblas_first()

# The protocol's own copy of stdout; file descriptor 1 becomes stderr for everyone else.
_protocol = os.fdopen(os.dup(1), "w", buffering=1)
os.dup2(2, 1)
sys.stdout = sys.stderr


def reply(line):
    _protocol.write(line.replace("\n", " ") + "\n")
    _protocol.flush()


def load_inputs(paths):
    import numpy as np
    arrays = []
    for p in paths:
        try:
            arrays.append(np.load(p, allow_pickle=False))
        except Exception as e:  # noqa: BLE001 - any reason is reported the same way
            raise RuntimeError(f"{p}: {e}")
    return arrays


class OnnxRuntimePeer:
    def __init__(self, model, threads, inputs):
        import onnxruntime as ort
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
        names = [i.name for i in self.session.get_inputs()]
        if len(names) != len(inputs):
            raise RuntimeError(f"{model} takes {len(names)} input(s) ({', '.join(names)}), given {len(inputs)}")
        self.feed = dict(zip(names, inputs))
        self.description = f"onnxruntime {ort.__version__}"

    def run(self):
        return self.session.run(None, self.feed)


class PyTorchPeer:
    def __init__(self, model, threads, inputs):
        import torch
        torch.set_num_threads(threads)
        torch.set_num_interop_threads(1)
        self.torch = torch
        module = torch.jit.load(model, map_location="cpu").eval()
        self.module = torch.jit.freeze(module)
        self.inputs = [torch.from_numpy(a) for a in inputs]
        self.description = f"PyTorch {torch.__version__} (TorchScript, frozen; {loaded_blas()})"

    def run(self):
        with self.torch.inference_mode():
            out = self.module(*self.inputs)
        if isinstance(out, self.torch.Tensor):
            out = (out,)
        return [o.numpy() for o in out]


def loaded_blas():
    """Which libblas.so.3 this process loaded, for the description."""
    with open("/proc/self/maps") as maps:
        paths = {line.split()[-1] for line in maps if "libblas.so" in line or "libopenblas" in line}
    if any("openblas" in p for p in paths):
        return "OpenBLAS"
    if paths:
        return "reference BLAS " + sorted(paths)[0] + ": slow matrix products (bash scripts/install-peers.sh)"
    return "BLAS not loaded"


PEERS = {"onnxruntime": ("onnxruntime", OnnxRuntimePeer), "pytorch": ("torch", PyTorchPeer)}


def main(argv):
    if len(argv) < 5 or argv[1] not in PEERS:
        reply("error usage: peer_runner.py onnxruntime|pytorch MODEL THREADS INPUT.npy...")
        return 2
    kind, model, threads, input_paths = argv[1], argv[2], argv[3], argv[4:]
    module, peer_class = PEERS[kind]
    try:
        __import__(module)
    except Exception as e:  # noqa: BLE001 - ImportError, or a broken install
        reply(f"unavailable {sys.executable} cannot import {module}: {e}")
        return 0
    try:
        peer = peer_class(model, int(threads), load_inputs(input_paths))
    except Exception as e:  # noqa: BLE001
        reply(f"error {type(e).__name__}: {e}")
        return 1
    reply(f"ready {peer.description}")

    outputs = None
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        try:
            if words[0] == "run" and len(words) == 2:
                times = []
                for _ in range(int(words[1])):
                    start = time.perf_counter()
                    outputs = peer.run()
                    times.append((time.perf_counter() - start) * 1e3)
                reply("times " + " ".join(f"{t:.6f}" for t in times))
            elif words[0] == "save" and len(words) >= 2:
                if outputs is None:
                    raise RuntimeError("nothing run yet")
                import numpy as np
                folder = line.strip()[len("save"):].strip()
                for k, o in enumerate(outputs):
                    # Integer and boolean outputs (an arg-max, a mask) as int64, as Tessera gives them.
                    o = np.asarray(o)
                    dtype = np.int64 if o.dtype.kind in "iub" else np.float32
                    np.save(os.path.join(folder, f"output{k}.npy"), np.ascontiguousarray(o, dtype=dtype))
                reply(f"saved {len(outputs)}")
            elif words[0] == "quit":
                break
            else:
                reply(f"error unknown command '{line.strip()}'")
        except Exception as e:  # noqa: BLE001
            reply(f"error {type(e).__name__}: {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
