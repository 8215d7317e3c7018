#!/bin/sh
# --group as a comma list of key columns (the aggregation engine,
# lib/summary/agg.c): `kernels --group name,stream`, `--group grid,block`...
# checked against Python grouping the trace's own kernel events (cat
# kernel, ph X) by the same fields of their args: the rows (keys, calls,
# total, min, max), their order (total descending, ties in first-seen
# order) and the share column; on the plugin's ResNet-50 trace and on
# param's 8-rank DLRM run with --merge (summaries merged), where the bytes
# are also those of the concatenated store (TPROF_MERGE_CONCAT=1), as are
# those of ops lists merged over the ResNet-50 spans.  Then:
# summary files roll up to the key sets that are subsets of a stored one
# (same bytes as --merge of the traces), and refuse the others with a
# message; a key set named in full prints what its set name prints; an
# unknown key is a usage error (exit 2) that lists the view's keys; ops
# --group shape,stack and name,stack add up to the plain table per name.
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
REF=${REF:-$top/../shared/reference}
F=$REF/kineto/data/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz
DLRM=$REF/peers/other_data/facebookresearch-param/et_replay/tests/inputs/dlrm_kineto
. "$(dirname "$0")/lib.sh"
golden_python group_keys "$DLRM" "$top/cli/tprof" "$top/cli/tprof" "$F" "$DLRM" <<'PY'
import collections, csv, gzip, io, json, os, shutil, subprocess, sys, tempfile
from decimal import Decimal as D
from golden import okf, run_clean

T, F, DLRM = sys.argv[1:4]

ok = okf('group_keys')

def run(*args, env=None):
    return run_clean(T, *args, env=env)

def events(path):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        d = json.load(f)
    ev = d['traceEvents'] if isinstance(d, dict) else d
    return [e for e in ev if str(e.get('cat', '')).lower() == 'kernel' and e.get('ph') == 'X']

def dim3(v):
    return 'None' if not isinstance(v, list) else '[%s]' % ', '.join(str(x) for x in v)

FIELDS = {
    'name': lambda e: e['name'],
    'stream': lambda e: str(e['args']['stream']) if 'stream' in e.get('args', {}) else '-',
    'device': lambda e: str(e['args']['device']) if 'device' in e.get('args', {}) else '-',
    'grid': lambda e: dim3(e.get('args', {}).get('grid')),
    'block': lambda e: dim3(e.get('args', {}).get('block')),
    'regs': lambda e: str(max(int(e.get('args', {}).get('registers per thread', 0)), 0)),
    'smem': lambda e: str(max(int(e.get('args', {}).get('shared memory', 0)), 0)),
}

def expect(paths, keys):
    """rows (keys, calls, total, min, max) in tprof's order, from the events
    of each trace in turn (first seen: rank by rank, row order)."""
    g = collections.OrderedDict()
    for p in paths:
        for e in events(p):
            k = tuple(FIELDS[f](e) for f in keys)
            d = D(str(e['dur']))
            if k not in g:
                g[k] = [0, D(0), d, d]
            r = g[k]
            r[0] += 1
            r[1] += d
            r[2] = min(r[2], d)
            r[3] = max(r[3], d)
    rows = list(g.items())
    rows.sort(key=lambda kv: -kv[1][1])   # stable: ties keep first-seen order
    return [(k, v[0], v[1], v[2], v[3]) for k, v in rows]

def got(out, nkeys):
    rows = []
    for r in csv.reader(io.StringIO(out)):
        if not r:
            continue
        rows.append((tuple(r[:nkeys]), int(r[nkeys]), D(r[nkeys + 1]), D(r[nkeys + 2]), D(r[nkeys + 3]),
                     D(r[nkeys + 4])))
    return rows

def compare(name, paths, keys, merge=False):
    args = ['kernels', '--csv', '--header', 'none', '--group', ','.join(keys), '-c',
            ','.join(keys) + ',calls,total,min,max,pct']
    rc, out, err = run(*(args + (['--merge', paths[0]] if merge else paths)))
    if rc != 0:
        return ok(name, False, 'exit %d: %s' % (rc, err.strip()[-300:]))
    have = got(out, len(keys))
    want = expect(sorted(os.path.join(paths[0], f) for f in os.listdir(paths[0])) if merge else paths, keys)
    total = sum(w[2] for w in want)
    bad = [(h, w) for h, w in zip(have, want) if h[:5] != w]
    bad += [(h, None) for h in have if abs(h[5] - round(100 * h[2] / total, 2)) > D('0.005')]
    ok(name, want and len(have) == len(want) and not bad,
       '%d rows, Python %d; first difference: %s' % (len(have), len(want), bad[:1]))

