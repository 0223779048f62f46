#!/usr/bin/env python3
"""Draws a tessera-bench JSON report as a PNG.

Ops (--op, --suite), two panels. Left: speedup of every contender over oneDNN per op
(median times; > 1 is faster than oneDNN; log scale). Right: a roofline from the
device profile's measured peaks (FMA peak, DRAM copy and LLC read bandwidth for the
threads used), with each correct kernel a point at its arithmetic intensity (flops /
compulsory bytes) and achieved GFLOP/s.

Models (--model, --suite models; records with a "model" field): one bar per model
and contender, its speedup over onnxruntime (onnxruntime median / median), the
median milliseconds written on each bar.

usage: bench_plot.py REPORT.json OUT.png
"""
import json
import math
import statistics
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def label(rec):
    shape = rec["shape"]
    return rec["op"] + "\n" + (shape if len(shape) <= 28 else shape[:26] + "..")


def headline(records, scheduler):
    """Geomeans of a contender's speedup over oneDNN, compute- and memory-bound
    apart, and the median, over ops where oneDNN ran an optimised kernel."""
    slow = {(r["op"], r["shape"]) for r in records
            if r["scheduler"] == "oneDNN" and not r.get("optimised_impl", True)}
    parts = {True: [], False: []}
    for r in records:
        if r["scheduler"] == scheduler and r.get("speedup_vs_onednn", 0) > 0 and (r["op"], r["shape"]) not in slow:
            parts[r["compute_bound"]].append(r["speedup_vs_onednn"])

    def gm(v):
        return math.exp(sum(math.log(x) for x in v) / len(v)) if v else 0

    both = parts[True] + parts[False]
    if not both:
        return ""
    return "%s: compute-bound %.2fx, memory-bound %.2fx, median %.2fx" % (
        scheduler, gm(parts[True]), gm(parts[False]), statistics.median(both))


def plot_models(records, out):
    """Speedup over onnxruntime per model and contender; only contenders that ran
    correctly next to a correct onnxruntime have a bar."""
    import os
    models, contenders = [], []
    for r in records:
        if r["model"] not in models:
            models.append(r["model"])
        if r["scheduler"] not in contenders:
            contenders.append(r["scheduler"])
    by_key = {(r["model"], r["scheduler"]): r for r in records}
    colors = plt.get_cmap("tab10")
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(models) + 3), 5))
    width = 0.8 / max(1, len(contenders))
    for i, c in enumerate(contenders):
        xs, ys, labels = [], [], []
        for j, m in enumerate(models):
            r = by_key.get((m, c))
            if r and r.get("speedup_vs_onnxruntime", 0) > 0:
                xs.append(j + (i - (len(contenders) - 1) / 2) * width)
                ys.append(r["speedup_vs_onnxruntime"])
                labels.append("%.1f ms" % r["time_ms_median"])
        ax.bar(xs, ys, width=width, label=c, color=colors(i % 10))
        for x, y, text in zip(xs, ys, labels):
            ax.text(x, y, text, ha="center", va="bottom", fontsize=7, rotation=90)
    ax.axhline(1.0, color="black", linewidth=1)
    ax.set_xticks(range(len(models)))
    ax.set_xticklabels([os.path.splitext(os.path.basename(m))[0] for m in models])
    ax.set_ylabel("speedup over onnxruntime (onnxruntime median / median)")
    threads = records[0].get("threads", 0)
    ax.set_title("Models against onnxruntime, %d thread(s) (above 1: faster than onnxruntime)" % threads, fontsize=9)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    ax.margins(y=0.2)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    return 0


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1]) as f:
        records = json.load(f)
    if not records:
        sys.stderr.write("bench_plot: %s holds no records\n" % argv[1])
        return 1
    if "model" in records[0]:
        return plot_models(records, argv[2])

    ops = []
    for r in records:
        key = (r["op"], r["shape"])
        if key not in ops:
            ops.append(key)
    schedulers = []
    for r in records:
        if r["scheduler"] not in schedulers:
            schedulers.append(r["scheduler"])
    others = [s for s in schedulers if s != "oneDNN"]
    colors = plt.get_cmap("tab10")

    fig, (bars, roof) = plt.subplots(1, 2, figsize=(max(14, 0.9 * len(ops) + 8), 7),
                                     gridspec_kw={"width_ratios": [max(2, len(ops) / 6), 1.2]})

    # Speedups over oneDNN; a missing bar means that contender failed or oneDNN did.
    width = 0.8 / max(1, len(others))
    by_key = {(r["op"], r["shape"], r["scheduler"]): r for r in records}
    for i, s in enumerate(others):
        xs, ys = [], []
        for j, (op, shape) in enumerate(ops):
            r = by_key.get((op, shape, s))
            if r and r.get("speedup_vs_onednn", 0) > 0:
                xs.append(j + (i - (len(others) - 1) / 2) * width)
                ys.append(r["speedup_vs_onednn"])
        bars.bar(xs, ys, width=width, label=s, color=colors(i % 10))
    bars.axhline(1.0, color="black", linewidth=1)
    bars.set_yscale("log")
    bars.set_xticks(range(len(ops)))
    bars.set_xticklabels([label({"op": o, "shape": s}) for o, s in ops], rotation=60, ha="right", fontsize=7)
    bars.set_ylabel("speedup over oneDNN (oneDNN time / time), log scale")
    title = "Speedup over oneDNN per op (above 1: faster than oneDNN)"
    lines = [h for h in (headline(records, s) for s in others) if h]
    if lines:
        title += "\ngeomeans where oneDNN ran an optimised kernel: " + "; ".join(lines[:2])
    bars.set_title(title, fontsize=9)
    bars.legend(fontsize=8)
    bars.grid(axis="y", which="both", alpha=0.3)

    # Roofline from the measured ceilings (same for every record of one run).
    first = records[0]
    peak, dram, llc = first["peak_gflops"], first["peak_dram_gbs"], first["peak_llc_gbs"]
    points = [r for r in records if r["ok"] and r["time_ms_median"] > 0 and r["bytes"] > 0 and r["flops"] > 0]
    intensities = [r["flops"] / r["bytes"] for r in points] or [1.0]
    lo, hi = min(intensities + [0.05]) / 2, max(intensities + [peak / max(dram, 1e-9)]) * 4
    xs = [lo * (hi / lo) ** (k / 200) for k in range(201)]
    if peak > 0 and dram > 0:
        roof.plot(xs, [min(peak, x * dram) for x in xs], color="black", label="FMA peak / DRAM copy %.0f GB/s" % dram)
    if peak > 0 and llc > 0:
        roof.plot(xs, [min(peak, x * llc) for x in xs], color="gray", linestyle="--",
                  label="LLC read %.0f GB/s" % llc)
    for i, s in enumerate(schedulers):
        pts = [r for r in points if r["scheduler"] == s]
        roof.scatter([r["flops"] / r["bytes"] for r in pts], [r["gflops"] for r in pts], s=18,
                     color=colors(i % 10) if s != "oneDNN" else "black", marker="o" if s != "oneDNN" else "x",
                     label=s)
    roof.set_xscale("log")
    roof.set_yscale("log")
    roof.set_xlabel("arithmetic intensity (flops / compulsory byte)")
    roof.set_ylabel("GFLOP/s")
    source = first.get("profile_source", "?")
    roof.set_title("Roofline, %d threads (%s peaks: %.0f GFLOP/s)" % (first.get("threads", 0), source, peak))
    roof.legend(fontsize=7, loc="lower right")
    roof.grid(which="both", alpha=0.3)

    fig.tight_layout()
    fig.savefig(argv[2], dpi=110)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
