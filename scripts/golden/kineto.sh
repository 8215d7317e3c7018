#!/bin/sh
# Golden tests of the kineto importer and the per-kernel table over every
# PyTorch profiler trace in ../shared/reference:
#   - the trace loads with exit status 0;
#   - one row per kernel event (MTIA: mtia_ccp_events), and the sum of Sil(ns) equals the sum of the
#     kernels' "dur" (counted independently here with Python's json);
#   - per kernel name, calls and total time equal the TensorBoard plugin's
#     kernel table (reference/kineto/expected), and the launching operator of
#     each kernel equals the plugin's "Kernel Properties + Op Name" table.
top=$(cd "$(dirname "$0")/../.." && pwd)
ref=$top/../shared/reference
if [ ! -d "$ref" ]; then
    echo "skip golden.kineto: ../shared/reference is missing"
    exit 0
fi
exec python3 - "$top/cli/tprof" "$ref" <<'PY'
import csv, glob, gzip, io, json, os, subprocess, sys
from collections import defaultdict
from decimal import Decimal, ROUND_HALF_EVEN

tprof, ref = sys.argv[1], sys.argv[2]

def load(path):
    raw = open(path, 'rb').read()
    if raw[:2] == b'\x1f\x8b':
        raw = gzip.decompress(raw)
    try:
        return json.loads(raw)
    except ValueError:
        return json.loads(raw, strict=False)

def ns(v):
    return int((Decimal(str(v)) * 1000).to_integral_value(ROUND_HALF_EVEN))

def traces():
    pats = ['kineto/data/**/*.json', 'kineto/data/**/*.json.gz', 'peers/hta_data/**/*.json.gz',
            'peers/hta_data/**/*.json', 'peers/other_data/**/*.json', 'peers/other_data/**/*.json.gz']
    seen = set()
    for p in pats:
        for f in sorted(glob.glob(os.path.join(ref, p), recursive=True)):
            if f in seen or 'expected' in f:
                continue
            seen.add(f)
            yield f

def ok(name):
    print('ok ' + name)

def fail(name, why):
    print('FAIL %s: %s' % (name, why))

def events_of(doc):
    if isinstance(doc, dict):
        return doc.get('traceEvents')
    if isinstance(doc, list):
        return doc
    return None

for path in traces():
    rel = os.path.relpath(path, ref)
    try:
        doc = load(path)
    except Exception:
        continue
    evs = events_of(doc)
    if not isinstance(evs, list) or not any(isinstance(e, dict) and 'ph' in e for e in evs[:50]):
        continue   # not a trace (configs, metadata files)
    r = subprocess.run([tprof, '--csv', '-c', 'name,sil,opname', path], capture_output=True)
    if r.returncode != 0:
        fail('golden.kineto.load ' + rel, 'exit %d: %s' % (r.returncode, r.stderr.decode()[-300:]))
        continue
    ok('golden.kineto.load ' + rel)
    rows = list(csv.reader(io.StringIO(r.stdout.decode('utf-8', 'replace'))))[1:]
    # MTIA's device kernels are "mtia_ccp_events" (HTA counts them as kernels too)
    kern = [e for e in evs if isinstance(e, dict) and e.get('ph') == 'X' and
            str(e.get('cat', '')).lower() in ('kernel', 'mtia_ccp_events')]
    if len(rows) != len(kern):
        fail('golden.kineto.rows ' + rel, 'tprof %d rows, trace has %d kernel events' % (len(rows), len(kern)))
        continue
    ok('golden.kineto.rows ' + rel)
    want = sum(ns(e.get('dur', 0)) for e in kern)
    got = sum(int(x[1]) for x in rows)
    if got != want:
        fail('golden.kineto.sum_sil ' + rel, 'sum Sil %d ns, sum dur %d ns' % (got, want))
    else:
        ok('golden.kineto.sum_sil ' + rel)
    exp_path = os.path.join(ref, 'kineto/expected', os.path.relpath(path, os.path.join(ref, 'kineto/data')))
    exp_path = exp_path.replace('.pt.trace.json.gz', '.pt.trace.expected.json').replace('.pt.trace.json', '.pt.trace.expected.json')
    if not exp_path.endswith('.expected.json'):
        exp_path = exp_path.replace('.json.gz', '.expected.json').replace('.json', '.expected.json')
    if not os.path.exists(exp_path):
        continue
    exp = json.load(open(exp_path))
    kt = exp.get('kernel_table_group_by_kernel')
    if kt:
        calls, total = defaultdict(int), defaultdict(int)
        for name, sil, op in rows:
            calls[name] += 1
            total[name] += int(sil)
        bad = []
        for row in kt['data']['rows']:
            name, n, tot = row[0], row[2], row[3]
            t_us = int((Decimal(total[name]) / 1000).to_integral_value(ROUND_HALF_EVEN))
            if calls[name] != n or t_us != tot:
                bad.append('%s: calls %d/%d total %d/%d' % (name[:60], calls[name], n, t_us, tot))
        if len(kt['data']['rows']) != len(calls):
            bad.append('%d kernel names, plugin has %d' % (len(calls), len(kt['data']['rows'])))
        if bad:
            fail('golden.kineto.kernel_table ' + rel, '; '.join(bad[:3]))
        else:
            ok('golden.kineto.kernel_table ' + rel)
    kp = exp.get('kernel_table_group_by_kernel_props_and_op')
    if kp:
        cols = [c['name'] for c in kp['data']['columns']]
        ci, co, cc = cols.index('Name'), cols.index('Operator'), cols.index('Calls')
        pw = defaultdict(int)
        for row in kp['data']['rows']:
            if row[co] in ('CallTreeRoot', 'N/A') or row[co].startswith('ProfilerStep#'):
                continue   # plugin-only attributions (staled kernels, zero external ids)
            pw[(row[ci], row[co])] += row[cc]
        mine = defaultdict(int)
        for name, sil, op in rows:
            mine[(name, op)] += 1
        bad = [('%s / %s: %d vs plugin %d' % (k[0][:50], k[1], mine[k], v)) for k, v in pw.items() if mine[k] != v]
        if bad:
            fail('golden.kineto.launch_op ' + rel, '%d of %d (kernel, op) groups differ: %s' % (len(bad), len(pw), '; '.join(bad[:3])))
        else:
            ok('golden.kineto.launch_op ' + rel)
PY
