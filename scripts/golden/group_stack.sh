#!/bin/sh
# ops --group stack[=N] (issue: a CLI people already know how to use, item
# 3): torch.profiler's key_averages(group_by_stack_n=N), one row per operator
# name and the first N frames of its "Call stack".  Checked against Python on
# the plugin's ResNet-50 trace (recorded with with_stack=True): the frames
# torch's _filter_stack_entry drops are dropped (this trace has
# autograd/__init__.py backward and _make_grads frames), the rows of a name
# add up to its --group name row, and each (name, frames) key has the calls
# a grouping of the trace's own events gives, backward ops keyed by the stack
# of their forward op as torch's _set_backward_stacktraces does (written out
# below on torch's own parent rule, _populate_cpu_children; by sequence
# number alone, as tprof(1) explains).  A trace without stacks
# (TraceLens' BERT) gets the plain table and a note, exit 0, as
# key_averages would give it.
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
T=$top/cli/tprof
REF=$top/../shared/reference
F=$REF/kineto/data/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143566756.pt.trace.json.gz
NS=$REF/peers/other_data/AMD-AGI-TraceLens/tests/traces/mi300/gaunernst_bert-small-uncased__1016001.json.gz
. "$(dirname "$0")/lib.sh"
golden_need group_stack "$(dirname "$F")" "$T" python3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
check() {   # NAME CONDITION-RESULT WHY
    if [ "$2" = 0 ]; then echo "ok group_stack.$1"; else echo "FAIL group_stack.$1: $3"; fi
}

C=name,stack,calls,host_self,host_total,dev_self,dev_total
"$T" ops --csv --header keys -c $C --group stack "$F" >"$tmp/s5.csv" 2>"$tmp/s5.err"; echo $? >"$tmp/s5.rc"
"$T" ops --csv --header keys -c $C --group stack=1 "$F" >"$tmp/s1.csv" 2>/dev/null
"$T" ops --csv --header keys -c $C --group stack=3 "$F" >"$tmp/s3.csv" 2>/dev/null
"$T" ops --csv --header keys -c name,calls,host_self,host_total,dev_self,dev_total "$F" >"$tmp/plain.csv" 2>/dev/null
"$T" ops --csv --group stack "$F" 2>/dev/null | head -1 >"$tmp/header"
if [ -f "$NS" ]; then
    "$T" ops --csv --header keys -c $C --group stack "$NS" >"$tmp/ns.csv" 2>"$tmp/ns.err"; echo $? >"$tmp/ns.rc"
    "$T" ops --csv --header keys -c name,calls,host_total "$NS" >"$tmp/ns_plain.csv" 2>/dev/null
fi
python3 - "$tmp" "$F" <<'PY'
import collections, csv, gzip, json, os, sys
d, F = sys.argv[1:3]
def case(name, ok, why):
    print(("ok group_stack.%s" % name) if ok else ("FAIL group_stack.%s: %s" % (name, why)))
def rows(p):
    return list(csv.DictReader(open(os.path.join(d, p), newline="")))
def ns(v):   # exact microseconds -> ns
    i, _, f = v.partition(".")
    return int(i) * 1000 + int((f + "000")[:3]) * (-1 if v.startswith("-") else 1)

# torch/autograd/profiler_util.py _filter_stack_entry
DROP = [("autograd/__init__", "_make_grads"), ("autograd/__init__", "backward"), ("torch/tensor", "backward"),
        ("_internal/common_utils", "prof_callable"), ("_internal/common_utils", "prof_func_call"),
        ("_internal/common_utils", "prof_meth_call")]
def frames(cs):
    return [f for f in cs.split(";") if f and all(not (a in f and b in f) for a, b in DROP)]

ev = json.load(gzip.open(F))["traceEvents"]
ops = [e for e in ev if e.get("cat") in ("Operator", "cpu_op") and e.get("ph") == "X"]
host = [e for e in ev if e.get("cat") in ("Operator", "cpu_op", "user_annotation") and e.get("ph") == "X"]
span = lambda e: (round(float(e["ts"]) * 1000), round((float(e["ts"]) + float(e["dur"])) * 1000))
parent = {}
for tid in {e["tid"] for e in host}:   # torch's _populate_cpu_children
    cur = []
    for e in sorted((e for e in host if e["tid"] == tid), key=lambda e: (span(e)[0], -span(e)[1])):
        while cur:
            p = cur[-1]
            if span(e)[0] >= span(p)[1] or span(e)[1] > span(p)[1]:
                cur.pop()
            else:
                parent[id(e)] = p
                break
        cur.append(e)
def bw_parent(e):
    while e is not None:
        if e["args"].get("Fwd thread id", 0) != 0:
            return e
        e = parent.get(id(e))
    return None
