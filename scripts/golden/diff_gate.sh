#!/bin/sh
# Golden test of the statistical gate, `tprof diff --fail-above X
# --confidence P`, on real traces:
# - HTA's trace_compare pair (the test trace adds All2All_Pooled_Req,
#   AddmmBackward0 and CatBackward0 on the host): exit 1, the host part
#   regressed, and the waterfall names exactly those three operators;
# - a trace against itself: exit 0, every delta 0, every verdict ok;
# - the plugin's ResNet-50 sample cut in two halves of the same run (steps
#   5-7 and 8-10): exit 0 both ways (noise only);
# - the plugin's two spans of that job, B slower in data loading: exit 1 on
#   step_time and host, and 0 the other way round (an improvement);
# - on every pair: the parts sum to the step time on each side, the
#   waterfall's part deltas sum to the step-time delta, and the step time
#   equals `diff --summary`'s avg_step_time; the output is the same bytes on
#   a second run (fixed seed); JUnit has one case per quantity; usage errors
#   exit 2 with nothing on stdout.
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
REF=${REF:-$top/../shared/reference}
. "$top/scripts/golden/lib.sh"
hta=$REF/peers/hta_data/tests/data/trace_compare
res=$REF/kineto/data/tb_plugin/samples/resnet50_num_workers_0
golden_need golden.diff.gate "$hta" "$top/cli/tprof" python3
golden_need golden.diff.gate "$res" "$top/cli/tprof" python3
tp=$top/cli/tprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
base=$hta/base/base.json.gz
test=$hta/test/test.json.gz
span1=$res/worker0.1623143089861.pt.trace.json.gz
span2=$res/worker0.1623143566756.pt.trace.json.gz
"$tp" cut "$span1" --step 5-7 -o "$tmp/h1.json" 2>/dev/null
"$tp" cut "$span1" --step 8-10 -o "$tmp/h2.json" 2>/dev/null

# gate NAME A B WANT_RC [REGRESSED...]: exit status, which quantities
# regressed, and the sums, checked on the CSV tables.
gate() {
    name=$1 a=$2 b=$3 want=$4
    shift 4
    "$tp" diff --fail-above 5% --confidence 0.95 --csv "$a" "$b" >"$tmp/g.csv" 2>"$tmp/g.err"
    rc=$?
    "$tp" diff --fail-above 5% --confidence 0.95 --csv --waterfall "$a" "$b" >"$tmp/w.csv" 2>/dev/null
    "$tp" diff --summary --csv "$a" "$b" >"$tmp/s.csv" 2>/dev/null
    "$tp" diff --fail-above 5% --confidence 0.95 --csv "$a" "$b" 2>/dev/null | cmp -s - "$tmp/g.csv"
    same=$?
    python3 - "$tmp" "$rc" "$want" "$same" "$@" <<'PY' && echo "ok golden.diff.gate.$name" || echo "FAIL golden.diff.gate.$name: $(cat "$tmp/why")"
import csv, sys
d, rc, want, same = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
regressed = set(sys.argv[5:])
why = []
g = {r["Quantity"]: r for r in csv.DictReader(open(d + "/g.csv"))}
w = list(csv.DictReader(open(d + "/w.csv")))
s = {r["Metric"]: r for r in csv.DictReader(open(d + "/s.csv"))}
err = open(d + "/g.err").read()
def num(x):
    return None if x in ("", "-") else float(x)
if rc != want:
    why.append("exit %d, want %d (%s)" % (rc, want, err.strip()))
got = {q for q, r in g.items() if r["Verdict"] == "regressed"}
if got != regressed:
    why.append("regressed %s, want %s" % (sorted(got), sorted(regressed)))
for q in got:
    if "regression: %s " % q not in err:
        why.append("no stderr line for %s" % q)
parts = ["computation", "communication", "memcpy", "host", "idle"]
for side in ("A(us)", "B(us)"):
    tot = sum(float(g[p][side]) for p in parts)
    if abs(tot - float(g["step_time"][side])) > 0.01:
        why.append("%s parts sum to %.3f, step_time %s" % (side, tot, g["step_time"][side]))
    summ = num(s["avg_step_time"][side])
    if summ is not None and abs(float(summ) - float(g["step_time"][side])) > 0.01:
        why.append("%s step_time %s, diff --summary %s" % (side, g["step_time"][side], summ))
prow = [r for r in w if r["Name"] == "-" and r["Part"] in parts]
step = [r for r in w if r["Part"] == "step_time"][0]
if abs(sum(float(r["Delta(us)"]) for r in prow) - float(step["Delta(us)"])) > 0.01:
    why.append("waterfall parts do not sum to the step-time delta")
if abs(float(prow[-1]["Cumulative(us)"]) - float(step["Delta(us)"])) > 0.01:
    why.append("cumulative ends at %s, not %s" % (prow[-1]["Cumulative(us)"], step["Delta(us)"]))
for r in g.values():
    lo, hi = num(r["Low(%)"]), num(r["High(%)"])
    if lo is not None and not lo <= hi:
        why.append("%s interval %s..%s" % (r["Quantity"], lo, hi))
if same != 0:
    why.append("a second run printed other bytes")
open(d + "/why", "w").write("; ".join(why))
sys.exit(1 if why else 0)
PY
}

