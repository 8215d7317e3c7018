#!/bin/sh
# `tprof report` (issue #13, item 2: report at most 1.5x the default view):
# it builds the views on several threads, the heaviest first, each into a
# table written 64 KB at a time with printf-free numbers.  None of that may
# change a byte: every file it writes equals the view run on its own, on
# traces with and without ProfilerStep (one with no step once got another
# breakdown in report than in `steps`: a field read uninitialised), with 1,
# 2 and 4 threads, as text and as CSV.  Under valgrind (when installed) the
# report and that steps view read nothing uninitialised and leak nothing.
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$top/cli/tprof
REF=$top/../shared/reference
U=$REF/kineto/data/extracted_unit_tests
. "$(dirname "$0")/lib.sh"
golden_need report "$U" "$T"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

NOSTEP=$U/test_top_level_runtime__json_content__L347.pt.trace.json
set -- "$top/testdata/sample.pt.trace.json" "$NOSTEP" \
    "$U/test_no_profilerstep__json_content__L454.pt.trace.json" \
    "$U/test_remove_dup_nodes__json_content__L303.pt.trace.json" \
    "$REF/kineto/data/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz"
for in in "$@"; do
    name=$(basename "$in" | cut -c1-40)
    if [ ! -f "$in" ]; then
        echo "skip report.same_bytes $name: missing"
        continue
    fi
    for fmt in space csv; do
        # each view alone, once
        rm -rf "$tmp/alone"
        for th in 1 2 4; do
            rm -rf "$tmp/rep"
            if ! TPROF_THREADS=$th "$T" report --$fmt "$in" -o "$tmp/rep" >/dev/null 2>"$tmp/rep.err"; then
                echo "FAIL report.same_bytes $name $fmt threads=$th: $(head -1 "$tmp/rep.err")"
                continue
            fi
            if golden_report_same "$T" "$in" "$tmp/rep" $fmt 3 "$tmp/alone"; then
                echo "ok report.same_bytes $name $fmt threads=$th ($n views)"
            else
                echo "FAIL report.same_bytes $name $fmt threads=$th: $n files, summary names $want; differ:$bad"
            fi
        done
    done
done

# Traces whose python frames report leaves out (TP_LEAN_PYGRAPH): every file
# is still the view's alone.  OWLv2: no host event with a stream, served at
# once; the B200 eager trace: a Triton launch (a cpu_op with a stream) off
# the critical path, served once the path is computed; xdit SD 3.5: the path
# runs through Triton launches, so critical-path comes from a second load
# that keeps the frames.
TL=$REF/peers/other_data/AMD-AGI-TraceLens/tests/traces
for in in "$TL/mi300/google_owlv2-large-patch14-ensemble__1016001.json.gz" "$TL/b200/eager_trace.json.gz" \
          "$TL/inference/xdit_sd_3.5/profile_trace_rank_0.json.gz"; do
    name=$(basename "$(dirname "$in")")/$(basename "$in" | cut -c1-30)
    if [ ! -f "$in" ]; then
        echo "skip report.pygraph_same $name: missing"
        continue
    fi
    rm -rf "$tmp/rep" "$tmp/alone"
    if ! "$T" report --csv "$in" -o "$tmp/rep" >/dev/null 2>"$tmp/rep.err"; then
        echo "FAIL report.pygraph_same $name: $(head -1 "$tmp/rep.err")"
    elif golden_report_same "$T" "$in" "$tmp/rep" csv 3 "$tmp/alone" && [ -f "$tmp/rep/critical-path.csv" ]; then
        echo "ok report.pygraph_same $name ($n views)"
    else
        echo "FAIL report.pygraph_same $name: $n files, summary names $want; differ:$bad"
    fi
done

# The summary keeps registry order whatever order the threads took the views in.
rm -rf "$tmp/rep"
TPROF_THREADS=3 "$T" report "$top/testdata/sample.pt.trace.json" -o "$tmp/rep" >/dev/null 2>&1
got=$(sed -n 's/^\([a-z-]*\)  *\(not written\|[0-9][0-9]* rows\? in\).*/\1/p' "$tmp/rep/summary.txt" | tr '\n' ' ')
# the views of `tprof help`, in its (registry) order, that the summary names
want=$("$T" help 2>&1 | sed -n '/^views:/,/^$/p' | awk 'NR > 1 && NF {print $1}' |
    while read -r v; do case " $got" in *" $v "*) printf '%s ' "$v" ;; esac; done)
if [ -n "$got" ] && [ "$(echo "$got" | wc -w)" -gt 20 ] && [ "$got" = "$want" ]; then
    echo "ok report.summary_order"
elif [ -z "$want" ]; then
    echo "skip report.summary_order: tprof help lists no views"
else
    echo "FAIL report.summary_order: summary [$got], registry [$want]"
fi

# (a sanitizer build, make check-asan, cannot run under valgrind: ASan
# checks the same reads there)
if nm "$T" 2>/dev/null | grep -q '__asan_init'; then
    echo "skip report.valgrind: sanitizer build (ASan checks these runs instead)"
elif command -v valgrind >/dev/null 2>&1; then
    rm -rf "$tmp/rep"
    if valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
        "$T" report "$top/testdata/sample.pt.trace.json" -o "$tmp/rep" >/dev/null 2>"$tmp/vg.err"; then
        echo "ok report.valgrind (report of the sample: no invalid read, no uninitialised value, no leak)"
    else
        echo "FAIL report.valgrind: $(grep -m1 '==[0-9]*== [A-Z]' "$tmp/vg.err")"
    fi
    if valgrind -q --error-exitcode=99 "$T" steps "$NOSTEP" >/dev/null 2>"$tmp/vg.err"; then
        echo "ok report.valgrind_steps_without_profilerstep"
    else
        echo "FAIL report.valgrind_steps_without_profilerstep: $(grep -m1 '==[0-9]*== [A-Z]' "$tmp/vg.err")"
    fi
else
    echo "skip report.valgrind: valgrind not installed"
fi
