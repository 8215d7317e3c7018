#!/bin/sh
# Golden tests for the PyProf parity (prof view, nvprof/nsys/dict importers):
# tprof against apex prof.py's own outputs in ../shared/reference/pyprof.
# One line per case: "ok NAME", "FAIL NAME: why" or "skip NAME: why".
top=$(cd "$(dirname "$0")/../.." && pwd)
ref="$top/../shared/reference/pyprof/data"
fuser="$top/../shared/reference/peers/other_data/NVIDIA-Fuser"
tprof="$top/cli/tprof"
. "$(dirname "$0")/lib.sh"
golden_need pyprof_golden "$ref" "$tprof"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# tprof reads copies: a run on the SQLite dumps must never write into ../shared
cp -R "$ref" "$tmp/data" && chmod -R u+w "$tmp/data" && ref="$tmp/data"
mkdir "$tmp/fuser"
for d in "$fuser"/*/; do
    [ -f "$d/report1.sqlite" ] || continue
    mkdir "$tmp/fuser/$(basename "$d")" && cp "$d/report1.sqlite" "$tmp/fuser/$(basename "$d")/"
done
fuser="$tmp/fuser"
all=idx,seq,altseq,tid,layer,trace,dir,sub,mod,op,kernel,params,sil,tc,device,stream,grid,block,flops,bytes
lm="$ref/josiahdavis_profiling-lm"

mode_args() {
    case $1 in
    default) echo "" ;;
    csv) echo "--csv" ;;
    w150) echo "-w 150" ;;
    csvall) echo "--csv -c $all" ;;
    spaceall) echo "-c $all" ;;
    w300all) echo "-w 300 -c $all" ;;
    w100readme) echo "-w 100 -c kernel,op,sil,tc,flops,bytes,device,stream,block,grid" ;;
    esac
}

check() {   # name expected-file command...
    name=$1; want=$2; shift 2
    if "$@" >"$tmp/out" 2>"$tmp/err"; then
        if cmp -s "$tmp/out" "$want"; then
            echo "ok $name"
        else
            echo "FAIL $name: output differs from $(basename "$want") ($(diff "$tmp/out" "$want" | grep -c '^[<>]') lines)"
        fi
    else
        echo "FAIL $name: exit status $? ($(head -c 200 "$tmp/err"))"
    fi
}

for input in net.sql net.dict; do
    for mode in default csv w150 csvall spaceall w300all w100readme; do
        # shellcheck disable=SC2046
        check "pyprof_${input}_$mode" "$ref/golden/17ed9e2.ap.$mode.txt" \
            "$tprof" $(mode_args $mode) "$lm/17ed9e2/$input"
    done
    check "pyprof_${input}_lm_csv" "$lm/17ed9e2/lm.csv" \
        "$tprof" --csv -c kernel,mod,op,dir,sil,tc,flops,bytes,device,stream,block,grid "$lm/17ed9e2/$input"
    # the explicit view name gives the same table
    check "pyprof_${input}_prof_view" "$ref/golden/17ed9e2.ap.w150.txt" "$tprof" prof -w 150 "$lm/17ed9e2/$input"
done

# the empty profiles: the header only, exit status 0
for c in ce0c3ab 787506b; do
    for input in net.sql net.dict; do
        printf 'Idx Direction Sub Module Op Kernel Params Sil(ns)\n' >"$tmp/hdr"
        check "pyprof_empty_${c}_$input" "$tmp/hdr" "$tprof" "$lm/$c/$input"
    done
done

# one row per kernel: the synthetic nsys DB and real nsys exports
count_rows() {   # name file kernels-sql
    name=$1; db=$2
    want=$(sqlite3 "file:$db?mode=ro&immutable=1" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL" 2>/dev/null)
    if [ -z "$want" ]; then
        echo "skip $name: sqlite3 cannot read $db"
        return
    fi
    if "$tprof" --csv -c idx,kernel,sil "$db" >"$tmp/out" 2>"$tmp/err"; then
        got=$(($(wc -l <"$tmp/out") - 1))
        wsum=$(sqlite3 "file:$db?mode=ro&immutable=1" "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL")
        gsum=$(awk -F'","' 'NR > 1 { s += $3 } END { printf "%.0f", s }' "$tmp/out")
        if [ "$got" = "$want" ] && [ "$gsum" = "${wsum:-0}" ]; then
            echo "ok $name"
        else
            echo "FAIL $name: $got rows (want $want), sum of Sil $gsum (want $wsum)"
        fi
    else
        echo "FAIL $name: exit status $? ($(head -c 200 "$tmp/err"))"
    fi
}
if command -v sqlite3 >/dev/null 2>&1; then
    count_rows pyprof_nsys_synthetic_rows "$ref/synthetic_nsys_from_17ed9e2/synthetic_nsys_from_nvprof_17ed9e2.sqlite"
    for d in "$fuser"/*/; do
        [ -f "$d/report1.sqlite" ] || continue
        count_rows "pyprof_nsys_fuser_$(basename "$d")_rows" "$d/report1.sqlite"
    done
