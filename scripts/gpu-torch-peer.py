#!/usr/bin/env python3
"""PyTorch on the GPU as the peer of tessera-gpu-bench and of GPU model libraries:
times tessera-gpu-bench's op lines (`tessera-gpu-bench --list`) and the models of
scripts/export-models.py in PyTorch's eager mode, float32 with TF32 off (Tessera's
GPU kernels are plain fp32 FMA), cuDNN's autotuner on.

Ops are timed as tessera-gpu-bench times them: batches of back-to-back launches on
device-resident tensors, each batch ended by a synchronisation, the median batch per
launch. Models as tessera-run-library times them: the input copied to the GPU and
the output back each inference (batch 1), the best and the median of --reps.
Random weights: timings only, no outputs are compared here.

    python3 scripts/gpu-torch-peer.py --ops OPS.txt [--models resnet18,mobilenet_v2] [--reps N]
"""
import argparse
import math
import statistics
import sys
import time

import torch
import torch.nn.functional as F


def parse(line):
    op, *words = line.split()
    return op, dict(w.split("=", 1) for w in words)


def ints(s):
    return [int(v) for v in s.split("x")]


def make_op(line, dev):
    """(callable, description) for an op line, or None for an op not mapped here."""
    op, k = parse(line)
    r = lambda *shape: torch.rand(*shape, device=dev) * 2 - 1
    g = lambda key, default=0: int(k.get(key, default))
    if op == "matmul":
        a, b = r(g("M"), g("K")), r(g("K"), g("N"))
        if g("bias"):
            bias = r(g("N"))
            return lambda: torch.addmm(bias, a, b)
        return lambda: a @ b
    if op == "batch_matmul":
        a, b = r(g("B"), g("M"), g("K")), r(g("B"), g("K"), g("N"))
        return lambda: torch.bmm(a, b)
    if op in ("conv2d", "depthwise_conv2d"):
        c = g("c")
        groups = c if op == "depthwise_conv2d" else g("groups", 1)
        oc = c if op == "depthwise_conv2d" else g("oc")
        x, w = r(g("n", 1), c, g("h"), g("w")), r(oc, c // groups, g("kh"), g("kw"))
        return lambda: F.conv2d(x, w, stride=g("stride", 1), padding=g("pad", 0), groups=groups)
    if op == "max_pool2d":
        x = r(g("n", 1), g("c"), g("h"), g("w"))
        return lambda: F.max_pool2d(x, (g("kh"), g("kw")), g("stride", 1), g("pad", 0))
    if op == "global_avg_pool":
        x = r(g("n", 1), g("c"), g("h"), g("w"))
        return lambda: x.mean((2, 3), keepdim=True)
    if op == "softmax":
        x = r(*ints(k["shape"]))
        return lambda: torch.softmax(x, int(k.get("axis", -1)))
    if op == "layer_norm":
        shape = ints(k["shape"])
        x, gamma, beta = r(*shape), r(shape[-1]), r(shape[-1])
        return lambda: F.layer_norm(x, shape[-1:], gamma, beta)
    if op == "gelu":
        x = r(*ints(k["shape"]))
        return lambda: F.gelu(x, approximate="tanh")
    if op == "add":
        a, b = r(*ints(k["shape_a"])), r(*ints(k["shape_b"]))
        return lambda: a + b
    if op == "reduce_mean":
        x = r(*ints(k["shape"]))
        axes = [int(v) for v in k["axes"].split(",")]
        return lambda: x.mean(axes)
    if op == "transpose":
        x = r(*ints(k["shape"]))
        perm = [int(v) for v in k["perm"].split(",")]
        return lambda: x.permute(*perm).contiguous()
    if op == "attention":
        q, kk, v = r(g("B"), g("M"), g("K")), r(g("B"), g("L"), g("K")), r(g("B"), g("L"), g("N"))
        scale = 1.0 / math.sqrt(g("K"))
        return lambda: torch.softmax((q @ kk.transpose(1, 2)) * scale, -1) @ v
    return None


def make_fused_attention(line, dev):
    """An attention line as PyTorch's one fused call (its flash/memory-efficient
    kernels; the chain a fused Tessera library competes with), or None."""
    op, *kv = line.split()
    if op != "attention":
        return None
    k = dict(item.split("=", 1) for item in kv)
    g = lambda key: int(k.get(key, 1))
    q = torch.rand(g("B"), g("M"), g("K"), device=dev)
    kk = torch.rand(g("B"), g("L"), g("K"), device=dev)
    v = torch.rand(g("B"), g("L"), g("N"), device=dev)
    return lambda: torch.nn.functional.scaled_dot_product_attention(q, kk, v)


def time_launches(fn, batches, launches):
    for _ in range(2):  # warm-up: cuDNN's autotuning, allocator growth
        for _ in range(launches):
            fn()
        torch.cuda.synchronize()
    per_launch = []
    for _ in range(batches):
        start = time.perf_counter()
        for _ in range(launches):
            fn()
        torch.cuda.synchronize()
        per_launch.append((time.perf_counter() - start) * 1e3 / launches)
    return statistics.median(per_launch), min(per_launch)


def model(name):
    import torchvision
    if name == "bert_encoder":
        return torch.nn.TransformerEncoderLayer(d_model=768, nhead=12, dim_feedforward=3072, activation="gelu",
                                                batch_first=True, dropout=0.0), (1, 128, 768)
    return getattr(torchvision.models, name)(weights=None), (1, 3, 224, 224)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ops", help="a file of op lines (tessera-gpu-bench --list)")
    ap.add_argument("--models", default="", help="comma-separated: resnet18, resnet50, mobilenet_v2, bert_encoder")
    ap.add_argument("--reps", type=int, default=50)
    ap.add_argument("--batches", type=int, default=30)
    ap.add_argument("--launches", type=int, default=10)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("gpu-torch-peer: no CUDA GPU visible to PyTorch")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    dev = torch.device("cuda")
    print(f"PyTorch {torch.__version__} on {torch.cuda.get_device_name(0)}, fp32, TF32 off")
    with torch.inference_mode():
        if args.ops:
            for line in open(args.ops):
                line = line.strip()
                if not line:
                    continue
                fn = make_op(line, dev)
                if fn is None:
                    print(f"{line}\n  PyTorch  (not mapped)")
                    continue
                med, best = time_launches(fn, args.batches, args.launches)
                print(f"{line}\n  PyTorch  {med:9.4f} ({best:9.4f}) ms")
                fused = make_fused_attention(line, dev)
                if fused is not None:
                    med, best = time_launches(fused, args.batches, args.launches)
                    print(f"  PyTorch scaled_dot_product_attention (fused, fp32) {med:9.4f} ({best:9.4f}) ms")
        for name in filter(None, args.models.split(",")):
            m, shape = model(name)
            m = m.eval().to(dev)
            x = torch.rand(*shape) * 2 - 1
            times = []
            for i in range(args.reps + 3):
                torch.cuda.synchronize()
                start = time.perf_counter()
                y = m(x.to(dev)).cpu()
                if i >= 3:
                    times.append((time.perf_counter() - start) * 1e3)
            print(f"model {name}: PyTorch eager, input to the GPU and output back each run: "
                  f"best {min(times):.3f} ms, median {statistics.median(times):.3f} ms over {args.reps}")


if __name__ == "__main__":
    main()
