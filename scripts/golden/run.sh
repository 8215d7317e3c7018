#!/bin/sh
# Golden tests of run directories (a directory of ranks given to any view):
#   - one block per rank under one header: `kernels --csv RUN` is the per-rank
#     tables of every file with a Rank column in front, ranks in order (param's
#     8-rank DLRM); --top and --sort apply within each rank; -c worker;
#   - ranks from distributedInfo (a renamed file keeps its rank), from the
#     name, spans (the TensorBoard samples' two spans of worker0: the first by
#     default with a note, --span 2 / --span TIMESTAMP, an unknown span);
#   - --merge: one table; kernels sum calls and time over the ranks; steps
#     lists every rank's steps and averages over all of them;
#   - a view with its own rank column (HTA temporal) gets no second one;
#   - bad input: an empty directory, a rank that cannot be read (named, exit 2,
#     the other ranks printed), two files claiming one rank, mixed GPU and
#     CPU-only ranks (and their disagreement on steps, on stderr).
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
. "$(dirname "$0")/lib.sh"
golden_ref_python golden.run "$REF/peers/other_data/facebookresearch-param/et_replay/tests/inputs/dlrm_kineto" <<'PY'
import csv, io, os, shutil, subprocess, sys, tempfile
from functools import partial
from golden import okf, ref_args, run_tprof
from collections import defaultdict
from decimal import Decimal

tprof, ref, dlrm, hta, samples = ref_args('dlrm', 'hta', 'samples')

ok = okf('golden.run')

run = partial(run_tprof, tprof)

def table(*args):
    rc, out, err = run(*(list(args[:-1]) + ['--csv', args[-1]]))
    return rc, list(csv.reader(io.StringIO(out))), err

