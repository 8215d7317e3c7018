#!/bin/sh
# Pictures (issue: "pictures where people would rather look than read"):
# steps --plot (a stacked bar per step), kernels/ops --plot (a bar per row,
# its value and share), gpu --series [INTERVAL] (utilization per interval,
# as a table and, with --plot, vertical bars).  On the reference kineto
# traces, every picture is read back and held against the table the same
# command prints without --plot:
#   - a bar's length (in eighths of a cell; a stacked bar's segments in
#     cells) is the table's number to scale, within the rounding of one
#     eighth (one cell per segment);
#   - the value and share printed after a bar are the table's cells;
#   - no line is wider than W - 1 cells at -w W, nor 79 into a pipe;
#   - no ANSI escape into a pipe or with NO_COLOR under a pseudo-terminal
#     (script -qc), escapes there without it, and the picture less its
#     escapes is the pipe's;
#   - --plot with --csv/--jsonl/--tsv/--markdown/--space/-w 0 is exit 2;
#   - the series' busy times add up to the gpu view's busy time, tile its
#     span, and are the union of the kernels per interval computed here from
#     the raw JSON (exact ns with Decimal).
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/scripts/golden/lib.sh"
# TPROF_SHARED: the shared folder when it is not beside the checkout (a worktree)
REF=${TPROF_SHARED:-$top/../shared}/reference/kineto/data
golden_need plot "$REF" "$top/cli/tprof" python3
if ! command -v script >/dev/null 2>&1; then
    echo "skip plot.tty: script(1) not found"
fi
exec python3 - "$top/cli/tprof" "$REF" <<'EOF'
import glob, gzip, json, os, re, shutil, subprocess, sys, unicodedata
from decimal import Decimal

T, REF = sys.argv[1], sys.argv[2]
ESC = "\x1b"
ENV = dict(os.environ)
ENV.pop("NO_COLOR", None)
ENV.pop("COLUMNS", None)

def ok(name): print("ok plot." + name)
def fail(name, why): print("FAIL plot.%s: %s" % (name, why))
def skip(name, why): print("skip plot.%s: %s" % (name, why))

def run(args, env=ENV):
    p = subprocess.run([T] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")

def cells(line):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1 for c in line)

def csv_rows(args):
    rc, out, err = run(args + ["--csv", "--header", "keys", "--timeunit", "ns"])
    if rc != 0:
        return None
    import csv, io
    # keys of time columns carry the unit (total_ns): the bare key here
    return [{re.sub(r"_ns$", "", k): v for k, v in r.items()} for r in csv.DictReader(io.StringIO(out))]

EIGHTHS = {"\u2588": 8, "\u2589": 7, "\u258a": 6, "\u258b": 5, "\u258c": 4, "\u258d": 3, "\u258e": 2, "\u258f": 1}
LOWER = {" ": 0, "\u2581": 1, "\u2582": 2, "\u2583": 3, "\u2584": 4, "\u2585": 5, "\u2586": 6, "\u2587": 7, "\u2588": 8}
STACK = ["\u2588", "\u2593", "\u2592", "\u259a", "\u259e", "\u2584", "\u2591", "\u00b7"]
ROLES = ["kernel", "memcpy", "memset", "comm", "runtime", "dataloader", "cpu", "other"]

def rnd(x):   # C's round() for x >= 0
    import math
    return math.floor(x + 0.5)

def want_eighths(v, vmax, bw):
    if v <= 0 or vmax <= 0:
        return 0
    return max(1, min(8 * bw, rnd(8 * bw * v / vmax)))

# ---- the traces ----------------------------------------------------------
traces = sorted(glob.glob(REF + "/**/*.json", recursive=True) + glob.glob(REF + "/**/*.json.gz", recursive=True))
traces = [t for t in traces if "expected" not in t]
if not traces:
    skip("traces", "no kineto trace under " + REF)
    sys.exit(0)
TAGS = {}
def tag(t):
    if t not in TAGS:
        base = short_name(t)
        n = sum(1 for v in TAGS.values() if v == base or v.startswith(base + "_"))
        TAGS[t] = base if n == 0 else "%s_%d" % (base, n + 1)
    return TAGS[t]

