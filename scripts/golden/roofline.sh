#!/bin/sh
# Golden tests for `tprof roofline`, `tprof ops --group category` and
# `tprof kernels --short`: tprof against the CSVs TraceLens wrote beside its
# test traces (../shared/reference/peers/other_data/AMD-AGI-TraceLens/tests/
# traces/*/*_perf_report_csvs, perf_csvs):
#   roofline       GEMM, CONV_fwd, SDPA_fwd, Normalization, UnaryElementwise,
#                  BinaryElementwise: calls, FLOPs, and the aggregate
#                  TFLOPS/s and TB/s (TraceLens' GFLOPS_first and Data Moved
#                  times name_count, over Kernel Time (µs)_sum) within 3 %,
#                  on the rows where both count the same FLOPs / bytes per
#                  call (the others: one skip line with their number);
#   category       ops_summary_by_category: launchers and time, in all and
#                  per category (TraceLens' categories folded into tprof's);
#   short kernels  short_kernel_histogram (every bin) and
#                  short_kernels_summary (count and time per operator, input
#                  dims and kernel name).
# One line per compared group: "ok NAME", "FAIL NAME: why" or "skip NAME: why".
. "$(dirname "$0")/lib.sh"
tl="$REF/peers/other_data/AMD-AGI-TraceLens/tests/traces"
golden_need roofline "$tl" "$TPROF" python3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# case name | trace | TraceLens csv folder: the TraceLens traces
# flops_tracelens.sh reads too (tracelens_cases.txt), then this script's own
cat "$(dirname "$0")/tracelens_cases.txt" - >"$tmp/cases" <<EOF
norm|perf_model/normalization/normalization_layer_test.json.gz|perf_model/normalization/normalization_layer_test_perf_report_csvs
EOF

