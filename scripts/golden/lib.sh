# scripts/golden/lib.sh — what golden scripts share (sourced, not run).
#
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
