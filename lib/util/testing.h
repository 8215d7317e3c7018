/* testing.h — the tiny harness every *_test.c uses.
 *
 * Each check prints one line, "ok NAME" or "FAIL NAME: file:line: expr", and
 * scripts/run-tests adds them up into "N passed, N failed".  A test binary
 * returns non-zero when any of its checks failed. */
#ifndef TPROF_TESTING_H
#define TPROF_TESTING_H

#include <stdio.h>
#include <string.h>

static int tt_failed;

#define CHECK(name, expr) do { \
        if (expr) printf("ok %s\n", (name)); \
        else { printf("FAIL %s: %s:%d: %s\n", (name), __FILE__, __LINE__, #expr); tt_failed++; } \
    } while (0)

#define CHECK_STR(name, got, want) do { \
        const char *g_ = (got), *w_ = (want); \
        if (g_ && w_ && strcmp(g_, w_) == 0) printf("ok %s\n", (name)); \
        else { printf("FAIL %s: %s:%d: got \"%s\", want \"%s\"\n", (name), __FILE__, __LINE__, \
                      g_ ? g_ : "(null)", w_ ? w_ : "(null)"); tt_failed++; } \
    } while (0)

#define CHECK_INT(name, got, want) do { \
        long long g_ = (long long)(got), w_ = (long long)(want); \
        if (g_ == w_) printf("ok %s\n", (name)); \
        else { printf("FAIL %s: %s:%d: got %lld, want %lld\n", (name), __FILE__, __LINE__, g_, w_); \
               tt_failed++; } \
    } while (0)

#define SKIP(name, why) printf("skip %s: %s\n", (name), (why))

#define TEST_EXIT() return tt_failed ? 1 : 0

#endif
