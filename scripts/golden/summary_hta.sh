#!/bin/sh
# Golden tests of the HTA timeline views' exact mergeable summaries
# (temporal, kernel-types, overlap, idle: lib/view/hta/hta_summ.h), on every
# multi-rank reference run summary.sh uses (param's 8-rank DLRM, HTA's
# trace_filter, the plugin's ResNet-50 spans, kineto's docs traces,
# TraceLens' mi300 folder, the kineto distributed unit tests as runs, a run
# of 40 unrelated reference traces):
#   - merge.RUN.VIEW: `VIEW --merge RUN` is what this script computes from
#     the per-rank table `VIEW RUN` (CSV, times in ns): the ns columns summed
#     over the ranks, exactly; the percentages and ratios from those sums, as
#     printed (two decimals; kernel-types one); kernel-types' rows by summed
#     time descending, idle's per stream ascending; the rank "-" (a merge);
#     also with --all-steps, --hta-quirks and (DLRM) --step 10;
#   - files.RUN.VIEW: `tprof summarize RUN -o DIR`, then VIEW --merge DIR
#     prints the bytes of VIEW --merge RUN (stdout; stderr too, less the
#     run's own notes: its spans, steps the ranks disagree on, the mixed
#     run's unreadable ranks that summarize left out), and so do the
#     files given one by one in reverse and in shuffled order;
#   - files.dlrm.sql_views: the SQL views of the files (temporal_all,
#     kernel_types_type, overlap_all, idle_all) summed give the merge;
#   - one.TRACE.VIEW: one trace summarized and merged prints what the view
#     prints for the trace (its rank included);
#   - concat: on HTA's trace_filter ranks and kineto's docs traces,
#     kernel-types and overlap --all-steps --merge print the laid-out trace's
#     numbers (TPROF_MERGE_CONCAT=1): ranks laid end to end do not overlap;
#   - files.dlrm.VIEW.quirks: files summarized with TPROF_HTA_QUIRKS=1 print
#     VIEW --merge --hta-quirks RUN;
#   - refuse: a summary file asked for with --hta-quirks (it holds the
#     defaults) is refused, exit 2, nothing on stdout.
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
. "$(dirname "$0")/lib.sh"
golden_ref_python golden.summary_hta "$REF/peers/other_data/facebookresearch-param/et_replay/tests/inputs/dlrm_kineto" <<'PY'
import csv, io, json, os, random, shutil, sqlite3, subprocess, sys, tempfile
from golden import okf, ref_args, run_clean, summary_runs

tprof, ref, dlrm, hta = ref_args('dlrm', 'hta')
VIEWS = ('temporal', 'kernel-types', 'overlap', 'idle')
COLS = {'temporal': 'rank,idle,compute,non_compute,kernel_time,idle_pct,compute_pct,non_compute_pct,events',
        'kernel-types': 'rank,kernel_type,time,pct',
        'overlap': 'rank,overlap,comm,comp,comm_comp_overlap_pct',
        'idle': 'rank,stream,category,time,ratio,count'}

ok = okf('golden.summary_hta')

def run(*args):
    return run_clean(tprof, *args, drop=('TPROF_MERGE_CONCAT', 'TPROF_HTA_QUIRKS'))

def table(*args):
    rc, out, err = run(*args, '--csv', '--timeunit', 'ns', '--header', 'keys')
    rows = [{(k[:-3] if k.endswith('_ns') else k): x for k, x in r.items()} for r in csv.DictReader(io.StringIO(out))]
    return rc, rows, err

def share(num, den, places):
    """the printed share: the double num / den, as the view computes it,
    to `places` decimals (printf rounds the exact binary value)"""
    if den == 0:
        return ''
    return '%.*f' % (places, num / den)

def pct(num, den, places):
    if den == 0:
        return ''
    return '%.*f' % (places, 100.0 * (num / den))

