#!/bin/sh
# Golden tests: `tprof lightning`, the TensorBoard plugin's Lightning view
# (SPEC §10.2), and what Lightning's record_functions change in the op trees.
#
# No real PyTorch Lightning trace exists in ../shared (kineto's tb_plugin
# ships none), so the inputs are hand-made: testdata/lightning.pt.trace.json
# (two steps; "[pl][module]" events as cpu_op, as PyTorch < 1.10 wrote them,
# and as user_annotation, as later versions do; "[pl][profile]" hooks; a
# gpu_user_annotation copy of a module on the GPU timeline; hooks nested
# three deep, one of them overlapping its caller's end) and
# testdata/lightning_stack.pt.trace.json (the same with nn.Module
# python_function events around the Lightning ones, as with_stack gives).
# The expected numbers below were computed by hand from the events (comments)
# and agree with the plugin's own code (torch_tb_profiler 0.4, run on the
# cpu_op form of the trace, which is the only form it reads).
# Prints one "ok NAME" / "FAIL NAME: why" / "skip NAME: why" line per case.
. "$(dirname "$0")/lib.sh"
golden_python lightning "" "./cli/tprof" <<'PY'
import csv, io, json, os, shutil, subprocess, sys, tempfile
from golden import run_cases

TPROF = "./cli/tprof"
L = "testdata/lightning.pt.trace.json"
LS = "testdata/lightning_stack.pt.trace.json"
COLS = "module,id,depth,occurrences,operators,host_total,host_self,dev_total,dev_self"

def report(name, why):
    print("ok lightning.%s" % name if why is None else "FAIL lightning.%s: %s" % (name, why))

def run(view, path, cols=COLS, *extra, env=None):
    p = subprocess.run([TPROF, view, "--csv", "--header", "keys", "-c", cols, *extra, path], capture_output=True,
                       text=True, env=env)
    if p.returncode != 0:
        raise RuntimeError("exit %d: %s" % (p.returncode, p.stderr.strip()[:200]))
    rows = [[r[k] for k in cols.split(",")] for r in csv.DictReader(io.StringIO(p.stdout))]
    return rows, p.stderr

# Lightning modules (µs).  Step 1: layer1 [100,400] holds layer1.0 [110,260]
# (aten::linear [120,220] > aten::addmm, whose launch runs a 50 µs kernel) and
# layer1.1 [270,370] (aten::relu [280,340], a 20 µs kernel); layer2 [450,650]
# holds aten::linear [460,610] (> addmm, a 70 µs kernel) and aten::add_
# [620,640].  Step 2: layer2 [2050,2150] holds aten::linear [2060,2140] (a
# 40 µs kernel).  Host self = span - direct children; device self = the
# direct operators' device time.
LIGHTNING = [
    ["layer1", "0", "0", "1", "0", "300", "50", "70", "0"],        # 300-150-100; its children are modules
    ["  layer1.0", "0", "1", "1", "1", "150", "50", "50", "50"],   # 150-100
    ["  layer1.1", "0", "1", "1", "1", "100", "40", "20", "20"],   # 100-60
    ["layer2", "0", "0", "2", "3", "300", "50", "110", "110"],     # (200-150-20)+(100-80); 70+40
]
# nn.Module python_function events of lightning_stack: Sequential_0 [95,405]
# around layer1, Linear_0 [105,265] around layer1.0, ReLU_0 [268,372] around
# layer1.1, Linear_1 [445,655] and [2045,2155] around layer2 (module id 4
# both times: one tree per step, shown once).  The Module view looks through
# the Lightning nodes: what the plugin shows for the trace without them.
MODULES = [
    ["Linear_1", "4", "0", "2", "3", "320", "70", "110", "110"],       # (210-150-20)+(110-80)
    ["Sequential_0", "1", "0", "1", "0", "310", "46", "70", "0"],      # 310-160-104
    ["  Linear_0", "2", "1", "1", "1", "160", "60", "50", "50"],       # 160-100
    ["  ReLU_0", "3", "1", "1", "1", "104", "44", "20", "20"],         # 104-60
]
# The Operator view: Lightning's events are neither operators nor parents.
OPS = [["aten::addmm", "2", "120", "120", "150", "200"],
       ["aten::linear", "3", "40", "160", "120", "330"],
       ["aten::relu", "1", "20", "20", "50", "60"],
       ["aten::add_", "1", "0", "0", "20", "20"]]
OPCOLS = "name,calls,dev_self,dev_total,host_self,host_total"

def same(got, want):
    return None if got == want else "got %r, want %r" % (got, want)

# Lightning's hooks (--hooks): the call tree of "[pl][profile]" events, the
# plugin's pl_tid2tree (its get_operator_tree gives the same nesting): step
# 1 has run_training_batch [10,910] around training_step [50,700] (around
# the Strategy's [60,690]) and optimizer_step [720,870]; on_train_batch_end
# [905,945] ends after its caller and is left out; step 2 has
# validation_step [2010,2410].  Start is since the trace's first event (0).
HOOKS = [["run_training_batch", "100", "10", "900", "0"],
         ["  [LightningModule]Model.training_step", "100", "50", "650", "1"],
         ["    [Strategy]SingleDeviceStrategy.training_step", "100", "60", "630", "2"],
         ["  optimizer_step", "100", "720", "150", "1"],
         ["[Strategy]SingleDeviceStrategy.validation_step", "100", "2010", "400", "0"]]
