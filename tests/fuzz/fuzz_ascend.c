/* fuzz_ascend.c — an Ascend profiler folder built from the input.
 *
 * Container format (text, so mutations keep it mostly intact and seeds are
 * readable): the input is a sequence of files, each introduced by a line
 *     @@FILE relative/path
 * followed by its bytes up to the next "\n@@FILE " (the newline before the
 * marker belongs to the marker).  Paths are limited to [A-Za-z0-9_.-] parts,
 * at most two deep, no "." or ".."; at most 24 files.  tests/fuzz/pack-ascend
 * makes a seed from a real folder. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fuzz_views.h"

static char root[256];

static void remove_tree(const char *dir);

static void remove_root(void)
{
    remove_tree(root);
    rmdir(root);
}

static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char p[1024];
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
            remove_tree(p);
            rmdir(p);
        } else {
            unlink(p);
        }
    }
    closedir(d);
}

/* 1 when name is a safe relative path: [A-Za-z0-9_.-] parts, <= 2 deep. */
static int safe_name(const char *n, size_t len)
{
    if (len == 0 || len > 120)
        return 0;
    int depth = 0;
    size_t part = 0;
    for (size_t i = 0; i <= len; i++) {
        char c = i < len ? n[i] : '/';
        if (c == '/') {
            if (part == 0 || (part == 1 && n[i - 1] == '.') || (part == 2 && n[i - 1] == '.' && n[i - 2] == '.'))
                return 0;
            if (++depth > 2)
                return 0;
            part = 0;
        } else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                   c == '.' || c == '-') {
            part++;
        } else {
            return 0;
        }
    }
    return 1;
}

static void put(const char *name, size_t nlen, const uint8_t *body, size_t blen)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%.*s", root, (int)nlen, name);
    const char *slash = memchr(name, '/', nlen);
    if (slash) {
        char d[512];
        snprintf(d, sizeof d, "%s/%.*s", root, (int)(slash - name), name);
        mkdir(d, 0700);
    }
    FILE *f = fopen(p, "wb");
    if (!f)
        return;   /* e.g. a file where a folder of that name was made */
    fwrite(body, 1, blen, f);
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char marker[] = "@@FILE ";
    const size_t mlen = sizeof marker - 1;
    if (!root[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(root, sizeof root, "%s/tprof-fuzz-ascend-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(root))
            abort();
        atexit(remove_root);
    }
    remove_tree(root);
    if (size < mlen || memcmp(data, marker, mlen) != 0)
        return 0;
    const uint8_t *p = data, *end = data + size;
    for (int files = 0; p < end && files < 24; files++) {
        /* p is at a marker */
        const uint8_t *name = p + mlen;
        const uint8_t *nl = memchr(name, '\n', (size_t)(end - name));
        if (!nl)
            break;
        const uint8_t *body = nl + 1, *next = end;
        for (const uint8_t *q = body; q + mlen + 1 <= end; q++) {
            q = memchr(q, '\n', (size_t)(end - q));
            if (!q || q + 1 + mlen > end)
                break;
            if (memcmp(q + 1, marker, mlen) == 0) {
                next = q;
                break;
            }
        }
        if (safe_name((const char *)name, (size_t)(nl - name)))
            put((const char *)name, (size_t)(nl - name), body, (size_t)(next - body));
        p = next < end ? next + 1 : end;
    }
    fuzz_load_and_view(root, fuzz_pick(data, size));
    return 0;
}
