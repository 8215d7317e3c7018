#!/bin/sh
# Golden tests of `tprof dist` (the TensorBoard plugin's Distributed view):
#   - the plugin's own outputs for its three two-worker test pairs
#     (../shared/reference/kineto/expected/extracted_unit_tests/*__DISTRIBUTED
#     .expected.json; inputs symlinked into a run directory under /tmp as
#     worker0/worker1): the Computation/Communication overview per step and
#     'all', the Synchronizing/Communication (transfer, sync) numbers, and the
#     communication ops table (the plugin rounds the per-call averages to whole
#     µs; tprof keeps the ns, so those are compared after rounding);
#   - every overview row's four parts sum to its total;
#   - a single file is a run of one rank; --merge averages the ranks per step;
#   - real multi-rank runs (param's 8-rank DLRM, HTA's sampled rank 0/1 pair)
#     and a TraceLens single rank: ranks from the names / distributedInfo,
#     parts sum to totals, every transfer <= its latency, nothing negative.
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
REF=${REF:-$top/../shared/reference}
exp=$REF/kineto/expected/extracted_unit_tests
if [ ! -f "$exp/test_distributed_nccl__DISTRIBUTED.expected.json" ]; then
    echo "skip golden.dist: $exp is missing"
    exit 0
fi
. "$(dirname "$0")/lib.sh"
golden_python golden.dist "" "$top/cli/tprof" "$top/cli/tprof" "$REF" <<'PY'
import csv, io, json, os, shutil, subprocess, sys, tempfile
from golden import okf, without_coverage
from decimal import Decimal, ROUND_HALF_EVEN

tprof, ref = sys.argv[1:3]
exp = os.path.join(ref, 'kineto/expected/extracted_unit_tests')
data = os.path.join(ref, 'kineto/data/extracted_unit_tests')

ok = okf('golden.dist')

def run(*args):
    p = subprocess.run([tprof, 'dist', '--csv'] + list(args), capture_output=True, text=True)
    return p.returncode, list(csv.DictReader(io.StringIO(p.stdout))), without_coverage(p.stderr)

def D(s):
    return Decimal(s) if s not in ('-', '') else None

def rnd(s):
    return int(D(s).to_integral_value(ROUND_HALF_EVEN))

PARTS = ['Computation(us)', 'Overlap(us)', 'Communication(us)', 'Other(us)']

def sums_ok(rows):
    return all(sum(D(r[c]) for c in PARTS) == D(r['Total(us)']) for r in rows)

