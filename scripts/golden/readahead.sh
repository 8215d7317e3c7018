#!/bin/sh
# Golden tests of the reader thread (lib/source/readahead.c, source.c):
# tprof with the thread (TPROF_THREADS=2: one reader, however busy the
# machine) and with TPROF_THREADS=1 (no thread) writes the same
# stdout, the same stderr and the same exit status, on a grown trace plain,
# gzip'd and zstd'd, whole, cut in half and corrupt in the middle, and on the
# biggest compressed reference inputs; and the thread is there (strace)
# where it should be and only there.
top=$(cd "$(dirname "$0")/../.." && pwd)
tprof=$top/cli/tprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

# a 40 MB trace: its gzip and zstd (about 1.5 and 1 MB) and their first 3/4
# past the 512 KiB from which a compressed file gets the thread; the plain
# file gets none, and must print the same
if ! python3 "$top/scripts/grow-trace" "$top/testdata/sample.pt.trace.json" big.json 40 2>/dev/null; then
    echo "skip golden.readahead: python3 cannot grow the trace"
    exit 0
fi
gzip -6 -c big.json > big.json.gz
inputs="big.json big.json.gz"
if command -v zstd >/dev/null 2>&1; then
    zstd -q -3 -c big.json > big.json.zst
    inputs="$inputs big.json.zst"
else
    echo "skip golden.readahead.zstd: no zstd command"
fi
# broken copies: the first 3/4, and a few bytes flipped in the middle (the
# rows before the fault are printed, then the error: both must match)
for f in $inputs; do
    case $f in *.json) continue ;; esac
    n=$(stat -c %s "$f")
    head -c $((n * 3 / 4)) "$f" > "cut-$f"
    cp "$f" "bad-$f"
    printf '\377\000\377\000\125\252' | dd of="bad-$f" bs=1 seek=$((n / 2)) conv=notrunc 2>/dev/null
    inputs="$inputs cut-$f bad-$f"
done
head -c 30000000 big.json > cut-big.json
inputs="$inputs cut-big.json"

# both ways: stdout, stderr and status the same; NAME WANT (ok / error)
same() {
    name=$1 want=$2
    shift 2
    TPROF_THREADS=1 "$tprof" "$@" > one.out 2> one.err
    rc1=$?
    TPROF_THREADS=2 "$tprof" "$@" > two.out 2> two.err
    rc2=$?
    if [ "$rc1" != "$rc2" ] || ! cmp -s one.out two.out || ! cmp -s one.err two.err; then
        echo "FAIL golden.readahead.$name: TPROF_THREADS=1 exit $rc1, $(head -c 200 one.err | head -n 1); thread exit $rc2, $(head -c 200 two.err | head -n 1)"
    elif [ "$want" = error ] && { [ "$rc2" = 0 ] || [ ! -s two.err ]; }; then
        echo "FAIL golden.readahead.$name: a broken input read without an error"
    elif [ "$want" = ok ] && [ "$rc2" != 0 ]; then
        echo "FAIL golden.readahead.$name: exit $rc2: $(head -n 1 two.err)"
    else
        echo "ok golden.readahead.$name"
    fi
}

for f in $inputs; do
    want=ok
    case $f in cut-*|bad-*) want=error ;; esac
    same "$f.default" $want "$f"
    same "$f.kernels_csv" $want kernels --csv "$f"
    same "$f.info" $want info "$f"
done

# The biggest compressed reference traces (each over 2 MB of gzip: well
# past the cut-off), read in place.
ref=$top/../shared/reference
if [ -d "$ref" ]; then
    k=0
    for f in $(find "$ref" -type f -name '*.json.gz' -size +2M | sort | head -n 6); do
        k=$((k + 1))
        same "reference$k.default" ok "$f"
        same "reference$k.ops_csv" ok ops --csv "$f"
    done
    [ $k -gt 0 ] || echo "FAIL golden.readahead.reference: no compressed reference trace over 2 MB"
else
    echo "skip golden.readahead.reference: ../shared/reference is missing"
fi

# The thread is started for the big compressed inputs, the cut ones too, not
# for a plain file (source.c says why), a small one, nor with
# TPROF_THREADS=1 (the default view starts no other thread on one trace).
clones() {
    strace -f -qq -e trace=clone,clone3 -o trace.txt "$@" > /dev/null 2>&1
    grep -c 'clone' trace.txt
}
if ! command -v strace >/dev/null 2>&1 || ! strace -f -qq -e trace=clone,clone3 -o /dev/null true 2>/dev/null; then
    echo "skip golden.readahead.thread_started: strace is missing or not allowed"
elif [ "$(nproc)" -lt 2 ]; then
    echo "skip golden.readahead.thread_started: one core"
else
    big=
    for f in $inputs; do
        big="$big$(clones env TPROF_THREADS=2 "$tprof" "$f")"
    done
    one=$(clones env TPROF_THREADS=1 "$tprof" big.json.gz)
    small=$(clones env TPROF_THREADS=2 "$tprof" "$top/testdata/sample.pt.trace.json")
    want=$(for f in $inputs; do case $f in *.json) printf 0 ;; *) printf 1 ;; esac; done)
    if [ "$big" = "$want" ] && [ "$one" = 0 ] && [ "$small" = 0 ]; then
        echo "ok golden.readahead.thread_started"
    else
        echo "FAIL golden.readahead.thread_started: threads started: big inputs $big (want $want), TPROF_THREADS=1 $one (want 0), small $small (want 0)"
    fi
fi
