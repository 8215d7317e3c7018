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
#   - a file named like a view is read as ./NAME.
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
