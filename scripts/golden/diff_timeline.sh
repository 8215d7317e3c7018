#!/bin/sh
# Golden test of `tprof diff --timeline` (the TensorBoard plugin's Diff Run
# view) against the plugin's own numbers: testdata/diff_timeline/NAME.tsv
# were written by scripts/plugin-diff-timeline, which runs the plugin's
# diffrun code (kineto tb_plugin) on the same reference traces.  Every node
# (path, name, host/device/total time of each side) must agree; then the
# accumulated delta of each sibling group ends at its parent's delta (the
# children partition their parent), --depth 0 is the root alone, and misuse
# is a usage error.
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
REF=${REF:-$top/../shared/reference}
. "$top/scripts/golden/lib.sh"
golden_need golden.diff.timeline "$REF/kineto/data" "$top/cli/tprof" python3
tp=$top/cli/tprof
exp=$top/testdata/diff_timeline
S=$REF/kineto/data/tb_plugin/samples/resnet50_num_workers_0
H=$REF/kineto/data/history/02522842/tb_plugin/samples
P=$REF/peers/hta_data/tests/data/trace_compare
M=$REF/kineto/data/extracted_unit_tests/test_build_module_hierarchy__json_content__L2514.pt.trace.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check NAME DEPTH A B: tprof's rows against the plugin's, value by value.
check() {
    name=$1 depth=$2 a=$3 b=$4
    if [ ! -e "$a" ] || [ ! -e "$b" ]; then
        echo "skip golden.diff.timeline.$name: input not found"
        return
    fi
    "$tp" diff --timeline --depth "$depth" --tsv --no-header \
        -c path,name,a_host,a_device,a_total,b_host,b_device,b_total "$a" "$b" >"$tmp/got" 2>"$tmp/err"
    rc=$?
    python3 - "$exp/$name.tsv" "$tmp/got" "$rc" >"$tmp/why" <<'PY' && echo "ok golden.diff.timeline.$name" ||
import sys
want = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
got = [l.rstrip("\n").split("\t") for l in open(sys.argv[2])]
why = []
if sys.argv[3] != "0":
    why.append("exit %s" % sys.argv[3])
if len(want) != len(got):
    why.append("%d rows, the plugin %d" % (len(got), len(want)))
for w, g in zip(want, got):
    # The plugin keeps times as float µs read from timestamps near 1e12 µs,
    # where a double resolves 2^-12 µs: its sums of sub-µs events drift by
    # a few ns from tprof's exact ones.  Integer-µs traces agree exactly.
    if w[:2] != g[:2] or any(abs(float(x) - float(y)) > max(0.05, 1e-5 * abs(float(x)))
                             for x, y in zip(w[2:], g[2:])):
        why.append("row %s: %s, the plugin %s" % (w[0], g, w))
        break
if why:
    print("; ".join(why))
sys.exit(1 if why else 0)
PY
        echo "FAIL golden.diff.timeline.$name: $(cat "$tmp/why" "$tmp/err")"
}

check resnet_spans 4 "$S/worker0.1623143089861.pt.trace.json.gz" "$S/worker0.1623143566756.pt.trace.json.gz"
check resnet_spans_reversed 4 "$S/worker0.1623143566756.pt.trace.json.gz" "$S/worker0.1623143089861.pt.trace.json.gz"
check autograd_workers 3 "$H/resnet50_autograd_api_num_workers_0/worker0.pt.trace.json.gz" \
    "$H/resnet50_autograd_api_num_workers_4/worker0.pt.trace.json.gz"
check hta_pair 4 "$P/base/base.json.gz" "$P/test/test.json.gz"
check module_hierarchy 5 "$M" "$M"
# nn.Module traces with forward-backward flows: the plugin's backward modules
T=$REF/peers/other_data/AMD-AGI-TraceLens/tests/traces
check normalization_backward 3 "$T/perf_model/normalization/normalization_layer_test.json.gz" \
    "$T/perf_model/normalization/normalization_layer_test.json.gz"
check act_checkpoint_backward 4 "$T/mi300/resnet_act_checkpoint.json.gz" "$T/mi300/resnet_act_checkpoint.json.gz"

# The accumulated delta of each sibling group ends at the parent's delta,
# and --depth 0 prints the root alone.
a=$S/worker0.1623143089861.pt.trace.json.gz b=$S/worker0.1623143566756.pt.trace.json.gz
"$tp" diff --timeline --depth 3 --csv -c path,delta,accumulated "$a" "$b" >"$tmp/acc.csv" 2>/dev/null
python3 - "$tmp/acc.csv" <<'PY' && echo "ok golden.diff.timeline.accumulated" || echo "FAIL golden.diff.timeline.accumulated"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
delta = {r["Path"]: float(r["Delta(us)"]) for r in rows}
last = {}
for r in rows:
    p = r["Path"]
    if "-" in p:
        last[p.rsplit("-", 1)[0]] = float(r["Accumulated(us)"])
ok = len(last) > 0 and all(abs(last[p] - delta[p]) < 1e-6 for p in last)
sys.exit(0 if ok else 1)
PY
n=$("$tp" diff --timeline --depth 0 --tsv --no-header "$a" "$b" 2>/dev/null | wc -l)
[ "$n" -eq 1 ] && echo "ok golden.diff.timeline.depth0" || echo "FAIL golden.diff.timeline.depth0: $n rows"

golden_usage_rc2 golden.diff.timeline.usage "$tp" "$a" "$b" "--depth 2" "--timeline --depth x" \
    "--timeline --summary" "--timeline --fail-above 5%" "--timeline -c nope"
