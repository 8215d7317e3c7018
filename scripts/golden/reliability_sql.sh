#!/bin/sh
# Regression tests of SQLite inputs as hostile input (issue #11), on copies
# in a temporary folder, never in ../shared:
#   D2   corrupt Ascend exports: exit 2 and "tprof: FILE: ..." naming the
#        database, never a silent empty table; a sweep of 20 deterministic
#        corruptions of a copy (b-tree page headers, truncations): each run
#        gives the intact output with exit 0, or exit 2 with a message;
#   D4   WAL-mode Ascend folders: nothing is created or changed beside them;
#   D5   nvprof/nsys columns of the wrong type and string ids that point
#        nowhere: malformed rows, counted, exit 2; the intact control is
#        unchanged (exit 0, every kernel, Sil = end - start);
#   D9   an nvprof dump in WAL mode with committed, uncheckpointed rows: they
#        are read (from a private copy); when no copy can be made, said;
#   D12  paths starting with "//", or holding '?', '#', '%', ' ';
#   and a listing (names, sizes, mtimes) of the input's folder before and
#   after a run on each kind of input is the same.
# Prints one "ok NAME" / "FAIL NAME: why" / "skip NAME: why" line per case.
REL=${REL:-../shared/reliability}
REF=${REF:-../shared/reference}
TPROF=${TPROF:-./cli/tprof}
. "$(dirname "$0")/lib.sh"
golden_need reliability_sql "$REL" "$TPROF" python3
exec python3 - "$REL" "$REF" "$TPROF" <<'PY'
import os, random, shutil, sqlite3, stat, subprocess, sys, tarfile, tempfile

REL, REF, TPROF = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
ASC = os.path.join(REF, "npu/ascend_data/xiaobingling93-pixel+Ascend-msinsight/test/data/pytorch")
LEVEL0 = os.path.join(ASC, "db/level0/rank0_ascend_pt")
TMP = tempfile.mkdtemp(prefix="tprof-relsql-")

def say(kind, name, why=None):
    print("%s %s%s" % (kind, name, ": " + why if why else ""))

def check(name, why):
    say("FAIL" if why else "ok", name, why)

def run(*args, env=None):
    p = subprocess.run([TPROF, *args], capture_output=True, env=env)
    err = p.stderr.decode("utf-8", "replace")
    return p.returncode, p.stdout.decode("utf-8", "replace"), err, (err.splitlines() or [""])[0]

def copy_tree(src, name):
    """A writable copy (SQLite could create files in it if tprof let it)."""
    dst = os.path.join(TMP, name)
    shutil.copytree(src, dst)
    for root, dirs, files in os.walk(dst):
        for f in dirs + files:
            os.chmod(os.path.join(root, f), 0o755 if f in dirs else 0o644)
    os.chmod(dst, 0o755)
    return dst

def copy_file(src, name):
    d = tempfile.mkdtemp(dir=TMP)
    dst = os.path.join(d, name)
    shutil.copyfile(src, dst)
    return dst

def listing(folder):
    out = []
    for root, dirs, files in os.walk(folder):
        for f in sorted(dirs + files):
            st = os.lstat(os.path.join(root, f))
            out.append((os.path.relpath(os.path.join(root, f), folder), st.st_size, st.st_mtime_ns))
    return sorted(out)

def untouched(folder, args_list):
    """Runs tprof with each args (the input inside folder); None when the folder did not change."""
    before = listing(folder)
    for args in args_list:
        run(*args)
    after = listing(folder)
    if before != after:
        return "changed: %s" % sorted(set(after) ^ set(before))[:4]
    return None

# ---- D2: corrupt Ascend exports --------------------------------------------
def ascend_db(folder):
    return os.path.join(folder, "ASCEND_PROFILER_OUTPUT", "ascend_pytorch_profiler_0.db")

