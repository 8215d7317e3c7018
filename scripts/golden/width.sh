#!/bin/sh
# Width (issue: the CLI, item 4): for tprof's own views, -w W and the
# terminal's width are a hard limit, counted in terminal cells (a CJK
# character is 2), names shortened in the middle, columns left out from the
# right with a note on stderr when even the names at their minimum do not fit.
# prof keeps prof.py's -w (pyprof.sh checks it).
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$top/cli/tprof
S=$top/testdata/sample.pt.trace.json
H100=$top/../shared/reference/peers/other_data/AMD-AGI-TraceLens/tests/traces/b200/eager_trace.json.gz
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

check() {   # NAME CONDITION-RESULT WHY
    if [ "$2" = 0 ]; then echo "ok width.$1"; else echo "FAIL width.$1: $3"; fi
}

# widest FILE: the widest line in terminal cells (East Asian wide = 2)
widest() {
    python3 - "$1" <<'EOF'
import sys, unicodedata
w = 0
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    line = line.rstrip("\r\n")
    w = max(w, sum(2 if unicodedata.east_asian_width(c) in "WF" else
                   0 if unicodedata.combining(c) else 1 for c in line))
print(w)
EOF
}

# 1. every own view on a real trace, at several widths: no line wider than W
inputs=$S
[ -f "$H100" ] && inputs="$inputs $H100" || echo "skip width.b200: ../shared absent"
for f in $inputs; do
    tag=$(basename "$f" | cut -d. -f1)
    for v in kernels ops steps modules gpu temporal kernel-types launches api labels; do
        for W in 40 60 80 100 150; do
            "$T" -w $W $v "$f" >"$tmp/out" 2>"$tmp/err"; rc=$?
            if [ $rc != 0 ] && ! grep -q -- "-w" "$tmp/err"; then
                echo "skip width.$tag.$v.w$W: the view does not apply: $(head -1 "$tmp/err")"
                continue
            fi
            got=$(widest "$tmp/out")
            [ $rc = 0 ] && [ "$got" -le $W ]
            check "$tag.$v.w$W" $? "exit $rc, widest line $got cells at -w $W: $(head -1 "$tmp/err")"
        done
    done
done

# 2. what was left out is said on stderr, and only then
"$T" -w 60 kernels "$S" >"$tmp/out" 2>"$tmp/err"
grep -q "^tprof: width 60: left out .* to fit (choose columns with -c, or a wider -w)$" "$tmp/err"
check note-left-out $? "$(cat "$tmp/err")"
"$T" -w 400 kernels "$S" >"$tmp/out" 2>"$tmp/err"
! grep -q "left out" "$tmp/err"
check no-note-when-it-fits $? "$(cat "$tmp/err")"

# 3. CJK operator names: the column after the name starts at the same cell
#    in every row (counted in cells, not code points)
python3 - "$S" "$tmp/cjk.json" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))
names = {}
for e in t["traceEvents"]:
    if e.get("cat") == "cpu_op" and e["name"] not in names and len(names) < 2:
        names[e["name"]] = ["卷积前向", "线性层"][len(names)]
for e in t["traceEvents"]:
    if e.get("name") in names:
        e["name"] = names[e["name"]]
json.dump(t, open(sys.argv[2], "w"), ensure_ascii=False)
EOF
"$T" -w 100 -c name,calls ops "$tmp/cjk.json" >"$tmp/out" 2>/dev/null
python3 - "$tmp/out" <<'EOF' >"$tmp/cols"
import sys, unicodedata
for line in open(sys.argv[1], encoding="utf-8"):
    if " time total: " in line:   # key_averages' closing lines, under the table
        continue
    # the cell where the last column ends is the same on every line
    print(sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line.rstrip("\n")))
EOF
[ "$(sort -u "$tmp/cols" | wc -l)" = 1 ] && grep -q "卷积前向" "$tmp/out"
check cjk-aligned $? "line widths in cells: $(sort -u "$tmp/cols" | tr '\n' ' ')"

# 4. on a terminal (a pseudo-terminal from script(1)) the width is the
#    terminal's: COLUMNS when the pty reports no size
if command -v script >/dev/null 2>&1; then
    COLUMNS=72 script -qec "'$T' kernels '$S' 2>/dev/null" /dev/null >"$tmp/out" 2>&1 </dev/null
    got=$(widest "$tmp/out")
    [ "$got" -le 72 ] && grep -q "^Name" "$tmp/out"
    check terminal-width $? "widest line $got cells at COLUMNS=72"
else
    echo "skip width.terminal-width: no script(1)"
fi
