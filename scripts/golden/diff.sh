#!/bin/sh
# Golden tests of `tprof diff A B` on HTA's trace_compare pair
# (../shared/reference/peers/hta_data/tests/data/trace_compare/{base,test}):
#   - the ops that HTA's test_trace_diff.py asserts as ops_diff "added"
#     (AddmmBackward0, All2All_Pooled_Req, CatBackward0) are the "added" op
#     rows; HTA's one "deleted" name, nccl:all_reduce, is a user_annotation,
#     not a CPU op, so it is no row of tprof's op/kernel diff (checked);
#   - every row (calls, summed times, delta, category) equals an independent
#     computation with Python's json over the gz files; --summary too;
#   - the --fail-above gate: a trace against itself exits 0; a copy with every
#     kernel twice as long exits 1 when the kernel time decides (no steps), a
#     copy with 10% longer ProfilerSteps exits 1 on the step time, and a copy
#     with only the kernels doubled but the same steps exits 0 (steps decide);
#   - a missing file, a missing second input and a bad threshold exit 2;
#   - run directories (param's 8-rank DLRM, symlinked or rewritten under /tmp):
#     calls and times are summed over the ranks (checked against Python), the
#     average step is over every rank's steps, the gate both ways, a missing
#     rank, a rank that cannot be read (named, exit 2, the rest compared) and
#     an empty directory (exit 2);
#   - two nvprof SQLite dumps (net.sql and a copy with kernels 10% longer):
#     the kernel total against sqlite3, the gate both ways.
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
REF=${REF:-$top/../shared/reference}
dir=$REF/peers/hta_data/tests/data/trace_compare
. "$(dirname "$0")/lib.sh"
golden_need_files golden.diff "$dir" "$dir/base/base.json.gz" "$dir/test/test.json.gz"
golden_need golden.diff "" "$top/cli/tprof"
exec python3 - "$top/cli/tprof" "$dir/base/base.json.gz" "$dir/test/test.json.gz" "$REF" <<'PY'
import csv, gzip, io, json, os, shutil, subprocess, sys, tempfile
from collections import defaultdict
from decimal import Decimal, ROUND_HALF_EVEN

tprof, base, test, ref = sys.argv[1:5]

def ok(name, cond, why=''):
    print(('ok golden.diff.%s' % name) if cond else ('FAIL golden.diff.%s: %s' % (name, why)))

def ns(v):
    return int((Decimal(str(v)) * 1000).to_integral_value(ROUND_HALF_EVEN))

