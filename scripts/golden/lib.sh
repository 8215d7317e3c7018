# scripts/golden/lib.sh — what golden scripts share (sourced, not run).
#
# Where the scripts find things, unless the script (or the caller, for REF
# and TPROF) said it first: top, the repository; REF, the reference data
# (../shared/reference beside the repository); TPROF, the binary.
top=${top:-$(cd "$(dirname "$0")/../.." && pwd)}
REF=${REF:-$top/../shared/reference}
TPROF=${TPROF:-$top/cli/tprof}

# golden_need NAME DIR TPROF [python3]: the prerequisites of a golden script.
# A missing reference folder DIR (empty: none needed) or python3 (when asked
# for) prints "skip NAME: ..." and ends the script with 0: golden tests skip,
# never fail, where ../shared or a tool is absent.  An unbuilt tprof binary
# is a skip too (make check builds it first).
golden_need() {
    if [ -n "$2" ] && [ ! -d "$2" ]; then
        echo "skip $1: $2 not found"
        exit 0
    fi
    if [ ! -x "$3" ]; then
        echo "skip $1: $3 not built"
        exit 0
    fi
    if [ "$4" = python3 ] && ! command -v python3 >/dev/null 2>&1; then
        echo "skip $1: python3 not found"
        exit 0
    fi
}

# golden_python NAME DIR TPROF [ARG...] <<'PY' ... PY: golden_need NAME DIR
# TPROF python3, then the Python on stdin runs with ARGs as sys.argv[1:] and
# this folder on PYTHONPATH (`from golden import ...`, golden.py).
golden_python() {
    golden_need "$1" "$2" "$3" python3
    shift 3
    PYTHONPATH="$(cd "$(dirname "$0")" && pwd)${PYTHONPATH:+:$PYTHONPATH}" exec python3 - "$@"
}

# golden_ref_python NAME DIR [ARG...] <<'PY' ... PY: golden_python NAME DIR
# TPROF with TPROF and REF before the ARGs (golden.py's ref_args reads them).
golden_ref_python() {
    name=$1 dir=$2
    shift 2
    golden_python "$name" "$dir" "$TPROF" "$TPROF" "$REF" "$@"
}

# golden_need_files NAME DIR FILE...: "skip NAME: DIR is missing" and end the
# script with 0 unless every FILE (below DIR) is there.
golden_need_files() {
    name=$1 dir=$2
    shift 2
    for f in "$@"; do
        if [ ! -f "$f" ]; then
            echo "skip $name: $dir is missing"
            exit 0
        fi
    done
}

# golden_usage_rc2 NAME TPROF A B ARGS...: each ARGS (one string, split at
# spaces) given to `tprof diff ARGS A B` must exit 2 and print nothing.
golden_usage_rc2() {
    name=$1 tp=$2 a=$3 b=$4
    shift 4
    for args in "$@"; do
        # shellcheck disable=SC2086
        out=$("$tp" diff $args "$a" "$b" 2>/dev/null)
        rc=$?
        [ $rc -eq 2 ] && [ -z "$out" ] && echo "ok $name: $args" || echo "FAIL $name: $args: rc $rc"
    done
}

# golden_report_same TPROF IN DIR FMT MIN ALONE: every file `tprof report
# --FMT IN -o DIR` wrote (space: VIEW.txt, csv: VIEW.csv; not the summary)
# equals `tprof VIEW --FMT IN`, run once per view into folder ALONE (kept
# there for the next call on the same IN and FMT).  Sets n (the files), want
# (the views summary.txt names) and bad (the views that differ); true when
# none differs, n > MIN and every view the summary names was written.
golden_report_same() {
    tp=$1 in=$2 dir=$3 fmt=$4 min=$5 alone=$6
    ext=txt
    [ "$fmt" = csv ] && ext=csv
    mkdir -p "$alone"
    bad="" n=0
    for f in "$dir"/*.$ext; do
        v=$(basename "$f" .$ext)
        [ "$v" = summary ] && continue
        n=$((n + 1))
        [ -f "$alone/$v" ] || "$tp" "$v" --"$fmt" "$in" >"$alone/$v" 2>/dev/null
        cmp -s "$alone/$v" "$f" || bad="$bad $v"
    done
    want=$(grep -c ' rows\? in ' "$dir/summary.txt")
    [ -z "$bad" ] && [ "$n" -gt "$min" ] && [ "$n" = "$want" ]
}
