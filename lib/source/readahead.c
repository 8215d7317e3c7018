/* readahead.c — the ring behind tp_readahead (readahead.h).
 *
 * One mutex and two condition variables; the slots are handed over whole:
 * the producer owns the slot at `head` while it fills it (outside the
 * lock), the consumer owns the slot at `tail` while it copies out of it
 * (outside the lock too).  `filled` counts the slots made and not yet given
 * back, the one the consumer is copying from included, so the two never
 * touch the same slot.  A 1 GB input in 512 KiB slots is 2000 hand-overs:
 * the lock costs nothing next to the bytes. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "readahead.h"

#define STACK_BYTES (256u << 10)

struct tp_readahead {
    tp_readahead_fill fill;
    void *ctx;
    int nslots;
    size_t slot_bytes;
    char *mem;                  /* nslots * slot_bytes */
    size_t *lens;

    pthread_mutex_t lock;
    pthread_cond_t not_empty, not_full;
    int head, tail, filled;     /* under lock */
    int done;                   /* under lock: the producer's fill returned 0 */
    int stop;                   /* under lock: the consumer wants the producer gone */

    /* the consumer's own */
    int holding;                /* the tail slot is being copied from */
    size_t cur_pos, cur_len;
    int joined;
    pthread_t thread;
};

static void *produce(void *arg)
{
    tp_readahead *ra = arg;
    for (;;) {
        pthread_mutex_lock(&ra->lock);
        while (ra->filled == ra->nslots && !ra->stop)
            pthread_cond_wait(&ra->not_full, &ra->lock);
        int stop = ra->stop;
        int slot = ra->head;
        pthread_mutex_unlock(&ra->lock);
        if (stop)
            break;
        char *buf = ra->mem + (size_t)slot * ra->slot_bytes;
        size_t len = 0;
        int end = 0;
        while (len < ra->slot_bytes) {
            size_t n = ra->fill(ra->ctx, buf + len, ra->slot_bytes - len);
            if (n == 0) {
                end = 1;
                break;
            }
            len += n;
        }
        pthread_mutex_lock(&ra->lock);
        if (len) {
            ra->lens[slot] = len;
            ra->head = (slot + 1) % ra->nslots;
            ra->filled++;
        }
        ra->done = end;
        pthread_cond_signal(&ra->not_empty);
        pthread_mutex_unlock(&ra->lock);
        if (end)
            break;
    }
    return NULL;
}

tp_readahead *tp_readahead_start(tp_readahead_fill fill, void *ctx, int slots, size_t slot_bytes)
{
    if (slots < 2 || slot_bytes == 0)
        return NULL;
    tp_readahead *ra = calloc(1, sizeof *ra);
    if (!ra)
        return NULL;
    ra->fill = fill;
    ra->ctx = ctx;
    ra->nslots = slots;
    ra->slot_bytes = slot_bytes;
    ra->mem = malloc((size_t)slots * slot_bytes);
    ra->lens = calloc((size_t)slots, sizeof *ra->lens);
    if (!ra->mem || !ra->lens)
        goto fail;
    if (pthread_mutex_init(&ra->lock, NULL) != 0)
        goto fail;
    if (pthread_cond_init(&ra->not_empty, NULL) != 0) {
        pthread_mutex_destroy(&ra->lock);
        goto fail;
    }
    if (pthread_cond_init(&ra->not_full, NULL) != 0) {
        pthread_cond_destroy(&ra->not_empty);
        pthread_mutex_destroy(&ra->lock);
        goto fail;
    }
    /* The producer's deepest stack is a decompressor's (zstd, igzip: a few
     * KB): the default 8 MiB would only take address space, which a
     * `ulimit -v` run (reliability_src.sh, D13) counts. */
    pthread_attr_t attr;
    int attr_ok = pthread_attr_init(&attr) == 0;
    if (attr_ok)
        pthread_attr_setstacksize(&attr, STACK_BYTES);
    int started = pthread_create(&ra->thread, attr_ok ? &attr : NULL, produce, ra) == 0;
    if (attr_ok)
        pthread_attr_destroy(&attr);
    if (!started) {
        pthread_cond_destroy(&ra->not_full);
        pthread_cond_destroy(&ra->not_empty);
        pthread_mutex_destroy(&ra->lock);
        goto fail;
    }
    return ra;
fail:
    free(ra->mem);
    free(ra->lens);
    free(ra);
    return NULL;
}

/* Give the slot being copied from back to the producer and take the next
 * made one, waiting for it only when `wait`.  Returns 1 with a slot, 0
 * without one. */
static int next_slot(tp_readahead *ra, int wait)
{
    pthread_mutex_lock(&ra->lock);
    if (ra->holding) {
        ra->holding = 0;
        ra->tail = (ra->tail + 1) % ra->nslots;
        ra->filled--;
        pthread_cond_signal(&ra->not_full);
    }
    while (wait && ra->filled == 0 && !ra->done)
        pthread_cond_wait(&ra->not_empty, &ra->lock);
    int got = ra->filled > 0;
    if (got) {
        ra->holding = 1;
        ra->cur_pos = 0;
        ra->cur_len = ra->lens[ra->tail];
    }
    pthread_mutex_unlock(&ra->lock);
    return got;
}

size_t tp_readahead_take(tp_readahead *ra, char *buf, size_t cap)
{
    size_t copied = 0;
    while (copied < cap && !ra->joined) {
        if (!ra->holding || ra->cur_pos == ra->cur_len) {
            if (!next_slot(ra, copied == 0)) {
                if (copied == 0) {
                    /* nothing left and none to come: the thread has
                     * returned or is returning */
                    pthread_join(ra->thread, NULL);
                    ra->joined = 1;
                }
                break;
            }
        }
        size_t n = ra->cur_len - ra->cur_pos;
        if (n > cap - copied)
            n = cap - copied;
        memcpy(buf + copied, ra->mem + (size_t)ra->tail * ra->slot_bytes + ra->cur_pos, n);
        ra->cur_pos += n;
        copied += n;
    }
    return copied;
}

int tp_readahead_finished(const tp_readahead *ra) { return ra->joined; }

void tp_readahead_stop(tp_readahead *ra)
{
    if (!ra)
        return;
    if (!ra->joined) {
        pthread_mutex_lock(&ra->lock);
        ra->stop = 1;
        pthread_cond_signal(&ra->not_full);
        pthread_mutex_unlock(&ra->lock);
        pthread_join(ra->thread, NULL);
    }
    pthread_cond_destroy(&ra->not_full);
    pthread_cond_destroy(&ra->not_empty);
    pthread_mutex_destroy(&ra->lock);
    free(ra->mem);
    free(ra->lens);
    free(ra);
}
