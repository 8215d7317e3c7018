#!/bin/sh
# Golden tests of exact mergeable summaries (lib/summary/):
#   - `VIEW --merge RUN` merges the ranks' summaries; on every multi-rank
#     reference run (param's 8-rank DLRM, HTA's trace_filter, the plugin's
#     ResNet-50 spans, kineto's docs traces, TraceLens' mi300 folder, the
#     kineto distributed unit tests as runs, and a run of 40 unrelated
#     reference traces) it prints the bytes the concatenated store prints
#     (TPROF_MERGE_CONCAT=1) for kernels, kernels --group props, ops,
#     ops --group shape, api, labels and memops; on DLRM the props rows are the same set, and the same
#     bytes on its ranks that all launched their kernels inside the profiler
#     (rank 1 and 3's 64 earlier kernels join another rank's thread in the
#     concatenated store, which reorders rows of equal total);
#   - steps --merge: each rank's own step rows, in rank order, and their mean
#     (the concatenated store made one step of a run without ProfilerSteps);
#   - summary files: `tprof summarize RUN -o DIR`, then VIEW --merge DIR (and
#     the files given one by one, in any order) prints what VIEW --merge RUN
#     prints, stdout and stderr, in CSV, JSON lines, -w columns, with --sort,
#     --top and --name; one trace summarized prints what the view prints for it;
#   - tprof diff of two summary sets prints what diff of the two runs prints
#     (table, --summary, the gate's exit status and JUnit report);
#   - the files are SQLite that sqlite3 and Python read (meta, the SQL views);
#   - refusals: a view without summary, --step on summary files, a summary set
#     against a trace, a file that is not a summary.
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
. "$(dirname "$0")/lib.sh"
golden_ref_python golden.summary "$REF/peers/other_data/facebookresearch-param/et_replay/tests/inputs/dlrm_kineto" <<'PY'
import csv, io, json, os, random, shutil, sqlite3, subprocess, sys, tempfile
from functools import partial
from golden import okf, ref_args, run_clean, summary_runs

tprof, ref, dlrm, hta = ref_args('dlrm', 'hta')

ok = okf('golden.summary')

run = partial(run_clean, tprof)

CONCAT = {'TPROF_MERGE_CONCAT': '1'}
VARIANTS = [('kernels',), ('kernels', '--group', 'props'), ('ops',), ('ops', '--group', 'shape'), ('api',), ('labels',),
            ('memops',)]