for keys in (['name', 'stream'], ['grid', 'block'], ['stream'], ['device', 'stream'], ['name', 'grid', 'block'],
             ['block', 'regs', 'smem']):
    compare('resnet.' + '_'.join(keys), [F], keys)
for keys in (['grid', 'block'], ['name', 'stream'], ['stream', 'device']):
    compare('dlrm_merge.' + '_'.join(keys), [DLRM], keys, merge=True)
    a = run('kernels', '--csv', '--merge', '--group', ','.join(keys), DLRM)
    b = run('kernels', '--csv', '--merge', '--group', ','.join(keys), DLRM, env={'TPROF_MERGE_CONCAT': '1'})
    ok('dlrm_merge_concat.' + '_'.join(keys), a[:2] == b[:2] and a[0] == 0, 'summaries and concatenated store differ')

# ops lists merge by summaries as the concatenated store prints them
RS = os.path.dirname(F)
for g in ('shape,stack=3', 'stack,shape', 'name,shape,stack', 'shape'):
    a = run('ops', '--csv', '--merge', '--group', g, RS)
    b = run('ops', '--csv', '--merge', '--group', g, RS, env={'TPROF_MERGE_CONCAT': '1'})
    ok('ops_merge_concat.' + g.replace(',', '_').replace('=', ''), a == b and a[0] == 0 and a[1].count('\n') > 10,
       'summaries and concatenated store differ')

# a key set named in full is its set
for view, full, named in (('kernels', 'name,op,grid,block,regs,smem', 'props'), ('ops', 'name,shape', 'shape'),
                          ('ops', 'name,stack', 'stack')):
    a, b = run(view, '--csv', '--group', full, F), run(view, '--csv', '--group', named, F)
    ok('named_set.%s_%s' % (view, named), a == b and a[0] == 0, '--group %s and --group %s differ' % (full, named))

# ops: the rows of a finer key set add up to the plain table's, per name
rc, plain, _ = run('ops', '--csv', '--header', 'none', '-c', 'name,calls,host_total,dev_self', F)
base = {r[0]: (int(r[1]), D(r[2]), D(r[3])) for r in csv.reader(io.StringIO(plain)) if r}
for g in ('name,shape,stack', 'stack,name,shape'):
    rc, out, err = run('ops', '--csv', '--header', 'none', '-c', 'name,calls,host_total,dev_self', '--group', g, F)
    acc = collections.defaultdict(lambda: [0, D(0), D(0)])
    for r in csv.reader(io.StringIO(out)):
        if r:
            a = acc[r[0]]
            a[0] += int(r[1]); a[1] += D(r[2]); a[2] += D(r[3])
    ok('ops_sums.' + g.replace(',', '_'), rc == 0 and {k: tuple(v) for k, v in acc.items()} == base,
       'exit %d, %d names vs %d' % (rc, len(acc), len(base)))

# summary files: subsets of a stored key set roll up exactly; others are refused
tmp = tempfile.mkdtemp(prefix='tprof_group_keys.')
try:
    s = os.path.join(tmp, 'sum')
    rc, _, err = run('summarize', DLRM, '-o', s)
    ok('summarize', rc == 0, err.strip()[-200:])
    for view, g in (('kernels', 'op,grid'), ('kernels', 'grid,block,op'), ('kernels', 'op'), ('kernels', 'props'),
                    ('ops', 'shape,name'), ('ops', 'shape'), ('ops', 'stack')):
        a = run(view, '--csv', '--merge', '--group', g, s)
        b = run(view, '--csv', '--merge', '--group', g, DLRM)
        ok('rollup.%s_%s' % (view, g.replace(',', '_')), a[:2] == b[:2] and a[0] == 0,
           'summary files: exit %d %s' % (a[0], a[2].strip()[-200:]))
    for view, g in (('kernels', 'name,stream'), ('kernels', 'grid,block'), ('ops', 'shape,stack')):
        rc, out, err = run(view, '--csv', '--merge', '--group', g, s)
        ok('refused.%s_%s' % (view, g.replace(',', '_')), rc == 2 and out == '' and 'read the traces' in err,
           'exit %d: %s' % (rc, err.strip()[-200:]))
finally:
    shutil.rmtree(tmp, True)

# an unknown key: a usage error naming the keys
for view, keys in (('kernels', 'name, op, grid, block, regs, smem, stream, device'), ('ops', 'name, shape, stack')):
    rc, out, err = run(view, '--group', 'name,bogus', F)
    ok('unknown_key.' + view, rc == 2 and "'bogus' is not a key" in err and keys in err, 'exit %d: %s' % (rc, err))
rc, out, err = run('help', 'kernels')
ok('usage_lists_keys', 'stream, device' in out, 'tprof help kernels does not list the keys')
PY
