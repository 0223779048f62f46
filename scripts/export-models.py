#!/usr/bin/python3
"""Exports the ONNX models that `tessera compile` / `tessera run` and the `models`
benchmark suite use: resnet18, resnet50, mobilenet_v2 (torchvision, random weights,
opset 13 by default) and bert_encoder (one BERT-base TransformerEncoderLayer,
1x128x768, opset 17 so LayerNormalization is a single op). Each NAME.onnx comes
with NAME.input.npy, a seeded random float32 input of the model's input shape,
NAME.output.npy, PyTorch's output for it, and NAME.pt, the same model traced to
TorchScript (torch.jit.trace under no_grad: the inference path PyTorch takes, the
encoder layer's fused fast path included), which `tessera-bench --model NAME.onnx
--against pytorch` loads. Not needed by `make test`.

Needs torch 1.13, torchvision 0.14, onnx and numpy (Debian's interpreter has them):

    /usr/bin/python3 scripts/export-models.py [--out DIR] [--opset N] [--only NAME[,NAME]]
"""
import argparse
import os
import time

import numpy as np
import onnx
import torch
import torchvision


def bert_encoder():
    return torch.nn.TransformerEncoderLayer(
        d_model=768, nhead=12, dim_feedforward=3072, activation="gelu",
        batch_first=True, dropout=0.0)


# name -> (constructor, input shape, opset or None for --opset)
MODELS = {
    "resnet18": (lambda: torchvision.models.resnet18(weights=None), (1, 3, 224, 224), None),
    "resnet50": (lambda: torchvision.models.resnet50(weights=None), (1, 3, 224, 224), None),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(weights=None), (1, 3, 224, 224), None),
    "bert_encoder": (bert_encoder, (1, 128, 768), 17),
}


def export(name, out_dir, default_opset):
    make, shape, opset = MODELS[name]
    opset = opset or default_opset
    torch.manual_seed(0)
    model = make().eval()
    x = torch.from_numpy(np.random.default_rng(0).standard_normal(shape, dtype=np.float32))
    path = os.path.join(out_dir, name + ".onnx")
    # In eval mode TransformerEncoderLayer takes a fused "fast path"
    # (aten::_transformer_encoder_layer_fwd) that cannot be exported; torch 1.13
    # skips it while grad is enabled and the weights require grad (the default),
    # so export under enable_grad() in case the caller disabled it.
    with torch.enable_grad():
        torch.onnx.export(model, (x,), path, input_names=["input"], output_names=["output"],
                          opset_version=opset, do_constant_folding=True)
    np.save(os.path.join(out_dir, name + ".input.npy"), x.numpy())
    # PyTorch's own output: what `tessera run NAME.onnx --expect NAME.output.npy` checks.
    with torch.no_grad():
        want = model(x)
        np.save(os.path.join(out_dir, name + ".output.npy"), want.numpy())
        # TorchScript for the PyTorch peer of tessera-bench: traced in inference mode,
        # checked against the eager output.
        traced = torch.jit.trace(model, (x,), check_trace=False)
        traced.save(os.path.join(out_dir, name + ".pt"))
        err = (traced(x) - want).abs().max().item() / max(want.abs().max().item(), 1e-30)
        if not err <= 1e-4:
            raise SystemExit(f"{name}: the traced TorchScript model differs from eager: {err:.3g}")
    onnx.checker.check_model(path)
    graph = onnx.load(path).graph
    ops = sorted({n.op_type for n in graph.node})
    print(f"{path}  opset {opset}  {len(graph.node)} nodes  {os.path.getsize(path) / 1e6:.1f} MB"
          f"  ops: {' '.join(ops)}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="models", help="output directory (default: models)")
    ap.add_argument("--opset", type=int, default=13, choices=range(13, 18), metavar="N",
                    help="opset for the torchvision models, 13..17 (default: 13)")
    ap.add_argument("--only", help="comma-separated subset of: " + ",".join(MODELS))
    args = ap.parse_args()
    names = args.only.split(",") if args.only else list(MODELS)
    unknown = [n for n in names if n not in MODELS]
    if unknown:
        ap.error(f"unknown model(s) {','.join(unknown)}; known: {','.join(MODELS)}")
    os.makedirs(args.out, exist_ok=True)
    for name in names:
        start = time.time()
        export(name, args.out, args.opset)
        print(f"  ({time.time() - start:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
