/* fuzz_file.c — one input file, whatever it holds: kineto JSON (plain, gzip,
 * zstd), a PyProf dict, an nvprof or nsys SQLite dump.  Built once per
 * importer (fuzz_kineto, fuzz_pydict, fuzz_sqlite, fuzz_store for .tprof
 * stores: its build skips the stores' CRCs) so each has its own corpus
 * and coverage; the content decides the importer, as in the CLI.
 *
 * The bytes go into a memfd, a regular file in memory: the loader maps it
 * like a file on disk and SQLite opens it by its /proc path, with no disk
 * write per run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz_views.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd = memfd_create("fuzz-input", MFD_CLOEXEC);
    if (fd < 0)
        abort();
    for (size_t done = 0; done < size;) {
        ssize_t w = write(fd, data + done, size - done);
        if (w <= 0)
            abort();
        done += (size_t)w;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    fuzz_load_and_view(path, fuzz_pick(data, size));
    close(fd);
    return 0;
}
