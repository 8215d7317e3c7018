#!/bin/sh
# Progress (issue: the CLI, item 5): while a load runs, stderr on a terminal
# gets one line redrawn in place ("tprof: <stdin>: 3 MB read, 1 MB/s, 1 s"),
# erased before anything else is written; nothing when stderr is not a
# terminal or with --quiet, and never anything on stdout.  The terminal is a
# pseudo-terminal from script(1); the input is a trace fed slowly on stdin,
# and TPROF_PROGRESS_DELAY_MS=0 shows the line at once (the default waits a
# second, so quick loads show nothing).
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$top/cli/tprof
S=$top/testdata/sample.pt.trace.json
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
if ! command -v script >/dev/null 2>&1; then
    echo "skip progress: no script(1) for a pseudo-terminal"
    exit 0
fi
check() {   # NAME CONDITION-RESULT WHY
    if [ "$2" = 0 ]; then echo "ok progress.$1"; else echo "FAIL progress.$1: $3"; fi
}
# the sample trace, in 16 pieces over about 1.2 s
cat >"$tmp/feed.py" <<PY
import sys, time
d = open("$S", "rb").read()
n = len(d) // 16 + 1
for i in range(0, len(d), n):
    sys.stdout.buffer.write(d[i:i + n]); sys.stdout.flush(); time.sleep(0.075)
PY

# 1. on a terminal: the line, then erased, then the table
TPROF_PROGRESS_DELAY_MS=0 script -qec "python3 '$tmp/feed.py' | '$T' kernels -c name,calls -" /dev/null \
    >"$tmp/tty" 2>&1 </dev/null
python3 - "$tmp/tty" <<'PY'
import sys
t = open(sys.argv[1], "rb").read().decode("utf-8", "replace")
drawn = "\rtprof: <stdin>: " in t and " read, " in t
erased = t.rfind("\r\x1b[K")
table = t.find("Name")
sys.exit(0 if drawn and erased >= 0 and table > erased else 1)
PY
check terminal-line-then-table $? "$(tr '\r\033' '|~' <"$tmp/tty" | head -c 400)"

# 2. stderr not a terminal: nothing but what tprof says anyway
python3 "$tmp/feed.py" | TPROF_PROGRESS_DELAY_MS=0 "$T" kernels -c name,calls - >"$tmp/out" 2>"$tmp/err"
! grep -q "<stdin>: .* read" "$tmp/err" && ! grep -q "$(printf '\r')" "$tmp/err" && grep -q "^Name Calls" "$tmp/out"
check not-a-terminal $? "$(head -c 300 "$tmp/err")"

# 3. --quiet on a terminal: no line
TPROF_PROGRESS_DELAY_MS=0 script -qec "python3 '$tmp/feed.py' | '$T' kernels --quiet -c name,calls -" /dev/null \
    >"$tmp/tty" 2>&1 </dev/null
! grep -q "<stdin>: .* read" "$tmp/tty" && grep -q "Name" "$tmp/tty"
check quiet $? "$(tr '\r\033' '|~' <"$tmp/tty" | head -c 300)"

# 4. stdout is never touched: the same bytes with and without a terminal on stderr
TPROF_PROGRESS_DELAY_MS=0 script -qec "python3 '$tmp/feed.py' | '$T' kernels -c name,calls - >'$tmp/out2'" /dev/null \
    >/dev/null 2>&1 </dev/null
cmp -s "$tmp/out" "$tmp/out2"
check stdout-unchanged $? "stdout differs with progress on"
