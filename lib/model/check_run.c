/* check_run.c — what only a run of ranks (or a multi-GPU trace) can get
 * wrong: the ranks' clocks, and who is which rank.
 *
 * clock_skew (warning): the ranks of one job meet at every collective, so
 * the same ProfilerStep starts on every rank within about one step of the
 * others.  When the first step number all ranks have starts further apart
 * than the shortest of its durations, the clocks disagree (or the files are
 * not from one job) and everything laid side by side across ranks (dist's
 * wait times, timelines) is off.  A time is baseTimeNanoseconds + ts when
 * every rank has baseTimeNanoseconds (kineto's ts then count from a
 * per-host clock), else ts.  Ranks without a common step are compared by
 * their first event: more than 60 s apart is the same finding.
 *
 * no_distributed_info (warning): a rank of a run, or a trace with GPU work
 * on several devices or with NCCL/RCCL kernels, has no distributedInfo:
 * the rank came from the file name (or the order of the files) and world
 * size and backend are unknown. */
#include <stdlib.h>
#include <string.h>
#include "check.h"

static int64_t origin(const tp_store *st, int use_base)
{
    return use_base ? st->base_time_ns : 0;
}

static int64_t first_event(const tp_store *st)
{
    int64_t t = INT64_MAX;
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] != TP_K_META && st->kind[i] != TP_K_FLOW && st->ts[i] < t)
            t = st->ts[i];
    return t;
}

static const struct tp_step *find_step(const tp_store *st, int64_t number)
{
    for (size_t s = 0; s < st->nsteps; s++)
        if (st->steps[s].number == number)
            return &st->steps[s];
    return NULL;
}

/* The first step number of stores[0] that every rank has, or TP_NONE. */
static int64_t common_step(const tp_store *const *stores, size_t n)
{
    for (size_t s = 0; s < stores[0]->nsteps; s++) {
        int64_t num = stores[0]->steps[s].number;
        size_t k = 1;
        while (k < n && find_step(stores[k], num))
            k++;
        if (k == n)
            return num;
    }
    return TP_NONE;
}

int tp_check_clocks(const tp_store *const *stores, size_t n, struct tp_findings *f)
{
    if (n < 2)
        return TP_OK;
    int use_base = 1;
    for (size_t k = 0; k < n; k++)
        use_base &= stores[k]->base_time_ns != TP_NONE;
    int64_t num = common_step(stores, n);
    int64_t *start = malloc(n * sizeof *start);
    if (!start) {
        f->oom = 1;
        return TP_ERR_NOMEM;
    }
    int64_t limit = num == TP_NONE ? TP_CHECK_CLOCK_TRACE_NS : INT64_MAX;
    size_t lo = n, hi = n;
    for (size_t k = 0; k < n; k++) {
        const tp_store *st = stores[k];
        if (num != TP_NONE) {
            const struct tp_step *s = find_step(st, num);
            start[k] = origin(st, use_base) + s->ts;
            if (s->end - s->ts < limit)
                limit = s->end - s->ts;
        } else {
            int64_t t = first_event(st);
            if (t == INT64_MAX)
                continue;   /* a rank without events has no clock to compare */
            start[k] = origin(st, use_base) + t;
        }
        if (lo == n || start[k] < start[lo]) lo = k;
        if (hi == n || start[k] > start[hi]) hi = k;
    }
    if (lo == n) {
        free(start);
        return TP_OK;
    }
    int64_t spread = start[hi] - start[lo];
    free(start);
    if (spread <= limit)
        return TP_OK;
    /* Name the rank that stands out: the one further from the others'
     * middle (of two ranks, the later). */
    const tp_store *odd = stores[hi];
    struct tp_finding *x = tp_finding_add(f, odd, TP_SEV_WARNING, "clock_skew", n, -1);
    if (!x)
        return TP_ERR_NOMEM;
    if (num != TP_NONE) {
        const struct tp_step *s = find_step(odd, num);
        x->first_ts = s->ts;
        x->first_event = tp_store_str(odd, odd->name[s->name]);
        tp_finding_detail(x, "ProfilerStep#%lld starts %.3f ms apart across %zu ranks (rank %lld first, rank %lld "
                          "last), more than its shortest duration (%.3f ms): the ranks' clocks disagree (%s); "
                          "times compared across ranks (dist, side-by-side timelines) are off",
                          (long long)num, (double)spread / 1e6, n, (long long)stores[lo]->rank,
                          (long long)odd->rank, (double)limit / 1e6,
                          use_base ? "baseTimeNanoseconds + ts" : "ts");
    } else {
        tp_finding_detail(x, "no ProfilerStep common to all ranks, and their first events are %.3f s apart "
                          "(rank %lld first, rank %lld last; more than %lld s): the ranks' clocks disagree or "
                          "the traces are not from one job",
                          (double)spread / 1e9, (long long)stores[lo]->rank, (long long)odd->rank,
                          (long long)(TP_CHECK_CLOCK_TRACE_NS / 1000000000));
    }
    return TP_OK;
}

static int is_comm_kernel(const char *name)
{
    return strstr(name, "nccl") || strstr(name, "rccl") || strstr(name, "NCCL");
}

int tp_check_distributed(const tp_store *st, int in_run, struct tp_findings *f)
{
    if (st->format == TP_SRC_ASCEND)
        return TP_OK;
    if (in_run) {
        /* run.c sets every rank's store->rank (from the name when the
         * trace has none); world_size comes only from distributedInfo. */
        if (st->world_size != TP_NONE)
            return TP_OK;
        struct tp_finding *x = tp_finding_add(f, st, TP_SEV_WARNING, "no_distributed_info", 1, -1);
        if (x)
            tp_finding_detail(x, "%s has no distributedInfo: its rank comes from the file name or the order of "
                              "the files; world size and backend are unknown", st->path);
        return x ? TP_OK : TP_ERR_NOMEM;
    }
    if (st->rank != TP_NONE)
        return TP_OK;
    int32_t dev = -1;
    int devices = 0;
    int64_t comm = -1;
    uint64_t ncomm = 0;
    /* is_comm_kernel once per name, not per kernel: 0 not asked, 1 yes, 2 no */
    uint8_t *named = calloc(st->strings.count + 1, 1);
    if (!named) {
        f->oom = 1;
        return TP_ERR_NOMEM;
    }
    for (size_t i = 0; i < st->n; i++) {
        if (!tp_check_is_device(st, i))
            continue;
        if (dev < 0)
            dev = st->device[i];
        else if (st->device[i] >= 0 && st->device[i] != dev)
            devices = 1;   /* a second device */
        if (st->kind[i] != TP_K_KERNEL)
            continue;
        uint8_t *c = &named[st->name[i]];
        if (!*c)
            *c = is_comm_kernel(tp_store_str(st, st->name[i])) ? 1 : 2;
        if (*c == 1 && !ncomm++)
            comm = (int64_t)i;
    }
    free(named);
    if (!devices && !ncomm)
        return TP_OK;
    struct tp_finding *x = tp_finding_add(f, st, TP_SEV_WARNING, "no_distributed_info", 1, comm);
    if (x)
        tp_finding_detail(x, "the trace has %s but no distributedInfo: its rank, world size and backend are "
                          "unknown (a run directory takes the rank from the file name)",
                          devices ? "GPU work on several devices" : "communication kernels");
    return x ? TP_OK : TP_ERR_NOMEM;
}
