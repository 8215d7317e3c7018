#!/bin/sh
# Golden tests: tprof's HTA views (temporal, kernel-types, overlap, idle,
# launches, queue) against the numbers Holistic Trace Analysis' own tests
# assert on the traces we have (../shared/reference/peers SPEC §1.7), plus
# tprof's corrected (exact-ns) values checked against an independent exact
# computation, and sanity checks on TraceLens B200/MI300 traces.
#
# HTA's numbers are reproduced with TPROF_HTA_QUIRKS=1 (HTA's µs rounding and
# its other documented bugs).  tprof's default measures exact nanoseconds;
# where the two differ the test asserts tprof's value and says why.
# Prints one "ok NAME" / "FAIL NAME: why" / "skip NAME: why" line per case.
REF=${REF:-../shared/reference}
P="$REF/peers"
. "$(dirname "$0")/lib.sh"
golden_python hta "$P/hta_data/tests/data" "./cli/tprof" "$P" <<'PY'
import csv, gzip, io, json, os, re, subprocess, sys
from decimal import Decimal as D
from golden import case, csv_view

P = sys.argv[1]
H = os.path.join(P, "hta_data/tests/data")
T = os.path.join(P, "other_data/AMD-AGI-TraceLens/tests/traces")
TPROF = "./cli/tprof"

def run(view, path, *extra, quirks=False):
    env = dict(os.environ)
    env.pop("TPROF_HTA_QUIRKS", None)
    if quirks:
        extra = ("--hta-quirks",) + extra
    return csv_view(TPROF, view, path, *extra, env=env, label=view)[0]

def near(got, want, tol):
    return abs(D(got) - D(str(want))) <= D(str(tol))

def expect(pairs):
    for what, got, want, tol in pairs:
        if tol is None:
            if str(got) != str(want):
                return "%s %s, expected %s" % (what, got, want)
        elif got in ("-", None) or not near(got, want, tol):
            return "%s %s, expected %s (±%s)" % (what, got, want, tol)
    return None

MTIA = os.path.join(H, "mtia_trace_single_rank/mtia_rank_0.json.gz")

# ---- HTA's test_trace_analysis.py on mtia_trace_single_rank, HTA's way ----

def mtia_temporal_hta():
    # test_mtia_temporal_breakdown: percentages of 5648827 / 7305596 / 373924
    # out of 13328347 within 0.01.  (Those µs totals predate HTA's fix that
    # keeps all events of a one-step trace; only the percentages are checked.)
    r = run("temporal", MTIA, quirks=True)[0]
    return expect([("rank", r["Rank"], "0", None),
                   ("idle%", r["Idle(%)"], round(5648827.0 * 100 / 13328347, 3), "0.01"),
                   ("compute%", r["Compute(%)"], round(7305596.0 * 100 / 13328347, 3), "0.01"),
                   ("non_compute%", r["NonCompute(%)"], round(373924.0 * 100 / 13328347, 3), "0.01")])

def mtia_kernel_types_hta():
    # test_get_mtia_kernel_breakdown: row 0 is COMPUTATION with sum 7305597
    rows = run("kernel-types", MTIA, quirks=True)
    return expect([("row 0", rows[0]["KernelType"], "COMPUTATION", None),
                   ("sum", rows[0]["Time(us)"], "7305597", None)])

def mtia_kernel_table_hta():
    # test_get_mtia_kernel_breakdown, per-kernel table (sorted by type, name):
    # row 0 COMPUTATION sum 77283, row 11 MEMORY sum 400892
    rows = run("kernel-types", MTIA, "--group", "kernel", quirks=True)
    return expect([("row 0 type", rows[0]["KernelType"], "COMPUTATION", None),
                   ("row 0 sum", rows[0]["Time(us)"], "77283", None),
                   ("row 11 type", rows[11]["KernelType"], "MEMORY", None),
                   ("row 11 sum", rows[11]["Time(us)"], "400892", None),
                   # HTA's re-aggregation after the cut: max = min = mean = sum
                   ("row 0 max", rows[0]["Max(us)"], "77283", None)])

