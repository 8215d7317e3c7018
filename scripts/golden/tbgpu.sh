#!/bin/sh
# Golden tests: tprof's gpu and advice views against the TensorBoard plugin's
# GPU Summary and recommendations (../shared/reference/kineto/expected, SPEC
# §5, §10.4), and the kernels view's median/std columns against Python's
# statistics module over the same trace's kernel durations (pandas' median()
# and std(), ddof 1, which the plugin does not show).
# Prints one "ok NAME" / "FAIL NAME: why" / "skip NAME: why" line per case.
REF=${REF:-../shared/reference}
. "$(dirname "$0")/lib.sh"
golden_python tbgpu "$REF/kineto/expected" "${TPROF:-./cli/tprof}" "$REF/kineto" <<'PY'
import csv, glob, gzip, io, json, os, re, statistics, subprocess, sys
from decimal import Decimal
from golden import attempt, csv_view, tb_expected, tprof_views, without_coverage

K = sys.argv[1]
TPROF = os.environ.get("TPROF", "./cli/tprof")

def run(view, path, *extra):
    rows, err = csv_view(TPROF, view, path, *extra)
    return rows, without_coverage(err)

def shown(v, scale):
    # the plugin's display: '{} %'.format(round(v * scale, 2)); None: not shown
    return None if v is None else Decimal(repr(round(v * scale, 2)))

def check_gpu(path, exp):
    it = exp["internals"]
    rows, err = run("gpu", path, "-c", "device,name,memory_gb,capability,util,sm_eff,occupancy,tc")
    ids = it["gpu_ids"]
    if not ids:
        if rows:
            return "%d rows, expected none (no GPU)" % len(rows)
        if len([l for l in err.splitlines() if l.startswith("tprof: ")]) != 1:
            return "expected one tprof line on stderr, got %r" % err
        return None
    if [int(r["Device"]) for r in rows] != sorted(ids):
        return "devices %s, expected %s" % ([r["Device"] for r in rows], sorted(ids))
    # the plugin's GPU Summary as served: per GPU, title -> value
    summary, cur = {}, None
    for d in ((exp.get("overview") or {}).get("gpu_metrics") or {}).get("data", []):
        m = re.match(r"GPU (\d+):$", d["title"])
        if m:
            cur = summary.setdefault(int(m.group(1)), {})
        elif cur is not None and d["title"] != "<hr/>":
            cur[d["title"]] = d["value"]
    for r in rows:
        g = r["Device"]
        for col, key, scale, title in (("Util(%)", "gpu_utilization", 100, "GPU Utilization"),
                                       ("SMEff(%)", "est_sm_efficiency", 100, "Est. SM Efficiency"),
                                       ("Occupancy(%)", "est_achieved_occupancy", 1, "Est. Achieved Occupancy"),
                                       ("TC(%)", "tc_ratio", 100, "Kernel Time using Tensor Cores")):
            want = shown(it[key].get(g), scale)
            mine = None if r[col] == "-" else Decimal(r[col])
            if mine != want:
                return "GPU %s: %s %s, expected %s" % (g, col, r[col], want)
            disp = summary.get(int(g), {}).get(title)
            if summary and (disp is None) != (want is None):
                return "GPU %s: %s shown %r, internals %r" % (g, title, disp, want)
            if disp is not None and Decimal(disp.rstrip(" %")) != mine:
                return "GPU %s: %s %s, the plugin shows %s" % (g, col, r[col], disp)
        info = summary.get(int(g), {})
        if "Name" in info and r["Name"] != info["Name"]:
            return "GPU %s: name %r, expected %r" % (g, r["Name"], info["Name"])
        if "Memory" in info and Decimal(r["Memory(GB)"]) != Decimal(info["Memory"].rstrip(" GB")):
            return "GPU %s: memory %s, expected %s" % (g, r["Memory(GB)"], info["Memory"])
        if "Compute Capability" in info and r["Capability"] != info["Compute Capability"]:
            return "GPU %s: capability %s, expected %s" % (g, r["Capability"], info["Compute Capability"])
    return None