fwd = {}
for e in sorted(host, key=lambda e: (span(e)[0], -span(e)[1])):
    if bw_parent(e) is None:
        fwd.setdefault(e["args"].get("Sequence number", -1), frames(e["args"].get("Call stack", "")))
def stack(e):   # _set_backward_stacktraces
    p = bw_parent(e)
    return fwd.get(p["args"].get("Sequence number", -1), []) if p else frames(e["args"].get("Call stack", ""))
dropped = sum(1 for e in ops for f in e["args"].get("Call stack", "").split(";") if f and f not in frames(f))
plain = {r["name"]: r for r in rows("plain.csv")}
by_name = collections.Counter(e["name"] for e in ops)
same = {n for n in plain if by_name.get(n) == int(plain[n]["calls"])}   # names whose op set is the trace's

case("exit", open(os.path.join(d, "s5.rc")).read().strip() == "0" and "call stack" not in open(os.path.join(d, "s5.err")).read(),
     "exit %s; stderr %s" % (open(os.path.join(d, "s5.rc")).read().strip(), open(os.path.join(d, "s5.err")).read()[:200]))
hdr = open(os.path.join(d, "header")).read().strip()
case("default_columns", hdr.endswith('"TCEligible","Source Location"') and hdr.startswith('"Name","Calls"'),
     "header %s (key_averages prints the stack last)" % hdr)

for n, f in ((5, "s5.csv"), (3, "s3.csv"), (1, "s1.csv")):
    got = rows(f)
    # 1. a name's rows add up to its --group name row
    sums = collections.defaultdict(lambda: [0] * 5)
    for r in got:
        s = sums[r["name"]]
        s[0] += int(r["calls"])
        for i, k in enumerate(("host_self", "host_total", "dev_self", "dev_total")):
            s[i + 1] += ns(r[k])
    want = {k: [int(r["calls"])] + [ns(r[c]) for c in ("host_self", "host_total", "dev_self", "dev_total")]
            for k, r in plain.items()}
    bad = [k for k in want if sums.get(k) != want[k]]
    case("sums_n%d" % n, not bad and len(got) > len(plain), "%d names whose stack rows do not add up, e.g. %s; %d rows, %d names"
         % (len(bad), bad[:2], len(got), len(plain)))
    # 2. each (name, first n frames) has the calls of the trace's events so keyed
    py = collections.Counter((e["name"], " <- ".join(stack(e)[:n])) for e in ops if e["name"] in same)
    mine = {(r["name"], "" if r["stack"] == "" else r["stack"]): int(r["calls"]) for r in got if r["name"] in same}
    diff = [(k, py.get(k), mine.get(k)) for k in set(py) | set(mine) if py.get(k) != mine.get(k)]
    deep = max(r["stack"].count(" <- ") + 1 for r in got if r["stack"])
    case("keys_n%d" % n, not diff and len(mine) > 50 and deep == n, "%d keys differ from the trace's grouping, "
         "e.g. %s; %d keys; deepest stack %d frames" % (len(diff), diff[:2], len(mine), deep))

s5 = rows("s5.csv")
bw = [r for r in s5 if r["name"].endswith("_backward") and r["stack"]]
case("backward_stacks", len(bw) > 10 and any("_conv_forward" in r["stack"] for r in bw),
     "%d backward rows with their forward's stack" % len(bw))
leak = [r["stack"] for r in s5 if "autograd/__init__" in r["stack"]]
case("filtered", dropped > 0 and not leak, "%d frames to drop in the trace; %d rows still show one" % (dropped, len(leak)))

if os.path.exists(os.path.join(d, "ns.csv")):
    got, pl = rows("ns.csv"), rows("ns_plain.csv")
    err = open(os.path.join(d, "ns.err")).read()
    rc = open(os.path.join(d, "ns.rc")).read().strip()
    case("no_stacks", rc == "0" and "no operator has a call stack" in err and "with_stack=True" in err
         and [(r["name"], r["calls"], r["host_total"]) for r in got] == [(r["name"], r["calls"], r["host_total"]) for r in pl]
         and all(r["stack"] == "" for r in got) and len(got) > 5,
         "exit %s, %d rows vs %d plain; stderr %s" % (rc, len(got), len(pl), err[:200]))
else:
    print("skip group_stack.no_stacks: TraceLens' BERT trace not found")
PY

for g in stack=0 stack=x stack=-2; do
    "$T" ops --group $g "$F" >"$tmp/out" 2>"$tmp/err"; rc=$?
    [ $rc = 2 ] && [ ! -s "$tmp/out" ] && grep -q 'not a positive number of frames' "$tmp/err"
    check "bad_n_$g" $? "exit $rc; $(head -c 200 "$tmp/err")"
done
"$T" ops --group stacks "$F" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q 'stack\[=N\]' "$tmp/err"
check bad_group $? "exit $rc; $(head -c 200 "$tmp/err")"