def mtia_kernel_table_exact():
    # exact durations: the same rows; add-dtype_Float sums to 77865.464 µs and
    # dma_request to 423089.112 µs (HTA's rounding loses 22197 µs, 5%); each
    # kept row keeps its own max/min/mean/std (HTA: all equal to the sum)
    rows = run("kernel-types", MTIA, "--group", "kernel")
    hta = run("kernel-types", MTIA, "--group", "kernel", quirks=True)
    return expect([("names", [r["Name"] for r in rows], [r["Name"] for r in hta], None),
                   ("row 0 sum", rows[0]["Time(us)"], "77865.464", None),
                   ("row 0 max", rows[0]["Max(us)"], "2041.584", None),
                   ("row 0 calls", rows[0]["Calls"], "586", None),
                   ("row 11 sum", rows[11]["Time(us)"], "423089.112", None),
                   ("row 11 calls", rows[11]["Calls"], "22224", None)])

def mtia_idle_hta():
    # test_get_mtia_idle_time_breakdown: streams {1, 102}, three categories,
    # stream 1 host_wait 417937 with ratio 0.07, ratios sum to 2.0
    rows = run("idle", MTIA, quirks=True)
    streams = sorted({r["Stream"] for r in rows}, key=int)
    cats = sorted({r["Category"] for r in rows})
    s1 = [r for r in rows if r["Stream"] == "1" and r["Category"] == "host_wait"][0]
    total = sum(D(r["Ratio"]) for r in rows)
    return expect([("streams", streams, ["1", "102"], None),
                   ("categories", cats, ["host_wait", "kernel_wait", "other"], None),
                   ("stream 1 host_wait", s1["Idle(us)"], "417937", None),
                   ("stream 1 host_wait ratio", s1["Ratio"], "0.07", None),
                   ("ratio sum", total, 2, "0.011")])

def mtia_queue(quirks):
    def f():
        # test_get_mtia_queue_length_stats: streams [1, 102]; stream 102:
        # count 6, mean 0.5, std 0.547723, min 0, 25% 0, 50% 0.5, 75% 1, max 1 (2 places)
        rows = run("queue", MTIA, quirks=quirks)
        s = [r for r in rows if r["Stream"] == "102"][0]
        return expect([("streams", [r["Stream"] for r in rows], ["1", "102"], None),
                       ("count", s["Count"], 6, 0), ("mean", s["Mean"], 0.5, "0.005"),
                       ("std", s["Std"], 0.547723, "0.005"), ("min", s["Min"], 0, 0),
                       ("25%", s["P25"], 0, "0.005"), ("50%", s["P50"], 0.5, "0.005"),
                       ("75%", s["P75"], 1, "0.005"), ("max", s["Max"], 1, 0)])
    return f

def mtia_blocked(quirks):
    def f():
        # test_get_time_spent_blocked_on_full_queue at max_queue_length=1:
        # 1,060 us, relative 0.000079 (HTA keeps only the last stream, 102;
        # tprof gives every stream).  Exact ns: within HTA's µs rounding.
        rows = run("queue", MTIA, "--max-queue", "1", "-c", "stream,blocked,blocked_rel", quirks=quirks)
        s = [r for r in rows if r["Stream"] == "102"]
        if len(s) != 1:
            return "%d rows for stream 102" % len(s)
        return expect([("blocked", s[0]["Blocked(us)"], "1060", "0" if quirks else "1"),
                       ("relative", s[0]["BlockedRel"], "0.000079", "0.0000005")])
    return f