def short_name(t):
    r = os.path.relpath(t, REF)
    for junk in ("extracted_unit_tests/", "tb_plugin/samples/", "plugin/samples/", "kineto_docs_traces/docs/traces/"):
        r = r.replace(junk, "")
    r = re.sub(r"(\.pt\.trace)?\.json(\.gz)?$", "", r).replace(".", "_")
    return re.sub(r"__json_content(\d*)__L\d+", r"\1", r).replace("/", "_")

# ---- share bars: kernels and ops ----------------------------------------
def share_rows(out):
    """(caption, [(label, eighths, bar width, value text, pct text)])"""
    lines = out.rstrip("\n").split("\n")
    rows = []
    for l in lines[1:]:
        if "\u2502" not in l:
            continue   # key_averages' footer
        lab, rest = l.split("\u2502", 1)
        m = re.match(r"^(.*?) +(\S+(?: [a-z]+)?)  +(\S+%)$", rest) or re.match(r"^(.*?) (\S+(?: [a-z]+)?)  +(\S+%)$", rest)
        if not m:
            return lines[0], None
        bar, val, pct = m.group(1), m.group(2), m.group(3)
        e = 0
        for c in bar.rstrip(" "):
            if c not in EIGHTHS:
                return lines[0], None
            e += EIGHTHS[c]
        rows.append((lab.rstrip(" "), e, val, pct, rest))
    return lines[0], rows

def check_share(name, args, col, W):
    table = csv_rows(args)
    if table is None:
        return skip(name, "no table")
    if not table:
        return skip(name, "empty table")
    rc, out, err = run(args + ["--plot", "-w", str(W), "--timeunit", "ns"])
    if rc != 0:
        return fail(name, "exit %d: %s" % (rc, err.strip()[:200]))
    cap, rows = share_rows(out)
    if rows is None:
        return fail(name, "cannot read the bars: " + out[:300])
    top = [r for r in table][:len(rows)]
    if len(rows) != len(table):
        return fail(name, "%d bars for %d rows" % (len(rows), len(table)))
    vals = [int(r[col]) for r in table]
    total = sum(vals)
    vmax = max(vals)
    for (lab, e, val, pct, rest), v in zip(rows, vals):
        if val != "%d ns" % v:
            return fail(name, "value %r, table %d" % (val, v))
        want_pct = "%.2f%%" % (100.0 * v / total if total else 0.0)
        if pct != want_pct:
            return fail(name, "share %s, table %s" % (pct, want_pct))
    # the kernels table prints the share itself (Pct): the same number
    for (lab, e, val, pct, rest), r in zip(rows, table):
        if col == "total" and r.get("pct") not in (None, "", "-") and pct != r["pct"] + "%":
            return fail(name, "share %s, the table's Pct %s" % (pct, r["pct"]))
    # each line after the label: bar (bw cells), " ", value right-aligned, "  ", share right-aligned
    vw = max(len(r[2]) for r in rows)
    pw = max(len(r[3]) for r in rows)
    bws = set(len(r[4]) - 1 - vw - 2 - pw for r in rows)
    if len(bws) != 1:
        return fail(name, "bars of different widths %s" % sorted(bws))
    bw = bws.pop()
    if vmax > 0 and max(r[1] for r in rows) != 8 * bw:
        return fail(name, "the largest bar (%d eighths) does not fill the %d cells" % (max(r[1] for r in rows), bw))
    for (lab, e, val, pct, rest), v in zip(rows, vals):
        if e != want_eighths(v, vmax, bw):
            return fail(name, "%s: %d eighths for %d of %d (bar %d cells): want %d"
                        % (lab, e, v, vmax, bw, want_eighths(v, vmax, bw)))
        if vmax > 0 and abs(e - 8 * bw * v / vmax) > 1.0 + 1e-9:
            return fail(name, "%s: %d eighths for %.2f" % (lab, e, 8 * bw * v / vmax))
    if "%d ns" % total not in cap:
        return fail(name, "caption %r lacks the sum %d ns" % (cap, total))
    ok(name)
    return len(rows)

