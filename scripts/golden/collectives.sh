#!/bin/sh
# Golden tests of `tprof collectives` and `tprof stragglers` (cross-rank
# analyses, issue "Scale", item 5):
#   - testdata/collectives/meta, three ranks written for this test (two
#     process groups, Seq on record_param_comms, the metadata on the kernels
#     of ranks 0 and 1 only): every column against numbers worked out by hand;
#   - param's 8-rank DLRM run, the TensorBoard plugin's two-worker NCCL test
#     pair and the fixture, against an independent Python reading of the raw
#     JSON (its own matching: the k-th NCCL kernel of a group per step or Seq,
#     its own op names and sizes): counts, sizes, skew (mean, max), wait,
#     transfer, algbw, busbw with NCCL's factors, and per rank the wait caused,
#     the collectives come last to and the wait suffered;
#   - calls x ranks equal the NCCL kernel counts of `tprof kernels --merge`;
#   - HTA's sampled rank-0/1 pair (2 of 128 ranks): a note says the
#     collectives were timed over the ranks found and how many disagree;
#   - --step and --window slice every rank;
#   - one trace, a run of one rank and a run without NCCL kernels are
#     refused with a message; every output format; -c, --sort; bad -c.
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$top/cli/tprof
REF=${REF:-$top/../shared/reference}
DLRM=$REF/peers/other_data/facebookresearch-param/et_replay/tests/inputs/dlrm_kineto
. "$(dirname "$0")/lib.sh"
golden_python collectives "$DLRM" "$T" "$T" "$REF" "$top/testdata/collectives/meta" <<'PY'
import csv, gzip, io, json, os, re, subprocess, sys, tempfile
from golden import okf, without_coverage
from collections import defaultdict
from decimal import Decimal

tprof, ref, meta = sys.argv[1:4]
dlrm = os.path.join(ref, 'peers/other_data/facebookresearch-param/et_replay/tests/inputs/dlrm_kineto')
unit = os.path.join(ref, 'kineto/data/extracted_unit_tests')
sampled = os.path.join(ref, 'peers/hta_data/tests/data/trace_filter')

ok = okf('collectives')

