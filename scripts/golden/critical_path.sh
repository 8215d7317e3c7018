#!/bin/sh
# Golden tests: `tprof critical-path` against the numbers Holistic Trace
# Analysis' tests/test_critical_path_analysis.py asserts on its
# critical_path/simple_add trace (annotation
# [param|pytorch.model.alex_net|0|0|0|measure|forward], instance 1):
# 315 nodes on the critical path, 159 events marked critical, 314 critical
# edges of which 21 are of the types HTA draws by default (dependency,
# kernel launch, sync; zero-weight launch edges left out).  The graph-level
# assertions (node ids, edge weights) are in lib/critical_path_test.c.
# Independent checks: the summary adds up to the --path listing and to the
# path length; --step, --annotation and a run directory choose windows.
# Prints one "ok NAME" / "FAIL NAME: why" / "skip NAME: why" line per case.
REF=${REF:-../shared/reference}
D="$REF/peers/hta_data/tests/data/critical_path"
if [ ! -d "$D" ]; then
    echo "skip critical_path: $D not found"
    exit 0
fi
if [ ! -x ./cli/tprof ] || ! command -v python3 >/dev/null 2>&1; then
    echo "skip critical_path: ./cli/tprof or python3 missing"
    exit 0
fi
exec python3 - "$D" <<'PY'
import json, os, re, shutil, subprocess, sys, tempfile

D = sys.argv[1]
ANN = "[param|pytorch.model.alex_net|0|0|0|measure|forward]"
SIMPLE = os.path.join(D, "simple_add", "benchmark_result_493459_1694039959_trace.json.gz")

def ok(name, cond, why=""):
    print(("ok %s" % name) if cond else ("FAIL %s: %s" % (name, why)))

def tprof(*args):
    p = subprocess.run(["./cli/tprof", "critical-path", "--jsonl"] + list(args), capture_output=True, text=True)
    rows = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")] if p.returncode == 0 else []
    return p.returncode, rows, p.stderr

def note(err):
    m = re.search(r"(\d+) nodes \((\d+) events\), (\d+) edges, ([\d.]+) us long", err)
    return (int(m.group(1)), int(m.group(2)), int(m.group(3)), float(m.group(4))) if m else None

def us(v):
    return float(v) if v is not None else 0.0

# ---- HTA's asserted numbers on simple_add ----
for mode in ([], ["--hta-quirks"]):
    tag = "simple_add" + (" quirks" if mode else "")
    rc, summary, err = tprof(*(mode + ["--annotation", ANN, "--instance", "1", SIMPLE]))
    n = note(err)
    ok(tag + " runs", rc == 0 and n is not None, "rc %d: %s" % (rc, err.strip()))
    if n is None:
        continue
    ok(tag + " 315 critical-path nodes", n[0] == 315, "got %d" % n[0])
    ok(tag + " 159 critical events", n[1] == 159, "got %d" % n[1])
    ok(tag + " 314 critical edges", n[2] == 314, "got %d" % n[2])
    rc, path, err = tprof(*(mode + ["--path", "-c", "index,from,to,duration,type,bound_by,stream,name",
                                    "--annotation", ANN, "--instance", "1", SIMPLE]))
    ok(tag + " --path one row per edge", len(path) == 314, "got %d rows" % len(path))
    shown = [r for r in path if r["type"] in ("critical_path_dependency", "critical_path_sync_dependency")
             or (r["type"] == "critical_path_kernel_launch_delay" and us(r["duration"]) != 0)]
    ok(tag + " 21 critical edges of HTA's default edge types", len(shown) == 21, "got %d" % len(shown))
    chained = all(path[i]["to"] == path[i + 1]["from"] for i in range(len(path) - 1))
    ok(tag + " --path is a chain of nodes", chained)
    total = sum(us(r["duration"]) for r in path)
    ok(tag + " --path durations sum to the path length", abs(total - n[3]) < 1e-6, "%s vs %s" % (total, n[3]))
    by = {}
    for r in path:
        by[r["bound_by"]] = by.get(r["bound_by"], 0.0) + us(r["duration"])
    want = ["cpu_bound", "data_loading", "gpu_compute_bound", "gpu_communication_bound",
            "gpu_kernel_kernel_overhead", "gpu_kernel_launch_overhead"]
    ok(tag + " summary: HTA's six categories", [r["bound_by"] for r in summary] == want,
       str([r["bound_by"] for r in summary]))
    agree = all(abs(us(r["duration"]) - by.get(r["bound_by"], 0.0)) < 1e-6 for r in summary)
    ok(tag + " summary durations = --path grouped by bound_by", agree)
    pct = sum(float(r["pct"]) for r in summary)
    ok(tag + " summary pct adds up to 100", abs(pct - 100) < 0.05, "sum %s" % pct)
    types = {r["type"]: r["bound_by"] for r in path}
    cons = all((r["type"] != "critical_path_kernel_kernel_delay" or r["bound_by"] == "gpu_kernel_kernel_overhead") and
               (r["type"] != "critical_path_kernel_launch_delay" or r["bound_by"] == "gpu_kernel_launch_overhead") and
               (r["type"] != "critical_path_operator" or (r["bound_by"] == "cpu_bound") == (r["stream"] == -1))
               for r in path)
    ok(tag + " bound_by follows edge type and stream", cons)