if os.path.isdir(LEVEL0):
    intact = copy_tree(LEVEL0, "level0")
    views = [[], ["kernels"], ["memory"], ["steps"]]
    base = [run(*v, "--csv", intact) for v in views]
    check("relsql.d2.intact", None if all(b[0] == 0 and not b[2] for b in base) and base[0][1].count("\n") == 192
          else "intact copy: exit %d, %d lines, %s" % (base[0][0], base[0][1].count("\n"), base[0][3]))
    for rep in ("ascend_db_corrupt_silent.db", "ascend_db_corrupt_silent2.db"):
        f = copy_tree(LEVEL0, rep)
        shutil.copyfile(os.path.join(REL, rep), ascend_db(f))
        why = None
        for v in views:
            rc, out, err, first = run(*v, "--csv", f)
            if rc != 2 or not first.startswith("tprof: %s: " % ascend_db(f)) or not ("malformed" in first or "corrupt" in first):
                why = "%s: exit %d, first stderr line %r" % (" ".join(v) or "default", rc, first)
                break
        check("relsql.d2." + rep, why)

    # 20 deterministic corruptions: a b-tree page header (type byte and the
    # cell count) of pages spread over the file, then truncations.
    orig = open(ascend_db(intact), "rb").read()
    psize = int.from_bytes(orig[16:18], "big")
    npages = len(orig) // psize
    sweep = copy_tree(LEVEL0, "sweep")
    bad = []
    detected = 0
    for i in range(20):
        b = bytearray(orig)
        rnd = random.Random(i)
        if i < 14:
            page = 1 + i * (npages - 1) // 14
            off = 100 if page == 1 else (page - 1) * psize
            b[off] = rnd.choice([0, 1, 3, 4, 6, 7, 8, 9, 11, 12, 14, 15, 0x7f, 0xff])
            b[off + 3:off + 5] = rnd.randrange(1000, 65536).to_bytes(2, "big")
            what = "page %d header" % page
        else:
            cut = (1 + (i - 14) * (npages - 1) // 6) * psize + rnd.randrange(psize)
            b = b[:cut]
            what = "truncated to %d bytes" % cut
        with open(ascend_db(sweep), "wb") as fh:
            fh.write(b)
        for v, (brc, bout, berr, _) in zip(views, base):
            rc, out, err, first = run(*v, "--csv", sweep)
            if rc == 0 and (out != bout or err != berr):
                bad.append("%s, %s: other output with exit 0" % (what, " ".join(v) or "default"))
            elif rc not in (0, 2) or (rc == 2 and not first.startswith("tprof: ")):
                bad.append("%s, %s: exit %d, %r" % (what, " ".join(v) or "default", rc, first))
            detected += rc == 2
    print("# sweep: %d of %d runs ended in exit 2" % (detected, 20 * len(views)), file=sys.stderr)
    # the same folder in WAL mode, 10 compute tasks deleted in a transaction
    # committed to the -wal and not checkpointed: 181 tasks, nothing changed
    live = copy_tree(LEVEL0, "ascend-live")
    db = sqlite3.connect(ascend_db(live))
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("DELETE FROM COMPUTE_TASK_INFO WHERE rowid IN (SELECT rowid FROM COMPUTE_TASK_INFO LIMIT 10)")
    db.commit()
    crashed = copy_tree(live, "ascend-crashed")
    db.close()
    for x in os.listdir(os.path.join(crashed, "ASCEND_PROFILER_OUTPUT")):
        if x.endswith("-shm"):
            os.unlink(os.path.join(crashed, "ASCEND_PROFILER_OUTPUT", x))
    rc, out, err, first = run("--csv", crashed)
    check("relsql.d9.ascend_wal_rows_read", None if rc == 0 and not err and out.count("\n") == 182
          else "exit %d, %d lines (want 182), %s" % (rc, out.count("\n"), first))
    check("relsql.d9.ascend_wal_untouched", untouched(crashed, [["--csv", crashed], ["memory", crashed]]))
    check("relsql.d2.sweep20", "; ".join(bad[:3]) if bad else None if detected else "no corruption was detected at all")
else:
    say("skip", "relsql.d2", "no %s" % LEVEL0)

# ---- D4: WAL-mode Ascend folders are left as they are ------------------------
tgz = os.path.join(REL, "ascend-wal-db-folder.tgz")
if os.path.exists(tgz):
    d = os.path.join(TMP, "walfolder")
    os.mkdir(d)
    with tarfile.open(tgz) as t:
        t.extractall(d)
    for root, dirs, files in os.walk(d):
        for f in files:
            if f.endswith("-shm") or f.endswith("-wal"):
                os.unlink(os.path.join(root, f))
    top = [os.path.join(d, x) for x in os.listdir(d)]
    folder = top[0] if len(top) == 1 and os.path.isdir(top[0]) else d
    for root, dirs, files in os.walk(d):
        for f in dirs + files:
            os.chmod(os.path.join(root, f), 0o755 if f in dirs else 0o644)
    rc, out, err, first = run("--csv", folder)
    why = untouched(d, [["--csv", folder], ["memory", folder], ["info", folder]])
    check("relsql.d4.wal_folder_untouched", why or (None if rc == 0 and out.count("\n") > 1 else "exit %d: %s" % (rc, first)))
else:
    say("skip", "relsql.d4.wal_folder_untouched", "no %s" % tgz)
for rel in ("db/level1/rank0_ascend_pt",):
    src = os.path.join(ASC, rel)
    if not os.path.isdir(src):
        say("skip", "relsql.d4.wal_reference", "no %s" % src)
        continue
    f = copy_tree(src, "wal-ref")
    for root, dirs, files in os.walk(f):
        for x in files:
            if x.endswith("-shm") or (x.endswith("-wal") and os.path.getsize(os.path.join(root, x)) == 0):
                os.unlink(os.path.join(root, x))
    check("relsql.d4.wal_reference " + rel, untouched(f, [["--csv", f], ["memory", f]]))

# ---- D5: column types and string ids --------------------------------------
control = os.path.join(REL, "nvprof-reduced-control.sql")
if os.path.exists(control):
    c = copy_file(control, "control.sql")
    with sqlite3.connect("file:%s?mode=ro&immutable=1" % c, uri=True) as db:
        k = db.execute("SELECT count(*), sum(end - start) FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL").fetchone()
    rc, out, err, first = run("--csv", "-c", "kernel,sil", c)
    rows = [l.split('","') for l in out.splitlines()[1:]]
    sil = sum(int(r[-1].strip('"')) for r in rows)
    check("relsql.d5.control", None if rc == 0 and not err and len(rows) == k[0] and sil == k[1] and all(r[0].strip('"') for r in rows)
          else "exit %d, %d rows (want %d), Sil %d (want %d), %s" % (rc, len(rows), k[0], sil, k[1], first))
    for name, want in (("nvprof-text-start.sql", "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL.start is text, not an integer (13 events left out)"),
                       ("nvprof-string-id-nowhere.sql", "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL.name: string id not in StringTable (13 events left out)"),
                       ("nsys-wrong-types.sqlite", "CUPTI_ACTIVITY_KIND_KERNEL.start is text, not an integer (10 events left out)")):
        f = copy_file(os.path.join(REL, name), name)
        rc, out, err, first = run("--csv", "-c", "kernel,sil", f)
        rows = out.splitlines()[1:]
        check("relsql.d5." + name, None if rc == 2 and first.startswith("tprof: %s: row " % f) and first.endswith(want) and not rows
              else "exit %d, %d rows, first stderr line %r" % (rc, len(rows), first))

# ---- D9: committed rows in a -wal beside the dump --------------------------
    d = tempfile.mkdtemp(dir=TMP)
    live = os.path.join(d, "live.sql")
    shutil.copyfile(control, live)
    os.chmod(live, 0o644)
    db = sqlite3.connect(live)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    cols = [r[1] for r in db.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)")][1:]
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL (%s) SELECT %s FROM CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL "
               "ORDER BY _id_ LIMIT 7" % (",".join(cols), ",".join(cols)))
    db.commit()
    # the state a crashed or still-running writer leaves: the database and its -wal, no -shm
    crashed = tempfile.mkdtemp(dir=TMP)
    wal = os.path.join(crashed, "wal.sql")
    shutil.copyfile(live, wal)
    shutil.copyfile(live + "-wal", wal + "-wal")
    db.close()
    walsize = os.path.getsize(wal + "-wal")
    rc, out, err, first = run("kernels", "--csv", "-c", "calls", wal)
    calls = sum(int(l.strip('"')) for l in out.splitlines()[1:])
    check("relsql.d9.wal_rows_read", None if rc == 0 and not err and calls == 20 and walsize > 0
          else "exit %d, %d kernels (want 20, the -wal has %d bytes), %s" % (rc, calls, walsize, first))
    check("relsql.d9.wal_untouched", untouched(crashed, [["kernels", wal], ["info", wal]]))
    env = dict(os.environ, TMPDIR=os.path.join(TMP, "no-such-folder"))
    rc, out, err, first = run("kernels", "--csv", "-c", "calls", wal, env=env)
    calls = sum(int(l.strip('"')) for l in out.splitlines()[1:])
    check("relsql.d9.wal_not_read_said", None if rc == 2 and calls == 13 and first == "tprof: %s: its -wal (%d bytes) was not read: cannot copy it into a private folder: No such file or directory" % (wal, walsize)
          else "exit %d, %d kernels, %r" % (rc, calls, first))
    # (sqlite_open_test's own folders, tprof-sqlite-open-test-*, may belong to
    # another build's test running at the same time)
    left = [x for x in os.listdir(TMP) if x.startswith("tprof-sqlite-")] + \
           [x for x in os.listdir(tempfile.gettempdir())
            if x.startswith("tprof-sqlite-") and not x.startswith("tprof-sqlite-open-test")]
    check("relsql.d9.private_copy_removed", "left behind: %s" % left[:3] if left else None)