def run(*args):
    p = subprocess.run([tprof] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, without_coverage(p.stderr)

def table(view, d, *extra):
    rc, out, err = run(view, '--csv', '--header', 'keys', '--timeunit', 'ns', *extra, d)
    rows = [{re.sub(r'_ns$', '', k): v for k, v in r.items()} for r in csv.DictReader(io.StringIO(out))]
    return rc, rows, err

# ---- an independent reading of the raw traces ----

SIZES = {'Float': 4, 'BFloat16': 2, 'Half': 2, 'Double': 8, 'Long': 8, 'Int': 4, 'Byte': 1, 'Char': 1, 'Bool': 1,
         'float': 4, 'double': 8, 'c10::Half': 2, 'c10::BFloat16': 2, 'long int': 8, 'long': 8, 'int': 4,
         'signed char': 1, 'unsigned char': 1, 'bool': 1}
OPS = [('reduce_?scatter', 'reduce_scatter'), ('all_?reduce', 'all_reduce'), ('all_?gather', 'all_gather'),
       ('all_?to_?all', 'all_to_all'), ('broadcast', 'broadcast'), ('sendrecv', 'send_recv'), ('reduce', 'reduce'),
       ('send', 'send'), ('recv', 'recv'), ('gather', 'gather'), ('scatter', 'scatter'), ('barrier', 'barrier')]
FACTOR = {'all_reduce': lambda n: 2 * (n - 1) / n, 'all_gather': lambda n: (n - 1) / n,
          'reduce_scatter': lambda n: (n - 1) / n, 'all_to_all': lambda n: (n - 1) / n,
          'broadcast': lambda n: 1, 'reduce': lambda n: 1, 'send': lambda n: 1, 'recv': lambda n: 1}

def opname(s):
    s = re.sub(r'^(c10d::|nccl:|ncclDevKernel_|ncclKernel_)', '', s).lstrip('_').lower()
    for pat, name in OPS:
        if re.match(pat, s):
            return name
    return 'other'

def ns(x):
    return int(Decimal(x) * 1000)   # exact: the traces are parsed with Decimal floats

def tensor_bytes(args, i):
    dims, types = args.get('Input Dims', []), args.get('Input type', [])
    if i >= len(dims) or i >= len(types) or not dims[i] or not all(isinstance(x, int) for x in dims[i]):
        return 0
    n = 1
    for x in dims[i]:
        n *= x
    return n * SIZES.get(types[i], 0)

def load(path):
    d = json.load(gzip.open(path) if path.endswith('.gz') else open(path), parse_float=Decimal)
    return d if isinstance(d, dict) else {'traceEvents': d}

def records(path):
    d = load(path)
    ev = [e for e in d['traceEvents'] if isinstance(e, dict)]
    world = d.get('distributedInfo', {}).get('world_size')
    ops = [e for e in ev if e.get('ph') == 'X' and e.get('cat', '').lower() in ('cpu_op', 'user_annotation', 'operator')]
    by_tid = defaultdict(list)
    for e in ops:
        by_tid[e['tid']].append(e)
    launch = {e['args']['correlation']: e for e in ev if e.get('cat', '').lower() in ('cuda_runtime', 'runtime')
              and 'correlation' in e.get('args', {})}
    steps = [(ns(e['ts']), ns(e['ts']) + ns(e['dur']), int(e['name'][13:])) for e in ops
             if e['name'].startswith('ProfilerStep#')]
    byext = {e['args']['External id']: e for e in ops if 'External id' in e.get('args', {})
             and re.match(r'c10d::|nccl:|record_param_comms$', e['name'])}
    out = []
    for k in ev:
        a = k.get('args', {})
        if k.get('cat', '').lower() != 'kernel' or k.get('ph') != 'X':
            continue
        if not (k['name'].startswith(('nccl', 'rccl')) or 'Collective name' in a):
            continue
        l = launch.get(a.get('correlation'))
        if l:
            t0, t1 = ns(l['ts']), ns(l['ts']) + ns(l['dur'])
            around = [o for o in by_tid[l['tid']] if ns(o['ts']) <= t0 and t1 <= ns(o['ts']) + ns(o['dur'])]
            step = next((n for s, e, n in steps if s <= t0 < e), None)
        else:
            o = byext.get(a.get('External id', a.get('external id')))
            around = [o] if o else []
            step = None
        around.sort(key=lambda o: ns(o['dur']))   # innermost first
        param = next((o['args'] for o in around if o['name'] == 'record_param_comms' and 'Collective name' in o['args']), {})
        c10d = next((o for o in around if o['name'].startswith('c10d::')), None)
        nccl = next((o for o in around if o['name'].startswith('nccl:')), None)
        m = dict(param)
        m.update({x: y for x, y in a.items() if x in ('Collective name', 'dtype', 'In msg nelems', 'Out msg nelems',
                  'Group size', 'Process Group Name', 'Process Group Description', 'Process Group Ranks')})
        op = opname(m['Collective name']) if 'Collective name' in m else 'other'
        if op == 'other':
            op = opname(c10d['name']) if c10d else opname(nccl['name']) if nccl else opname(k['name'])
        if 'dtype' in m and 'In msg nelems' in m:
            size = max(m['In msg nelems'], m.get('Out msg nelems', 0)) * SIZES[m['dtype']]
        else:
            cb = max(tensor_bytes(c10d['args'], 0), tensor_bytes(c10d['args'], 1)) if c10d else 0
            nb = max(tensor_bytes(nccl['args'], 0), tensor_bytes(nccl['args'], 1)) if nccl else 0
            size = cb or nb or None
        group = str(m.get('Process Group Name', m.get('Process Group ID', '')))
        ranks = m.get('Process Group Ranks', '')
        n = m.get('Group size') or (len(json.loads(ranks)) if ranks else 0) or (world if not group else 0) or 0
        out.append({'start': ns(k['ts']), 'end': ns(k['ts']) + ns(k['dur']), 'op': op, 'bytes': size,
                    'group': (group, ranks.replace(' ', '')), 'seq': param.get('Seq'), 'step': step, 'n': n})
    out.sort(key=lambda r: (r['start'], r['end']))
    count = defaultdict(int)
    for r in out:
        key = (r['group'], ('seq', r['seq']) if r['seq'] is not None else ('step', r['step']))
        r['key'] = key + (count[key],)
        count[key] += 1
    rank = d.get('distributedInfo', {}).get('rank')
    if rank is None:   # the plugin pair: worker0, worker1
        rank = int(re.search(r'(\d+)\.pt\.trace', os.path.basename(path)).group(1))
    return rank, out

def reference(paths):
    ranks = [records(p) for p in paths]
    byk = defaultdict(list)
    for rank, recs in ranks:
        for r in recs:
            byk[r['key']].append((rank, r))
    rows, caused, last, waited = {}, defaultdict(int), defaultdict(int), defaultdict(int)
    for key, parts in byk.items():
        if len(parts) < 2:
            continue
        first = min(r['start'] for _, r in parts)
        lr, lrec = max(parts, key=lambda p: p[1]['start'])
        lst = lrec['start']
        op, n = parts[0][1]['op'], max(r['n'] for _, r in parts) or len(parts)
        g = rows.setdefault((op, key[0][0], n), defaultdict(int))
        g['calls'] += 1
        g['skew'] += lst - first
        g['skew_max'] = max(g['skew_max'], lst - first)
        w = sum(lst - r['start'] for _, r in parts)
        g['wait'] += w
        g['wait_n'] += len(parts)
        g['transfer'] += lrec['end'] - lrec['start']
        size = max((r['bytes'] for _, r in parts if r['bytes'] is not None), default=None)
        if size is not None:
            g['bytes'] += size
            g['nbytes'] += 1
            if lrec['end'] > lrec['start']:
                g['bw_bytes'] += size
                g['bw_ns'] += lrec['end'] - lrec['start']
        for rk, r in parts:
            waited[rk] += lst - r['start']
        if w > 0:
            caused[lr] += w
            last[lr] += 1
    return rows, caused, last, waited

def compare(name, d, paths):
    rows, caused, last, waited = reference(paths)
    rc, got, err = table('collectives', d, '-c', 'op,group,n,calls,bytes,skew,skew_max,wait,transfer,algbw,busbw')
    if rc != 0:
        return ok(name + '.collectives', False, 'exit %d: %s' % (rc, err))
    bad = []
    for r in got:
        g = rows.get((r['op'], '' if r['group'] == '-' else r['group'], int(r['n'])))
        if not g:
            bad.append('%s/%s: no such collective in Python' % (r['op'], r['group']))
            continue
        want = {'calls': g['calls'], 'skew': g['skew'] // g['calls'], 'skew_max': g['skew_max'],
                'wait': g['wait'] // g['wait_n'], 'transfer': g['transfer'] // g['calls'],
                'bytes': g['bytes'] // g['nbytes'] if g['nbytes'] else ''}
        for c, v in want.items():
            if str(v) != r[c]:
                bad.append('%s/%s %s: tprof %s, Python %s' % (r['op'], r['group'], c, r[c], v))
        if g['bw_ns']:
            alg = g['bw_bytes'] / g['bw_ns']
            bus = alg * FACTOR[r['op']](int(r['n']))
            if abs(float(r['algbw']) - alg) > 0.0051 or abs(float(r['busbw']) - bus) > 0.0051:
                bad.append('%s: algbw/busbw %s/%s, Python %.4f/%.4f' % (r['op'], r['algbw'], r['busbw'], alg, bus))
    if len(got) != len(rows):
        bad.append('%d rows, Python %d' % (len(got), len(rows)))
    ok(name + '.collectives', not bad, '; '.join(bad[:4]))
    rc, got, err = table('stragglers', d)
    bad = []
    for r in got:
        k = int(r['rank'])
        for c, v in (('caused', caused[k]), ('last', last[k]), ('waited', waited[k])):
            if str(v) != r[c]:
                bad.append('rank %d %s: tprof %s, Python %s' % (k, c, r[c], v))
    if rc != 0 or len(got) != len(paths):
        bad.append('exit %d, %d rows for %d ranks' % (rc, len(got), len(paths)))
    ok(name + '.stragglers', not bad, '; '.join(bad[:4]))

def traces(d):
    return sorted(os.path.join(d, f) for f in os.listdir(d) if '.json' in f)

tmp = tempfile.mkdtemp(prefix='tprof_coll_golden.')
try:
    # ---- the fixture, by hand ----
    rc, got, err = table('collectives', meta, '-c', 'op,group,desc,n,ranks,calls,partial,bytes,skew,skew_max,wait,'
                         'transfer,wait_pct,total,algbw,busbw,mixed')
    want = [['all_reduce', '0', 'default_pg', '3', '3', '2', '0', '4000', '80000', '100000', '48333', '45000', '51.8',
             '560000', '0.09', '0.12', '0'],
            ['all_gather', '0', 'default_pg', '3', '3', '1', '0', '1500', '0', '0', '0', '10000', '0.0', '30000',
             '0.15', '0.10', '0'],
            ['reduce_scatter', '1', 'undefined', '2', '2', '1', '0', '8000', '50000', '50000', '25000', '50000',
             '33.3', '150000', '0.16', '0.08', '0']]
    rows = [list(r.values()) for r in got]
    ok('meta.collectives', rc == 0 and rows == want and not err, 'exit %d %s: %s' % (rc, err, rows))
    rc, got, err = table('stragglers', meta, '-c', 'rank,caused,share,last,steps,recurrence,streak,waited')
    rows = [list(r.values()) for r in got]
    want = [['0', '200000', '58.8', '1', '1', '50.0', '1', '110000'], ['2', '140000', '41.2', '2', '1', '50.0', '1', '100000'],
            ['1', '0', '0.0', '0', '0', '0.0', '0', '130000']]
    ok('meta.stragglers', rc == 0 and rows == want, 'exit %d: %s' % (rc, rows))
    rc, got, err = table('stragglers', meta, '--per-step')
    rows = [list(r.values()) for r in got]
    want = [['1', '2', '90000', '100.0', '90000', '2', '1'], ['2', '0', '200000', '80.0', '250000', '2', '1']]
    ok('meta.per_step', rc == 0 and rows == want, 'exit %d: %s' % (rc, rows))

    # ---- --step / --window: each rank's slice ----
    rc, got, err = table('stragglers', meta, '--per-step', '--step', '2')
    ok('step_filter', rc == 0 and [list(r.values()) for r in got] == [want[1]], 'exit %d: %s %s' % (rc, got, err))
    rc, got, err = table('collectives', meta, '-c', 'op,calls', '--window', '0..500')
    ok('window_filter', rc == 0 and [list(r.values()) for r in got] == [['all_reduce', '1'], ['all_gather', '1']],
       'exit %d: %s %s' % (rc, got, err))
    rc, out, err = run('collectives', '--step', '9', meta)
    ok('step_missing', rc == 2 and 'no such ProfilerStep' in err and not out, 'exit %d: %s' % (rc, err))

    # ---- against Python on the raw JSON ----
    compare('meta', meta, traces(meta))
    compare('dlrm', dlrm, traces(dlrm))
    pair = os.path.join(tmp, 'pair')
    os.mkdir(pair)
    for i, f in enumerate(('test_distributed_nccl__json_content0__L2033.pt.trace.json',
                           'test_distributed_nccl__json_content1__L2072.pt.trace.json')):
        os.symlink(os.path.join(unit, f), os.path.join(pair, 'worker%d.pt.trace.json' % i))
    compare('plugin_pair', pair, traces(pair))

    # ---- calls x ranks = the NCCL kernels of kernels --merge ----
    for name, d, nranks in (('dlrm', dlrm, 8), ('meta', meta, None)):
        rc, k, _ = table('kernels', d, '--merge', '-c', 'name,calls')
        kern = sum(int(r['calls']) for r in k if r['name'].startswith('nccl'))
        rc2, c, _ = table('collectives', d, '-c', 'op,n,ranks,calls')
        coll = sum(int(r['calls']) * int(r['ranks']) for r in c)
        ok(name + '.kernel_counts', rc == 0 and rc2 == 0 and kern == coll and kern > 0,
           'kernels --merge: %d NCCL kernels, collectives: %d' % (kern, coll))
    rc, k, _ = table('kernels', dlrm, '--merge', '-c', 'name,calls')
    per = {('all_to_all' if 'SendRecv' in r['name'] else 'all_reduce'): int(r['calls']) // 8
           for r in k if r['name'].startswith('nccl')}
    rc2, c, _ = table('collectives', dlrm, '-c', 'op,calls')
    ok('dlrm.per_op_counts', per == {r['op']: int(r['calls']) for r in c}, '%s vs %s' % (per, c))

    # ---- HTA's sampled pair: 2 of 128 ranks, sampled events ----
    if os.path.isdir(sampled):
        rc, got, err = table('collectives', sampled, '-c', 'op,n,ranks,calls,partial,mixed')
        mixed = sum(int(r['mixed']) for r in got)
        m = re.search(r'(\d+) on fewer ranks than their group has.*?, (\d+) matched records of different ops', err)
        ok('sampled.note', rc == 0 and m and int(m.group(2)) == mixed and
           int(m.group(1)) == sum(int(r['partial']) for r in got) and all(r['n'] == '128' for r in got),
           'exit %d, note %r, rows %s' % (rc, err, got))
    else:
        print('skip collectives.sampled.note: %s not found' % sampled)

    # ---- refusals ----
    one = traces(dlrm)[0]
    for view in ('collectives', 'stragglers'):
        rc, out, err = run(view, one)
        ok(view + '.one_trace', rc == 2 and 'two ranks or more' in err and not out, 'exit %d: %s' % (rc, err))
    solo = os.path.join(tmp, 'solo')
    os.mkdir(solo)
    os.symlink(one, os.path.join(solo, 'worker0.pt.trace.json'))
    rc, out, err = run('collectives', solo)
    ok('one_rank_run', rc == 2 and 'two ranks or more' in err, 'exit %d: %s' % (rc, err))
    plain = os.path.join(tmp, 'plain')
    os.mkdir(plain)
    for i in range(2):
        os.symlink(os.path.join(unit, 'test_all_categories__json_content__L34.pt.trace.json'),
                   os.path.join(plain, 'rank%d.pt.trace.json' % i))
    rc, out, err = run('collectives', plain)
    ok('no_nccl', rc == 2 and 'no NCCL/RCCL kernel' in err, 'exit %d: %s' % (rc, err))

    # ---- formats, columns, sort ----
    fmts = {}
    for f in ('--csv', '--tsv', '--jsonl', '--markdown', '-w'):
        args = [f, '150'] if f == '-w' else [f]
        rc, out, err = run('stragglers', *args, meta)
        fmts[f] = (rc, out)
    ok('formats', all(rc == 0 and '140' in out and out.count('\n') >= 3 for rc, out in fmts.values()),
       str({k: v[0] for k, v in fmts.items()}))
    js = [json.loads(l) for l in fmts['--jsonl'][1].splitlines()]
    ok('jsonl', [r.get('Rank', r.get('rank')) for r in js] == [0, 2, 1], str(js))
    rc, got, _ = table('stragglers', meta, '-c', 'rank,waited', '--sort', 'waited')
    ok('sort', rc == 0 and [r['rank'] for r in got] == ['1', '0', '2'] and list(got[0]) == ['rank', 'waited'],
       str(got))
    rc, out, err = run('collectives', '-c', 'op,nosuch', meta)
    ok('bad_column', rc == 2 and 'nosuch' in err, 'exit %d: %s' % (rc, err))
finally:
    import shutil
    shutil.rmtree(tmp)
PY
