#!/bin/sh
# Golden tests of the command line people already know (issue: the CLI,
# item 1):
#   - the view may stand anywhere before the inputs: `tprof --csv kernels F`
#     prints what `tprof kernels --csv F` prints;
#   - a mistyped view gets "did you mean", exit 2 and nothing on stdout, and
#     the other inputs are not read (`tprof kernal F`);
#   - a mistyped long option gets "did you mean" too;
#   - `tprof help VIEW` is `tprof VIEW --help`; `tprof help NOPE` exits 2;
#   - with no input named and stdin not a terminal, stdin is read
#     (`tprof kernels < F`); on a terminal (a pseudo-terminal from script(1))
#     tprof still says that no input was named;
#   - a file named like a view is read as ./NAME;
#   - a view's own options: listed by `tprof help VIEW`, refused by the
#     other views, accepted before the view (end of the file).
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$top/cli/tprof
S=$top/testdata/sample.pt.trace.json
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

check() {   # NAME CONDITION-RESULT WHY
    if [ "$2" = 0 ]; then echo "ok cli.$1"; else echo "FAIL cli.$1: $3"; fi
}

"$T" kernels --csv "$S" >"$tmp/a" 2>&1
"$T" --csv kernels "$S" >"$tmp/b" 2>&1
cmp -s "$tmp/a" "$tmp/b"; check view-after-options $? "differs from the view first"
"$T" -c name,calls kernels "$S" --top 1 >"$tmp/b" 2>&1
[ "$(head -1 "$tmp/b")" = "Name Calls" ]; check view-between-options $? "$(head -1 "$tmp/b")"

"$T" kernal "$S" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/out" ] &&
    [ "$(head -1 "$tmp/err")" = "tprof: 'kernal' is not a view or a file; did you mean 'kernels'?" ]
check typo-view $? "exit $rc, stdout $(wc -c <"$tmp/out") bytes, $(head -1 "$tmp/err")"
"$T" --csv stpes "$S" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/out" ] && grep -q "did you mean 'steps'" "$tmp/err"
check typo-view-after-option $? "exit $rc: $(head -1 "$tmp/err")"
"$T" kernels --csvv "$S" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/out" ] &&
    [ "$(head -1 "$tmp/err")" = "tprof: unknown option '--csvv'; did you mean '--csv'?" ]
check typo-option $? "exit $rc: $(head -1 "$tmp/err")"
"$T" kernels --zzzzzzzz "$S" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ "$(head -1 "$tmp/err")" = "tprof: unknown option '--zzzzzzzz'" ]
check unknown-option-no-suggestion $? "exit $rc: $(head -1 "$tmp/err")"

"$T" help kernels >"$tmp/a" 2>&1
"$T" kernels --help >"$tmp/b" 2>&1
cmp -s "$tmp/a" "$tmp/b" && grep -q "^columns (-c):" "$tmp/a"; check help-view $? "differs from kernels --help"
"$T" help kernal >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/out" ] && grep -q "did you mean 'kernels'" "$tmp/err"
check help-typo $? "exit $rc: $(head -1 "$tmp/err")"

"$T" kernels --csv <"$S" >"$tmp/b" 2>&1
"$T" kernels --csv "$S" >"$tmp/a" 2>&1
cmp -s "$tmp/a" "$tmp/b"; check stdin-when-no-input $? "differs from the file"
if command -v script >/dev/null 2>&1; then
    script -qec "$T kernels" /dev/null >"$tmp/tty" 2>&1 </dev/null
    grep -q "no input file" "$tmp/tty"; check tty-no-input $? "$(head -1 "$tmp/tty")"
else
    echo "skip cli.tty-no-input: no script(1)"
fi

cp "$S" "$tmp/kernels"
(cd "$tmp" && "$T" ./kernels --csv) >"$tmp/b" 2>/dev/null
"$T" --csv "$S" >"$tmp/a" 2>/dev/null
cmp -s "$tmp/a" "$tmp/b"; check file-named-like-a-view $? "./kernels is not read as a trace"

# --tsv and --header keys: typed columns a script can load.  The same cells
# as CSV; keys as the header; NULL cells empty; a tab inside a name escaped,
# so every line has as many fields as the header.
python3 - "$S" "$tmp/tab.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
for e in t["traceEvents"]:
    if e.get("cat") == "kernel" and e["name"].startswith("nvjet"):
        e["name"] = "nvjet\twith\ttabs"
json.dump(t, open(sys.argv[2], "w"))
PY
"$T" kernels --tsv --header keys "$tmp/tab.json" >"$tmp/tsv" 2>/dev/null
"$T" kernels --csv --header keys "$tmp/tab.json" >"$tmp/csv" 2>/dev/null
python3 - "$tmp/tsv" "$tmp/csv" <<'PY'
import csv, sys
tsv = [l.rstrip("\n").split("\t") for l in open(sys.argv[1])]
rows = list(csv.reader(open(sys.argv[2])))
ok = True
why = []
if tsv[0][:3] != ["name", "tc", "calls"]:
    ok = False; why.append("header %r" % tsv[0][:3])
