#!/bin/sh
# Golden tests for the prof view's FLOPs on PyTorch 2.x traces that record
# "Concrete Inputs": tprof against TraceLens' perf-model sheets
# (*_perf_report_csvs/CONV_fwd.csv, SDPA_fwd.csv, GEMM.csv, column
# GFLOPS_first) beside its traces in ../shared/reference/peers/other_data/
# AMD-AGI-TraceLens/tests/traces, and the Tensor Core column on the full
# kernel names of recent NVIDIA / AMD traces.
# One line per case: "ok NAME", "FAIL NAME: why" or "skip NAME: why".
. "$(dirname "$0")/lib.sh"
tl="$REF/peers/other_data/AMD-AGI-TraceLens/tests/traces"
golden_need flops_tracelens "$tl" "$TPROF" python3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# case name | trace | TraceLens csv folder ("-": none): the TraceLens traces
# roofline.sh reads too (tracelens_cases.txt), then this script's own
cat "$(dirname "$0")/tracelens_cases.txt" - >"$tmp/cases" <<EOF
resnet|mi300/resnet_act_checkpoint.json.gz|mi300/resnet_act_checkpoint_recompute_perf_report_csvs
b200|b200/eager_trace.json.gz|-
cutlass_kernel2|../../../JeremyMorlier-GPUModel/trace2.json|-
sm80_xmma|../../../JeremyMorlier-GPUModel/trace3.json|-
cutlass_kernel|../../../../hta_data/tests/data/negative_queue_length_values_check/rank0.json.gz|-
xmma_fprop|../../../../hta_data/tests/data/critical_path/alexnet/benchmark_result_2869224_1695835535_trace.json.gz|-
EOF

cols=op,opname,params,tc,flops,bytes,name
while IFS='|' read -r name trace csvs; do
    if [ ! -f "$tl/$trace" ]; then
        echo "skip flops_tracelens_$name: $trace is absent"
        continue
    fi
    if ! "$TPROF" prof --csv -c $cols "$tl/$trace" >"$tmp/$name.csv" 2>"$tmp/$name.err"; then
        echo "FAIL flops_tracelens_$name: tprof prof failed: $(head -c 200 "$tmp/$name.err")"
        continue
    fi
    python3 - "$name" "$tmp/$name.csv" "$tl/$trace" "$tl/$csvs" <<'PY'
import ast, csv, gzip, json, os, re, sys

name, prof_csv, trace, tl_dir = sys.argv[1:5]
rows = list(csv.DictReader(open(prof_csv, newline="")))

def report(case, problems, checked):
    if problems:
        print("FAIL flops_tracelens_%s_%s: %s" % (name, case, "; ".join(problems[:3])
              + (" (+%d more)" % (len(problems) - 3) if len(problems) > 3 else "")))
    elif checked == 0:
        print("skip flops_tracelens_%s_%s: no rows to check" % (name, case))
    else:
        print("ok flops_tracelens_%s_%s" % (name, case))

def tensors(params):
    """'[4,3]bf16;[768]bf16;stride=[1,1],...' -> ([[4,3],[768]], 'stride=...')"""
    shapes, rest = [], ""
    for part in params.split(";"):
        m = re.match(r"^\[([0-9,]*)\]", part)
        if m:
            shapes.append([int(v) for v in m.group(1).split(",") if v])
        else:
            rest = part
    return shapes, dict(kv.split("=", 1) for kv in re.findall(r"[a-z_]+=(?:\[[^\]]*\]|[^,]+)", rest))

def tup(text):
    return [int(v) for v in re.findall(r"-?\d+", text)]

CONV = {"conv1d", "conv2d", "conv3d", "convolution", "_convolution", "cudnn_convolution",
        "cudnn_convolution_transpose", "miopen_convolution", "miopen_depthwise_convolution",
        "miopen_convolution_transpose", "mkldnn_convolution", "conv_transpose1d", "conv_transpose2d",
        "conv_transpose3d", "_convolution_mode", "convolution_backward"}
BHND = {"_scaled_dot_product_flash_attention", "_scaled_dot_product_efficient_attention",
        "_scaled_dot_product_cudnn_attention", "scaled_dot_product_attention"}
BNHD = {"_flash_attention_forward", "_efficient_attention_forward"}
ATTN_BWD = {"_scaled_dot_product_flash_attention_backward", "_scaled_dot_product_efficient_attention_backward",
            "_flash_attention_backward", "_efficient_attention_backward"}

