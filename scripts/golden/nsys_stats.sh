#!/bin/sh
# Golden tests: the nsys stats reports (api, memops, nvtx) and the labels view.
#
# On the Nsight Systems exports in ../shared/reference/peers/other_data/
# NVIDIA-Fuser/*/report1.sqlite every row is checked against SQL written here
# after nsys's own report queries (cuda_api_sum, cuda_gpu_mem_time_sum,
# cuda_gpu_mem_size_sum, nvtx_sum; the GPU projection of a range by a join
# of NVTX_EVENTS, CUPTI_ACTIVITY_KIND_RUNTIME and CUPTI_ACTIVITY_KIND_KERNEL),
# with medians and sample standard deviations from python3's statistics
# module.  On kineto traces (testdata, kineto's and TraceLens' traces) api,
# memops and labels are checked against the events read with python3's json.
# The .sqlite files are copied to a temporary directory first (never opened
# in ../shared).  One "ok NAME" / "FAIL NAME: why" / "skip NAME: why" line
# per case.
REF=${REF:-../shared/reference}
. "$(dirname "$0")/lib.sh"
golden_need nsys_stats "" "./cli/tprof" python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
PYTHONPATH="$(cd "$(dirname "$0")" && pwd)" python3 - "$REF" "$tmp" <<'PY'
import csv, glob, gzip, io, json, os, shutil, sqlite3, statistics, subprocess, sys
from decimal import Decimal
from golden import case, csv_view

REF, TMP = sys.argv[1], sys.argv[2]
TPROF = "./cli/tprof"

def run(view, path):
    return csv_view(TPROF, view, path, label=view)[0]

def stats(vals):
    vals = sorted(vals)
    n = len(vals)
    return {"total": sum(vals), "n": n, "avg": sum(vals) / n, "med": statistics.median(vals),
            "min": vals[0], "max": vals[-1], "std": statistics.stdev(vals) if n > 1 else 0.0}

def summary(groups):
    """{key: [values]} -> [(key, stats)] in nsys order: total descending, then key."""
    rows = [(k, stats(v)) for k, v in groups.items()]
    rows.sort(key=lambda r: (-r[1]["total"], r[0]))
    return rows

def near(got, want, tol=0.051):
    return abs(float(got) - float(want)) <= tol

def compare(rows, want, namecol, countcol, extra=None, pctcol="Time(%)"):
    """Compare every row of a tprof table with the expected summary."""
    if len(rows) != len(want):
        return "%d rows, expected %d" % (len(rows), len(want))
    grand = sum(s["total"] for _, s in want)
    for i, (row, (key, s)) in enumerate(zip(rows, want)):
        name = key if isinstance(key, str) else key[-1]
        if row[namecol] != name:
            return "row %d: %s %r, expected %r" % (i, namecol, row[namecol], name)
        checks = [("TotalTime(ns)", s["total"], 0), (countcol, s["n"], 0), ("Min(ns)", s["min"], 0),
                  ("Max(ns)", s["max"], 0), ("Avg(ns)", s["avg"], 0.051), ("Med(ns)", s["med"], 0.051),
                  ("StdDev(ns)", s["std"], 0.051), (pctcol, 100.0 * s["total"] / grand if grand else 0, 0.051)]
        for col, w, tol in checks + (extra(key, row) if extra else []):
            if not near(row[col], w, tol):
                return "%s: %s %s, expected %s" % (name, col, row[col], w)
    return None

# ---- Nsight Systems exports --------------------------------------------

fuser = sorted(glob.glob(os.path.join(REF, "peers/other_data/NVIDIA-Fuser/*/report1.sqlite")))
if not fuser:
    print("skip nsys_stats_sqlite: %s/peers/other_data/NVIDIA-Fuser not found" % REF)

def fold(name):
    # nsys: CASE substr(name, -6, 2) WHEN '_v' THEN substr(name, 1, length(name) - 6)
    return name[:-6] if len(name) >= 6 and name[-6:-4] == "_v" else name

