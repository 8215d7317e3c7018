#!/bin/sh
# Golden tests: tprof's memory view (statistics, events, curve), the ops
# view's memory columns and the modules view against the TensorBoard
# plugin's own outputs (../shared/reference/kineto/expected: memory_stats_KB,
# memory_events_ms_KB, memory_curve_ms_MB, module_view; SPEC §8, §10.1).
# tprof prints bytes and exact µs; the plugin's KB / MB / ms with its
# DisplayRounder are computed here from tprof's numbers and compared exactly.
# Prints one "ok NAME" / "FAIL NAME: why" / "skip NAME: why" line per case.
. "$(dirname "$0")/lib.sh"
golden_ref_python tbmemory "$REF/kineto/expected" <<'PY'
import csv, glob, gzip, io, json, math, os, subprocess, sys
from decimal import Decimal
from functools import partial
from golden import csv_view, ref_args

TPROF, REF, K = ref_args('kineto')
run = partial(csv_view, TPROF)

def rounder(v):
    # the plugin's DisplayRounder(ndigits=2) (T/utils.py)
    a = abs(v)
    if a >= 0.01 or v == 0:
        return round(v, 2)
    return round(v, abs(math.floor(math.log10(a))))

def kb(b):
    return rounder((1.0 / 1024) * int(b))

def ms(us):
    return rounder(0.001 * float(Decimal(us)))

MB = 1.0 / (1024 * 1024)

def check_stats(path, exp):
    rows, _ = run("memory", path, "-c", "op,device,calls,size_inc,self_size_inc,allocs,self_allocs,alloc_size,self_alloc_size")
    mine = {}
    for r in rows:
        mine.setdefault(r["Device"], []).append([r["Operator"], int(r["Calls"]), kb(r["SizeInc(B)"]), kb(r["SelfSizeInc(B)"]),
                                                int(r["Allocs"]), int(r["SelfAllocs"]), kb(r["AllocSize(B)"]), kb(r["SelfAllocSize(B)"])])
    erows = exp["rows"]
    if sorted(mine) != sorted(erows):
        return "devices %s, expected %s" % (sorted(mine), sorted(erows))
    for dev, er in erows.items():
        mr = mine[dev]
        if len(mr) != len(er):
            return "%s: %d rows, expected %d" % (dev, len(mr), len(er))
        for m, e in zip(mr, er):
            if m != e:
                return "%s: %s, expected %s" % (dev, m, e)
    return None

def load_trace(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f)

def cross_device_pairs(path):
    """The plugin pairs allocations and releases by Addr alone (SPEC 12.12);
    tprof pairs by (device, Addr).  Returns the plugin's pairs whose two
    records are on different devices: (alloc device, free device, bytes)."""
    ev = [e for e in load_trace(path)["traceEvents"] if e.get("ph") == "i" and e.get("name") == "[memory]"]
    ev.sort(key=lambda e: e["ts"])
    name = lambda a: "CPU" if a.get("Device Type") == 0 else "GPU%s" % a.get("Device Id") if a.get("Device Type") == 1 else None
    alloc, out = {}, []
    for e in ev:
        a = e.get("args", {})
        if a.get("Addr") is None:
            continue
        if a.get("Bytes", 0) > 0:
            alloc[a["Addr"]] = e
        elif a["Addr"] in alloc:
            x = alloc.pop(a["Addr"])
            if name(x["args"]) != name(a):
                out.append((name(x["args"]), name(a), x["ts"], e["ts"]))
    return out