tmp = tempfile.mkdtemp(prefix='tprof_summary_golden.')
try:
    runs = summary_runs(ref, tmp, mixed=True)

    # ---- --merge by summaries = the concatenated store ----
    for name, d in sorted(runs.items()):
        for v in VARIANTS:
            a = run(*v, '--merge', '--csv', d, env=CONCAT)
            b = run(*v, '--merge', '--csv', d)
            case = '%s.%s' % (name, '_'.join(x.strip('-') for x in v))
            if name == 'dlrm' and 'props' in v:
                ok('concat.' + case + '.same_rows', a[0] == b[0] and sorted(a[1].splitlines()) == sorted(b[1].splitlines())
                   and a[1].count('\n') > 100, '%d vs %d lines' % (a[1].count('\n'), b[1].count('\n')))
                a = run(*v, '--merge', '--rank', '0,2,4-7', '--csv', d, env=CONCAT)
                b = run(*v, '--merge', '--rank', '0,2,4-7', '--csv', d)
                case += '.ranks_inside_profiler'
            if name == 'mixed' and 'props' in v:
                # an MTIA trace's kernels without launch records hang from
                # another rank's tree root in the concatenated store; its
                # own tree reaches none of them
                gone = set(a[1].splitlines()) - set(b[1].splitlines())
                ok('concat.' + case + '.only_other_ranks_roots', a[0] == b[0] and gone and
                   all(',"CallTreeRoot",' in l for l in gone) and set(b[1].splitlines()) <= set(a[1].splitlines()),
                   repr(sorted(gone)[:3]))
                continue
            ok('concat.' + case, a[0] == b[0] and a[1] == b[1] and a[1],
               'exit %d/%d, %d/%d lines' % (a[0], b[0], a[1].count('\n'), b[1].count('\n')))

    # ---- steps --merge: every rank's rows, their mean ----
    for name, d in sorted(runs.items()):
        rc, out, err = run('steps', '--merge', '--csv', '--timeunit', 'ns', '-c', 'step,kernel,cpu,other,total', d)
        rows = list(csv.reader(io.StringIO(out)))[1:]
        rc1, out1, _ = run('steps', '--csv', '--timeunit', 'ns', '-c', 'step,kernel,cpu,other,total', d)
        per = [r for r in list(csv.reader(io.StringIO(out1)))[1:] if r[1] != 'avg']
        steps = [r for r in rows if r[0] != 'avg']
        avg = [r for r in rows if r[0] == 'avg']
        # llround: halves away from zero
        want_avg = [str((2 * sum(int(r[c]) for r in per) + len(per)) // (2 * len(per))) for c in range(2, 6)] if per else []
        ok('steps.%s.every_rank' % name, rc == rc1 and steps == [r[1:] for r in per], '%r vs %r' % (steps[:2], per[:2]))
        ok('steps.%s.mean' % name, not per or (len(avg) == 1 and avg[0][1:] == want_avg), '%r want %r' % (avg, want_avg))

    # ---- summary files ----
    for name in ('dlrm', 'trace_filter', 'nccl', 'mixed'):
        if name not in runs:
            continue
        d, sd = runs[name], os.path.join(tmp, 'sum_' + name)
        rc, out, err = run('summarize', d, '-o', sd)
        files = sorted(os.listdir(sd))
        ok('files.%s.summarize' % name, rc == (2 if name == 'mixed' else 0) and files and
           all(f.endswith('.tpsum') for f in files), 'exit %d: %s %r' % (rc, err[:300], files[:3]))
        for v in VARIANTS + [('steps',)]:
            case = '%s.%s' % (name, '_'.join(x.strip('-') for x in v))
            a = run(*v, '--merge', '--csv', d)
            b = run(*v, '--merge', '--csv', sd)
            # the mixed run's unreadable and doubly claimed ranks were said
            # (exit 2) by summarize, which left them out
            same_err = (a[2] == b[2] and a[0] == b[0]) or name == 'mixed'
            ok('files.' + case, a[1] == b[1] and same_err,
               'exit %d/%d, stderr %r vs %r' % (a[0], b[0], a[2][:200], b[2][:200]))
        listed = [os.path.join(sd, f) for f in files]
        random.Random(7).shuffle(listed)
        a = run('kernels', '--merge', '--csv', d)
        b = run('kernels', '--merge', '--csv', *listed)
        ok('files.%s.listed_in_any_order' % name, a[1] == b[1] and (a[0] == b[0] or name == 'mixed'),
       'exit %d/%d' % (a[0], b[0]))
    d, sd = dlrm, os.path.join(tmp, 'sum_dlrm')
    for opts in (['--jsonl'], ['-w', '120'], ['--sort', 'calls', '--top', '5', '--csv'], ['--name', 'nccl', '--csv'],
                 ['--timeunit', 'ms', '--header', 'keys', '--csv'], ['-c', 'name,median,std', '--markdown']):
        a = run('kernels', '--merge', *opts, d)
        b = run('kernels', '--merge', *opts, sd)
        ok('files.format.%s' % '_'.join(o.strip('-') for o in opts), a == b and a[1], repr(b[2][:200]))
    one = os.path.join(dlrm, sorted(os.listdir(dlrm))[3])
    sone = os.path.join(tmp, 'sum_one')
    rc, _, err = run('summarize', one, '-o', sone)
    for v in VARIANTS + [('steps',)]:
        a = run(*v, '--csv', one)
        b = run(*v, '--merge', '--csv', sone)
        ok('files.one_trace.%s' % '_'.join(x.strip('-') for x in v), rc == 0 and a[1] == b[1] and a[0] == b[0],
           'exit %d/%d' % (a[0], b[0]))

    # ---- diff of two summary sets ----
    A, B = os.path.join(hta, 'trace_compare/base'), os.path.join(hta, 'trace_compare/test')
    pairs = [(A, B), (dlrm, os.path.join(hta, 'trace_filter'))]
    for i, (a_dir, b_dir) in enumerate(pairs):
        sa, sb = os.path.join(tmp, 'da%d' % i), os.path.join(tmp, 'db%d' % i)
        run('summarize', a_dir, '-o', sa)
        run('summarize', b_dir, '-o', sb)
        for opts in ([], ['--summary'], ['--fail-above', '1%'], ['--fail-above', '1000%']):
            x = run('diff', '--csv', *opts, a_dir, b_dir)
            y = run('diff', '--csv', *opts, sa, sb)
            ok('diff.%d.%s' % (i, '_'.join(o.strip('-%') for o in opts) or 'table'), x == y and x[1],
               'exit %d/%d: %r' % (x[0], y[0], y[2][:200]))
        ja, jb = os.path.join(tmp, 'a.xml'), os.path.join(tmp, 'b.xml')
        x = run('diff', '--fail-above', '1%', '--junit', ja, a_dir, b_dir)
        y = run('diff', '--fail-above', '1%', '--junit', jb, sa, sb)
        xa = open(ja).read().replace(a_dir, 'A').replace(b_dir, 'B')
        xb = open(jb).read().replace(sa, 'A').replace(sb, 'B')
        ok('diff.%d.junit' % i, x[0] == y[0] and xa == xb and '<testsuite' in xa, 'exit %d/%d' % (x[0], y[0]))
    rcs = [run('diff', '--fail-above', '1%', os.path.join(tmp, 'da1'), os.path.join(tmp, 'db1'))[0],
           run('diff', '--fail-above', '1%', os.path.join(tmp, 'db1'), os.path.join(tmp, 'da1'))[0]]
    ok('diff.gate_fires', 1 in rcs, repr(rcs))

    # ---- the files as SQLite ----
    f = os.path.join(sd, sorted(os.listdir(sd))[0])
    con = sqlite3.connect('file:%s?mode=ro' % f, uri=True)
    meta = dict(con.execute('SELECT key, value FROM meta'))
    ok('sqlite.meta', meta.get('rank') == 0 and meta.get('world_size') == 8 and meta.get('format_version') == 1
       and meta.get('source', '').endswith('.pt.trace.json') and meta.get('source_size') == os.path.getsize(meta['source'])
       and meta.get('tprof_version') and 'host' in meta, repr(meta))
    import zlib
    ok('sqlite.crc32', meta.get('source_crc32') == zlib.crc32(open(meta['source'], 'rb').read()), repr(meta))
    rows = con.execute('SELECT name, count, sum_ns FROM kernels_name ORDER BY sum_ns DESC LIMIT 3').fetchall()
    _, out, _ = run('kernels', '--csv', '--timeunit', 'ns', '-c', 'name,calls,total', meta['source'])
    want = [(r[0], int(r[1]), int(r[2])) for r in list(csv.reader(io.StringIO(out)))[1:4]]
    ok('sqlite.kernels_view', rows == want, '%r vs %r' % (rows, want))
    n = con.execute("SELECT sum(d.count) FROM durations d JOIN sections s USING(section) "
                    "WHERE s.view = 'kernels' AND s.variant = 'name'").fetchone()[0]
    ok('sqlite.multiset_counts', n == sum(r[1] for r in con.execute('SELECT name, count FROM kernels_name')), repr(n))
    con.close()
    if shutil.which('sqlite3'):
        p = subprocess.run(['sqlite3', '-readonly', f, 'SELECT count(*) FROM ops_name;'], capture_output=True, text=True)
        ok('sqlite.cli', p.returncode == 0 and int(p.stdout) > 0, p.stderr)
    else:
        print('skip golden.summary.sqlite.cli: sqlite3 not installed')

    # ---- refusals ----
    rc, out, err = run('queue', '--merge', sd)
    ok('refuse.view_without_summary', rc == 2 and 'summary files hold' in err and not out, err)
    rc, out, err = run('kernels', '--merge', '--step', '10', sd)
    ok('refuse.step_on_summaries', rc == 2 and '--step' in err and not out, err)
    rc, out, err = run('diff', sd, one)
    ok('refuse.summaries_against_trace', rc == 2 and 'two summary sets' in err, err)
    bad = os.path.join(tmp, 'bad')
    os.mkdir(bad)
    sqlite3.connect(os.path.join(bad, 'x.tpsum')).execute('CREATE TABLE t(a)').connection.commit()
    rc, out, err = run('kernels', '--merge', bad)
    ok('refuse.not_a_summary', rc == 2 and 'not a tprof summary file' in err, err)
    rc, out, err = run('kernels', sd)
    ok('refuse.summary_without_merge', rc == 2 and '--merge' in err, err)
    leftovers = [p for p in os.listdir(sd) if not p.endswith('.tpsum')]
    ok('files.nothing_else_written', not leftovers, repr(leftovers))
finally:
    shutil.rmtree(tmp, ignore_errors=True)
PY
