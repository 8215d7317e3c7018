#!/bin/sh
# Tests of the build a packager sees (issue: the house, item 5):
#   - plain `make` never runs the package manager (`make -n all` with a PATH
#     whose apt-get/dpkg fail lists no setup-deps step);
#   - CPPFLAGS, CFLAGS and LDFLAGS given to make reach every compile and link;
#   - lib/libtprof.so carries the soname libtprof.so.0;
#   - `make install PREFIX=TMP` then a program built with
#     `pkg-config --cflags --libs tprof` links against the installed shared
#     library and runs (it loads the bundled sample and prints its row count);
#   - `make uninstall PREFIX=TMP` leaves no file behind;
#   - cli/ includes no library header but tprof.h, and is compiled with
#     lib/ alone on its include path (issue: the house, item 4).
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME: why"; run from the repo root.
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

mkdir "$tmp/bin"
for t in apt-get dpkg dpkg-query; do
    printf '#!/bin/sh\necho "%s must not run" >&2; exit 1\n' "$t" > "$tmp/bin/$t"
    chmod +x "$tmp/bin/$t"
done
if PATH="$tmp/bin:$PATH" make -n all 2>&1 | grep -q 'setup-deps\|apt-get'; then
    echo "FAIL build.make-without-package-manager: make all would run setup-deps"
else
    echo "ok build.make-without-package-manager"
fi

# CPPFLAGS, CFLAGS and LDFLAGS reach every compile and link line.
plan=$(make -n -B all CPPFLAGS=-DTP_PKG_CPP CFLAGS="-O1 -DTP_PKG_C" LDFLAGS=-Wl,--as-needed 2>&1)
n_cc=$(printf '%s\n' "$plan" | grep -c ' -c -o ')
n_ok=$(printf '%s\n' "$plan" | grep ' -c -o ' | grep -- '-DTP_PKG_CPP' | grep -c -- '-DTP_PKG_C ')
n_ld=$(printf '%s\n' "$plan" | grep -E -- '-o (cli/tprof|lib/libtprof\.so\.[0-9.]+) ' | grep -c -- '-Wl,--as-needed')
if [ "$n_cc" -gt 0 ] && [ "$n_cc" = "$n_ok" ] && [ "$n_ld" = 2 ]; then
    echo "ok build.flags-honoured"
else
    echo "FAIL build.flags-honoured: $n_ok of $n_cc compiles carry CPPFLAGS and CFLAGS, $n_ld of 2 links LDFLAGS"
fi

# The CLI lives on the public header: no cli/ source includes a header of
# lib/ but tprof.h (its own headers are in cli/).
bad=""
for f in cli/*.c cli/*.h; do
    for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
        [ "$h" = tprof.h ] || [ -f "cli/$h" ] || bad="$bad $f:$h"
    done
done
if [ -z "$bad" ]; then
    echo "ok build.cli-public-header-only"
else
    echo "FAIL build.cli-public-header-only: includes a library header:$bad"
fi
plan=$(make -n -B cli/tprof.o 2>&1 | grep ' -c -o cli/tprof.o')
if printf '%s\n' "$plan" | grep -q -- '-Ilib/'; then
    echo "FAIL build.cli-include-path: cli/ is compiled with a lib/ subfolder on its include path"
else
    echo "ok build.cli-include-path"
fi

if ! command -v readelf >/dev/null 2>&1; then
    echo "skip build.soname: no readelf"
elif readelf -d lib/libtprof.so 2>/dev/null | grep -q 'SONAME.*\[libtprof\.so\.0\]'; then
    echo "ok build.soname"
else
    echo "FAIL build.soname: lib/libtprof.so has no soname libtprof.so.0"
fi

# A sanitizer build (make check-asan) cannot be linked into a plain program:
# the install tests are for the release build.
if nm lib/libtprof.a 2>/dev/null | grep -q '__asan_init\|__ubsan_handle'; then
    echo "skip build.pkg-config: lib/libtprof.a is a sanitizer build (make check-asan)"
    exit 0
fi
if ! command -v pkg-config >/dev/null 2>&1; then
    echo "skip build.pkg-config: no pkg-config"
    exit 0
fi
prefix=$tmp/prefix
if ! make --no-print-directory -s install PREFIX="$prefix" >"$tmp/install.log" 2>&1; then
    echo "FAIL build.install: $(tail -1 "$tmp/install.log")"
    exit 0
fi
cat > "$tmp/use.c" <<'C'
#include <stdio.h>
#include <tprof.h>
int main(int argc, char **argv)
{
    tp_error err;
    tp_store *st = tp_store_new();
    if (!st || argc < 2 || tp_store_load(st, argv[1], &err) || tp_store_link(st, &err)) {
        fprintf(stderr, "use: %s\n", st ? err.msg : "out of memory");
        tp_store_free(st);
        return 2;
    }
    const tp_view *v = tp_view_find("kernels");
    tp_table *t = NULL;
    if (!v || tp_view_build(v, st, &(struct tp_view_opts){0}, &t, &err)) {
        fprintf(stderr, "use: %s\n", v ? err.msg : "no kernels view");
        tp_store_free(st);
        return 2;
    }
    printf("%zu\n", tp_table_rows(t));
    tp_table_free(t);
    tp_store_free(st);
    return 0;
}
C
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
flags=$(pkg-config --cflags --libs tprof 2>&1)
if ! ${CC:-cc} -o "$tmp/use" "$tmp/use.c" $flags 2>"$tmp/cc.log"; then
    echo "FAIL build.pkg-config-link: $(head -1 "$tmp/cc.log")"
elif ! ldd "$tmp/use" 2>/dev/null | grep -q "$prefix/lib/libtprof.so.0" &&
     ! LD_LIBRARY_PATH="$prefix/lib" ldd "$tmp/use" | grep -q "$prefix/lib/libtprof.so.0"; then
    echo "FAIL build.pkg-config-link: the program is not linked against the installed libtprof.so.0"
else
    rows=$(LD_LIBRARY_PATH="$prefix/lib" "$tmp/use" testdata/sample.pt.trace.json 2>&1)
    if [ "$rows" = 3 ]; then
        echo "ok build.pkg-config-link"
    else
        echo "FAIL build.pkg-config-link: the installed library gave '$rows', expected 3 kernel rows"
    fi
fi
# Static linking takes the private dependencies from the .pc file.
static_libs=$(pkg-config --libs --static tprof | sed 's/-ltprof//')
if ${CC:-cc} -o "$tmp/use-static" "$tmp/use.c" $(pkg-config --cflags tprof) "$prefix/lib/libtprof.a" \
        $static_libs 2>"$tmp/cc2.log" && [ "$("$tmp/use-static" testdata/sample.pt.trace.json)" = 3 ]; then
    echo "ok build.pkg-config-static"
else
    echo "FAIL build.pkg-config-static: $(head -1 "$tmp/cc2.log")"
fi

make --no-print-directory -s uninstall PREFIX="$prefix" >/dev/null 2>&1
left=$(find "$prefix" -type f -o -type l | head -3)
if [ -z "$left" ]; then
    echo "ok build.uninstall"
else
    echo "FAIL build.uninstall: left $left"
fi