def us(n):   # tprof's exact-microsecond text of n nanoseconds
    s = '%s%d' % ('-' if n < 0 else '', abs(n) // 1000)
    f = abs(n) % 1000
    return s + ('.%03d' % f).rstrip('0') if f else s

def run(*args):
    p = subprocess.run([tprof, 'diff'] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr

def gate(name, want, threshold, a, b, note=''):
    """`tprof diff --fail-above THRESHOLD A B` exits with want (note: a text its stderr holds)."""
    rc, out, err = run('--fail-above', threshold, a, b)
    ok(name, rc == want and note in err, 'exit %d: %s' % (rc, err.strip()))
    return rc, out, err

def table(*args):
    rc, out, err = run('--csv', *args)
    return rc, list(csv.DictReader(io.StringIO(out))), err

def events(path):
    return json.loads(gzip.decompress(open(path, 'rb').read()))['traceEvents']

def agg(evs):
    a = defaultdict(lambda: [0, 0])
    for e in evs:
        if e.get('ph') != 'X':
            continue
        kind = {'cpu_op': 'op', 'kernel': 'kernel'}.get(e.get('cat'))
        if kind:
            a[(kind, e['name'])][0] += 1
            a[(kind, e['name'])][1] += max(ns(e.get('dur', 0)), 0)
    return a

# ---- the table against HTA's assertions and an independent computation ----
rc, rows, err = table(base, test)
ok('hta.exit0', rc == 0, 'exit %d: %s' % (rc, err.strip()))
cats = defaultdict(list)
for r in rows:
    cats[(r['Kind'], r['Category'])].append(r['Name'])
ok('hta.ops_added', sorted(cats[('op', 'added')]) ==
   ['AddmmBackward0', 'All2All_Pooled_Req', 'CatBackward0'], repr(cats[('op', 'added')]))
ok('hta.nccl_all_reduce_not_an_op', all(r['Name'] != 'nccl:all_reduce' for r in rows),
   'nccl:all_reduce is a user_annotation, not a CPU op')
ok('hta.nothing_deleted', not cats[('op', 'deleted')] and not cats[('kernel', 'deleted')],
   repr(cats))

A, B = agg(events(base)), agg(events(test))
want = []
for key in set(A) | set(B):
    ac, at = A.get(key, [0, 0])
    bc, bt = B.get(key, [0, 0])
    cat = ('added' if key not in A else 'deleted' if key not in B else
           'increased' if bc > ac else 'decreased' if bc < ac else 'unchanged')
    want.append((key[0], key[1], str(ac), str(bc), us(at), us(bt), us(bt - at), cat, abs(bt - at)))
want.sort(key=lambda w: (-w[8], w[0], w[1].encode()))
got = [(r['Kind'], r['Name'], r['A_Calls'], r['B_Calls'], r['A_Time(us)'], r['B_Time(us)'],
        r['Delta(us)'], r['Category']) for r in rows]
ok('hta.rows_independent', got == [w[:8] for w in want],
   'got %r, want %r' % (got, [w[:8] for w in want]))
ok('hta.kernel_decreased', len(cats[('kernel', 'decreased')]) == 1, repr(cats))
ok('hta.rows', len(rows) == 10, '%d rows' % len(rows))

# ---- --summary ----
rc, srows, err = table('--summary', base, test)
s = {r['Metric']: r for r in srows}
def steps(evs):
    d = [ns(e['dur']) for e in evs if e.get('ph') == 'X' and
         e.get('cat') in ('cpu_op', 'user_annotation') and e['name'].startswith('ProfilerStep#')]
    return d
sa, sb = steps(events(base)), steps(events(test))
ktot = lambda a: sum(v[1] for k, v in a.items() if k[0] == 'kernel')
ok('summary.exit0', rc == 0, 'exit %d: %s' % (rc, err.strip()))
ok('summary.metrics', list(s) == ['avg_step_time', 'total_kernel_time', 'total_op_time'], repr(list(s)))
ok('summary.avg_step_time',
   'avg_step_time' in s and Decimal(s['avg_step_time']['A(us)']) * 1000 == Decimal(sum(sa)) / len(sa)
   and Decimal(s['avg_step_time']['B(us)']) * 1000 == Decimal(sum(sb)) / len(sb), repr(s.get('avg_step_time')))
ok('summary.total_kernel_time',
   'total_kernel_time' in s and s['total_kernel_time']['A(us)'] == us(ktot(A))
   and s['total_kernel_time']['B(us)'] == us(ktot(B)), repr(s.get('total_kernel_time')))

# ---- the --fail-above gate ----
tmp = tempfile.mkdtemp(prefix='tprof_diff_golden.')
try:
    def variant(name, kernel_factor=1, step_factor=1, drop_steps=False):
        d = json.loads(gzip.decompress(open(base, 'rb').read()))
        evs = []
        for e in d['traceEvents']:
            isstep = str(e.get('name', '')).startswith('ProfilerStep#')
            if drop_steps and isstep:
                continue
            if e.get('cat') == 'kernel' and 'dur' in e:
                e['dur'] = e['dur'] * kernel_factor
            if isstep and 'dur' in e:
                e['dur'] = e['dur'] * step_factor
            evs.append(e)
        d['traceEvents'] = evs
        p = os.path.join(tmp, name + '.json.gz')
        with gzip.open(p, 'wt') as f:
            json.dump(d, f)
        return p

    rc, out, err = run('--fail-above', '5%', base, base)
    ok('gate.self_exit0', rc == 0 and err == '', 'exit %d: %s' % (rc, err.strip()))
    nosteps = variant('nosteps', drop_steps=True)
    doubled = variant('doubled_nosteps', kernel_factor=2, drop_steps=True)
    rc, out, err = gate('gate.kernels_doubled_exit1', 1, '5%', nosteps, doubled)
    ok('gate.kernels_doubled_message',
       err.strip() == 'tprof: regression: total kernel time %.1f us -> %.1f us (+100.0%%) exceeds 5%%'
       % (ktot(A) / 1000, 2 * ktot(A) / 1000), repr(err))
    gate('gate.kernels_halved_exit0', 0, '5%', doubled, nosteps)
    gate('gate.kernels_doubled_under_101pct_exit0', 0, '101%', nosteps, doubled)
    gate('gate.kernels_doubled_over_400us_exit1', 1, '400us', nosteps, doubled)
    gate('gate.kernels_doubled_under_1ms_exit0', 0, '1ms', nosteps, doubled)
    slow = variant('steps_slower', step_factor=1.1)
    rc, out, err = run('--fail-above', '5%', base, slow)
    avg = Decimal(sum(sa)) / len(sa) / 1000
    ok('gate.steps_slower_exit1', rc == 1, 'exit %d: %s' % (rc, err.strip()))
    ok('gate.steps_slower_message',
       err.strip() == 'tprof: regression: avg step time %.1f us -> %.1f us (+10.0%%) exceeds 5%%'
       % (avg, avg * Decimal('1.1')), repr(err))
    kd = variant('doubled_steps_kept', kernel_factor=2)
    gate('gate.steps_decide_exit0', 0, '5%', base, kd)

    # ---- exit 2 ----
    rc, out, err = run(base, os.path.join(tmp, 'missing.json'))
    ok('exit2.missing_file', rc == 2 and 'missing.json' in err, 'exit %d: %s' % (rc, err.strip()))
    rc, out, err = run(base)
    ok('exit2.one_input', rc == 2, 'exit %d: %s' % (rc, err.strip()))
    gate('exit2.bad_threshold', 2, 'five', base, base)
    rc, out, err = run('-c', 'nope', base, base)
    ok('exit2.bad_column', rc == 2, 'exit %d: %s' % (rc, err.strip()))

    # ---- deterministic ----
    outs = {run('--csv', base, test)[1] for _ in range(3)}
    ok('deterministic', len(outs) == 1, 'outputs differ between runs')

    # ---- run directories: sums over ranks, steps averaged over every rank ----
    peers = os.path.join(ref, 'peers')
    dlrm = os.path.normpath(os.path.join(
        peers, 'other_data/facebookresearch-param/et_replay/tests/inputs/dlrm_kineto'))
    if not os.path.isdir(dlrm):
        print('skip golden.diff.run: %s is missing' % dlrm)
    else:
        files = sorted(f for f in os.listdir(dlrm) if f.endswith('.pt.trace.json'))
        def run_variant(name, kernel_factor=1, step_factor=1, drop=None):
            d = os.path.join(tmp, name)
            os.mkdir(d)
            for f in files:
                if drop and f.startswith(drop):
                    continue
                if kernel_factor == 1 and step_factor == 1:
                    os.symlink(os.path.join(dlrm, f), os.path.join(d, f))
                    continue
                j = json.load(open(os.path.join(dlrm, f)))
                for e in j['traceEvents']:
                    if e.get('cat') == 'kernel' and 'dur' in e:
                        e['dur'] = e['dur'] * kernel_factor
                    if str(e.get('name', '')).startswith('ProfilerStep#') and 'dur' in e:
                        e['dur'] = e['dur'] * step_factor
                json.dump(j, open(os.path.join(d, f), 'w'))
            return d
        ra = run_variant('run_a')
        RA = defaultdict(lambda: [0, 0])
        steps_a = []
        for f in files:
            evs = json.load(open(os.path.join(dlrm, f)))['traceEvents']
            for k, v in agg(evs).items():
                RA[k][0] += v[0]
                RA[k][1] += v[1]
            steps_a += [ns(e['dur']) for e in evs if e.get('ph') == 'X' and
                        e.get('cat') in ('cpu_op', 'user_annotation') and
                        str(e.get('name', '')).startswith('ProfilerStep#')]
        rc, rows, err = table(ra, ra)
        ok('run.self_exit0', rc == 0 and err == '', 'exit %d: %s' % (rc, err.strip()))
        got = {(r['Kind'], r['Name']): (int(r['A_Calls']), r['A_Time(us)']) for r in rows}
        want = {k: (v[0], us(v[1])) for k, v in RA.items()}
        ok('run.sums_over_ranks', got == want, 'differs in %r' %
           [k for k in set(got) | set(want) if got.get(k) != want.get(k)][:5])
        rc, srows, err = table('--summary', ra, ra)
        s = {r['Metric']: r for r in srows}
        ok('run.avg_step_over_all_ranks',
           len(steps_a) == 8 and Decimal(s['avg_step_time']['A(us)']) * 1000 == Decimal(sum(steps_a)) / len(steps_a),
           repr(s.get('avg_step_time')))
        slow = run_variant('run_steps_slower', step_factor=1.1)
        gate('run.gate.steps_slower_exit1', 1, '5%', ra, slow, 'avg step time')
        gate('run.gate.steps_slower_under_15pct_exit0', 0, '15%', ra, slow)
        gate('run.gate.steps_faster_exit0', 0, '5%', slow, ra)
        gate('run.gate.self_exit0', 0, '5%', ra, ra)
        # a rank less in B: its ops and kernels are fewer, and the gate still runs
        fewer = run_variant('run_fewer', drop='worker7')
        rc, rows, err = table(ra, fewer)
        ok('run.rank_missing_decreased',
           rc == 0 and any(r['Category'] == 'decreased' for r in rows), 'exit %d: %s' % (rc, err.strip()))
        # a rank that cannot be read: named, exit 2, the rest still compared
        bad = run_variant('run_bad')
        os.remove(os.path.join(bad, files[3]))
        open(os.path.join(bad, files[3]), 'w').write('not a trace')
        rc, rows, err = table(ra, bad)
        ok('run.bad_rank_exit2', rc == 2 and files[3] in err and len(rows) > 0,
           'exit %d, %d rows: %s' % (rc, len(rows), err.strip()))
        empty = os.path.join(tmp, 'run_empty')
        os.mkdir(empty)
        rc, out, err = run(ra, empty)
        ok('run.empty_dir_exit2', rc == 2 and 'no traces' in err, 'exit %d: %s' % (rc, err.strip()))

    # ---- two SQLite dumps (nvprof), with the gate both ways ----
    sql = os.path.join(ref, 'pyprof/data/josiahdavis_profiling-lm/17ed9e2/net.sql')
    if not os.path.exists(sql):
        print('skip golden.diff.sqlite: %s is missing' % sql)
    else:
        import sqlite3
        # tprof reads a copy: a run on an SQLite dump must never write into ../shared
        shutil.copy(sql, os.path.join(tmp, 'net.sql'))
        sql = os.path.join(tmp, 'net.sql')
        slow_sql = os.path.join(tmp, 'slow.sql')
        shutil.copy(sql, slow_sql)
        os.chmod(slow_sql, 0o644)
        c = sqlite3.connect(slow_sql)
        c.execute('update CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL set "end" = start + ("end" - start) * 11 / 10')
        c.commit()
        c.close()
        c = sqlite3.connect('file:%s?mode=ro&immutable=1' % sql, uri=True)   # nothing written beside it
        ktot = c.execute('select sum("end" - start) from CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL').fetchone()[0]
        c.close()
        rc, srows, err = table('--summary', sql, slow_sql)
        s = {r['Metric']: r for r in srows}
        ok('sqlite.summary_kernel_time', rc == 0 and s['total_kernel_time']['A(us)'] == us(ktot),
           'exit %d %r (want %s)' % (rc, s.get('total_kernel_time'), us(ktot)))
        gate('sqlite.gate_slower_exit1', 1, '5%', sql, slow_sql, 'total kernel time')
        gate('sqlite.gate_faster_exit0', 0, '5%', slow_sql, sql)
        gate('sqlite.gate_under_20pct_exit0', 0, '20%', sql, slow_sql)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
PY