def expect(view, rows):
    """the merged table from the per-rank rows (csv.DictReader, ns)"""
    I = lambda r, k: int(r[k])
    if view == 'temporal':
        s = {k: sum(I(r, k) for r in rows) for k in ('idle', 'compute', 'non_compute', 'kernel_time', 'events')}
        kt = s['kernel_time']
        # no share of a kernel time <= 0 (HTA's rounding can make it negative)
        return [{'rank': '', **{k: str(v) for k, v in s.items()},
                 'idle_pct': pct(s['idle'], kt if kt > 0 else 0, 2),
                 'compute_pct': pct(s['compute'], kt if kt > 0 else 0, 2),
                 'non_compute_pct': pct(s['non_compute'], kt if kt > 0 else 0, 2)}]
    if view == 'overlap':
        s = {k: sum(I(r, k) for r in rows) for k in ('overlap', 'comm', 'comp')}
        return [{'rank': '', **{k: str(v) for k, v in s.items()},
                 'comm_comp_overlap_pct': pct(s['overlap'], s['comm'], 2)}]
    if view == 'kernel-types':
        labels = ['COMPUTATION', 'COMMUNICATION', 'COMPUTATION overlapping COMMUNICATION', 'MEMORY',
                  'COMPUTATION overlapping MEMORY', 'COMMUNICATION overlapping MEMORY',
                  'COMPUTATION overlapping COMMUNICATION overlapping MEMORY']
        t = {}
        for r in rows:
            t[r['kernel_type']] = t.get(r['kernel_type'], 0) + I(r, 'time')
        total = sum(t.values())
        order = sorted(t, key=lambda k: (-t[k], labels.index(k)))
        return [{'rank': '', 'kernel_type': k, 'time': str(t[k]), 'pct': pct(t[k], total, 1)} for k in order]
    if view == 'idle':
        t, n = {}, {}
        for r in rows:
            key = (int(r['stream']), r['category'])
            t[key] = t.get(key, 0) + I(r, 'time')
            n[key] = n.get(key, 0) + I(r, 'count')
        out = []
        for stream in sorted({k[0] for k in t}):
            total = sum(t.get((stream, c), 0) for c in ('host_wait', 'kernel_wait', 'other'))
            for c in ('host_wait', 'kernel_wait', 'other'):
                out.append({'rank': '', 'stream': str(stream), 'category': c, 'time': str(t.get((stream, c), 0)),
                            'ratio': share(t.get((stream, c), 0), total, 2), 'count': str(n.get((stream, c), 0))})
        return out