# ---- stacked bars: steps ---------------------------------------------------
def check_steps(name, f, W):
    table = csv_rows(["steps", f])
    if table is None:
        return skip(name, "no table")
    rc, out, err = run(["steps", "--plot", "-w", str(W), "--timeunit", "ns", f])
    if rc != 0:
        return fail(name, "exit %d: %s" % (rc, err.strip()[:200]))
    lines = out.rstrip("\n").split("\n") if out.strip() else []
    if not table:
        return ok(name) if not any("\u2502" in l for l in lines) else fail(name, "bars without steps")
    legend = "".join(l for l in lines if "\u2502" not in l)
    for g, r in zip(STACK, ["Kernel", "Memcpy", "Memset", "Comm", "Runtime", "DataLoader", "CPU", "Other"]):
        if g + " " + r not in legend:
            return fail(name, "legend %r lacks %s %s" % (legend, g, r))
    bars = [l for l in lines if "\u2502" in l]
    if len(bars) != len(table):
        return fail(name, "%d bars for %d steps" % (len(bars), len(table)))
    parsed = []
    for l, row in zip(bars, table):
        lab, rest = l.split("\u2502", 1)
        if lab.strip() != row["step"]:
            return fail(name, "label %r for step %s" % (lab.strip(), row["step"]))
        m = re.match(r"^(.*) (\S+ ns)$", rest)
        if not m or m.group(2) != row["total"] + " ns":
            return fail(name, "total %r, table %s" % (rest[-20:], row["total"]))
        parsed.append((m.group(1), row))
    # each line after the label: bar (bw cells), " ", the total right-aligned
    vw = max(len(r["total"] + " ns") for _, r in parsed)
    bws = set(len(b) + 1 + len(r["total"] + " ns") - 1 - vw for b, r in parsed)
    if len(bws) != 1:
        return fail(name, "bars of different widths %s" % sorted(bws))
    bw = bws.pop()
    scale = max(max(int(r["total"]), sum(max(0, int(r[k])) for k in ROLES)) for _, r in parsed)
    runs = [b.rstrip(" ") for b, _ in parsed]
    for (b, r), rb in zip(parsed, runs):
        # glyphs in role order, each a run
        seq = [c for c in rb]
        order = [STACK.index(c) if c in STACK else -1 for c in seq]
        if -1 in order or order != sorted(order):
            return fail(name, "step %s: glyphs out of role order: %r" % (r["step"], rb))
        run_sum = 0
        edge_prev = 0
        for k, role in enumerate(ROLES):
            v = max(0, int(r[role]))
            run_sum += v
            edge = min(bw, rnd(run_sum * bw / scale)) if scale else 0
            edge = max(edge, edge_prev)
            want = edge - edge_prev
            edge_prev = edge
            got = order.count(k)
            if got != want:
                return fail(name, "step %s: %s %d cells, want %d (of %d for %d ns)" % (r["step"], role, got, want, bw, scale))
            if abs(got - v * bw / scale) >= 1.0 + 1e-9:
                return fail(name, "step %s: %s %d cells for %.2f" % (r["step"], role, got, v * bw / scale))
    ok(name)
    return len(parsed)

# ---- width -------------------------------------------------------------------
def check_width(name, args, W):
    rc, out, err = run(args + (["-w", str(W)] if W else []))
    if rc != 0:
        if "too narrow" in err and W and W < 30:
            return ok(name)
        return fail(name, "exit %d: %s" % (rc, err.strip()[:200]))
    limit = (W or 80) - 1
    wide = max((cells(l) for l in out.split("\n")), default=0)
    if wide > limit:
        return fail(name, "a line of %d cells at -w %s" % (wide, W or "(pipe)"))
    if ESC in out:
        return fail(name, "ANSI escape into a pipe")
    ok(name)

