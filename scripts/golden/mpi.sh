#!/bin/sh
# Golden test of tprof-mpi (cli/mpi/): `mpirun -n P tprof-mpi VIEW --merge
# RUN` prints the same bytes as `tprof VIEW --merge RUN`, whatever P (1, 3:
# an uneven split, 4, and 9: more processes than ranks), for the views whose
# --merge comes from summaries, in several formats; then a 64-rank run
# (param's 8 DLRM ranks copied with new distributedInfo ranks, in a
# temporary directory) with 4 processes; a file with no rank, a view that is
# not one and a missing --merge are refused.  Skipped where Open MPI or
# tprof-mpi (make mpi) is absent.
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
REF=${REF:-$top/../shared/reference}
. "$top/scripts/golden/lib.sh"
dlrm=$REF/peers/other_data/facebookresearch-param/et_replay/tests/inputs/dlrm_kineto
golden_need golden.mpi "$dlrm" "$top/cli/tprof"
if ! command -v mpirun >/dev/null 2>&1; then
    echo "skip golden.mpi: no mpirun (Open MPI is installed by make mpi)"
    exit 0
fi
if [ ! -x "$top/cli/tprof-mpi" ]; then
    echo "skip golden.mpi: cli/tprof-mpi not built (make mpi)"
    exit 0
fi
tp=$top/cli/tprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# root may run mpirun here (a container); oversubscribe: more processes than
# cores.  Under make check-asan, LeakSanitizer reports what Open MPI itself
# keeps at MPI_Finalize (libmpi, libopen-pal frames only): leak checks are off
# for these processes; tprof's own paths are leak-checked by the other tests.
mpi() {
    n=$1
    shift
    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 TMPDIR=$tmp \
        mpirun --oversubscribe -n "$n" "$top/cli/tprof-mpi" "$@" 2>"$tmp/mpi.err"
}

# same NAME P ARGS...: tprof-mpi's stdout equals tprof's, byte for byte.
same() {
    name=$1 p=$2
    shift 2
    "$tp" "$@" >"$tmp/want" 2>/dev/null
    want_rc=$?
    mpi "$p" "$@" >"$tmp/got"
    rc=$?
    if [ $rc -eq $want_rc ] && [ -s "$tmp/want" ] && cmp -s "$tmp/want" "$tmp/got"; then
        echo "ok golden.mpi.$name -n $p"
    else
        echo "FAIL golden.mpi.$name -n $p: exit $rc (tprof $want_rc), $(diff "$tmp/want" "$tmp/got" | head -3 | tr '\n' ' ') $(head -2 "$tmp/mpi.err" | tr '\n' ' ')"
    fi
}

for p in 1 3 4 9; do
    same kernels "$p" kernels --merge "$dlrm"
done
same ops 4 ops --merge "$dlrm"
same steps 4 steps --merge "$dlrm"
same kernels_props 4 kernels --group props --merge "$dlrm"
same ops_shape 4 ops --group shape --merge "$dlrm"
for v in temporal kernel-types overlap idle; do   # the HTA views' summed timelines
    same "hta_$v" 3 "$v" --merge "$dlrm"
done
same kernels_csv 4 kernels --csv -c name,calls,total,median,std --merge "$dlrm"
same ops_top 3 ops --top 5 --sort calls --merge "$dlrm"

# 64 ranks: each of the 8 ranks eight times, distributedInfo rank and
# world_size rewritten (the traces' only rank marks), names made unique.
run64=$tmp/run64
mkdir -p "$run64"
i=0
for copy in 0 1 2 3 4 5 6 7; do
    for f in "$dlrm"/worker*.pt.trace.json; do
        sed -e "s/\"rank\": [0-9]*, \"world_size\": 8/\"rank\": $i, \"world_size\": 64/" "$f" \
            >"$run64/trace_$i.pt.trace.json"
        i=$((i + 1))
    done
done
same run64_kernels 4 kernels --merge "$run64"
same run64_steps 4 steps --merge "$run64"
same run64_idle 4 idle --merge "$run64"

# Refusals: exit 2 and nothing on stdout.
norank=$tmp/norank
mkdir -p "$norank"
sed -e 's/"distributedInfo": {[^}]*},//' "$dlrm/worker0_step_12.1694128201545.pt.trace.json" >"$norank/a.pt.trace.json"
cp "$norank/a.pt.trace.json" "$norank/b.pt.trace.json"
for case in "norank kernels --merge $norank" "noview kernal --merge $dlrm" "nomerge kernels $dlrm"; do
    name=${case%% *}
    # shellcheck disable=SC2086
    out=$(mpi 2 ${case#* })
    rc=$?
    [ $rc -ne 0 ] && [ -z "$out" ] && echo "ok golden.mpi.refuse.$name" ||
        echo "FAIL golden.mpi.refuse.$name: rc $rc, stdout '$(echo "$out" | head -1)'"
done
