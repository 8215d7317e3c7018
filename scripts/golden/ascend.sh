#!/bin/sh
# Golden tests: tprof on Ascend NPU profiler folders against the Ascend
# TensorBoard plugin's own outputs (../shared/reference/npu/golden, SPEC
# §A.9), plus: every Ascend folder of the reference data is read without a
# complaint.  Prints one "ok NAME" / "FAIL NAME: why" / "skip NAME: why" line
# per case.
#
# The plugin rounds its running sums to 2 decimals at every row (SPEC
# §A.7.9); tprof reproduces that in its ops/kernels columns, compared to the
# plugin's last digit, and its *_exact columns (exact sums) are compared
# within the drift that rounding allows (0.005 µs per row summed).
REF=${REF:-../shared/reference}
. "$(dirname "$0")/lib.sh"
golden_python ascend "$REF/npu/golden" "${TPROF:-./cli/tprof}" "$REF/npu" "${TPROF:-./cli/tprof}" <<'PY'
import atexit, csv, io, json, os, re, shutil, subprocess, sys, tempfile
from decimal import Decimal as D
from golden import plugin_cases

NPU, TPROF = sys.argv[1], sys.argv[2]
GOLD = os.path.join(NPU, "golden")
DATA = os.path.join(NPU, "ascend_data")
res = {"ok": 0, "FAIL": 0, "skip": 0}

# tprof reads the SQLite exports from copies: a run must never write into ../shared.
SAFE = tempfile.mkdtemp(prefix="tprof-ascend-")
atexit.register(shutil.rmtree, SAFE, True)

def safe(folder):
    out = os.path.join(folder, "ASCEND_PROFILER_OUTPUT")
    names = os.listdir(folder) + (os.listdir(out) if os.path.isdir(out) else [])
    if not any(re.search(r"\.(db|dat)$", n) for n in names):
        return folder
    dst = os.path.join(SAFE, str(len(os.listdir(SAFE))), os.path.basename(folder))
    shutil.copytree(folder, dst)
    return dst

def say(kind, name, why=None):
    res[kind] += 1
    print("%s %s%s" % (kind, name, ": " + why if why else ""))

def run(view, path, *extra, ok=True):
    p = subprocess.run([TPROF, view, "--csv", *extra, path], capture_output=True, text=True)
    if ok and (p.returncode != 0 or p.stderr.strip()):
        raise RuntimeError("exit %d: %s" % (p.returncode, p.stderr.strip()[:300]))
    return p, list(csv.DictReader(io.StringIO(p.stdout)))

def near(mine, exp, tol):
    return abs(D(mine) - D(str(exp))) <= D(str(tol))

def drift(calls):
    # the plugin's running round(acc + v, 2): up to 0.005 per addition
    return D("0.005") * calls + D("0.0011")

def check_kernels(path, g):
    _, rows = run("kernels", path, "-c", "name,calls,total,min,mean,max,total_exact")
    cols = [c["name"] for c in g["kernel_op_table"]["data"]["columns"]]
    exp = [dict(zip(cols, r)) for r in g["kernel_op_table"]["data"]["rows"]]
    mine = {r["Name"]: r for r in rows}
    if len(rows) != len(exp):
        return "%d names, expected %d" % (len(rows), len(exp))
    for e in exp:
        m = mine.get(e["Name"])
        if m is None:
            return "missing %r" % e["Name"]
        n = e["Calls"]
        if int(m["Calls"]) != n:
            return "%s: calls %s, expected %s" % (e["Name"], m["Calls"], n)
        for mk, ek in (("Total(us)", "Total Durations(us)"), ("Min(us)", "Min Durations(us)"),
                       ("Max(us)", "Max Durations(us)"), ("Mean(us)", "Avg Durations(us)")):
            # the plugin's own running rounding is reproduced: equal to its last digit
            if not near(m[mk], e[ek], "0.0005"):
                return "%s: %s %s, expected %s" % (e["Name"], mk, m[mk], e[ek])
        if not near(m["TotalExact(us)"], e["Total Durations(us)"], drift(n)):
            return "%s: exact total %s, expected %s within the plugin's drift" % (e["Name"], m["TotalExact(us)"], e["Total Durations(us)"])
    return None