else
    echo "skip pyprof_nsys_rows: no sqlite3 program"
fi

# The synthetic nsys DB decodes like the nvprof DB: identical rows but the
# TId (globalTid % 2^24), in every column prof.py prints.
syn="$ref/synthetic_nsys_from_17ed9e2/synthetic_nsys_from_nvprof_17ed9e2.sqlite"
if "$tprof" --csv -c idx,seq,altseq,layer,trace,dir,sub,mod,op,kernel,params,sil,tc,device,stream,grid,block,flops,bytes \
        "$syn" >"$tmp/syn" 2>"$tmp/err" &&
   "$tprof" --csv -c idx,seq,altseq,layer,trace,dir,sub,mod,op,kernel,params,sil,tc,device,stream,grid,block,flops,bytes \
        "$lm/17ed9e2/net.sql" >"$tmp/nv" 2>>"$tmp/err"; then
    if cmp -s "$tmp/syn" "$tmp/nv"; then echo "ok pyprof_nsys_synthetic_same_as_nvprof"
    else echo "FAIL pyprof_nsys_synthetic_same_as_nvprof: $(diff "$tmp/syn" "$tmp/nv" | grep -c '^[<>]') lines differ"; fi
    if "$tprof" --csv -c tid "$syn" | sort -u | tr '\n' ' ' | grep -q '"14432064"'; then
        echo "ok pyprof_nsys_synthetic_tid"
    else
        echo "FAIL pyprof_nsys_synthetic_tid: globalTid % 2^24 (14432064) not in the TId column"
    fi
else
    echo "FAIL pyprof_nsys_synthetic_same_as_nvprof: $(head -c 200 "$tmp/err")"
fi

# bad inputs: one clear error naming the file, exit status 2, no crash
printf 'SQLite format 3\000garbage garbage garbage' >"$tmp/corrupt.sql"
head -c 4096 /dev/zero >>"$tmp/corrupt.sql"
if command -v sqlite3 >/dev/null 2>&1; then
    sqlite3 "$tmp/other.sqlite" "CREATE TABLE t(x); INSERT INTO t VALUES (1);"
    sqlite3 "$tmp/nokernel.sql" "CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY, value TEXT);"
fi
for f in corrupt.sql other.sqlite nokernel.sql; do
    [ -f "$tmp/$f" ] || continue
    "$tprof" "$tmp/$f" >"$tmp/out" 2>"$tmp/err"
    st=$?
    if [ $st -eq 2 ] && grep -q "$f" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -le 2 ]; then
        echo "ok pyprof_bad_$f"
    else
        echo "FAIL pyprof_bad_$f: exit status $st, stderr: $(head -c 200 "$tmp/err")"
    fi
done
exit 0