gate hta_pair "$base" "$test" 1 host
gate self "$span1" "$span1" 0
gate halves "$tmp/h1.json" "$tmp/h2.json" 0
gate halves_reversed "$tmp/h2.json" "$tmp/h1.json" 0
gate spans_slower "$span2" "$span1" 1 step_time host memcpy
gate spans_faster "$span1" "$span2" 0

# The pair's waterfall names the three operators the test trace added, and
# only under host.
"$tp" diff --fail-above 5% --confidence 0.95 --csv --waterfall "$base" "$test" 2>/dev/null >"$tmp/w.csv"
names=$(python3 -c 'import csv,sys; print(" ".join(sorted(r[1] for r in csv.reader(open(sys.argv[1])) if r[0] == "host" and r[1] != "-")))' "$tmp/w.csv")
[ "$names" = "AddmmBackward0 All2All_Pooled_Req CatBackward0" ] &&
    echo "ok golden.diff.gate.waterfall_names" || echo "FAIL golden.diff.gate.waterfall_names: '$names'"

# Self: every delta and interval end of the parts that exist is 0 or spans 0.
"$tp" diff --fail-above 5% --confidence 0.95 --csv "$span1" "$span1" 2>/dev/null |
    python3 -c '
import csv, sys
rows = list(csv.DictReader(sys.stdin))
bad = [r["Quantity"] for r in rows if float(r["Delta(us)"]) != 0 or r["Verdict"] != "ok"
       or (r["Low(%)"] != "-" and not float(r["Low(%)"]) <= 0 <= float(r["High(%)"]))]
sys.exit(1 if bad or len(rows) != 6 else 0)' &&
    echo "ok golden.diff.gate.self_zero" || echo "FAIL golden.diff.gate.self_zero"

# JUnit: six cases, the host case failing on the pair.
"$tp" diff --fail-above 5% --confidence 0.95 --junit "$tmp/j.xml" "$base" "$test" >/dev/null 2>&1
python3 - "$tmp/j.xml" <<'PY' && echo "ok golden.diff.gate.junit" || echo "FAIL golden.diff.gate.junit"
import sys, xml.dom.minidom
d = xml.dom.minidom.parse(sys.argv[1])
cases = d.getElementsByTagName("testcase")
failed = [c.getAttribute("name") for c in cases if c.getElementsByTagName("failure")]
sys.exit(0 if len(cases) == 6 and failed == ["host"] else 1)
PY

# --markdown: both tables as GitHub tables (every line a row or blank).
"$tp" diff --fail-above 5% --confidence 0.95 --markdown "$base" "$test" 2>/dev/null >"$tmp/m.md"
if [ "$(grep -c '^|' "$tmp/m.md")" -gt 10 ] && ! grep -qv '^|\|^$' "$tmp/m.md"; then
    echo "ok golden.diff.gate.markdown"
else
    echo "FAIL golden.diff.gate.markdown"
fi

