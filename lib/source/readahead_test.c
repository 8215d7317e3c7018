/* readahead_test.c — the ring on its own: every byte arrives once and in
 * order whatever the producer's and the consumer's chunk sizes, a take
 * returns what is ready instead of waiting to fill its buffer, the end
 * comes once and stays, and stopping early (a source closed before its
 * end) joins a producer blocked on a full ring. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "readahead.h"
#include "testing.h"

/* A producer of `total` bytes of a position-dependent pattern, in pieces
 * of pseudo-random sizes up to `piece`. */
struct pattern {
    uint64_t total, made, rng;
    size_t piece;
    int calls_after_end;   /* fill called again after it returned 0 */
    int ended;
};

static unsigned char byte_at(uint64_t i) { return (unsigned char)(i * 131 + (i >> 9) * 7 + (i >> 17)); }

static size_t pattern_fill(void *ctx, char *buf, size_t cap)
{
    struct pattern *p = ctx;
    if (p->ended)
        p->calls_after_end++;
    size_t n = (size_t)(tt_xorshift(&p->rng) % p->piece) + 1;
    if (n > cap)
        n = cap;
    if (n > p->total - p->made)
        n = (size_t)(p->total - p->made);
    for (size_t i = 0; i < n; i++)
        buf[i] = (char)byte_at(p->made + i);
    p->made += n;
    if (n == 0)
        p->ended = 1;
    return n;
}

/* Read everything through takes of pseudo-random sizes up to `cap`; 1 when
 * every byte came in order and the end stayed the end. */
static int drain(tp_readahead *ra, uint64_t total, size_t cap, uint64_t seed)
{
    char *buf = malloc(cap);
    uint64_t got = 0, rng = seed;
    int ok = 1;
    for (;;) {
        size_t want = (size_t)(tt_xorshift(&rng) % cap) + 1;
        size_t n = tp_readahead_take(ra, buf, want);
        if (n == 0)
            break;
        if (n > want)
            ok = 0;
        for (size_t i = 0; i < n && ok; i++)
            if ((unsigned char)buf[i] != byte_at(got + i))
                ok = 0;
        got += n;
    }
    ok = ok && got == total && tp_readahead_finished(ra) && tp_readahead_take(ra, buf, cap) == 0;
    free(buf);
    return ok;
}

static void test_sizes(void)
{
    static const struct {
        uint64_t total;
        size_t piece, slot, cap;
        int slots;
    } cases[] = {
        {0, 10, 64, 16, 2},                 /* empty: the first take is the end */
        {1, 10, 64, 16, 2},
        {1000, 7, 64, 5, 2},                /* takes smaller than the slots */
        {100000, 3000, 64, 100000, 4},      /* pieces bigger than the slots */
        {1u << 20, 4096, 65536, 1u << 18, 4},
        {(1u << 20) + 1, 65536, 65536, 65536, 3},   /* one byte into a last slot */
    };
    int bad = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct pattern p = {.total = cases[c].total, .rng = 7 + c, .piece = cases[c].piece};
        tp_readahead *ra = tp_readahead_start(pattern_fill, &p, cases[c].slots, cases[c].slot);
        if (!ra) {
            bad++;
            continue;
        }
        if (!drain(ra, cases[c].total, cases[c].cap, 11 + c))
            bad++;
        tp_readahead_stop(ra);
        /* after the thread was joined its writes are ours to read */
        if (p.made != p.total || !p.ended || p.calls_after_end != 0)
            bad++;
    }
    CHECK_INT("readahead.sizes.all_bytes_in_order", bad, 0);
    CHECK("readahead.start.refuses_one_slot", tp_readahead_start(pattern_fill, NULL, 1, 64) == NULL);
}

/* A producer that makes `first` bytes, then waits until the consumer lets
 * it go on: a take must return those bytes without waiting for more. */
struct gated {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int open;
    int step;
};

static size_t gated_fill(void *ctx, char *buf, size_t cap)
{
    struct gated *g = ctx;
    (void)cap;
    if (g->step == 0) {
        g->step = 1;
        memcpy(buf, "abc", 3);
        /* a short piece ends the slot only when the slot is full, so this
         * one is 3 bytes of a slot of 3 */
        return 3;
    }
    pthread_mutex_lock(&g->lock);
    while (!g->open)
        pthread_cond_wait(&g->cond, &g->lock);
    pthread_mutex_unlock(&g->lock);
    if (g->step == 1) {
        g->step = 2;
        memcpy(buf, "def", 3);
        return 3;
    }
    return 0;
}

static void test_partial_take(void)
{
    struct gated g = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};
    tp_readahead *ra = tp_readahead_start(gated_fill, &g, 2, 3);
    char buf[16];
    size_t n = ra ? tp_readahead_take(ra, buf, sizeof buf) : 0;
    CHECK("readahead.partial.ready_bytes_without_waiting", n == 3 && memcmp(buf, "abc", 3) == 0);
    pthread_mutex_lock(&g.lock);
    g.open = 1;
    pthread_cond_signal(&g.cond);
    pthread_mutex_unlock(&g.lock);
    n = ra ? tp_readahead_take(ra, buf, sizeof buf) : 0;
    CHECK("readahead.partial.then_the_rest", n == 3 && memcmp(buf, "def", 3) == 0);
    CHECK("readahead.partial.then_the_end", ra && tp_readahead_take(ra, buf, sizeof buf) == 0);
    tp_readahead_stop(ra);
}

/* Stopped early, with the ring full and the producer waiting for room;
 * and stopped before the first take. */
static void test_stop_early(void)
{
    int joined = 0;
    for (int k = 0; k < 2; k++) {
        struct pattern p = {.total = 10u << 20, .rng = 3, .piece = 1000};
        tp_readahead *ra = tp_readahead_start(pattern_fill, &p, 2, 4096);
        if (!ra)
            continue;
        char buf[100];
        if (k == 1 && tp_readahead_take(ra, buf, sizeof buf) != sizeof buf)
            continue;
        tp_readahead_stop(ra);   /* hangs here if the producer is not woken */
        /* the producer stopped at most a slot or two past what was taken */
        if (p.made < p.total && p.made <= 3 * 4096 + 100)
            joined++;
    }
    CHECK_INT("readahead.stop_early.joins_a_waiting_producer", joined, 2);
    tp_readahead_stop(NULL);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_sizes();
    test_partial_take();
    test_stop_early();
    TEST_EXIT();
}
