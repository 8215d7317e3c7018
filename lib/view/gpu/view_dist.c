/* view_dist.c — `tprof dist`: the TensorBoard plugin's Distributed view
 * (SPEC kineto §9) over every rank of a run (tp_dist_build_run); a single trace is a
 * run of one rank.
 *
 * Per rank and step: computation, overlap, communication and other, as the
 * plugin's Computation/Communication Overview computes them from the raw
 * merged role ranges (computation = the kernel role, or the CPU-op role when
 * the rank has no kernel; communication = NCCL/Gloo ops and the kernels they
 * launched): the four parts are computation - overlap, overlap,
 * communication - overlap and the rest, so they sum to the step time.  The
 * steps are the plugin's (tp_tb_breakdown: ProfilerSteps widened to their GPU
 * work).  Data transfer versus synchronizing time (§9.3) compares the ranks'
 * communication nodes one by one: the shortest participant's duration is the
 * transfer, the rest of each rank's time is waiting.  --comm gives the
 * communication ops table (§9.4) instead.  Times are exact int64 ns; the
 * plugin's truncation to whole µs in its averages is not repeated: the avg
 * rows round to the ns, the total as `tprof steps` rounds its avg total, and
 * the parts so that they still sum to it (mean_row).  --merge reads the
 * ranks back from their exact summaries (dist_summ.c) into the same tables. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "store.h"
#include "table.h"
#include "coldefs.h"
#include "breakdown.h"
#include "views.h"
#include "ranges.h"
#include "tb_classify.h"
#include "dist_rank.h"
#include "cmp.h"
#include "grow.h"
#include "try.h"

/* One registry for both tables: the overview fills rank..sync, --comm fills
 * rank, worker, op..avg_transfer (transfer is per step in one, per op in the
 * other). */
#define TP_COLS_FILE "view_dist.def"
#define TP_COLS_ARRAY tp_dist_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"
enum { O_RANK = C_RANK, O_WORKER = C_WORKER, O_OP = C_OP, O_CALLS = C_CALLS, O_SIZE = C_SIZE,
       O_AVG_SIZE = C_AVG_SIZE, O_LAT = C_LAT, O_AVG_LAT = C_AVG_LAT, O_XFER = C_TRANSFER,
       O_AVG_XFER = C_AVG_XFER };

/* The rank cell: "all" for --merge rows, "-" for a trace without a rank. */
static void set_rank(tp_table *t, const tp_store *st)
{
    if (!st)
        tp_table_set_str(t, C_RANK, "all");
    else if (st->rank != TP_NONE)
        tp_table_set_int(t, C_RANK, st->rank);
}

/* ---- the plugin's classification (SPEC §2.2, §4.1) ---- */

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }





/* ---- communication sizes (SPEC §9.4) ---- */

static int64_t elem_size(const char *t, size_t n)
{
    static const struct { const char *name; int64_t size; } sz[] = {
        {"long int", 8}, {"float", 4}, {"int", 4}, {"c10::Half", 2}, {"c10::BFloat16", 2},
        {"unsigned char", 1},
    };
    for (size_t i = 0; i < sizeof sz / sizeof *sz; i++)
        if (strlen(sz[i].name) == n && memcmp(sz[i].name, t, n) == 0)
            return sz[i].size;
    return 0;   /* the plugin's "anything else = 0" (double and bool included) */
}

static const char *skip_sep(const char *p)
{
    while (*p == ' ' || *p == ',' || *p == '\n' || *p == '\r' || *p == '\t')
        p++;
    return p;
}

/* Σ over inputs of Π dims × element size, from the raw JSON of "Input Dims"
 * ([[53120], []]) and "Input type" (["float", "Int"]).  An empty shape gives
 * no bytes; a shape that is not a list of integers gives none either. */
