#!/bin/sh
# Golden tests: `tprof kernels --group all` on Ascend folders — the plugin's
# kernel details ("All") table with every column of kernel_details.csv,
# HF32 Eligible, Context ID and the PMU columns included (SPEC §A.4.1,
# §A.6.2) — against the plugin's own outputs (../shared/reference/npu/golden,
# kernel_table_meta: its columns, row count and first rows) and, for every
# row, against the rows the plugin serves: kernel_details.csv as Python's
# csv.reader(skipinitialspace=True) reads it (run_generator.get_csv_data).
#
# Cases per reference folder that has a golden kernel table:
#   columns   the default columns are the file's, in its order (PMU columns
#             shown exactly when the input carries them)
#   golden    row count, and the plugin's first rows, every column
#   rows      every row, every column (PMU cells as written: "0.0" is not "0")
#   store     the same table from a .tprof store; a store without the PMU
#             sections (an older writer) still reads; one whose cells do not
#             match their columns is refused
# CANN's op_summary_1.csv (read in place of kernel_details.csv) row by row;
# and on copies of one folder: a run of two ranks, `info`'s count of the
# extra columns, --sort by a PMU column is numeric, -c picks
# PMU columns, a folder without them shows none by default, and bad cells:
# a PMU cell that is not a number is kept as text (the plugin passes every
# PMU cell through as a string), a bad Duration is an error naming file and
# row.  Prints one "ok NAME" / "FAIL NAME: why" / "skip NAME: why" line per case.
top=$(cd "$(dirname "$0")/../.." && pwd)
REF=${REF:-$top/../shared/reference}
. "$(dirname "$0")/lib.sh"

# Without the reference data too: the bundled folder (three tasks of the
# Level1 sample, the last an HCCL task, and a column tprof has no key for),
# its table as the CSV holds it (checked by hand against the file).
T=${TPROF:-$top/cli/tprof}
if [ -x "$T" ]; then
    got=$("$T" kernels --group all --csv --header keys "$top/testdata/ascend_pmu_ascend_pt" 2>&1)
    want=$(cat <<'WANT'
"step","model_id","task_id","stream_id","name","type","state","core","start_time","duration","wait","block_dim","mix_block_dim","hf32_eligible","in_shapes","in_types","in_formats","out_shapes","out_types","out_formats","context_id","aicore_time","aic_total_cycles","aic_mac_ratio","aiv_time","aiv_vec_ratio","cube_utilization","extra"
"50","4294967295","11051","2","trans_TransData_0","TransData","dynamic","AI_VECTOR_CORE","1736408883704643.212","53.741","0","32","0","NO","""32,3,224,224""","FLOAT","NCHW","""32,1,224,224,8""","FLOAT","NC1HWC0","N/A","0.0","0","0.0","50.522","0.186","0","l2_hit_rate=0.5"
"50","4294967295","11053","2","Conv2D1","Conv2D","dynamic","AI_CORE","1736408883704903.918","313.886","96.222","16","0","YES","""32,1,224,224,8;121,4,16,8;64""","FLOAT;FLOAT;FLOAT","NC1HWC0;FRACTAL_Z;NCHW","""32,8,55,55,8""","FLOAT","NC1HWC0","N/A","312.164","8990318","0.519","0.0","0.0","66.301","l2_hit_rate=0.25"
"50","4294967295","N/A","N/A","hcom_allReduce__586_0_1","hcom_allReduce_","N/A","HCCL","1736408883705300","2281.105","10","N/A","N/A","N/A","N/A","N/A","N/A","N/A","N/A","N/A","N/A","N/A","N/A","N/A","N/A","N/A","N/A","l2_hit_rate=N/A"
WANT
)
    if [ "$got" = "$want" ]; then
        echo "ok npu-pmu-testdata"
    else
        echo "FAIL npu-pmu-testdata: $(printf '%s\n' "$got" | head -2 | cut -c1-200)"
    fi
fi