def check_events(path, exp, start_us):
    rows, _ = run("memory", path, "--events", "-c", "op,device,size,alloc_time,release_time,duration")
    mine = {}
    for r in rows:
        f = lambda k: None if r[k] == "-" else ms(r[k])
        mine.setdefault(r["Device"], []).append([r["Operator"], kb(r["Size(B)"]), f("AllocTime(us)"), f("ReleaseTime(us)"), f("Duration(us)")])
    erows = {d: [list(x) for x in v] for d, v in exp["rows"].items()}
    # the documented correction: a cross-device pair is an unreleased allocation and an unmatched release
    for adev, fdev, ats, fts in cross_device_pairs(path):
        a_ms, f_ms = rounder(0.001 * (ats - start_us)), rounder(0.001 * (fts - start_us))
        hit = [x for x in erows.get(adev, []) if x[2] == a_ms and x[3] == f_ms]
        if not hit:
            return "cannot find the plugin's cross-device pair %s/%s at %s" % (adev, fdev, a_ms)
        x = hit[0]
        erows[adev].remove(x)
        erows[adev].append([x[0], x[1], a_ms, None, None])
        erows.setdefault(fdev, []).append(["<unknown>", x[1], None, f_ms, None])
    key = lambda x: json.dumps(x)
    if sorted(mine) != sorted(erows):
        return "devices %s, expected %s" % (sorted(mine), sorted(erows))
    for dev in erows:
        a, b = sorted(mine[dev], key=key), sorted(erows[dev], key=key)
        if a != b:
            diff = [x for x in a if x not in b][:2], [x for x in b if x not in a][:2]
            return "%s: %d rows (expected %d); mine only %s, plugin only %s" % (dev, len(a), len(b), diff[0], diff[1])
    return None

def check_curve(path, exp):
    rows, err = run("memory", path, "--curve", "-c", "device,time,allocated,reserved,mark")
    pts, peaks = {}, {}
    for r in rows:
        if r["Mark"] == "peak":
            peaks[r["Device"]] = "Peak Memory Usage: {:.1f}{}".format(MB * int(r["Allocated(B)"]), "MB")
            continue
        pts.setdefault(r["Device"], []).append([0.001 * float(Decimal(r["Time(us)"])), MB * int(r["Allocated(B)"]), MB * int(r["Reserved(B)"])])
    curves = {}
    for dev, c in pts.items():   # the plugin's patch_for_step_plot
        out = []
        for i, p in enumerate(c):
            if i:
                out.append(p[:1] + out[-1][1:])
            out.append(p)
        curves[dev] = out
    meta = exp["metadata"]
    if sorted(curves) != meta["devices"] or sorted(curves) != sorted(exp["rows"]):
        if not exp["rows"] and not rows and "no memory curve" in err:
            return None
        return "devices %s, expected %s" % (sorted(curves), meta["devices"])
    if peaks != meta["peaks"]:
        return "peaks %s, expected %s" % (peaks, meta["peaks"])
    for dev, c in curves.items():
        e = exp["rows"][dev]
        if len(e) >= 10240:
            return "SKIP: the plugin downsampled this curve (LTTB)"
        # times: the plugin subtracts float µs (modern traces write ts like
        # 2241346127022.523, where a float keeps ~0.0005 µs); tprof's are exact
        same = lambda p, q: p[1:] == q[1:] and abs(p[0] - q[0]) <= 2e-6
        if len(c) != len(e) or not all(same(p, q) for p, q in zip(c, e)):
            bad = [i for i, (x, y) in enumerate(zip(c, e)) if not same(x, y)]
            return "%s: %d points, expected %d; first difference at %s" % (dev, len(c), len(e), bad[:1])
    return None

def check_ops_memory(path, stats):
    rows, _ = run("ops", path, "-c", "name,calls,cpu_mem,self_cpu_mem,dev_mem,self_dev_mem")
    exp = {}
    for dev, er in stats["rows"].items():
        for e in er:
            d = exp.setdefault(e[0], [0, 0, 0, 0])
            if dev == "CPU":
                d[0] += e[2]; d[1] += e[3]
            else:
                d[2] += e[2]; d[3] += e[3]
    seen = 0
    for r in rows:
        m = [kb(r["CPUMem(B)"]), kb(r["SelfCPUMem(B)"]), kb(r["DevMem(B)"]), kb(r["SelfDevMem(B)"])]
        e = exp.get(r["Name"], [0, 0, 0, 0])
        if r["Name"] in exp:
            seen += 1
        if m != e:
            return "%s: cpu_mem/self_cpu_mem/dev_mem/self_dev_mem %s KB, expected %s" % (r["Name"], m, e)
    if seen != len(exp):
        return "%d of the plugin's %d memory rows are operators of the ops view" % (seen, len(exp))
    return None

