#!/bin/sh
# Golden tests: the attribution model (lib/attribution.c) on TraceLens' traces.
# For every trace beside a TraceLens ops_summary.csv, `tprof ops` DeviceSelf
# per operator must equal
#   - an independent reimplementation of the rule over the JSON (each GPU
#     activity -> its runtime/driver/graph launch call by correlation id ->
#     the innermost CPU op enclosing that call, else for a graph launch the
#     call itself, else nothing), to the ns;
#   - TraceLens' total_direct_kernel_time_sum to 0.01 us wherever TraceLens
#     attributes the activity (TraceLens links a non-graph call to its GPU
#     event only through an ac2g flow start: activities without one are left
#     out by TraceLens and added back here; reports made with a capture trace
#     charge graph kernels to captured ops: there tprof without --capture
#     must not exceed TraceLens per operator, and with --capture
#     capture_traces/ must equal it);
# and the coverage line on stderr must print the attributed, driver and graph
# shares computed here.  Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why".
REF=${REF:-../shared/reference}
TL="$REF/peers/other_data/AMD-AGI-TraceLens/tests/traces"
. "$(dirname "$0")/lib.sh"
golden_python attribution "$TL" "./cli/tprof" "$TL" <<'PY'
import collections, csv, glob, gzip, io, json, os, re, subprocess, sys

T = sys.argv[1]
TPROF = "./cli/tprof"
GRAPH = {"cudaGraphLaunch", "hipGraphLaunch", "cuGraphLaunch"}
DEVICE = {"kernel", "gpu_memcpy", "gpu_memset"}

def ns(us):
    return round(float(us) * 1000)

def pairs():
    for c in sorted(glob.glob(T + "/**/ops_summary.csv", recursive=True)):
        d = os.path.dirname(c)
        up, base = os.path.dirname(d), os.path.basename(d)
        if base.endswith("_perf_report_csvs"):
            t = os.path.join(up, base[: -len("_perf_report_csvs")] + ".json.gz")
        else:
            g = glob.glob(up + "/*.json.gz")
            t = g[0] if len(g) == 1 else None
        yield c, t, os.path.isdir(os.path.join(up, "capture_traces"))
    # B200 eager: 221 driver launches (cuLaunchKernelEx), no TraceLens report
    yield None, T + "/b200/eager_trace.json.gz", False

def expected(path):
    """Per operator name: device ns by the rule; TraceLens-unlinkable ns; shares."""
    ev = json.load(gzip.open(path))["traceEvents"]
    launch, ac2g_start, host = {}, set(), collections.defaultdict(list)
    for e in ev:
        cat, ph = e.get("cat"), e.get("ph")
        if cat == "ac2g" and ph == "s":
            ac2g_start.add(e.get("id"))
        if ph != "X":
            continue
        if cat in ("cuda_runtime", "cuda_driver"):
            c = e.get("args", {}).get("correlation")
            if c is not None and c not in launch:
                launch[c] = e
            host[(e["pid"], e["tid"])].append((ns(e["ts"]), -ns(e["dur"]), 1, id(e), e))
        elif cat == "cpu_op":
            host[(e["pid"], e["tid"])].append((ns(e["ts"]), -ns(e["dur"]), 0, id(e), e))
    op_of = {}   # id(launch call) -> innermost enclosing cpu_op or None
    for lst in host.values():
        lst.sort(key=lambda x: x[:4])
        stack = []
        for ts, mdur, is_rt, _, e in lst:
            end = ts - mdur
            while stack and (stack[-1][0] <= ts or stack[-1][0] < end):
                stack.pop()
            if is_rt:
                op_of[id(e)] = stack[-1][1] if stack else None
            else:
                stack.append((end, e))
    dev = collections.Counter()
    tl_lost = collections.Counter()
    outside, tl_lost_outside = collections.Counter(), collections.Counter()
    k_total = k_attr = k_drv = k_graph = 0
    for e in ev:
        if e.get("cat") not in DEVICE or e.get("ph") != "X":
            continue
        a = e.get("args", {})
        c = a.get("correlation")
        r = launch.get(c)
        d = ns(e["dur"])
        if e["cat"] == "kernel":
            k_total += d
        if r is None:
            continue
        op = op_of.get(id(r))
        is_graph = r["name"] in GRAPH
        if not op and not is_graph:
            # a launch outside any operator is no operator's time (as in the
            # plugin; a graph launch stands for its graph); TraceLens lists
            # the call as its own launcher
            outside[r["name"]] += d
            if c not in ac2g_start:
                tl_lost_outside[r["name"]] += d
            continue
        name = op["name"] if op else r["name"]
        dev[name] += d
        if not is_graph and c not in ac2g_start:
            tl_lost[name] += d
        if e["cat"] == "kernel":
            k_attr += d
            k_drv += d if r.get("cat") == "cuda_driver" and not is_graph else 0
            k_graph += d if is_graph else 0
    share = lambda x: "0%" if x == 0 else "%.1f%%" % (100.0 * x / k_total)
    return dev, tl_lost, (outside, tl_lost_outside), ("%.1f%%" % (100.0 * k_attr / k_total) if k_total else None,
                                        share(k_drv), share(k_graph))