golden_python npu_pmu "$REF/npu/golden" "${TPROF:-$top/cli/tprof}" "$REF/npu" "${TPROF:-$top/cli/tprof}" <<'PY'
import atexit, csv, io, json, os, re, shutil, struct, subprocess, sys, tempfile
from decimal import Decimal as D
from golden import plugin_cases

NPU, TPROF = sys.argv[1], sys.argv[2]
GOLD = os.path.join(NPU, "golden")
DATA = os.path.join(NPU, "ascend_data")
TMP = tempfile.mkdtemp(prefix="tprof-pmu-")
atexit.register(shutil.rmtree, TMP, True)

def say(kind, name, why=None):
    print("%s %s%s" % (kind, name, ": " + why if why else ""))

def tprof(*args):
    return subprocess.run([TPROF, *args], capture_output=True, text=True)

def table(path, *extra, ok=True):
    p = tprof("kernels", "--group", "all", "--csv", "--header", "keys", *extra, path)
    if ok and (p.returncode != 0 or p.stderr.strip()):
        raise RuntimeError("exit %d: %s" % (p.returncode, p.stderr.strip()[:300]))
    r = list(csv.reader(io.StringIO(p.stdout)))
    return p, (r[0] if r else []), r[1:]

# The plugin's column names and tprof's keys: the task record's own columns
# by name, every other (extra) column by its name without the unit.
BASE = {"step id": "step", "device_id": "device", "model id": "model_id", "task id": "task_id",
        "stream id": "stream_id", "name": "name", "type": "type", "op state": "state",
        "accelerator core": "core", "start time(us)": "start_time", "duration(us)": "duration",
        "wait time(us)": "wait", "block dim": "block_dim", "block num": "block_dim",
        "mix block dim": "mix_block_dim", "input shapes": "in_shapes", "input data types": "in_types",
        "input formats": "in_formats", "output shapes": "out_shapes", "output data types": "out_types",
        "output formats": "out_formats",
        # CANN op_summary's names, which kernel_details renames
        "op name": "name", "op type": "type", "task type": "core", "task start time(us)": "start_time",
        "task duration(us)": "duration", "task wait time(us)": "wait"}
# typed number by the plugin; tprof keeps them as integer ns (a Duration of
# "496.8508" µs prints 496.851): equal to the ns
NUMERIC = {"start_time", "duration", "wait"}

def key(col):
    b = BASE.get(col.strip().lower())
    if b:
        return b
    k = re.sub(r"\([^()]*\)$", "", col.strip()).lower()
    return re.sub(r"[^a-z0-9]+", "_", k).strip("_")

INTS = ("model_id", "task_id", "stream_id", "block_dim", "mix_block_dim")

def same(k, mine, exp, short=False):
    if k in INTS and short and not re.fullmatch(r"-?[0-9]+", exp.strip()):
        # a hand-edited row with fields missing: the plugin serves it shifted;
        # tprof reads the optional numbers it can and leaves the others N/A
        return mine in ("", "N/A")
    if k in NUMERIC:
        try:
            return abs(D(mine) - D(exp.strip())) <= D("0.0005")
        except Exception:
            return False
    if k in INTS and exp == "":
        return mine in ("", "N/A")
    return mine == exp

def compare(hdr, rows, cols, exp_rows, what, short=()):
    """every plugin column of every expected row against tprof's row
    (short: the indexes of rows the file has with fewer fields than its header)"""
    idx = {k: i for i, k in enumerate(hdr)}
    keys = [key(c) for c in cols]
    missing = [k for k in keys if k not in idx]
    if missing:
        return "%s: tprof has no column %s" % (what, ",".join(missing))
    if len(rows) < len(exp_rows):
        return "%s: %d rows, expected at least %d" % (what, len(rows), len(exp_rows))
    for r, (m, e) in enumerate(zip(rows, exp_rows)):
        for c, k, ev in zip(cols, keys, e):
            mv = m[idx[k]]
            if not same(k, mv, ev, r in short):
                return "%s row %d, column %r: %r, expected %r" % (what, r + 1, c, mv, ev)
    return None

