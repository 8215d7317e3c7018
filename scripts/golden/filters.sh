#!/bin/sh
# Selecting rows (issue: the CLI, item 2): --step N|A-B and --window T0..T1
# make a view read that slice of the trace as a whole trace (tprof cut's rule:
# a step's host events and the GPU work they launched; a window's
# overlapping events); --rank LIST reads those ranks of a run.  Checked
# against Python on the reference traces.
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$top/cli/tprof
F=$top/../shared/reference/kineto/data/history/34d6ad53/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz
RUN=$top/../shared/reference/peers/other_data/facebookresearch-param/et_replay/tests/inputs/dlrm_kineto
. "$(dirname "$0")/lib.sh"
golden_need filters "$(dirname "$F")" "$T" python3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
check() {   # NAME CONDITION-RESULT WHY
    if [ "$2" = 0 ]; then echo "ok filters.$1"; else echo "FAIL filters.$1: $3"; fi
}

for s in 7 6-7; do
    "$T" kernels --csv --header keys -c name,calls,total --step $s "$F" >"$tmp/k$s.csv" 2>/dev/null
done
"$T" kernels --csv --header keys -c name,calls,total --step 6 "$F" >"$tmp/k6.csv" 2>/dev/null
python3 - "$F" "$tmp" <<'PY'
import collections, csv, gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
d = sys.argv[2]
launch = {e["args"]["correlation"]: float(e["ts"]) for e in ev
          if e.get("cat") in ("cuda_runtime", "Runtime") and "correlation" in e.get("args", {})}
def step_kernels(nums):
    spans = [(float(e["ts"]), float(e["ts"]) + float(e["dur"])) for e in ev
             if e.get("ph") == "X" and e.get("name") in ["ProfilerStep#%d" % n for n in nums]]
    t0, t1 = min(s for s, _ in spans), max(e for _, e in spans)
    k = collections.defaultdict(lambda: [0, 0])
    for e in ev:
        if e.get("cat") in ("kernel", "Kernel") and t0 <= launch.get(e.get("args", {}).get("correlation"), -1) <= t1:
            k[e["name"]][0] += 1
            k[e["name"]][1] += round(float(e["dur"]) * 1000)
    return dict(k)
def got(f):
    return {r["name"]: [int(r["calls"]), round(float(r["total"]) * 1000)] for r in csv.DictReader(open(f))}
for name, nums, f in (("step-kernels", [7], "k7.csv"), ("step-range-kernels", [6, 7], "k6-7.csv")):
    g, w = got(d + "/" + f), step_kernels(nums)
    print("ok filters.%s" % name if g == w and len(g) > 10 else
          "FAIL filters.%s: %d names vs %d" % (name, len(g), len(w)))
a, b, ab = got(d + "/k6.csv"), got(d + "/k7.csv"), got(d + "/k6-7.csv")
u = {k: [a.get(k, [0, 0])[0] + b.get(k, [0, 0])[0], a.get(k, [0, 0])[1] + b.get(k, [0, 0])[1]] for k in set(a) | set(b)}
print("ok filters.range-is-the-union" if u == ab else "FAIL filters.range-is-the-union: differs")
PY

# the step's kernel time in the steps view is the whole trace's for that step
"$T" steps --csv --header keys -c step,kernel "$F" 2>/dev/null | grep '^"7"' >"$tmp/all7"
"$T" steps --csv --header keys -c step,kernel --step 7 "$F" 2>/dev/null | grep '^"7"' >"$tmp/one7"
[ -s "$tmp/all7" ] && cmp -s "$tmp/all7" "$tmp/one7"
check steps-kernel-time $? "$(cat "$tmp/all7") vs $(cat "$tmp/one7")"

# the whole window is the whole trace
"$T" kernels "$F" >"$tmp/a" 2>/dev/null
"$T" kernels --window 0.. "$F" >"$tmp/b" 2>/dev/null
cmp -s "$tmp/a" "$tmp/b"
check whole-window $? "kernels differ"

# bad values: exit 2, a message, nothing on stdout
for bad in "--step x" "--step 99" "--step 7-5" "--window abc" "--window 2s..1s"; do
    # shellcheck disable=SC2086
    "$T" kernels $bad "$F" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ $rc = 2 ] && [ ! -s "$tmp/out" ] && [ -s "$tmp/err" ]
    check "bad:$(echo "$bad" | tr ' ' '=')" $? "exit $rc: $(head -1 "$tmp/err")"
done
"$T" kernels --step 99 "$F" 2>&1 | grep -q "no such ProfilerStep (steps: 5,6,7,8,9,10)"
check missing-step-names-the-steps $? "$("$T" kernels --step 99 "$F" 2>&1)"

# views say which they honour: kernels does, critical-path keeps its own --step
"$T" help kernels | grep -q -- "--step N|A-B" && "$T" help kernels | grep -q -- "--window T0..T1"
check help-lists-them $? "tprof help kernels"

if [ -d "$RUN" ]; then
    "$T" kernels --csv --header keys -c rank,name,calls "$RUN" >"$tmp/all.csv" 2>/dev/null
    "$T" kernels --csv --header keys -c rank,name,calls --rank 2,5-6 "$RUN" >"$tmp/some.csv" 2>/dev/null
    python3 - "$tmp/all.csv" "$tmp/some.csv" <<'PY'
import csv, sys
a = [r for r in csv.DictReader(open(sys.argv[1])) if r["rank"] in ("2", "5", "6")]
b = list(csv.DictReader(open(sys.argv[2])))
print("ok filters.rank-list" if a == b and {r["rank"] for r in b} == {"2", "5", "6"} else
      "FAIL filters.rank-list: %d rows vs %d" % (len(b), len(a)))
PY
    "$T" kernels --rank 9 "$RUN" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ $rc = 2 ] && [ ! -s "$tmp/out" ] && grep -q -- "--rank: no rank 9 in this run (8 ranks)" "$tmp/err"
    check rank-missing $? "exit $rc: $(cat "$tmp/err")"
else
    echo "skip filters.rank: the DLRM run is not in ../shared"
fi