def plain(html):
    """The plugin's recommendation with tprof's corrections (man tprof, advice):
    links as 'text (url)', the 1-tuple URL repr unwrapped, 'GPU 0, 1and 2 have'
    spelt '0, 1 and 2', has/have by the number of GPUs."""
    def link(m):
        url = m.group(1)
        t = re.fullmatch(r"\('(.*)',\)", url)
        return "%s (%s)" % (m.group(2), t.group(1) if t else url)
    s = re.sub(r'<a href="([^"]*)" target="_blank">([^<]*)</a>', link, html)
    m = re.match(r"GPU ([0-9, and]+?) (has|have) low utilization", s)
    if m:
        ids = re.findall(r"\d+", m.group(1))
        lst = ids[0] if len(ids) == 1 else ", ".join(ids[:-1]) + " and " + ids[-1]
        s = "GPU %s %s low utilization%s" % (lst, "has" if len(ids) == 1 else "have", s[m.end():])
    return s

def check_advice(path, exp):
    want = [plain(r) for r in exp["internals"].get("recommendations") or []]
    rows, err = run("advice", path, "-c", "kind,advice")
    mine = [r["Advice"] for r in rows]
    if not want:
        if mine:
            return "%d rows, expected none: %r" % (len(mine), mine[0][:80])
        if len([l for l in err.splitlines() if l.startswith("tprof: ")]) != 1:
            return "expected one tprof line on stderr, got %r" % err
        return None
    if len(mine) != len(want):
        return "%d rows, expected %d: %r" % (len(mine), len(want), [m[:40] for m in mine])
    for i, (m, w) in enumerate(zip(mine, want)):
        if m != w:
            j = next((k for k in range(min(len(m), len(w))) if m[k] != w[k]), min(len(m), len(w)))
            return "row %d differs at %d: %r, expected %r" % (i, j, m[max(0, j - 20):j + 40], w[max(0, j - 20):j + 40])
    return None

def load_trace(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d

def check_kernel_stats(path, exp):
    durs = {}
    for e in load_trace(path):
        if e.get("ph") == "X" and str(e.get("cat", "")).lower() == "kernel":
            durs.setdefault(e["name"], []).append(Decimal(str(e.get("dur", 0))))
    rows, _ = run("kernels", path, "-c", "name,calls,median,std")
    if len(rows) != len(durs):
        return "%d rows, expected %d kernel names" % (len(rows), len(durs))
    names = [r[0] for r in exp["data"]["rows"]]
    if [r["Name"] for r in rows] != names:
        return "kernel names or order differ from the plugin's table"
    half = Decimal("0.0005") + Decimal("1e-9")   # printed with 3 decimals (µs)
    for r in rows:
        d = durs[r["Name"]]
        if int(r["Calls"]) != len(d):
            return "%s: calls %s, expected %d" % (r["Name"][:50], r["Calls"], len(d))
        med = statistics.median(d)
        if abs(Decimal(r["Median(us)"]) - med) > half:
            return "%s: median %s, expected %s" % (r["Name"][:50], r["Median(us)"], med)
        if len(d) < 2:
            if r["Std(us)"] != "-":
                return "%s: std %s for one call, expected -" % (r["Name"][:50], r["Std(us)"])
            continue
        sd = statistics.stdev(d)
        if abs(Decimal(r["Std(us)"]) - sd) > half:
            return "%s: std %s, expected %s" % (r["Name"][:50], r["Std(us)"], sd)
    return None

# Synthetic traces for what the plugin's own outputs cannot show: several
# GPUs (its "0, 1and 2" list), a two-digit GPU id (its has/have by text
# length), DataParallel and DDP without NCCL, and device memory at its limit
# with a CPU peak first (the plugin compared that with the last GPU).
def synthetic(ndev_ids, mem):
    ev, ext = [], 0
    def x(cat, name, ts, dur, pid=1, tid=1, **args):
        ev.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": ts, "dur": dur, "args": args})
    x("cpu_op", "ProfilerStep#1", 0, 1000)
    x("cpu_op", "DataParallel.forward", 10, 500)
    for i, d in enumerate(ndev_ids):
        ext += 1
        x("cpu_op", "aten::mm" if i == 0 else "aten::add", 20 + 100 * i, 50, **{"External id": ext})
        x("cuda_runtime", "cudaLaunchKernel", 30 + 100 * i, 10, **{"External id": ext, "correlation": ext})
        x("kernel", "k%d" % i, 100, 100, pid=d, tid=7, device=d, stream=7, correlation=ext, **{"External id": ext})
    x("cpu_op", "DistributedDataParallel.forward", 600, 50)
    x("cpu_op", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 700, 200)
    for ts, dtype, dev, total in mem:
        ev.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]", "pid": 1, "tid": 1, "ts": ts,
                   "args": {"Device Type": dtype, "Device Id": dev, "Addr": 1000 + ts, "Bytes": 1,
                            "Total Allocated": total, "Total Reserved": total}})
    props = [{"id": i, "name": "G%d" % i, "totalGlobalMem": 34359738368, "computeMajor": 7, "computeMinor": 0,
              "numSms": 80} for i in range(max(ndev_ids) + 1)]
    return {"schemaVersion": 1, "deviceProperties": props, "traceEvents": ev}