# ---- the series --------------------------------------------------------------
def kernels_by_device(f):
    op = gzip.open if f.endswith(".gz") else open
    with op(f, "rt", encoding="utf-8") as fh:
        d = json.load(fh)
    ev = d["traceEvents"] if isinstance(d, dict) else d
    ks, t0 = {}, None
    for e in ev:
        if not isinstance(e, dict) or "ts" not in e:
            continue
        ph = e.get("ph")
        if ph in ("M", "s", "f", "t"):
            continue
        ts = int(Decimal(str(e["ts"])) * 1000)
        t0 = ts if t0 is None or ts < t0 else t0
        if ph == "X" and str(e.get("cat", "")).lower() == "kernel":
            dev = (e.get("args") or {}).get("device")
            dur = int(Decimal(str(e.get("dur", 0))) * 1000)
            if dev is not None and dur > 0:
                ks.setdefault(int(dev), []).append((ts, ts + dur))
    return ks, t0

def union_within(rs, a, z):
    tot, cur = 0, None
    for s, e in sorted(rs):
        s, e = max(s, a), min(e, z)
        if s >= e:
            continue
        if cur and s <= cur[1]:
            cur[1] = max(cur[1], e)
        else:
            if cur:
                tot += cur[1] - cur[0]
            cur = [s, e]
    if cur:
        tot += cur[1] - cur[0]
    return tot

def check_series(name, f, arg, want_n=None, raw=False):
    gpu = csv_rows(["gpu", "-c", "device,busy,span", f])
    ser = csv_rows(["gpu", "--series" + ("=" + arg if arg else ""), f])
    if gpu is None or ser is None:
        return fail(name, "no table")
    if not gpu:
        return skip(name, "no GPU")
    by = {}
    for r in ser:
        by.setdefault(r["device"], []).append(r)
    if sorted(by) != sorted(r["device"] for r in gpu):
        return fail(name, "devices %s, gpu view %s" % (sorted(by), [r["device"] for r in gpu]))
    for g in gpu:
        rows = by[g["device"]]
        if want_n is not None and len(rows) != want_n:
            return fail(name, "device %s: %d intervals, want %d" % (g["device"], len(rows), want_n))
        busy = sum(int(r["busy"]) for r in rows)
        if busy != int(g["busy"]):
            return fail(name, "device %s: series busy %d ns, gpu view %s" % (g["device"], busy, g["busy"]))
        for a, b in zip(rows, rows[1:]):
            if a["end"] != b["start"]:
                return fail(name, "intervals do not tile: %s then %s" % (a["end"], b["start"]))
        span = int(rows[-1]["end"]) - int(rows[0]["start"])
        if g["span"] not in ("0", "-", "") and span != int(g["span"]):
            return fail(name, "series span %d, gpu view %s" % (span, g["span"]))
        for r in rows:
            a, z, on = int(r["start"]), int(r["end"]), int(r["busy"])
            if not 0 <= on <= z - a:
                return fail(name, "busy %d in %d..%d" % (on, a, z))
            if r["util"] != "%.2f" % (100.0 * on / (z - a)):
                return fail(name, "util %s for %d of %d" % (r["util"], on, z - a))
    if raw:
        ks, t0 = kernels_by_device(f)
        for r in ser:
            a, z = int(r["start"]) + t0, int(r["end"]) + t0
            want = union_within(ks.get(int(r["device"]), []), a, z)
            if want != int(r["busy"]):
                return fail(name, "device %s %s..%s: busy %s, the raw kernels' union %d"
                            % (r["device"], r["start"], r["end"], r["busy"], want))
    ok(name)
    return ser