def mtia_launch(quirks, exact):
    def f():
        # test_get_mtia_kernel_launch_stats: correlation 423 -> cpu 435.2,
        # gpu 124.768, delay 0 (±2, HTA's µs rounding).  tprof's exact values
        # are the nominal ones.
        rows = [r for r in run("launches", MTIA, quirks=quirks) if r["Correlation"] == "423"]
        if len(rows) != 1:
            return "%d rows for correlation 423" % len(rows)
        r = rows[0]
        tol = "0" if exact else "2"
        return expect([("cpu_dur", r["CpuDur(us)"], "435.2", tol), ("gpu_dur", r["GpuDur(us)"], "124.768", tol),
                       ("launch_delay", r["LaunchDelay(us)"], "0", tol)])
    return f

case("hta mtia temporal (HTA)", mtia_temporal_hta)
case("hta mtia kernel-types (HTA)", mtia_kernel_types_hta)
case("hta mtia kernel table (HTA)", mtia_kernel_table_hta)
case("hta mtia kernel table exact", mtia_kernel_table_exact)
case("hta mtia idle (HTA)", mtia_idle_hta)
case("hta mtia queue (HTA)", mtia_queue(True))
case("hta mtia queue", mtia_queue(False))
case("hta mtia blocked on full queue (HTA)", mtia_blocked(True))
case("hta mtia blocked on full queue", mtia_blocked(False))
case("hta mtia launches (HTA)", mtia_launch(True, False))
case("hta mtia launches exact", mtia_launch(False, True))

# ---- tprof's corrected values ----

def exact_reference(path):
    """Temporal breakdown in exact decimal µs, written independently of tprof:
    GPU events = kernel/memcpy/memset/sync events with a stream; with >= 2
    ProfilerSteps only those whose launch call (same correlation) started
    before the last step (HTA's load filter, CPU-side steps)."""
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rb") as fh:
        d = json.load(fh, parse_float=D)
    ev = d["traceEvents"] if isinstance(d, dict) else d
    steps = [e for e in ev if e.get("ph") == "X" and str(e.get("name", "")).startswith("ProfilerStep#")
             and e.get("cat") in ("cpu_op", "user_annotation")]
    launch = {}
    for e in ev:
        a = e.get("args") or {}
        if e.get("ph") == "X" and str(e.get("cat", "")).lower() in ("cuda_runtime", "runtime", "cuda_driver") \
                and "correlation" in a:
            launch.setdefault(a["correlation"], D(str(e["ts"])))
    cut = max(D(str(s["ts"])) for s in steps) if len({s["name"] for s in steps}) >= 2 else None
    comp_excl = re.compile(r"(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|"
                           r"(cuda.*LaunchKernel)|(^runFunction)|(^job_exe)|(^packet)|(^pe_exe)|"
                           r"(^cpum_exe_subgraph)|(^hccl)|(^collective_subgraph_execution)")
    comm = re.compile(r"(^nccl.*)|(^hccl)|(.*ncclKernel.*)")
    mem = re.compile(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)")
    allv, comp, typed = [], [], {"COMPUTATION": [], "COMMUNICATION": [], "MEMORY": []}
    for e in ev:
        a = e.get("args") or {}
        if e.get("ph") != "X" or str(e.get("cat", "")).lower() not in (
                "kernel", "gpu_memcpy", "gpu_memset", "memcpy", "memset", "mtia_ccp_events", "cuda_sync"):
            continue
        if not isinstance(a.get("stream"), int) or a["stream"] < 0:
            continue
        if cut is not None:
            c = a.get("correlation", -1)
            t0 = D(str(e["ts"])) if c < 0 else launch.get(c)
            if t0 is None or not t0 < cut:
                continue
        s = D(str(e["ts"]))
        iv = (s, s + D(str(e["dur"])))
        allv.append(iv)
        n = e["name"]
        if comm.match(n):
            typed["COMMUNICATION"].append(iv)
        elif mem.match(n):
            typed["MEMORY"].append(iv)
        elif not comp_excl.match(n):
            comp.append(iv)
            typed["COMPUTATION"].append(iv)
    def union(v):
        tot, cur = D(0), None
        for s, t in sorted(v):
            if cur is None or s > cur[1]:
                if cur:
                    tot += cur[1] - cur[0]
                cur = [s, t]
            else:
                cur[1] = max(cur[1], t)
        return tot + (cur[1] - cur[0] if cur else 0)
    kt = max(t for s, t in allv) - min(s for s, t in allv)
    idle = kt - union(allv)
    c = union(comp)
    # kernel types: which types cover each elementary segment between any two
    # boundaries (no sweep), labelled as HTA labels them
    bounds = sorted({x for v in typed.values() for iv in v for x in iv})
    cover = {k: [0] * len(bounds) for k in typed}
    for k, v in typed.items():
        diff = [0] * (len(bounds) + 1)
        pos = {b: i for i, b in enumerate(bounds)}
        for a, b in v:
            diff[pos[a]] += 1
            diff[pos[b]] -= 1
        run_ = 0
        for i in range(len(bounds)):
            run_ += diff[i]
            cover[k][i] = run_ > 0
    combos = {}
    for i in range(len(bounds) - 1):
        on = [k for k in ("COMPUTATION", "COMMUNICATION", "MEMORY") if cover[k][i]]
        if on:
            lab = " overlapping ".join(on)
            combos[lab] = combos.get(lab, 0) + bounds[i + 1] - bounds[i]
    return {"KernelTime(us)": kt, "Idle(us)": idle, "Compute(us)": c, "NonCompute(us)": kt - c - idle,
            "_types": {k: v for k, v in combos.items() if v > 0},
            "_comm": union(typed["COMMUNICATION"])}