def plugin_rows(folder, name="kernel_details.csv"):
    # run_generator.get_csv_data: open(utf-8-sig), csv.reader(skipinitialspace=True)
    f = os.path.join(folder, "ASCEND_PROFILER_OUTPUT", name)
    if not os.path.exists(f):
        f = os.path.join(folder, name)
    with open(f, encoding="utf-8-sig") as fh:
        r = list(csv.reader(fh, skipinitialspace=True))
    return r[0], r[1:]

def check_columns(path, g):
    _, hdr, _ = table(path)
    want = [key(c["name"]) for c in g["kernel_table_meta"]["columns"]]
    if hdr != want:
        return "default columns %s, expected %s" % (",".join(hdr), ",".join(want))
    return None

def check_golden(path, g):
    meta = g["kernel_table_meta"]
    _, hdr, rows = table(path)
    if len(rows) != meta["n_rows"]:
        return "%d rows, the plugin has %d" % (len(rows), meta["n_rows"])
    return compare(hdr, rows, [c["name"] for c in meta["columns"]], meta["first_rows"], "first rows")

def check_rows(path, g, name="kernel_details.csv"):
    cols, exp = plugin_rows(path, name)
    _, hdr, rows = table(path)
    # a hand-edited row shorter than the header: the plugin serves it short
    short = {i for i, e in enumerate(exp) if len(e) < len(cols)}
    exp = [e + [""] * (len(cols) - len(e)) if len(e) < len(cols) else e for e in exp]
    if len(rows) != len(exp):
        return "%d rows, the CSV has %d" % (len(rows), len(exp))
    return compare(hdr, rows, cols, exp, "csv", short)

# .tprof sections: u16 name length, name, u32 width, u32 flags, u64 count,
# u64 compressed length, u32 crc, bytes; end: u16 0 "TPROFEND"
def sections(blob):
    out, p = [], 16
    while True:
        (n,) = struct.unpack_from("<H", blob, p)
        if n == 0:
            return blob[:16], out, blob[p:]
        name = blob[p + 2:p + 2 + n].decode()
        (zlen,) = struct.unpack_from("<Q", blob, p + 2 + n + 16)
        end = p + 2 + n + 28 + zlen
        out.append((name, blob[p:end]))
        p = end

def without(src, dst, drop):
    head, secs, tail = sections(open(src, "rb").read())
    kept = [b for n, b in secs if not drop(n)]
    if len(kept) == len(secs):
        raise RuntimeError("no section to drop in %s" % src)
    open(dst, "wb").write(head + b"".join(kept) + tail)

def check_store(path, g):
    st = os.path.join(TMP, "s.tprof")
    p = tprof("import", path, "-o", st)
    if p.returncode != 0:
        return "import: exit %d: %s" % (p.returncode, p.stderr.strip()[:200])
    a, b = table(path)[0], table(st)[0]
    if a.stdout != b.stdout:
        return "the table from the store differs from the folder's"
    has_pmu = any(k.startswith(("aic", "aiv")) for k in table(path)[1])
    if not has_pmu:
        return None
    # an older writer: no opt.npu.x* sections; the base columns stay, no PMU column
    old = os.path.join(TMP, "old.tprof")
    without(st, old, lambda n: n.startswith("opt.npu.x"))
    _, hdr, rows = table(old)
    if any(k.startswith(("aic", "aiv", "hf32", "context")) for k in hdr) or "name" not in hdr or not rows:
        return "store without PMU sections: columns %s" % ",".join(hdr)
    # cells that do not match their columns: refused, naming the file and the byte
    bad = os.path.join(TMP, "bad.tprof")
    without(st, bad, lambda n: n.startswith("opt.npu.xcell"))
    p, _, _ = table(bad, ok=False)
    if p.returncode != 2 or p.stdout or "byte" not in p.stderr or "bad.tprof" not in p.stderr:
        return "store with columns but no cells: exit %d, stderr %r" % (p.returncode, p.stderr[:200])
    return None

