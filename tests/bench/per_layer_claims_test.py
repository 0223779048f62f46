"""scripts/per_layer_peer.py's claim of onnxruntime's profiled kernels by Tessera's
layers: by ONNX node name, by the value a "<value>_nchwc" node is named after, by the
node a fused node's name begins with, medians
after the warm-up runs, unclaimed kernels summed apart, unclaimed layers None. Plain
asserts (no onnxruntime needed); prints the closing line CTest's runners read."""
import importlib.util
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("per_layer_peer", os.path.join(here, "..", "..", "scripts", "per_layer_peer.py"))
peer = importlib.util.module_from_spec(spec)
spec.loader.exec_module(peer)

layers = [
    {"name": "p0", "nodes": ["/conv1/Conv", "/relu/Relu"], "values": ["/conv1/Conv_output_0", "/relu/Relu_output_0"]},
    {"name": "p1", "nodes": ["/fc/Gemm"], "values": ["logits"]},
    {"name": "p2", "nodes": ["/pool/MaxPool"], "values": ["pooled"]},
]
durations = {
    "/relu/Relu_output_0_nchwc": [9.0, 1.0, 2.0, 3.0],  # a fused, blocked Conv+Relu: p0's
    "/fc/Gemm": [9.0, 0.5, 0.5, 0.7],                    # p1's by node name
    "/pool/MaxPool/PoolFusion//OtherFusion/": [9.0, 0.2, 0.2, 0.2],  # p2's, fused
    "ReorderOutput_token_1": [9.0, 0.1, 0.1, 0.1],       # a layout conversion: nobody's
}
per_layer, kernels, unclaimed = peer.claim_kernels(durations, layers, 1)
assert per_layer[0] == 2.0, per_layer
assert per_layer[1] == 0.5, per_layer
assert per_layer[2] == 0.2, per_layer
assert abs(unclaimed - 0.1) < 1e-12, unclaimed
assert abs(kernels - 2.8) < 1e-12, kernels
# A layer no kernel is named after gets None.
per_layer, _, unclaimed = peer.claim_kernels({"Gelu": [1.0, 1.0]}, layers, 1)
assert per_layer == [None, None, None] and unclaimed == 1.0, per_layer
# Fewer runs than the warm-up: every time counts.
per_layer, _, _ = peer.claim_kernels({"/fc/Gemm": [4.0]}, layers, 3)
assert per_layer[1] == 4.0, per_layer
print("1 passed, 0 failed")
sys.exit(0)
