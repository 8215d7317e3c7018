/* check_attr.c — kernels no operator is charged for, and why.
 *
 * The attribution is the linker's model (attribution.c, st->attr): every
 * GPU activity's launch call and operator, or the cause it has none.  A
 * graph replay no operator encloses is charged to its graph launch call, so
 * it is attributed here (check_launch.c reports graph replays on their own).
 * Causes, one row each:
 *
 *  - unattributed.no_launch: no runtime/driver call carries the kernel's
 *    correlation id: it was launched before the profiler started, or the
 *    host-side record was lost, or the kernel has no correlation id;
 *  - unattributed.no_operator: the launch call is there but no CPU operator
 *    encloses it (a launch from Python code the profiler did not record as
 *    an op).
 *
 * Kineto traces only (the other inputs have no CPU operators).
 * Info while unattributed kernels hold at most 5 % of kernel time (the
 * coverage every table should reach), warning above. */
#include "check.h"

struct cause {
    uint64_t count, before_host;
    int64_t ns, first;
};

static void add(const tp_store *st, struct cause *c, size_t row, int64_t host_start)
{
    if (!c->count++ || st->ts[row] < st->ts[c->first])
        c->first = (int64_t)row;
    c->ns += st->dur[row];
    c->before_host += st->ts[row] < host_start;
}

static void say(const tp_store *st, struct tp_findings *f, const struct cause *c, const char *key, int64_t total,
                int64_t all_ns, const char *why)
{
    if (!c->count)
        return;
    double share = total > 0 ? 100.0 * (double)all_ns / (double)total : 0.0;
    struct tp_finding *x = tp_finding_add(f, st, share > TP_CHECK_UNATTRIBUTED_PCT ? TP_SEV_WARNING : TP_SEV_INFO,
                                          key, c->count, c->first);
    if (x)
        tp_finding_detail(x, "%.1f%% of kernel time (%.1f%% unattributed in all): %s; %llu of them started "
                          "before the first host event", total > 0 ? 100.0 * (double)c->ns / (double)total : 0.0,
                          share, why, (unsigned long long)c->before_host);
}

int tp_check_attribution(const tp_store *st, struct tp_findings *f)
{
    /* Operators are kineto's: nvprof/nsys dumps attribute by NVTX markers
     * (prof), Ascend folders by their own tables. */
    if (st->format != TP_SRC_KINETO_JSON)
        return TP_OK;
    int64_t host_start = INT64_MAX, total = 0;
    for (size_t i = 0; i < st->n; i++)
        if ((st->kind[i] == TP_K_CPU_OP || st->kind[i] == TP_K_RUNTIME || st->kind[i] == TP_K_DRIVER) &&
            st->ts[i] < host_start)
            host_start = st->ts[i];
    struct cause no_launch = {0}, no_op = {0};
    const struct tp_attribution *a = &st->attr;
    for (size_t i = 0; i < st->n && a->dev_cause; i++) {
        if (st->kind[i] != TP_K_KERNEL)
            continue;
        total += st->dur[i];
        if (tp_store_attr_cause(st, i) == TP_ATTR_OUTSIDE_OPERATOR)
            add(st, &no_op, i, host_start);
        else if (tp_store_attr_cause(st, i) > TP_ATTR_OUTSIDE_OPERATOR)
            add(st, &no_launch, i, host_start);
    }
    int64_t all_ns = no_launch.ns + no_op.ns;
    say(st, f, &no_launch, "unattributed.no_launch", total, all_ns,
        "no runtime/driver call carries their correlation id (launched before the profiler started, or the "
        "host record was lost)");
    say(st, f, &no_op, "unattributed.no_operator", total, all_ns,
        "their launch call is outside every CPU operator");
    return f->oom ? TP_ERR_NOMEM : TP_OK;
}
