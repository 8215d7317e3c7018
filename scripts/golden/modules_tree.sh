#!/bin/sh
# Golden tests: `modules --tree` and `lightning --tree`, the module tree drawn
# (issue: the plugin's Module view, item 2).  On every real trace with
# nn.Module events in ../shared/reference/kineto/data and on larger ones
# from TraceLens' test traces:
#   - the tree has the table's rows, depths and host/device totals, and each
#     share is the module's device total (host total where its top-level
#     module has no device time) over its top-level module's;
#   - each line's branch drawing has 3 cells per level of depth, "└─"/"`-"
#     exactly where the module has no later sibling, "│"/"|" exactly where
#     the ancestor of that level has one; the name after it is the module's
#     (or that name cut in the middle, "…" / "...");
#   - the bar is as long as its share of the top-level module's bar;
#   - with -w W no line is wider than W cells (W = 40 ... 200);
#   - ASCII (--ascii, LANG/LC_ALL not UTF-8) has no byte above 0x7f in the
#     drawing; LC_ALL overrides LANG.
# Prints one "ok NAME" / "FAIL NAME: why" / "skip NAME: why" line per case.
REF=${REF:-../shared/reference}
. "$(dirname "$0")/lib.sh"
golden_python modules_tree "" "./cli/tprof" "$REF" <<'PY'
import csv, glob, io, os, subprocess, sys, unicodedata
from golden import run_cases

REF = sys.argv[1]
TPROF = "./cli/tprof"
UTF8 = dict(os.environ, LANG="C.UTF-8", LC_ALL="", LC_CTYPE="")
ASCII = dict(os.environ, LANG="C", LC_ALL="", LC_CTYPE="")

def report(name, why):
    print("ok modules_tree.%s" % name if why is None else "FAIL modules_tree.%s: %s" % (name, why))

def run(args, env=UTF8):
    p = subprocess.run([TPROF] + args, capture_output=True, env=env)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), p.stdout

def table(view, path, cols, *extra, env=UTF8):
    rc, out, err, _ = run([view, "--csv", "--header", "keys", "-c", cols, *extra, path], env)
    if rc != 0:
        raise RuntimeError("exit %d: %s" % (rc, err.strip()[:200]))
    return list(csv.DictReader(io.StringIO(out)))

def cells(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 0 if unicodedata.combining(c) else 1 for c in s)

BRANCH = {"utf8": ("├─ ", "└─ ", "│  "), "ascii": ("|- ", "`- ", "|  ")}

def later_sibling(depths, i):
    """Has row i a later sibling (a later row of its depth before one above it)?"""
    for d in depths[i + 1:]:
        if d < depths[i]:
            return False
        if d == depths[i]:
            return True
    return False

def name_matches(shown, full, ell):
    if shown == full:
        return True
    if ell not in shown:
        return False
    head, tail = shown.split(ell, 1)
    return full.startswith(head) and full.endswith(tail) and len(head) + len(tail) < len(full)

def check_tree(view, path, mode):
    env = UTF8 if mode == "utf8" else ASCII
    ell = "…" if mode == "utf8" else "..."
    plain = table(view, path, "module,depth,host_total,dev_total")
    tree = table(view, path, "tree,depth,host_total,dev_total,share,bar", "--tree", env=env)
    if len(plain) != len(tree):
        return "%d rows in the tree, %d in the table" % (len(tree), len(plain))
    if not plain:
        return "no rows"
    depths = [int(r["depth"]) for r in plain]
    first, last, more = BRANCH[mode]
    root = None
    for i, (p, t) in enumerate(zip(plain, tree)):
        where = "row %d (%s)" % (i, p["module"].strip())
        for k in ("depth", "host_total", "dev_total"):
            if p[k] != t[k]:
                return "%s: %s %s in the tree, %s in the table" % (where, k, t[k], p[k])
        d = depths[i]
        if d == 0:
            root = i
        # ancestors' later siblings, from the depth sequence
        anc, want = d, []
        for j in range(i - 1, -1, -1):
            if depths[j] < anc:
                anc = depths[j]
                if anc >= 1:
                    want.append(more if later_sibling(depths, j) else "   ")
        want.reverse()
        if d:
            want.append(first if later_sibling(depths, i) else last)
        prefix = "".join(want)
        text = t["tree"]
        if not text.startswith(prefix):
            return "%s: drawn %r, wants the prefix %r" % (where, text, prefix)
        if not name_matches(text[len(prefix):], p["module"].strip(), ell):
            return "%s: name %r for %r" % (where, text[len(prefix):], p["module"].strip())
        if mode == "ascii" and any(ord(c) > 127 for c in prefix + t["bar"]):
            return "%s: non-ASCII drawing %r %r" % (where, prefix, t["bar"])
        # the share of the top-level module's device (else host) total
        r = plain[root]
        use_dev = float(r["dev_total"]) > 0
        base = float(r["dev_total"] if use_dev else r["host_total"])
        val = float(p["dev_total"] if use_dev else p["host_total"])
        share = 100.0 * val / base if base > 0 else 0.0
        if abs(float(t["share"]) - share) > 0.051:
            return "%s: share %s, wants %.3f" % (where, t["share"], share)
        # the bar: full cells plus an eighth block, against the root's
        full = cells(tree[root]["bar"])
        if mode == "utf8":
            eighths = sum(8 if c == "█" else 0x2590 - ord(c) for c in t["bar"])
            want_e = round(min(share, 100.0) / 100 * full * 8)
            if base > 0 and abs(eighths - want_e) > 1:
                return "%s: bar of %d/8 cells, wants %d/8 (share %.2f%% of %d)" % (where, eighths, want_e, share, full)
        elif base > 0 and abs(len(t["bar"]) - min(share, 100.0) / 100 * full) > 1:
            return "%s: bar of %d cells, wants %.1f" % (where, len(t["bar"]), share / 100 * full)
    return None