def check_core(path, g):
    _, rows = run("kernels", path, "--group", "core", "-c", "core,calls,total")
    mine = {"Using " + r["Core"].replace("_", " "): r for r in rows}
    exp = g["tc_pie"]["total"]["rows"]
    if len(rows) != len(exp):
        return "%d cores, expected %d" % (len(rows), len(exp))
    for name, v in exp:
        m = mine.get(name)
        if m is None:
            return "missing %r" % name
        # the pie sums floats without rounding: only float error
        if not near(m["Total(us)"], round(v, 6), "0.001"):
            return "%s: %s, expected %s" % (name, m["Total(us)"], v)
    return None

def check_ops(path, g, shape):
    extra = ["--group", "shape"] if shape else []
    _, rows = run("ops", path, *extra, "-c", "name,shape,calls,dev_self,dev_total,host_self,host_total,ai_core_eligible,ai_core_self,ai_core_total,"
                  "dev_self_exact,dev_total_exact,host_self_exact,host_total_exact")
    exp = g["operation_table_by_name_input" if shape else "operation_table_by_name"]["data"]
    key = (lambda r: (r["Name"], r["Input Shape"])) if shape else (lambda r: r["Name"])
    ekey = (lambda e: (e["name"], e["input_shape"])) if shape else (lambda e: e["name"])
    mine = {key(r): r for r in rows}
    if len(rows) != len(exp):
        return "%d rows, expected %d" % (len(rows), len(exp))
    for e in exp:
        m = mine.get(ekey(e))
        if m is None:
            return "missing %r" % (ekey(e),)
        n = e["calls"]
        if int(m["Calls"]) != n:
            return "%r: calls %s, expected %s" % (ekey(e), m["Calls"], n)
        for mk, ek in (("DeviceSelf(us)", "device_self_duration"), ("DeviceTotal(us)", "device_total_duration"),
                       ("HostSelf(us)", "host_self_duration"), ("HostTotal(us)", "host_total_duration")):
            # the plugin's running rounding is reproduced: equal to its last digit
            if not near(m[mk], e[ek], "0.0005"):
                return "%r: %s %s, expected %s" % (ekey(e), mk, m[mk], e[ek])
            ex = mk.replace("(us)", "Exact(us)")
            if not near(m[ex], e[ek], drift(n)):
                return "%r: %s %s, expected %s within the plugin's drift" % (ekey(e), ex, m[ex], e[ek])
        if m["AICoreEligible"] != e["tc_eligible"]:
            return "%r: eligible %s, expected %s" % (ekey(e), m["AICoreEligible"], e["tc_eligible"])
        for mk, ek in (("AICoreSelf(%)", "tc_self_ratio"), ("AICoreTotal(%)", "tc_total_ratio")):
            if not near(m[mk], e[ek], "0.0005"):
                return "%r: %s %s, expected %s" % (ekey(e), mk, m[mk], e[ek])
    return None