def check_series_plot(name, f, arg, W):
    ser = csv_rows(["gpu", "--series=" + arg, f])
    rc, out, err = run(["gpu", "--series=" + arg, "--plot", "-w", str(W), "--timeunit", "ns", f])
    if rc != 0 or ser is None:
        return fail(name, "exit %d: %s" % (rc, err.strip()[:200]))
    lines = out.rstrip("\n").split("\n")
    heights, dev, got = [], None, {}
    i = 0
    while i < len(lines):
        l = lines[i]
        m = re.match(r"^device (\S+): busy (\d+) ns of (\d+) ns", l)
        if m:
            dev = m.group(1)
            got.setdefault(dev, [])
            want = sum(int(r["busy"]) for r in ser if r["device"] == dev)
            if int(m.group(2)) != want:
                return fail(name, "caption busy %s, table %d" % (m.group(2), want))
            i += 1
            continue
        if l.startswith("100% "):
            panel = [x[6:] for x in lines[i:i + 4]]
            if len(panel) != 4 or any(len(p) != len(panel[0]) for p in panel):
                return fail(name, "ragged panel at line %d" % i)
            for c in range(len(panel[0])):
                h = 0
                for rrow, p in enumerate(panel):
                    if p[c] not in LOWER:
                        return fail(name, "glyph %r in a panel" % p[c])
                    h += LOWER[p[c]]
                    if rrow < 3 and LOWER[p[c]] and any(LOWER[q[c]] != 8 for q in panel[rrow + 1:]):
                        return fail(name, "column %d has a gap" % c)
                got[dev].append(h)
            i += 5   # 4 rows and the time axis
            continue
        i += 1
    if not got:
        return fail(name, "no panel: " + out[:200])
    for dev, hs in got.items():
        rows = [r for r in ser if r["device"] == dev]
        if len(hs) != len(rows):
            return fail(name, "device %s: %d bars for %d intervals" % (dev, len(hs), len(rows)))
        for h, r in zip(hs, rows):
            a, z, on = int(r["start"]), int(r["end"]), int(r["busy"])
            want = want_eighths(on / (z - a) * 100.0, 100.0, 4)
            if h != want:
                return fail(name, "device %s %s..%s: %d eighths for %.4f%%, want %d" % (dev, r["start"], r["end"], h, 100.0 * on / (z - a), want))
    wide = max(cells(l) for l in lines)
    if wide > W - 1:
        return fail(name, "a line of %d cells at -w %d" % (wide, W))
    ok(name)

# ---- run everything ------------------------------------------------------
nbars = 0
gpu_traces = []
for f in traces:
    t = tag(f)
    n = check_steps("steps." + t, f, 100)
    nbars += n or 0
    for view, col, extra in (("kernels", "total", []), ("ops", "dev_self", []), ("ops", "host_self", ["--sort", "host_self"]),
                             ("ops", "dev_total", ["--sort", "-dev_total"]), ("ops", "dev_self", ["--group", "shape"]),
                             ("ops", "dev_self", ["--group", "category"])):
        table = csv_rows([view, f] + extra)
        if not table:
            continue
        if view == "ops" and col == "dev_self" and "category" not in extra and not any(int(r["dev_self"]) for r in table):
            col = "host_self"
        n = check_share("%s%s.%s" % (view, "".join("." + x.strip("-") for x in extra), t), [view, f] + extra, col, 90)
        nbars += n or 0
    rc, out, err = run(["gpu", "-c", "device,busy", "--csv", f])
    if rc == 0 and len(out.strip().split("\n")) > 1:
        gpu_traces.append(f)
if nbars < 100:
    fail("coverage", "only %d bars read back" % nbars)
else:
    ok("coverage")

# Ascend folders (the NPU twins draw too), read from a copy
NPU = os.path.join(os.path.dirname(os.path.dirname(REF)), "npu", "ascend_data")
asc = sorted(glob.glob(NPU + "/**/rank*_ascend_pt", recursive=True))[:3]
if asc:
    import tempfile
    safe = tempfile.mkdtemp(prefix="tprof-plot-")
    for i, a in enumerate(asc):
        d = os.path.join(safe, "r%d_%s" % (i, os.path.basename(a)))
        shutil.copytree(a, d, symlinks=True)
        t = "npu." + os.path.basename(a) + str(i)
        for view, col in (("kernels", "total"), ("ops", "dev_self")):
            if csv_rows([view, d]):
                check_share("%s.%s" % (view, t), [view, d], col, 90)
        rc, out, err = run(["steps", "--plot", "-w", "60", d])
        ok_ = rc == 0 and "Computing" in out and max(cells(l) for l in out.split("\n")) <= 59
        (ok if ok_ else lambda n: fail(n, "exit %d: %r" % (rc, out[:120])))("steps." + t)
    shutil.rmtree(safe)
