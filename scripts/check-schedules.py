#!/usr/bin/env python3
"""Tessera's schedule for every line of every suite (apps/suites/*.suite), dumped
and diffed: the check that a change to the scheduler's code leaves its decisions
alone (or shows exactly which schedules it changes).

Machines: the two pinned ones of the schedule-shape tests (tests/profiles/, an AVX2
and an AVX-512 target; the same schedules on any host) and `host` (the host's own
target and profile: for comparing two builds on one machine, never golden).

  check-schedules.py --golden tests/golden_schedules           # CI: pinned machines vs the goldens
  check-schedules.py --golden tests/golden_schedules --update  # accept a deliberate change
  check-schedules.py --out /tmp/before --machines host,avx2,avx512   # dump, then after a change:
  check-schedules.py --against /tmp/before --machines host,avx2,avx512
"""
import argparse
import concurrent.futures
import difflib
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PINNED = {
    'avx2': ('x86-64-linux-avx-avx2-fma-f16c-sse41', 'avx2_zen3.json'),
    'avx512': ('x86-64-linux-avx-avx2-f16c-fma-sse41-avx512-avx512_skylake', 'avx512_xeon.json'),
}


def op_families():
    """Op name -> generator family, read from the op registry's catalogue entries."""
    text = open(os.path.join(ROOT, 'generators/ops/op_entries.cpp')).read()
    return dict(re.findall(r'\{"([a-z_0-9]+)",\s*"([a-z]+)",\s*"', text))


def suite_lines():
    """(suite file name, line) for every op line of every op suite, in file order
    (a model suite's `model NAME` lines name whole models, not ops: skipped)."""
    for path in sorted(glob.glob(os.path.join(ROOT, 'apps/suites/*.suite'))):
        for line in open(path):
            line = line.split('#')[0].strip()
            if line and line.split()[0] != 'model':
                yield os.path.basename(path), line


def schedule(args, machine, line, families, scratch):
    """The schedule source Tessera writes for one suite line on one machine."""
    op, keys = line.split()[0], line.split()[1:]
    if op not in families:
        sys.exit(f'check-schedules: op "{op}" of suite line "{line}" is not in the op catalogue')
    env = dict(os.environ)
    env.pop('TESSERA_EXPLAIN', None)
    if machine == 'host':
        target = 'host'
        env.pop('TESSERA_DEVICE_PROFILE', None)
    else:
        target, profile = PINNED[machine]
        env['TESSERA_DEVICE_PROFILE'] = os.path.join(ROOT, 'tests/profiles', profile)
    os.makedirs(scratch, exist_ok=True)
    cmd = [os.path.join(args.build, 'generators/tessera_generators'), '-g', families[op], '-o', scratch,
           '-f', 'op', '-e', 'schedule', '-p', args.plugin, '-s', 'Tessera', 'auto_schedule=true',
           'machine_params=2,33554432,40', 'target=' + target, 'op=' + op] + keys
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        return f'// FAILED: {r.stderr.strip()[-2000:]}\n'
    return open(os.path.join(scratch, 'op.schedule.h')).read()


def dump(args, machine, families):
    """{suite: text} with one section per suite line, in suite order."""
    jobs = list(suite_lines())
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        texts = list(pool.map(lambda ij: schedule(args, machine, ij[1][1], families,
                                                  os.path.join(args.scratch, f'{machine}_{ij[0]}')),
                              enumerate(jobs)))
    by_suite = {}
    for (suite, line), text in zip(jobs, texts):
        by_suite.setdefault(suite, []).append(f'### {line}\n{text}')
    return {suite: ''.join(parts) for suite, parts in by_suite.items()}


def compare(machine, dumped, directory):
    """Diff lines (empty when every suite matches the saved dump in directory/machine)."""
    out = []
    for suite, text in dumped.items():
        path = os.path.join(directory, machine, suite + '.txt')
        if not os.path.exists(path):
            out.append(f'{path}: missing (run with --update or --out first)\n')
            continue
        saved = open(path).read()
        if saved != text:
            out += difflib.unified_diff(saved.splitlines(True), text.splitlines(True), path, f'{machine}/{suite} now')
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('--build', default=os.path.join(ROOT, 'build'), help='build directory (default: build/)')
    p.add_argument('--plugin', help='Tessera plugin (default: BUILD/scheduler/libautoschedule_tessera.so)')
    p.add_argument('--machines', default='avx2,avx512', help='comma list of avx2, avx512, host')
    p.add_argument('--out', help='write the schedules into OUT/<machine>/<suite>.txt')
    p.add_argument('--against', help='compare with a dump written by --out')
    p.add_argument('--golden', help='compare with (or, with --update, rewrite) the golden dumps in this folder')
    p.add_argument('--update', action='store_true', help='with --golden: rewrite the goldens')
    p.add_argument('--jobs', type=int, default=os.cpu_count() or 2)
    p.add_argument('--scratch', default=None, help='scratch folder for generator outputs')
    args = p.parse_args()
    args.plugin = args.plugin or os.path.join(args.build, 'scheduler/libautoschedule_tessera.so')
    args.scratch = args.scratch or os.path.join(args.build, 'check-schedules')
    machines = [m.strip() for m in args.machines.split(',') if m.strip()]
    for m in machines:
        if m != 'host' and m not in PINNED:
            sys.exit(f'check-schedules: unknown machine "{m}" (avx2, avx512, host)')
    if args.golden and 'host' in machines:
        sys.exit('check-schedules: the host machine has no goldens (its schedules depend on the CPU)')
    for f in (os.path.join(args.build, 'generators/tessera_generators'), args.plugin):
        if not os.path.exists(f):
            sys.exit(f'check-schedules: {f} not found (build first: make build)')
    if not (args.out or args.against or args.golden):
        sys.exit('check-schedules: say --out, --against or --golden')

    families = op_families()
    diffs, count, failed = [], 0, 0
    for machine in machines:
        dumped = dump(args, machine, families)
        count += sum(t.count('### ') for t in dumped.values())
        failed += sum(t.count('// FAILED: ') for t in dumped.values())
        target_dir = args.out or (args.golden if args.update else None)
        if target_dir:
            os.makedirs(os.path.join(target_dir, machine), exist_ok=True)
            for suite, text in dumped.items():
                with open(os.path.join(target_dir, machine, suite + '.txt'), 'w') as f:
                    f.write(text)
        reference = args.against or (args.golden if not args.update else None)
        if reference:
            diffs += compare(machine, dumped, reference)
    sys.stdout.writelines(diffs[:400])
    if len(diffs) > 400:
        print(f'... {len(diffs) - 400} more diff lines')
    print(f'check-schedules: {count} schedules on {",".join(machines)}; {failed} failed to schedule; '
          f'{"differences above" if diffs else "no differences" if (args.against or args.golden) and not args.update else "written"}')
    return 1 if diffs or failed else 0


if __name__ == '__main__':
    sys.exit(main())
