/* parallel.c — tp_parallel: n independent jobs on a few threads, each
 * thread taking the next job not yet taken (a run's ranks, a report's
 * views), so the jobs start in their order and a slow one holds up none. */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>
#include "tprof.h"

struct pool {
    void (*fn)(void *ctx, size_t i);
    void *ctx;
    size_t n, next;
    pthread_mutex_t lock;
};

static void *work(void *arg)
{
    struct pool *P = arg;
    for (;;) {
        pthread_mutex_lock(&P->lock);
        size_t i = P->next++;
        pthread_mutex_unlock(&P->lock);
        if (i >= P->n)
            return NULL;
        P->fn(P->ctx, i);
    }
}

void tp_parallel(size_t n, int threads, void (*fn)(void *ctx, size_t i), void *ctx)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    size_t nt = threads > 0 ? (size_t)threads : ncpu > 0 ? (size_t)ncpu : 1;
    if (nt > n)
        nt = n;
    struct pool P = {.fn = fn, .ctx = ctx, .n = n};
    pthread_mutex_init(&P.lock, NULL);
    pthread_t *tids = nt > 1 ? calloc(nt - 1, sizeof *tids) : NULL;
    size_t started = 0;
    for (; tids && started + 1 < nt; started++)
        if (pthread_create(&tids[started], NULL, work, &P) != 0)
            break;
    work(&P);   /* the calling thread works too (alone when no thread starts) */
    for (size_t i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
    free(tids);
    pthread_mutex_destroy(&P.lock);
}