def check_mem_events(path, g):
    _, rows = run("memory", path, "--events", "-c", "op,device,size,alloc_time,release_time,duration,alloc_ts")
    start = D(str(g["profiler_start_ts"]))
    exp = g["memory_events"]["operator"]["rows"]
    mine = {}
    for r in rows:
        mine.setdefault(r["Device"], []).append(r)
    for dev, erows in exp.items():
        m = mine.get(dev, [])
        if len(m) != len(erows):
            return "%s: %d allocations, expected %d" % (dev, len(m), len(erows))
        for i, (a, e) in enumerate(zip(m, erows)):
            if a["Operator"] != e[0] or not near(a["Size(KB)"], e[1], "0.0005"):
                return "%s row %d: %s %s, expected %s %s" % (dev, i, a["Operator"], a["Size(KB)"], e[0], e[1])
            if start == 0:
                # no trace: the plugin prints epoch ms; tprof counts from the first CSV timestamp
                if a["AllocationTime(us)"] == "-" or not near(D(a["AllocationTime(us)"]) / 1000, e[2], "0.0011"):
                    return "%s row %d: alloc %s us, expected epoch %s ms" % (dev, i, a["AllocationTime(us)"], e[2])
                origin = D(a["AllocationTime(us)"]) - D(a["AllocTime(us)"])
                if e[3] is not None and not near((D(a["ReleaseTime(us)"]) + origin) / 1000, e[3], "0.0011"):
                    return "%s row %d: release %s, expected epoch %s ms" % (dev, i, a["ReleaseTime(us)"], e[3])
            else:
                for k, ev in (("AllocTime(us)", e[2]), ("ReleaseTime(us)", e[3])):
                    if (a[k] == "-") != (ev is None) or (ev is not None and not near(D(a[k]) / 1000, ev, "0.0011")):
                        return "%s row %d: %s %s, expected %s ms" % (dev, i, k, a[k], ev)
            if (a["Duration(us)"] == "-") != (e[4] is None) or (e[4] is not None and not near(D(a["Duration(us)"]) / 1000, e[4], "0.0006")):
                return "%s row %d: duration %s, expected %s ms" % (dev, i, a["Duration(us)"], e[4])
    return None

def check_mem_peaks(path, g):
    s = g["memory_all_curve_summary"]
    _, rows = run("memory", path, "-c", "device,component,allocated,reserved,samples")
    for dev in s["devices"]:
        mine = [r for r in rows if r["Device"] == dev]
        tot = [r for r in mine if r["Component"] == "PTA+GE"]
        label = "Peak Memory Usage: %.1fMB" % float(tot[0]["Allocated(MB)"]) if tot else None
        if label != s["total_peaks"].get(dev):
            return "%s: %r, expected %r" % (dev, label, s["total_peaks"].get(dev))
        comps = [r for r in mine if r["Component"] in ("PTA", "GE", "APP")]
        label = "Reserved Peak Memory Usage: " + "".join("%s-%.1fMB | " % (r["Component"], float(r["Reserved(MB)"])) for r in comps)
        if label.rstrip() != s["ptaGe_peaks"].get(dev):
            return "%s: %r, expected %r" % (dev, label.rstrip(), s["ptaGe_peaks"].get(dev))
        n = {r["Component"]: int(r["Samples"]) for r in mine}
        for comp, cnt in s["ptaGe_rows_len"].get(dev, {}).items():
            if n.get(comp) != cnt:
                return "%s %s: %s samples, expected %d" % (dev, comp, n.get(comp), cnt)
        if tot and int(tot[0]["Samples"]) != s["total_rows_len"][dev]["Allocated"]:
            return "%s PTA+GE: %s samples, expected %d" % (dev, tot[0]["Samples"], s["total_rows_len"][dev]["Allocated"])
    _, curve = run("memory", path, "--curve", "-c", "device,component,time,ts,allocated,reserved")
    start = D(str(g["profiler_start_ts"]))
    for dev, comps in s["ptaGe_first_rows"].items():
        for comp, pts in comps.items():
            mine = [r for r in curve if r["Device"] == dev and r["Component"] == comp][:len(pts)]
            for a, e in zip(mine, pts):
                t = D(a["Timestamp(us)"]) / 1000 if start == 0 else D(a["Time(us)"]) / 1000
                if not near(t, e[0], "0.0011") or not near(a["Reserved(MB)"], e[2], "0.0011") or \
                   (e[1] is None) != (a["Allocated(MB)"] == "-") or (e[1] is not None and not near(a["Allocated(MB)"], e[1], "0.0011")):
                    return "%s %s: %r, expected %r" % (dev, comp, (t, a["Allocated(MB)"], a["Reserved(MB)"]), e)
    return None

