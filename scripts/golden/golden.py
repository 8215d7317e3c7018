"""golden.py -- what the golden scripts' Python shares (imported, not run).

lib.sh's golden_python runs a script's Python with this folder on
PYTHONPATH, so a script says `from golden import ...`.  Every helper here
only runs tprof or reads reference files; none writes into ../shared."""
import csv, io, json, os, subprocess, sys

COVERAGE = 'of kernel time attributed to operators'

# The reference folders the scripts name, below ../shared/reference.
REF_DIRS = {
    'peers': 'peers',
    'hta': 'peers/hta_data/tests/data',
    'dlrm': 'peers/other_data/facebookresearch-param/et_replay/tests/inputs/dlrm_kineto',
    'tl': 'peers/other_data/AMD-AGI-TraceLens/tests/traces',
    'unit': 'kineto/data/extracted_unit_tests',
    'samples': 'kineto/data/tb_plugin/samples/resnet50_num_workers_0',
    'kineto': 'kineto',
}


def ref_args(*names):
    """(tprof, ref, then the folders names of REF_DIRS below ref): what
    lib.sh's golden_ref_python gives the script (sys.argv[1:3])."""
    tprof, ref = sys.argv[1:3]
    return (tprof, ref) + tuple(os.path.join(ref, REF_DIRS[n]) for n in names)


def without_coverage(stderr):
    """stderr without the coverage line (attribution.sh tests it; it is not the view's note)."""
    return ''.join(l for l in stderr.splitlines(True) if COVERAGE not in l)


def okf(prefix):
    """ok(name, cond, why=''): 'ok PREFIX.name' or 'FAIL PREFIX.name: why'."""
    def ok(name, cond, why=''):
        print(('ok %s.%s' % (prefix, name)) if cond else ('FAIL %s.%s: %s' % (prefix, name, why)))
    return ok


def run_tprof(tprof, *args, env=None):
    """(exit status, stdout, stderr) of `tprof ARGS`."""
    p = subprocess.run([tprof] + list(args), capture_output=True, text=True, env=env)
    return p.returncode, p.stdout, p.stderr


