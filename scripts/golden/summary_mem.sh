#!/bin/sh
# Golden tests of the exact mergeable summaries of memory, dist and
# launches --summary (lib/summary/; the views' summarizers):
#   - memory --merge RUN (the statistics) merges the ranks' per (operator,
#     device) integer sums: on every multi-rank reference run (param's 8-rank
#     DLRM, HTA's trace_filter, the plugin's ResNet-50 spans, kineto's docs
#     traces, TraceLens' mi300 folder, the kineto distributed unit tests as
#     runs, 40 unrelated reference traces as one run, and every reference
#     trace with [memory] events as one run) it prints the bytes the
#     concatenated store prints (TPROF_MERGE_CONCAT=1), also with --device;
#     the byte columns equal the sums of the per-rank tables;
#   - dist --merge and dist --merge --comm print what build_run over every
#     rank printed (TPROF_MERGE_CONCAT=1), stdout and the transfer note;
#   - launches --summary --merge RUN equals an independent computation from
#     the per-launch table (launches --csv, every rank): per (runtime call,
#     kernel) the count, sums, min, max (exact), mean, median, std (within
#     rounding) and the outlier counts, also at other cut-offs;
#   - summary files: `tprof summarize RUN -o DIR`, then VIEW --merge DIR and
#     the files listed in another order print what VIEW --merge RUN prints
#     (stdout, stderr, exit status); one trace summarized prints what the
#     view prints for it;
#   - --events and --curve stay per trace (timelines: --merge lays them out);
#   - tprof-mpi prints what tprof VIEW --merge prints (where make mpi built it).
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
. "$(dirname "$0")/lib.sh"
golden_ref_python golden.summary_mem "$REF/peers/other_data/facebookresearch-param/et_replay/tests/inputs/dlrm_kineto" <<'PY'
import csv, gzip, io, json, math, os, random, shutil, statistics, subprocess, sys, tempfile
from functools import partial
from golden import link_run, okf, ref_args, reference_traces, run_clean, summary_runs

tprof, ref, dlrm, hta = ref_args('dlrm', 'hta')

ok = okf('golden.summary_mem')

run = partial(run_clean, tprof)

def note(err):
    # the view's notes, without the coverage lines (attribution.sh tests them)
    return [l for l in err.splitlines() if 'of kernel time attributed' not in l]

def rows(out):
    return list(csv.DictReader(io.StringIO(out)))

CONCAT = {'TPROF_MERGE_CONCAT': '1'}

def has_memory(path):
    op = gzip.open if path.endswith('.gz') else open
    try:
        with op(path, 'rt', errors='replace') as f:
            return '"[memory]"' in f.read(64 << 20)
    except OSError:
        return False