def check_mem_components(path, g):
    exp = g["memory_events"].get("component")
    if not exp or not any(exp["rows"].values()):
        return None
    _, rows = run("memory", path, "--group", "component", "-c", "device,component,reserved,reserved_at")
    start = D(str(g["profiler_start_ts"]))
    for dev, erows in exp["rows"].items():
        mine = [r for r in rows if r["Device"] == dev]
        if len(mine) != len(erows):
            return "%s: %d components, expected %d" % (dev, len(mine), len(erows))
        for a, e in zip(mine, erows):
            if a["Component"] != e[0] or not near(a["Reserved(MB)"], e[1], "0.0006"):
                return "%s: %s %s, expected %s %s" % (dev, a["Component"], a["Reserved(MB)"], e[0], e[1])
            if start != 0 and not near(D(a["ReservedPeakAt(us)"]) / 1000, e[2], "0.0011"):
                return "%s %s: at %s us, expected %s ms" % (dev, e[0], a["ReservedPeakAt(us)"], e[2])
    return None

def check_dist(path, g):
    _, rows = run("dist", path, "-c", "step,computation,overlap,communication,other,transfer,sync")
    mine = {r["Step"]: r for r in rows}
    for step, (comp, ovl, cno, free) in (g.get("step_to_overlap") or {}).items():
        m = mine.get(step)
        if m is None:
            return "no step %s" % step
        got = (D(m["Computation(us)"]) + D(m["Overlap(us)"]), D(m["Overlap(us)"]), D(m["Communication(us)"]), D(m["Other(us)"]))
        for x, y in zip(got, (comp, ovl, cno, free)):
            if not near(x, y, "0.002"):
                return "step %s: %s, expected %s" % (step, [str(v) for v in got], [comp, ovl, cno, free])
    for step, w in (g.get("step_to_wait") or {}).items():
        m = mine.get(step)
        if m is None or not near(D(m["Transfer(us)"]) / 1000, w["trans"], "0.000001") or \
           not near(D(m["Sync(us)"]) / 1000, w["Synchronize"], "0.000001"):
            return "step %s: wait %s, expected %s" % (step, m and (m["Transfer(us)"], m["Sync(us)"]), w)
    return None

def check_comm(path, g):
    _, rows = run("dist", path, "--comm", "-c", "op,calls,size,latency,transfer")
    mine = {r["Op"]: r for r in rows}
    exp = g["comm_op"]
    if len(rows) != len(exp):
        return "%d op types, expected %d" % (len(rows), len(exp))
    for op, (n, mb, el, tr) in exp.items():
        m = mine.get(op)
        if m is None:
            return "missing %s" % op
        if int(m["Calls"]) != n or abs(int(m["Size(B)"]) - mb * 1024 * 1024) > 1 or \
           not near(D(m["Elapse(us)"]) / 1000, el, "0.000001") or not near(D(m["Transfer(us)"]) / 1000, tr, "0.000001"):
            return "%s: %s, expected %s" % (op, (m["Calls"], m["Size(B)"], m["Elapse(us)"], m["Transfer(us)"]), (n, mb, el, tr))
    return None