HOOKS_TREE = [["run_training_batch", "100.0"],
              ["├─ [LightningModule]Model.training_step", "72.2"],          # 650/900
              ["│  └─ [Strategy]SingleDeviceStrategy.training_step", "70.0"],
              ["└─ optimizer_step", "16.7"],                                # 150/900
              ["[Strategy]SingleDeviceStrategy.validation_step", "100.0"]]

def hooks():
    rows, err = run("lightning", L, "hook,tid,start,duration,depth", "--hooks")
    why = same(rows, HOOKS)
    if why is None and "1 hook call partly inside the call around it left out" not in err:
        why = "no note of the hook left out: %r" % err[:200]
    return why

def hooks_tree():
    env = dict(os.environ, LANG="C.UTF-8", LC_ALL="", LC_CTYPE="")
    return same(run("lightning", L, "hook,share", "--hooks", "--tree", env=env)[0], HOOKS_TREE)

tmp = tempfile.mkdtemp()

def variant(name, fn):
    d = json.load(open(L))
    fn(d)
    p = os.path.join(tmp, name + ".json")
    json.dump(d, open(p, "w"))
    return p

def recat(cat):
    def fn(d):
        for e in d["traceEvents"]:
            if e["name"].startswith("[pl]") and e["cat"] in ("cpu_op", "user_annotation"):
                e["cat"] = cat
    return fn

def no_framework(d):
    d.pop("Framework")

def no_type(d):
    for e in d["traceEvents"]:
        if e["name"] == "[pl][module]torch.nn.modules.linear.Linear: layer2":
            e["name"] = "[pl][module]layer2"

def deep_name(d):
    for e in d["traceEvents"]:
        if e["name"].endswith(": layer1.1"):
            e["name"] = e["name"].replace("layer1.1", "layer1.x.relu")

# layer1.x.relu: its parent would be "layer1.x", which no event names, so it
# is a top-level module (sorted between layer1 and layer2), not layer1's child
DEEP = [LIGHTNING[0], LIGHTNING[1], ["layer1.x.relu", "0", "0"] + LIGHTNING[2][3:], LIGHTNING[3]]
# (the op trees do not change: layer1's numbers stay, as the hierarchy is by name)

def no_hooks(d):
    d["traceEvents"] = [e for e in d["traceEvents"] if not e["name"].startswith("[pl][profile]")]

def empty_views():
    rows, err = run("modules", L)
    if rows or "no nn.Module events" not in err:
        return "modules on a Lightning trace without python_function events: %r %r" % (rows, err[:120])
    rows, err = run("lightning", "testdata/sample.pt.trace.json")
    if rows or "no PyTorch Lightning" not in err:
        return "lightning on a trace without [pl] events: %r %r" % (rows, err[:120])
    rows, err = run("lightning", "testdata/sample.pt.trace.json", "hook", "--hooks")
    if rows or "no PyTorch Lightning \"[pl][profile]\" hook events" not in err:
        return "lightning --hooks on a trace without [pl] events: %r %r" % (rows, err[:120])
    return None

def hooks_change_nothing():
    a = run("ops", L, OPCOLS)[0]
    b = run("ops", variant("nohooks", no_hooks), OPCOLS)[0]
    return same(a, b)

tests = [
    ("table", lambda: same(run("lightning", L)[0], LIGHTNING)),
    ("cpu_op", lambda: same(run("lightning", variant("cpu", recat("cpu_op")))[0], LIGHTNING)),
    ("user_annotation", lambda: same(run("lightning", variant("ua", recat("user_annotation")))[0], LIGHTNING)),
    ("no_framework_key", lambda: same(run("lightning", variant("nofw", no_framework))[0], LIGHTNING)),
    ("name_without_type", lambda: same(run("lightning", variant("notype", no_type))[0], LIGHTNING)),
    ("dotted_parent_absent", lambda: same(run("lightning", variant("deep", deep_name))[0], DEEP)),
    ("ops", lambda: same(run("ops", L, OPCOLS)[0], OPS)),
    ("ops_hooks_out", hooks_change_nothing),
    ("stack.lightning", lambda: same(run("lightning", LS)[0], LIGHTNING)),
    ("stack.modules", lambda: same(run("modules", LS)[0], MODULES)),
    ("stack.ops", lambda: same(run("ops", LS, OPCOLS)[0], OPS)),
    ("empty", empty_views),
    ("hooks", hooks),
    ("hooks_tree", hooks_tree),
    ("hooks_user_annotation", lambda: same(run("lightning", variant("uah", recat("user_annotation")),
                                              "hook,tid,start,duration,depth", "--hooks")[0], HOOKS)),
]
run_cases(tests, report)
shutil.rmtree(tmp)
PY