def check_synthetic(trace, want_gpu, want_advice):
    import tempfile
    with tempfile.NamedTemporaryFile("w", suffix=".pt.trace.json", delete=False) as f:
        json.dump(trace, f)
    try:
        rows, _ = run("gpu", f.name, "-c", "device,name,util,tc")
        got = [(r["Device"], r["Name"], r["Util(%)"], r["TC(%)"]) for r in rows]
        if got != want_gpu:
            return "gpu %r, expected %r" % (got, want_gpu)
        rows, _ = run("advice", f.name, "-c", "kind,advice")
        got = [(r["Kind"], r["Advice"]) for r in rows]
        for i, (g, w) in enumerate(zip(got, want_advice)):
            if g[0] != w[0] or not g[1].startswith(w[1]):
                return "advice row %d: %r, expected %r..." % (i, g, w)
        if len(got) != len(want_advice):
            return "%d advice rows, expected %d: %r" % (len(got), len(want_advice), [g[0] for g in got])
    finally:
        os.unlink(f.name)
    return None

LOW = " low utilization. You could try to increase batch size to improve."
SYNTH = [
    ("three_gpus", synthetic([0, 1, 2], [(50, 0, -1, 34000000000), (60, 1, 1, 32212254720), (70, 1, 2, 34000000000)]),
     [("0", "G0", "10.00", "0.00"), ("1", "G1", "10.00", "0.00"), ("2", "G2", "10.00", "0.00")],
     [("dataloader", "This run has high time cost on input data loading. 20.0% of the step time is in DataLoader."),
      ("dataparallel", "It is recommended to use DistributedDataParallel instead of DataParallel "
                       "(https://pytorch.org/docs/stable/notes/cuda.html#cuda-nn-ddp-instead) to do multi-GPU training."),
      ("nccl", "Nccl backend is currently the fastest and highly recommended backend when using DDP for training."),
      ("gpu_utilization", "GPU 0, 1 and 2 have" + LOW),
      ("tensor_cores", "Kernels with 33% time are launched by Tensor Cores eligible operators. You could enable "
                       "Automatic Mixed Precision (https://pytorch.org/docs/stable/amp.html) to speedup by using FP16."),
      ("memory", "Device memory usage is at the limit of device memory capacity (93.8% of 32.0GB on GPU1).")]),
    ("gpu_10", synthetic([10], []),
     [("10", "G10", "10.00", "0.00")],
     [("dataloader", "This run has high time cost on input data loading. 20.0%"),
      ("nccl", "Nccl backend is currently"),
      ("gpu_utilization", "GPU 10 has" + LOW),
      ("tensor_cores", "Kernels with 100% time are launched by Tensor Cores eligible operators.")]),
]

VIEWS = tprof_views(TPROF)

counts = {"ok": 0, "FAIL": 0, "skip": 0}
def report(kind, name, why=""):
    counts[kind] += 1
    print("%s %s%s" % (kind, name, (": " + why) if why else ""))

for name, exp, inp in tb_expected(K, "tbgpu", sorted(glob.glob(os.path.join(K, "expected", "**", "*.expected.json"),
                                                                recursive=True))):
    if not os.path.isfile(inp):
        report("skip", name, "input not found")
        continue
    checks = [("gpu", "internals", check_gpu), ("advice", "internals", check_advice),
              ("kernels", "kernel_table_group_by_kernel", check_kernel_stats)]
    for view, key, fn in checks:
        if exp.get(key) is None:
            continue
        if view not in VIEWS:
            report("skip", "%s:%s" % (name, view), "tprof has no %s view" % view)
            continue
        why = attempt(fn, inp, exp[key] if key != "internals" else exp)
        if why is None:
            report("ok", "%s:%s" % (name, view))
        else:
            report("FAIL", "%s:%s" % (name, view), why)

for sname, trace, want_gpu, want_advice in SYNTH:
    name = "tbgpu/synthetic/" + sname
    if "gpu" not in VIEWS or "advice" not in VIEWS:
        report("skip", name, "tprof has no gpu/advice view")
        continue
    try:
        why = check_synthetic(trace, want_gpu, want_advice)
    except Exception as x:
        why = "%s: %s" % (type(x).__name__, x)
    report("ok" if why is None else "FAIL", name, why or "")
PY