while IFS='|' read -r name trace csvs; do
    if [ ! -f "$tl/$trace" ] || [ ! -d "$tl/$csvs" ]; then
        echo "skip roofline_$name: $trace or its CSVs are absent"
        continue
    fi
    # graph replays: TraceLens charged them to the captured operators
    cap=$(dirname "$tl/$trace")/capture_traces
    capture=
    [ -d "$cap" ] && capture="--capture $cap"
    ok=1
    for v in "roofline|roofline -c name,shape,calls,time,flops,bytes,tflops,tbs" "category|ops --group category" \
             "short|kernels --short 10 -c op,dims,name,calls,total" "histogram|kernels --short 10 --group histogram"; do
        f=${v%%|*}
        # shellcheck disable=SC2086
        if ! "$TPROF" ${v#*|} $capture --csv --header keys "$tl/$trace" >"$tmp/$name.$f.csv" 2>"$tmp/$name.$f.err"; then
            echo "FAIL roofline_$name: tprof ${v#*|} failed: $(head -c 200 "$tmp/$name.$f.err")"
            ok=0
        fi
    done
    [ "$ok" = 1 ] || continue
    python3 - "$name" "$tmp/$name" "$tl/$csvs" "$tl/$trace" <<'PY'
import ast, csv, gzip, json, os, re, sys

name, mine, tl_dir, trace = sys.argv[1:5]

def rows(path):
    return list(csv.DictReader(open(path, newline="", encoding="utf-8"))) if os.path.isfile(path) else None

def mine_rows(suffix):
    return rows(mine + "." + suffix + ".csv")

def report(case, problems, checked, skipped=None):
    full = "roofline_%s_%s" % (name, case)
    if problems:
        print("FAIL %s: %s" % (full, "; ".join(problems[:3]) + (" (+%d more)" % (len(problems) - 3)
                                                                if len(problems) > 3 else "")))
    elif checked == 0:
        print("skip %s: %s" % (full, skipped or "no row to compare"))
        return
    else:
        print("ok %s (%d compared)" % (full, checked))
    if skipped and checked:
        print("skip %s_other: %s" % (full, skipped))

def close(a, b, tol):
    return abs(a - b) <= tol * max(abs(a), abs(b), 1e-30)

def close_printed(text, want, tol):
    """tprof's value as printed (a fixed number of decimals) against want"""
    decimals = len(text.split(".")[1]) if "." in text else 0
    return close(float(text), want, tol) or abs(float(text) - want) <= 0.5 * 10 ** -decimals

def num(x, key):
    try:
        return float(x[key])
    except (KeyError, TypeError, ValueError):
        return None

def shapes_of_params(params):
    """'[4,3]bf16;[768]bf16;stride=...' -> ((4,3),(768,))"""
    return tuple(tuple(int(v) for v in m.split(",") if v) for m in re.findall(r"\[([0-9,]*)\][a-z]", params))

def shapes_of_dims(dims):
    """Input Dims '[[768], [788, 768], [], []]' or '((768,), (788, 768), (), ())' -> the tensors'
    shapes (empty lists are scalars)"""
    try:
        d = ast.literal_eval(dims)
    except (ValueError, SyntaxError):
        return None
    d = json.loads(json.dumps(d))   # tuples -> lists
    out = []
    for x in d:
        if isinstance(x, list) and x and all(isinstance(v, int) for v in x):
            out.append(tuple(x))
        elif isinstance(x, list) and x and all(isinstance(v, list) for v in x):
            out.extend(tuple(v) for v in x)   # a tensor list (cat)
    return tuple(out)

# ---- roofline against the perf-model sheets ------------------------------
roof = mine_rows("roofline")
by_key = {}
for r in roof:
    if r["flops"] == "":
        continue
    by_key.setdefault((r["name"], shapes_of_params(r["shape"])), []).append(r)

# TraceLens models aten::convolution and the SDPA operators above the ones
# that launch the kernels (miopen_convolution, _flash_attention_forward):
# their rows are found by the convolution's and the attention's parameters
CONV = {"aten::convolution", "aten::_convolution", "aten::cudnn_convolution", "aten::miopen_convolution",
        "aten::mkldnn_convolution", "aten::miopen_depthwise_convolution"}
BHND = {"aten::_scaled_dot_product_flash_attention", "aten::_scaled_dot_product_efficient_attention",
        "aten::_scaled_dot_product_cudnn_attention", "aten::scaled_dot_product_attention"}
BNHD = {"aten::_flash_attention_forward", "aten::_efficient_attention_forward"}

def tup(text):
    return tuple(int(v) for v in re.findall(r"-?\d+", text or ""))

def kv(params):
    return dict(re.findall(r"([a-z_]+)=(\[[^\]]*\]|[^,;]+)", params))

def conv_key_mine(r):
    sh, a = shapes_of_params(r["shape"]), kv(r["shape"])
    if r["name"] not in CONV or len(sh) < 2 or "stride" not in a:
        return None
    return ("conv", sh[0], sh[1], tup(a["stride"]), tup(a.get("padding")), tup(a.get("dilation")),
            int(a.get("groups", 1)))

def conv_key_tl(x):
    return ("conv", tup(x["param: input_shape"]), tup(x["param: filter_shape"]), tup(x["param: stride"]),
            tup(x["param: padding"]), tup(x["param: dilation"]), int(x["param: groups"]))

def sdpa_key_mine(r):
    sh, a = shapes_of_params(r["shape"]), kv(r["shape"])
    if (r["name"] not in BHND and r["name"] not in BNHD) or len(sh) < 3 or any(len(v) != 4 for v in sh[:3]):
        return None
    q, k, v = sh[:3]
    h, n = (1, 2) if r["name"] in BHND else (2, 1)
    return ("sdpa", q[0], q[n], q[h], k[n], k[h], q[3], v[3], a.get("causal") == "1")

def sdpa_key_tl(x):
    return ("sdpa",) + tuple(int(x["param: " + k]) for k in ("B", "N_Q", "H_Q", "N_KV", "H_KV", "d_h_qk", "d_h_v")) \
        + (x["param: causal"] == "True",)

for r in roof:
    if r["flops"] != "":
        for k in (conv_key_mine(r), sdpa_key_mine(r)):
            if k:
                by_key.setdefault(k, []).append(r)

for sheet in ("GEMM", "CONV_fwd", "SDPA_fwd", "Normalization", "UnaryElementwise", "BinaryElementwise"):
    t = rows(os.path.join(tl_dir, sheet + ".csv")) or rows(os.path.join(tl_dir, sheet + "_fwd.csv"))
    if t is None:
        continue
    # TraceLens splits a shape by strides and scalar arguments: sum them
    agg = {}
    incomplete = 0
    for x in t:
        gf, mb, us, n = num(x, "GFLOPS_first"), num(x, "Data Moved (MB)_first"), num(x, "Kernel Time (µs)_sum"), \
            num(x, "name_count")
        if None in (gf, mb, us, n):
            incomplete += 1   # TraceLens has no perf model numbers for this row
            continue
        key = conv_key_tl(x) if sheet == "CONV_fwd" else sdpa_key_tl(x) if sheet == "SDPA_fwd" else \
            (x["name"], shapes_of_dims(x["Input Dims_first"]))
        a = agg.setdefault(key, {"n": 0, "flops": 0.0, "bytes": 0.0, "us": 0.0, "name": x["name"]})
        a["n"] += int(n)
        a["flops"] += gf * 1e9 * n
        a["bytes"] += mb * 1048576 * n
        a["us"] += us
    problems, checked, defs, unmatched, merged, subtree = [], 0, [], 0, 0, 0
    for key, a in agg.items():
        m = by_key.get(key)
        if not m or len(m) != 1:
            unmatched += 1   # another dtype or argument splits it, or no FLOPs formula in tprof
            continue
        m = m[0]
        calls, us = int(m["calls"]), float(m["time"])
        flops, nbytes = float(m["flops"]), float(m["bytes"])
        what = "%s %s" % (a["name"], key[1:] if key[0] in ("conv", "sdpa") else
                          "x".join(",".join(map(str, s)) for s in key[1]))
        if calls < a["n"]:
            merged += 1   # TraceLens' row also holds calls of other input dims (keyed by its perf params)
            continue
        if calls != a["n"]:
            problems.append("%s: %d calls, TraceLens %d" % (what, calls, a["n"]))
            continue
        if a["name"] != m["name"] and us < a["us"] * 0.99:
            subtree += 1   # TraceLens times the modelled operator's whole subtree
            continue
        if not close(us, a["us"], 0.01):
            problems.append("%s: kernel time %.3f us, TraceLens %.3f" % (what, us, a["us"]))
            continue
        same_flops = close(flops, a["flops"], 0.005)
        same_bytes = close(nbytes, a["bytes"], 0.005)
        if not same_flops or not same_bytes:
            defs.append("%s (%s)" % (what, "FLOPs %g vs %g" % (flops / calls, a["flops"] / a["n"]) if not same_flops
                                     else "bytes %g vs %g" % (nbytes / calls, a["bytes"] / a["n"])))
        if same_flops:
            want = a["flops"] / (a["us"] * 1e-6) / 1e12
            if not close_printed(m["tflops"], want, 0.03):
                problems.append("%s: %s TFLOPS/s, TraceLens %.3f" % (what, m["tflops"], want))
        if same_bytes:
            want = a["bytes"] / (a["us"] * 1e-6) / 1e12
            if not close_printed(m["tbs"], want, 0.03):
                problems.append("%s: %s TB/s, TraceLens %.4f" % (what, m["tbs"], want))
        if same_flops or same_bytes:
            checked += 1
    why = []
    if defs:
        why.append("%d shapes counted differently (tprof(1), ROOFLINE): %s" % (len(defs), "; ".join(defs[:2])))
    if unmatched:
        why.append("%d TraceLens shapes have no single tprof row with FLOPs" % unmatched)
    if merged:
        why.append("%d TraceLens rows merge calls of several input dims" % merged)
    if subtree:
        why.append("%d TraceLens rows time the whole %s subtree, the kernels of other operators under it "
                   "(a bias add_, an elementwise fill) included" % (subtree, sheet.split("_")[0]))
    if incomplete:
        why.append("%d TraceLens rows without perf-model numbers" % incomplete)
    report(sheet, problems, checked, ", ".join(why) or None)

# ---- ops_summary_by_category ----------------------------------------------
# TraceLens links a launch call to its GPU activity through the trace's ac2g
# flow (trace_to_tree.py: the flow's "s" by correlation id, then the event at
# the pid and tid of the flow's last "f"), graph launches by correlation id;
# tprof links by correlation id.  An activity that rule misses (a flow that
# lost its "s", or whose last "f" is on the CPU side) counts for tprof only.
opener = gzip.open if trace.endswith(".gz") else open
with opener(trace, "rt", encoding="utf-8", errors="replace") as f:
    events = json.load(f).get("traceEvents", [])
starts, last_end, launches = set(), {}, {}
for e in events:
    if e.get("cat") == "ac2g":
        if e.get("ph") == "s":
            starts.add(e.get("id"))
        elif e.get("ph") == "f":
            last_end[e.get("id")] = (e.get("pid"), e.get("tid"))
    elif e.get("cat") in ("cuda_runtime", "hip_runtime", "cuda_driver") and e.get("ph") == "X":
        launches[(e.get("args") or {}).get("correlation")] = e.get("name")
unlinked_us, unlinked_n = 0.0, 0
for e in events:
    c = (e.get("args") or {}).get("correlation")
    if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and e.get("ph") == "X" and c in launches and \
            launches[c] not in ("cudaGraphLaunch", "hipGraphLaunch") and \
            (c not in starts or last_end.get(c) != (e.get("pid"), e.get("tid"))):
        unlinked_n += 1
        unlinked_us += float(e.get("dur", 0))
del events
FOLD = {"GEMM": "GEMM", "GroupedGEMM_fwd": "GEMM", "GroupedGEMM_bwd": "GEMM", "CONV_fwd": "CONV",
        "CONV_bwd": "CONV", "SDPA_fwd": "attention", "SDPA_bwd": "attention", "InferenceAttention": "attention",
        "NORM_fwd": "normalization", "NORM_bwd": "normalization", "RMSNorm": "normalization",
        "elementwise": "elementwise", "multi_tensor_apply": "elementwise", "reduce": "reduction"}
t = rows(os.path.join(tl_dir, "ops_summary_by_category.csv"))
cat = mine_rows("category")
replays = "not to the operators captured" in open(mine + ".category.err", encoding="utf-8").read()
if t is not None and replays:
    report("category", [], 0, "graph replays tprof could not match to a capture trace: TraceLens charges their "
           "kernels to the captured operators, tprof to the graph launch")
elif t is not None:
    theirs = {}
    for x in t:
        c = FOLD.get(x["op category"], "other")
        n, ms = theirs.get(c, (0, 0.0))
        theirs[c] = (n + int(x["Count"]), ms + float(x["total_direct_kernel_time_ms"]))
    ours = {r["category"]: (int(r["calls"]), float(r["dev_self"]) / 1000) for r in cat}
    # collectives: TraceLens leaves NCCL kernels out of its launchers
    ours.pop("communication", None)
    # TraceLens (at the version that wrote these CSVs) files the
    # _flash_attention_forward and _efficient_attention_forward operators
    # under "other" when no attention category appears: fold ours likewise
    if "attention" in ours and "attention" not in theirs:
        n, ms = ours.pop("attention")
        on, oms = ours.get("other", (0, 0.0))
        ours["other"] = (on + n, oms + ms)
    # a memcpy / memset is its own category here; TraceLens files it by its
    # operator (aten::copy_: elementwise) or, launched outside one, other
    mem = ours.pop("memcpy/memset", None)
    problems = []
    tn, tms = sum(v[0] for v in theirs.values()), sum(v[1] for v in theirs.values())
    on, oms = sum(v[0] for v in ours.values()), sum(v[1] for v in ours.values())
    if mem:
        on, oms = on + mem[0], oms + mem[1]
    if on != tn or not close(oms - unlinked_us / 1000, tms, 0.001):
        problems.append("all: %d launchers %.3f ms, TraceLens %d %.3f" % (on, oms, tn, tms))
    report("category_total", problems, 1, "%d GPU activities (%.3f us) are not linked by their ac2g flow: TraceLens leaves them "
           "out (tprof links them by correlation id; subtracted from the total)" % (unlinked_n, unlinked_us)
           if unlinked_n else None)
    problems, checked = [], 0
    for c in sorted(set(theirs) | set(ours)):
        a, b = ours.get(c, (0, 0.0)), theirs.get(c, (0, 0.0))
        if mem and c in ("elementwise", "other"):
            continue   # where TraceLens puts the copies
        if unlinked_n:
            break      # their time is in some category, which one the CSV cannot tell
        checked += 1
        if a[0] != b[0] or not close(a[1], b[1], 0.001):
            problems.append("%s: %d launchers %.3f ms, TraceLens %d %.3f" % (c, a[0], a[1], b[0], b[1]))
    report("category", problems, checked,
           "memcpy/memset %d launchers: TraceLens files them under elementwise or other" % mem[0] if mem else None)

# ---- short kernels ----------------------------------------------------------
h = rows(os.path.join(tl_dir, "short_kernel_histogram.csv"))
if h is not None:
    ours = mine_rows("histogram")
    problems = []
    if len(ours) != len(h):
        problems.append("%d bins, TraceLens %d" % (len(ours), len(h)))
    for i, (a, b) in enumerate(zip(ours, h)):
        if int(a["calls"]) != int(b["count"]) or not close(float(a["bin_start"]), float(b["bin_start"]), 1e-9) \
                or not close(float(a["bin_end"]), float(b["bin_end"]), 1e-9):
            problems.append("bin %d: [%s, %s) %s, TraceLens [%s, %s) %s" % (
                i, a["bin_start"], a["bin_end"], a["calls"], b["bin_start"], b["bin_end"], b["count"]))
    report("short_histogram", problems, len(h))
s = rows(os.path.join(tl_dir, "short_kernels_summary.csv"))
if s is not None:
    ours = {}
    for r in mine_rows("short"):
        key = (r["op"], shapes_of_dims(r["dims"]) if r["dims"] else None, r["name"])
        n, us = ours.get(key, (0, 0.0))
        ours[key] = (n + int(r["calls"]), us + float(r["total"]))
    theirs = {}
    for x in s:
        key = (x["Parent cpu_op"], shapes_of_dims(x["Input dims"]), x["Kernel name"])
        n, us = theirs.get(key, (0, 0.0))
        theirs[key] = (n + int(x["Short Kernel count"]), us + float(x["Short Kernel duration (µs) sum"]))
    problems = []
    for key, (n, us) in theirs.items():
        a = ours.get(key)
        if not a or a[0] != n or not close(a[1], us, 0.001):
            problems.append("%s %s: %s, TraceLens %d kernels %.3f us" % (key[0], key[1], a, n, us))
    left = sum(n for k, (n, _) in ours.items() if k not in theirs)
    report("short_summary", problems, len(theirs),
           "%d short kernels without an operator or its Input Dims (TraceLens drops them)" % left if left else None)
PY
done <"$tmp/cases"

# ---- options and peaks ------------------------------------------------------
one="$tl/mi300/gaunernst_bert-small-uncased__1016001.json.gz"
if [ -f "$one" ]; then
    sum='{ s += $1 } END { print s + 0 }'
    a=$("$TPROF" kernels --short 5 --tsv --header none -c calls "$one" 2>/dev/null | awk "$sum")
    b=$("$TPROF" kernels --short=5 --tsv --header none -c calls "$one" 2>/dev/null | awk "$sum")
    c=$("$TPROF" kernels --short 10 --tsv --header none -c calls "$one" 2>/dev/null | awk "$sum")
    if [ -n "$a" ] && [ "$a" = "$b" ] && [ "$a" -lt "$c" ]; then
        echo "ok roofline_short_threshold"
    else
        echo "FAIL roofline_short_threshold: --short 5 gave $a kernels, --short=5 $b, --short 10 $c"
    fi
    "$TPROF" kernels --short=0 "$one" >/dev/null 2>"$tmp/err"; rc=$?
    if [ "$rc" = 2 ] && grep -q "not a positive number" "$tmp/err"; then
        echo "ok roofline_short_bad_value"
    else
        echo "FAIL roofline_short_bad_value: exit $rc, $(head -c 200 "$tmp/err")"
    fi
    "$TPROF" kernels --short 10 --group props "$one" >/dev/null 2>"$tmp/err"; rc=$?
    if [ "$rc" = 2 ] && grep -q "must be histogram" "$tmp/err"; then
        echo "ok roofline_short_bad_group"
    else
        echo "FAIL roofline_short_bad_group: exit $rc, $(head -c 200 "$tmp/err")"
    fi
    "$TPROF" ops --group kind "$one" >/dev/null 2>"$tmp/err"; rc=$?
    if [ "$rc" = 2 ] && grep -q "name, shape, stack\[=N\] or category" "$tmp/err"; then
        echo "ok roofline_ops_bad_group"
    else
        echo "FAIL roofline_ops_bad_group: exit $rc, $(head -c 200 "$tmp/err")"
    fi
    # every table says what it covers
    for v in roofline "ops --group category" "kernels --short 10"; do
        # shellcheck disable=SC2086
        "$TPROF" $v "$one" >/dev/null 2>"$tmp/err"
        if grep -q "of kernel time\|of GPU activity time\|of all kernel time" "$tmp/err"; then
            echo "ok roofline_coverage_$(echo "$v" | tr -c 'a-z\n' _)"
        else
            echo "FAIL roofline_coverage_$(echo "$v" | tr -c 'a-z\n' _): no coverage line: $(head -c 200 "$tmp/err")"
        fi
    done
    # MI300X: bandwidth from the table, compute peak unknown ("-")
    line=$("$TPROF" roofline --csv --header keys -c peak_tbs,peak_tflops,pct_compute,bound,device "$one" 2>/dev/null |
           sed -n 2p)
    if [ "$line" = '"5.300",,,,"AMD Instinct MI300X VF"' ]; then
        echo "ok roofline_peaks_mi300x"
    else
        echo "FAIL roofline_peaks_mi300x: first row $line"
    fi
else
    echo "skip roofline_options: $one is absent"
fi
# Nsight's TARGET_INFO_GPU memoryBandwidth is the bandwidth peak, kept in a .tprof
nsys="$tl/../../../NVIDIA-Fuser/8fa9ec29/report1.sqlite"
if [ -f "$nsys" ]; then
    cp "$nsys" "$tmp/r.sqlite"
    a=$("$TPROF" roofline --csv --header keys -c peak_tbs,device "$tmp/r.sqlite" 2>/dev/null | sed -n 2p)
    "$TPROF" import "$tmp/r.sqlite" -o "$tmp/r.tprof" >/dev/null 2>&1
    b=$("$TPROF" roofline --csv --header keys -c peak_tbs,device "$tmp/r.tprof" 2>/dev/null | sed -n 2p)
    if [ "$a" = '"3.352","NVIDIA H100 80GB HBM3"' ] && [ "$a" = "$b" ]; then
        echo "ok roofline_peaks_from_trace"
    else
        echo "FAIL roofline_peaks_from_trace: sqlite $a, .tprof $b (want 3.352 TB/s, the trace's, not the table's 3.35)"
    fi
else
    echo "skip roofline_peaks_from_trace: $nsys is absent"
fi
# the bound: compute at or above the ridge point (peak FLOP/s over peak B/s), memory below; % of peak from the peaks
b200="$tl/b200/eager_trace.json.gz"
if [ -f "$b200" ]; then
    "$TPROF" roofline --csv --header keys -c tflops,tbs,intensity,peak_tflops,peak_tbs,pct_compute,pct_bw,bound \
        "$b200" >"$tmp/b200.csv" 2>/dev/null
    python3 - "$tmp/b200.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["bound"]]
bad, kinds = [], set()
for r in rows:
    ridge = float(r["peak_tflops"]) * 1e12 / (float(r["peak_tbs"]) * 1e12)
    want = "compute" if float(r["intensity"]) >= ridge else "memory"
    pc = 100 * float(r["tflops"]) / float(r["peak_tflops"])
    pb = 100 * float(r["tbs"]) / float(r["peak_tbs"])
    kinds.add(r["bound"])
    if r["bound"] != want or abs(pc - float(r["pct_compute"])) > 0.02 + 0.001 * pc \
            or abs(pb - float(r["pct_bw"])) > 0.02 + 0.001 * pb:
        bad.append(str(r))
if bad or kinds != {"compute", "memory"}:
    print("FAIL roofline_bound_b200: %d rows, bounds %s; %s" % (len(rows), sorted(kinds), "; ".join(bad[:2])))
else:
    print("ok roofline_bound_b200 (%d rows)" % len(rows))
PY
else
    echo "skip roofline_bound_b200: $b200 is absent"
fi
