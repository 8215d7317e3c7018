#!/bin/sh
# Golden tests of the persistent store (`tprof import FILE -o X.tprof`):
#   - round trip: for real inputs of every kind (the bundled sample, the
#     plugin's V100 ResNet-50 trace, TraceLens' B200 and MI300X traces, an
#     nvprof dump, an Nsight Systems export, a PyProf dict, Ascend folders in
#     text (Level0, and Level1 with PMU columns) and database form, and a
#     trace cut in half, TraceLens' OWLv2 trace and a vLLM graph replay), every view prints the
#     same stdout, the same stderr (the path aside) and the same exit status
#     from the .tprof as from the input itself; `info` differs only in its
#     file row;
#   - `modules` on a store without the Module view's tree (written before
#     tprof stored it) prints the same bytes as on the trace;
#   - the store is at most 0.15 of the size of the JSON it came from;
#   - `tprof report` writes one file per view that applies, and each equals
#     the view run on its own;
#   - a damaged store (a flipped byte, cut short, a newer format version, an
#     index pointing past its table) is refused with a message naming the
#     file and the byte, exit 2, and nothing else is printed.
# SQLite inputs are copied to a temporary folder first: nothing is written
# beside ../shared.  Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why".
top=$(cd "$(dirname "$0")/../.." && pwd)
REF=${REF:-$top/../shared/reference}
T=$top/cli/tprof
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

views="prof info kernels ops steps dist gpu advice memory modules temporal kernel-types overlap idle launches queue"
variants="kernels:--group=props kernels:--group=all ops:--group=shape dist:--comm memory:--curve memory:--events
          modules:--tree modules:--csv"

# run VIEW-SPEC INPUT OUTPREFIX: stdout, stderr (paths made neutral) and status
# (its variables are its own: sh has no locals, and roundtrip's $in must
# stay the trace, not become the store of the previous call)
run() {
    rspec=$1 rin=$2 o=$3 orig=${4:-$2}
    v=${rspec%%:*}
    extra=""
    [ "$v" != "$rspec" ] && extra=$(echo "${rspec#*:}" | tr '=' ' ')
    # shellcheck disable=SC2086
    "$T" "$v" $extra "$rin" >"$o.out" 2>"$o.err"
    echo $? >"$o.rc"
    sed -i -e "s|$rin|INPUT|g" -e "s|$orig|INPUT|g" "$o.err"   # a stored load error names the trace
    if [ "$v" = info ]; then
        grep -v '^file \|^origin ' "$o.out" >"$o.tmp"; mv "$o.tmp" "$o.out"
    fi
}

roundtrip() {   # NAME INPUT
    name=$1 in=$2
    if [ ! -e "$in" ]; then
        echo "skip store.roundtrip.$name: $in is missing"
        return
    fi
    st=$tmp/$name.tprof
    "$T" import "$in" -o "$st" >/dev/null 2>"$tmp/imp.err"
    if [ ! -s "$st" ]; then
        echo "FAIL store.roundtrip.$name: import wrote nothing: $(head -1 "$tmp/imp.err")"
        return
    fi
    bad=""
    for spec in $views $variants; do
        run "$spec" "$in" "$tmp/a"
        run "$spec" "$st" "$tmp/b" "$in"
        for k in out err rc; do
            if ! cmp -s "$tmp/a.$k" "$tmp/b.$k"; then
                bad="$bad $spec($k)"
            fi
        done
    done
    if [ -z "$bad" ]; then
        echo "ok store.roundtrip.$name"
    else
        echo "FAIL store.roundtrip.$name: differs from the input in:$bad"
    fi
}

