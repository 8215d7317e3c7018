#!/bin/sh
# Golden test of `tprof diff --fail-above X --junit FILE` on HTA's
# trace_compare pair (../shared/reference/peers/hta_data/tests/data/
# trace_compare): a trace against itself exits 0 and its report has no
# failure; a copy with 10% longer ProfilerSteps exits 1 and its report fails
# exactly the gated test case (avg_step_time); the kernel and op times are
# reported, never failing; the XML parses; --junit without --fail-above is a
# usage error that writes nothing.
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
REF=${REF:-$top/../shared/reference}
dir=$REF/peers/hta_data/tests/data/trace_compare
. "$(dirname "$0")/lib.sh"
golden_need_files golden.diff.junit "$dir" "$dir/base/base.json.gz" "$dir/test/test.json.gz"

# --junit FILE: one test case per quantity, the gated one failing exactly
# when the exit status is 1; valid XML; --junit without --fail-above is usage.
jt=$(mktemp -d)
"$top/cli/tprof" diff --summary --fail-above 5% --junit "$jt/same.xml" "$dir/base/base.json.gz" "$dir/base/base.json.gz" >/dev/null 2>&1
rc_same=$?
python3 - "$dir/test/test.json.gz" "$jt/slow.json" <<'PY'
import gzip, json, sys
t = json.load(gzip.open(sys.argv[1]))
for e in t["traceEvents"]:
    if e.get("name", "").startswith("ProfilerStep#") and "dur" in e:
        e["dur"] = e["dur"] * 1.1
json.dump(t, open(sys.argv[2], "w"))
PY
"$top/cli/tprof" diff --summary --fail-above 5% --junit "$jt/slow.xml" "$dir/base/base.json.gz" "$jt/slow.json" >/dev/null 2>&1
rc_slow=$?
python3 - "$jt/same.xml" "$rc_same" "$jt/slow.xml" "$rc_slow" <<'PY'
import sys, xml.dom.minidom
why = []
for path, rc in ((sys.argv[1], int(sys.argv[2])), (sys.argv[3], int(sys.argv[4]))):
    d = xml.dom.minidom.parse(path)
    cases = d.getElementsByTagName("testcase")
    failed = [c.getAttribute("name") for c in cases if c.getElementsByTagName("failure")]
    gated = [c.getAttribute("name") for c in cases if "not gated" not in c.getAttribute("name")]
    if len(cases) != 3 or gated != ["avg_step_time"]:
        why.append("%s: cases %r" % (path, [c.getAttribute("name") for c in cases]))
    if (rc == 1) != (failed == ["avg_step_time"]) or (rc == 0 and failed):
        why.append("%s: exit %d but failures %r" % (path, rc, failed))
if int(sys.argv[2]) != 0 or int(sys.argv[4]) != 1:
    why.append("exits %s and %s, want 0 and 1" % (sys.argv[2], sys.argv[4]))
print("ok golden.diff.junit" if not why else "FAIL golden.diff.junit: " + "; ".join(why))
PY
"$top/cli/tprof" diff --junit "$jt/x.xml" "$dir/base/base.json.gz" "$dir/base/base.json.gz" >/dev/null 2>&1
if [ $? = 2 ] && [ ! -e "$jt/x.xml" ]; then echo "ok golden.diff.junit_needs_gate"; else echo "FAIL golden.diff.junit_needs_gate"; fi
rm -rf "$jt"
