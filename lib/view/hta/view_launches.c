/* view_launches.c — `tprof launches`: Holistic Trace Analysis' CUDA kernel
 * launch statistics (peers SPEC §1.3), one row per launch.
 *
 * Every GPU event HTA keeps whose launching call (same correlation id) is a
 * kernel launch or async memcpy/memset: the call's duration (cpu_dur), the
 * GPU event's (gpu_dur), and launch_delay = GPU start - call end, 0 when
 * negative.  The outlier column names HTA's three plots a launch falls in:
 * "short" (cpu_dur <= runtime cut-off and gpu_dur < cpu_dur), "runtime"
 * (cpu_dur > runtime cut-off, 50 µs by default, --runtime-cutoff) and
 * "delay" (launch_delay > launch-delay cut-off, 100 µs, --launch-delay-cutoff).
 * HTA's list of launch calls has no cuLaunchKernel (Triton) or ROCm hip*
 * calls; tprof counts them too (TPROF_HTA_QUIRKS=1: HTA's list).  A graph
 * launch (cudaGraphLaunch, hipGraphLaunch) is a launch too: every kernel of
 * the replay is a row with the call as its runtime; only the replay's first
 * kernel has a launch delay and outlier flags (the others wait for the graph's
 * own earlier nodes, not for the CPU).  Rows are in launch order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hta.h"
#include "table.h"
#include "coldefs.h"
#include "views.h"
#include "summ.h"
#include "cmp.h"
#include "try.h"

/* six --summary statistics of one duration */
#define STAT_COLS(k, H, what)                                                                              \
    {k "_total", H "Total(us)", TP_COL_US, -1, 0, "--summary: sum of " what},                               \
    {k "_mean", H "Mean(us)", TP_COL_FIXED, -1, 3, "--summary: mean " what},                                \
    {k "_median", H "Median(us)", TP_COL_US, -1, 0, "--summary: median " what " (mean of the middle two)"}, \
    {k "_min", H "Min(us)", TP_COL_US, -1, 0, "--summary: shortest " what},                                 \
    {k "_max", H "Max(us)", TP_COL_US, -1, 0, "--summary: longest " what},                                  \
    {k "_std", H "Std(us)", TP_COL_US, -1, 0, "--summary: sample standard deviation of " what " (- under two)"}
#define TP_COLS_FILE "view_launches.def"
#define TP_COLS_ARRAY tp_launches_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

struct lev { int64_t rts, ts, row; };

static int cmp_lev(const void *a, const void *b)
{
    const struct lev *x = a, *y = b;
    TP_CMP_BY(x, y, rts);
    TP_CMP_BY(x, y, ts);
    return TP_CMP(x->row, y->row);
}

static int64_t cutoff_ns(double us, double dflt)
{
    if (!(us > 0) || !isfinite(us))
        us = dflt;
    return us > 9e12 ? INT64_MAX : (int64_t)llround(us * 1000.0);
}

/* cmp_lev's keys for tp_hta_sort, least significant first.  The launches
 * are made in row order, so ties stay in row order as cmp_lev has them (a
 * qsort of 250K launches was a third of this view on a 1 GB trace). */
static int64_t lev_key(const void *elem, int pass)
{
    const struct lev *v = elem;
    return pass == 0 ? v->ts : v->rts;
}

/* One launch: its GPU event row r, its runtime call row l, the durations;
 * replayed: a later kernel of a graph replay (no launch delay, no flags). */
struct launch { size_t r, l; int64_t cpu, gpu, delay; int replayed; };

