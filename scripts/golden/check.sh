#!/bin/sh
# Golden tests of `tprof check` (man tprof: CHECK): each finding on a real
# trace from ../shared/reference or on a minimally edited copy of one (a
# kernel deleted to simulate CUPTI loss, the file cut, a kernel moved onto its
# predecessor, a rank's clock shifted, distributedInfo removed), with its
# severity and the exit status: 0 when only info, 1 with warnings, 2 with
# errors.  Copies go to a mktemp folder; ../shared is never written.
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
. "$(dirname "$0")/lib.sh"
golden_ref_python golden.check "$REF/peers/hta_data/tests/data" <<'PY'
import copy, csv, gzip, io, json, os, shutil, subprocess, sys, tempfile
from golden import print_case, ref_args

tprof, ref, hta, tl, unit = ref_args('hta', 'tl', 'unit')
bert = os.path.join(tl, 'mi300/gaunernst_bert-small-uncased__1016001.json.gz')

def ok(name, why):
    """why: '' (or None) when the case holds, else what went wrong."""
    print_case('golden.check.' + name, why)

def check(path, *extra):
    p = subprocess.run([tprof, 'check', '--csv', '-c',
                        'rank,severity,finding,count,first_ts,first_byte,first_event,detail'] + list(extra) + [path],
                       capture_output=True, text=True)
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    return p.returncode, {r['Finding']: r for r in rows}, rows, p.stderr

def expect(name, path, want_rc, finding, severity, count=None, also=None):
    """Run check on path: exit want_rc, a row `finding` with `severity` and
    (when given) `count`; also(row, rows) for more, returning why or ''."""
    if not os.path.exists(path):
        print('skip golden.check.%s: %s is missing' % (name, path))
        return
    try:
        rc, by, rows, err = check(path)
        r = by.get(finding)
        if rc != want_rc:
            why = 'exit %d, want %d (%s) %s' % (rc, want_rc, [x['Finding'] for x in rows], err.strip()[:200])
        elif r is None:
            why = 'no %s row in %s' % (finding, [x['Finding'] for x in rows])
        elif r['Severity'] != severity:
            why = '%s is %s, want %s' % (finding, r['Severity'], severity)
        elif count is not None and r['Count'] != str(count):
            why = '%s count %s, want %s' % (finding, r['Count'], count)
        else:
            why = also(r, rows) if also else ''
    except Exception as e:   # a crash of the test is a failure of the case
        why = '%s: %s' % (type(e).__name__, e)
    ok(name, why)

def load(path):
    op = gzip.open if path.endswith('.gz') else open
    with op(path, 'rt') as f:
        return json.load(f)

def save(doc, name):
    p = os.path.join(tmp, name)
    with open(p, 'w') as f:
        json.dump(doc, f)
    return p

def fmt_us(x):
    """A trace ts (µs, float) as tprof prints it (exact to the ns)."""
    s = '%.3f' % x
    return s.rstrip('0').rstrip('.')

def kernels(doc):
    """The kernels of the (single-stream) bert trace in start order."""
    return sorted((e for e in doc['traceEvents'] if e.get('cat') == 'kernel'), key=lambda e: e['ts'])

