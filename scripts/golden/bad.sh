#!/bin/sh
# Bad-input corpus: tprof on every file (or Ascend folder) of testdata/bad/ must
# exit with the code and print the first stderr line that testdata/bad/EXPECTED
# gives (no crash, no hang, no silent success).  Each input is copied into a
# temporary folder first and run from there by its bare name, so SQLite inputs
# are never opened in place and messages do not depend on where the tree is.
# Entries after the "[known]" line record today's behaviour of a known defect
# (column 4 names it, see ../shared/reliability/README.md): a difference there
# is reported as skip, not FAIL, until the fix merges and the line moves up.
# Column 1 is the input's name, or a view and options before it
# ("kernels ascend-csv-duration-overflow"): `tprof [VIEW OPTIONS] NAME`.
#   BAD_RECORD=1 sh scripts/golden/bad.sh   prints the current results (default
#   view) as manifest lines instead of checking them.
top=$(cd "$(dirname "$0")/../.." && pwd)
bad="$top/testdata/bad"
tprof="${TPROF:-$top/cli/tprof}"
. "$(dirname "$0")/lib.sh"
golden_need bad_inputs "" "$tprof"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
tab=$(printf '\t')

run_one() {   # [VIEW OPTIONS] name -> sets got_exit, got_line
    eval "name=\${$#}"
    rm -rf "$tmp/in"; mkdir "$tmp/in"
    cp -R "$bad/$name" "$tmp/in/$name"
    (cd "$tmp/in" && timeout 60 "$tprof" "$@" >/dev/null 2>"$tmp/err")
    got_exit=$?
    got_line=$(head -n 1 "$tmp/err")
}

if [ -n "$BAD_RECORD" ]; then
    for f in $(ls "$bad" | grep -v -e '^EXPECTED$' -e '^make-bad.py$'); do
        run_one "$f"
        printf '%s\t%s\t%s\n' "$f" "$got_exit" "$got_line"
    done
    exit 0
fi

section=main
n=0
# The messages about corrupt gzip data are ISA-L's (where the decoder finds
# the fault, in its words); a build that decodes gzip with zlib words and
# places some of them differently.
gzip_backend=zlib
"$tprof" --version | grep -q "gzip by ISA-L" && gzip_backend=isal
# Fields split at \037, not at tabs: sh merges runs of tabs, and the stderr
# field may be empty.
us=$(printf '\037')
tr '\t' '\037' <"$bad/EXPECTED" >"$tmp/expected"
while IFS="$us" read -r file want_exit want_line defect; do
    case $file in
    '#'*|'') continue ;;
    '[known]') section=known; continue ;;
    esac
    n=$((n + 1))
    label=$(printf '%s' "$file" | tr ' ' ':')
    # shellcheck disable=SC2086
    set -- $file
    eval "name=\${$#}"
    if [ ! -e "$bad/$name" ]; then
        echo "FAIL bad/$label: listed in EXPECTED but absent"
        continue
    fi
    run_one "$@"
    if [ "$got_exit" = "$want_exit" ] && [ "$got_line" = "$want_line" ]; then
        echo "ok bad/$label"
    elif [ $gzip_backend = zlib ] && [ "$got_exit" = "$want_exit" ] &&
         case $want_line in *"corrupt gzip data"*) true ;; *) false ;; esac; then
        echo "skip bad/$label: this build decodes gzip with zlib, the line is ISA-L's: $got_line"
    elif [ $section = known ]; then
        echo "skip bad/$label: known defect $defect: now exit $got_exit: $got_line"
    else
        echo "FAIL bad/$label: exit $got_exit (want $want_exit): '$got_line' (want '$want_line')"
    fi
done <"$tmp/expected"
# Every input must have its line.
for f in $(ls "$bad" | grep -v -e '^EXPECTED$' -e '^make-bad.py$'); do
    grep -q -e "^$f$tab" -e "^[^$tab]* $f$tab" "$bad/EXPECTED" || echo "FAIL bad/$f: no line in testdata/bad/EXPECTED"
done
