#!/usr/bin/python3
"""The model zoo check (`make zoo`, not part of `make test`): every image-classification
model of the installed torchvision, plus segmentation bodies that export with static
shapes, exported to ONNX here (random weights, opset 13), compiled with `tessera
compile`, run with `tessera run` against PyTorch's own output, and tabulated: model,
nodes, partitions, compile seconds, max relative error, median ms, or the error that
stopped it.

    /usr/bin/python3 scripts/zoo.py [--out DIR] [--only NAME[,NAME]] [--skip NAME[,NAME]]
                                    [--threads T] [--tolerance E] [--table F] [--timeout S]

Writes DIR/NAME.onnx (and its input/output .npy), DIR/NAME/ (the library) and the
table (markdown; default DIR/zoo.md), and prints one line per model as it goes. Needs
torch, torchvision, onnx and numpy (Debian's interpreter has them) and a build of the
`tessera` CLI (make build).
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
import onnx
import torch
import torchvision

HERE = os.path.dirname(os.path.abspath(__file__))
TESSERA = os.path.join(HERE, "..", "build", "apps", "tessera", "tessera")


def classification_models():
    """Every classification constructor torchvision exports, by name."""
    names = []
    if hasattr(torchvision.models, "list_models"):  # torchvision 0.14 on
        names = torchvision.models.list_models(module=torchvision.models)
    else:
        names = [n for n, f in vars(torchvision.models).items()
                 if callable(f) and n[0].islower() and not n.startswith("get_")]
    return sorted(names)


SEGMENTATION = ["fcn_resnet50", "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large"]


def input_shape(name):
    if name.startswith("inception"):
        return (1, 3, 299, 299)
    if name.startswith("segmentation."):
        return (1, 3, 256, 256)
    return (1, 3, 224, 224)


def construct(name):
    if name.startswith("segmentation."):
        model = getattr(torchvision.models.segmentation, name.split(".", 1)[1])(weights=None, weights_backbone=None)

        class Body(torch.nn.Module):  # the "out" head only: a tensor, not a dict
            def __init__(self, inner):
                super().__init__()
                self.inner = inner

            def forward(self, x):
                return self.inner(x)["out"]

        return Body(model)
    kwargs = {"weights": None}
    if name in ("googlenet", "inception_v3"):
        kwargs["aux_logits"] = False
        kwargs["init_weights"] = True
    return getattr(torchvision.models, name)(**kwargs)


def export(name, out_dir):
    torch.manual_seed(0)
    model = construct(name).eval()
    shape = input_shape(name)
    x = torch.from_numpy(np.random.default_rng(0).standard_normal(shape, dtype=np.float32))
    base = os.path.join(out_dir, name)
    # In eval mode torch 1.13's attention layers take a fused fast path that cannot be
    # exported; it is skipped while grad is enabled (as scripts/export-models.py does).
    with torch.enable_grad():
        torch.onnx.export(model, (x,), base + ".onnx", input_names=["input"], output_names=["output"],
                          opset_version=13, do_constant_folding=True)
    with torch.no_grad():
        np.save(base + ".input.npy", x.numpy())
        np.save(base + ".output.npy", model(x).numpy())
    return len(onnx.load(base + ".onnx", load_external_data=False).graph.node)


def last_line(text):
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1][:200] if lines else "(no output)"


def check(name, out_dir, threads, tolerance, timeout):
    row = {"model": name}
    try:
        row["nodes"] = export(name, out_dir)
    except Exception as e:  # an export failure is PyTorch's, not Tessera's: reported as such
        row["error"] = "export: " + str(e).splitlines()[0][:200]
        return row
    base = os.path.join(out_dir, name)
    start = time.time()
    try:
        c = subprocess.run([TESSERA, "compile", base + ".onnx", "-o", base], capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        row["error"] = f"compile: no result in {timeout} s"
        return row
    row["compile_s"] = time.time() - start
    if c.returncode != 0:
        row["error"] = "compile: " + last_line(c.stderr or c.stdout)
        return row
    plans = [p for p in os.listdir(base) if p.endswith(".plan.json")]  # the library names it
    try:
        with open(os.path.join(base, plans[0])) as f:
            row["partitions"] = len(json.load(f)["partitions"])
    except (IndexError, OSError, KeyError, ValueError):
        pass
    result = base + ".run.json"
    try:
        r = subprocess.run([TESSERA, "run", base, "--input", base + ".input.npy", "--expect", base + ".output.npy",
                            "--threads", str(threads), "--tolerance", str(tolerance), "--reps", "5", "--json", result],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        row["error"] = f"run: no result in {timeout} s"
        return row
    try:
        with open(result) as f:
            j = json.load(f)
        row["rel_error"] = j.get("max_rel_error")
        row["ms"] = j.get("time_ms_median")
        row["ok"] = bool(j.get("ok"))
    except (OSError, ValueError):
        pass
    if r.returncode != 0:
        row["error"] = "run: " + last_line(r.stderr or r.stdout)
    return row


def table(rows):
    out = ["| model | nodes | partitions | compile s | max rel. error | ms | result |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        def fmt(key, spec):
            return format(r[key], spec) if r.get(key) is not None else ""
        result = "ok" if r.get("ok") and "error" not in r else r.get("error", "mismatch")
        out.append(f"| {r['model']} | {r.get('nodes', '')} | {r.get('partitions', '')} | {fmt('compile_s', '.1f')} | "
                   f"{fmt('rel_error', '.1e')} | {fmt('ms', '.2f')} | {result} |")
    passed = sum(1 for r in rows if r.get("ok") and "error" not in r)
    out.append("")
    out.append(f"{passed} of {len(rows)} compiled and matched PyTorch ({100.0 * passed / max(1, len(rows)):.0f}%).")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="zoo")
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--skip", default="", help="comma-separated model names left out")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--tolerance", type=float, default=1e-3)
    ap.add_argument("--table", default="")
    ap.add_argument("--timeout", type=int, default=900, help="seconds for each compile and each run")
    args = ap.parse_args()
    if not os.access(TESSERA, os.X_OK):
        sys.exit(f"zoo: {TESSERA} not found: run make build first")
    names = classification_models() + ["segmentation." + n for n in SEGMENTATION]
    if args.only:
        wanted = args.only.split(",")
        unknown = [w for w in wanted if w not in names]
        if unknown:
            sys.exit("zoo: unknown model(s) " + ", ".join(unknown) + " (known: " + ", ".join(names) + ")")
        names = wanted
    skipped = set(args.skip.split(",")) if args.skip else set()
    names = [n for n in names if n not in skipped]
    os.makedirs(args.out, exist_ok=True)
    rows = []
    for i, name in enumerate(names, 1):
        start = time.time()
        row = check(name, args.out, args.threads, args.tolerance, args.timeout)
        rows.append(row)
        status = "ok" if row.get("ok") and "error" not in row else row.get("error", "mismatch")
        print(f"[{i}/{len(names)}] {name}: {status} ({time.time() - start:.0f} s)", flush=True)
    text = table(rows)
    path = args.table or os.path.join(args.out, "zoo.md")
    with open(path, "w") as f:
        f.write(text)
    print(text)
    print("table written to " + path)


if __name__ == "__main__":
    main()
