#!/bin/sh
# Golden tests of the reading layer on the hostile inputs of
# ../shared/reliability (D1, D6, D7, D14, D18, D19, D21, D3, D13): tprof runs
# on copies in a temporary folder; each case checks the exit status, the
# first line of stderr and what stdout holds.
top=$(cd "$(dirname "$0")/../.." && pwd)
rel=$top/../shared/reliability
tprof=$top/cli/tprof
if [ ! -d "$rel" ]; then
    echo "skip golden.reliability_src: ../shared/reliability is missing"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for f in segv-uaf-devprops-6MB-name.json.gz uaf-devprops-escaped-key.json truncated-half.json.zst \
         gzip-magic-garbage.gz zstd-2GiB-window.json.zst leading-blanks-5000.json duplicate-traceEvents-key.json \
         ubsan-float-cast-ingest_kineto-231.json; do
    cp "$rel/$f" "$tmp/$f"
done
cd "$tmp" || exit 1

# check NAME STATUS STDERR_LINE1 STDOUT_GREP -- runs the command in $cmd
check() {
    name=$1 want_rc=$2 want_err=$3 want_out=$4
    sh -c "$cmd" >out 2>err
    rc=$?
    got_err=$(head -n 1 err)
    if [ "$rc" != "$want_rc" ]; then
        echo "FAIL golden.reliability_src.$name: exit $rc, want $want_rc ($got_err)"
    elif [ "$got_err" != "$want_err" ]; then
        echo "FAIL golden.reliability_src.$name: stderr \"$got_err\", want \"$want_err\""
    elif [ -n "$want_out" ] && ! grep -q -- "$want_out" out; then
        echo "FAIL golden.reliability_src.$name: stdout lacks \"$want_out\""
    else
        echo "ok golden.reliability_src.$name"
    fi
}

# D1: the device name of 6 MB refills the window while its key is held
cmd="'$tprof' info segv-uaf-devprops-6MB-name.json.gz"
check d1_devprops_6MB_name 0 "" "^events 20$"
cmd="gzip -dc segv-uaf-devprops-6MB-name.json.gz | '$tprof' info -"
check d1_devprops_6MB_name_stdin 0 "" "^events 20$"
cmd="'$tprof' info uaf-devprops-escaped-key.json"
check d1_devprops_escaped_key 0 "" "^device.0 "

# D6: the decompressor's error, not "empty file"
cmd="'$tprof' info truncated-half.json.zst"
check d6_zstd_truncated 2 "tprof: truncated-half.json.zst: zstd stream ends early at compressed byte 808" ""
cmd="'$tprof' info gzip-magic-garbage.gz"
# ISA-L reads the whole 10-byte header before it judges the method byte; zlib
# stops 2 bytes after it (see lib/source/inflate.c)
at=4; "$tprof" --version | grep -q "gzip by ISA-L" && at=10
check d6_gzip_garbage 2 "tprof: gzip-magic-garbage.gz: corrupt gzip data at compressed byte $at: unknown compression method" ""
cmd="'$tprof' info zstd-2GiB-window.json.zst"
check d6_zstd_2GiB_window 2 "tprof: zstd-2GiB-window.json.zst: zstd frame needs a window larger than 128 MiB (made with zstd --long?); decompress it first: zstd -d --memory=2048MB" ""

# D7: 5000 blanks before the trace
cmd="'$tprof' info leading-blanks-5000.json"
check d7_leading_blanks 0 "" "^events 20$"

# D14: gzip then zero padding (gzip -t accepts it): same rows as plain
cp "$top/testdata/sample.pt.trace.json" sample.json
gzip -c sample.json > padded.json.gz
head -c 512 /dev/zero >> padded.json.gz
"$tprof" kernels sample.json > plain.out
cmd="'$tprof' kernels padded.json.gz | tee padded.out >/dev/null; cmp plain.out padded.out"
check d14_gzip_zero_padding 0 "" ""

# D18: "traceEvents" twice: the last array only, with a note info shows
cmd="'$tprof' info duplicate-traceEvents-key.json"
check d18_repeated_traceEvents 0 "" "^events 20$"
check d18_repeated_traceEvents_noted 0 "" "last array wins"

# D19: a device memory of 2e37 (past int64) is left out, not cast; the file's
# later invalid UTF-8 is the error
cmd="'$tprof' info ubsan-float-cast-ingest_kineto-231.json"
check d19_huge_number 2 "tprof: ubsan-float-cast-ingest_kineto-231.json: byte 927: invalid UTF-8 in a string" ""

# D21: stdin that is a file starts where its offset is: the second "-" is empty
cmd="'$tprof' info - - < sample.json"
check d21_stdin_offset 2 "tprof: <stdin>: empty file: not a trace" "^events 20$"
if [ "$(grep -c '^events ' out)" != 1 ]; then
    echo "FAIL golden.reliability_src.d21_stdin_read_once: the trace was printed $(grep -c '^events ' out) times"
else
    echo "ok golden.reliability_src.d21_stdin_read_once"
fi

# D3 and D13 need a big trace (~60 MB), and an address-space limit that a
# sanitizer build cannot run under.
if ldd "$tprof" 2>/dev/null | grep -q 'libasan\|libtsan' || nm "$tprof" 2>/dev/null | grep -q __asan_init; then
    echo "skip golden.reliability_src.d13_ulimit: sanitizer build (needs terabytes of address space)"
    exit 0
fi
python3 "$top/scripts/grow-trace" sample.json big.json 60 2>/dev/null
events=$("$tprof" info big.json | sed -n 's/^events \([0-9]*\)$/\1/p')
size_kb=$(( $(stat -c %s big.json) / 1024 ))

# D13: the file is read, not mapped, so its size no longer adds to the
# address space: the load fits in 1.25 times the file's size (peak measured
# at about 0.9 times; mapping it needed about 1.5 times).
cmd="ulimit -v $((size_kb * 5 / 4)) && '$tprof' info big.json"
check d13_ulimit_close_to_peak 0 "" "^events $events$"
# ...and with far too little, the rows read so far stay and the byte is named
cmd="ulimit -v $((size_kb / 3)) && '$tprof' info big.json"
sh -c "$cmd" >out 2>err
rc=$?
kept=$(sed -n 's/^events \([0-9]*\)$/\1/p' out)
if [ "$rc" = 2 ] && grep -q "^tprof: big.json: byte [0-9]*: out of memory" err && [ "${kept:-0}" -gt 0 ]; then
    echo "ok golden.reliability_src.d13_out_of_memory_keeps_rows"
else
    echo "FAIL golden.reliability_src.d13_out_of_memory_keeps_rows: exit $rc, $(head -n 1 err), events ${kept:-none}"
fi

# D3: truncated while tprof reads it.  The race decides which clean end it
# gets (read before the cut, cut before the open, or in the middle: "file
# shrank while reading"); a signal (SIGBUS: 135) is never one of them.  The
# deterministic case is lib/source_test's source.shrink.
cp big.json live.json
"$tprof" info live.json >out 2>err &
pid=$!
truncate -s 10M live.json
wait $pid
rc=$?
if [ "$rc" -ge 128 ]; then
    echo "FAIL golden.reliability_src.d3_shrink_live: killed by signal $((rc - 128))"
elif [ "$rc" = 0 ] || grep -q "file shrank while reading\|unexpected end of input" err; then
    echo "ok golden.reliability_src.d3_shrink_live"
else
    echo "FAIL golden.reliability_src.d3_shrink_live: exit $rc, $(head -n 1 err)"
fi
