"""Stand-in for scripts/per_layer_peer.py in the tests (found beside fake_peer.py, the
runner the tests point tessera-bench at): no onnxruntime, numbers that say where they
came from. Same command line and OUT.json as the real one: the first layer gets an
error, every other one 100 ms (median) and 90 ms (min), the call overhead 0.25 ms; inside
the whole model every layer but the last 50 ms, 7 ms unclaimed, a run 500 ms.
FAKE_PER_LAYER=fail exits 1 without writing OUT.json; =missing exits 3 (onnxruntime
cannot be imported)."""
import json
import os
import sys

mode = os.environ.get("FAKE_PER_LAYER", "ok")
if mode == "fail":
    sys.exit(1)
if mode == "missing":
    sys.exit(3)
model, threads, reps, layers_path, out_path = sys.argv[1:6]
with open(layers_path) as f:
    layers = json.load(f)
# Every value a layer names must be the model's own (a value in another layout
# stands for the model's NCHW one): checked where python3-onnx can read the model.
try:
    import onnx
    g = onnx.load(model).graph
    model_values = {v for n in g.node for v in n.output} | {v.name for v in list(g.input) + list(g.initializer)}
except ImportError:
    model_values = None
records = []
for k, layer in enumerate(layers):
    assert isinstance(layer["inputs"], list) and layer["output"]
    conversion = layer["output"] in layer["inputs"]  # a layout conversion computes no value
    assert layer["nodes"] and (conversion or layer["output"] in layer["values"])
    foreign = [v for v in layer["inputs"] + [layer["output"]] + layer["values"]
               if model_values is not None and v not in model_values]
    if k == 0:
        records.append({"name": layer["name"], "error": "RuntimeError: fake: no such value"})
    elif foreign:
        records.append({"name": layer["name"], "error": f"RuntimeError: fake: not a value of the model: {foreign[0]}"})
    else:
        records.append({"name": layer["name"], "median_ms": 100.0, "min_ms": 90.0})
    if k + 1 < len(layers):
        records[-1]["in_model_ms"] = 50.0
with open(out_path, "w") as f:
    json.dump({"call_overhead_ms": 0.25, "layers": records,
               "in_model": {"run_ms": 500.0, "kernels_ms": 50.0 * (len(layers) - 1) + 7.0, "unclaimed_ms": 7.0}}, f)