else:
    skip("npu", "no Ascend folder under " + NPU)

# widths on the largest traces, every view that draws
big = sorted(traces, key=os.path.getsize)[-2:]
big += [f for f in traces if "gpu_utilization__" in f and f not in big]
for f in big:
    for args in (["steps"], ["kernels"], ["ops"], ["ops", "--group", "shape"], ["ops", "--group", "category"],
                 ["gpu", "--series"], ["gpu", "--series", "25"]):
        for W in (24, 40, 60, 80, 132, None):
            check_width("width.%s.%s.w%s" % (tag(f), "_".join(args).replace("-", ""), W or "pipe"),
                        args + ["--plot", f], W)

# series: totals, tiling, counts, lengths, the raw kernels
for f in gpu_traces:
    t = tag(f)
    check_series("series.default." + t, f, "", want_n=100, raw=os.path.getsize(f) < 30_000_000)
    check_series("series.count7." + t, f, "7", want_n=7)
    ser = check_series("series.10ms." + t, f, "10ms")
    if ser:
        rows = [r for r in ser if r["device"] == ser[0]["device"]]
        lens = [int(r["end"]) - int(r["start"]) for r in rows]
        if any(x != 10_000_000 for x in lens[:-1]) or not 0 < lens[-1] <= 10_000_000:
            fail("series.10ms_lengths." + t, "lengths %s" % lens[:5])
        else:
            ok("series.10ms_lengths." + t)
    check_series_plot("series.plot." + t, f, "", 80)
    check_series_plot("series.plot30." + t, f, "30", 50)
if not gpu_traces:
    fail("series", "no trace with a GPU")

# --series N as the next word (not a file), and left out before a file
if gpu_traces:
    g = gpu_traces[0]
    a, b = csv_rows(["gpu", "--series", "7", g]), csv_rows(["gpu", "--series=7", g])
    (ok if a and a == b else lambda n: fail(n, "--series 7 F differs from --series=7 F"))("series.next_word")
    a, b = csv_rows(["gpu", "--series", g]), csv_rows(["gpu", "--series=", g])
    (ok if a and a == b and len(a) % 100 == 0 else lambda n: fail(n, "--series F: %d rows" % len(a or [])))("series.no_arg")

# a run directory: a block per rank, each label starting with its rank
if len(gpu_traces) >= 2:
    import tempfile
    rd = tempfile.mkdtemp(prefix="tprof-plot-run-")
    for i, g in enumerate(gpu_traces[:2]):
        shutil.copy(g, os.path.join(rd, "worker%d.pt.trace.json%s" % (i, ".gz" if g.endswith(".gz") else "")))
    rc, out, err = run(["steps", "--plot", "-w", "100", rd])
    labs = [l.split("\u2502")[0].split()[:2] for l in out.split("\n") if "\u2502" in l]
    ranks = sorted(set(x[1] for x in labs if x and x[0] == "rank"))
    (ok if rc == 0 and labs and ranks == ["0", "1"] and all(x[0] == "rank" for x in labs)
     else lambda n: fail(n, "exit %d, labels %s" % (rc, labs[:4])))("run.steps_ranks")
    rc, out, err = run(["gpu", "--series", "10", "--plot", "-w", "100", rd])
    caps = re.findall(r"^rank (\d+) device (\S+): busy", out, re.M)
    (ok if rc == 0 and sorted(set(c[0] for c in caps)) == ["0", "1"] else lambda n: fail(n, "captions %s" % caps))("run.series_ranks")
    shutil.rmtree(rd)

# an interval that is not one
for bad in ("0", "-3", "10parsecs", "1.5", "0ms", "2000000"):
    rc, out, err = run(["gpu", "--series=" + bad, traces[0]])
    (ok if rc == 2 and not out else lambda n: fail(n, "exit %d" % rc))("series.bad." + re.sub(r"\W", "_", bad))
rc, out, err = run(["gpu", "--plot", gpu_traces[0] if gpu_traces else traces[0]])
(ok if rc == 2 and "--series" in err else lambda n: fail(n, "exit %d: %s" % (rc, err[:100])))("gpu_plot_needs_series")

