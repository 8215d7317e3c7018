/* coll_match.c — the same collective on every rank (tp_coll_match).
 *
 * NCCL requires the ranks of a communicator to issue its collectives in
 * one order, so the k-th collective of a group is the same one on every
 * rank.  The key is (group, Seq, nth) when PyTorch wrote a Seq, else
 * (group, ProfilerStep, nth): counting within the step, not from the start
 * of the trace, keeps ranks whose profiling windows opened at different
 * moments in step.  Times are compared on one clock: baseTimeNanoseconds +
 * ts when every rank has baseTimeNanoseconds, else ts (kineto's ts are the
 * host's clock: ranks of one host agree; ranks of several hosts agree as
 * well as their clocks are synchronized; `tprof check` warns when not). */
#include <stdlib.h>
#include <string.h>
#include "collectives.h"
#include "cmp.h"

struct mkey {
    uint64_t group;
    int64_t seq, step, nth;
    size_t list, rec;
};

TP_CMP_FIELDS(cmp_mkey, struct mkey, group, seq, step, nth, list)

static int same_key(const struct mkey *a, const struct mkey *b)
{
    return a->group == b->group && a->seq == b->seq && a->step == b->step && a->nth == b->nth;
}

TP_CMP_FIELDS(cmp_inst, struct tp_coll_inst, first_start, part)

static int is_p2p(int32_t op)
{
    return op == TP_COLL_SEND || op == TP_COLL_RECV || op == TP_COLL_SEND_RECV;
}

/* One matched collective from the keys k[0..n-1] (one per rank).  A send
 * matched with its recv is one send_recv, not a disagreement. */
static void fill(const struct tp_coll_list *lists, const struct mkey *k, size_t n, int use_base,
                 struct tp_coll_inst *in, struct tp_coll_part *parts)
{
    memset(in, 0, sizeof *in);
    const struct tp_coll_rec *r0 = &lists[k[0].list].v[k[0].rec];
    in->op = r0->op;
    in->first_rec = r0;
    in->nranks = n;
    in->bytes = -1;
    in->first_start = INT64_MAX;
    in->last_start = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        const struct tp_coll_list *l = &lists[k[i].list];
        const struct tp_coll_rec *r = &l->v[k[i].rec];
        int64_t off = use_base ? l->base_time_ns : 0;
        parts[i] = (struct tp_coll_part){k[i].list, r->start + off, r->end + off};
        if (r->op != in->op && is_p2p(r->op) && is_p2p(in->op))
            in->op = TP_COLL_SEND_RECV;
        else if (r->op != in->op)
            in->mixed = 1;
        if (r->bytes > in->bytes)
            in->bytes = r->bytes;
        if (r->group_size > in->group_size)
            in->group_size = r->group_size;
        if (parts[i].start < in->first_start)
            in->first_start = parts[i].start;
        if (parts[i].start > in->last_start) {
            in->last_start = parts[i].start;
            in->last = k[i].list;
            in->transfer = r->end - r->start;
        }
    }
    for (size_t i = 0; i < n; i++)
        in->wait += in->last_start - parts[i].start;
    if (in->group_size <= 0)
        in->group_size = (int64_t)n;
}

int tp_coll_match(const struct tp_coll_list *lists, size_t n, struct tp_coll_match *m)
{
    memset(m, 0, sizeof *m);
    size_t total = 0;
    m->use_base = n > 0;
    for (size_t i = 0; i < n; i++) {
        total += lists[i].n;
        m->use_base &= lists[i].base_time_ns != TP_NONE;
    }
    struct mkey *k = malloc((total ? total : 1) * sizeof *k);
    m->parts = malloc((total ? total : 1) * sizeof *m->parts);
    m->inst = malloc((total ? total : 1) * sizeof *m->inst);
    if (!k || !m->parts || !m->inst) {
        free(k);
        tp_coll_match_free(m);
        return -1;
    }
    size_t nk = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < lists[i].n; j++) {
            const struct tp_coll_rec *r = &lists[i].v[j];
            k[nk++] = (struct mkey){r->group_id, r->seq, r->seq != TP_NONE ? 0 : r->step, r->nth, i, j};
        }
    if (nk > 1)
        if (nk > 0)
            qsort(k, nk, sizeof *k, cmp_mkey);
    for (size_t a = 0; a < nk;) {
        size_t b = a + 1;
        while (b < nk && same_key(&k[a], &k[b]))
            b++;
        struct tp_coll_inst *in = &m->inst[m->ninst++];
        fill(lists, k + a, b - a, m->use_base, in, m->parts + m->nparts);
        in->part = m->nparts;
        m->nparts += b - a;
        a = b;
    }
    free(k);
    if (m->ninst > 1)
        if (m->ninst > 0)
            qsort(m->inst, m->ninst, sizeof *m->inst, cmp_inst);
    return 0;
}

void tp_coll_match_free(struct tp_coll_match *m)
{
    free(m->inst);
    free(m->parts);
    memset(m, 0, sizeof *m);
}