if any(len(r) != len(tsv[0]) for r in tsv):
    ok = False; why.append("a line with %s fields" % sorted(set(len(r) for r in tsv)))
if not any("nvjet\\x09with\\x09tabs" == r[0] for r in tsv):
    ok = False; why.append("tab not escaped")
if [r[1:] for r in tsv] != [r[1:] for r in rows]:
    ok = False; why.append("cells differ from CSV")
std = tsv[0].index("std")
if not all(r[std] == "" for r in tsv[1:]):      # one call each: no std, NULL
    ok = False; why.append("NULL std not empty: %r" % [r[std] for r in tsv[1:]])
if not all(r[std] == "" for r in rows[1:]):
    ok = False; why.append("CSV NULL std not empty")
print("ok cli.tsv-header-keys" if ok else "FAIL cli.tsv-header-keys: " + "; ".join(why))
PY
"$T" kernels --header none --csv "$S" 2>/dev/null | head -1 | grep -q '^"sm90'
check header-none $? "first line is not a row"

# --name REGEX: the rows whose name, kernel or op matches; a bad pattern is
# refused before any input is read; per rank in a run, before --top.
"$T" kernels --csv --header keys --name 'gemm|nvjet' "$S" 2>/dev/null | tail -n +2 | cut -d, -f1 >"$tmp/names"
[ "$(wc -l <"$tmp/names")" = 2 ] && grep -q sm90_xmma "$tmp/names" && grep -q nvjet "$tmp/names"
check name-regex $? "$(tr '\n' ' ' <"$tmp/names")"
[ "$("$T" --name '^relu$' "$S" 2>/dev/null | tail -n +2 | cut -d' ' -f5)" = relu ]
check name-regex-op-column $? "prof rows are not matched on their op"
"$T" kernels --name '(' "$S" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/out" ] && grep -q "is not a regular expression" "$tmp/err"
check name-regex-bad $? "exit $rc: $(head -1 "$tmp/err")"
mkdir "$tmp/run"
for r in 0 1; do   # the sample says rank 0: each copy gets its own
    python3 -c 'import json, sys; t = json.load(open(sys.argv[1])); t["distributedInfo"]["rank"] = int(sys.argv[3]); json.dump(t, open(sys.argv[2], "w"))' \
        "$S" "$tmp/run/rank$r.pt.trace.json" $r
done
n=$("$T" kernels --space --name nvjet --top 1 "$tmp/run" 2>/dev/null | grep -c nvjet)
[ "$n" = 2 ]; check name-regex-run-before-top $? "$n nvjet rows, want one per rank"

# --timeunit: time columns exact in the unit, header and key say it; the
# plugin's ResNet-50 steps in ms equal the us numbers / 1000 to the digit.
"$T" kernels --csv --header keys --timeunit ns -c name,total "$S" 2>/dev/null >"$tmp/ns"
"$T" kernels --csv --header keys --timeunit ms -c name,total "$S" 2>/dev/null >"$tmp/ms"
"$T" kernels --jsonl --timeunit s -c name,total,mean "$S" 2>/dev/null >"$tmp/s"
python3 - "$tmp/ns" "$tmp/ms" "$tmp/s" <<'PY'
import csv, json, sys
from decimal import Decimal
ns = list(csv.reader(open(sys.argv[1]))); ms = list(csv.reader(open(sys.argv[2])))
js = [json.loads(l) for l in open(sys.argv[3])]
why = []
if ns[0] != ["name", "total_ns"] or ms[0] != ["name", "total_ms"]:
    why.append("keys %r %r" % (ns[0], ms[0]))
for a, b in zip(ns[1:], ms[1:]):
    if Decimal(a[1]) / Decimal(10**6) != Decimal(b[1]):
        why.append("%s ns vs %s ms" % (a[1], b[1]))
for a, j in zip(ns[1:], js):
    if set(j) != {"name", "total_s", "mean_s"} or Decimal(str(j["total_s"])) != Decimal(a[1]) / Decimal(10**9):
        why.append("json %r" % j)
print("ok cli.timeunit" if not why else "FAIL cli.timeunit: " + "; ".join(why[:3]))
PY
"$T" kernels --timeunit hours "$S" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/out" ]; check timeunit-bad $? "exit $rc"

# --sort with several keys and signs: text ascending and numbers descending
# by default, -KEY descending, +KEY ascending, the next key breaking ties.
"$T" kernels --csv --header keys -c name,tc,total --sort tc,-total "$S" 2>/dev/null >"$tmp/s1"
"$T" kernels --csv --header keys -c name,tc,total --sort +total "$S" 2>/dev/null >"$tmp/s2"
"$T" kernels --csv --header keys -c name,tc,total --sort total "$S" 2>/dev/null >"$tmp/s3"
python3 - "$tmp/s1" "$tmp/s2" "$tmp/s3" <<'PY'
import csv, sys
r1, r2, r3 = (list(csv.DictReader(open(p))) for p in sys.argv[1:4])
k1 = [(r["tc"], -float(r["total"])) for r in r1]
why = []
if k1 != sorted(k1):
    why.append("tc,-total gives %r" % k1)