/* The launches HTA lists, in launch order (*out malloc'd); 0 or -1. */
static int collect(const tp_store *st, const struct tp_view_opts *vo, struct launch **out, size_t *nout)
{
    *out = NULL;
    *nout = 0;
    struct tp_hta h;
    if (tp_hta_init(&h, st, vo) < 0)
        return -1;
    /* launch-call names, classified once per name id */
    uint8_t *is_launch = calloc(st->strings.count ? st->strings.count : 1, 1);
    size_t n = 0;
    for (size_t r = 0; r < st->n; r++)
        if (tp_store_launcher(st, r) >= 0 && tp_hta_is_gpu(&h, r))
            n++;
    struct lev *v = malloc((n ? n : 1) * sizeof *v);
    struct launch *L = malloc((n ? n : 1) * sizeof *L);
    if (!is_launch || !v || !L) {
        free(is_launch);
        free(v);
        free(L);
        tp_hta_free(&h);
        return -1;
    }
    n = 0;
    for (size_t r = 0; r < st->n; r++) {
        int64_t l = tp_store_launcher(st, r);
        if (l < 0 || !tp_hta_is_gpu(&h, r) || !tp_hta_keep(&h, r))
            continue;
        uint32_t id = st->name[l];
        if (!is_launch[id])
            is_launch[id] = tp_hta_is_launch(tp_store_str(st, id), 1, h.quirks) ||
                                    (!h.quirks && tp_is_graph_launch(tp_store_str(st, id)))
                                ? 1 : 2;
        if (is_launch[id] != 1)
            continue;
        int64_t e;
        tp_hta_times(&h, (size_t)l, &v[n].rts, &e);
        tp_hta_times(&h, r, &v[n].ts, &e);
        v[n++].row = (int64_t)r;
    }
    if (tp_hta_sort(v, n, sizeof *v, 2, lev_key, cmp_lev) < 0) {
        free(is_launch);
        free(v);
        free(L);
        tp_hta_free(&h);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        size_t r = (size_t)v[i].row, l = (size_t)tp_store_launcher(st, r);
        /* a later kernel of the same graph replay: no launch delay of its own */
        int replayed = i > 0 && tp_store_launcher(st, v[i - 1].row) == (int64_t)l &&
                       tp_is_graph_launch(tp_store_str(st, st->name[l]));
        int64_t rs, re, ks, ke;
        tp_hta_times(&h, l, &rs, &re);
        tp_hta_times(&h, r, &ks, &ke);
        int64_t cpu = re - rs, gpu = ke - ks, delay = ks - rs - cpu;
        L[i] = (struct launch){r, l, cpu, gpu, delay < 0 ? 0 : delay, replayed};
    }
    free(is_launch);
    free(v);
    tp_hta_free(&h);
    *out = L;
    *nout = n;
    return 0;
}

/* HTA's outlier classes of a launch (none for a replayed kernel). */
static int is_short(const struct launch *x, int64_t rcut) { return !x->replayed && x->cpu <= rcut && x->gpu < x->cpu; }
static int is_runtime(const struct launch *x, int64_t rcut) { return !x->replayed && x->cpu > rcut; }
static int is_delay(const struct launch *x, int64_t dcut) { return !x->replayed && x->delay > dcut; }

static const char *no_launch = "%s: no kernel launch (runtime call with a correlated GPU event): no launch statistics";

