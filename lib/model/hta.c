/* hta.c — the Holistic Trace Analysis logic the HTA views share: kernel
 * classification (SPEC §1.2), the step window (HTA's load-time filter), the
 * GPU-event selection with its times, and interval unions and sweeps on
 * int64 nanoseconds.  See hta.h for the exact-vs-quirks modes. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hta.h"
#include "cmp.h"

/* ---- classification ---- */

static int starts(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

/* Python re.match("(.*)X") on s: X within the first line ('.' stops at \n). */
static int in_line(const char *s, size_t line, const char *x)
{
    size_t n = strlen(x);
    return line >= n && memmem(s, line, x, n) != NULL;
}

static int is_comm(const char *s, size_t line, int quirks)
{
    return starts(s, "nccl") || starts(s, "hccl") || (quirks && starts(s, "hip")) ||
           in_line(s, line, "ncclKernel");
}

/* HTA's ComputeKernelGroupingPattern is an inverse match of these. */
static int not_comp(const char *s, size_t line, int quirks)
{
    static const char *const pre[] = {"nccl", "Stream Wait Event", "runFunction", "job_exe", "packet",
                                      "pe_exe", "cpum_exe_subgraph", "hccl", "collective_subgraph_execution"};
    for (size_t i = 0; i < sizeof pre / sizeof *pre; i++)
        if (starts(s, pre[i]))
            return 1;
    if (quirks && starts(s, "hip"))
        return 1;
    if (in_line(s, line, "Memcpy") || in_line(s, line, "Memset") || in_line(s, line, "dma") ||
        in_line(s, line, "Sync"))
        return 1;
    /* cuda.*LaunchKernel */
    return starts(s, "cuda") && in_line(s + 4, line >= 4 ? line - 4 : 0, "LaunchKernel");
}

int tp_hta_kernel_type(const char *name, int quirks)
{
    size_t line = strcspn(name, "\n");
    if (is_comm(name, line, quirks))
        return TP_HTA_COMM;
    /* ^(hip)?Memcpy | ^(hip)?Memset | ^dma */
    const char *m = starts(name, "hip") ? name + 3 : name;
    if (starts(m, "Memcpy") || starts(m, "Memset") || starts(name, "dma"))
        return TP_HTA_MEM;
    if (!not_comp(name, line, quirks))
        return TP_HTA_COMP;
    return TP_HTA_OTHER;
}

const char *tp_hta_type_label(int mask)
{
    static const char *const labels[8] = {
        "",
        "COMPUTATION",
        "COMMUNICATION",
        "COMPUTATION overlapping COMMUNICATION",
        "MEMORY",
        "COMPUTATION overlapping MEMORY",
        "COMMUNICATION overlapping MEMORY",
        "COMPUTATION overlapping COMMUNICATION overlapping MEMORY",
    };
    return mask >= 1 && mask <= 7 ? labels[mask] : "";
}

int tp_hta_quirks_env(void)
{
    const char *q = getenv("TPROF_HTA_QUIRKS");
    return q && *q && strcmp(q, "0") != 0;
}

/* ---- interval algebra ---- */

TP_CMP_FIELDS(cmp_iv, struct tp_hta_iv, s, e)

/* cmp_iv's keys for tp_hta_sort (a stream's events come in time order, so
 * the ranges of a one-stream trace are in order already).  Ranges equal in
 * start and end are alike, so every order by (s, e) merges to the same
 * groups. */
static int64_t iv_key(const void *elem, int pass)
{
    const struct tp_hta_iv *v = elem;
    return pass == 0 ? v->e : v->s;
}

size_t tp_hta_merge(struct tp_hta_iv *v, size_t n)
{
    if (!n)
        return 0;
    if (tp_hta_sort(v, n, sizeof *v, 2, iv_key, cmp_iv) < 0)
        return SIZE_MAX;
    size_t o = 0;
    int64_t maxend = v[0].e;     /* cummax of every end so far */
    for (size_t i = 1; i < n; i++) {
        if (v[i].s > maxend) {
            v[++o] = v[i];
        } else if (v[i].e > v[o].e) {
            v[o].e = v[i].e;
        }
        if (v[i].e > maxend)
            maxend = v[i].e;
    }
    return o + 1;
}

int64_t tp_hta_len(const struct tp_hta_iv *v, size_t n)
{
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += v[i].e - v[i].s;
    return sum;
}

struct sweep_pt { int64_t t; int d; };

static int cmp_pt(const void *a, const void *b)
{
    const struct sweep_pt *x = a, *y = b;
    return TP_CMP(x->t, y->t);
}

/* p[0..np) holds nsets sorted runs of 2 n[k] points: merged into one
 * sorted run (by time; the sweep adds up the points of a time in any
 * order).  The sets are merged ranges, sorted and apart, so their points
 * come sorted unless HTA's rounding made an end precede its start: a merge
 * instead of a qsort of 500K points per sweep.  0, or -1 on out of memory. */
static int merge_runs(struct sweep_pt *p, size_t np, const size_t *n, int nsets)
{
    struct sweep_pt *tmp = malloc(np * sizeof *tmp);
    if (!tmp)
        return -1;
    size_t done = nsets > 0 ? 2 * n[0] : 0;   /* p[0..done) is sorted */
    for (int k = 1; k < nsets; k++) {
        size_t a = 0, b = done, end = done + 2 * n[k], o = 0;
        while (a < done && b < end)
            tmp[o++] = p[b].t < p[a].t ? p[b++] : p[a++];
        while (a < done)
            tmp[o++] = p[a++];
        while (b < end)
            tmp[o++] = p[b++];
        memcpy(p, tmp, end * sizeof *p);
        done = end;
    }
    free(tmp);
    return 0;
}

int tp_hta_sweep(const struct tp_hta_iv *const *sets, const size_t *n, const int *w, int nsets,
                 int64_t time[8])
{
    size_t np = 0;
    for (int k = 0; k < nsets; k++)
        np += 2 * n[k];
    for (int r = 0; r < 8; r++)
        time[r] = 0;
    if (!np)
        return 0;
    struct sweep_pt *p = malloc(np * sizeof *p);
    if (!p)
        return -1;
    size_t j = 0;
    int runs_sorted = 1;
    for (int k = 0; k < nsets; k++)
        for (size_t i = 0; i < n[k]; i++) {
            p[j].t = sets[k][i].s; p[j++].d = w[k];
            p[j].t = sets[k][i].e; p[j++].d = -w[k];
            if (p[j - 2].t > p[j - 1].t || (i > 0 && p[j - 3].t > p[j - 2].t))
                runs_sorted = 0;
        }
    if (runs_sorted && merge_runs(p, np, n, nsets) < 0) {
        free(p);
        return -1;
    }
    if (!runs_sorted)
        qsort(p, np, sizeof *p, cmp_pt);
    int running = 0;
    for (size_t i = 0; i < np;) {
        int64_t t = p[i].t;
        while (i < np && p[i].t == t)
            running += p[i++].d;
        if (i < np && running >= 1 && running <= 7)
            time[running] += p[i].t - t;
    }
    free(p);
    return 0;
}

int64_t tp_hta_intersect_len(const struct tp_hta_iv *a, size_t na, const struct tp_hta_iv *b, size_t nb)
{
    int64_t sum = 0;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        int64_t s = a[i].s > b[j].s ? a[i].s : b[j].s;
        int64_t e = a[i].e < b[j].e ? a[i].e : b[j].e;
        if (s < e)
            sum += e - s;
        if (a[i].e < b[j].e)
            i++;
        else
            j++;
    }
    return sum;
}

