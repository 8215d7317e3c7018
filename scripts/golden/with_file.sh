#!/bin/sh
# --with-file (issue: a CLI people already know how to use, item 1): the
# rows of several inputs as ONE table (one header) under a file column, in
# every format, so they concatenate into one CSV that pandas loads.  Each
# file's rows must be that file's own table (same cells, same order: --sort
# and --top apply per file); -c places the file column where it names it;
# a run directory's ranks carry their trace path and rank; the prof view
# keeps prof.py's cells, and prof.py's bytes without the flag.
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$top/cli/tprof
REF=$top/../shared/reference
D=$REF/kineto/data/tb_plugin/samples/resnet50_num_workers_0
A=$D/worker0.1623143566756.pt.trace.json.gz
B=$D/worker0.1623143089861.pt.trace.json.gz
RUN=$REF/peers/other_data/facebookresearch-param/et_replay/tests/inputs/dlrm_kineto
PP=$REF/pyprof/data
. "$(dirname "$0")/lib.sh"
golden_need with_file "$D" "$T" python3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
check() {   # NAME CONDITION-RESULT WHY
    if [ "$2" = 0 ]; then echo "ok with_file.$1"; else echo "FAIL with_file.$1: $3"; fi
}

# every format, and the tables of each file alone
"$T" kernels --csv "$A" >"$tmp/a.csv" 2>/dev/null
"$T" kernels --csv "$B" >"$tmp/b.csv" 2>/dev/null
"$T" kernels --csv --with-file "$A" "$B" >"$tmp/ab.csv" 2>/dev/null
"$T" kernels --tsv --with-file "$A" "$B" >"$tmp/ab.tsv" 2>/dev/null
"$T" kernels --jsonl --with-file "$A" "$B" >"$tmp/ab.jsonl" 2>/dev/null
"$T" kernels --markdown --with-file "$A" "$B" >"$tmp/ab.md" 2>/dev/null
"$T" kernels --space --with-file "$A" "$B" >"$tmp/ab.space" 2>/dev/null
"$T" kernels -w 300 --with-file "$A" "$B" >"$tmp/ab.w" 2>/dev/null
"$T" kernels --csv --with-file -c name,file,calls "$A" "$B" >"$tmp/cfile.csv" 2>/dev/null
"$T" kernels --csv --sort calls,name --top 3 "$A" >"$tmp/a3.csv" 2>/dev/null
"$T" kernels --csv --sort calls,name --top 3 "$B" >"$tmp/b3.csv" 2>/dev/null
"$T" kernels --csv --sort calls,name --top 3 --with-file "$A" "$B" >"$tmp/ab3.csv" 2>/dev/null
"$T" kernels --csv --with-file "$A" >"$tmp/one.csv" 2>/dev/null
"$T" ops --csv --with-file "$A" "$B" >"$tmp/ops.csv" 2>"$tmp/ops.err"
if [ -d "$RUN" ]; then
    "$T" kernels --csv --with-file "$A" "$RUN" >"$tmp/run.csv" 2>/dev/null
    "$T" kernels --csv "$RUN" >"$tmp/runonly.csv" 2>/dev/null
    "$T" kernels --csv --merge --with-file "$RUN" "$A" >"$tmp/merge.csv" 2>/dev/null
    "$T" kernels --csv --merge "$RUN" >"$tmp/mergeonly.csv" 2>/dev/null
fi
if [ -f "$PP/josiahdavis_profiling-lm/17ed9e2/net.dict" ]; then
    cp "$PP/josiahdavis_profiling-lm/17ed9e2/net.dict" "$tmp/a.dict"
    cp "$PP/josiahdavis_profiling-lm/17ed9e2/net.dict" "$tmp/b.dict"
    (cd "$tmp" && "$T" --csv --with-file a.dict b.dict >prof.csv 2>/dev/null)
    (cd "$tmp" && "$T" -w 150 --with-file a.dict b.dict >prof.w 2>/dev/null)
    "$T" -w 150 "$tmp/a.dict" >"$tmp/prof_plain.w" 2>/dev/null
fi
python3 - "$tmp" "$A" "$B" "$RUN" "$PP/golden/17ed9e2.ap.csv.txt" "$PP/golden/17ed9e2.ap.w150.txt" <<'PY'
import csv, io, json, os, re, sys
d, A, B, RUN, PCSV, PW = sys.argv[1:7]
def case(name, ok, why):
    print(("ok with_file.%s" % name) if ok else ("FAIL with_file.%s: %s" % (name, why)))
def rows(path, delim=","):
    return list(csv.reader(open(os.path.join(d, path), newline=""), delimiter=delim))

a, b, ab = rows("a.csv"), rows("b.csv"), rows("ab.csv")
want = [["File"] + a[0]] + [[A] + r for r in a[1:]] + [[B] + r for r in b[1:]]
case("csv", ab == want and len(a) > 10 and len(b) > 10,
     "%d lines, want %d (the two tables under one header, a File column first)" % (len(ab), len(want)))
n = len(want) - 1

tsv = rows("ab.tsv", "\t")
case("tsv", len(tsv) == n + 1 and tsv[0][0] == "File" and [r[0] for r in tsv[1:]] == [r[0] for r in want[1:]]
     and sum(r[0] == "File" for r in tsv) == 1, "%d lines, header %s" % (len(tsv), tsv[0][:2]))

