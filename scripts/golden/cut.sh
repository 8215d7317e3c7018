#!/bin/sh
# tprof cut (issue: the CLI, item 8): a slice of a kineto trace that is itself
# a kineto trace.  Checked against the original with Python: the slice is
# valid JSON with the original's top-level keys and metadata events; a step's
# slice holds exactly the kernels launched in that step (by name: calls and
# total time, as `tprof kernels` reads them); a window keeps what overlaps it;
# bad requests fail with exit 2 and leave no file.
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$top/cli/tprof
F=$top/../shared/reference/kineto/data/history/34d6ad53/tb_plugin/samples/resnet50_num_workers_0/worker0.pt.trace.json.gz
if [ ! -f "$F" ]; then
    echo "skip cut: ../shared absent"
    exit 0
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
check() {   # NAME CONDITION-RESULT WHY
    if [ "$2" = 0 ]; then echo "ok cut.$1"; else echo "FAIL cut.$1: $3"; fi
}

"$T" cut "$F" --step 7 -o "$tmp/s7.json" 2>"$tmp/err"
check step-exit $? "$(cat "$tmp/err")"
"$T" kernels --csv --header keys -c name,calls,total "$tmp/s7.json" >"$tmp/k7.csv" 2>/dev/null
python3 - "$F" "$tmp/s7.json" "$tmp/k7.csv" <<'PY'
import collections, csv, gzip, json, sys
orig = json.load(gzip.open(sys.argv[1]))
cut = json.load(open(sys.argv[2]))
ev = orig["traceEvents"]
ok = True
def say(name, cond, why):
    global ok
    print(("ok cut.%s" % name) if cond else ("FAIL cut.%s: %s" % (name, why)))
say("step-keys", set(cut) == set(orig), "%s vs %s" % (sorted(cut), sorted(orig)))
meta = lambda es: sorted(json.dumps(e, sort_keys=True) for e in es if e.get("ph") == "M")
say("step-metadata", meta(cut["traceEvents"]) == meta(ev), "metadata events differ")
step = [e for e in ev if e.get("name") == "ProfilerStep#7" and e.get("ph") == "X"][0]
t0, t1 = float(step["ts"]), float(step["ts"]) + float(step["dur"])
launch = {e["args"]["correlation"]: float(e["ts"]) for e in ev
          if e.get("cat") in ("cuda_runtime", "Runtime") and "correlation" in e.get("args", {})}
want = collections.defaultdict(lambda: [0, 0])
for e in ev:
    if e.get("cat") in ("kernel", "Kernel") and t0 <= launch.get(e.get("args", {}).get("correlation"), -1) <= t1:
        want[e["name"]][0] += 1
        want[e["name"]][1] += round(float(e["dur"]) * 1000)
got = {r["name"]: [int(r["calls"]), round(float(r["total"]) * 1000)] for r in csv.DictReader(open(sys.argv[3]))}
say("step-kernels-launched-in-step", got == dict(want) and len(got) > 10,
    "%d kernel names vs %d; first difference: %s" % (len(got), len(want),
    next((k for k in set(got) | set(want) if got.get(k) != want.get(k)), None)))
PY

"$T" cut "$F" --step 6-7 -o "$tmp/s67.json.gz" 2>/dev/null
"$T" steps --csv --header keys -c step,kernel "$F" >"$tmp/all.csv" 2>/dev/null
"$T" steps --csv --header keys -c step,kernel "$tmp/s67.json.gz" >"$tmp/s67.csv" 2>/dev/null
python3 - "$tmp/all.csv" "$tmp/s67.csv" "$tmp/s67.json.gz" <<'PY'
import csv, gzip, sys
a = {r["step"]: r["kernel"] for r in csv.DictReader(open(sys.argv[1]))}
b = {r["step"]: r["kernel"] for r in csv.DictReader(open(sys.argv[2]))}
steps = sorted(k for k in b if k != "avg")
cond = steps == ["6", "7"] and all(a[s] == b[s] for s in steps)
print(("ok cut.step-range-kernel-time" if cond else "FAIL cut.step-range-kernel-time: %r vs %r" % (b, a)))
print("ok cut.gzip-output" if open(sys.argv[3], "rb").read(2) == b"\x1f\x8b" else "FAIL cut.gzip-output: not gzip")
PY