/* ---- one store ---- */

/* Python float() of the decimal µs text of an ns value: the correctly rounded
 * double, as HTA's json.loads reads "ts": 3605054884891.872. */
static double us_double(int64_t ns)
{
    char buf[48];
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    snprintf(buf, sizeof buf, "%s%llu.%03llu", ns < 0 ? "-" : "", (unsigned long long)(a / 1000),
             (unsigned long long)(a % 1000));
    return strtod(buf, NULL);
}

static void hta_round(int64_t ts, int64_t dur, int64_t *s, int64_t *e)
{
    double t = us_double(ts), d = us_double(dur);
    *s = (int64_t)ceil(t) * 1000;
    *e = (int64_t)floor(t + d) * 1000;
}

void tp_hta_round(const tp_store *st, size_t r, int64_t *s, int64_t *e)
{
    hta_round(st->ts[r], st->dur[r], s, e);
}

static int64_t corr_of(const tp_store *st, size_t r)
{
    return st->correlation[r] == TP_NONE ? -1 : st->correlation[r];
}

static int is_step_name(const char *s)
{
    return strncmp(s, "ProfilerStep#", 13) == 0 && s[13] >= '0' && s[13] <= '9';
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int tp_hta_init(struct tp_hta *h, const tp_store *st, const struct tp_view_opts *vo)
{
    memset(h, 0, sizeof *h);
    h->st = st;
    h->quirks = (vo && vo->hta_quirks) || tp_hta_quirks_env();
    h->all_steps = vo && vo->all_steps;
    if (!h->quirks) {
        if (st->nsteps >= 2) {
            h->filtered = 1;
            h->cut = st->steps[st->nsteps - 1].ts;
            if (h->all_steps) {
                h->cut = st->steps[0].end;
                for (size_t i = 1; i < st->nsteps; i++)
                    if (st->steps[i].end > h->cut)
                        h->cut = st->steps[i].end;
            }
        }
        return 0;
    }
    /* HTA: every CPU event (not a GPU kernel) named ProfilerStep#N, GPU-side
     * annotation copies included; the filter needs two distinct names. */
    size_t ns = 0, cap = 16;
    uint32_t *names = malloc(cap * sizeof *names);
    if (!names)
        return -1;
    int64_t cut = INT64_MIN, cut_end = INT64_MIN;
    for (size_t r = 0; r < st->n; r++) {
        if (st->ph[r] != 'X' || !is_step_name(tp_store_str(st, st->name[r])))
            continue;
        if (st->stream[r] >= 0 && corr_of(st, r) >= 0)
            continue;
        int64_t s, e;
        hta_round(st->ts[r], st->dur[r], &s, &e);
        if (s > cut) cut = s;
        if (e > cut_end) cut_end = e;
        if (ns == cap) {
            uint32_t *p = realloc(names, 2 * cap * sizeof *p);
            if (!p) {
                free(names);
                return -1;
            }
            names = p;
            cap *= 2;
        }
        names[ns++] = st->name[r];
    }
    qsort(names, ns, sizeof *names, cmp_u32);
    size_t distinct = 0;
    for (size_t i = 0; i < ns; i++)
        if (i == 0 || names[i] != names[i - 1])
            distinct++;
    free(names);
    if (distinct >= 2) {
        h->filtered = 1;
        h->cut = h->all_steps ? cut_end : cut;
    }
    return 0;
}

void tp_hta_free(struct tp_hta *h)
{
    free(h->ktype);
    h->ktype = NULL;
}

int tp_hta_type(struct tp_hta *h, size_t r)
{
    uint32_t id = h->st->name[r];
    if (!h->ktype && h->st->strings.count) {
        h->nktype = h->st->strings.count;
        h->ktype = calloc(h->nktype, 1);
    }
    if (!h->ktype || id >= h->nktype)
        return tp_hta_kernel_type(tp_store_str(h->st, id), h->quirks);
    if (!h->ktype[id])
        h->ktype[id] = (uint8_t)(tp_hta_kernel_type(tp_store_str(h->st, id), h->quirks) + 1);
    return h->ktype[id] - 1;
}

int tp_hta_collect(struct tp_hta *h, struct tp_hta_sets *o)
{
    const tp_store *st = h->st;
    memset(o, 0, sizeof *o);
    /* the kernel-type cache first: without it tp_hta_type still answers,
     * but a failed allocation is reported, never done without */
    if (!h->ktype && st->strings.count) {
        h->nktype = st->strings.count;
        h->ktype = calloc(h->nktype, 1);
        if (!h->ktype)
            return -1;
    }
    size_t n = 0;
    for (size_t r = 0; r < st->n; r++)
        if (tp_hta_is_gpu(h, r) && tp_hta_keep(h, r))
            n++;
    o->all = malloc((n ? n : 1) * sizeof *o->all);
    for (int k = 0; k < 3; k++)
        o->type[k] = malloc((n ? n : 1) * sizeof *o->type[k]);
    if (!o->all || !o->type[0] || !o->type[1] || !o->type[2]) {
        tp_hta_sets_free(o);
        return -1;
    }
    for (size_t r = 0; r < st->n; r++) {
        if (!tp_hta_is_gpu(h, r) || !tp_hta_keep(h, r))
            continue;
        struct tp_hta_iv iv;
        tp_hta_times(h, r, &iv.s, &iv.e);
        o->all[o->nall++] = iv;
        int t = tp_hta_type(h, r);
        int k = t == TP_HTA_COMP ? 0 : t == TP_HTA_COMM ? 1 : t == TP_HTA_MEM ? 2 : -1;
        if (k >= 0)
            o->type[k][o->ntype[k]++] = iv;
    }
    o->nevents = o->nall;
    o->nall = tp_hta_merge(o->all, o->nall);
    int oom = o->nall == SIZE_MAX;
    for (int k = 0; k < 3; k++) {
        o->ntype[k] = tp_hta_merge(o->type[k], o->ntype[k]);
        oom |= o->ntype[k] == SIZE_MAX;
    }
    if (oom) {
        tp_hta_sets_free(o);
        return -1;
    }
    return 0;
}

void tp_hta_sets_free(struct tp_hta_sets *o)
{
    free(o->all);
    for (int k = 0; k < 3; k++)
        free(o->type[k]);
    memset(o, 0, sizeof *o);
}

int64_t tp_hta_rank(const tp_store *st)
{
    return st->rank == TP_NONE ? 0 : st->rank;
}

int tp_hta_is_launch(const char *name, int launch_stats, int quirks)
{
    static const char *const stats[] = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync",
                                        "cudaMemsetAsync", "runFunction - job_prep_and_submit_for_execution"};
    static const char *const more[] = {"cuLaunchKernel", "cuLaunchKernelEx", "hipLaunchKernel",
                                       "hipExtModuleLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync",
                                       "hipMemcpyWithStream"};
    for (size_t i = 0; i < sizeof stats / sizeof *stats; i++)
        if (strcmp(name, stats[i]) == 0)
            return 1;
    if (launch_stats && quirks)
        return 0;
    for (size_t i = 0; i < sizeof more / sizeof *more; i++)
        if (strcmp(name, more[i]) == 0)
            return 1;
    return 0;
}

void tp_hta_note_empty(const tp_store *st, const char *what, tp_error *err)
{
    tp_error_set(err, TP_OK, "%s: no GPU kernel, memcpy or memset with a stream%s: %s", st->path,
                 st->nsteps >= 2 ? " launched before the last ProfilerStep (--all-steps keeps it)" : "",
                 what);
}