static int build_launches(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    int64_t rcut = cutoff_ns(vo ? vo->runtime_cutoff_us : 0, 50);
    int64_t dcut = cutoff_ns(vo ? vo->launch_delay_cutoff_us : 0, 100);
    struct launch *L;
    size_t n;
    tp_table *t = tp_table_new(tp_launches_cols, C_N);
    if (!t || collect(st, vo, &L, &n) < 0) {
        tp_table_free(t);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    int64_t rank = tp_hta_rank(st);
    for (size_t i = 0; i < n; i++) {
        const struct launch *x = &L[i];
        /* short and runtime exclude each other (cpu_dur at most the cut-off
         * or above it): six texts, literals set by address */
        static const char *const texts[3][2] = {{"", "delay"}, {"short", "short,delay"}, {"runtime", "runtime,delay"}};
        const char *flags = texts[is_short(x, rcut) ? 1 : is_runtime(x, rcut) ? 2 : 0][is_delay(x, dcut)];
        if (tp_table_add_row(t) < 0)
            break;
        tp_table_set_int(t, C_RANK, rank);
        if (st->correlation[x->r] != TP_NONE)
            tp_table_set_int(t, C_CORR, st->correlation[x->r]);
        else
            tp_table_set_null(t, C_CORR);
        tp_table_set_str_stable(t, C_RUNTIME, tp_store_str(st, st->name[x->l]));   /* store strings */
        tp_table_set_str_stable(t, C_KERNEL, tp_store_str(st, st->name[x->r]));
        tp_table_set_int(t, C_STREAM, st->stream[x->r]);
        tp_table_set_int(t, C_CPU, x->cpu);
        tp_table_set_int(t, C_GPU, x->gpu);
        if (x->replayed)
            tp_table_set_null(t, C_DELAY);
        else
            tp_table_set_int(t, C_DELAY, x->delay);
        if (*flags)
            tp_table_set_str_stable(t, C_OUTLIER, flags);
        else
            tp_table_set_null(t, C_OUTLIER);
    }
    free(L);
    if (tp_table_rows(t) == 0)
        tp_error_set(err, TP_OK, no_launch, st->path);
    *out = t;
    return TP_OK;
}

/* ---- --summary: exact mergeable statistics per (runtime call, kernel) ----
 *
 * Each (runtime, kernel) has five groups (key "metric"): the multisets of
 * cpu_dur and gpu_dur over its launches, of launch_delay over the launches
 * that have one, and, for the outlier counts at any cut-off given to the
 * table, the cpu_dur of the launches that can be flagged (not a replay's
 * later kernel) and of those among them whose GPU event is shorter than the
 * call (HTA's "short" when cpu_dur <= the cut-off).  Counts, sums, squares
 * and multisets are integers: ranks merge exactly, and the cut-offs stay
 * options of the table, not of the summary. */
enum { M_CPU, M_GPU, M_DELAY, M_FLAGGABLE, M_SHORTER, M_N };
static const char *const metric[M_N] = {"cpu_dur", "gpu_dur", "launch_delay", "cpu_dur_flaggable",
                                        "cpu_dur_gpu_shorter"};

/* --hta-quirks (or TPROF_HTA_QUIRKS=1) and --all-steps choose the launches:
 * the summary keeps them (ranks merged have the same). */
static long summ_param(const struct tp_view_opts *vo)
{
    return ((vo && vo->hta_quirks) || tp_hta_quirks_env() ? 1 : 0) | (vo && vo->all_steps ? 2 : 0);
}

static int summ_add(struct tp_section *sec, const char *rt, const char *k, int m, int64_t v)
{
    const char *key[] = {rt, k, metric[m]};
    struct tp_sgroup *g = tp_summ_group(sec, key);
    return g && tp_summ_add(g, v) == 0 ? 0 : -1;
}

static int summarize(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    long p = sec->flags >> TP_SUMM_PARAM_SHIFT;
    struct tp_view_opts vo = {.hta_quirks = (int)(p & 1), .all_steps = (int)(p >> 1 & 1)};
    struct launch *L;
    size_t n;
    TP_TRY_NOMEM(collect(st, &vo, &L, &n) >= 0, err);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const struct launch *x = &L[i];
        const char *rt = tp_store_str(st, st->name[x->l]), *k = tp_store_str(st, st->name[x->r]);
        rc = summ_add(sec, rt, k, M_CPU, x->cpu) | summ_add(sec, rt, k, M_GPU, x->gpu);
        if (rc == 0 && !x->replayed)
            rc = summ_add(sec, rt, k, M_DELAY, x->delay) | summ_add(sec, rt, k, M_FLAGGABLE, x->cpu) |
                 (x->gpu < x->cpu ? summ_add(sec, rt, k, M_SHORTER, x->cpu) : 0);
    }
    free(L);
    return rc ? tp_error_set(err, TP_ERR_NOMEM, "out of memory") : TP_OK;
}

/* Values of g's multiset above cut (at most cut: le). */
static int64_t count_above(const struct tp_sgroup *g, int64_t cut, int le)
{
    int64_t c = 0;
    for (size_t i = 0; g && i < g->nd; i++)
        if ((g->d[i].v > cut) != le)
            c += g->d[i].n;
    return c;
}

struct lrow { const struct tp_sgroup *m[M_N]; };

static int cmp_keys(const struct tp_sgroup *const *a, const struct tp_sgroup *const *b)
{
    for (int k = 0; k < 3; k++) {
        int c = strcmp((*a)->key[k], (*b)->key[k]);
        if (c)
            return c;
    }
    return 0;
}

/* Most launches first; then by runtime call and kernel name: an order no
 * merge of ranks changes. */
static int cmp_lrow(const void *a, const void *b)
{
    const struct tp_sgroup *x = ((const struct lrow *)a)->m[M_CPU], *y = ((const struct lrow *)b)->m[M_CPU];
    TP_CMP_BY(y, x, n);   /* descending */
    int c = strcmp(x->key[0], y->key[0]);
    return c ? c : strcmp(x->key[1], y->key[1]);
}

static void put_stats(tp_table *t, size_t col, const struct tp_sgroup *g)
{
    if (!g || g->n == 0) {
        for (size_t c = 0; c < 6; c++)
            tp_table_set_null(t, col + c);
        return;
    }
    tp_table_set_int(t, col, g->sum);
    tp_table_set_float(t, col + 1, (double)g->sum / (double)g->n / 1000.0);
    tp_table_set_float(t, col + 2, tp_summ_median(g));
    tp_table_set_int(t, col + 3, g->min);
    tp_table_set_int(t, col + 4, g->max);
    double sd = tp_summ_std(g);
    if (isnan(sd)) tp_table_set_null(t, col + 5);
    else tp_table_set_float(t, col + 5, sd);
}