# modules_old_store INPUT: the store holds the Module view's tree
# (opt.model.mod.*); a store without it (as tprof wrote them before) prints
# the same bytes, computed from its columns.
modules_old_store() {
    in=$1
    if [ ! -e "$in" ]; then
        echo "skip store.modules-old-store: $in is missing"
        return
    fi
    "$T" import "$in" -o "$tmp/mod.tprof" 2>/dev/null
    has=$(python3 - "$tmp/mod.tprof" "$tmp/mod-old.tprof" <<'PY'
import struct, sys
src = open(sys.argv[1], "rb").read()
out = bytearray(src[:16]); p = 16; dropped = 0
while True:
    (nlen,) = struct.unpack_from("<H", src, p)
    if nlen == 0:
        out += src[p:]; break
    name = src[p+2:p+2+nlen].decode()
    zlen = struct.unpack_from("<IIQQI", src, p+2+nlen)[3]
    end = p + 2 + nlen + 28 + zlen
    if name.startswith("opt.model.mod."):
        dropped += 1
    else:
        out += src[p:end]
    p = end
open(sys.argv[2], "wb").write(out)
print(dropped)
PY
)
    bad=""
    for spec in modules modules:--tree modules:--csv; do
        run "$spec" "$in" "$tmp/a"
        run "$spec" "$tmp/mod-old.tprof" "$tmp/b" "$in"
        for k in out err rc; do
            cmp -s "$tmp/a.$k" "$tmp/b.$k" || bad="$bad $spec($k)"
        done
    done
    if [ "$has" = 5 ] && [ -z "$bad" ] && [ -s "$tmp/a.out" ]; then
        echo "ok store.modules-old-store"
    else
        echo "FAIL store.modules-old-store: ${has:-no} opt.model.mod sections (5 expected); differs:$bad"
    fi
}

. "$(dirname "$0")/lib.sh"
golden_need store "" "$T"
roundtrip sample "$top/testdata/sample.pt.trace.json"
if [ ! -d "$REF" ]; then
    echo "skip store.reference: $REF is missing"
else
    roundtrip resnet50-v100 "$REF/kineto/data/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz"
    TL=$REF/peers/other_data/AMD-AGI-TraceLens/tests/traces
    roundtrip b200-eager "$TL/b200/eager_trace.json.gz"
    roundtrip mi300-bert "$TL/mi300/gaunernst_bert-small-uncased__1016001.json.gz"
    # OWLv2: 9,000 python frames, nested nn.Modules (what `modules` reads from the store)
    OWL=$TL/mi300/google_owlv2-large-patch14-ensemble__1016001.json.gz
    roundtrip owlv2 "$OWL"
    modules_old_store "$OWL"
    # a graph replay: the coverage note names the hipGraphLaunch call (the names
    # asked for by the note, not by views that read none: modules, ops, prof)
    roundtrip vllm-graph "$TL/inference/vllm_decode_full/graph_execution.json.gz"
    for f in pyprof/data/josiahdavis_profiling-lm/17ed9e2/net.sql pyprof/data/golden/qa_data.dict \
             pyprof/data/synthetic_nsys_from_17ed9e2/synthetic_nsys_from_nvprof_17ed9e2.sqlite; do
        [ -f "$REF/$f" ] && cp "$REF/$f" "$tmp/"
    done
    roundtrip nvprof "$tmp/net.sql"
    roundtrip pydict "$tmp/qa_data.dict"
    roundtrip nsys "$tmp/synthetic_nsys_from_nvprof_17ed9e2.sqlite"
    MS="$REF/npu/ascend_data/xiaobingling93-pixel+Ascend-msinsight/test/data/pytorch"
    if [ -d "$MS/text/level0/rank0_ascend_pt" ]; then
        cp -r "$MS/text/level0/rank0_ascend_pt" "$tmp/ascend_text"
        roundtrip ascend-text "$tmp/ascend_text"
    else
        echo "skip store.roundtrip.ascend-text: no msinsight text folder"
    fi
    # Level1: kernel_details.csv with HF32 Eligible, Context ID and PMU columns
    if [ -d "$MS/text/level1/rank0_ascend_pt" ]; then
        cp -r "$MS/text/level1/rank0_ascend_pt" "$tmp/ascend_pmu"
        roundtrip ascend-pmu "$tmp/ascend_pmu"
    else
        echo "skip store.roundtrip.ascend-pmu: no msinsight level1 folder"
    fi
    if [ -d "$MS/db/level0/rank0_ascend_pt" ]; then
        cp -r "$MS/db/level0/rank0_ascend_pt" "$tmp/ascend_db"
        roundtrip ascend-db "$tmp/ascend_db"
    else
        echo "skip store.roundtrip.ascend-db: no msinsight db folder"
    fi
    # A trace cut in half: the store keeps the rows and says "truncated" again.
    gzip -dc "$REF/kineto/data/tb_plugin/samples/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz" \
        >"$tmp/full.json"
    head -c $(($(wc -c <"$tmp/full.json") / 2)) "$tmp/full.json" >"$tmp/half.json"
    roundtrip truncated "$tmp/half.json"

    # Size: the store against the JSON text it came from.
    "$T" import "$tmp/full.json" -o "$tmp/full.tprof" 2>/dev/null
    js=$(wc -c <"$tmp/full.json") ss=$(wc -c <"$tmp/full.tprof")
    if [ "$ss" -gt 0 ] && [ $((ss * 100)) -le $((js * 15)) ]; then
        echo "ok store.size ($ss bytes for $js of JSON: $((ss * 1000 / js))/1000)"
    else
        echo "FAIL store.size: $ss bytes for $js of JSON (more than 0.15)"
    fi
