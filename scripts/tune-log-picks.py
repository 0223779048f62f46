#!/usr/bin/env python3
"""How close untuned compiles come to tuned ones, from tuning logs of `tessera compile --tune`.

    scripts/tune-log-picks.py LOG [LOG2]

Per log: the partitions measured (by signature; the last record of each), how many had their untuned pick (Tessera:0, what a
compile without --tune builds) within 10% of the fastest candidate, the geomean and
worst of untuned over tuned, and both summed. With two logs (e.g. before and after
`tessera-profile --calibrate`), the same again over the partitions both measured.
"""
import json
import math
import sys


def read(path):
    records = {}
    with open(path) as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                r = json.loads(line)
                records[r["signature"]] = {c["name"]: c["measured_ms"] for c in r["candidates"]}
            except (ValueError, KeyError, TypeError) as e:
                sys.exit(f"{path}:{number}: not a tuning record ({e})")
    return records


def report(label, records, signatures):
    if not signatures:
        print(f"{label}: no partitions")
        return
    within, ratios, untuned, tuned = 0, [], 0.0, 0.0
    for s in signatures:
        times = records[s]
        best, pick = min(times.values()), times.get("Tessera:0", min(times.values()))
        ratios.append(pick / best)
        within += pick <= 1.1 * best
        untuned += pick
        tuned += best
    geomean = math.exp(sum(map(math.log, ratios)) / len(ratios))
    print(f"{label}: {len(signatures)} partitions, untuned within 10% of tuned {within} "
          f"({100 * within / len(signatures):.0f}%), untuned/tuned geomean {geomean:.3f}, worst {max(ratios):.2f}, "
          f"summed {untuned:.2f} -> {tuned:.2f} ms")


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: tune-log-picks.py LOG [LOG2]", file=sys.stderr)
        sys.exit(2)
    logs = [(path, read(path)) for path in sys.argv[1:]]
    for path, records in logs:
        report(path, records, sorted(records))
    if len(logs) == 2:
        common = sorted(set(logs[0][1]) & set(logs[1][1]))
        for path, records in logs:
            report(path + " (partitions in both)", records, common)


if __name__ == "__main__":
    main()