def tl_norm(name, tl):
    # TraceLens' report drops sglang_profiler's "_<call number>" suffixes
    if name in tl:
        return name
    s = re.sub(r"_\d+$", "", name)
    return s if s in tl else name

def case_name(c, t):
    if c is None:
        where = t[: -len(".json.gz")]
    elif c.split("/")[-2].endswith("_perf_report_csvs"):
        where = c[: -len("_perf_report_csvs/ops_summary.csv")]
    else:
        where = os.path.dirname(os.path.dirname(c))
    return "attribution_" + os.path.relpath(where, T).replace("/", "_")

unmatched_capture = []
for c, t, captured in pairs():
    case = case_name(c, t)
    if not t or not os.path.exists(t):
        print("skip %s: no trace beside %s" % (case, os.path.relpath(c, T)))
        continue
    p = subprocess.run([TPROF, "ops", "--csv", "-c", "name,dev_self", t], capture_output=True, text=True)
    if p.returncode != 0:
        print("FAIL %s: exit %d: %s" % (case, p.returncode, p.stderr.strip()[:200]))
        continue
    got = {r["Name"]: ns(r["DeviceSelf(us)"]) for r in csv.DictReader(io.StringIO(p.stdout))}
    dev, tl_lost, (outside, tl_lost_outside), shares = expected(t)
    errs = []
    for name in set(dev) | set(got):
        if dev.get(name, 0) != got.get(name, 0):
            errs.append("%s: tprof %d ns, rule %d ns" % (name, got.get(name, 0), dev.get(name, 0)))
    tl, tl_count = collections.Counter(), collections.Counter()
    for r in csv.DictReader(open(c)) if c else []:
        tl[r["name"]] += float(r["total_direct_kernel_time_sum"])
        tl_count[r["name"]] += int(r["Count"])
    mine = collections.Counter()
    lost = collections.Counter()
    for name, v in got.items():
        mine[tl_norm(name, tl)] += v
        lost[tl_norm(name, tl)] += tl_lost.get(name, 0)
    compared = 0
    for name, want in tl.items():
        have = (mine.get(name, 0) - lost.get(name, 0)) / 1000.0
        compared += 1
        if name in outside and name not in mine:
            # a departure from TraceLens: kernels of a call outside any
            # operator stay unattributed (the coverage line counts them)
            have = (outside[name] - tl_lost_outside[name]) / 1000.0
            if "outside any operator" not in p.stderr:
                errs.append("%s: coverage line does not name the launches outside any operator" % name)
        if captured:
            # graph kernels go to captured ops in TraceLens, to the graph's launcher here
            if have > want + 0.01:
                errs.append("%s: eager %.3f us > TraceLens %.3f us" % (name, have, want))
            continue
        if abs(have - want) > 0.01:
            errs.append("%s: tprof %.3f us (TraceLens-linkable), TraceLens %.3f us" % (name, have, want))
    m = re.search(r": (\S+) of kernel time attributed to operators \(driver launches (\S+), graph replays (\S+),",
                  p.stderr)
    if not m:
        errs.append("no coverage line: %s" % p.stderr.strip()[:200])
    elif (m.group(1), m.group(2), m.group(3)) != shares:
        errs.append("coverage %s, computed %s" % (m.groups(), shares))
    if shares[2] != "0%" and "graph launch" not in p.stderr:
        errs.append("coverage line does not say the graph kernels went to the graph's launcher")
    if captured:
        # with the capture trace: graph kernels go to the captured operators, as TraceLens' report
        cdir = os.path.join(os.path.dirname(t), "capture_traces")
        q = subprocess.run([TPROF, "ops", "--csv", "-c", "name,calls,dev_self", "--capture", cdir, t],
                           capture_output=True, text=True)
        cap = collections.Counter()
        for r in csv.DictReader(io.StringIO(q.stdout)):
            cap[tl_norm(r["Name"], tl)] += ns(r["DeviceSelf(us)"])
        if q.returncode != 0:
            errs.append("--capture: exit %d, stderr %r" % (q.returncode, q.stderr[-200:]))
        elif "charged to the operators captured in the graph" not in q.stderr:
            # TraceLens aligns a replay with a capture of another size by kernel
            # name (args.kernel), which tprof does not read: the line must say so
            if "none of the" not in q.stderr or "has a replay's size" not in q.stderr:
                errs.append("--capture: unmatched replays not reported: %r" % q.stderr[-200:])
            else:
                unmatched_capture.append(case)
        else:
            for name, want in tl.items():
                have = (cap.get(name, 0) - lost.get(name, 0)) / 1000.0
                if name in outside and name not in cap:
                    have = (outside[name] - tl_lost_outside[name]) / 1000.0
                # TraceLens' busy time of each kernel comes from float64 absolute
                # microsecond timestamps near 5e12 (1 ns resolution): allow 1 ns
                # per launching op on top of 0.01 us
                if abs(have - want) > 0.01 + 0.001 * tl_count[name]:
                    errs.append("--capture %s: tprof %.3f us, TraceLens %.3f us" % (name, have, want))
    if errs:
        print("FAIL %s: %d differences: %s" % (case, len(errs), "; ".join(sorted(errs)[:4])))
    else:
        print("ok %s (%d ops by the rule, %d against TraceLens%s; %s attributed, graph replays %s)" %
              (case, len(dev), compared,
               "" if not captured else ", --capture: replays of another size than the capture, said"
               if case in unmatched_capture else ", and with --capture", shares[0], shares[2]))