def check_trace_tasks(path, g):
    # no kernel_details.csv: the tasks come from the trace's Ascend Hardware
    # process and HCCL "Communication" threads; launching ops from async_npu flows
    ev = json.load(open(os.path.join(path, "trace_view.json")))
    procs = {e["pid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"}
    threads = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name"}
    want = [e for e in ev if e.get("ph") == "X" and (procs.get(e["pid"]) == "Ascend Hardware" or
            (procs.get(e["pid"]) == "HCCL" and "Communication" in threads.get((e["pid"], e["tid"]), "")))]
    _, rows = run("prof", path, "-c", "kernel,sil,ts,op")
    if len(rows) != len(want):
        return "%d tasks, expected %d" % (len(rows), len(want))
    want.sort(key=lambda e: D(e["ts"]))
    for m, e in zip(rows, want):
        if m["Kernel"] != e["name"] or D(m["StartTime(us)"]) != D(e["ts"]):
            return "task %r at %s, expected %r at %s" % (m["Kernel"], m["StartTime(us)"], e["name"], e["ts"])
    return None

def check_oplink(path, g):
    # torch_npu's Device Self Duration of an op is the time of the device
    # tasks it launched; tprof links tasks to ops by the trace's flows.  The
    # linked tasks of an op are a subset of its self tasks (kernel_details
    # omits SDMA copies), and equal them for nearly every op.
    _, tasks = run("prof", path, "-c", "op,sil")
    _, ops = run("ops", path, "-c", "name,dev_self_exact")
    linked = {}
    for t in tasks:
        linked[t["Op"]] = linked.get(t["Op"], 0) + int(t["Sil(ns)"])
    same = 0
    for o in ops:
        x, y = D(linked.get(o["Name"], 0)) / 1000, D(o["DeviceSelfExact(us)"])
        if x > y + D("0.01") * int(1 + y / 1000):
            return "%s: linked tasks %s us > device self %s us" % (o["Name"], x, y)
        same += abs(x - y) <= D("0.01")
    if same < 0.9 * len(ops):
        return "only %d of %d ops have all their device self time linked" % (same, len(ops))
    if linked.get("-", 0) > 0.05 * sum(linked.values()):
        return "%s of %s ns of task time has no launching op" % (linked.get("-", 0), sum(linked.values()))
    return None

def check_absent(path, g):
    # views the plugin does not offer: tprof names the missing file
    want = {"Operator": ("ops", "operator_details.csv"), "Kernel": ("kernels", "kernel_details.csv")}
    for v, (view, f) in want.items():
        if v in g["views"] or (v == "Kernel" and "Trace" in g["views"]):
            continue
        # the header only, a note naming the file, exit 0 (the other views still work)
        p, rows = run(view, path, ok=False)
        if p.returncode != 0 or rows or f + " not found" not in p.stderr:
            return "%s without %s: exit %d, %d rows, %r" % (view, f, p.returncode, len(rows), p.stderr.strip()[:200])
    return None

cases = plugin_cases(GOLD, DATA)
for rel, gp, path in cases:
    name = rel.split("/")[0].split("+")[1] + ":" + "/".join(rel.split("/")[-2:])
    if not os.path.isdir(path):
        say("skip", name, "no data folder")
        continue
    g = json.load(open(gp))
    path = safe(path)
    checks = [("absent", lambda: check_absent(path, g))]
    if not g.get("kernel_op_table") and "Trace" in g["views"]:
        checks += [("trace-tasks", lambda: check_trace_tasks(path, g))]
    if g.get("kernel_op_table"):
        checks += [("kernels", lambda: check_kernels(path, g)), ("kernels-core", lambda: check_core(path, g))]
    if g.get("operation_table_by_name"):
        checks += [("ops", lambda: check_ops(path, g, False)), ("ops-shape", lambda: check_ops(path, g, True))]
    if g.get("kernel_op_table") and g.get("operation_table_by_name") and "Trace" in g["views"]:
        checks += [("oplink", lambda: check_oplink(path, g))]
    if g.get("memory_events"):
        checks += [("memory-events", lambda: check_mem_events(path, g)),
                   ("memory-components", lambda: check_mem_components(path, g))]
    if g.get("memory_all_curve_summary"):
        checks += [("memory-peaks", lambda: check_mem_peaks(path, g))]
    if g.get("step_to_overlap") or g.get("step_to_wait"):
        checks += [("dist", lambda: check_dist(path, g))]
    if g.get("comm_op"):
        checks += [("dist-comm", lambda: check_comm(path, g))]
    for cname, fn in checks:
        try:
            why = fn()
        except Exception as ex:
            why = str(ex)
        say("FAIL" if why else "ok", "ascend-%s %s" % (cname, name), why)

# The SQLite exports (S2) are separate runs of the same scripts as the text
# exports (S1): same model, same step, so the same tasks per accelerator core,
# the same memory samples per component and the same communication ops; times
# differ run to run.  Compares what tprof reads from each.
def counts(path):
    def view(*args):
        # a view whose file (or table) the folder lacks: compared as "missing"
        p = subprocess.run([TPROF, args[0], "--csv", *args[1:], path], capture_output=True, text=True)
        if p.returncode == 0 and " not found: " in p.stderr:
            return None
        if p.returncode != 0 or p.stderr.strip():
            raise RuntimeError("exit %d: %s" % (p.returncode, p.stderr.strip()[:300]))
        return list(csv.DictReader(io.StringIO(p.stdout)))
    core = view("kernels", "--group", "core", "-c", "core,calls")
    mem = view("memory", "-c", "device,component,samples")
    comm = view("dist", "--comm", "-c", "op,calls,size")
    steps = view("dist", "-c", "step")
    return ({r["Core"]: r["Calls"] for r in core}, {(r["Device"], r["Component"]): r["Samples"] for r in mem},
            comm and {r["Op"]: (r["Calls"], r["Size(B)"]) for r in comm}, steps and [r["Step"] for r in steps])

TEXT = os.path.join(DATA, "xiaobingling93-pixel+Ascend-msinsight/test/data/pytorch/text")
DB = os.path.join(DATA, "xiaobingling93-pixel+Ascend-msinsight/test/data/pytorch/db")
for level in ("level0", "level1", "level2"):
    for rank in ("rank0_ascend_pt", "rank1_ascend_pt"):
        t, d = os.path.join(TEXT, level, rank), os.path.join(DB, level, rank)
        name = "ascend-db %s/%s" % (level, rank)
        if not (os.path.isdir(t) and os.path.isdir(d)):
            say("skip", name, "no data")
            continue
        try:
            a, b = counts(t), counts(safe(d))
            # kernel_details names Level0 compute tasks' core N/A; the export keeps the task type
            if level == "level0":
                a = ({k: v for k, v in a[0].items() if k != "N/A"},) + a[1:]
                b = ({k: v for k, v in b[0].items() if k in a[0]},) + b[1:]
            # memory_record's APP rows come from CANN npu_mem, which the export keeps elsewhere
            a = (a[0], {k: v for k, v in a[1].items() if k[1] != "APP"}) + a[2:]
            why = None
            for what, x, y in zip(("tasks per core", "memory samples", "communication ops", "steps"), a, b):
                if x != y:
                    why = "%s: text %s, SQLite %s" % (what, x, y)
                    break
        except Exception as ex:
            why = str(ex)
        say("FAIL" if why else "ok", name, why)

# CANN's op_summary_1.csv (S4) is test_rank_0's kernel_details.csv before
# torch_npu renamed its columns: the plugin's Accelerator Core totals of
# test_rank_0 hold for it too.
OPS = os.path.join(DATA, "xiaobingling93-pixel+Ascend-msinsight/server/src/test/test_data/test_kernel_parse")
G0 = os.path.join(GOLD, "xiaobingling93-pixel+Ascend-msinsight/server/src/test/test_data/test_rank_0.plugin_output.json")
if os.path.isdir(OPS) and os.path.exists(G0):
    try:
        why = check_core(OPS, json.load(open(G0))) or check_kernels(OPS, json.load(open(G0)))
    except Exception as ex:
        why = str(ex)
    say("FAIL" if why else "ok", "ascend-op_summary test_kernel_parse", why)
else:
    say("skip", "ascend-op_summary test_kernel_parse", "no data")

# Every Ascend folder of the reference data is read without a complaint.
seen = set()
for root, dirs, files in os.walk(DATA):
    known = {"kernel_details.csv", "operator_details.csv", "memory_record.csv", "operator_memory.csv",
             "npu_module_mem.csv", "step_trace_time.csv", "communication.json"}
    dbs = [f for f in files if re.match(r"ascend_pytorch_profiler.*\.(db|dat)$", f) or re.match(r"op_summary.*\.csv$", f)]
    if os.path.basename(root) == "ASCEND_PROFILER_OUTPUT":
        folder = os.path.dirname(root)
    elif known & set(files) or dbs:
        folder = root
    else:
        continue
    if folder in seen:
        continue
    seen.add(folder)
    name = "ascend-read " + os.path.relpath(folder, DATA).split("/", 1)[1]
    p = subprocess.run([TPROF, "info", safe(folder)], capture_output=True, text=True)
    if p.returncode != 0 or p.stderr.strip():
        say("FAIL", name, "exit %d: %s" % (p.returncode, p.stderr.strip()[:300]))
    else:
        say("ok", name)
PY
