#!/usr/bin/env python3
"""Predicted against measured, per chain of a suite (Chimera's chains, HPCA'23).

For every chain op line (attention, gemm_chain, conv_chain) of a suite file, the
data movement Tessera's chain analysis predicts (TESSERA_EXPLAIN: the best fused
order and the ops one by one, per memory level) next to the times tessera-bench
measured for the chain fused (`Tessera`) and one by one (`Tessera-unfused`), read
from its --json report:

  tessera-bench --suite chimera --schedulers tessera,tessera-unfused,onednn --json r.json
  scripts/chain-traffic.py --build build --report r.json [--suite-file apps/suites/chimera.suite]

The outermost level's traffic is what crosses into the LLC from DRAM. The host's own
target and device profile are used, as tessera-bench uses them.
"""
import argparse
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHAIN_OPS = ('attention', 'gemm_chain', 'conv_chain')


def predicted(build, line):
    """{'fused': {level: MB}, 'unfused': {level: MB}, 'gain': x, 'outcome': text} from TESSERA_EXPLAIN."""
    op, keys = line.split()[0], line.split()[1:]
    env = dict(os.environ, TESSERA_EXPLAIN='1')
    cmd = [os.path.join(build, 'generators/tessera_generators'), '-g', 'chain', '-f', 'k', '-n', 'k', '-e', 'schedule',
           '-o', '/tmp', '-p', os.path.join(build, 'scheduler/libautoschedule_tessera.so'), '-s', 'Tessera',
           'target=host', 'auto_schedule=true', 'machine_params=2,33554432,40', 'op=' + op] + keys
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300).stderr
    result = {'fused': {}, 'unfused': {}, 'gain': None, 'outcome': ''}
    section = None
    for text in out.splitlines():
        if 'best order:' in text:
            section = 'fused'
        elif 'runner-up' in text:
            section = None
        elif 'one by one' in text and 'predicted' in text and 'gain' not in text:
            section = 'unfused'
        elif 'predicted gain of fusing' in text:
            m = re.search(r'fusing: ([0-9.]+)x; (.*)', text)
            if m:
                result['gain'], result['outcome'] = float(m.group(1)), m.group(2)
            section = None
        m = re.match(r'\s+(\w+): moves ([0-9.]+) MB', text)
        if m and section:
            result[section][m.group(1)] = float(m.group(2))
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--report', required=True, help="tessera-bench --json report with Tessera and Tessera-unfused rows")
    ap.add_argument('--suite-file', default=os.path.join(ROOT, 'apps/suites/chimera.suite'))
    args = ap.parse_args()
    records = json.load(open(args.report))
    times = {}
    for r in records:
        if r.get('ok'):
            times[(r['op'] + ' ' + r['shape']).strip(), r['scheduler']] = r['time_ms_median']
    print('%-62s %9s %9s %6s %7s %9s %9s %6s  %s' % ('chain', 'LLC fused', 'one by 1', 'ratio', 'gain',
                                                    'ms fused', 'ms 1 by 1', 'ratio', 'outcome'))
    for raw in open(args.suite_file):
        line = raw.split('#')[0].strip()
        if not line or line.split()[0] not in CHAIN_OPS:
            continue
        p = predicted(args.build, line)
        level = list(p['fused'])[-1] if p['fused'] else None
        fused_mb = p['fused'].get(level, 0) if level else 0
        unfused_mb = p['unfused'].get(level, 0) if level else 0
        fused_ms, unfused_ms = times.get((line, 'Tessera')), times.get((line, 'Tessera-unfused'))
        ratio = lambda a, b: '%6.2f' % (a / b) if a and b else '     -'
        print('%-62s %9.2f %9.2f %s %6.2fx %9s %9s %s  %s' % (
            line[:62], fused_mb, unfused_mb, ratio(unfused_mb, fused_mb), p['gain'] or 0,
            '%.3f' % fused_ms if fused_ms else '-', '%.3f' % unfused_ms if unfused_ms else '-',
            ratio(unfused_ms, fused_ms), p['outcome'][:40]))


if __name__ == '__main__':
    sys.exit(main())
