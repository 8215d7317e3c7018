#!/bin/sh
# Fuzz regression: every libFuzzer target (tests/fuzz/, built with ASan+UBSan by
# `make fuzz-build`) executes its committed corpus and its regression inputs
# once, so a crash found before can never come back.  Skips when the targets
# are not built (no clang-14 with libFuzzer).
top=$(cd "$(dirname "$0")/../.." && pwd)
if ! ls "$top"/build/fuzz/fuzz_* >/dev/null 2>&1; then
    echo "skip fuzz_regress: the fuzz targets are not built (needs clang-14 with libFuzzer)"
    exit 0
fi
exec sh "$top/tests/fuzz/run" regress kineto kineto_window pydict sqlite ascend store