def exact_temporal(path, literal=None):
    def f():
        r = run("temporal", path)[0]
        want = literal or exact_reference(path)
        for k, v in want.items():
            if k.startswith("_"):
                continue
            if D(r[k]) != D(str(v)):
                return "%s %s, expected %s" % (k, r[k], v)
        if D(r["Idle(us)"]) + D(r["Compute(us)"]) + D(r["NonCompute(us)"]) != D(r["KernelTime(us)"]):
            return "parts do not sum to kernel_time"
        if "_types" in want:
            got = {x["KernelType"]: D(x["Time(us)"]) for x in run("kernel-types", path)}
            if got != want["_types"]:
                return "kernel-types %s, expected %s" % (got, want["_types"])
            o = run("overlap", path)[0]
            ov = sum(v for k, v in want["_types"].items() if "COMPUTATION overlapping COMMUNICATION" in k)
            if D(o["Comm(us)"]) != want["_comm"] or D(o["Overlap(us)"]) != ov:
                return "overlap %s / %s, expected %s / %s" % (o["Overlap(us)"], o["Comm(us)"], ov, want["_comm"])
        return None
    return f

# mtia: exact ns instead of HTA's ceil(start)/floor(end) in µs.  HTA loses up
# to 2 µs per event: its memory (dma) time is 372998 µs where the trace says
# 391734.208, and its span is 13328071 µs against 13328071.736.  These are
# the corrected values (checked once against exact_reference, which reads the
# 87 MB file too slowly to run every time).
case("hta mtia temporal exact", exact_temporal(MTIA, {
    "KernelTime(us)": "13328071.736", "Idle(us)": "5627274.392",
    "Compute(us)": "7309063.136", "NonCompute(us)": "391734.208"}))
for name, rel in (("ns_resolution", "ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"),
                  ("sampled rank 1", "trace_filter/sampled_rank-1.json.gz"),
                  ("negative_queue", "negative_queue_length_values_check/rank0.json.gz")):
    case("hta %s temporal, kernel-types, overlap exact" % name, exact_temporal(os.path.join(H, rel)))