tmp = tempfile.mkdtemp(prefix='tprof_dist_golden.')
try:
    for test in ('nccl', 'gloo_gpu', 'gloo_cpu'):
        e = json.load(open(os.path.join(exp, 'test_distributed_%s__DISTRIBUTED.expected.json' % test)))
        d = os.path.join(tmp, test)
        os.mkdir(d)
        for inp in e['inputs']:
            src, worker = inp.split(' as ')
            os.symlink(os.path.join(data, src), os.path.join(d, worker + '.pt.trace.json'))
        rc, rows, err = run(d)
        ok('%s.exit0' % test, rc == 0 and err == '', 'exit %d: %s' % (rc, err.strip()))
        ok('%s.sum_rule' % test, sums_ok(rows), repr(rows))
        got = {}
        for r in rows:
            step = 'all' if r['Step'] == 'avg' else r['Step']
            got.setdefault(step, {})[r['Worker']] = [rnd(r[c]) for c in PARTS]
        ok('%s.overlap' % test, got == e['overlap']['data'],
           'got %r, want %r' % (got, e['overlap']['data']))
        ok('%s.ranks_from_names' % test, [r['Rank'] for r in rows] == ['0', '0', '1', '1'],
           repr([r['Rank'] for r in rows]))
        wait = {}
        for r in rows:
            step = 'all' if r['Step'] == 'avg' else r['Step']
            wait.setdefault(step, {})[r['Worker']] = [rnd(r['Transfer(us)']), rnd(r['Sync(us)'])]
        ok('%s.wait' % test, wait == e['wait']['data'], 'got %r, want %r' % (wait, e['wait']['data']))

        rc, rows, err = run('--comm', d)
        ok('%s.comm.exit0' % test, rc == 0 and err == '', 'exit %d: %s' % (rc, err.strip()))
        ops = {}
        exact = True
        for r in rows:
            ops.setdefault(r['Worker'], []).append(
                [r['Op'], int(r['Calls']), int(r['Size(B)']), int(r['AvgSize(B)']),
                 rnd(r['Latency(us)']), rnd(r['AvgLatency(us)']), rnd(r['Transfer(us)']),
                 rnd(r['AvgTransfer(us)'])])
            exact &= D(r['Latency(us)']) == rnd(r['Latency(us)']) and \
                D(r['Transfer(us)']) == rnd(r['Transfer(us)'])
        want = {w: v['rows'] for w, v in e['comm_ops']['data'].items()}
        ok('%s.comm_ops' % test, ops == want, 'got %r, want %r' % (ops, want))
        ok('%s.comm_totals_exact' % test, exact, 'latency/transfer not whole µs')

    # ---- a single file is a run of one rank ----
    one = os.path.join(tmp, 'nccl', 'worker0.pt.trace.json')
    rc, rows, err = run(one)
    ok('single_file.exit0', rc == 0, 'exit %d: %s' % (rc, err.strip()))
    ok('single_file.overview', [[rnd(r[c]) for c in PARTS] for r in rows] == [[30, 75, 75, 55]] * 2
       and rows[0]['Worker'] == 'worker0', repr(rows))
    ok('single_file.transfer_is_all', rows and D(rows[0]['Sync(us)']) == 0
       and D(rows[0]['Transfer(us)']) == 1633, repr(rows))

    # ---- sizes (Input Dims x element size of Input type) and latency on a
    # synthetic trace: half 2 bytes, an empty shape 0, double 0 (the plugin's
    # table), a type list shorter than the dims (a crash in the plugin) 0 for
    # the missing type; a kernel launched by the op (External id) is part of
    # its latency; a compute kernel overlapping communication: computation
    # (50,150) and communication (10,75)+(100,110)+(200,210) overlap 35 µs;
    # NCCL and Gloo together clear the communication data ----
    def ev(name, ts, dur, ext, dims=None, types=None, cat='cpu_op', tid=1):
        a = {'External id': ext}
        if dims is not None:
            a['Input Dims'] = dims
            a['Input type'] = types
        return {'ph': 'X', 'cat': cat, 'name': name, 'pid': 1, 'tid': tid, 'ts': ts, 'dur': dur, 'args': a}
    evs = [ev('ProfilerStep#1', 0, 1000, 9, cat='user_annotation'),
           ev('nccl:all_reduce', 10, 20, 1, [[2, 3], []], ['c10::Half', 'Int']),
           {'ph': 'X', 'cat': 'kernel', 'name': 'ncclKernel_AllReduce', 'pid': 0, 'tid': 7, 'ts': 25, 'dur': 50,
            'args': {'External id': 1, 'device': 0, 'stream': 7}},
           {'ph': 'X', 'cat': 'kernel', 'name': 'gemm', 'pid': 0, 'tid': 8, 'ts': 50, 'dur': 100,
            'args': {'External id': 5, 'device': 0, 'stream': 8}},
           ev('nccl:broadcast', 100, 10, 2, [[4]], ['double']),
           ev('nccl:reduce', 200, 10, 3, [[5], [6]], ['float'])]
    syn = os.path.join(tmp, 'syn.pt.trace.json')
    json.dump({'traceEvents': evs}, open(syn, 'w'))
    rc, rows, err = run('--comm', syn)
    got = [(r['Op'], r['Calls'], r['Size(B)'], r['Latency(us)']) for r in rows]
    ok('synthetic.sizes_latency', rc == 0 and got == [('nccl:all_reduce', '1', '12', '65'),
                                                     ('nccl:broadcast', '1', '0', '10'),
                                                     ('nccl:reduce', '1', '20', '10')], repr(got))
    rc, rows, err = run(syn)
    ok('synthetic.overview', rc == 0 and [[D(r[c]) for c in PARTS + ['Total(us)']] for r in rows][:1] ==
       [[65, 35, 50, 850, 1000]], repr(rows[:1]))
    evs.append(ev('gloo:broadcast', 300, 10, 4, [[1]], ['float']))
    json.dump({'traceEvents': evs}, open(syn, 'w'))
    rc, rows, err = run('--comm', syn)
    ok('synthetic.nccl_and_gloo_cleared', rc == 0 and rows == [], repr(rows))

    # ---- --merge: per step, the mean over the ranks ----
    rc, rows, err = run('--merge', os.path.join(tmp, 'gloo_gpu'))
    ok('merge.exit0', rc == 0, 'exit %d: %s' % (rc, err.strip()))
    want = [[Decimal(31 + 16) / 2, Decimal(70 + 54) / 2, Decimal(39 + 44) / 2, Decimal(16 + 32) / 2]] * 2
    ok('merge.mean_of_ranks', [[D(r[c]) for c in PARTS] for r in rows] == want
       and [r['Rank'] for r in rows] == ['all', 'all'] and [r['Step'] for r in rows] == ['0', 'avg'],
       repr(rows))
    rc, rows, err = run('--merge', '--comm', os.path.join(tmp, 'gloo_gpu'))
    ok('merge.comm_sums', [(r['Op'], r['Calls'], r['Latency(us)']) for r in rows] ==
       [('gloo:broadcast', '6', '107'), ('gloo:all_reduce', '4', '100')], repr(rows))

    # ---- real multi-rank runs ----
    def sane(name, d, nranks, ranks=None):
        if not os.path.exists(d):
            print('skip golden.dist.%s: %s is missing' % (name, d))
            return
        rc, rows, err = run(d)
        ok('%s.exit0' % name, rc == 0, 'exit %d: %s' % (rc, err.strip()))
        got = sorted({r['Rank'] for r in rows}, key=int)
        ok('%s.ranks' % name, got == (ranks or [str(i) for i in range(nranks)]), repr(got))
        ok('%s.sum_rule' % name, sums_ok(rows), 'a row whose parts do not sum to its total')
        ok('%s.nonnegative' % name, all(D(r[c]) is None or D(r[c]) >= 0 for r in rows
                                         for c in PARTS + ['Total(us)', 'Transfer(us)', 'Sync(us)']),
           'negative value')
        rc, crows, err = run('--comm', d)
        ok('%s.comm.transfer_le_latency' % name, rc == 0 and crows and
           all(D(r['Transfer(us)']) is None or D(r['Transfer(us)']) <= D(r['Latency(us)']) for r in crows),
           'exit %d %r' % (rc, crows[:3]))
        return rows, crows

    peers = os.path.join(ref, 'peers')
    dlrm = os.path.join(peers, 'other_data/facebookresearch-param/et_replay/tests/inputs/dlrm_kineto')
    res = sane('param_dlrm', dlrm, 8)
    if res:
        rows, crows = res
        # every rank calls the same collectives: the transfer per op is the same on all ranks
        xs = {r['Transfer(us)'] for r in crows}
        ok('param_dlrm.transfer_same_all_ranks', len(xs) == 1 and len(crows) == 8, repr(crows))
    hta = os.path.join(peers, 'hta_data/tests/data/trace_filter')
    res = sane('hta_trace_filter', hta, 2)
    if res:
        rows, _ = res
        ok('hta_trace_filter.steps', [r['Step'] for r in rows] == ['551', '552', 'avg'] * 2,
           repr([r['Step'] for r in rows]))
    # ranks whose communication ops do not line up (the plugin then shows no
    # distributed view): the overview still, transfer/sync empty, a note
    mixed = os.path.join(tmp, 'mixed')
    cpu = os.path.join(peers, 'hta_data/tests/data/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz')
    if os.path.exists(cpu):
        os.mkdir(mixed)
        os.symlink(os.path.join(hta, 'sampled_rank-0.json.gz'), os.path.join(mixed, 'gpu.json.gz'))
        os.symlink(cpu, os.path.join(mixed, 'cpu.json.gz'))
        rc, rows, err = run(mixed)
        ok('unaligned.exit0', rc == 0 and {r['Rank'] for r in rows} == {'0', '34'}, 'exit %d: %s' % (rc, err.strip()))
        ok('unaligned.no_transfer', all(r['Transfer(us)'] == '-' and r['Sync(us)'] == '-' for r in rows) and
           sums_ok(rows), repr(rows[:2]))
        ok('unaligned.note', 'no transfer/sync times: rank 0 has 4 communication ops, rank 34 has 10' in err,
           err.strip())
    tl = os.path.join(peers, 'other_data/AMD-AGI-TraceLens/tests/traces/mi300/resnet_act_checkpoint.json.gz')
    if os.path.exists(tl):
        rc, rows, err = run(tl)
        ok('tracelens_single.exit0', rc == 0 and len(rows) == 4, 'exit %d: %s' % (rc, err.strip()))
        ok('tracelens_single.sum_rule', sums_ok(rows), repr(rows))

    # ---- the avg row rounds its total as `steps` does (it truncated each part
    # and summed them: 177592.166 where steps says 177592.167), and its parts
    # still sum to it ----
    rn = os.path.join(ref, 'kineto/data/tb_plugin/samples/resnet50_num_workers_0/'
                      'worker0.1623143089861.pt.trace.json.gz')
    if os.path.exists(rn):
        rc, rows, err = run(rn)
        p = subprocess.run([tprof, 'steps', '--csv', rn], capture_output=True, text=True)
        srows = list(csv.DictReader(io.StringIO(p.stdout)))
        got = [r['Total(us)'] for r in rows if r['Step'] == 'avg']
        want = [r['Total(us)'] for r in srows if r['Step'] == 'avg']
        ok('avg_total_as_steps', rc == 0 and got == want and want == ['177592.167'],
           'dist %r, steps %r' % (got, want))
        ok('avg_parts_sum', sums_ok(rows), repr([r for r in rows if r['Step'] == 'avg']))
    else:
        print('skip golden.dist.avg_total_as_steps: %s is missing' % rn)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
PY