# ---- windows ----
rc, _, err = tprof("--annotation", ANN, "--instance", "2", SIMPLE)
ok("no third instance is a usage error", rc == 2 and "no instance 2" in err, "rc %d %s" % (rc, err.strip()))
rc, _, err = tprof("--annotation", ANN, SIMPLE)
n0 = note(err)
rc1, _, err1 = tprof("--annotation", ANN, "--instance", "1", SIMPLE)
ok("instance 0 is another window", n0 is not None and n0 != note(err1), "%s %s" % (n0, note(err1)))
EVS = os.path.join(D, "cuda_event_sync", "event_sync_trace.json.gz")
_, a, ea = tprof("--step", "100", EVS)
_, b, eb = tprof("--annotation", "ProfilerStep", "--instance", "0", EVS)
ok("--step 100 = HTA's annotation ProfilerStep instance 0", note(ea) is not None and note(ea) == note(eb) and a == b,
   "%s vs %s" % (note(ea), note(eb)))
_, c, ec = tprof(EVS)
ok("default window: the first ProfilerStep", note(ec) == note(ea), repr((note(ec), note(ea))))
rc, _, err = tprof("--step", "7", EVS)
ok("a missing step is a usage error", rc == 2 and "ProfilerStep#7" in err, err.strip())
for t in ("alexnet", "cuda_event_sync", "cuda_event_sync_multi_stream"):
    f = [x for x in os.listdir(os.path.join(D, t)) if x.endswith(".gz")][0]
    rc, rows, err = tprof("--annotation", "", os.path.join(D, t, f))
    n = note(err)
    ok(t + " whole trace", rc == 0 and n and n[0] == n[2] + 1 and abs(sum(float(r["pct"]) for r in rows) - 100) < 0.05,
       "rc %d %s" % (rc, err.strip()))

# ---- CUDA event synchronisation (cudaEventSynchronize / cudaEventQuery on an
# event, cudaStreamWaitEvent): HTA's own numbers, from its source at
# facebookresearch/HolisticTraceAnalysis HEAD run on these traces with the
# configuration of its tests (CRITICAL_PATH_ADD_ZERO_WEIGHT_LAUNCH_EDGE=1),
# whole trace: the breakdown, and the graph's edge count (its edge sets are
# the same as tprof's, compared edge by edge when this case was written).
def bounds(rows):
    return {r["bound_by"]: us(r.get("duration_us", r.get("duration"))) for r in rows}
HTA_SYNC = {
    "cuda_event_sync": ({"cpu_bound": 2365, "gpu_compute_bound": 36, "gpu_kernel_launch_overhead": 10}, 57),
    "cuda_event_sync_multi_stream": ({"cpu_bound": 1025, "gpu_compute_bound": 124, "gpu_kernel_kernel_overhead": 15,
                                      "gpu_kernel_launch_overhead": 14}, 85),
}
for t, (want, nedges) in HTA_SYNC.items():
    f = [x for x in os.listdir(os.path.join(D, t)) if x.endswith(".gz")][0]
    rc, rows, err = tprof("--annotation", "", os.path.join(D, t, f))
    got = {k: v for k, v in bounds(rows).items() if v}
    ok(t + " breakdown = HTA's", rc == 0 and got == want, "%r vs %r" % (got, want))
    m = re.search(r"graph of \d+ nodes and (\d+) edges", err)
    ok(t + " graph edges = HTA's (%d)" % nedges, m is not None and int(m.group(1)) == nedges, err.strip())

# ---- a run directory: one block per rank ----
tmp = tempfile.mkdtemp()
try:
    import gzip
    for i, src in enumerate((SIMPLE, EVS)):   # both traces say rank 0: renumber the second
        with gzip.open(src, "rt") as f:
            d = json.load(f)
        d.setdefault("distributedInfo", {})["rank"] = i
        with gzip.open(os.path.join(tmp, "rank-%d.pt.trace.json.gz" % i), "wt") as f:
            json.dump(d, f)
    p = subprocess.run(["./cli/tprof", "critical-path", "--annotation", "", "--jsonl", tmp], capture_output=True, text=True)
    blocks = p.stdout.count('"bound_by":"cpu_bound"')
    ok("run directory: one summary per rank", p.returncode == 0 and blocks == 2, "rc %d blocks %d" % (p.returncode, blocks))
finally:
    shutil.rmtree(tmp)
PY