# ---- D12: paths SQLite's URI syntax would misread -------------------------
    rc0, out0, _, _ = run("--csv", c)
    odd = os.path.join(os.path.dirname(c), "a?b#c%41 d.sql")
    shutil.copyfile(c, odd)
    for name, path in (("double_slash", "/" + os.path.abspath(c)), ("uri_characters", odd),
                       ("relative", os.path.relpath(c))):
        rc, out, err, first = run("--csv", path)
        check("relsql.d12." + name, None if rc == 0 and out == out0 and not err else "exit %d: %s" % (rc, first))
else:
    say("skip", "relsql.d5", "no %s" % control)

# ---- every kind of input: its folder is the same after a run ---------------
kinds = [("kineto_json", "testdata/sample.pt.trace.json", False),
         ("nvprof_sql", os.path.join(REF, "pyprof/data/josiahdavis_profiling-lm/17ed9e2/net.sql"), False),
         ("nsys_sqlite", os.path.join(REF, "pyprof/data/synthetic_nsys_from_17ed9e2/synthetic_nsys_from_nvprof_17ed9e2.sqlite"), False),
         ("pydict", os.path.join(REF, "pyprof/data/josiahdavis_profiling-lm/17ed9e2/net.dict"), False),
         ("ascend_db_folder", LEVEL0, True),
         ("ascend_wal_db_folder", os.path.join(ASC, "db/level1/rank0_ascend_pt"), True),
         ("ascend_csv_folder", os.path.join(ASC, "text/level1/rank0_ascend_pt"), True)]
for name, src, folder in kinds:
    if not os.path.exists(src):
        say("skip", "relsql.untouched." + name, "no %s" % src)
        continue
    if folder:
        path = copy_tree(src, "kind-" + name)
        where = path
    else:
        path = copy_file(src, os.path.basename(src))
        where = os.path.dirname(path)
    views = [["--csv", path], ["info", path], ["kernels", path], ["memory", path], ["steps", path]]
    check("relsql.untouched." + name, untouched(where, views))

shutil.rmtree(TMP, ignore_errors=True)
PY