def csv_view(tprof, view, path, *extra, env=None, label=None):
    """(rows as dicts, stderr) of `tprof VIEW --csv EXTRA PATH`; RuntimeError
    on a non-zero exit ("LABEL: exit N: ..." with a label)."""
    p = subprocess.run([tprof, view, '--csv', *extra, path], capture_output=True, text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError('%sexit %d: %s' % (label + ': ' if label else '', p.returncode, p.stderr.strip()[:200]))
    return list(csv.DictReader(io.StringIO(p.stdout))), p.stderr


def attempt(fn, *args):
    """fn(*args): None when the case holds, else why not; an exception is
    the case's failure ("TYPE: what")."""
    try:
        return fn(*args)
    except Exception as ex:
        return '%s: %s' % (type(ex).__name__, ex)


def run_cases(cases, report):
    """Run each (name, fn) of cases (attempt) and report(name, why)."""
    for name, fn in cases:
        report(name, attempt(fn))


def tb_table(exp):
    """The plugin's table in an expected output: (column names, rows)."""
    return [c['name'] for c in exp['data']['columns']], exp['data']['rows']


def plugin_cases(gold, data):
    """The Ascend plugin golden files under gold, sorted: (relative name,
    golden file, its input folder under data)."""
    cases = []
    for root, _, files in os.walk(gold):
        for f in files:
            if f.endswith('.plugin_output.json'):
                gp = os.path.join(root, f)
                rel = os.path.relpath(gp, gold)[: -len('.plugin_output.json')]
                cases.append((rel, gp, os.path.join(data, rel)))
    cases.sort()
    return cases


def tb_expected(k, prefix, files):
    """The TensorBoard plugin's expected outputs under K/expected (files:
    their sorted paths), but the distributed ones and those the plugin fails
    on: (case name PREFIX/BASE, expected json, input path)."""
    for ef in files:
        if ef.endswith('__DISTRIBUTED.expected.json'):
            continue
        with open(ef) as f:
            exp = json.load(f)
        base = os.path.relpath(ef, os.path.join(k, 'expected')).replace('.expected.json', '')
        if 'error' in exp:
            continue   # the plugin fails on this input (SPEC §14.2)
        yield prefix + '/' + base, exp, os.path.join(k, 'data', exp.get('input', ''))


def tprof_views(tprof):
    """The names of the views (and commands) `tprof --help` lists."""
    h = subprocess.run([tprof, '--help'], capture_output=True, text=True)
    return set(l.split()[0] for l in (h.stdout + h.stderr).splitlines() if l.startswith('  ') and l.split())


def print_case(name, why):
    """'ok NAME' when why is empty, else 'FAIL NAME: why'."""
    print('ok %s' % name if not why else 'FAIL %s: %s' % (name, why))


def case(name, fn):
    """Run one case (run_cases) and print it (print_case)."""
    run_cases([(name, fn)], print_case)


def run_clean(tprof, *args, env=None, drop=('TPROF_MERGE_CONCAT',)):
    """(exit status, stdout, stderr) of `tprof ARGS` in this environment
    less the variables in drop (which would change what a view prints),
    plus env."""
    e = dict(os.environ)
    for k in drop:
        e.pop(k, None)
    e.update(env or {})
    p = subprocess.run([tprof] + list(args), capture_output=True, text=True, env=e)
    return p.returncode, p.stdout, p.stderr


def summary_runs(ref, tmp, mixed=False):
    """{name: folder} of the multi-rank reference runs the summary scripts
    merge: param's 8-rank DLRM, HTA's trace_filter, the plugin's ResNet-50
    spans, kineto's docs traces, TraceLens' mi300 folder, and the kineto
    distributed unit tests as runs (folders of links made under tmp); only
    those that are there.  With mixed, also 'mixed': a run of 40 unrelated
    reference traces (ranks from the order, threads that differ)."""
    runs = {'dlrm': os.path.join(ref, REF_DIRS['dlrm']),
            'trace_filter': os.path.join(ref, REF_DIRS['hta'], 'trace_filter'),
            'resnet_spans': os.path.join(ref, REF_DIRS['samples']),
            'docs_traces': os.path.join(ref, 'kineto/data/kineto_docs_traces/docs/traces'),
            'mi300': os.path.join(ref, REF_DIRS['tl'], 'mi300')}
    exp = os.path.join(ref, 'kineto/expected/extracted_unit_tests')
    data = os.path.join(ref, 'kineto/data/extracted_unit_tests')
    for test in ('nccl', 'gloo_gpu', 'gloo_cpu'):
        f = os.path.join(exp, 'test_distributed_%s__DISTRIBUTED.expected.json' % test)
        if not os.path.exists(f):
            continue
        d = os.path.join(tmp, test)
        os.mkdir(d)
        for inp in json.load(open(f))['inputs']:
            src, worker = inp.split(' as ')
            os.symlink(os.path.join(data, src), os.path.join(d, worker + '.pt.trace.json'))
        runs[test] = d
    if mixed:
        runs['mixed'] = link_run(os.path.join(tmp, 'mixed'), reference_traces(
            ref, ('kineto/data', REF_DIRS['hta'], 'peers/other_data/AMD-AGI-TraceLens/tests'), 4000000)[:40])
    return {k: v for k, v in runs.items() if os.path.isdir(v)}


def reference_traces(ref, bases, max_size):
    """The traces (.json, .json.gz; no expected output) under the folders
    bases (below ref) of more than 2000 and less than max_size bytes, sorted."""
    found = []
    for base in bases:
        for root, _, names in os.walk(os.path.join(ref, base)):
            for n in sorted(names):
                p = os.path.join(root, n)
                if n.endswith(('.json', '.json.gz')) and 'expected' not in p and 2000 < os.path.getsize(p) < max_size:
                    found.append(p)
    return sorted(found)


def link_run(folder, paths, prefix='t'):
    """folder made a run of the traces paths (links PREFIX00.pt.trace.json[.gz], ...: ranks from the order)."""
    os.mkdir(folder)
    for i, p in enumerate(paths):
        os.symlink(p, os.path.join(folder, '%s%02d.pt.trace.json%s' % (prefix, i, '.gz' if p.endswith('.gz') else '')))
    return folder