def stream_reference(path):
    """idle, queue and launches in exact decimal µs, written independently of
    tprof (HTA's definitions with tprof's corrections: gaps from the latest
    end so far, only positive gaps; launches first at equal timestamps)."""
    with gzip.open(path, "rb") as fh:
        d = json.load(fh, parse_float=D)
    ev = [e for e in d["traceEvents"] if e.get("ph") == "X"]
    steps = [e for e in ev if str(e.get("name", "")).startswith("ProfilerStep#")
             and e.get("cat") in ("cpu_op", "user_annotation")]
    cut = max(e["ts"] for e in steps) if len({e["name"] for e in steps}) >= 2 else None
    rt = {}
    for e in ev:
        a = e.get("args") or {}
        if str(e.get("cat", "")).lower() in ("cuda_runtime", "runtime", "cuda_driver") and "correlation" in a:
            rt.setdefault(a["correlation"], e)
    names = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx", "cudaMemcpyAsync",
             "cudaMemsetAsync", "runFunction - job_prep_and_submit_for_execution", "hipLaunchKernel",
             "hipExtModuleLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync", "hipMemcpyWithStream"}
    kern = []
    for i, e in enumerate(ev):
        a = e.get("args") or {}
        if str(e.get("cat", "")).lower() not in ("kernel", "gpu_memcpy", "gpu_memset") or a.get("stream", -1) < 0:
            continue
        r = rt.get(a.get("correlation", -1))
        if cut is not None and (r is None or not r["ts"] < cut):
            continue
        kern.append((a["stream"], e["ts"], i, e["ts"] + e["dur"], r))
    kern.sort(key=lambda k: (k[0], k[1], k[2]))
    idle, prev = {}, {}
    for st, ts, i, end, r in kern:
        for c in ("host_wait", "kernel_wait", "other"):
            idle.setdefault((st, c), D(0))
        if st in prev:
            gap = ts - prev[st]
            if gap > 0:
                c = "host_wait" if r is not None and r["ts"] > prev[st] else "kernel_wait" if gap < 30 else "other"
                idle[(st, c)] += gap
        prev[st] = max(prev.get(st, end), end)
    pts, launches = {}, []
    for st, ts, i, end, r in kern:
        if r is None or r["name"] not in names:
            continue
        pts.setdefault(st, []).extend([(r["ts"], 0, 1), (ts, 1, -1)])
        delay = max(D(0), ts - r["ts"] - r["dur"])
        launches.append((str(ev[i]["args"]["correlation"]), r["dur"], end - ts, delay))
    queue = {}
    for st, p in pts.items():
        n, vals = 0, []
        for t, _, dlt in sorted(p):
            n += dlt
            vals.append(n)
        queue[st] = (len(vals), min(vals), max(vals), sum(vals))
    return idle, queue, sorted(launches)

def stream_views_exact():
    f = os.path.join(H, "trace_filter/sampled_rank-1.json.gz")
    idle, queue, launches = stream_reference(f)
    got = {(int(r["Stream"]), r["Category"]): D(r["Idle(us)"]) for r in run("idle", f)}
    if got != idle:
        return "idle %s, expected %s" % (sorted(got.items())[:4], sorted(idle.items())[:4])
    for r in run("queue", f):
        n, lo, hi, tot = queue.pop(int(r["Stream"]))
        if (int(r["Count"]), int(r["Min"]), int(r["Max"])) != (n, lo, hi) or not near(r["Mean"], D(tot) / n, "0.0005"):
            return "queue stream %s: %s" % (r["Stream"], r)
    if queue:
        return "queue streams missing: %s" % sorted(queue)
    got = sorted((r["Correlation"], D(r["CpuDur(us)"]), D(r["GpuDur(us)"]), D(r["LaunchDelay(us)"]))
                 for r in run("launches", f))
    if got != launches:
        return "launches differ (%d rows, expected %d)" % (len(got), len(launches))
    return None
case("hta sampled rank 1 idle, queue, launches exact", stream_views_exact)

