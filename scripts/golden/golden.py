"""golden.py -- what the golden scripts' Python shares (imported, not run).

lib.sh's golden_python runs a script's Python with this folder on
PYTHONPATH, so a script says `from golden import ...`.  Every helper here
only runs tprof or reads reference files; none writes into ../shared."""
import csv, io, json, os, subprocess

COVERAGE = 'of kernel time attributed to operators'


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
