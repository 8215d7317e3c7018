#!/bin/sh
# --human (issue: a CLI people already know how to use, item 2): times and
# bytes printed as torch.profiler's key_averages().table() prints them.  The
# cells are checked against torch's own formulas (_format_time,
# override_time_unit, _format_memory of torch/autograd/profiler_util.py,
# written out below) applied to the exact numbers of --csv --header keys, on
# the plugin's ResNet-50 trace (profile_memory: byte columns) and an Nsight
# Systems export (ns columns, bytes as means).  The typed formats refuse it,
# and so does the prof view (prof.py has no such mode).
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$top/cli/tprof
REF=$top/../shared/reference
F=$REF/kineto/data/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz
DB=$REF/peers/other_data/NVIDIA-Fuser/64ee035d/report1.sqlite
. "$(dirname "$0")/lib.sh"
golden_need human "$(dirname "$F")" "$T" python3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
check() {   # NAME CONDITION-RESULT WHY
    if [ "$2" = 0 ]; then echo "ok human.$1"; else echo "FAIL human.$1: $3"; fi
}

C=name,calls,dev_self,dev_total,host_self,host_total,cpu_avg,cuda_avg,cpu_mem,self_cpu_mem,dev_mem,self_dev_mem
"$T" ops --csv --header keys -c $C "$F" >"$tmp/ops.csv" 2>/dev/null
"$T" ops --markdown --human -c $C "$F" >"$tmp/ops.md" 2>/dev/null
"$T" ops --markdown --human --timeunit ms -c $C "$F" >"$tmp/ops_ms.md" 2>/dev/null
"$T" ops -w 250 --human -c $C "$F" >"$tmp/ops.w" 2>/dev/null
"$T" ops --space --human -c $C "$F" >"$tmp/ops.space" 2>/dev/null
C2=kind,bytes,bytes_avg,bytes_min,total,avg,min
if [ -f "$DB" ]; then
    cp "$DB" "$tmp/r.sqlite"   # never opened in ../shared
    "$T" memops --csv --header keys "$tmp/r.sqlite" >"$tmp/memops.csv" 2>/dev/null
    "$T" memops --markdown --human "$tmp/r.sqlite" >"$tmp/memops.md" 2>/dev/null
    "$T" api --csv --header keys "$tmp/r.sqlite" >"$tmp/api.csv" 2>/dev/null
    "$T" api --markdown --human "$tmp/r.sqlite" >"$tmp/api.md" 2>/dev/null
fi
python3 - "$tmp" <<'PY'
import csv, os, re, sys
d = sys.argv[1]

# torch/autograd/profiler_util.py
def _format_time(time_us):
    if time_us >= 1e6:
        return f"{time_us / 1e6:.3f}s"
    if time_us >= 1e3:
        return f"{time_us / 1e3:.3f}ms"
    return f"{time_us:.3f}us"
def _format_memory(nbytes):
    KB = 1024; MB = 1024 * KB; GB = 1024 * MB
    if abs(nbytes) >= GB: return f"{nbytes * 1.0 / GB:.2f} GB"
    if abs(nbytes) >= MB: return f"{nbytes * 1.0 / MB:.2f} MB"
    if abs(nbytes) >= KB: return f"{nbytes * 1.0 / KB:.2f} KB"
    return str(nbytes) + " B"

def md(path):
    rows = []
    for line in open(path):
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        rows.append([c.replace("\\_", "_") for c in cells])
    return rows[0], rows[2:]

def case(name, ok, why):
    print(("ok human.%s" % name) if ok else ("FAIL human.%s: %s" % (name, why)))

csvrows = list(csv.DictReader(open(os.path.join(d, "ops.csv"))))
head, body = md(os.path.join(d, "ops.md"))
times = ["dev_self", "dev_total", "host_self", "host_total", "cpu_avg", "cuda_avg"]
mems = ["cpu_mem", "self_cpu_mem", "dev_mem", "self_dev_mem"]
keys = ["name", "calls"] + times + mems
case("ops.rows", len(body) == len(csvrows) > 50, "%d markdown rows, %d CSV rows" % (len(body), len(csvrows)))
case("ops.headers", head == ["Name", "Calls", "DeviceSelf", "DeviceTotal", "HostSelf", "HostTotal", "CPUAvg",
                             "CUDAAvg", "CPUMem", "SelfCPUMem", "DevMem", "SelfDevMem"], "header %s" % head)
bad_t, bad_m, units, nonzero_mem = [], [], set(), 0
for r, m in zip(csvrows, body):
    got = dict(zip(keys, m))
    for k in times:
        want = _format_time(float(r[k]))
        units.add(re.sub(r"[-0-9.]", "", want))
        if got[k] != want:
            bad_t.append((r["name"], k, got[k], want))
    for k in mems:
        want = _format_memory(int(r[k]))
        nonzero_mem += int(r[k]) != 0
        if got[k] != want:
            bad_m.append((r["name"], k, got[k], want))