def check_modules(path, exp):
    rows, err = run("modules", path, "-c", "module,id,depth,occurrences,operators,host_total,host_self,dev_total,dev_self")
    flat = []
    def walk(lst, depth):
        for d in lst:
            flat.append((d["name"], d["id"], depth, d["occurences"], d["operators"], d["host_duration"],
                         d["self_host_duration"], d["device_duration"], d["self_device_duration"]))
            walk(d["children"], depth + 1)
    if exp is None:
        if rows:
            return "%d module rows, the plugin shows no module view" % len(rows)
        return None
    walk(exp["data"], 0)
    mine = [(r["Module"].strip(), int(r["Id"]), int(r["Depth"]), int(r["Occurrences"]), int(r["Operators"]),
             Decimal(r["HostTotal(us)"]), Decimal(r["HostSelf(us)"]), Decimal(r["DeviceTotal(us)"]), Decimal(r["DeviceSelf(us)"]))
            for r in rows]
    if len(mine) != len(flat):
        return "%d rows, expected %d" % (len(mine), len(flat))
    for m, e in zip(mine, flat):
        if m[:5] != e[:5] or any(abs(a - Decimal(str(b))) > Decimal("0.5000001") for a, b in zip(m[5:], e[5:])):
            return "%s, expected %s" % (m, e)
    for r in rows:
        if r["Module"] != "  " * int(r["Depth"]) + r["Module"].strip():
            return "%r is not indented by its depth" % r["Module"]
    return None

TORCH_CATS = {"cpu_op", "operator", "user_annotation", "runtime", "cuda_runtime", "mtia_runtime", "glow_runtime",
              "xpu_runtime", "privateuse1_runtime", "hip_runtime", "cuda_driver", "xpu_driver", "privateuse1_driver"}

def self_cpu_total_us(path):
    """key_averages' "Self CPU time total", computed here from the raw events:
    the durations of the host events torch lists that no other one on the
    same thread encloses."""
    by_thread = {}
    for e in load_trace(path)["traceEvents"]:
        if e.get("ph") == "X" and str(e.get("cat", "")).lower() in TORCH_CATS:
            by_thread.setdefault((str(e.get("pid")), str(e.get("tid"))), []).append((Decimal(str(e["ts"])), Decimal(str(e.get("dur", 0)))))
    total = Decimal(0)
    for evs in by_thread.values():
        evs.sort(key=lambda x: (x[0], -x[1]))
        reach = None
        for ts, dur in evs:
            if reach is None or ts + dur > reach:   # nothing before it encloses it whole
                total += dur
                reach = ts + dur
    return total

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}

def self_cuda_total_us(path):
    """key_averages' "Self CUDA time total": every GPU activity's duration."""
    return sum((Decimal(str(e.get("dur", 0))) for e in load_trace(path)["traceEvents"]
                if e.get("ph") == "X" and e.get("cat") in GPU_CATS and Decimal(str(e.get("dur", 0))) > 0), Decimal(0))

def torch_time(us):
    """torch.autograd.profiler_util._format_time"""
    us = float(us)
    return "%.3fs" % (us / 1e6) if us >= 1e6 else "%.3fms" % (us / 1e3) if us >= 1e3 else "%.3fus" % us

def shares(r, e, total, side, key, total_col):
    """Self<SIDE>(%) and <SIDE>Total(%) of ops row r against the plugin's row e
    over the Self <SIDE> time total, and <side>_avg = total / calls."""
    for mine, k in ((r["Self%s(%%)" % side], key + "_self_duration"), (r["%sTotal(%%)" % side], key + "_total_duration")):
        want = Decimal(e[k]) * 100 / total
        if abs(Decimal(mine) - want) > Decimal("0.0051") + Decimal("0.5") * 100 / total:
            return "%s: %s %s%%, expected %.4f%% (Self %s time total %s us)" % (r["Name"], k, mine, want, side, total)
    avg = Decimal(r[total_col]) / int(r["Calls"])
    if abs(Decimal(r["%sAvg(us)" % side]) - avg) > Decimal("0.0005"):
        return "%s: %s_avg %s, expected %s" % (r["Name"], side.lower(), r["%sAvg(us)" % side], avg)
    return None