static int summ_table(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                      tp_error *err)
{
    *out = NULL;
    long have = sec->flags >> TP_SUMM_PARAM_SHIFT, want = summ_param(vo);
    if (have != want) {   /* a summary file keeps HTA's default launches */
        static const char *const opts[] = {"the default options", "--hta-quirks", "--all-steps",
                                           "--hta-quirks --all-steps"};
        return tp_error_set(err, TP_ERR_FORMAT, "%s: the summary holds the launches of %s, not of %s: read the traces",
                            path, opts[have & 3], opts[want & 3]);
    }
    int64_t rcut = cutoff_ns(vo ? vo->runtime_cutoff_us : 0, 50);
    int64_t dcut = cutoff_ns(vo ? vo->launch_delay_cutoff_us : 0, 100);
    const struct tp_sgroup **perm = tp_summ_sorted(sec, cmp_keys);
    struct lrow *rows = calloc(sec->ng ? sec->ng : 1, sizeof *rows);
    tp_table *t = tp_table_new(tp_launches_cols, C_N);
    size_t nr = 0;
    if (!perm || !rows || !t) {
        free(perm);
        free(rows);
        tp_table_free(t);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < sec->ng; i++) {
        const struct tp_sgroup *g = perm[i];
        if (nr == 0 || strcmp(rows[nr - 1].m[M_CPU]->key[0], g->key[0]) != 0 ||
            strcmp(rows[nr - 1].m[M_CPU]->key[1], g->key[1]) != 0)
            nr++;
        for (int m = 0; m < M_N; m++)
            if (strcmp(g->key[2], metric[m]) == 0)
                rows[nr - 1].m[m] = g;
        if (!rows[nr - 1].m[M_CPU])
            rows[nr - 1].m[M_CPU] = g;   /* never: every launch has its cpu_dur (sorts first) */
    }
    qsort(rows, nr, sizeof *rows, cmp_lrow);
    for (size_t i = 0; i < nr; i++) {
        const struct lrow *R = &rows[i];
        tp_table_add_row(t);
        tp_table_set_str(t, C_RUNTIME, R->m[M_CPU]->key[0]);
        tp_table_set_str(t, C_KERNEL, R->m[M_CPU]->key[1]);
        tp_table_set_int(t, C_CALLS, R->m[M_CPU]->n);
        put_stats(t, C_STATS, R->m[M_CPU]);
        put_stats(t, C_STATS + 6, R->m[M_GPU]);
        put_stats(t, C_STATS + 12, R->m[M_DELAY]);
        tp_table_set_int(t, C_NSHORT, count_above(R->m[M_SHORTER], rcut, 1));
        tp_table_set_int(t, C_NRUNTIME, count_above(R->m[M_FLAGGABLE], rcut, 0));
        tp_table_set_int(t, C_NDELAY, count_above(R->m[M_DELAY], dcut, 0));
    }
    free(perm);
    free(rows);
    if (tp_table_nomem(t)) {
        tp_table_free(t);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    if (nr == 0)
        tp_error_set(err, TP_OK, no_launch, path);
    *out = t;
    return TP_OK;
}

static int reads(const struct tp_view_opts *vo, const char *variant)
{
    (void)variant;
    return vo && vo->summary;   /* the per-launch table is a timeline: laid out */
}

static const struct tp_summ_desc summ_desc = {
    .view = "launches", .variant = "summary", .nkeys = 3, .keys = {"runtime", "kernel", "metric"},
};
const struct tp_summ_view tp_summ_launches = {&summ_desc, "launches", reads, summarize, summ_table, summ_param};

int tp_launches_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    if (vo && vo->summary)   /* one trace is a run of one rank */
        return tp_summ_view_build(&tp_summ_launches, st, vo, out, err);
    return build_launches(st, vo, out, err);
}

const char *tp_launches_columns_for(const struct tp_view_opts *vo)
{
    return vo && vo->summary ? "runtime,kernel,calls,cpu_total,cpu_mean,cpu_median,cpu_min,cpu_max,cpu_std,"
                               "gpu_total,gpu_mean,gpu_median,gpu_min,gpu_max,gpu_std,delay_total,delay_mean,"
                               "delay_median,delay_min,delay_max,delay_std,n_short,n_runtime,n_delay"
                             : NULL;
}