cases = plugin_cases(GOLD, DATA)
npmu = 0
for rel, gp, path in cases:
    name = rel.split("/")[0].split("+")[1] + ":" + "/".join(rel.split("/")[-2:])
    g = json.load(open(gp))
    if not g.get("kernel_table_meta"):
        continue
    if not os.path.isdir(path):
        say("skip", "npu-pmu " + name, "no data folder")
        continue
    if any(c["name"].startswith(("aic", "aiv")) for c in g["kernel_table_meta"]["columns"]):
        npmu += 1
    for cname, fn in (("columns", check_columns), ("golden", check_golden), ("rows", check_rows),
                      ("store", check_store)):
        try:
            why = fn(path, g)
        except Exception as ex:
            why = str(ex)
        say("FAIL" if why else "ok", "npu-pmu-%s %s" % (cname, name), why)
if npmu < 6:
    say("FAIL", "npu-pmu-inputs", "%d reference inputs with PMU columns, expected at least 6" % npmu)

# ---- on copies of one folder ----
SRC = os.path.join(DATA, "xiaobingling93-pixel+Ascend-msinsight/test/data/pytorch/text/level1/rank0_ascend_pt")
L0 = os.path.join(DATA, "xiaobingling93-pixel+Ascend-msinsight/test/data/pytorch/text/level0/rank0_ascend_pt")

def case(name, fn):
    try:
        why = fn()
    except Exception as ex:
        why = str(ex)
    say("FAIL" if why else "ok", "npu-pmu-" + name, why)

def sort_numeric():
    # numbers descending, then the cells that are text (N/A of HCCL tasks)
    _, hdr, rows = table(SRC, "--sort", "aicore_time", "-c", "name,aicore_time")
    cells = [r[1] for r in rows]
    num = [c for c in cells if re.fullmatch(r"-?[0-9.]+", c)]
    v = [D(c) for c in num]
    if len(v) < 10 or v != sorted(v, reverse=True) or v[0] == v[-1] or cells[:len(num)] != num:
        return "--sort aicore_time is not numeric descending: %s" % cells[:8]
    return None

def select():
    _, hdr, rows = table(SRC, "-c", "name,hf32_eligible,aic_mac_ratio,cube_utilization")
    cols, exp = plugin_rows(SRC)
    want = [[e[cols.index(c)] for c in ("Name", "HF32 Eligible", "aic_mac_ratio", "cube_utilization(%)")] for e in exp]
    return None if rows == want else "-c picks %s, expected %s" % (rows[:2], want[:2])

def level0():
    _, hdr, rows = table(L0)
    if any(k.startswith(("aic", "aiv", "hf32", "context", "cube")) for k in hdr):
        return "a folder without PMU columns shows %s" % ",".join(hdr)
    _, hdr, rows = table(L0, "-c", "name,aicore_time")
    if not rows or any(r[1] for r in rows):
        return "-c aicore_time on a folder without it: %s" % rows[:2]
    return None

def copy_with(edit):
    dst = os.path.join(TMP, "edit%d" % len(os.listdir(TMP)), "rank0_ascend_pt")
    shutil.copytree(SRC, dst, ignore=shutil.ignore_patterns("*.db", "*.dat"))
    f = os.path.join(dst, "ASCEND_PROFILER_OUTPUT", "kernel_details.csv")
    raw = open(f, newline="").read()
    lines = raw.split("\r\n") if "\r\n" in raw else raw.split("\n")
    hdr = next(csv.reader([lines[0]]))
    row = next(csv.reader([lines[3]]))
    edit(hdr, row)
    s = io.StringIO()
    csv.writer(s, lineterminator="").writerow(row)
    lines[3] = s.getvalue()
    open(f, "w", newline="").write(("\r\n" if "\r\n" in raw else "\n").join(lines))
    return dst