tmp = tempfile.mkdtemp(prefix='tprof_check_golden.')
try:
    have_bert = os.path.exists(bert)
    # ---- clean: the real trace, and the exit status of info-only findings ----
    expect('clean.exit0', bert, 0, 'clean', 'info', 0,
           lambda r, rows: '' if len(rows) == 1 else 'more rows: %s' % [x['Finding'] for x in rows])
    expect('clean.triton', os.path.join(hta, 'triton_example/triton_example.json.gz'), 0, 'clean', 'info')
    # copy_missing is info: a real trace whose only finding it is exits 0
    expect('copy_missing.info_exit0', os.path.join(hta, 'ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz'),
           0, 'copy_missing', 'info', 235,
           lambda r, rows: '' if r['FirstEvent'] == 'cudaMemsetAsync' and len(rows) == 1 else repr(rows))
    # whole-µs timestamps (an older kineto), a real two-rank run
    expect('us_timestamps', os.path.join(hta, 'trace_filter/sampled_rank-0.json.gz'), 0, 'us_timestamps', 'info', 1204)

    if have_bert:
        doc = load(bert)
        ks = kernels(doc)
        # a kernel with room around it: long enough to move, a gap after it
        i = next(j for j in range(5, len(ks) - 1)
                 if ks[j]['dur'] > 5 and ks[j - 1]['dur'] > 4 and
                 ks[j + 1]['ts'] - (ks[j]['ts'] + ks[j]['dur']) > 3)
        prev, k, nxt = ks[i - 1], ks[i], ks[i + 1]
        prev_end = prev['ts'] + prev['dur']
        runtime = next(e for e in doc['traceEvents'] if e.get('cat') == 'cuda_runtime' and
                       e.get('args', {}).get('correlation') == k['args']['correlation'])

        # ---- CUPTI loss: one kernel deleted (warning), a fifth deleted (error) ----
        d = copy.deepcopy(doc)
        d['traceEvents'] = [e for e in d['traceEvents'] if e is not None and
                            not (e.get('cat') == 'kernel' and e['args']['correlation'] == k['args']['correlation'])]
        p = save(d, 'lost1.json')
        expect('kernel_missing.warning', p, 1, 'kernel_missing', 'warning', 1,
               lambda r, rows: '' if (r['FirstEvent'], r['FirstTs(us)']) == (runtime['name'], fmt_us(runtime['ts']))
               else 'first %s at %s, want %s at %s' % (r['FirstEvent'], r['FirstTs(us)'], runtime['name'],
                                                     fmt_us(runtime['ts'])))
        lost = {e['args']['correlation'] for e in ks[::5]}
        d = copy.deepcopy(doc)
        d['traceEvents'] = [e for e in d['traceEvents'] if not (e.get('cat') == 'kernel' and
                                                                e['args']['correlation'] in lost)]
        expect('kernel_missing.error', save(d, 'lost5.json'), 2, 'kernel_missing', 'error', len(lost))

        # ---- the last three kernels never recorded (the profiler stopped first): info ----
        tail = {e['args']['correlation'] for e in ks[-3:]}
        d = copy.deepcopy(doc)
        d['traceEvents'] = [e for e in d['traceEvents'] if not (e.get('cat') == 'kernel' and
                                                                e['args']['correlation'] in tail)]
        expect('launch_at_end', save(d, 'tail.json'), 0, 'launch_at_end', 'info', 3,
               lambda r, rows: '' if 'kernel_missing' not in [x['Finding'] for x in rows] else repr(rows))

        # ---- a kernel moved 3 µs onto its predecessor: stream_overlap ----
        d = copy.deepcopy(doc)
        kk = kernels(d)[i]
        kk['ts'] = round(prev_end - 3, 3)
        expect('stream_overlap', save(d, 'overlap.json'), 1, 'stream_overlap', 'warning', 1,
               lambda r, rows: '' if r['FirstEvent'] == prev['name'] and 'worst 3.000 us' in r['Detail']
               else repr(r))
        # ---- 0.4 µs: rounding, info only (exit 0) ----
        d = copy.deepcopy(doc)
        kernels(d)[i]['ts'] = round(prev_end - 0.4, 3)
        expect('rounding_overlap', save(d, 'rounding.json'), 0, 'rounding_overlap', 'info', 1,
               lambda r, rows: '' if 'worst 0.400 us' in r['Detail'] else r['Detail'])
        # ---- the predecessor's dur runs 2 µs past the kernel's end: dur_past_next, once per
        # event it covers (the kernel, and a copy in between on this trace) ----
        d = copy.deepcopy(doc)
        kp = kernels(d)[i - 1]
        kp['dur'] = round(k['ts'] + k['dur'] + 2 - kp['ts'], 3)
        covered = sum(1 for e in doc['traceEvents'] if e.get('cat') in ('kernel', 'gpu_memcpy', 'gpu_memset') and
                      prev['ts'] < e['ts'] < kp['ts'] + kp['dur'])
        expect('dur_past_next', save(d, 'past.json'), 1, 'dur_past_next', 'warning', covered,
               lambda r, rows: ('' if r['FirstEvent'] == prev['name'] and covered >= 1 and
                                'stream_overlap' not in [x['Finding'] for x in rows] else repr(rows)))

        # ---- a cut file: error, exit 2 ----
        text = json.dumps(doc)
        p = os.path.join(tmp, 'cut.json')
        with open(p, 'w') as f:
            f.write(text[:len(text) * 2 // 3])
        expect('truncated', p, 2, 'truncated', 'error', 1)
        # ---- a malformed event (dur is text): error, exit 2, its byte named ----
        d = copy.deepcopy(doc)
        kernels(d)[i]['dur'] = 'abc'
        p = save(d, 'bad.json')
        with open(p) as f:
            body = f.read()
        expect('malformed', p, 2, 'malformed', 'error', 1,
               lambda r, rows: '' if r['FirstByte'] not in ('', '-') and
               0 < int(r['FirstByte']) < len(body) and '"dur"' in r['Detail'] else repr(r))

        # ---- a kernel launched outside every operator and one without its launch call ----
        d = copy.deepcopy(doc)
        d['traceEvents'] = [e for e in d['traceEvents'] if e is not None and not
                            (e.get('cat') == 'cuda_runtime' and e.get('args', {}).get('correlation') ==
                             k['args']['correlation'])]
        share = 100 * k['dur'] / sum(e['dur'] for e in ks)   # more than 5 %: a warning
        expect('unattributed.no_launch', save(d, 'nolaunch.json'), 1 if share > 5 else 0, 'unattributed.no_launch',
               'warning' if share > 5 else 'info', 1,
               lambda r, rows: '' if r['FirstEvent'] == k['name'] else r['FirstEvent'])
    else:
        print('skip golden.check.edits: %s is missing' % bert)

    # ---- real traces: attribution, steps, graphs, distributedInfo ----
    expect('unattributed.no_operator', os.path.join(unit, 'test_top_level_runtime__json_content__L347.pt.trace.json'),
           1, 'unattributed.no_operator', 'warning', 1)
    expect('unattributed.no_launch.warning', os.path.join(unit, 'test_last_steps_no_kernel__json_content__L831.pt.trace.json'),
           1, 'unattributed.no_launch', 'warning', 1)
    expect('step_without_gpu', os.path.join(unit, 'test_last_steps_no_kernel__json_content__L831.pt.trace.json'),
           1, 'step_without_gpu', 'warning', 2)
    expect('no_gpu_activity', os.path.join(unit, 'test_pure_cpu__json_content__L885.pt.trace.json'),
           0, 'no_gpu_activity', 'info')
    vllm = os.path.join(tl, 'inference/vllm_decode_full/graph_execution.json.gz')
    expect('graph_replay', vllm, 1, 'graph_replay', 'warning', 421,
           lambda r, rows: '' if 'hipGraphLaunch' in r['Detail'] and '97.3%' in r['Detail'] else r['Detail'])
    expect('no_distributed_info.file', os.path.join(unit, 'test_distributed_nccl__json_content0__L2033.pt.trace.json'),
           1, 'no_distributed_info', 'warning', 1)

    # ---- runs: clocks and distributedInfo between ranks ----
    run_src = os.path.join(hta, 'trace_filter')
    if os.path.isdir(run_src):
        rc, by, rows, err = check(run_src)
        ok('run.real_no_skew', '' if rc == 0 and 'clock_skew' not in by and
           sorted({x['Rank'] for x in rows}) == ['0', '1'] else 'exit %d %s' % (rc, rows))
        r1 = load(os.path.join(run_src, 'sampled_rank-1.json.gz'))
        for e in r1['traceEvents']:
            if 'ts' in e and e.get('ph') != 'M':
                e['ts'] += 5000000   # 5 s later: far more than a 0.6 s step
        run = os.path.join(tmp, 'run_skew')
        os.mkdir(run)
        shutil.copy(os.path.join(run_src, 'sampled_rank-0.json.gz'), run)
        save(r1, 'run_skew/sampled_rank-1.json')
        expect('clock_skew', run, 1, 'clock_skew', 'warning', 2,
               lambda r, rows: '' if r['Rank'] == '1' and r['FirstEvent'] == 'ProfilerStep#551' and
               'starts 5000.' in r['Detail'] else repr(r))
        r1 = load(os.path.join(run_src, 'sampled_rank-1.json.gz'))
        del r1['distributedInfo']
        run = os.path.join(tmp, 'run_nodist')
        os.mkdir(run)
        shutil.copy(os.path.join(run_src, 'sampled_rank-0.json.gz'), run)
        save(r1, 'run_nodist/sampled_rank-1.json')
        expect('no_distributed_info.run', run, 1, 'no_distributed_info', 'warning', 1,
               lambda r, rows: '' if r['Rank'] == '1' and
               sum(x['Finding'] == 'no_distributed_info' for x in rows) == 1 else repr(rows))
    else:
        print('skip golden.check.run: %s is missing' % run_src)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
PY