# --plot with a format that is not a picture: exit 2, nothing on stdout
f = big[0]
for fmt in (["--csv"], ["--jsonl"], ["--tsv"], ["--markdown"], ["--space"], ["-w", "0"]):
    for view in (["steps"], ["kernels"], ["ops"], ["gpu", "--series"]):
        rc, out, err = run(view + ["--plot"] + fmt + [f])
        name = "format.%s.%s" % (view[0], fmt[-1].strip("-"))
        if rc != 2 or out or "--plot" not in err:
            fail(name, "exit %d, stdout %r, stderr %r" % (rc, out[:60], err[:100]))
        else:
            ok(name)

# the help lists the options
for view, opt in (("steps", "--plot"), ("kernels", "--plot"), ("ops", "--plot"), ("gpu", "--plot"), ("gpu", "--series [INTERVAL]")):
    rc, out, err = run(["help", view])
    (ok if rc == 0 and opt in out else lambda n: fail(n, "not in `tprof help %s`" % view))("help.%s.%s" % (view, opt.split()[0].strip("-")))

# colour: a pipe never, a terminal unless NO_COLOR; less its escapes, the terminal's picture is the pipe's
if shutil.which("script"):
    for args in (["steps"], ["kernels", "--top", "5"], ["gpu", "--series", "40"]):
        name = "tty." + args[0]
        rc, pipe, err = run(args + ["--plot", f])
        def tty(env):
            cmd = "stty cols 80 rows 50 2>/dev/null; exec %s %s --plot %s 2>/dev/null" % (T, " ".join(args), f)
            p = subprocess.run(["script", "-qec", cmd, "/dev/null"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
            return p.stdout.decode("utf-8", "replace").replace("\r\n", "\n")
        colour = tty(ENV)
        plain = tty(dict(ENV, NO_COLOR="1"))
        empty = tty(dict(ENV, NO_COLOR=""))
        stripped = re.sub(r"\x1b\[[0-9;]*m", "", colour)
        if ESC in pipe:
            fail(name + ".pipe", "escapes into a pipe")
        else:
            ok(name + ".pipe")
        if ESC not in colour:
            fail(name + ".colour", "no escape on a terminal: %r" % colour[:200])
        elif stripped != pipe:
            fail(name + ".colour", "less its escapes it is not the pipe's picture")
        else:
            ok(name + ".colour")
        if ESC in plain or plain != pipe:
            fail(name + ".no_color", "NO_COLOR=1: %s" % ("escapes" if ESC in plain else "not the pipe's picture"))
        else:
            ok(name + ".no_color")
        # no-color.org: an empty NO_COLOR does not turn colour off
        (ok if ESC in empty else lambda n: fail(n, "NO_COLOR= (empty) turned colour off"))(name + ".no_color_empty")
    # the terminal's width, not 80, when there is one
    cmd = "stty cols 120 rows 50 2>/dev/null; exec %s kernels --plot %s 2>/dev/null" % (T, f)
    p = subprocess.run(["script", "-qec", cmd, "/dev/null"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=dict(ENV, NO_COLOR="1"))
    wide = max(cells(l) for l in p.stdout.decode("utf-8", "replace").replace("\r\n", "\n").split("\n"))
    (ok if 80 <= wide <= 119 else lambda n: fail(n, "widest line %d on a 120-column terminal" % wide))("tty.width120")

# the memory curve still draws into a pipe
mc = [t for t in traces if "memory_curve" in t]
if mc:
    rc, out, err = run(["memory", "--curve", "--plot", mc[0]])
    braille = any("\u2801" <= c <= "\u28ff" for c in out)
    wide = max(cells(l) for l in out.split("\n")) if out else 0
    # the memory curve is a one-column table of the -w writer: lines up to W (80)
    (ok if rc == 0 and braille and wide <= 80 and ESC not in out
     else lambda n: fail(n, "exit %d, widest %d: %r" % (rc, wide, out[:100])))("memory_curve_pipe")
else:
    skip("memory_curve_pipe", "no memory curve trace")
