"""onnxruntime's side of `tessera-bench --model F.onnx --per-layer`: the nodes of each of
Tessera's partitions cut out of the model as a small ONNX model of their own (the values
the partition reads from other partitions as its inputs, its output as the output, the
weights as initializers; onnx.utils.Extractor), each run by onnxruntime with the same
thread count on random inputs of the right shapes, timed after a warm-up so that its
inputs are in cache as they are inside the model. Run with the peers' interpreter
(scripts/install-peers.sh), as a child of tessera-bench:

    python per_layer_peer.py MODEL.onnx THREADS REPS LAYERS.json OUT.json

LAYERS.json: [{"name": ..., "inputs": [value, ...], "output": value}, ...]. OUT.json gets
{"call_overhead_ms": the median time of one session.run of a one-element Relu, "layers":
one record per layer, in order: {"name", "median_ms", "min_ms"} or {"name", "error"} (a
value Tessera's passes created and the model does not have, a cut the extractor refuses,
a session that fails)}. One line per layer on stderr as it goes. Exit status 0
when OUT.json was written (whatever the layers gave), 1 when the model or LAYERS.json
cannot be read, 3 when onnxruntime cannot be imported.
"""
import json
import statistics
import sys
import time


def timed(session, feed, reps):
    for _ in range(3):
        session.run(None, feed)
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        session.run(None, feed)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times), min(times)


def main(argv):
    if len(argv) != 6:
        print("usage: per_layer_peer.py MODEL.onnx THREADS REPS LAYERS.json OUT.json", file=sys.stderr)
        return 1
    model_path, threads, reps, layers_path, out_path = argv[1], int(argv[2]), int(argv[3]), argv[4], argv[5]
    try:
        import numpy as np
        import onnx
        import onnx.utils
        import onnxruntime as ort
    except Exception as e:  # noqa: BLE001 - ImportError, or a broken install
        print(f"per_layer_peer: {sys.executable} cannot import onnxruntime: {e}", file=sys.stderr)
        return 3
    try:
        with open(layers_path) as f:
            layers = json.load(f)
        model = onnx.load(model_path)
        extractor = onnx.utils.Extractor(model)
    except Exception as e:  # noqa: BLE001
        print(f"per_layer_peer: {e}", file=sys.stderr)
        return 1
    graph = model.graph
    known = set(extractor.vimap) | {v.name for v in list(graph.input) + list(graph.output) + list(graph.initializer)}
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    rng = np.random.default_rng(1)
    # What one session.run costs with next to nothing to compute (a Relu of one
    # element): part of every layer's time here, none of it inside the whole model.
    from onnx import TensorProto, helper
    tiny = helper.make_model(helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])]), opset_imports=[helper.make_opsetid("", 13)])
    tiny_session = ort.InferenceSession(tiny.SerializeToString(), sess_options=options, providers=["CPUExecutionProvider"])
    call_overhead_ms, _ = timed(tiny_session, {"x": np.ones(1, np.float32)}, max(reps, 100))
    records = []
    for k, layer in enumerate(layers):
        record = {"name": layer["name"]}
        try:
            missing = [v for v in layer["inputs"] + [layer["output"]] if v not in known]
            if missing:
                raise RuntimeError(f"no value '{missing[0]}' in the model (made by Tessera's passes)")
            sub = extractor.extract_model(layer["inputs"], [layer["output"]])
            session = ort.InferenceSession(sub.SerializeToString(), sess_options=options,
                                           providers=["CPUExecutionProvider"])
            feed = {}
            for i in session.get_inputs():
                if any(not isinstance(d, int) for d in i.shape):
                    raise RuntimeError(f"input '{i.name}' has no static shape ({i.shape})")
                if i.type == "tensor(float)":
                    feed[i.name] = rng.standard_normal(i.shape).astype(np.float32)
                elif i.type == "tensor(int64)":
                    feed[i.name] = np.zeros(i.shape, np.int64)
                else:
                    raise RuntimeError(f"input '{i.name}' is a {i.type}")
            record["median_ms"], record["min_ms"] = timed(session, feed, reps)
        except Exception as e:  # noqa: BLE001 - reported per layer
            record["error"] = f"{type(e).__name__}: {e}".replace("\n", " ")[:300]
        records.append(record)
        done = f"{record['median_ms']:.3f} ms" if "median_ms" in record else record["error"][:80]
        print(f"  [{k + 1}/{len(layers)}] {layer['name']}: {done}", file=sys.stderr, flush=True)
    with open(out_path, "w") as f:
        json.dump({"call_overhead_ms": call_overhead_ms, "layers": records}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