def pmu_text():
    # row 3: a cell that is not a number, one with a trailing zero, one empty
    def edit(h, r):
        r[h.index("aic_mac_ratio")] = "abc"
        r[h.index("aicore_time(us)")] = "312.1640"
        r[h.index("aic_total_cycles")] = ""
    d = copy_with(edit)
    p, hdr, rows = table(d, "-c", "name,aic_mac_ratio,aicore_time,aic_total_cycles", ok=False)
    if p.returncode != 0 or p.stderr.strip():
        return "exit %d, stderr %r (the plugin keeps such a cell as text)" % (p.returncode, p.stderr[:200])
    if rows[2][1:] != ["abc", "312.1640", ""]:
        return "row 3 printed %s, expected ['abc', '312.1640', '']" % rows[2][1:]
    a = tprof("kernels", "--csv", d).stdout
    b = tprof("kernels", "--csv", SRC).stdout
    return None if a == b else "the statistics changed with a PMU cell"

def bad_duration():
    def edit(h, r):
        r[h.index("Duration(us)")] = "abc"
    d = copy_with(edit)
    p, hdr, rows = table(d, ok=False)
    if p.returncode != 2 or not re.search(r"kernel_details\.csv row 3\b.*Duration", p.stderr):
        return "exit %d, stderr %r: expected an error naming kernel_details.csv row 3" % (p.returncode, p.stderr[:200])
    if len(rows) != 190:
        return "%d rows printed, expected the other 190" % len(rows)
    return None

def run_dir():
    # a run of two ranks: one block, the rank first, then the file's columns
    run = os.path.join(TMP, "run")
    os.makedirs(run)
    for r in ("rank0_ascend_pt", "rank1_ascend_pt"):
        shutil.copytree(os.path.join(os.path.dirname(SRC), r), os.path.join(run, r),
                        ignore=shutil.ignore_patterns("*.db", "*.dat"))
    _, hdr, rows = table(run)
    cols, exp = plugin_rows(SRC)
    if hdr != ["rank"] + [key(c) for c in cols]:
        return "run columns %s" % ",".join(hdr[:6])
    if len(rows) != 2 * len(exp) or {r[0] for r in rows} != {"0", "1"}:
        return "%d rows of ranks %s" % (len(rows), sorted({r[0] for r in rows}))
    return compare(hdr, [r for r in rows if r[0] == "0"], cols, exp, "rank 0")

def info():
    p = tprof("info", SRC)
    m = re.search(r"^ascend\.kernel_extra_columns (\d+): HF32 Eligible,Context ID,aicore_time\(us\),", p.stdout, re.M)
    if not m or m.group(1) != "27":
        return "info says %r" % [l for l in p.stdout.splitlines() if "extra" in l]
    return None

# CANN's op_summary (kernel_details before torch_npu renames its columns),
# read when a folder has no kernel_details.csv: the same extra columns
OPSUM = os.path.join(DATA, "xiaobingling93-pixel+Ascend-msinsight/server/src/test/test_data/test_kernel_parse")
if os.path.exists(os.path.join(OPSUM, "op_summary_1.csv")):
    def op_summary():
        cols, _ = plugin_rows(OPSUM, "op_summary_1.csv")
        _, hdr, _ = table(OPSUM)
        if hdr != [key(c) for c in cols]:
            return "default columns %s" % ",".join(hdr)
        return check_rows(OPSUM, None, "op_summary_1.csv")
    case("op-summary", op_summary)
else:
    say("skip", "npu-pmu-op-summary", "op_summary_1.csv not found")

if os.path.isdir(SRC) and os.path.isdir(L0):
    case("run", run_dir)
    case("info", info)
    case("sort", sort_numeric)
    case("select", select)
    case("absent", level0)
    case("bad-pmu-cell", pmu_text)
    case("bad-duration", bad_duration)
else:
    say("skip", "npu-pmu-copies", "level0/level1 rank0 folders not found")
PY