for src in fuser:
    tag = os.path.basename(os.path.dirname(src))
    db = os.path.join(TMP, tag + ".sqlite")
    shutil.copyfile(src, db)
    c = sqlite3.connect(db)

    def api_sqlite():
        g = {}
        for name, d in c.execute("SELECT s.value, r.end - r.start FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
                                 "JOIN StringIds s ON s.id = r.nameId"):
            g.setdefault(fold(name), []).append(d)
        rows = run("api", db)
        if not any(r["Name"] == "cudaLaunchKernel" for r in rows):
            return "cudaLaunchKernel_v7000 not folded"
        return compare(rows, summary(g), "Name", "NumCalls")
    case("nsys_stats_api_" + tag, api_sqlite)

    def memops_sqlite():
        g, b = {}, {}
        for name, d, n in c.execute(
                "SELECT '[CUDA memcpy ' || mos.label || ']', m.end - m.start, m.bytes "
                "FROM CUPTI_ACTIVITY_KIND_MEMCPY m JOIN ENUM_CUDA_MEMCPY_OPER mos ON mos.id = m.copyKind "
                "UNION ALL SELECT '[CUDA memset]', end - start, bytes FROM CUPTI_ACTIVITY_KIND_MEMSET"):
            g.setdefault(name, []).append(d)
            b.setdefault(name, []).append(n)
        def bytes_(key, row):
            s = stats(b[key])
            return [("Total(B)", s["total"], 0), ("Avg(B)", s["avg"], 0.051), ("Med(B)", s["med"], 0.051),
                    ("Min(B)", s["min"], 0), ("Max(B)", s["max"], 0), ("StdDev(B)", s["std"], 0.051)]
        return compare(run("memops", db), summary(g), "Operation", "Count", bytes_)
    case("nsys_stats_memops_" + tag, memops_sqlite)

    def nvtx_sqlite():
        style = {59: "PushPop", 70: "PushPop", 60: "StartEnd", 71: "StartEnd"}
        g, proj = {}, {}
        q = ("SELECT n.eventType, coalesce(n.text, s.value, ''), n.end - n.start, "
             "  (SELECT count(k.rowid) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN CUPTI_ACTIVITY_KIND_KERNEL k "
             "     ON k.correlationId = r.correlationId "
             "   WHERE r.globalTid = n.globalTid AND r.start BETWEEN n.start AND n.end), "
             "  (SELECT coalesce(sum(k.end - k.start), 0) FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
             "   JOIN CUPTI_ACTIVITY_KIND_KERNEL k ON k.correlationId = r.correlationId "
             "   WHERE r.globalTid = n.globalTid AND r.start BETWEEN n.start AND n.end) "
             "FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId "
             "WHERE n.eventType IN (59, 60, 70, 71) AND n.end IS NOT NULL")
        for et, name, d, kn, kt in c.execute(q):
            key = (style[et], name)
            g.setdefault(key, []).append(d)
            p = proj.setdefault(key, [0, 0])
            p[0] += kn
            p[1] += kt
        want = summary(g)
        # ties on total: tprof orders by name, then style id; nsys leaves ties unordered
        want.sort(key=lambda r: (-r[1]["total"], r[0][1]))
        rows = run("nvtx", db)
        if sum(p[0] for p in proj.values()) == 0:
            return "no kernel inside any range: the projection is not exercised"
        def gpu(key, row):
            if row["Style"] != key[0]:
                raise ValueError("%s: style %s, expected %s" % (key[1], row["Style"], key[0]))
            return [("GpuKernels", proj[key][0], 0), ("GpuTime(ns)", proj[key][1], 0)]
        return compare(rows, want, "Range", "Instances", gpu)
    case("nsys_stats_nvtx_" + tag, nvtx_sqlite)

    def from_store():
        # a .tprof store keeps what the reports read (the NVTX style included)
        store = os.path.join(TMP, tag + ".tprof")
        p = subprocess.run([TPROF, "import", db, "-o", store], capture_output=True, text=True)
        if p.returncode != 0:
            return "import: exit %d: %s" % (p.returncode, p.stderr.strip()[:200])
        for view in ("api", "memops", "nvtx"):
            if run(view, store) != run(view, db):
                return "%s differs between the .sqlite and its .tprof store" % view
    case("nsys_stats_store_" + tag, from_store)
    c.close()

# ---- kineto traces --------------------------------------------------------

def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        d = json.load(f, parse_float=Decimal)
    return d["traceEvents"] if isinstance(d, dict) else d

def ns(x):
    return int((Decimal(x) * 1000).to_integral_value())

RUNTIME = {"runtime", "cuda_runtime", "mtia_runtime", "glow_runtime", "xpu_runtime", "privateuse1_runtime",
           "hip_runtime", "cuda_driver", "xpu_driver", "privateuse1_driver"}
DEVICE = {"kernel", "mtia_ccp_events", "memcpy", "gpu_memcpy", "memset", "gpu_memset"}
KINDS = {"HtoD": "Host-to-Device", "DtoH": "Device-to-Host", "DtoD": "Device-to-Device",
         "HtoH": "Host-to-Host", "PtoP": "Peer-to-Peer", "HtoA": "Host-to-Array", "AtoH": "Array-to-Host",
         "AtoA": "Array-to-Array", "AtoD": "Array-to-Device", "DtoA": "Device-to-Array"}

def cat(e):
    return str(e.get("cat", "")).lower()

def xs(ev):
    return [e for e in ev if e.get("ph") == "X" and "dur" in e and "ts" in e]

def kineto_api(path):
    g = {}
    for e in xs(load(path)):
        if cat(e) in RUNTIME:
            g.setdefault(fold(e["name"]), []).append(ns(e["dur"]))
    if not g:
        return "no runtime call in the trace"
    return compare(run("api", path), summary(g), "Name", "NumCalls")