tmp = tempfile.mkdtemp(prefix='tprof_summary_mem_golden.')
try:
    runs = summary_runs(ref, tmp)
    # a run of unrelated traces, and a run of every trace with [memory] events
    found = reference_traces(ref, ('kineto/data', 'peers/hta_data/tests/data', 'peers/other_data'), 40000000)
    runs['mixed'] = link_run(os.path.join(tmp, 'mixed'), [p for p in found if os.path.getsize(p) < 4000000][:40])
    mem_traces = [p for p in found if has_memory(p)]
    memrun = runs['memrun'] = link_run(os.path.join(tmp, 'memrun'), mem_traces, 'm')
    ok('memrun.has_traces', len(mem_traces) >= 10, '%d traces with [memory] events' % len(mem_traces))

    MERGED = [('memory',), ('memory', '--device', 'GPU0'), ('memory', '--device', 'CPU'), ('dist',), ('dist', '--comm')]
    LAUNCH = ('launches', '--summary')

    # ---- --merge by summaries = what the concatenated store / build_run printed ----
    for name, d in sorted(runs.items()):
        for v in MERGED:
            a = run(*v, '--merge', '--csv', d, env=CONCAT)
            b = run(*v, '--merge', '--csv', d)
            case = '%s.%s' % (name, '_'.join(x.strip('-') for x in v))
            same_note = v[0] != 'dist' or note(a[2]) == note(b[2])
            ok('concat.' + case, a[0] == b[0] and a[1] == b[1] and same_note,
               'exit %d/%d, %d/%d lines, notes %r vs %r' % (a[0], b[0], a[1].count('\n'), b[1].count('\n'),
                                                           note(a[2])[-1:], note(b[2])[-1:]))

    # ---- memory: the byte columns are the sums of the per-rank tables ----
    SUMMED = ['SizeInc(B)', 'SelfSizeInc(B)', 'Allocs', 'SelfAllocs', 'AllocSize(B)', 'SelfAllocSize(B)']
    for name in ('memrun', 'mi300', 'resnet_spans'):
        if name not in runs:
            continue
        _, out, _ = run('memory', '--csv', runs[name])   # every rank's rows, a Rank column first
        want = {}
        for r in rows(out):
            k = (r['Operator'], r['Device'])
            acc = want.setdefault(k, [0] * len(SUMMED))
            for i, c in enumerate(SUMMED):
                acc[i] += int(r[c])
        want = {k: v for k, v in want.items() if any(v)}
        _, out, _ = run('memory', '--merge', '--csv', runs[name])
        got = {(r['Operator'], r['Device']): [int(r[c]) for c in SUMMED] for r in rows(out)}
        ok('memory_sums.' + name, got == want and got,
           '%d vs %d rows, first difference %r' % (len(got), len(want),
                                                   next(((k, got.get(k), want.get(k)) for k in set(got) | set(want)
                                                         if got.get(k) != want.get(k)), None)))

    # ---- launches --summary: an independent computation from the launches ----
    def launch_stats(out, rcut=50000, dcut=100000):
        acc = {}
        for r in rows(out):
            k = (r['Runtime'], r['Kernel'])
            a = acc.setdefault(k, {'cpu': [], 'gpu': [], 'delay': [], 'short': 0, 'runtime': 0, 'delay_n': 0})
            cpu, gpu = int(r['CpuDur(ns)']), int(r['GpuDur(ns)'])
            a['cpu'].append(cpu)
            a['gpu'].append(gpu)
            if r['LaunchDelay(ns)'] not in ('', '-'):   # a replay's later kernels have none, nor flags
                dl = int(r['LaunchDelay(ns)'])
                a['delay'].append(dl)
                a['short'] += cpu <= rcut and gpu < cpu
                a['runtime'] += cpu > rcut
                a['delay_n'] += dl > dcut
        return acc

    def close(x, y, tol):
        if x in ('', '-') or y is None:
            return x in ('', '-') and y is None
        return abs(float(x) - y) <= tol

    def check_launches(case, per_launch, summary, rcut=50000, dcut=100000):
        want = launch_stats(per_launch, rcut, dcut)
        got = rows(summary)
        bad = []
        for r in got:
            k = (r['Runtime'], r['Kernel'])
            w = want.pop(k, None)
            if w is None:
                bad.append(('extra', k))
                continue
            exact = [(r['Calls'], len(w['cpu'])), (r['Short'], w['short']), (r['RuntimeOut'], w['runtime']),
                     (r['DelayOut'], w['delay_n'])]
            approx = []
            for m, H in (('cpu', 'Cpu'), ('gpu', 'Gpu'), ('delay', 'Delay')):
                v = w[m]
                if not v:
                    exact += [(r[H + c + '(ns)'], '-') for c in ('Total', 'Min', 'Max')]
                    continue
                exact += [(r[H + 'Total(ns)'], sum(v)), (r[H + 'Min(ns)'], min(v)), (r[H + 'Max(ns)'], max(v))]
                approx += [(r[H + 'Mean(ns)'], sum(v) / len(v)), (r[H + 'Median(ns)'], statistics.median(v)),
                           (r[H + 'Std(ns)'], statistics.stdev(v) if len(v) > 1 else None)]
            if any(str(x) != str(y) for x, y in exact) or not all(close(x, y, 1.0) for x, y in approx):
                bad.append((k[1][:40], exact, approx))
        ok('launches.' + case, got and not bad and not want, '%d rows, %r, missing %r' % (len(got), bad[:1],
                                                                                      list(want)[:1]))
        # most launches first, then runtime and kernel names
        keys = [(-int(r['Calls']), r['Runtime'], r['Kernel']) for r in got]
        ok('launches.%s.order' % case, keys == sorted(keys), repr(keys[:3]))

    for name, d in sorted(runs.items()):
        if name == 'mixed':
            continue   # its unreadable ranks: the same launches, checked on the others
        _, per, _ = run('launches', '--csv', '--timeunit', 'ns', d)
        if not rows(per):
            continue
        _, summ, _ = run(*LAUNCH, '--merge', '--csv', '--timeunit', 'ns', d)
        check_launches(name, per, summ)
        if name == 'trace_filter':
            cut = ['--runtime-cutoff', '8', '--launch-delay-cutoff', '5']
            _, per, _ = run('launches', '--csv', '--timeunit', 'ns', *cut, d)
            _, summ, _ = run(*LAUNCH, '--merge', '--csv', '--timeunit', 'ns', *cut, d)
            check_launches(name + '.cutoffs', per, summ, 8000, 5000)
    one = os.path.join(hta, 'trace_filter', 'sampled_rank-1.json.gz')
    if os.path.exists(one):
        _, per, _ = run('launches', '--csv', '--timeunit', 'ns', one)
        _, summ, _ = run(*LAUNCH, '--csv', '--timeunit', 'ns', one)
        check_launches('one_trace', per, summ)

    # ---- summary files ----
    VIEWS = [('memory',), ('memory', '--device', 'GPU0'), ('dist',), ('dist', '--comm'), LAUNCH]
    for name in ('dlrm', 'trace_filter', 'nccl', 'gloo_cpu', 'mi300', 'memrun', 'resnet_spans'):
        if name not in runs:
            continue
        d, sd = runs[name], os.path.join(tmp, 'sum_' + name)
        rc, out, err = run('summarize', d, '-o', sd)
        files = sorted(os.listdir(sd)) if os.path.isdir(sd) else []
        ok('files.%s.summarize' % name, files and all(f.endswith('.tpsum') for f in files),
           'exit %d: %s %r' % (rc, err[:300], files[:3]))
        listed = [os.path.join(sd, f) for f in files]
        random.Random(11).shuffle(listed)
        for v in VIEWS:
            case = '%s.%s' % (name, '_'.join(x.strip('-') for x in v))
            a = run(*v, '--merge', '--csv', d)
            b = run(*v, '--merge', '--csv', sd)
            c = run(*v, '--merge', '--csv', *listed)
            # the run's own notes (ranks disagree on steps, spans) are the run's,
            # not the summaries'; memrun's doubly claimed ranks were said (exit
            # 2) by summarize, which left them out
            run_err = ''.join(l for l in a[2].splitlines(True) if not (l.startswith('tprof: %s: ' % d) and
                                                                        ('disagree' in l or 'span' in l)))
            same_err = (run_err == b[2] and a[0] == b[0]) or name == 'memrun'
            ok('files.' + case, a[1] == b[1] and same_err and (a[1] or a[0]),
               'exit %d/%d, stderr %r vs %r' % (a[0], b[0], a[2][-200:], b[2][-200:]))
            ok('files.%s.listed_in_any_order' % case, c[1] == b[1] and c[2] == b[2] and c[0] == b[0],
               'exit %d/%d' % (b[0], c[0]))
    # one trace summarized: what the view prints for it
    for one in (os.path.join(dlrm, sorted(os.listdir(dlrm))[3]), os.path.join(memrun, sorted(os.listdir(memrun))[0])):
        sone = os.path.join(tmp, 'sum_one_' + os.path.basename(one))
        rc, _, _ = run('summarize', one, '-o', sone)
        for v in [('memory',), LAUNCH, ('dist', '--merge'), ('dist', '--merge', '--comm')]:
            a = run(*v, '--csv', one)
            b = run(*v, '--merge', '--csv', sone)
            ok('files.one_trace.%s.%s' % (os.path.basename(one)[:12], '_'.join(x.strip('-') for x in v)),
               rc == 0 and a[1] == b[1] and a[0] == b[0], 'exit %d/%d' % (a[0], b[0]))
    sd = os.path.join(tmp, 'sum_trace_filter')
    if os.path.isdir(sd):
        rc, out, err = run(*LAUNCH, '--hta-quirks', '--merge', sd)
        ok('refuse.launches_other_options', rc == 2 and not out and 'default options' in err, err)
    sd = os.path.join(tmp, 'sum_mi300')
    if os.path.isdir(sd):
        rc, out, err = run('memory', '--events', '--merge', sd)
        ok('refuse.memory_events_on_summaries', rc == 2 and not out and 'summary files hold' in err, err)

    # ---- --events and --curve: timelines, per trace (--merge lays the ranks end to end) ----
    d = runs.get('mi300')
    if d:
        for v in (('memory', '--events'), ('memory', '--curve')):
            a = run(*v, '--merge', '--csv', d)
            b = run(*v, '--merge', '--csv', d, env=CONCAT)
            per = run(*v, '--csv', d)
            # every rank's records (the curve's peak rows are per device of the whole)
            n = lambda out: len([r for r in rows(out) if r.get('Mark', '') in ('', '-')])
            ok('timeline.' + '_'.join(x.strip('-') for x in v), a == b and a[1] and n(a[1]) == n(per[1]),
               '%d vs %d rows' % (n(a[1]), n(per[1])))

    # ---- tprof-mpi (make mpi): the same bytes as tprof VIEW --merge ----
    mpi = os.path.join(os.path.dirname(tprof), 'tprof-mpi')
    if not shutil.which('mpirun') or not os.access(mpi, os.X_OK):
        print('skip golden.summary_mem.mpi: no mpirun or cli/tprof-mpi (make mpi)')
    else:
        # mi300's model traces have no rank: named rank-N here, as tprof-mpi needs
        ranked = os.path.join(tmp, 'ranked')
        os.mkdir(ranked)
        src = runs.get('mi300')
        for i, n in enumerate(sorted(f for f in os.listdir(src) if f.endswith('.json.gz') and '__' in f) if src else []):
            os.symlink(os.path.join(src, n), os.path.join(ranked, 'rank-%d.pt.trace.json.gz' % i))
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1', TMPDIR=tmp)
        env['ASAN_OPTIONS'] = (env.get('ASAN_OPTIONS', '') + ':detect_leaks=0').lstrip(':')
        for d, v, p in [(ranked, ('memory',), 3), (ranked, ('memory', '--device', 'GPU0'), 4), (dlrm, ('dist',), 3),
                        (dlrm, ('dist', '--comm'), 4), (ranked, ('dist',), 2), (dlrm, LAUNCH, 3), (ranked, LAUNCH, 4)]:
            want = run(*v, '--merge', '--csv', d)
            got = subprocess.run(['mpirun', '--oversubscribe', '-n', str(p), mpi] + list(v) + ['--merge', '--csv', d],
                                 capture_output=True, text=True, env=env)
            ok('mpi.%s.%s.n%d' % (os.path.basename(d)[:6], '_'.join(x.strip('-') for x in v), p),
               got.returncode == want[0] and got.stdout == want[1] and want[1],
               'exit %d/%d %r' % (got.returncode, want[0], got.stderr[-200:]))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
PY