def mtia_kernel_types_exact():
    # exact: COMPUTATION alone 7309063.136 (HTA: 7305597), MEMORY 391734.208 (HTA: 372998)
    rows = {r["KernelType"]: r for r in run("kernel-types", MTIA)}
    return expect([("rows", sorted(rows), ["COMPUTATION", "MEMORY"], None),
                   ("COMPUTATION", rows["COMPUTATION"]["Time(us)"], "7309063.136", None),
                   ("MEMORY", rows["MEMORY"]["Time(us)"], "391734.208", None)])
case("hta mtia kernel-types exact", mtia_kernel_types_exact)

def mtia_idle_exact():
    # HTA measures each gap from the previous event's end and sums negative
    # gaps: stream 1 kernel_wait is -10478 µs in HTA.  tprof counts only real
    # gaps (from the latest end so far): every time is >= 0, and stream 1
    # host_wait is 404263.96 µs (HTA 417937, ratio 0.07 in both).
    rows = run("idle", MTIA)
    neg = [r for r in rows if D(r["Idle(us)"]) < 0]
    s1 = {r["Category"]: r for r in rows if r["Stream"] == "1"}
    hta = {r["Category"]: r for r in run("idle", MTIA, quirks=True) if r["Stream"] == "1"}
    return expect([("negative rows", len(neg), 0, None),
                   ("HTA negative kernel_wait", D(hta["kernel_wait"]["Idle(us)"]) < 0, True, None),
                   ("host_wait", s1["host_wait"]["Idle(us)"], "404263.96", None),
                   ("ratio", s1["host_wait"]["Ratio"], "0.07", None)])
case("hta mtia idle exact", mtia_idle_exact)

# ---- the step window ----

def steps_window():
    # df_index_resolver has 5 ProfilerSteps: HTA leaves out the last one;
    # --all-steps keeps it (include_last_profiler_step=True), a longer span.
    f = os.path.join(H, "df_index_resolver/df_index_resolver.json.gz")
    a, b = run("temporal", f)[0], run("temporal", f, "--all-steps")[0]
    if not D(b["KernelTime(us)"]) > D(a["KernelTime(us)"]):
        return "--all-steps kernel_time %s not above %s" % (b["KernelTime(us)"], a["KernelTime(us)"])
    return expect([("rank", a["Rank"], "1", None)])
case("hta steps window", steps_window)

def two_ranks():
    # trace_filter: sampled ranks 0 and 1 of 128, ranks from distributedInfo
    got = [run("overlap", os.path.join(H, "trace_filter/sampled_rank-%d.json.gz" % i))[0]["Rank"] for i in (0, 1)]
    return expect([("ranks", got, ["0", "1"], None)])
case("hta ranks", two_ranks)

def negative_queue():
    # test_generate_trace_with_counters: 6 streams, no negative queue length
    f = os.path.join(H, "negative_queue_length_values_check/rank0.json.gz")
    for q in (False, True):
        rows = run("queue", f, quirks=q)
        if len(rows) != 6:
            return "%d streams, expected 6" % len(rows)
        if any(int(r["Min"]) < 0 for r in rows):
            return "negative queue length"
    return None
case("hta negative_queue_length", negative_queue)

def non_gpu():
    # rank_non_gpu: no GPU events -> empty results, exit 0, no division by zero
    f = os.path.join(H, "rank_non_gpu/rank_non_gpu.json.gz")
    t = run("temporal", f)[0]
    for v in ("kernel-types", "idle", "launches", "queue"):
        if run(v, f):
            return "%s has rows" % v
    return expect([("kernel_time", t["KernelTime(us)"], "0", None), ("idle%", t["Idle(%)"], "-", None),
                   ("overlap%", run("overlap", f)[0]["CommCompOverlap(%)"], "-", None)])
case("hta rank_non_gpu", non_gpu)

