/* store_file_inflate.c — inflate a .tprof's big columns on every core.
 *
 * Reading a store is mostly zstd inflating its event and link columns into
 * fresh memory (0.17 of the 0.25 s CPU `kernels` takes on a 1 GB trace's
 * store); the columns are independent, so the reader collects them as jobs
 * and inflates them here, biggest first, one worker per core (up to 4), the
 * calling thread included.  A store too small to gain from a thread is
 * inflated by the caller alone.  A lazy column's CRC is verified here too,
 * before its frame is trusted (store_file_lazy.c). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#include "store_file_int.h"

enum { MIN_PARALLEL = 32 << 20, MAX_THREADS = 4 };

struct pool {
    struct tp_sf_job *jobs;
    size_t n, next;
    pthread_mutex_t lock;
};

static void inflate_one(ZSTD_DCtx *d, struct tp_sf_job *j)
{
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    /* (a fuzzer cannot forge CRCs; its build checks what lies behind them) */
    if (j->check_crc && (uint32_t)crc32(crc32(0L, j->hdr, (uInt)j->hlen), j->z, (uInt)j->zlen) != j->crc) {
        j->error = "checksum mismatch: the file is damaged";
        return;
    }
#endif
    size_t got = ZSTD_decompressDCtx(d, j->dst, j->raw, j->z, j->zlen);
    if (ZSTD_isError(got) || got != j->raw) {
        j->error = ZSTD_isError(got) ? ZSTD_getErrorName(got) : "section shorter than its header says";
        return;
    }
    if (j->delta) {   /* int64 differences, summed back (wrapping, exact) */
        uint64_t acc = 0;
        for (size_t i = 0; i < j->raw / 8; i++) {
            uint64_t v;
            memcpy(&v, j->dst + i * 8, 8);
            acc += v;
            memcpy(j->dst + i * 8, &acc, 8);
        }
    }
}

static void *worker(void *arg)
{
    struct pool *P = arg;
    ZSTD_DCtx *d = ZSTD_createDCtx();
    for (;;) {
        pthread_mutex_lock(&P->lock);
        size_t i = P->next++;
        pthread_mutex_unlock(&P->lock);
        if (i >= P->n)
            break;
        if (d)
            inflate_one(d, &P->jobs[i]);
        else
            P->jobs[i].error = "out of memory";
    }
    ZSTD_freeDCtx(d);
    return NULL;
}

static int bigger_first(const void *a, const void *b)
{
    const struct tp_sf_job *x = a, *y = b;
    return x->raw != y->raw ? (x->raw < y->raw ? 1 : -1) : (x->at > y->at) - (x->at < y->at);
}

void tp_sf_inflate_all(struct tp_sf_job *jobs, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += jobs[i].raw;
    qsort(jobs, n, sizeof *jobs, bigger_first);
    struct pool P = {.jobs = jobs, .n = n};
    pthread_mutex_init(&P.lock, NULL);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nt = total < MIN_PARALLEL || ncpu < 2 ? 1 : ncpu > MAX_THREADS ? MAX_THREADS : (size_t)ncpu;
    pthread_t tids[MAX_THREADS];
    size_t started = 0;
    for (; started + 1 < nt && started + 1 < n; started++)
        if (pthread_create(&tids[started], NULL, worker, &P) != 0)
            break;
    worker(&P);   /* the calling thread works too */
    for (size_t i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
    pthread_mutex_destroy(&P.lock);
}