files = sorted(f for f in os.listdir(dlrm) if f.endswith('.pt.trace.json'))
tmp = tempfile.mkdtemp(prefix='tprof_run_golden.')
try:
    # ---- one block per rank under one header ----
    rc, rows, err = table('kernels', dlrm)
    ok('blocks.exit0', rc == 0 and err == '', 'exit %d: %s' % (rc, err.strip()))
    hdr = rows[0] if rows else []
    ok('blocks.one_header', hdr[:1] == ['Rank'] and sum(r == hdr for r in rows) == 1, repr(hdr))
    want = []
    for i, f in enumerate(files):
        rc1, r1, _ = table('kernels', os.path.join(dlrm, f))
        want += [[str(i)] + r for r in r1[1:]]
    ok('blocks.rows_are_the_ranks_tables', rows[1:] == want, '%d rows, want %d' % (len(rows) - 1, len(want)))
    ranks = [r[0] for r in rows[1:]]
    ok('blocks.rank_order', ranks == sorted(ranks, key=int) and set(ranks) == {str(i) for i in range(8)},
       repr(sorted(set(ranks))))
    rc, rows, err = table('kernels', '--top', '2', '--sort', 'calls', dlrm)
    per = defaultdict(list)
    for r in rows[1:]:
        per[r[0]].append(int(r[rows[0].index('Calls')]))
    ok('blocks.top_sort_per_rank', len(per) == 8 and all(len(v) == 2 and v[0] >= v[1] for v in per.values()),
       repr(dict(per)))
    rc, rows, err = table('steps', '-c', 'worker,step,total', dlrm)
    ok('blocks.worker_column', rc == 0 and rows[0] == ['Worker', 'Step', 'Total(us)'] and
       {r[0] for r in rows[1:]} == {f.split('.')[0] for f in files}, repr(rows[:3]))

    # ---- --merge: one table ----
    rc, rows, err = table('kernels', '--merge', '-c', 'name,calls', dlrm)
    got = {r[0]: int(r[1]) for r in rows[1:]}
    sums = defaultdict(int)
    for f in files:
        _, r1, _ = table('kernels', '-c', 'name,calls', os.path.join(dlrm, f))
        for r in r1[1:]:
            sums[r[0]] += int(r[1])
    ok('merge.kernels_sum_calls', rc == 0 and got == dict(sums) and rows[0] == ['Name', 'Calls'],
       'exit %d, %d names vs %d' % (rc, len(got), len(sums)))
    rc, rows, err = table('steps', '--merge', '-c', 'step,total', dlrm)
    per_rank = []
    for f in files:
        _, r1, _ = table('steps', '-c', 'step,total', os.path.join(dlrm, f))
        per_rank += [Decimal(r[1]) for r in r1[1:] if r[0] != 'avg']
    steps = [Decimal(r[1]) for r in rows[1:] if r[0] != 'avg']
    avg = [Decimal(r[1]) for r in rows[1:] if r[0] == 'avg']
    # the plugin's first-step rule (a step starts after the device work before
    # it) applies to the run's first step only: a later rank's step may be
    # longer than in its own table, never shorter (see the man page)
    ok('merge.steps_every_rank', len(steps) == 8 and steps[0] == per_rank[0] and
       all(m >= o for m, o in zip(steps, per_rank)), '%r vs %r' % (steps, per_rank))
    ok('merge.steps_avg_over_all', avg and abs(avg[0] - sum(steps) / len(steps)) <= Decimal('0.001'),
       '%r vs %r' % (avg, sum(steps) / len(steps)))
    # --merge on a timeline view laid end to end warns; on a counting view,
    # or one that sums its ranks' summaries (temporal), it does not
    rc, _, err = run('queue', '--merge', '--csv', dlrm)
    ok('merge.timeline_warns', rc == 0 and 'timeline measure' in err, 'exit %d: %s' % (rc, err.strip()[:200]))
    rc, _, err = run('temporal', '--merge', '--csv', dlrm)
    ok('merge.summed_timeline_quiet', rc == 0 and 'timeline' not in err, 'exit %d: %s' % (rc, err.strip()[:200]))
    rc, _, err = run('kernels', '--merge', '--csv', dlrm)
    ok('merge.counting_quiet', rc == 0 and 'timeline' not in err, 'exit %d: %s' % (rc, err.strip()[:200]))

    # ---- a view with its own rank column ----
    rc, out, err = run('temporal', '--help')
    if rc != 0 or 'rank' not in out:
        print('skip golden.run.own_rank_column: no temporal view with a rank column')
    else:
        rc, rows, err = table('temporal', dlrm)
        ok('own_rank_column', rc == 0 and rows[0].count('Rank') == 1 and
           [r[0] for r in rows[1:]] == [str(i) for i in range(8)], repr(rows[:3]))

    # ---- ranks from distributedInfo survive a rename ----
    d = os.path.join(tmp, 'renamed')
    os.mkdir(d)
    os.symlink(os.path.join(hta, 'trace_filter/sampled_rank-1.json.gz'), os.path.join(d, 'aaa.json.gz'))
    os.symlink(os.path.join(hta, 'trace_filter/sampled_rank-0.json.gz'), os.path.join(d, 'bbb.json.gz'))
    rc, rows, err = table('steps', '-c', 'rank,worker,step', d)
    ok('rank_from_distributedInfo', rc == 0 and [(r[0], r[1]) for r in rows[1:] if r[2] == 'avg'] ==
       [('0', 'bbb'), ('1', 'aaa')], repr(rows))

    # ---- HTA's rank-detection directories (test_trace_file.py): no rank
    # anywhere gives rank 0, inference_rank_1 is rank 1 ----
    for sub, want in (('distributed_info_unavailable', '0'), ('rank_unavailable', '0'),
                      ('mixed_files', '0'), ('trace_file_list', '1')):
        rc, rows, err = table('info', '-c', 'rank,property', os.path.join(hta, sub))
        got = {r[0] for r in rows[1:]}
        ok('hta_rank_detection.%s' % sub, rc == 0 and got == {want}, 'exit %d %r %s' % (rc, got, err.strip()))

    # ---- spans: the plugin's worker.span naming ----
    if not os.path.isdir(samples):
        print('skip golden.run.spans: %s is missing' % samples)
    else:
        rc, rows, err = table('steps', '-c', 'step', samples)
        ok('spans.default_first', rc == 0 and [r[1] for r in rows[1:]] == ['5', '6', '7', '8', '9', '10', 'avg']
           and 'more than one span' in err, 'exit %d %r %s' % (rc, rows, err.strip()))
        rc, rows, err = table('steps', '-c', 'step', '--span', '2', samples)
        ok('spans.index', rc == 0 and [r[1] for r in rows[1:]][:1] == ['16'] and err == '',
           'exit %d %r %s' % (rc, rows[:2], err.strip()))
        stamp = sorted(f for f in os.listdir(samples) if f.startswith('worker0.'))[1].split('.')[1]
        rc, rows, err = table('steps', '-c', 'step', '--span', stamp, samples)
        ok('spans.timestamp', rc == 0 and [r[1] for r in rows[1:]][:1] == ['16'], 'exit %d %r' % (rc, rows[:2]))
        rc, out, err = run('steps', '--span', '9', samples)
        ok('spans.unknown_exit2', rc == 2 and '--span 9' in err, 'exit %d: %s' % (rc, err.strip()))

    # ---- bad input ----
    empty = os.path.join(tmp, 'empty')
    os.mkdir(empty)
    rc, out, err = run('steps', empty)
    ok('bad.empty_dir', rc == 2 and out == '' and 'no traces' in err, 'exit %d: %s' % (rc, err.strip()))
    bad = os.path.join(tmp, 'bad')
    os.mkdir(bad)
    for f in files[:3]:
        os.symlink(os.path.join(dlrm, f), os.path.join(bad, f))
    open(os.path.join(bad, 'worker9_broken.pt.trace.json'), 'w').write('{"traceEvents": [ {"ph": "X", ')
    open(os.path.join(bad, 'worker8_garbage.json'), 'w').write('this is not a trace')
    os.symlink(os.path.join(tmp, 'nowhere.json'), os.path.join(bad, 'rank-7.json'))
    rc, rows, err = table('steps', bad)
    ok('bad.dangling_link_named', rc == 2 and 'rank-7.json' in err, 'exit %d: %s' % (rc, err.strip()))
    ok('bad.rank_named_exit2', rc == 2 and 'worker8_garbage.json' in err and 'worker9_broken' in err,
       'exit %d: %s' % (rc, err.strip()))
    ok('bad.other_ranks_printed', {r[0] for r in rows[1:]} >= {'0', '1', '2'}, repr(rows[:4]))
    dup = os.path.join(tmp, 'dup')
    os.mkdir(dup)
    os.symlink(os.path.join(hta, 'rank_non_gpu/rank_non_gpu.json.gz'), os.path.join(dup, 'a.json.gz'))
    os.symlink(os.path.join(hta, 'mixed_files/rank_non_gpu.json.gz'), os.path.join(dup, 'b.json.gz'))
    rc, rows, err = table('steps', dup)
    ok('bad.duplicate_rank', rc == 2 and 'also claimed by' in err and 'b.json.gz' in err and
       {r[0] for r in rows[1:]} == {'0'}, 'exit %d: %s %r' % (rc, err.strip(), rows))
    mixed = os.path.join(tmp, 'mixed')
    os.mkdir(mixed)
    os.symlink(os.path.join(hta, 'trace_filter/sampled_rank-0.json.gz'), os.path.join(mixed, 'gpu.json.gz'))
    os.symlink(os.path.join(hta, 'cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz'),
               os.path.join(mixed, 'cpu.json.gz'))
    rc, rows, err = table('steps', mixed)
    ok('bad.mixed_gpu_cpu', rc == 0 and {r[0] for r in rows[1:]} == {'0', '34'}, 'exit %d: %s' % (rc, err.strip()))
    ok('bad.steps_disagree_noted', 'disagree on steps' in err, err.strip())
    for view in ('kernels', 'ops', 'dist', 'prof'):
        rc, out, err2 = run(view, mixed)
        ok('bad.mixed_%s' % view, rc == 0, 'exit %d: %s' % (rc, err2.strip()))
    # a trace and a run in one command: the run's rows have a rank column, so
    # they start a new header; two runs share one
    rc, out, err = run('steps', '--csv', os.path.join(dlrm, files[0]), dlrm, dlrm)
    hdrs = [l for l in out.splitlines() if l.startswith('"Step"') or l.startswith('"Rank"')]
    ok('file_then_runs.headers', rc == 0 and len(hdrs) == 2 and hdrs[1].startswith('"Rank"'), repr(hdrs))
    rc, out, err = run('steps', '-c', 'nope', dlrm)
    ok('bad.column', rc == 2 and 'nope' in err, 'exit %d: %s' % (rc, err.strip()))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
PY