def sub_us():
    # ns-resolution trace: HTA's ceil(start)/floor(end) leaves launched GPU
    # events that ran 1-2 µs with 0 µs (sub-µs ones go negative, issue #317);
    # tprof keeps every duration exact and positive
    f = os.path.join(H, "ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz")
    mine = run("launches", f)
    hta = run("launches", f, quirks=True)
    if len(mine) != len(hta) or not mine:
        return "%d launches, HTA %d" % (len(mine), len(hta))
    if any(D(r["GpuDur(us)"]) <= 0 or D(r["CpuDur(us)"]) < 0 for r in mine):
        return "non-positive GPU duration"
    lost = sum(1 for r in hta if D(r["GpuDur(us)"]) <= 0)
    return expect([("GPU durations HTA rounds to <= 0", lost, 454, None)])
case("hta sub-us durations", sub_us)

def rocm_launches():
    # HTA's launch statistics know no hip* call: on its own ROCm test trace
    # it finds nothing; tprof finds the 16 launches (hipLaunchKernel,
    # hipExtModuleLaunchKernel, hipMemcpyWithStream)
    f = os.path.join(H, "amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz")
    mine, hta = run("launches", f), run("launches", f, quirks=True)
    return expect([("launches", len(mine), 16, None), ("HTA launches", len(hta), 0, None)])
case("hta rocm launches", rocm_launches)

def triton_cpu_op():
    # Triton's cpu_op carries "stream": 0, and HTA counts every event with a
    # stream as GPU work: its computation time is the CPU op's 94 µs instead
    # of the kernel's 1.76 µs
    f = os.path.join(H, "triton_example/triton_example.json.gz")
    mine, hta = run("temporal", f, "-c", "events,compute")[0], run("temporal", f, "-c", "events,compute", quirks=True)[0]
    return expect([("events", mine["Events"], "1", None), ("compute", mine["Compute(us)"], "1.76", None),
                   ("HTA events", hta["Events"], "2", None), ("HTA compute", hta["Compute(us)"], "94", None)])
case("hta triton cpu_op stream", triton_cpu_op)

def dlrm_run():
    # param's 8-rank DLRM run directory: one row per rank 0..7, parts sum,
    # overlap never above communication time
    d = os.path.join(P, "other_data/facebookresearch-param/et_replay/tests/inputs/dlrm_kineto")
    if not os.path.isdir(d):
        return None
    t = run("temporal", d)
    if [r["Rank"] for r in t] != [str(i) for i in range(8)]:
        return "ranks %s" % [r["Rank"] for r in t]
    for r in t:
        if D(r["Idle(us)"]) + D(r["Compute(us)"]) + D(r["NonCompute(us)"]) != D(r["KernelTime(us)"]):
            return "rank %s parts do not sum" % r["Rank"]
    for r in run("overlap", d):
        if not D(r["Comm(us)"]) > 0 or D(r["Overlap(us)"]) > D(r["Comm(us)"]):
            return "rank %s overlap %s comm %s" % (r["Rank"], r["Overlap(us)"], r["Comm(us)"])
    return None
case("hta dlrm run", dlrm_run)

def every_column():
    # every column of every view prints (CSV, JSON lines) on a real trace
    f = os.path.join(H, "trace_filter/sampled_rank-1.json.gz")
    for v in ("temporal", "kernel-types", "overlap", "idle", "launches", "queue"):
        h = subprocess.run([TPROF, v, "-h"], capture_output=True, text=True).stdout
        # the column keys: the lines of the "columns (-c):" section (the
        # view's options come before it)
        cols = h.split("columns (-c):\n", 1)[-1].split("\ndefault:", 1)[0]
        keys = [l.split()[0] for l in cols.splitlines() if l.startswith("  ") and not l.startswith("  key ")]
        for extra in ([], ["--group", "kernel"]) if v == "kernel-types" else ([],):
            for fmt in ("--csv", "--jsonl"):
                p = subprocess.run([TPROF, v, fmt, "-c", ",".join(keys), *extra, f], capture_output=True, text=True)
                if p.returncode != 0 or not p.stdout:
                    return "%s %s %s: exit %d %s" % (v, fmt, extra, p.returncode, p.stderr.strip()[:100])
    return None