static int64_t comm_bytes(const char *dims, const char *types)
{
    if (!dims || !types)
        return 0;
    /* the type strings, in order */
    const char *tv[256];
    size_t tl[256], nt = 0;
    const char *p = strchr(types, '[');
    while (p && *p && nt < 256) {
        const char *q = strchr(p, '"');
        if (!q)
            break;
        const char *e = q + 1;
        while (*e && *e != '"') {
            if (*e == '\\' && e[1])
                e++;
            e++;
        }
        if (!*e)
            break;
        tv[nt] = q + 1;
        tl[nt++] = (size_t)(e - q - 1);
        p = e + 1;
    }
    p = strchr(dims, '[');
    if (!p)
        return 0;
    p++;
    int64_t total = 0;
    size_t idx = 0;
    while (*p) {
        p = skip_sep(p);
        if (*p != '[')
            break;
        p++;
        int64_t prod = 1, ndim = 0;
        int ok = 1;
        for (;;) {
            p = skip_sep(p);
            if (*p == ']') {
                p++;
                break;
            }
            char *end;
            long long d = strtoll(p, &end, 10);
            if (end == p) {   /* nested list or junk: skip this input */
                ok = 0;
                int depth = 1;
                while (*p && depth) {
                    if (*p == '[') depth++;
                    else if (*p == ']') depth--;
                    p++;
                }
                break;
            }
            p = end;
            if (d < 0 || (d > 0 && prod > INT64_MAX / d))
                ok = 0;
            else
                prod *= d;
            ndim++;
        }
        if (ok && ndim > 0 && idx < nt) {
            int64_t es = elem_size(tv[idx], tl[idx]);
            if (es && prod <= INT64_MAX / es && total <= INT64_MAX - prod * es)
                total += prod * es;
        }
        idx++;
    }
    return total;
}

/* ---- one rank ---- */

static int cmp_node(const void *a, const void *b)
{
    const struct dist_cnode *x = a, *y = b;
    TP_CMP_BY(x, y, s);
    TP_CMP_BY(y, x, e);   /* descending */
    return 0;
}

static int cmp_rg_rev_end(const void *a, const void *b)
{
    const struct tp_range *x = a, *y = b;
    TP_CMP_BY(x, y, s);
    return TP_CMP(y->e, x->e);   /* descending */
}