js = [json.loads(l) for l in open(os.path.join(d, "ab.jsonl"))]
case("jsonl", len(js) == n and all(list(o)[0] == "file" for o in js) and [o["file"] for o in js] == [r[0] for r in want[1:]]
     and [o["name"] for o in js] == [r[1] for r in want[1:]], "%d objects, want %d, first keys %s" % (len(js), n, list(js[0])[:2] if js else None))

md = open(os.path.join(d, "ab.md")).read().splitlines()
case("markdown", len(md) == n + 2 and md[0].startswith("| File | Name |") and sum(l.startswith("| File") for l in md) == 1
     and md[1].startswith("|:---|"), "%d lines, want %d; header %s" % (len(md), n + 2, md[0][:40] if md else None))

sp = open(os.path.join(d, "ab.space")).read().splitlines()
case("space", len(sp) == n + 1 and sp[0].startswith("File Name ") and all(l.startswith(A + " ") for l in sp[1:len(a)])
     and all(l.startswith(B + " ") for l in sp[len(a):]), "%d lines, want %d" % (len(sp), n + 1))

w = [l for l in open(os.path.join(d, "ab.w")).read().splitlines() if l]
case("columns", len(w) == n + 1 and w[0].startswith("File ") and len({len(l) for l in w}) == 1
     and sum(l.startswith("File ") for l in w) == 1, "%d lines of %d widths, want %d" % (len(w), len({len(l) for l in w}), n + 1))

cf = rows("cfile.csv")
case("c_names_file", cf[0] == ["Name", "File", "Calls"] and [r[1] for r in cf[1:]] == [r[0] for r in want[1:]],
     "header %s (the file column where -c puts it, not added again)" % cf[0])

a3, b3, ab3 = rows("a3.csv"), rows("b3.csv"), rows("ab3.csv")
case("top_per_file", ab3 == [["File"] + a3[0]] + [[A] + r for r in a3[1:]] + [[B] + r for r in b3[1:]] and len(ab3) == 7,
     "%d lines: --sort/--top must apply to each file's rows" % len(ab3))

one = rows("one.csv")
case("single_input", one == [["File"] + a[0]] + [[A] + r for r in a[1:]], "%d lines" % len(one))

ops = rows("ops.csv")
err = open(os.path.join(d, "ops.err")).read()
case("ops_footers", ops[0][:2] == ["File", "Name"] and sum(r[0] == "File" for r in ops) == 1
     and ("%s: Self CPU time total:" % A) in err and ("%s: Self CPU time total:" % B) in err,
     "header %s; stderr names each file's key_averages totals: %s" % (ops[0][:2], err[:200]))

if os.path.isdir(RUN):
    run, only = rows("run.csv"), rows("runonly.csv")
    hdr = run[0]
    files = sorted({r[0] for r in run[1:] if r[0] != A})
    ranks_ok = all(r[1] == "-" for r in run[1:] if r[0] == A)
    # the run's rows: as `tprof kernels --csv RUN` prints them, under their trace file
    mine = [r[1:] for r in run[1:] if r[0] != A]
    case("run", hdr[:3] == ["File", "Rank", "Name"] and ranks_ok and len(files) == 8
         and all(f.startswith(RUN + "/") for f in files) and mine == only[1:] and only[0][0] == "Rank",
         "header %s, %d rank files, rows equal: %s" % (hdr[:3], len(files), mine == only[1:]))
    m, mo = rows("merge.csv"), rows("mergeonly.csv")
    # --merge: the run's one table under the directory as given, no rank
    case("merge", m[0] == ["File"] + mo[0] and [r[1:] for r in m[1:] if r[0] == RUN] == mo[1:]
         and [r[1:] for r in m[1:] if r[0] == A] == a[1:] and len(m) == len(mo) + len(a) - 1,
         "header %s; %d lines, want %d" % (m[0][:3], len(m), len(mo) + len(a) - 1))
else:
    print("skip with_file.run: %s not found" % RUN)

if os.path.exists(os.path.join(d, "prof.csv")):
    p = rows("prof.csv")
    g = list(csv.reader(open(PCSV, newline="")))
    case("prof_csv", p == [["File"] + g[0]] + [["a.dict"] + r for r in g[1:]] + [["b.dict"] + r for r in g[1:]],
         "%d lines, want %d: prof.py's cells under each file" % (len(p), 2 * len(g) - 1))
    pw = open(os.path.join(d, "prof.w")).read().splitlines()
    case("prof_columns", pw[0].startswith("File   ") and len(pw) == 2 * (len(g) - 1) + 1 and pw[1].startswith("a.dict ")
         and pw[-1].startswith("b.dict "), "%d lines" % len(pw))
    case("prof_unchanged", open(os.path.join(d, "prof_plain.w")).read() == open(PW).read(),
         "prof -w 150 without --with-file is no longer prof.py's bytes")
else:
    print("skip with_file.prof: pyprof reference not found")
PY

# -c file without --with-file: a usage error that says where the column is
"$T" kernels --csv -c file,name "$A" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/out" ] && grep -q 'with --with-file' "$tmp/err"
check c_file_without_flag $? "exit $rc; $(head -c 200 "$tmp/err")"
# a key of no view is still refused with --with-file, before any input is read
"$T" kernels --csv --with-file -c file,nope "$A" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && [ ! -s "$tmp/out" ] && grep -q 'nope is not a valid column' "$tmp/err"
check c_bad_key $? "exit $rc; $(head -c 200 "$tmp/err")"