case("hta every column", every_column)

# ---- sanity on TraceLens B200 / MI300 / MI210 / vLLM / Triton traces ----

def sanity(path):
    def f():
        t = run("temporal", path)[0]
        if D(t["Idle(us)"]) + D(t["Compute(us)"]) + D(t["NonCompute(us)"]) != D(t["KernelTime(us)"]):
            return "temporal parts do not sum"
        if min(D(t[k]) for k in ("Idle(us)", "Compute(us)", "NonCompute(us)")) < 0:
            return "negative temporal part"
        kt = run("kernel-types", path)
        if kt:
            s = sum(D(r["Pct"]) for r in kt)
            if abs(s - 100) > D("0.1") * len(kt):
                return "kernel-types pct sum %s" % s
            if any(D(r["Time(us)"]) <= 0 for r in kt):
                return "kernel-types zero row"
        o = run("overlap", path)[0]
        if D(o["Overlap(us)"]) > D(o["Comm(us)"]):
            return "overlap above comm"
        idle = run("idle", path)
        if any(D(r["Idle(us)"]) < 0 for r in idle):
            return "negative idle"
        for s in {r["Stream"] for r in idle}:
            rs = [D(r["Ratio"]) for r in idle if r["Stream"] == s and r["Ratio"] != "-"]
            if rs and abs(sum(rs) - 1) > D("0.011"):
                return "stream %s ratios sum to %s" % (s, sum(rs))
        for r in run("launches", path):
            delay = D(r["LaunchDelay(us)"]) if r["LaunchDelay(us)"] != "-" else 0   # "-": a later kernel of a graph replay
            if min(D(r["CpuDur(us)"]), D(r["GpuDur(us)"]), delay) < 0:
                return "negative launch numbers at correlation %s" % r["Correlation"]
        for r in run("queue", path):
            if int(r["Min"]) < 0 or int(r["Count"]) % 2:
                return "queue stream %s: min %s count %s" % (r["Stream"], r["Min"], r["Count"])
        return None
    return f

for rel in ("b200/eager_trace.json.gz", "mi300/resnet_act_checkpoint.json.gz",
            "mi300/gaunernst_bert-small-uncased__1016001.json.gz", "mi210/gpu_only_trace/gpu_only_trace.json.gz",
            "inference/vllm_decode_full/graph_execution.json.gz", "torch_compile_triton/trace.json.gz"):
    path = os.path.join(T, rel)
    if os.path.exists(path):
        case("hta sanity %s" % rel, sanity(path))
    else:
        print("skip hta sanity %s: not found" % rel)
for rel in ("amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz", "triton_example/triton_example.json.gz",
            "cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"):
    case("hta sanity %s" % rel, sanity(os.path.join(H, rel)))
def notes():
    # A trace with GPU work: every HTA view quiet on stderr.  A CPU-only
    # trace: each view exits 0 with one line saying what it cannot show.
    views = ("temporal", "kernel-types", "overlap", "idle", "launches", "queue")
    gpu = os.path.join(H, "trace_filter/sampled_rank-0.json.gz")
    cpu = os.path.join(H, "cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz")
    for v in views:
        p = subprocess.run([TPROF, v, "--csv", gpu], capture_output=True, text=True)
        if p.returncode != 0 or p.stderr:
            return "%s on a GPU trace: exit %d, stderr %r" % (v, p.returncode, p.stderr[:120])
        p = subprocess.run([TPROF, v, "--csv", cpu], capture_output=True, text=True)
        if p.returncode != 0 or len(p.stderr.splitlines()) != 1 or not p.stderr.startswith("tprof: "):
            return "%s on a CPU-only trace: exit %d, stderr %r" % (v, p.returncode, p.stderr[:160])
    return None
case("hta notes: quiet with GPU work, one line without", notes)
PY
