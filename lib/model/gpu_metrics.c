/* gpu_metrics.c — the TensorBoard plugin's GPU Summary (SPEC §5): per GPU,
 * utilization, estimated SM efficiency, estimated achieved occupancy and the
 * share of kernel time using Tensor Cores, all taken over the span from the
 * first (adjusted) step's start to the last step's end.
 *
 * The plugin's code, not its docs, defines the numbers: concurrent kernels'
 * blocks per SM add up and are capped at 1 per time slice; occupancy is the
 * clipped-duration-weighted mean over all kernels with the arg; the Tensor
 * Core ratio counts only kernels launched by operators' own runtime calls.
 * Arithmetic follows the plugin's order of float operations on microseconds
 * so that integer-µs traces give the plugin's doubles bit for bit. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_metrics.h"
#include "tbtree.h"
#include "checked.h"
#include "cmp.h"
#include "radix.h"
#include "store_file.h"
#include "try.h"


/* The plugin's Tensor Core kernel test, once per kernel name: cache[id] is
 * 0 not yet known, 1 no, 2 yes. */
static int is_tc(const tp_store *st, uint32_t name, uint8_t *cache)
{
    if (!cache[name]) cache[name] = tp_tb_kernel_tc(tp_store_str(st, name)) ? 2 : 1;
    return cache[name] == 2;
}

/* Kernel time of the plugin's operator trees (tbtree.h) for its Tensor Core
 * numbers (SPEC §5, §10.4): kernels launched by an operator node's own
 * runtime calls (tc_ratio, and the denominator of
 * tc_eligible_ops_kernel_ratio), and those launched by a "bottom" Tensor
 * Core eligible node, one with no eligible descendant (the numerator). */
struct tcsum { int64_t op, bottom; int has_kernel; const int32_t *ids; size_t nids; int64_t *tc, *tot;
               uint8_t *cache; };

static int tc_walk(const tp_store *st, const struct tb_model *m, int64_t ni, struct tcsum *a)
{
    const struct tb_node *N = &m->nodes[ni];
    int below = 0;
    for (int64_t c = N->first_child; c >= 0; c = m->nodes[c].next_sib)
        below |= tc_walk(st, m, c, a);
    int by_op = tp_tb_is_op(N), bottom = N->tc_elig && !below;
    for (size_t k = 0; k < N->nrts && (by_op || bottom); k++) {
        const struct tb_rt *r = &m->rts[tb_node_rts(m, N)[k]];
        for (size_t d = 0; d < r->ndev; d++) {
            int64_t row = tb_rt_dev(m, r)[d], dur = st->dur[row];
            if (st->kind[row] != TP_K_KERNEL) continue;
            if (bottom) tp_sat_add(&a->bottom, dur);
            if (!by_op) continue;
            tp_sat_add(&a->op, dur);
            a->has_kernel = 1;
            /* the plugin indexes by the kernel's device and crashes without
             * one; such a kernel counts for no GPU here */
            for (size_t g = 0; g < a->nids; g++)
                if (a->ids[g] == st->device[row]) {
                    tp_sat_add(&a->tot[g], dur);
                    if (is_tc(st, st->name[row], a->cache)) tp_sat_add(&a->tc[g], dur);
                    break;
                }
        }
    }
    return below || N->tc_elig;
}