# the whole window: every event, and the same kernels table
"$T" cut "$F" --window 0.. -o "$tmp/all.json" 2>"$tmp/err"
grep -q ": \([0-9]*\) of \1 events" "$tmp/err"
check window-all-events $? "$(cat "$tmp/err")"
"$T" kernels "$F" >"$tmp/ka" 2>/dev/null
"$T" kernels "$tmp/all.json" >"$tmp/kb" 2>/dev/null
cmp -s "$tmp/ka" "$tmp/kb"
check window-all-same-kernels $? "kernels differ"

# a window in the middle: what is kept overlaps it, what overlaps it is kept
"$T" cut "$F" --window 100ms..150ms -o "$tmp/w.json" 2>/dev/null
python3 - "$F" "$tmp/w.json" <<'PY'
import gzip, json, sys
ev = json.load(gzip.open(sys.argv[1]))["traceEvents"]
cut = json.load(open(sys.argv[2]))["traceEvents"]
t = [float(e["ts"]) for e in ev if "ts" in e and e.get("ph") not in ("M", "s", "f", "t")]
start = min(t)
w0, w1 = start + 100000, start + 150000
def keep(e):
    if e.get("ph") == "M" or "ts" not in e:
        return True
    ts = float(e["ts"]); d = float(e.get("dur", 0) or 0)
    return ts <= w1 and ts + max(d, 0) >= w0 if e.get("ph") == "X" else w0 <= ts <= w1
want = [json.dumps(e, sort_keys=True) for e in ev if keep(e)]
got = [json.dumps(e, sort_keys=True) for e in cut]
print("ok cut.window-overlap" if got == want and len(got) < len(ev) else
      "FAIL cut.window-overlap: %d events vs %d expected" % (len(got), len(want)))
PY

# bad requests: exit 2, a message, no file
"$T" cut "$F" --step 99 -o "$tmp/x.json" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ ! -e "$tmp/x.json" ] && grep -q "no ProfilerStep#99 (steps: 5,6,7,8,9,10)" "$tmp/err"
check missing-step $? "exit $rc: $(cat "$tmp/err")"
"$T" cut "$F" --window abc -o "$tmp/x.json" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ ! -e "$tmp/x.json" ] && grep -q "^tprof: cut: --window: 'abc'" "$tmp/err"
check bad-window $? "exit $rc: $(cat "$tmp/err")"
"$T" cut "$F" --step 7 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "no -o OUT" "$tmp/err"
check no-output $? "exit $rc: $(cat "$tmp/err")"
"$T" cut "$F" --step 7 --window 0..1s -o "$tmp/x.json" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ ! -e "$tmp/x.json" ]
check step-and-window $? "exit $rc: $(cat "$tmp/err")"
printf '{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, "tid": 1}, {"ph": "X", "na' >"$tmp/trunc.json"
"$T" cut "$tmp/trunc.json" --window 0.. -o "$tmp/x.json" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ ! -e "$tmp/x.json" ] && [ -z "$(ls "$tmp" | grep 'x.json.tmp')" ]
check truncated-input-no-file $? "exit $rc: $(cat "$tmp/err") $(ls "$tmp")"
"$T" import "$F" -o "$tmp/s.tprof" 2>/dev/null
"$T" cut "$tmp/s.tprof" --step 7 -o "$tmp/x.json" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ ! -e "$tmp/x.json" ] && grep -q "a .tprof store keeps no event text to copy" "$tmp/err"
check store-input-refused $? "exit $rc: $(cat "$tmp/err")"