fi

# A run directory becomes a directory of stores, itself a run: the same
# tables per rank and merged (param's 8-rank DLRM run).
RUN=$REF/peers/other_data/facebookresearch-param/et_replay/tests/inputs/dlrm_kineto
if [ -d "$RUN" ]; then
    "$T" import "$RUN" -o "$tmp/run_st" 2>"$tmp/run.err"
    n=$(ls "$tmp/run_st" 2>/dev/null | grep -c '\.tprof$')
    bad=""
    for spec in kernels steps dist dist:--comm kernels:--merge ops:--merge temporal; do
        v=${spec%%:*}
        extra=""
        [ "$v" != "$spec" ] && extra=${spec#*:}
        # shellcheck disable=SC2086
        # (the coverage lines name each rank's file, whose extension differs
        # in a store directory; store.roundtrip compares them file by file)
        a=$("$T" "$v" $extra "$RUN" >"$tmp/a.txt" 2>&1; rc=$?; grep -v 'of kernel time attributed to operators' "$tmp/a.txt"
            echo "rc=$rc")
        # shellcheck disable=SC2086
        b=$("$T" "$v" $extra "$tmp/run_st" >"$tmp/b.txt" 2>&1; rc=$?; sed "s|$tmp/run_st|$RUN|g" "$tmp/b.txt" |
            grep -v 'of kernel time attributed to operators'; echo "rc=$rc")
        [ "$a" = "$b" ] || bad="$bad $spec"
    done
    if [ "$n" = 8 ] && [ -z "$bad" ]; then
        echo "ok store.run (8 rank stores, 7 views the same)"
    else
        echo "FAIL store.run: $n stores; differs:$bad $(head -1 "$tmp/run.err")"
    fi
else
    echo "skip store.run: $RUN is missing"
fi

# report: every file it writes equals the view on its own.
in=$top/testdata/sample.pt.trace.json
if "$T" report "$in" -o "$tmp/rep" 2>"$tmp/rep.err" && [ -f "$tmp/rep/summary.txt" ]; then
    if golden_report_same "$T" "$in" "$tmp/rep" space 5 "$tmp/alone"; then
        echo "ok store.report ($n views written, each as the view prints it)"
    else
        echo "FAIL store.report: $n files, summary names $want; differ:$bad"
    fi
else
    echo "FAIL store.report: $(head -1 "$tmp/rep.err")"
fi

# Damaged stores are refused with the file and the byte; stdout stays empty.
"$T" import "$in" -o "$tmp/s.tprof" 2>/dev/null
damaged() {   # NAME FILE EXPECTED-STDERR-PATTERN
    "$T" kernels "$2" >"$tmp/d.out" 2>"$tmp/d.err"
    rc=$?
    if [ $rc = 2 ] && [ ! -s "$tmp/d.out" ] && grep -q "$3" "$tmp/d.err"; then
        echo "ok store.damaged.$1"
    else
        echo "FAIL store.damaged.$1: exit $rc, stdout $(wc -c <"$tmp/d.out") bytes, stderr: $(head -1 "$tmp/d.err")"
    fi
}
size=$(wc -c <"$tmp/s.tprof")
cp "$tmp/s.tprof" "$tmp/flip.tprof"
# the last byte of the last section's zstd frame (the end marker is the 10
# bytes after it): inside checksummed data whatever the layout of the sections
printf '\377' | dd of="$tmp/flip.tprof" bs=1 seek=$((size - 11)) conv=notrunc 2>/dev/null
damaged flipped-byte "$tmp/flip.tprof" "flip.tprof: byte [0-9]*: checksum mismatch"
head -c $((size - 20)) "$tmp/s.tprof" >"$tmp/cut.tprof"
damaged cut-short "$tmp/cut.tprof" "cut.tprof: byte [0-9]*: .*truncated"
cp "$tmp/s.tprof" "$tmp/v9.tprof"
printf '\011' | dd of="$tmp/v9.tprof" bs=1 seek=8 conv=notrunc 2>/dev/null
damaged newer-version "$tmp/v9.tprof" "v9.tprof: .tprof format version 9; this tprof reads version 3"
# An index past its table with valid checksums: rewrite one column.
python3 - "$tmp/s.tprof" "$tmp/idx.tprof" <<'PY'
import struct, sys, zlib
try:
    import zstandard  # noqa: F401  (not needed: we write an uncompressed-frame below)
except ImportError:
    pass
src = open(sys.argv[1], "rb").read()
out = bytearray(src[:16]); p = 16
def raw_frame(data):
    # A zstd frame with one raw block: magic, FHD (single segment, 4-byte size), size, block header.
    fhd = 0x20 | 0x80   # single segment, FCS 4 bytes
    hdr = struct.pack("<IB", 0xFD2FB528, fhd) + struct.pack("<I", len(data))
    bh = (len(data) << 3) | (0 << 1) | 1          # last block, raw
    return hdr + struct.pack("<I", bh)[:3] + data
while True:
    (nlen,) = struct.unpack_from("<H", src, p)
    if nlen == 0:
        out += src[p:]; break
    name = src[p+2:p+2+nlen].decode()
    width, flags, count, zlen, crc = struct.unpack_from("<IIQQI", src, p+2+nlen)
    body = src[p+2+nlen+28 : p+2+nlen+28+zlen]
    if name == "ev.name":
        data = struct.pack("<%dI" % count, *([0x7fffffff] * count))
        body = raw_frame(data)
        crc = zlib.crc32(body, zlib.crc32(struct.pack("<H", nlen) + name.encode() + struct.pack("<IIQQ", width, flags, count, len(body))))
        zlen = len(body)
    out += struct.pack("<H", nlen) + name.encode() + struct.pack("<IIQQI", width, flags, count, zlen, crc) + body
    p += 2 + nlen + 28 + len(src[p+2+nlen+28 : p+2+nlen+28+struct.unpack_from("<IIQQI", src, p+2+nlen)[3]])
open(sys.argv[2], "wb").write(out)
PY
damaged index-past-table "$tmp/idx.tprof" "idx.tprof: byte [0-9]*: column ev.name, value 0: 2147483647 points past its table"

# A view reads a store lazily: a section it asks for is checked then (the
# message names the section), one it never reads is not read at all, and a
# view that reads everything (info) refuses the store as a whole read does.
at=$(python3 - "$tmp/s.tprof" "$tmp/lazy.tprof" <<'PY'
import struct, sys
src = bytearray(open(sys.argv[1], "rb").read()); p = 16
while True:
    (nlen,) = struct.unpack_from("<H", src, p)
    if nlen == 0:
        break
    name = src[p+2:p+2+nlen].decode()
    zlen = struct.unpack_from("<IIQQI", src, p+2+nlen)[3]
    if name == "ev.name":
        src[p + 2 + nlen + 28 + zlen // 2] ^= 0x55   # inside the frame: the CRC no longer matches
        print(p)
    p += 2 + nlen + 28 + zlen
open(sys.argv[2], "wb").write(src)
PY
)
damaged lazy-section "$tmp/lazy.tprof" "lazy.tprof: byte $at: checksum mismatch: the file is damaged (section ev.name)"
"$T" steps "$tmp/lazy.tprof" >"$tmp/l.out" 2>"$tmp/l.err"; lrc=$?
"$T" steps "$tmp/s.tprof" >"$tmp/g.out" 2>/dev/null
if [ -n "$at" ] && [ $lrc = 0 ] && cmp -s "$tmp/l.out" "$tmp/g.out"; then
    echo "ok store.lazy.unread-section-unread"
else
    echo "FAIL store.lazy.unread-section-unread: steps exit $lrc: $(head -1 "$tmp/l.err")"
fi
"$T" info "$tmp/lazy.tprof" >"$tmp/i.out" 2>"$tmp/i.err"; irc=$?
if [ $irc = 2 ] && grep -q "byte $at: checksum mismatch: the file is damaged (section ev.name)" "$tmp/i.err"; then
    echo "ok store.lazy.whole-read-refused"
else
    echo "FAIL store.lazy.whole-read-refused: info exit $irc: $(head -1 "$tmp/i.err")"
fi