# launches: a graph launch is a launch (every replayed kernel a row, one delay per replay)
def graph_launches(path):
    ev = json.load(gzip.open(path))["traceEvents"]
    graph = {e["args"]["correlation"] for e in ev
             if e.get("cat") == "cuda_runtime" and e.get("name") in GRAPH and "correlation" in e.get("args", {})}
    gpu = [e for e in ev if e.get("cat") in DEVICE and e.get("ph") == "X"]
    replayed = sum(1 for e in gpu if e.get("args", {}).get("correlation") in graph)
    p = subprocess.run([TPROF, "launches", "--csv", "--quiet", path], capture_output=True, text=True)
    rows = list(csv.DictReader(io.StringIO(p.stdout)))
    g = [r for r in rows if r["Runtime"] in GRAPH]
    with_delay = [r for r in g if r["LaunchDelay(us)"] != "-"]
    if p.returncode != 0 or len(g) != replayed or len(with_delay) != len(graph) or p.stderr:
        return "exit %d, %d graph rows (want %d), %d with a delay (want %d), stderr %r" % (
            p.returncode, len(g), replayed, len(with_delay), len(graph), p.stderr[:100])
    return "%d rows, %d of graph replays" % (len(rows), len(g))

for rel in ("inference/vllm_decode_full/graph_execution.json.gz",
            "inference/vllm_prefilldecode_piecewise/graph_execution.json.gz"):
    path = os.path.join(T, rel)
    if not os.path.exists(path):
        print("skip attribution_launches_%s: not found" % rel)
        continue
    why = graph_launches(path)
    name = "attribution_launches_" + rel.split("/")[1]
    print(("ok %s (%s)" % (name, why)) if "want" not in why else "FAIL %s: %s" % (name, why))

# --quiet silences the coverage line; info shows it as kernel_time.attributed rows
path = os.path.join(T, "inference/vllm_decode_full/graph_execution.json.gz")
if os.path.exists(path):
    q = subprocess.run([TPROF, "ops", "--csv", "--quiet", path], capture_output=True, text=True)
    n = subprocess.run([TPROF, "ops", "--csv", path], capture_output=True, text=True)
    i = subprocess.run([TPROF, "info", "--csv", path], capture_output=True, text=True)
    info = {r["Property"]: r["Value"] for r in csv.DictReader(io.StringIO(i.stdout))}
    share = re.search(r": (\S+) of kernel time", n.stderr)
    if q.stderr or q.stdout != n.stdout or not share:
        print("FAIL attribution_quiet: --quiet stderr %r" % q.stderr[:100])
    else:
        print("ok attribution_quiet")
    want = [("kernel_time.attributed", share.group(1) if share else "?"),
            ("kernel_time.attributed.graph_replays", "97.3%"), ("kernel_time.attributed.driver_launches", "0%"),
            ("kernel_time.attributed.none.before_profiler", "0%")]
    bad = [(k, info.get(k)) for k, v in want if not (info.get(k) or "").startswith(v + " ")]
    print("FAIL attribution_info: %s" % bad if bad else "ok attribution_info")
PY