# --step: only ProfilerStep#1009 of both, where the pair does not differ.
"$tp" diff --fail-above 5% --confidence 0.95 --step 1009 --csv "$base" "$test" >"$tmp/st.csv" 2>/dev/null
rc=$?
[ $rc -eq 0 ] && grep -q '^"step_time","100298","100298","0",' "$tmp/st.csv" &&
    echo "ok golden.diff.gate.step" || echo "FAIL golden.diff.gate.step: rc $rc $(head -2 "$tmp/st.csv" | tail -1)"

# Usage errors: exit 2, nothing on stdout.
golden_usage_rc2 golden.diff.gate.usage "$tp" "$base" "$test" "--confidence 0.95" \
    "--fail-above 5% --confidence 1.5" "--fail-above 5% --confidence x" "--fail-above 5% --waterfall" \
    "--fail-above 5% --confidence 95% --summary" "--fail-above 5% --confidence 0.95 -c nope"

# Run directories: the 8-rank DLRM run against itself (every rank's steps
# are samples), and --rank choosing two ranks; exit 0, step_time unchanged.
dlrm=$REF/peers/other_data/facebookresearch-param/et_replay/tests/inputs/dlrm_kineto
if [ -d "$dlrm" ]; then
    for r in "" "--rank 0,3"; do
        # shellcheck disable=SC2086
        "$tp" diff --fail-above 5% --confidence 0.95 --csv $r "$dlrm" "$dlrm" >"$tmp/run.csv" 2>/dev/null
        rc=$?
        [ $rc -eq 0 ] && grep -q '^"step_time",.*"ok"$' "$tmp/run.csv" &&
            echo "ok golden.diff.gate.run $r" || echo "FAIL golden.diff.gate.run $r: rc $rc"
    done
else
    echo "skip golden.diff.gate.run: $dlrm not found"
fi

# --plot: the waterfall drawn within -w, one line per row of the table it
# draws (after a caption), each ending in that row's delta; the bars of
# the parts run on from each other; no escapes into a pipe; not with --csv.
for w in 60 100 160; do
    "$tp" diff --fail-above 5% --confidence 0.95 --plot -w $w "$span1" "$span2" >"$tmp/p.txt" 2>/dev/null
    "$tp" diff --fail-above 5% --confidence 0.95 --waterfall --csv "$span1" "$span2" >"$tmp/p.csv" 2>/dev/null
    python3 - "$tmp/p.txt" "$tmp/p.csv" $w <<'PY' && echo "ok golden.diff.gate.plot -w $w" || echo "FAIL golden.diff.gate.plot -w $w"
import csv, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")[:-1]
rows = list(csv.DictReader(open(sys.argv[2])))
w = int(sys.argv[3])
ok = len(lines) == len(rows) + 1 and all(len(l) <= w - 1 for l in lines) and "\x1b" not in "".join(lines)
for l, r in zip(lines[1:], rows):
    ok = ok and abs(float(l.split()[-1]) - float(r["Delta(us)"])) < 1e-3
# the part rows' bars: each starts at a cell where the previous ended (to a cell)
bars = []
for l, r in zip(lines[1:], rows):
    if r["Name"] != "-" or r["Part"] == "step_time":
        continue
    cells = l.split("\u2502", 1)[1]
    filled = [i for i, ch in enumerate(cells) if ch in "\u2588\u2591"]
    if filled:
        bars.append((filled[0], filled[-1] + 1, float(r["Delta(us)"])))
for (a0, a1, ad), (b0, b1, bd) in zip(bars, bars[1:]):
    end = a1 if ad > 0 else a0
    ok = ok and (abs(b0 - end) <= 1 or abs(b1 - end) <= 1)
sys.exit(0 if ok else 1)
PY
done
"$tp" diff --plot --top 8 -w 100 "$span1" "$span2" >"$tmp/pn.txt" 2>/dev/null
[ "$(wc -l <"$tmp/pn.txt")" -eq 9 ] && echo "ok golden.diff.gate.plot_names" || echo "FAIL golden.diff.gate.plot_names: $(wc -l <"$tmp/pn.txt") lines"
out=$("$tp" diff --plot --csv "$span1" "$span2" 2>/dev/null)
[ $? -eq 2 ] && [ -z "$out" ] && echo "ok golden.diff.gate.plot_csv" || echo "FAIL golden.diff.gate.plot_csv"
