#!/bin/sh
# Golden tests of the prof view's scoped load of nvprof/nsys dumps (it keeps
# only the runtime calls that launch a kernel and the NVTX ranges around
# them): on dumps edited to stress what it leaves out, `tprof prof` prints
# the same stdout, stderr (the path aside) and exit status as from the
# dump's .tprof store, which `tprof import` keeps whole:
#   - NVTX marker ids shared by many ranges, starts and ends deleted (ranges
#     never closed, ends without a start), ids dense and far apart;
#   - a malformed runtime call (start is text) that launches no kernel, and
#     one that does;
#   - the synthetic Nsight Systems export, and the same with a malformed
#     call that launches nothing.
# The dumps are copies in a temporary folder.  Prints "ok NAME" /
# "FAIL NAME: why" / "skip NAME: why".
top=$(cd "$(dirname "$0")/../.." && pwd)
REF=${REF:-$top/../shared/reference}
T=$top/cli/tprof
NV=$REF/pyprof/data/josiahdavis_profiling-lm/17ed9e2/net.sql
NS=$REF/pyprof/data/synthetic_nsys_from_17ed9e2/synthetic_nsys_from_nvprof_17ed9e2.sqlite
cols=idx,seq,altseq,tid,layer,trace,dir,sub,mod,op,kernel,params,sil,tc,device,stream,grid,block,flops,bytes,name,opname
if [ ! -f "$NV" ] || [ ! -f "$NS" ]; then
    echo "skip sqlite_scope: reference dumps not found"
    exit 0
fi
if ! command -v sqlite3 >/dev/null 2>&1; then
    echo "skip sqlite_scope: needs the sqlite3 program"
    exit 0
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# case NAME SOURCE SQL: the edited copy, prof from it and from its store
case_() {
    name=$1 src=$2 sql=$3
    db=$tmp/$name.db
    cp "$src" "$db" && chmod u+w "$db"
    if [ -n "$sql" ] && ! sqlite3 "$db" "$sql"; then
        echo "FAIL sqlite_scope.$name: the edit failed"
        return
    fi
    "$T" prof -c "$cols" "$db" >"$tmp/a.out" 2>"$tmp/a.err"
    echo $? >"$tmp/a.rc"
    "$T" import "$db" -o "$tmp/$name.tprof" >/dev/null 2>&1
    if [ ! -f "$tmp/$name.tprof" ]; then
        echo "FAIL sqlite_scope.$name: import wrote no store"
        return
    fi
    "$T" prof -c "$cols" "$tmp/$name.tprof" >"$tmp/b.out" 2>"$tmp/b.err"
    echo $? >"$tmp/b.rc"
    sed -i "s|$db|INPUT|g" "$tmp/a.err"
    sed -i "s|$tmp/$name.tprof|INPUT|g; s|$db|INPUT|g" "$tmp/b.err"
    if ! cmp -s "$tmp/a.out" "$tmp/b.out"; then
        echo "FAIL sqlite_scope.$name: stdout differs from the whole load's ($(wc -l <"$tmp/a.out") and $(wc -l <"$tmp/b.out") lines)"
    elif ! cmp -s "$tmp/a.err" "$tmp/b.err"; then
        echo "FAIL sqlite_scope.$name: stderr differs: $(head -1 "$tmp/a.err") / $(head -1 "$tmp/b.err")"
    elif ! cmp -s "$tmp/a.rc" "$tmp/b.rc"; then
        echo "FAIL sqlite_scope.$name: exit $(cat "$tmp/a.rc"), the whole load's $(cat "$tmp/b.rc")"
    elif [ "$(wc -l <"$tmp/a.out")" -lt 2 ]; then
        echo "FAIL sqlite_scope.$name: no kernel rows"
    else
        echo "ok sqlite_scope.$name"
    fi
}

M=CUPTI_ACTIVITY_KIND_MARKER
R=CUPTI_ACTIVITY_KIND_RUNTIME
unpaired="DELETE FROM $M WHERE (flags = 4 AND _id_ % 7 = 0) OR (flags = 2 AND _id_ % 11 = 0);
UPDATE $M SET id = id % 37;"
case_ nvprof_intact "$NV" ""
case_ nvprof_shared_ids "$NV" "$unpaired"
case_ nvprof_sparse_ids "$NV" "$unpaired UPDATE $M SET id = id * 1000000007;"
case_ nvprof_bad_call "$NV" "INSERT INTO $R (cbid, start, end, processId, threadId, correlationId, returnValue)
  SELECT cbid, 'soon', end, processId, threadId, 999999999, returnValue FROM $R LIMIT 1;
UPDATE $R SET start = 'later' WHERE _id_ = (SELECT min(r._id_) FROM $R r JOIN CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL k
  ON k.correlationId = r.correlationId);"
case_ nsys_intact "$NS" ""
case_ nsys_bad_call "$NS" "INSERT INTO $R SELECT * FROM $R LIMIT 1;
UPDATE $R SET start = 'soon', correlationId = 999999999 WHERE rowid = (SELECT max(rowid) FROM $R);"