tmp = tempfile.mkdtemp(prefix='tprof_summary_hta_golden.')
try:
    runs = summary_runs(ref, tmp, mixed=True)   # mixed: summary.sh's run of unrelated traces

    # ---- (1) --merge RUN = the per-rank tables summed ----
    for name, d in sorted(runs.items()):
        opts = [(), ('--all-steps',), ('--hta-quirks',)] + ([('--step', '10')] if name == 'dlrm' else [])
        for v in VIEWS:
            for o in opts:
                case = 'merge.%s.%s%s' % (name, v, ''.join('.' + x.strip('-') for x in o))
                rc1, per, _ = table(v, *o, '-c', COLS[v], d)
                rc, got, err = table(v, *o, '--merge', '-c', COLS[v], d)
                want = expect(v, per)
                # the rank: "-" (empty in keyed CSV) for a merge of several
                # traces; a run of one trace (one span) prints its rank
                ranks = {r['rank'] for r in per}
                rank_ok = all(r['rank'] == '' or (len(ranks) == 1 and r['rank'] in ranks) for r in got) and \
                    (name != 'dlrm' or (len(ranks) == 8 and all(r['rank'] == '' for r in got)))
                strip = lambda rows: [{k: x for k, x in r.items() if k != 'rank'} for r in rows]
                ok(case, rc == rc1 and strip(got) == strip(want) and rank_ok and (v != 'temporal' or len(got) == 1)
                   and 'timeline measure' not in err,
                   'exit %d/%d; got %r want %r; %s' % (rc, rc1, got[:3], want[:3], err[-200:]))

    # ---- the laid-out trace: the same sums where only the step window differs ----
    # (ranks laid end to end do not overlap; --all-steps cuts the laid-out
    # trace at its last step's end, which leaves these runs whole)
    for name in ('trace_filter', 'docs_traces'):
        for v in ('kernel-types', 'overlap'):
            if name not in runs:
                continue
            c = ['-c', 'kernel_type,time,pct' if v == 'kernel-types' else 'overlap,comm,comp,comm_comp_overlap_pct']
            a = run(v, '--all-steps', '--merge', '--csv', '--timeunit', 'ns', *c, runs[name])
            e = dict(os.environ, TPROF_MERGE_CONCAT='1')
            p = subprocess.run([tprof, v, '--all-steps', '--merge', '--csv', '--timeunit', 'ns', *c, runs[name]],
                               capture_output=True, text=True, env=e)
            ok('concat.%s.%s.all_steps' % (name, v), a[0] == p.returncode and a[1] and a[1] == p.stdout,
               '%r vs %r' % (a[1][:200], p.stdout[:200]))

    # ---- (2) summary files, (3) in any order ----
    for name, d in sorted(runs.items()):
        sd = os.path.join(tmp, 'sum_' + name)
        rc, out, err = run('summarize', d, '-o', sd)
        files = sorted(os.listdir(sd)) if os.path.isdir(sd) else []
        if not files:
            ok('files.%s.summarize' % name, False, 'exit %d: %s' % (rc, err[:300]))
            continue
        listed = [os.path.join(sd, f) for f in files]
        shuffled = listed[:]
        random.Random(7).shuffle(shuffled)
        for v in VIEWS:
            a = run(v, '--merge', '--csv', d)
            b = run(v, '--merge', '--csv', sd)
            # stderr: the same notes, less the run's own (spans, steps the
            # ranks disagree on), which the summary files do not keep; the
            # mixed run's unreadable ranks were said by summarize
            same_err = (a[2].endswith(b[2]) and a[0] == b[0] and
                        (a[2] == b[2] or name not in ('dlrm', 'trace_filter', 'nccl'))) or name == 'mixed'
            ok('files.%s.%s' % (name, v), a[1] and a[1] == b[1] and same_err,
               'exit %d/%d, %r vs %r, stderr %r vs %r' % (a[0], b[0], a[1][:120], b[1][:120], a[2][:200], b[2][:200]))
            r = run(v, '--merge', '--csv', *reversed(listed))
            s = run(v, '--merge', '--csv', *shuffled)
            ok('files.%s.%s.any_order' % (name, v), r[1] == b[1] and s[1] == b[1] and r[0] == s[0] == b[0],
               '%r / %r vs %r' % (r[1][:120], s[1][:120], b[1][:120]))
        if name == 'dlrm':
            # the SQL views the man page names: their sums are the merge's
            q = {'temporal_all': 'SELECT sum(idle_ns), sum(kernel_time_ns) FROM temporal_all',
                 'kernel_types_type': 'SELECT sum(comp_ns), sum(comm_ns) FROM kernel_types_type',
                 'overlap_all': 'SELECT sum(overlap_ns), sum(comm_ns) FROM overlap_all',
                 'idle_all': "SELECT sum(host_wait_ns), sum(kernel_wait_gaps) FROM idle_all WHERE stream = '7'"}
            got = {k: [0, 0] for k in q}
            for f in listed:
                db = sqlite3.connect('file:%s?mode=ro' % f, uri=True)
                for k, sql in q.items():
                    row = db.execute(sql).fetchone()
                    got[k] = [got[k][0] + row[0], got[k][1] + row[1]]
                db.close()
            _, t, _ = table('temporal', '--merge', '-c', 'idle,kernel_time', d)
            _, k, _ = table('kernel-types', '--merge', d)
            kt = {r['kernel_type']: int(r['time']) for r in k}
            _, o, _ = table('overlap', '--merge', '-c', 'overlap,comm', d)
            _, i, _ = table('idle', '--merge', '-c', 'stream,category,time,count', d)
            i7 = {r['category']: r for r in i if r['stream'] == '7'}
            want = {'temporal_all': [int(t[0]['idle']), int(t[0]['kernel_time'])],
                    'kernel_types_type': [kt.get('COMPUTATION', 0), kt.get('COMMUNICATION', 0)],
                    'overlap_all': [int(o[0]['overlap']), int(o[0]['comm'])],
                    'idle_all': [int(i7['host_wait']['time']), int(i7['kernel_wait']['count'])]}
            ok('files.dlrm.sql_views', got == want, '%r vs %r' % (got, want))
            rc, out, err = run('temporal', '--merge', '--hta-quirks', sd)
            ok('refuse.options_of_summary', rc == 2 and not out and 'without --hta-quirks' in err, err)
            rc, out, err = run('kernel-types', '--group', 'kernel', '--merge', sd)
            ok('refuse.kernel_types_by_kernel', rc == 2 and not out, err)
            # summarized with TPROF_HTA_QUIRKS=1: the files hold HTA's numbers
            sdq = os.path.join(tmp, 'sumq_' + name)
            e = dict(os.environ, TPROF_HTA_QUIRKS='1')
            subprocess.run([tprof, 'summarize', d, '-o', sdq], capture_output=True, env=e)
            for v in VIEWS:
                a = run(v, '--merge', '--hta-quirks', '--csv', d)
                b = run(v, '--merge', '--hta-quirks', '--csv', sdq)
                ok('files.dlrm.%s.quirks' % v, a[0] == b[0] == 0 and a[1] and a[1] == b[1], '%r vs %r %s' %
                   (a[1][:120], b[1][:120], b[2][:200]))

    # ---- (4) one trace through a summary file = the view of the trace ----
    traces = sorted(os.path.join(dlrm, f) for f in os.listdir(dlrm))[:2] + \
        [os.path.join(hta, 'trace_filter', f) for f in sorted(os.listdir(os.path.join(hta, 'trace_filter')))[:1]]
    for i, f in enumerate(traces):
        sd = os.path.join(tmp, 'one%d' % i)
        run('summarize', f, '-o', sd)
        for v in VIEWS:
            a = run(v, '--csv', f)
            b = run(v, '--merge', '--csv', sd)
            ok('one.%s.%s' % (os.path.basename(f)[:12], v), a[1] and a[1] == b[1] and a[0] == b[0],
               '%r vs %r' % (a[1][:200], b[1][:200]))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
PY