def flops_of(r):
    return None if r["FLOPs"] == "na" else float(r["FLOPs"])

# ---- no convolution or attention kernel without FLOPs -------------------
opener = gzip.open if trace.endswith(".gz") else open
with opener(trace, "rt", encoding="utf-8", errors="replace") as f:
    text = f.read()
has_concrete = "Concrete Inputs" in text
trace_ops = None

def in_trace(op_name, dims):
    """does the trace hold this operator with these input dims?"""
    global trace_ops
    if trace_ops is None:
        trace_ops = set()
        for e in json.loads(text).get("traceEvents", []):
            a = e.get("args") or {}
            if e.get("cat") == "cpu_op" and "Input Dims" in a:
                trace_ops.add((e.get("name"), json.dumps(a["Input Dims"])))
    return (op_name, json.dumps(json.loads(dims))) in trace_ops
if has_concrete:
    watched = CONV | BHND | BNHD | ATTN_BWD
    bad = ["%s (%s)" % (r["OpName"], r["Params"][:80]) for r in rows if r["Op"] in watched and r["FLOPs"] == "na"]
    n = sum(1 for r in rows if r["Op"] in watched)
    report("no_na", ["%d of %d conv/attention kernels have FLOPs na: %s" % (len(bad), n, bad[0])] if bad else [], n)

def sheet(fname):
    path = os.path.join(tl_dir, fname)
    return list(csv.DictReader(open(path, newline="", encoding="utf-8"))) if os.path.isfile(path) else None

def expect(row):
    return round(float(row["GFLOPS_first"]) * 1e9)

# ---- CONV_fwd, CONV_bwd ---------------------------------------------------
def prod(v):
    p = 1
    for x in v:
        p *= x
    return p

for sheet_name, bwd in (("CONV_fwd.csv", False), ("CONV_bwd.csv", True)):
    conv = sheet(sheet_name)
    if conv is None:
        continue
    problems, checked = [], 0
    for t in conv:
        want = expect(t)
        if bwd:
            # TraceLens counts dx and dw whatever output_mask says (and no
            # bias gradient: its test reads Input Dims[3], always []); tprof
            # counts the gradients output_mask asks for
            concrete = ast.literal_eval(t["Concrete Inputs_first"])
            mask = [v == "True" for v in concrete[10][1:-1].split(", ")]
            dims = json.loads(t["Input Dims_first"])
            want = want * (mask[0] + mask[1]) // 2 + (prod(dims[0]) if mask[2] else 0)
        key = (tup(t["param: input_shape"]), tup(t["param: filter_shape"]), tup(t["param: stride"]),
               tup(t["param: padding"]), tup(t["param: dilation"]), int(t["param: groups"]),
               t["param: transposed_conv"] == "True")
        got = set()
        for r in rows:
            if r["Op"] not in CONV or (r["Op"] == "convolution_backward") != bwd:
                continue
            sh, kv = tensors(r["Params"])
            if len(sh) < 2 + bwd or "stride" not in kv:
                continue
            mine = (sh[bwd], sh[bwd + 1], tup(kv["stride"]), tup(kv.get("padding", "")), tup(kv["dilation"]),
                    int(kv["groups"]), kv.get("transposed") == "1")
            if bwd and mine == key and tup(kv["output_mask"]) != [int(m) for m in mask]:
                continue
            if mine == key:
                got.add(flops_of(r))
        checked += 1
        if got != {want}:
            problems.append("%s %s: TraceLens %d, tprof %s" % (t["name"], t["param: input_shape"], want,
                                                             sorted(got, key=str) or "no row"))
    report("conv_bwd" if bwd else "conv_fwd", problems, checked)

# ---- SDPA_fwd -----------------------------------------------------------
sdpa = sheet("SDPA_fwd.csv")
if sdpa is not None:
    problems, checked = [], 0
    for t in sdpa:
        want = expect(t)
        key = tuple(int(t["param: " + k]) for k in ("B", "N_Q", "H_Q", "N_KV", "H_KV", "d_h_qk", "d_h_v")) + \
            (t["param: causal"] == "True",)
        got = set()
        for r in rows:
            if r["Op"] not in BHND and r["Op"] not in BNHD:
                continue
            sh, kv = tensors(r["Params"])
            if len(sh) < 3 or any(len(s) != 4 for s in sh[:3]):
                continue
            q, k, v = sh[:3]
            h, n = (1, 2) if r["Op"] in BHND else (2, 1)
            mine = (q[0], q[n], q[h], k[n], k[h], q[3], v[3], kv.get("causal") == "1")
            if mine == key:
                got.add(flops_of(r))
        checked += 1
        if got != {want}:
            problems.append("%s B=%s N=%s: TraceLens %d, tprof %s" % (t["name"], t["param: B"], t["param: N_Q"],
                                                                    want, sorted(got, key=str) or "no row"))
    report("sdpa_fwd", problems, checked)

