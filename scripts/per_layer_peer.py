"""onnxruntime's side of `tessera-bench --model F.onnx --per-layer`: the nodes of each of
Tessera's partitions cut out of the model as a small ONNX model of their own (the values
the partition reads from other partitions as its inputs, its output as the output, the
weights as initializers; onnx.utils.Extractor), each run by onnxruntime with the same
thread count on random inputs of the right shapes, timed after a warm-up so that its
inputs are in cache as they are inside the model. Run with the peers' interpreter
(scripts/install-peers.sh), as a child of tessera-bench:

    python per_layer_peer.py MODEL.onnx THREADS REPS LAYERS.json OUT.json

Then the whole model runs REPS times in one session with onnxruntime's profiler on, and
each of its kernels' median time is given to the layer whose nodes it computes: the
kernel's node name is one of the layer's ONNX node names, begins with one (a fused node,
"<node>/MatMulAddFusion"), or, for a node converted to onnxruntime's blocked layout
("<value>_nchwc"), names a value one of the layer's nodes produces. That is onnxruntime's
time for those nodes inside its own model, its weights and inputs as cold or warm as
there; kernels no layer claims (its own fusions, its layout conversions) are summed apart.

LAYERS.json: [{"name": ..., "inputs": [value, ...], "output": value, "nodes": [ONNX node
name, ...], "values": [value each node produces, ...]}, ...]. OUT.json gets
{"call_overhead_ms": the median time of one session.run of a one-element Relu, "layers":
one record per layer, in order: {"name", "median_ms", "min_ms"} or {"name", "error"} (a
value Tessera's passes created and the model does not have, a layout conversion, a cut the
extractor refuses, a session that fails), each with "in_model_ms" when some kernel of the whole model was
its, and "in_model": {"run_ms": the whole model's median run, "kernels_ms": its kernels'
medians summed, "unclaimed_ms": those no layer claims} (or {"error"})}. One line per layer
on stderr as it goes. Exit status 0
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


def session_options(ort, threads):
    """As tessera-bench's peer runs the whole model: `threads` intra-op threads, one
    inter-op, sequential, every graph optimisation."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.log_severity_level = 3
    return options


def profile_in_model(ort, threads, model_path, feed_for, layers, reps):
    """Median kernel times of the whole model's nodes, claimed by layer: (per-layer ms,
    the in_model summary)."""
    import tempfile
    profiled = session_options(ort, threads)
    profiled.enable_profiling = True
    with tempfile.TemporaryDirectory() as scratch:
        profiled.profile_file_prefix = scratch + "/profile"
        session = ort.InferenceSession(model_path, sess_options=profiled, providers=["CPUExecutionProvider"])
        feed = feed_for(session)
        warmup = 3
        run_ms = []
        for k in range(warmup + reps):
            start = time.perf_counter()
            session.run(None, feed)
            if k >= warmup:
                run_ms.append((time.perf_counter() - start) * 1e3)
        with open(session.end_profiling()) as f:
            events = json.load(f)
    # Each node's kernel times in run order; the warm-up runs are the first ones.
    durations = {}
    for e in events:
        if e.get("cat") == "Node" and e.get("name", "").endswith("_kernel_time"):
            durations.setdefault(e["name"][:-len("_kernel_time")], []).append(e["dur"] / 1e3)
    per_layer, kernels, unclaimed = claim_kernels(durations, layers, warmup)
    return per_layer, {"run_ms": statistics.median(run_ms), "kernels_ms": kernels, "unclaimed_ms": unclaimed}


def claim_kernels(durations, layers, warmup):
    """Each node's median kernel time (after `warmup` runs) given to the layer that
    names the node, the value a "<value>_nchwc" node is named after, or the node a
    fused one's name begins with ("<node>/<Fusion>"): (per layer ms, None where no
    kernel was its; all kernels' ms; unclaimed ms)."""
    by_node, by_value = {}, {}
    for k, layer in enumerate(layers):
        for n in layer.get("nodes", []):
            by_node[n] = k
        for v in layer.get("values", []):
            by_value[v] = k
    per_layer = [0.0] * len(layers)
    claimed = [False] * len(layers)
    kernels = unclaimed = 0.0
    for node, times in durations.items():
        ms = statistics.median(times[warmup:] if len(times) > warmup else times)
        kernels += ms
        owner = by_node.get(node)
        if owner is None:
            owner = by_value.get(node[:-len("_nchwc")] if node.endswith("_nchwc") else node)
        # A fusion names its node after the first one it took: "<node>/MatMulAddFusion",
        # "<node>/MatmulTransposeFusion//MatMulScaleFusion/".
        prefix = node
        while owner is None and "/" in prefix.rstrip("/"):
            prefix = prefix.rstrip("/").rsplit("/", 1)[0]
            owner = by_node.get(prefix)
        if owner is None:
            unclaimed += ms
            continue
        per_layer[owner] += ms
        claimed[owner] = True
    return [ms if c else None for ms, c in zip(per_layer, claimed)], kernels, unclaimed


def random_feed(np, rng, session):
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
    return feed


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
    options = session_options(ort, threads)
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
            if layer["output"] in layer["inputs"]:
                raise RuntimeError("a layout conversion of Tessera's: no node of the model computes it")
            sub = extractor.extract_model(layer["inputs"], [layer["output"]])
            session = ort.InferenceSession(sub.SerializeToString(), sess_options=options,
                                           providers=["CPUExecutionProvider"])
            record["median_ms"], record["min_ms"] = timed(session, random_feed(np, rng, session), reps)
        except Exception as e:  # noqa: BLE001 - reported per layer
            record["error"] = f"{type(e).__name__}: {e}".replace("\n", " ")[:300]
        records.append(record)
        done = f"{record['median_ms']:.3f} ms" if "median_ms" in record else record["error"][:80]
        print(f"  [{k + 1}/{len(layers)}] {layer['name']}: {done}", file=sys.stderr, flush=True)
    try:
        in_layers, in_model = profile_in_model(ort, threads, model_path, lambda s: random_feed(np, rng, s), layers, reps)
        for record, ms in zip(records, in_layers):
            if ms is not None:
                record["in_model_ms"] = ms
        print(f"  the whole model, profiled: {in_model['run_ms']:.3f} ms a run, kernels {in_model['kernels_ms']:.3f} ms,"
              f" {in_model['unclaimed_ms']:.3f} ms in kernels no layer claims", file=sys.stderr, flush=True)
    except Exception as e:  # noqa: BLE001 - the one-layer times stand without it
        in_model = {"error": f"{type(e).__name__}: {e}".replace("\n", " ")[:300]}
    with open(out_path, "w") as f:
        json.dump({"call_overhead_ms": call_overhead_ms, "layers": records, "in_model": in_model}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