def check_width(view, path):
    for W in (40, 60, 80, 100, 150, 200):
        for env in (UTF8, ASCII):
            rc, out, err, _ = run(["-w", str(W), view, "--tree", path], env)
            if rc != 0:
                return "-w %d: exit %d: %s" % (W, rc, err.strip()[:120])
            wide = [l for l in out.splitlines() if cells(l) > W]
            if wide:
                return "-w %d: %d lines wider, first %d cells: %r" % (W, len(wide), cells(wide[0]), wide[0][:80])
            if W >= 100 and "Bar" not in out.splitlines()[0]:
                return "-w %d: the bar column was left out: %r" % (W, out.splitlines()[0])
    return None

# real traces: kineto's with module events, TraceLens' larger ones
cases = []
for f in sorted(glob.glob(os.path.join(REF, "kineto", "data", "**", "*.json*"), recursive=True)):
    try:
        if table("modules", f, "module"):
            cases.append(f)
    except Exception:
        pass
T = os.path.join(REF, "peers", "other_data", "AMD-AGI-TraceLens", "tests", "traces")
for rel in ("mi300/google_owlv2-large-patch14-ensemble__1016001.json.gz", "mi300/resnet_act_checkpoint.json.gz",
            "mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", "b200/eager_trace.json.gz",
            "inference/xdit_sd_3.5/profile_trace_rank_0.json.gz"):
    f = os.path.join(T, rel)
    if os.path.exists(f):
        cases.append(f)
    else:
        print("skip modules_tree.%s: %s missing" % (os.path.basename(f), f))
if not cases:
    print("skip modules_tree.real: no trace with module events under %s" % REF)

tests = []
for f in cases:
    tag = os.path.basename(f).split(".")[0][:40]
    tests += [("%s.utf8" % tag, lambda f=f: check_tree("modules", f, "utf8")),
              ("%s.ascii" % tag, lambda f=f: check_tree("modules", f, "ascii")),
              ("%s.width" % tag, lambda f=f: check_width("modules", f))]
# the Lightning view's tree on the hand-made Lightning traces (lightning.sh)
for f in ("testdata/lightning.pt.trace.json", "testdata/lightning_stack.pt.trace.json"):
    tag = os.path.basename(f).split(".")[0]
    tests += [("lightning.%s.utf8" % tag, lambda f=f: check_tree("lightning", f, "utf8")),
              ("lightning.%s.ascii" % tag, lambda f=f: check_tree("lightning", f, "ascii")),
              ("lightning.%s.width" % tag, lambda f=f: check_width("lightning", f))]

def locale_choice():
    f = "testdata/lightning.pt.trace.json"
    box = lambda env: "├─" in run(["lightning", "--tree", "--csv", f], env)[1]
    cases = [({"LANG": "C.UTF-8"}, True), ({"LANG": "en_US.utf8"}, True), ({"LANG": "C"}, False),
             ({}, False), ({"LC_ALL": "C", "LANG": "C.UTF-8"}, False), ({"LC_ALL": "C.UTF-8", "LANG": "C"}, True),
             ({"LC_CTYPE": "C.UTF-8", "LANG": "C"}, True), ({"LC_ALL": "", "LANG": "de_DE.UTF-8"}, True)]
    for e, want in cases:
        env = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_CTYPE")}
        env.update(e)
        if box(env) != want:
            return "%r: box drawing %s" % (e, "missing" if want else "in a non-UTF-8 locale")
    rc, out, err, raw = run(["lightning", "--tree", "--ascii", "--csv", f], UTF8)
    if rc != 0 or any(b > 127 for b in raw):
        return "--ascii in a UTF-8 locale: exit %d, non-ASCII %r" % (rc, out[:120])
    return None

def help_lists():
    for v in ("modules", "lightning"):
        rc, out, err, _ = run(["help", v])
        text = out + err
        for opt in ("--tree", "--ascii"):
            if opt not in text:
                return "tprof help %s does not list %s" % (v, opt)
    return None

tests += [("locale", locale_choice), ("help", help_lists)]
run_cases(tests, report)
PY