static int cmp_row_ts(const void *a, const void *b, void *ctx)
{
    const tp_store *st = ctx;
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    if (st->device[x] != st->device[y]) return st->device[x] < st->device[y] ? -1 : 1;
    if (st->ts[x] != st->ts[y]) return st->ts[x] < st->ts[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Bits to hold values 0..v. */
static unsigned bits_for(uint64_t v)
{
    unsigned b = 0;
    while (b < 64 && v >> b) b++;
    return b;
}

/* Each element's index i (< n, in the low `low` bits of key[i]) in the
 * order of the bits above: a stable radix sort, so equal keys keep their
 * index order. */
static void radix_order(uint64_t *key, uint64_t *tmp, size_t n, unsigned low)
{
    tp_radix_sort(key, tmp, n, low);
    uint64_t mask = low >= 64 ? UINT64_MAX : ((uint64_t)1 << low) - 1;
    for (size_t i = 0; i < n; i++) key[i] &= mask;
}

/* The kernel rows k[0..n) (ascending) by device, then start, then row: a
 * radix sort of (device rank, start) with the position as payload (the
 * rows ascend, so a stable sort breaks ties by row), else a comparison
 * sort when they do not fit 64 bits.  0, or -1 out of memory. */
static int sort_kernels(const tp_store *st, int64_t *k, size_t n)
{
    if (n < 2) return 0;
    int32_t devs[64];
    size_t nd = 0;
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        int64_t t = st->ts[k[i]];
        if (t < t0) t0 = t;
        if (t > t1) t1 = t;
        size_t d = 0;
        while (d < nd && devs[d] != st->device[k[i]]) d++;
        if (d == nd && nd < 64) devs[nd++] = st->device[k[i]];
        else if (d == nd) nd = 65;   /* too many: compared */
    }
    uint64_t span = (uint64_t)t1 - (uint64_t)t0;
    unsigned db = nd > 64 ? 64 : bits_for(nd - 1), tb = bits_for(span), rb = bits_for(n - 1);
    if (nd > 64 || db + tb + rb > 64) {
        qsort_r(k, n, sizeof *k, cmp_row_ts, (void *)st);
        return 0;
    }
    uint64_t *key = malloc(2 * n * sizeof *key);
    if (!key)
        return -1;
    /* device ranks in id order */
    for (size_t a = 1; a < nd; a++)
        for (size_t b = a; b > 0 && devs[b - 1] > devs[b]; b--) {
            int32_t x = devs[b]; devs[b] = devs[b - 1]; devs[b - 1] = x;
        }
    for (size_t i = 0; i < n; i++) {
        uint64_t d = 0;
        while (devs[d] != st->device[k[i]]) d++;
        uint64_t hi = tb + db == 0 ? 0 : (d << tb | ((uint64_t)st->ts[k[i]] - (uint64_t)t0));
        key[i] = (rb == 64 ? 0 : hi << rb) | i;
    }
    radix_order(key, key + n, n, rb);
    for (size_t i = 0; i < n; i++) key[n + i] = (uint64_t)k[key[i]];
    for (size_t i = 0; i < n; i++) k[i] = (int64_t)key[n + i];
    free(key);
    return 0;
}

struct ep { int64_t t; int end; size_t idx; double v; };

static int cmp_ep(const void *a, const void *b)
{
    const struct ep *x = a, *y = b;
    TP_CMP_BY(x, y, t);
    if (x->end != y->end) return x->end - y->end;
    return TP_CMP(x->idx, y->idx);
}

/* eps[0..n) by time, starts before ends, then creation order (idx, which
 * is the position): radix sorted where (time, end) and the position fit
 * 64 bits, else compared.  0, or -1 out of memory. */
static int sort_eps(struct ep *eps, size_t n)
{
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    int in_order = 1;
    for (size_t i = 0; i < n; i++) {
        if (eps[i].t < t0) t0 = eps[i].t;
        if (eps[i].t > t1) t1 = eps[i].t;
        in_order &= eps[i].idx == i;
    }
    unsigned tb = n ? bits_for((uint64_t)t1 - (uint64_t)t0) + 1 : 0, ib = n ? bits_for(n - 1) : 0;
    if (!in_order || n < 2 || tb + ib > 64) {
        qsort(eps, n, sizeof *eps, cmp_ep);
        return 0;
    }
    uint64_t *key = malloc(2 * n * sizeof *key);
    struct ep *out = key ? malloc(n * sizeof *out) : NULL;
    if (!out) {
        free(key);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        key[i] = ((((uint64_t)eps[i].t - (uint64_t)t0) << 1 | (uint64_t)(eps[i].end != 0)) << ib) | i;
    radix_order(key, key + n, n, ib);
    for (size_t i = 0; i < n; i++) out[i] = eps[key[i]];
    memcpy(eps, out, n * sizeof *eps);
    free(out);
    free(key);
    return 0;
}

static double us(int64_t ns) { return (double)ns / 1000.0; }

/* One GPU's kernels k[0..n) (ts order): utilization, SM efficiency, occupancy. */
static int one_gpu(const tp_store *st, const int64_t *k, size_t n, int64_t S, int64_t E, struct tp_gpu_metric *g,
                   struct ep *eps)
{
    g->kernels = (int64_t)n;
    g->kernel_ns = 0;
    for (size_t i = 0; i < n; i++) tp_sat_add(&g->kernel_ns, st->dur[k[i]]);

    /* utilization: merged kernel ranges, clipped to [S, E] (k is in ts
     * order already, so the ranges are sorted by start: read in place) */
    int64_t busy = 0, cs = 0, ce = 0;
    int open = 0;
    for (size_t i = 0; i <= n; i++) {
        int64_t ks = i < n ? st->ts[k[i]] : 0, ke = i < n ? st->ts[k[i]] + st->dur[k[i]] : 0;
        if (i < n && open && ke <= ce) continue;
        if (i < n && open && ks <= ce) { ce = ke; continue; }
        if (open) {
            int64_t a = cs > S ? cs : S, b = ce < E ? ce : E;
            if (a < b) tp_sat_add(&busy, b - a);
        }
        if (i < n) { cs = ks; ce = ke; open = 1; }
    }
    g->busy_ns = busy;
    g->util = E > S ? (double)busy / (double)(E - S) : NAN;

    /* SM efficiency: sweep over kernel endpoints with the running sum of
     * blocks per SM, capped at 1, clipped to [S, E] */
    size_t ne = 0;
    for (size_t i = 0; i < n; i++) {
        const struct tp_kernel_info *ki = tp_store_kernel(st, (size_t)k[i]);
        if (!ki || isnan(ki->blocks_per_sm) || !(ki->blocks_per_sm > 0.0)) continue;
        eps[ne] = (struct ep){st->ts[k[i]], 0, ne, ki->blocks_per_sm};
        ne++;
        eps[ne] = (struct ep){st->ts[k[i]] + st->dur[k[i]], 1, ne, ki->blocks_per_sm};
        ne++;
    }
    g->sm_eff = NAN;
    if (ne) {
        if (sort_eps(eps, ne) < 0)
            return -1;
        int64_t last_t = eps[0].t;
        double v = eps[0].v, total = 0.0;
        int any = 0;
        for (size_t i = 1; i < ne; i++) {
            if (eps[i].t > last_t && v > 0.0) {
                int64_t a = last_t > S ? last_t : S, b = eps[i].t < E ? eps[i].t : E;
                if (a < b) {
                    total += (v < 1.0 ? v : 1.0) * us(b - a);
                    any = 1;
                }
            }
            last_t = eps[i].t;
            if (eps[i].end) v -= eps[i].v;
            else v += eps[i].v;
        }
        if (any && E > S) g->sm_eff = total / us(E - S);
    }

    /* occupancy: weighted by each kernel's duration inside [S, E] */
    double occ = 0.0, tt = 0.0;
    for (size_t i = 0; i < n; i++) {
        const struct tp_kernel_info *ki = tp_store_kernel(st, (size_t)k[i]);
        if (!ki || isnan(ki->occupancy) || !(ki->occupancy >= 0.0)) continue;
        int64_t a = st->ts[k[i]] > S ? st->ts[k[i]] : S;
        int64_t b = st->ts[k[i]] + st->dur[k[i]] < E ? st->ts[k[i]] + st->dur[k[i]] : E;
        if (a < b) {
            occ += ki->occupancy * us(b - a);
            tt += us(b - a);
        }
    }
    g->occupancy = tt > 0.0 ? occ / tt : NAN;
    return 0;
}

/* The summary over breakdown bd and tree `tree` (the store's). */
static int compute(const tp_store *st, const struct tp_tb_breakdown *bd, const struct tb_model *tree,
                   struct tp_gpu_summary *out)
{
    memset(out, 0, sizeof *out);
    out->tc_used_ratio = NAN;
    out->steps = *bd;   /* a shallow copy: read only, not freed here */
    if (out->steps.nsteps) {
        out->start = out->steps.steps[0].start;
        out->end = out->steps.steps[out->steps.nsteps - 1].end;
    }
    int64_t S = out->start, E = out->end;

    uint8_t *cache = calloc(st->strings.count + 1, 1);
    if (!cache) goto oom0;
    /* the kernels with a device, in one pass with the totals: room for every
     * row (what is never written costs no memory) */
    int64_t *k = malloc((st->n ? st->n : 1) * sizeof *k);
    struct ep *eps = NULL;
    if (!k) goto oom;
    size_t nk = 0;
    int64_t tc_all = 0, k_all = 0;
    int any_kernel = 0;
    for (size_t i = 0; i < st->n; i++) {
        if (st->kind[i] != TP_K_KERNEL || st->ph[i] != 'X') continue;
        any_kernel = 1;
        tp_sat_add(&k_all, st->dur[i]);
        if (is_tc(st, st->name[i], cache)) tp_sat_add(&tc_all, st->dur[i]);
        if (st->device[i] >= 0) k[nk++] = (int64_t)i;
    }
    if (any_kernel) out->tc_used_ratio = k_all > 0 ? (double)tc_all / (double)k_all : 0.0;

    eps = malloc((nk ? nk : 1) * 2 * sizeof *eps);
    if (!eps) goto oom;
    if (sort_kernels(st, k, nk) < 0) goto oom;
    size_t ngpu = 0;
    for (size_t i = 0; i < nk; i++)
        if (i == 0 || st->device[k[i]] != st->device[k[i - 1]]) ngpu++;
    out->gpus = calloc(ngpu ? ngpu : 1, sizeof *out->gpus);
    if (!out->gpus) goto oom;
    for (size_t i = 0, j; i < nk; i = j) {
        for (j = i + 1; j < nk && st->device[k[j]] == st->device[k[i]]; j++) {}
        struct tp_gpu_metric *g = &out->gpus[out->ngpus++];
        g->id = st->device[k[i]];
        g->tc = NAN;
        for (size_t d = 0; d < st->ndevices; d++)
            if (st->devices[d].id == g->id) { g->dev = &st->devices[d]; break; }
        if (one_gpu(st, k + i, j - i, S, E, g, eps) < 0) goto oom;
    }

    /* Tensor Cores: kernels of operators' own runtime calls */
    {
        int32_t *ids = malloc((out->ngpus + 1) * sizeof *ids);
        int64_t *tc = calloc(out->ngpus + 1, sizeof *tc), *tot = calloc(out->ngpus + 1, sizeof *tot);
        if (!ids || !tc || !tot) {
            free(ids); free(tc); free(tot);
            goto oom;
        }
        for (size_t g = 0; g < out->ngpus; g++) ids[g] = out->gpus[g].id;
        struct tcsum a = {0, 0, 0, ids, out->ngpus, tc, tot, cache};
        for (size_t i = 0; i < tree->nroots; i++) tc_walk(st, tree, tree->roots[i], &a);
        out->tc_eligible_ops_kernel_ratio = a.op > 0 ? (double)a.bottom / (double)a.op : 0.0;
        if (a.has_kernel)
            for (size_t g = 0; g < out->ngpus; g++)
                out->gpus[g].tc = tot[g] > 0 ? (double)tc[g] / (double)tot[g] : 0.0;
        free(ids); free(tc); free(tot);
    }
    free(k); free(eps); free(cache);
    return 0;
oom:
    free(k); free(eps); free(cache);
oom0:
    tp_gpu_summary_free(out);
    return -1;
}

/* The summary, computed once per store: gpu and advice both read it, and
 * `report` runs both.  Built under the store's model lock, it takes the
 * breakdown and the tree from their slots (tp_gpu_summary has them built
 * first: asking tp_store_model for them here would wait on that lock). */
static void *summary_new(const tp_store *st)
{
    const struct tp_tb_breakdown *bd = st->models[TP_MODEL_TB_BREAKDOWN].p;
    const struct tb_model *tree = st->models[TP_MODEL_TB_TREE].p;
    struct tp_gpu_summary *s = bd && tree ? malloc(sizeof *s) : NULL;
    if (s && compute(st, bd, tree, s) < 0) {
        free(s);
        s = NULL;
    }
    return s;
}

static void summary_delete(void *p)
{
    tp_gpu_summary_free(p);
    free(p);
}

int tp_gpu_summary(const tp_store *st, struct tp_gpu_summary *out, tp_error *err)
{
    int got = tp_store_file_gpu(st, out);
    if (got > 0)
        return TP_OK;
    memset(out, 0, sizeof *out);
    TP_TRY_NOMEM(got == 0, err);
    TP_TRY(tp_store_need(st, TP_GPU_SUMMARY_NEEDS, err));
    /* the breakdown first: it leaves the X rows' order for the tree */
    TP_TRY_NOMEM(tp_store_breakdown(st) && tp_store_tb(st), err);
    const struct tp_gpu_summary *c = tp_store_model(st, TP_MODEL_GPU_SUMMARY, summary_new, summary_delete);
    TP_TRY_NOMEM(c, err);
    struct tp_gpu_metric *gpus = malloc((c->ngpus ? c->ngpus : 1) * sizeof *gpus);
    TP_TRY_NOMEM(gpus, err);
    *out = *c;   /* the steps are the store's breakdown, read only, as before */
    if (c->ngpus)
        memcpy(gpus, c->gpus, c->ngpus * sizeof *gpus);
    out->gpus = gpus;
    return TP_OK;
}

void tp_gpu_summary_free(struct tp_gpu_summary *s)
{
    free(s->gpus);
    memset(s, 0, sizeof *s);
}