def check_keyavg(path, table):
    """self_cpu_pct / cpu_total_pct against the plugin's host times over the
    Self CPU time total; cpu_avg = host total / calls; the CUDA ones likewise
    over the Self CUDA time total; the footer lines (stderr with --csv)."""
    rows, err = run("ops", path, "-c", "name,calls,host_self,host_total,self_cpu_pct,cpu_total_pct,cpu_avg,"
                    "dev_self,dev_total,self_cuda_pct,cuda_total_pct,cuda_avg")
    total = self_cpu_total_us(path)
    cuda = self_cuda_total_us(path)
    if total <= 0:
        return "SKIP: no host time"
    want_footer = ["tprof: Self CPU time total: " + torch_time(total)]
    if cuda > 0:
        want_footer.append("tprof: Self CUDA time total: " + torch_time(cuda))
    got_footer = [l for l in err.splitlines() if " time total: " in l]
    if got_footer != want_footer:
        return "footer %r, expected %r" % (got_footer, want_footer)
    exp_rows = {e["name"]: e for e in table["data"]}
    for r in rows:
        e = exp_rows.get(r["Name"])
        if e is None or cuda <= 0:
            continue
        why = shares(r, e, cuda, "CUDA", "device", "DeviceTotal(us)")
        if why:
            return why
    exp = {e["name"]: e for e in table["data"]}
    pct = Decimal(0)
    for r in rows:
        e = exp.get(r["Name"])
        if e is None:
            return "%s: not in the plugin's operator table" % r["Name"]
        why = shares(r, e, total, "CPU", "host", "HostTotal(us)")
        if why:
            return why
        pct += Decimal(r["SelfCPU(%)"])
    if pct > 100 + Decimal("0.01") * len(rows):
        return "self_cpu_pct sums to %s%%" % pct
    return None

counts = {"ok": 0, "FAIL": 0, "skip": 0}
def report(name, why):
    if why is None:
        print("ok %s" % name); counts["ok"] += 1
    elif why.startswith("SKIP: "):
        print("skip %s: %s" % (name, why[6:])); counts["skip"] += 1
    else:
        print("FAIL %s: %s" % (name, why)); counts["FAIL"] += 1

cases = sorted(glob.glob(os.path.join(K, "expected", "**", "*.expected.json"), recursive=True))
for ef in cases:
    if ef.endswith("__DISTRIBUTED.expected.json"):
        continue
    with open(ef) as f:
        exp = json.load(f)
    if "error" in exp:
        continue   # the plugin fails on this input (SPEC §14.2)
    base = os.path.relpath(ef, os.path.join(K, "expected")).replace(".expected.json", "")
    inp = os.path.join(K, "data", exp.get("input", ""))
    if not os.path.exists(inp):
        report("tbmemory/%s" % base, "SKIP: input %s missing" % exp.get("input"))
        continue
    checks = []
    if "memory_stats_KB" in exp:
        start = exp["memory_curve_ms_MB"]["metadata"]["first_ts"]
        checks += [("memory", lambda: check_stats(inp, exp["memory_stats_KB"])),
                   ("memory-events", lambda: check_events(inp, exp["memory_events_ms_KB"], start)),
                   ("memory-curve", lambda: check_curve(inp, exp["memory_curve_ms_MB"])),
                   ("ops-memory", lambda: check_ops_memory(inp, exp["memory_stats_KB"]))]
    else:
        def no_memory():
            rows, err = run("memory", inp)
            if rows or "no [memory] events" not in err:
                return "%d rows / stderr %r for a trace without [memory] events" % (len(rows), err.strip()[:80])
            return None
        checks.append(("memory-none", no_memory))
    if "operation_table_by_name" in exp:
        checks.append(("ops-keyavg", lambda: check_keyavg(inp, exp["operation_table_by_name"])))
    if "module_view" in exp:
        checks.append(("modules", lambda: check_modules(inp, exp["module_view"])))
    for kind, fn in checks:
        try:
            why = fn()
        except Exception as ex:
            why = "%s: %s" % (type(ex).__name__, ex)
        report("tbmemory/%s/%s" % (kind, base), why)
PY