def kineto_memops(path):
    g, b = {}, {}
    for e in xs(load(path)):
        c_ = cat(e)
        if c_ in ("memcpy", "gpu_memcpy"):
            parts = e["name"].split(" ")
            key = "[CUDA memcpy %s]" % KINDS.get(parts[1] if parts[0] == "Memcpy" and len(parts) > 1 else "",
                                                "Unknown")
        elif c_ in ("memset", "gpu_memset"):
            key = "[CUDA memset]"
        else:
            continue
        g.setdefault(key, []).append(ns(e["dur"]))
        n = e.get("args", {}).get("bytes", 0)
        b.setdefault(key, []).append(int(n) if n and int(n) > 0 else 0)
    if not g:
        return "no memcpy or memset in the trace"
    def bytes_(key, row):
        s = stats(b[key])
        return [("Total(B)", s["total"], 0), ("Med(B)", s["med"], 0.051), ("StdDev(B)", s["std"], 0.051)]
    return compare(run("memops", path), summary(g), "Operation", "Count", bytes_)

def kineto_labels(path):
    ev = xs(load(path))
    labels = [e for e in ev if cat(e) == "user_annotation" and not e["name"].startswith("ProfilerStep#")]
    gpu = {}
    for e in ev:
        if cat(e) == "gpu_user_annotation":
            gpu.setdefault(e["name"], []).append(ns(e["dur"]))
    # device ops by their launching call: same correlation id
    launch = {}
    for e in ev:
        if cat(e) in RUNTIME and "correlation" in e.get("args", {}):
            launch.setdefault(e["args"]["correlation"], e)
    dev = {}
    for e in ev:
        if cat(e) in DEVICE and "correlation" in e.get("args", {}):
            r = launch.get(e["args"]["correlation"])
            if r is not None:
                dev.setdefault((r["pid"], r["tid"]), []).append((ns(r["ts"]), ns(r["ts"]) + ns(r["dur"]),
                                                                 ns(e["dur"])))
    g, devt = {}, {}
    for a in labels:
        s0, s1 = ns(a["ts"]), ns(a["ts"]) + ns(a["dur"])
        inside = [d for t0, t1, d in dev.get((a["pid"], a["tid"]), []) if s0 <= t0 and t1 <= s1]
        g.setdefault(a["name"], []).append(ns(a["dur"]))
        t = devt.setdefault(a["name"], [0, 0])
        t[0] += len(inside)
        t[1] += sum(inside)
    if not g:
        return "no record_function label in the trace"
    def extra(key, row):
        out = [("DeviceOps", devt[key][0], 0), ("DeviceTime(ns)", devt[key][1], 0)]
        if key in gpu:
            out += [("GpuCalls", len(gpu[key]), 0), ("GpuTime(ns)", sum(gpu[key]), 0)]
        elif row["GpuCalls"] != "-":
            out += [("GpuCalls", -1, 0)]
        return out
    return compare(run("labels", path), summary(g), "Name", "Calls", extra, "Host(%)")

K = os.path.join(REF, "kineto/data")
T = os.path.join(REF, "peers/other_data/AMD-AGI-TraceLens/tests/traces")
traces = [("sample", "testdata/sample.pt.trace.json", "am"),
          ("resnet50", os.path.join(K, "tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"), "am"),
          ("docs_before_fix", os.path.join(K, "kineto_docs_traces/docs/traces/before_fix_trace.json"), "a"),
          ("nccl_annotation", os.path.join(K, "extracted_unit_tests/test_distributed_nccl_user_annotation_has_communication__json_content0__L2373.pt.trace.json"), "l"),
          ("b200", os.path.join(T, "b200/eager_trace.json.gz"), "aml"),
          ("mi300_bert", os.path.join(T, "mi300/gaunernst_bert-small-uncased__1016001.json.gz"), "am"),
          ("mi300_resnet_ckpt", os.path.join(T, "mi300/resnet_act_checkpoint.json.gz"), "aml"),
          ("normalization", os.path.join(T, "perf_model/normalization/normalization_layer_test.json.gz"), "l"),
          ("vllm_capture", os.path.join(T, "inference/vllm_decode_full/capture_traces/graph_capture_rank_0.1773709742341309550.pt.trace.json.gz"), "aml"),
          ("triton", os.path.join(T, "torch_compile_triton/trace.json.gz"), "al")]
for name, path, what in traces:
    for w, view, fn in (("a", "api", kineto_api), ("m", "memops", kineto_memops), ("l", "labels", kineto_labels)):
        if w not in what:
            continue
        if not os.path.exists(path):
            print("skip nsys_stats_%s_%s: %s not found" % (view, name, path))
            continue
        case("nsys_stats_%s_%s" % (view, name), lambda: fn(path))
PY