t2 = [float(r["total"]) for r in r2]
if t2 != sorted(t2) or len(t2) < 2:
    why.append("+total gives %r" % t2)
t3 = [float(r["total"]) for r in r3]
if t3 != sorted(t3, reverse=True):
    why.append("total gives %r" % t3)
print("ok cli.sort-keys" if not why else "FAIL cli.sort-keys: " + "; ".join(why))
PY
"$T" kernels --sort total, "$S" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "ends with a comma" "$tmp/err"; check sort-bad-list $? "exit $rc: $(head -1 "$tmp/err")"

# --version names the libraries in use too (a bug report needs them).
v=$("$T" --version)
echo "$v" | grep -Eq '^tprof [0-9.]+ \(zstd [0-9.]+, zlib [0-9.]+, SQLite [0-9.]+, libcsv [0-9.]+, gzip by (ISA-L|zlib) [0-9.]+\)$'
check version-libraries $? "$v"

# --help names every subcommand the first word may be.
h=$("$T" --help)
miss=""
for w in diff import report help check critical-path api; do
    echo "$h" | grep -q "^  $w " || miss="$miss $w"
done
[ -z "$miss" ]; check help-lists-subcommands $? "missing:$miss"

# ---- per-view options (issue: the house, item 3; the CLI, item 1) ----
# A view declares its options (tp_view_options): `tprof help VIEW` lists
# them, `tprof --help` names each with the views that honour it, an option
# the view does not declare is an error (it used to be ignored in silence),
# and a view option may come before the view.
"$T" kernels --comm "$S" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/out" ] &&
    [ "$(head -1 "$tmp/err")" = "tprof: --comm: not an option of the kernels view (its options: --step, --window, --group, --short, --plot)" ]
check view-option-undeclared $? "exit $rc: $(head -1 "$tmp/err")"
"$T" --hta-quirks "$S" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/out" ] && grep -q "not an option of the prof view (its options: --step, --window)" "$tmp/err"
check view-option-default-view $? "exit $rc: $(head -1 "$tmp/err")"
"$T" queue --max-queue 0 "$S" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/out" ] && [ "$(head -1 "$tmp/err")" = "tprof: --max-queue: '0' is not a positive number" ]
check view-option-bad-value $? "exit $rc: $(head -1 "$tmp/err")"
"$T" kernels --group props --csv "$S" >"$tmp/a" 2>&1
"$T" --group props --csv kernels "$S" >"$tmp/b" 2>&1
cmp -s "$tmp/a" "$tmp/b" && grep -q '^"Name","Operator"' "$tmp/a"; check view-option-before-view $? "$(head -1 "$tmp/b")"
"$T" help critical-path >"$tmp/h" 2>&1
grep -q '^options' "$tmp/h" && grep -q '^  --step N  *the window' "$tmp/h" && grep -q '^  --path  ' "$tmp/h" &&
    grep -q '^  --hta-quirks ' "$tmp/h" && ! grep -q -- '--all-steps' "$tmp/h"
check help-view-options $? "$(grep -- '--' "$tmp/h" | head -3)"
"$T" help prof >"$tmp/h" 2>&1
grep -q '^  --step N|A-B ' "$tmp/h" && ! grep -q -- '--group' "$tmp/h" && grep -q '^columns (-c):' "$tmp/h"
check help-view-filters-only $? "$(head -5 "$tmp/h")"
"$T" --help >"$tmp/h" 2>&1
grep -q '^      --max-queue N  *queue$' "$tmp/h" && grep -q '^      --group G  *kernels, ops, memory, kernel-types$' "$tmp/h"
check help-lists-view-options $? "$(grep -- '--group\|--max-queue' "$tmp/h")"
"$T" help diff >"$tmp/a" 2>&1; rc=$?
"$T" diff --help >"$tmp/b" 2>&1
[ $rc = 0 ] && cmp -s "$tmp/a" "$tmp/b" && grep -q '^usage: tprof diff' "$tmp/a"; check help-subcommand $? "exit $rc: $(head -1 "$tmp/a")"

# torch's key_averages sort keys are aliases of the columns that mean the same
for pair in self_cuda_time_total:dev_self cpu_time_total:host_total count:calls self_cpu_time_total:host_self; do
    "$T" ops --csv --sort "${pair%%:*}" "$S" >"$tmp/a" 2>/dev/null
    "$T" ops --csv --sort "${pair##*:}" "$S" >"$tmp/b" 2>/dev/null
    [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"
    check "sort-alias-${pair%%:*}" $? "--sort ${pair%%:*} differs from --sort ${pair##*:}"
done