case("ops.times", not bad_t and units == {"us", "ms"}, "%d cells differ from _format_time, e.g. %s; units %s"
     % (len(bad_t), bad_t[:2], sorted(units)))
case("ops.bytes", not bad_m and nonzero_mem > 50, "%d cells differ from _format_memory, e.g. %s (%d non-zero)"
     % (len(bad_m), bad_m[:2], nonzero_mem))

# --timeunit ms with --human: key_averages' time_unit="ms"
_, body = md(os.path.join(d, "ops_ms.md"))
bad = [(r["name"], k) for r, m in zip(csvrows, body) for k, v in zip(keys, m)
       if k in times and v != f"{float(r[k]) / 1e3:.3f}ms"]
case("timeunit_ms", not bad and len(body) == len(csvrows), "%d cells not time_unit='ms', e.g. %s" % (len(bad), bad[:2]))

# -w: the same cells, one width per column (every line as long as the header)
lines = open(os.path.join(d, "ops.w")).read().split("\n")
lines = [l for l in lines if l and not l.startswith("Self C")]
lens = {len(l) for l in lines}
first = lines[1].split() if len(lines) > 1 else []
want = [csvrows[0]["name"], csvrows[0]["calls"], _format_time(float(csvrows[0]["dev_self"]))]
case("columns", len(lines) == len(csvrows) + 1 and len(lens) == 1 and first[:3] == want
     and "(us)" not in lines[0], "%d lines of %d widths; first row %s, want %s" % (len(lines), len(lens), first[:3], want))

# space: one line per row, the units after each number
sp = open(os.path.join(d, "ops.space")).read().split("\n")
row1 = sp[1].split(" ") if len(sp) > 1 else []
case("space", len([l for l in sp if l]) == len(csvrows) + 1 and row1[2] == _format_time(float(csvrows[0]["dev_self"])),
     "row 1 %s" % row1[:4])

# nsys: ns columns (TotalTime(ns): an int of ns; Avg(ns): a float) and bytes
if os.path.exists(os.path.join(d, "memops.csv")):
    rows = list(csv.DictReader(open(os.path.join(d, "api.csv"))))
    h, body = md(os.path.join(d, "api.md"))
    bad = []
    for r, m in zip(rows, body):
        got = dict(zip([k for k in r], m))
        for k in ("total", "avg", "med", "min", "max"):
            if got[k] != _format_time(float(r[k]) / 1000.0):
                bad.append((r["name"], k, got[k], _format_time(float(r[k]) / 1000.0)))
    case("nsys.ns", len(body) == len(rows) > 5 and not bad and "TotalTime" in h,
         "%d rows, %d cells differ, e.g. %s; header %s" % (len(body), len(bad), bad[:2], h))
    rows = list(csv.DictReader(open(os.path.join(d, "memops.csv"))))
    h, body = md(os.path.join(d, "memops.md"))
    bad = []
    for r, m in zip(rows, body):
        got = dict(zip([k for k in r], m))
        for k in ("bytes", "bytes_min", "bytes_max"):
            if got[k] != _format_memory(int(r[k])):
                bad.append((k, got[k], _format_memory(int(r[k]))))
        for k in ("bytes_avg", "bytes_med"):   # a mean: str(float) below 1 KB
            v = float(r[k])
            if got[k] != (_format_memory(v) if abs(v) >= 1024 else str(v) + " B"):
                bad.append((k, got[k], v))
    case("nsys.bytes", len(body) == len(rows) > 0 and not bad and "Total" in h and "Total(B)" not in h,
         "%d rows, %d cells differ, e.g. %s; header %s" % (len(body), len(bad), bad[:2], h))
else:
    print("skip human.nsys: NVIDIA-Fuser report1.sqlite not found")
PY

# refused where the cells must stay numbers, and on the prof view
for fmt in --csv --tsv --jsonl; do
    "$T" ops $fmt --human "$F" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ $rc = 2 ] && [ ! -s "$tmp/out" ] && grep -q -- "--human.*$fmt" "$tmp/err"
    check "refused$fmt" $? "exit $rc, $(wc -c <"$tmp/out") bytes out, stderr: $(head -1 "$tmp/err")"
done
"$T" --human -w 150 "$F" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/out" ] && grep -q 'prof view.*prof.py' "$tmp/err"
check prof_refused $? "exit $rc, $(wc -c <"$tmp/out") bytes out, stderr: $(head -1 "$tmp/err")"
# without --human nothing changes: the headers keep their unit
"$T" ops --markdown -c name,dev_self,dev_mem "$F" 2>/dev/null | head -1 | grep -q 'DeviceSelf(us) | DevMem(B)'
check plain_headers $? "headers without --human lost their unit"
