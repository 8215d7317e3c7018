/* parallel_test.c — tp_parallel runs each job exactly once, on one thread
 * or many, for no job and for fewer jobs than threads. */
#include <stdatomic.h>
#include "tprof.h"
#include "testing.h"

struct jobs {
    size_t n;
    _Atomic int *runs;       /* per job: how many times it ran */
    _Atomic size_t calls;
};

static void job(void *arg, size_t i)
{
    struct jobs *J = arg;
    if (i < J->n)
        atomic_fetch_add(&J->runs[i], 1);
    atomic_fetch_add(&J->calls, 1);
}

static void check(const char *name, size_t n, int threads)
{
    struct jobs J = {.n = n};
    J.runs = calloc(n ? n : 1, sizeof *J.runs);
    if (!J.runs) {
        CHECK(name, 0);
        return;
    }
    tp_parallel(n, threads, job, &J);
    int once = atomic_load(&J.calls) == n;
    for (size_t i = 0; i < n; i++)
        once &= atomic_load(&J.runs[i]) == 1;
    CHECK(name, once);
    free(J.runs);
}

int main(void)
{
    check("parallel.none", 0, 4);
    check("parallel.one_thread", 1000, 1);
    check("parallel.four_threads", 100000, 4);
    check("parallel.cores", 5000, 0);
    check("parallel.more_threads_than_jobs", 3, 64);
    TEST_EXIT();
}