static int64_t key_find(const int64_t *keys, const size_t *val, size_t n, int64_t k)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (keys[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && keys[lo] == k ? (int64_t)val[lo] : -1;
}

void tp_dist_rank_free(struct dist_rank *R)
{
    free(R->steps);
    free(R->comp.a);
    free(R->comm.a);
    free(R->ov.a);
    for (size_t i = 0; i < R->nnodes; i++) {
        free(R->nodes[i].kr.a);
        free(R->nodes[i].real.a);
    }
    free(R->nodes);
}

struct extidx { int64_t ext; size_t node; };
static int cmp_extidx(const void *a, const void *b)
{
    const struct extidx *x = a, *y = b;
    TP_CMP_BY(x, y, ext);
    return TP_CMP(x->node, y->node);
}

/* The communication nodes (with their CPU range as the first kernel range
 * and their bytes) and, into cpu, the CPU-side role ranges the plugin uses
 * as computation on a rank without kernels. */
static int collect_comm_nodes(struct dist_rank *R, struct tp_ranges *cpu)
{
    const tp_store *st = R->st;
    size_t capn = 0;
    for (size_t r = 0; r < st->n; r++) {
        if (st->ph[r] != 'X' || !tp_tb_is_host_node(st, r))
            continue;
        const char *name = tp_store_str(st, st->name[r]);
        int64_t s = st->ts[r], e = st->ts[r] + st->dur[r];
        int lib = tp_tb_comm_lib(name);
        if (lib) {
            if (tp_ranges_push(&R->comm, s, e) < 0)
                return -1;
            R->lib |= lib;
            if (tp_grow((void **)&R->nodes, &capn, R->nnodes + 1, sizeof *R->nodes) < 0)
                return -1;
            struct dist_cnode *c = &R->nodes[R->nnodes++];
            memset(c, 0, sizeof *c);
            c->s = s;
            c->e = e;
            c->name = st->name[r];
            c->nm = name;
            c->ext = tp_store_ext(st, r);
            c->step = -1;
            const struct tp_op_info *oi = st->aux[r] != TP_NO_AUX && st->aux[r] < st->nops ? &st->ops[st->aux[r]] : NULL;
            if (oi && oi->input_dims && oi->input_types)
                c->bytes = comm_bytes(tp_store_str(st, oi->input_dims), tp_store_str(st, oi->input_types));
            if (tp_ranges_push(&c->kr, s, e) < 0)
                return -1;
            continue;
        }
        if (starts(name, "ProfilerStep#") && st->kind[r] != TP_K_PYTHON_FUNCTION)
            continue;
        if (st->kind[r] != TP_K_PYTHON_FUNCTION && tp_tb_is_dataloader(name))
            continue;
        if (tp_ranges_push(cpu, s, e) < 0)
            return -1;
    }
    return 0;
}

/* communication_data is keyed by External id: a later node with the same
 * id replaces the earlier one (Python dict semantics, first position kept);
 * the later node is marked INT64_MIN + 1 for keep_last_none to drop.  xi,
 * keys and vals have room for every node. */
static void merge_same_ext(struct dist_rank *R, struct extidx *xi, int64_t *keys, size_t *vals)
{
    size_t nx = 0;
    for (size_t i = 0; i < R->nnodes; i++)
        if (R->nodes[i].ext != TP_NONE)
            xi[nx++] = (struct extidx){R->nodes[i].ext, i};
    qsort(xi, nx, sizeof *xi, cmp_extidx);
    size_t nk = 0;
    for (size_t i = 0; i < nx; i++) {
        if (nk && keys[nk - 1] == xi[i].ext) {
            /* the later node takes the earlier one's place */
            size_t old = vals[nk - 1];
            free(R->nodes[old].kr.a);
            R->nodes[old].kr = R->nodes[xi[i].node].kr;
            R->nodes[old].s = R->nodes[xi[i].node].s;
            R->nodes[old].e = R->nodes[xi[i].node].e;
            R->nodes[old].name = R->nodes[xi[i].node].name;
            R->nodes[old].nm = R->nodes[xi[i].node].nm;
            R->nodes[old].bytes = R->nodes[xi[i].node].bytes;
            memset(&R->nodes[xi[i].node].kr, 0, sizeof(struct tp_ranges));
            R->nodes[xi[i].node].ext = INT64_MIN + 1;   /* dropped below */
            continue;
        }
        keys[nk] = xi[i].ext;
        vals[nk++] = xi[i].node;
    }
}

/* nodes without an External id all share the key None: the last one stays,
 * at the first one's place; the nodes merge_same_ext replaced go */
static void keep_last_none(struct dist_rank *R)
{
    long last_none = -1;
    for (size_t i = 0; i < R->nnodes; i++)
        if (R->nodes[i].ext == TP_NONE)
            last_none = (long)i;
    size_t o = 0;
    long first_none = -1;
    for (size_t i = 0; i < R->nnodes; i++) {
        struct dist_cnode *c = &R->nodes[i];
        if (c->ext == INT64_MIN + 1)
            continue;
        if (c->ext == TP_NONE) {
            if (first_none >= 0) {
                free(c->kr.a);
                continue;
            }
            first_none = (long)o;
            if ((long)i != last_none) {
                free(c->kr.a);
                *c = R->nodes[last_none];
                memset(&R->nodes[last_none].kr, 0, sizeof(struct tp_ranges));
                R->nodes[last_none].ext = TP_NONE;
            }
        }
        R->nodes[o++] = *c;
    }
    R->nnodes = o;
}

/* the External id -> node index (keys sorted, for key_find) after
 * compaction; the number of keys */
static size_t index_by_ext(const struct dist_rank *R, struct extidx *xi, int64_t *keys, size_t *vals)
{
    size_t nk = 0;
    for (size_t i = 0; i < R->nnodes; i++)
        if (R->nodes[i].ext != TP_NONE)
            xi[nk++] = (struct extidx){R->nodes[i].ext, i};
    qsort(xi, nk, sizeof *xi, cmp_extidx);
    for (size_t i = 0; i < nk; i++) {
        keys[i] = xi[i].ext;
        vals[i] = xi[i].node;
    }
    return nk;
}

/* kernels: communication when launched by a communication node (and, for
 * NCCL, one of that node's kernel ranges), else computation into kern.
 * -1 when out of memory (the view fails: a table missing kernels would be
 * wrong). */
static int split_kernels(struct dist_rank *R, const int64_t *keys, const size_t *vals, size_t nk, struct tp_ranges *kern)
{
    const tp_store *st = R->st;
    for (size_t r = 0; r < st->n; r++) {
        if (st->kind[r] != TP_K_KERNEL || st->ph[r] != 'X')
            continue;
        int64_t s = st->ts[r], e = st->ts[r] + st->dur[r];
        int64_t node = tp_store_ext(st, r) != TP_NONE ? key_find(keys, vals, nk, tp_store_ext(st, r)) : -1;
        if (node >= 0) {
            if (tp_ranges_push(&R->comm, s, e) < 0)
                return -1;
            if ((R->lib & 1) && tp_ranges_push(&R->nodes[node].kr, s, e) < 0)
                return -1;
        } else if (tp_ranges_push(kern, s, e) < 0) {
            return -1;
        }
    }
    return 0;
}

/* The nodes in (start, -end) order, each one's kernel ranges likewise, and
 * each node to the step that contains it whole. */
static void order_nodes(struct dist_rank *R)
{
    if (R->lib == 3) {   /* NCCL and Gloo together: the plugin clears communication_data */
        for (size_t i = 0; i < R->nnodes; i++)
            free(R->nodes[i].kr.a);
        R->nnodes = 0;
    }
    /* qsort(NULL, 0, ...) is undefined: a rank without communication has no nodes */
    if (R->nnodes > 1)
        qsort(R->nodes, R->nnodes, sizeof *R->nodes, cmp_node);
    for (size_t i = 0; i < R->nnodes; i++)
        if (R->nodes[i].kr.n > 1)
            qsort(R->nodes[i].kr.a, R->nodes[i].kr.n, sizeof(struct tp_range), cmp_rg_rev_end);
    size_t j = 0;
    for (size_t i = 0; i < R->nnodes; i++) {
        struct dist_cnode *c = &R->nodes[i];
        while (j < R->bd.nsteps && R->bd.steps[j].end <= c->s)
            j++;
        for (size_t k = j; k < R->bd.nsteps && R->bd.steps[k].start <= c->s; k++)
            if (c->s >= R->bd.steps[k].start && c->e <= R->bd.steps[k].end) {
                c->step = (long)k;
                break;
            }
    }
}

/* The parts of step k of rank R (its ranges within the step). */
static void step_parts(const struct dist_rank *R, size_t k, int64_t *v)
{
    const struct tp_tb_step *S = &R->bd.steps[k];
    int64_t overlap = tp_ranges_within(&R->ov, S->start, S->end);
    int64_t comp = tp_ranges_within(&R->comp, S->start, S->end);
    int64_t comm = tp_ranges_within(&R->comm, S->start, S->end);
    int64_t total = S->end - S->start;
    v[0] = comp - overlap;
    v[1] = overlap;
    v[2] = comm - overlap;
    v[3] = total + overlap - comp - comm;
    v[4] = total;
}

int tp_dist_rank_build(struct dist_rank *R, const tp_store *st)
{
    memset(R, 0, sizeof *R);
    R->st = st;
    const struct tp_tb_breakdown *bd = tp_store_breakdown(st);   /* the store's, built once */
    if (!bd)
        return -1;
    R->bd = *bd;   /* a shallow copy: read only, not freed here */
    struct tp_ranges kern = {0}, cpu = {0};
    struct extidx *xi = NULL;
    int64_t *keys = NULL;
    size_t *vals = NULL;
    int rc = -1;
    if (collect_comm_nodes(R, &cpu) < 0)
        goto done;
    xi = malloc((R->nnodes ? R->nnodes : 1) * sizeof *xi);
    keys = malloc((R->nnodes ? R->nnodes : 1) * sizeof *keys);
    vals = malloc((R->nnodes ? R->nnodes : 1) * sizeof *vals);
    if (!xi || !keys || !vals)
        goto done;
    merge_same_ext(R, xi, keys, vals);
    keep_last_none(R);
    if (split_kernels(R, keys, vals, index_by_ext(R, xi, keys, vals), &kern) < 0)
        goto done;
    tp_ranges_merge(&kern);
    tp_ranges_merge(&cpu);
    tp_ranges_merge(&R->comm);
    R->has_comm = R->comm.n > 0;
    /* computation: the kernels, or the CPU roles on a rank without kernels */
    if (kern.n) {
        R->comp = kern;
        free(cpu.a);
    } else {
        R->comp = cpu;
        free(kern.a);
    }
    kern = cpu = (struct tp_ranges){0};
    if (tp_ranges_intersect(&R->comp, &R->comm, &R->ov) < 0)
        goto done;
    order_nodes(R);
    R->path = st->path;
    R->rank = st->rank;
    R->steps = malloc((R->bd.nsteps ? R->bd.nsteps : 1) * sizeof *R->steps);
    if (!R->steps)
        goto done;
    R->nsteps = R->bd.nsteps;
    for (size_t k = 0; k < R->nsteps; k++) {
        R->steps[k].num = R->bd.steps[k].num;
        step_parts(R, k, R->steps[k].v);
    }
    rc = 0;
done:
    free(xi);
    free(keys);
    free(vals);
    free(kern.a);
    free(cpu.a);
    return rc;
}

/* §9.2: every rank has communication, the same number of nodes, and the
 * same number of kernel ranges per node.  Then each node's ranges get their
 * real (transfer) part.  Returns 1 when aligned, 0 when not, -1 on OOM;
 * why holds the reason when not. */
static int align(struct dist_rank *R, size_t n, char *why, size_t cap)
{
    for (size_t w = 0; w < n; w++) {
        if (!R[w].has_comm || !R[w].nnodes) {
            if (n == 1)
                snprintf(why, cap, "no communication op");
            else
                snprintf(why, cap, "rank %lld has no communication op", (long long)R[w].rank);
            return 0;
        }
        if (R[w].nnodes != R[0].nnodes) {
            snprintf(why, cap, "rank %lld has %zu communication ops, rank %lld has %zu",
                     (long long)R[0].rank, R[0].nnodes, (long long)R[w].rank, R[w].nnodes);
            return 0;
        }
        for (size_t i = 0; i < R[0].nnodes; i++)
            if (R[w].nodes[i].kr.n != R[0].nodes[i].kr.n) {
                snprintf(why, cap, "communication op %zu has %zu ranges on rank %lld, %zu on rank %lld",
                         i + 1, R[0].nodes[i].kr.n, (long long)R[0].rank, R[w].nodes[i].kr.n,
                         (long long)R[w].rank);
                return 0;
            }
    }
    for (size_t i = 0; n && i < R[0].nnodes; i++)
        for (size_t j = 0; j < R[0].nodes[i].kr.n; j++) {
            int64_t m = INT64_MAX;
            for (size_t w = 0; w < n; w++) {
                const struct tp_range *g = &R[w].nodes[i].kr.a[j];
                if (g->e - g->s < m)
                    m = g->e - g->s;
            }
            for (size_t w = 0; w < n; w++) {
                const struct tp_range *g = &R[w].nodes[i].kr.a[j];
                if (tp_ranges_push(&R[w].nodes[i].real, g->e - m, g->e) < 0)
                    return -1;
            }
        }
    return 1;
}

/* The worker name of a trace path: the file name before [.SPAN].pt.trace.json
 * (the plugin's naming), else without .json[.gz|.zst]. */
static void worker_of(const char *path, char *buf, size_t cap)
{
    const char *b = strrchr(path, '/');
    b = b && b[1] ? b + 1 : path;
    size_t n = strlen(b);
    if (n >= 3 && strcmp(b + n - 3, ".gz") == 0)
        n -= 3;
    else if (n >= 4 && strcmp(b + n - 4, ".zst") == 0)
        n -= 4;
    if (n > 14 && memcmp(b + n - 14, ".pt.trace.json", 14) == 0) {
        n -= 14;
        size_t i = n;
        while (i > 0 && b[i - 1] >= '0' && b[i - 1] <= '9')
            i--;
        if (i < n && i > 1 && b[i - 1] == '.')
            n = i - 1;
    } else if (n > 5 && memcmp(b + n - 5, ".json", 5) == 0) {
        n -= 5;
    }
    snprintf(buf, cap, "%.*s", (int)n, b);
}

struct stepvals { int64_t v[8]; int has_wait; };   /* comp, overlap, comm, other, total, transfer, sync */

/* The overview row of step k of rank R and its wait row (transfer, sync:
 * from the communication nodes the step holds whole). */
static int step_row(struct dist_rank *R, size_t k, int aligned, struct stepvals *out)
{
    memset(out, 0, sizeof *out);
    memcpy(out->v, R->steps[k].v, sizeof R->steps[k].v);
    if (aligned) {
        struct tp_ranges all = {0}, real = {0};
        int any = 0;
        for (size_t i = 0; i < R->nnodes; i++) {
            const struct dist_cnode *c = &R->nodes[i];
            if (c->step != (long)k)
                continue;
            any = 1;
            for (size_t j = 0; j < c->kr.n; j++)
                if (tp_ranges_push(&all, c->kr.a[j].s, c->kr.a[j].e) < 0)
                    return -1;
            for (size_t j = 0; j < c->real.n; j++)
                if (tp_ranges_push(&real, c->real.a[j].s, c->real.a[j].e) < 0)
                    return -1;
        }
        if (any) {
            int64_t t = tp_ranges_total(&all), x = tp_ranges_total(&real);
            out->v[5] = x;
            out->v[6] = t - x;
            out->has_wait = 1;
        }
        free(all.a);
        free(real.a);
    }
    return 0;
}

static void put_row(tp_table *t, const tp_store *rank, const char *worker, const char *step,
                    const int64_t *v, int has_wait)
{
    tp_table_add_row(t);
    set_rank(t, rank);
    tp_table_set_str(t, C_WORKER, worker);
    tp_table_set_str(t, C_STEP, step);
    for (int c = 0; c < 5; c++)
        tp_table_set_int(t, (size_t)C_COMP + (size_t)c, v[c]);
    if (has_wait) {
        tp_table_set_int(t, C_TRANSFER, v[5]);
        tp_table_set_int(t, C_SYNC, v[6]);
    }
}

/* round(a / b) for b > 0, halves away from zero: llround() of the quotient,
 * as `tprof steps` rounds its avg row, so both views print one avg total */
static int64_t div_round_away(int64_t a, int64_t b)
{
    int64_t q = a / b, r = a % b;
    if (r < 0)
        r = -r;
    if (2 * r >= b)
        q += a < 0 ? -1 : 1;
    return q;
}

/* The mean row of sums over n steps (or ranks): the total (v[4]) rounded as
 * div_round_away, each of the four parts its floor or its ceiling, the ceilings
 * going to the largest remainders (largest-remainder rounding), so the parts
 * still sum to the total.  Truncating each part and summing them printed a
 * total up to 4 ns below the one `steps` prints.  The parts and the total
 * are non-negative; sum[4] is the sum of sum[0..3]. */
static void mean_row(const int64_t *sum, int64_t n, int64_t *v)
{
    int64_t rem[4], left;
    v[4] = div_round_away(sum[4], n);
    left = v[4];
    for (int c = 0; c < 4; c++) {
        v[c] = sum[c] / n;
        rem[c] = sum[c] % n;
        left -= v[c];
    }
    for (; left > 0; left--) {
        int best = 0;
        for (int c = 1; c < 4; c++)
            if (rem[c] > rem[best])
                best = c;
        v[best]++;
        rem[best] = -1;
    }
}

/* The overview table: per rank, its steps and their average (or, with
 * --merge, per step the mean over the ranks that have it). */
static int overview(struct dist_rank *R, size_t n, int aligned, int merge, tp_table *t)
{
    /* merge: accumulate by step number */
    struct acc { char name[32]; int64_t sum[7]; int64_t cnt, wcnt; } *acc = NULL;
    size_t nacc = 0, capacc = 0;
    for (size_t w = 0; w < n; w++) {
        char worker[256] = "all";
        if (R[w].st)   /* a rank read back from a summary only ever merges */
            worker_of(R[w].st->origin[0] ? R[w].st->origin : R[w].st->path, worker, sizeof worker);
        int64_t sum[7] = {0};
        size_t nwait = 0;
        for (size_t k = 0; k < R[w].nsteps; k++) {
            struct stepvals sv;
            if (step_row(&R[w], k, aligned, &sv) < 0) {
                free(acc);
                return -1;
            }
            char name[32];
            snprintf(name, sizeof name, "%" PRId64, R[w].steps[k].num);
            for (int c = 0; c < 5; c++)
                sum[c] += sv.v[c];
            if (sv.has_wait) {
                sum[5] += sv.v[5];
                sum[6] += sv.v[6];
                nwait++;
            }
            if (!merge) {
                put_row(t, R[w].st, worker, name, sv.v, sv.has_wait);
                continue;
            }
            size_t a = 0;
            while (a < nacc && strcmp(acc[a].name, name) != 0)
                a++;
            if (a == nacc) {
                if (tp_grow((void **)&acc, &capacc, nacc + 1, sizeof *acc) < 0) {
                    free(acc);
                    return -1;
                }
                memset(&acc[nacc], 0, sizeof *acc);
                snprintf(acc[nacc].name, sizeof acc[nacc].name, "%s", name);
                nacc++;
            }
            for (int c = 0; c < 5; c++)
                acc[a].sum[c] += sv.v[c];
            acc[a].cnt++;
            if (sv.has_wait) {
                acc[a].sum[5] += sv.v[5];
                acc[a].sum[6] += sv.v[6];
                acc[a].wcnt++;
            }
        }
        size_t ns = R[w].nsteps;
        if (!merge && ns) {
            /* the plugin's 'all': each part's mean over the steps (the plugin
             * truncates to whole µs; here rounded to the ns, see mean_row) */
            int64_t v[7];
            mean_row(sum, (int64_t)ns, v);
            v[5] = nwait ? sum[5] / (int64_t)nwait : 0;
            v[6] = nwait ? sum[6] / (int64_t)nwait : 0;
            put_row(t, R[w].st, worker, "avg", v, nwait > 0);
        }
    }
    if (merge) {
        int64_t tot[7] = {0};
        size_t nst = 0, nw = 0;
        for (size_t a = 0; a < nacc; a++) {
            int64_t v[7];
            mean_row(acc[a].sum, acc[a].cnt, v);
            v[5] = acc[a].wcnt ? acc[a].sum[5] / acc[a].wcnt : 0;
            v[6] = acc[a].wcnt ? acc[a].sum[6] / acc[a].wcnt : 0;
            put_row(t, NULL, "all", acc[a].name, v, acc[a].wcnt > 0);
            for (int c = 0; c < 5; c++)
                tot[c] += v[c];
            nst++;
            if (acc[a].wcnt) {
                tot[5] += v[5];
                tot[6] += v[6];
                nw++;
            }
        }
        if (nst) {
            int64_t v[7];
            mean_row(tot, (int64_t)nst, v);
            v[5] = nw ? tot[5] / (int64_t)nw : 0;
            v[6] = nw ? tot[6] / (int64_t)nw : 0;
            put_row(t, NULL, "all", "avg", v, nw > 0);
        }
    }
    free(acc);
    return 0;
}

/* round(a / b) with ties to even (Python's round) for b > 0 */
static int64_t div_round_even(int64_t a, int64_t b)
{
    int64_t q = a / b, r = a % b;
    if (r < 0) {
        q--;
        r += b;
    }
    if (2 * r > b || (2 * r == b && (q & 1)))
        q++;
    return q;
}

struct opagg { const char *name; int64_t calls, bytes; struct tp_ranges lat, xfer; };

static int put_ops(tp_table *t, const tp_store *rank, const char *worker, struct opagg *ag, size_t na,
                   int aligned)
{
    for (size_t a = 0; a < na; a++) {
        struct opagg *g = &ag[a];
        int64_t lat = tp_ranges_total(&g->lat), x = tp_ranges_total(&g->xfer);
        tp_table_add_row(t);
        set_rank(t, rank);
        tp_table_set_str(t, O_WORKER, worker);
        tp_table_set_str(t, O_OP, g->name);
        tp_table_set_int(t, O_CALLS, g->calls);
        tp_table_set_int(t, O_SIZE, g->bytes);
        tp_table_set_int(t, O_AVG_SIZE, div_round_even(g->bytes, g->calls));
        tp_table_set_int(t, O_LAT, lat);
        tp_table_set_int(t, O_AVG_LAT, div_round_even(lat, g->calls));
        if (aligned) {
            tp_table_set_int(t, O_XFER, x);
            tp_table_set_int(t, O_AVG_XFER, div_round_even(x, g->calls));
        }
    }
    return 0;
}

/* --comm: per rank and op name, in first-occurrence order; with --merge per
 * op over every rank (the ranges of different ranks are summed, not merged:
 * each rank has its own clock). */
static int ops_table(struct dist_rank *R, size_t n, int aligned, int merge, tp_table *t)
{
    struct opagg *all = NULL;
    size_t nall = 0;
    int64_t *all_lat = NULL, *all_x = NULL;
    int rc = 0;
    for (size_t w = 0; w < n && rc == 0; w++) {
        struct opagg *ag = calloc(R[w].nnodes ? R[w].nnodes : 1, sizeof *ag);
        size_t na = 0;
        if (!ag)
            return -1;
        for (size_t i = 0; i < R[w].nnodes && rc == 0; i++) {
            const struct dist_cnode *c = &R[w].nodes[i];
            size_t a = 0;
            while (a < na && strcmp(ag[a].name, c->nm) != 0)
                a++;
            if (a == na)
                ag[na++].name = c->nm;
            ag[a].calls++;
            ag[a].bytes += c->bytes;
            for (size_t j = 0; j < c->kr.n && rc == 0; j++)
                rc = tp_ranges_push(&ag[a].lat, c->kr.a[j].s, c->kr.a[j].e);
            for (size_t j = 0; j < c->real.n && rc == 0; j++)
                rc = tp_ranges_push(&ag[a].xfer, c->real.a[j].s, c->real.a[j].e);
        }
        if (rc == 0 && !merge) {
            char worker[256];
            worker_of(R[w].st->origin[0] ? R[w].st->origin : R[w].st->path, worker, sizeof worker);
            put_ops(t, R[w].st, worker, ag, na, aligned);
        } else if (rc == 0) {
            for (size_t a = 0; a < na; a++) {
                size_t b = 0;
                while (b < nall && strcmp(all[b].name, ag[a].name) != 0)
                    b++;
                if (b == nall) {
                    void *p = realloc(all, (nall + 1) * sizeof *all);
                    void *q = realloc(all_lat, (nall + 1) * sizeof *all_lat);
                    if (q)
                        all_lat = q;
                    void *x = realloc(all_x, (nall + 1) * sizeof *all_x);
                    if (x)
                        all_x = x;
                    if (!p || !q || !x) {
                        if (p)
                            all = p;
                        rc = -1;
                        break;
                    }
                    all = p;
                    memset(&all[nall], 0, sizeof *all);
                    all[nall].name = ag[a].name;
                    all_lat[nall] = all_x[nall] = 0;
                    nall++;
                }
                all[b].calls += ag[a].calls;
                all[b].bytes += ag[a].bytes;
                all_lat[b] += tp_ranges_total(&ag[a].lat);
                all_x[b] += tp_ranges_total(&ag[a].xfer);
            }
        }
        for (size_t a = 0; a < na; a++) {
            free(ag[a].lat.a);
            free(ag[a].xfer.a);
        }
        free(ag);
    }
    if (rc == 0 && merge)
        for (size_t b = 0; b < nall; b++) {
            tp_table_add_row(t);
            tp_table_set_str(t, O_RANK, "all");
            tp_table_set_str(t, O_WORKER, "all");
            tp_table_set_str(t, O_OP, all[b].name);
            tp_table_set_int(t, O_CALLS, all[b].calls);
            tp_table_set_int(t, O_SIZE, all[b].bytes);
            tp_table_set_int(t, O_AVG_SIZE, div_round_even(all[b].bytes, all[b].calls));
            tp_table_set_int(t, O_LAT, all_lat[b]);
            tp_table_set_int(t, O_AVG_LAT, div_round_even(all_lat[b], all[b].calls));
            if (aligned) {
                tp_table_set_int(t, O_XFER, all_x[b]);
                tp_table_set_int(t, O_AVG_XFER, div_round_even(all_x[b], all[b].calls));
            }
        }
    free(all);
    free(all_lat);
    free(all_x);
    return rc;
}

/* The table of ranks R[0..n) (built from their stores or read back from a
 * summary): align them, then the overview or --comm; frees the ranks. */
int tp_dist_table(struct dist_rank *R, size_t n, const struct tp_view_opts *vo, int merge, tp_table **out,
                      tp_error *err)
{
    int rc = TP_OK;
    char why[256] = "";
    int aligned = n ? align(R, n, why, sizeof why) : 0;
    tp_table *t = tp_table_new(tp_dist_cols, C_N);
    if (aligned < 0 || !t)
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    else if (vo && vo->comm ? ops_table(R, n, aligned, merge, t) < 0 : overview(R, n, aligned, merge, t) < 0)
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    else if (tp_table_nomem(t))
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    /* a note (TP_OK with a message) when the ranks' communication cannot be
     * compared: transfer and sync are then left empty, as the plugin leaves
     * out its whole view */
    if (rc == TP_OK && n && !aligned)
        tp_error_set(err, TP_OK, "%s: no transfer/sync times: %s", n == 1 ? R[0].path : "dist", why);
    for (size_t w = 0; w < n; w++)
        tp_dist_rank_free(&R[w]);
    free(R);
    if (rc != TP_OK) {
        tp_table_free(t);
        return rc;
    }
    *out = t;
    return TP_OK;
}

int tp_dist_build_run(const tp_store *const *stores, size_t n, const struct tp_view_opts *vo,
                     tp_table **out, tp_error *err)
{
    *out = NULL;
    struct dist_rank *R = calloc(n ? n : 1, sizeof *R);
    TP_TRY_NOMEM(R, err);
    for (size_t w = 0; w < n; w++)
        if (tp_dist_rank_build(&R[w], stores[w]) < 0) {
            for (size_t v = 0; v <= w; v++)
                tp_dist_rank_free(&R[v]);
            free(R);
            return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        }
    return tp_dist_table(R, n, vo, vo && vo->merge, out, err);
}

int tp_dist_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    const tp_store *one[1] = {st};
    return tp_dist_build_run(one, 1, vo, out, err);
}

const char *tp_dist_columns_for(const struct tp_view_opts *vo)
{
    return vo && vo->comm ? "rank,worker,op,calls,size,avg_size,latency,avg_latency,transfer,avg_transfer"
                          : NULL;
}
