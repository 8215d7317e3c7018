/* testing.h — the tiny harness every *_test.c uses.
 *
 * Each check prints one line, "ok NAME" or "FAIL NAME: file:line: expr", and
 * scripts/run-tests adds them up into "N passed, N failed".  A test binary
 * returns non-zero when any of its checks failed. */
#ifndef TPROF_TESTING_H
#define TPROF_TESTING_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

static int tt_failed;
/* Put before every name: a test that runs its checks more than once (each
 * under another setting) keeps the names apart. */
static const char *tt_prefix __attribute__((unused)) = "";

#define CHECK(name, expr) do { \
        if (expr) printf("ok %s%s\n", tt_prefix, (name)); \
        else { printf("FAIL %s%s: %s:%d: %s\n", tt_prefix, (name), __FILE__, __LINE__, #expr); tt_failed++; } \
    } while (0)

#define CHECK_STR(name, got, want) do { \
        const char *g_ = (got), *w_ = (want); \
        if (g_ && w_ && strcmp(g_, w_) == 0) printf("ok %s%s\n", tt_prefix, (name)); \
        else { printf("FAIL %s%s: %s:%d: got \"%s\", want \"%s\"\n", tt_prefix, (name), __FILE__, __LINE__, \
                      g_ ? g_ : "(null)", w_ ? w_ : "(null)"); tt_failed++; } \
    } while (0)

#define CHECK_INT(name, got, want) do { \
        long long g_ = (long long)(got), w_ = (long long)(want); \
        if (g_ == w_) printf("ok %s%s\n", tt_prefix, (name)); \
        else { printf("FAIL %s%s: %s:%d: got %lld, want %lld\n", tt_prefix, (name), __FILE__, __LINE__, g_, w_); \
               tt_failed++; } \
    } while (0)

#define SKIP(name, why) printf("skip %s%s: %s\n", tt_prefix, (name), (why))

#define TEST_EXIT() return tt_failed ? 1 : 0

/* The whole of a file the test reads (a fixture, a file it wrote), with a
 * NUL after its *len bytes; NULL when it cannot be read.  Free it. */
static inline char *tt_read_file(const char *path, size_t *len)
{
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b) {
        b[n] = '\0';
        *len = (size_t)n;
    }
    return b;
}

/* A fresh folder "/tmp/tprof-NAME-XXXXXX" in dir (cap bytes): 0, or -1
 * after printing "skip NAME: no temporary folder". */
/* xorshift64: a reproducible stream of test values from *state (nonzero). */
static inline uint64_t tt_xorshift(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

static inline int tt_tmpdir(char *dir, size_t cap, const char *name)
{
    snprintf(dir, cap, "/tmp/tprof-%s-XXXXXX", name);
    if (mkdtemp(dir))
        return 0;
    SKIP(name, "no temporary folder");
    return -1;
}

/* An empty temporary file /tmp/tprof-NAME-XXXXXX, its name in path; -1
 * (the test skipped as NAME) when none can be made. */
static inline int tt_tmpfile(char *path, size_t cap, const char *name)
{
    snprintf(path, cap, "/tmp/tprof-%s-XXXXXX", name);
    int fd = mkstemp(path);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    SKIP(name, "no temporary file");
    return -1;
}

/* tt_read_file of a file the test cannot go on without: NULL after a
 * failed check NAME. */
static inline char *tt_read_needed(const char *path, size_t *len, const char *name)
{
    char *b = tt_read_file(path, len);
    CHECK(name, b != NULL);
    return b;
}

#endif