# ---- GEMM (the aten ops tprof has formulas for) -------------------------
gemm = sheet("GEMM.csv")
if gemm is not None:
    problems, checked, others, absent, unlaunched = [], 0, set(), 0, 0
    for t in gemm:
        op = t["name"].split("::")[-1]
        linear_ext = t["name"] in ("aiter::gemm_a16w16", "vllm::rocm_unquantized_gemm")
        if not linear_ext and (not t["name"].startswith("aten::") or op not in ("mm", "addmm", "bmm", "baddbmm")):
            others.add(t["name"])
            continue
        want = expect(t)
        key = (int(t["param: M"]), int(t["param: N"]), int(t["param: K"]), int(t["param: B"] or 1))
        got = set()
        for r in rows:
            if r["OpName"] != t["name"]:
                continue
            sh, _ = tensors(r["Params"])
            a, b = (sh[0], sh[1]) if op in ("mm", "bmm") or linear_ext else (sh[1], sh[2]) if len(sh) >= 3 else ([], [])
            if linear_ext and len(a) == 2 and len(b) == 2:
                mine = (a[0], b[0], a[1], 1)
            elif op in ("mm", "addmm") and len(a) == 2 and len(b) == 2:
                mine = (a[0], b[1], a[1], 1)
            elif op in ("bmm", "baddbmm") and len(a) == 3 and len(b) == 3:
                mine = (a[1], b[2], a[2], a[0])
            else:
                continue
            if mine == key:
                got.add(flops_of(r))
        if not got:
            # TraceLens' sheet may come from another run, or from graph
            # replays whose kernels no operator of this trace launched
            if in_trace(t["name"], t["Input Dims_first"]):
                unlaunched += 1
            else:
                absent += 1
            continue
        checked += 1
        if got != {want}:
            problems.append("%s M=%s N=%s K=%s: TraceLens %d, tprof %s" % (
                t["name"], t["param: M"], t["param: N"], t["param: K"], want, sorted(got, key=str) or "no row"))
    report("gemm", problems, checked)
    if absent or unlaunched:
        print("skip flops_tracelens_%s_gemm_unmatched: %d TraceLens rows are no operator of this trace, "
              "%d launch no kernel tprof attributes to them (graph replays, driver launches)" % (name, absent, unlaunched))
    if others:
        print("skip flops_tracelens_%s_gemm_other: no tprof formula for %s" % (name, ", ".join(sorted(others))))

# ---- Tensor Cores on full kernel names ------------------------------------
pats = [r"cutlass.*tensorop", r"_tensorop_", r"sm\d+_xmma", r"^nvjet_", r"^Cijk_.*_MI\d",
        r"igemm_.*_gtcx", r"_xdl_", r"^bmm_.*_sm10", r"^fmha", r"flash_fwd", r"flash_bwd"]
bad, n = [], 0
for r in rows:
    if any(re.search(p, r["Name"]) for p in pats):
        n += 1
        if r["TC"] != "1":
            bad.append(r["Name"][:100])
report("tc", ["%d of %d tensor-core kernels read TC %s: %s" % (len(bad), n, "not 1", bad[0])] if bad else [], n)
PY
done <"$tmp/cases"

# a run of two ranks merged into one store keeps each operator's Concrete
# Inputs (run.c re-interns them): the convolution still has its FLOPs
one="$tl/mi300/Falconsai_nsfw_image_detection__1016002.json.gz"
if [ -f "$one" ]; then
    mkdir "$tmp/run"
    cp "$one" "$tmp/run/rank0.json.gz"
    cp "$one" "$tmp/run/rank1.json.gz"
    n=$("$TPROF" prof --merge --csv -c op,flops "$tmp/run" 2>/dev/null | grep -c '^"miopen_convolution","924844032"$')
    if [ "$n" = 10 ]; then
        echo "ok flops_tracelens_merged_run"
    else
        echo "FAIL flops_tracelens_merged_run: $n of 10 convolution kernels have TraceLens' 924844032 FLOPs"
    fi
else
    echo "skip flops_tracelens_merged_run: $one is absent"
fi
