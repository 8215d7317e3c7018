/* step_parts.c — each step's wall time cut into pieces owned by events (see
 * step_parts.h for the rule). */
#include <stdlib.h>
#include <string.h>
#include "category.h"
#include "grow.h"
#include "step_parts.h"
#include "cmp.h"

static const char *const part_names[TP_NPARTS] = {"computation", "communication", "memcpy", "host",
                                                  "idle"};

const char *tp_part_name(int part)
{
    return part >= 0 && part < TP_NPARTS ? part_names[part] : "?";
}

/* An event that can own time: its interval, its part and its name. */
struct span {
    int64_t s, e;
    uint8_t part;
    const char *name;
    uint64_t shape;
};

/* FNV-1a, 64 bits */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 0x100000001b3ull;
    return h;
}

/* The shape of row i (see struct tp_piece). */
static uint64_t shape_of(const tp_store *st, size_t i)
{
    uint32_t aux = st->aux[i];
    if (aux == TP_NO_AUX)
        return 0;
    uint64_t h = 0xcbf29ce484222325ull;
    if (st->kind[i] == TP_K_KERNEL || st->kind[i] == TP_K_MEMCPY || st->kind[i] == TP_K_MEMSET) {
        const struct tp_kernel_info *k = &st->kernels[aux];
        h = fnv(h, k->grid, sizeof k->grid);
        h = fnv(h, k->block, sizeof k->block);
        return fnv(h, &k->bytes, sizeof k->bytes);
    }
    if (st->kind[i] == TP_K_CPU_OP && st->ops[aux].input_dims) {
        const char *d = tp_store_str(st, st->ops[aux].input_dims);
        return fnv(h, d, strlen(d));
    }
    return 0;
}

/* The part an event of the store can own time in, or -1. */
static int part_of(const tp_store *st, size_t i)
{
    switch (st->kind[i]) {
    case TP_K_KERNEL:
        return tp_category_is_comm_kernel(tp_store_str(st, st->name[i])) ? TP_PART_COMM : TP_PART_COMPUTE;
    case TP_K_MEMCPY:
    case TP_K_MEMSET:
        return TP_PART_MEMCPY;
    case TP_K_CPU_OP:
    case TP_K_RUNTIME:
    case TP_K_DRIVER:
        return TP_PART_HOST;
    default:
        return -1;
    }
}

static int cmp_span(const void *pa, const void *pb)
{
    const struct span *a = pa, *b = pb;
    TP_CMP_BY(a, b, s);
    return (a->e > b->e) - (a->e < b->e);
}

/* A boundary of a clipped span inside one step: its time, 0 for an end and
 * 1 for a start (ends first at equal times: touching spans do not overlap),
 * and the span's index in the step's list. */
struct edge {
    int64_t t;
    int start;
    size_t k;
};

static int cmp_edge(const void *pa, const void *pb)
{
    const struct edge *a = pa, *b = pb;
    TP_CMP_BY(a, b, t);
    if (a->start != b->start)
        return a->start - b->start;
    return (a->k > b->k) - (a->k < b->k);
}

struct builder {
    struct tp_step_parts *out;
    size_t cap;
    /* scratch for one step, reused */
    struct edge *edges;
    size_t edges_cap;
    size_t *active[TP_NPARTS];
    size_t nactive[TP_NPARTS];
    size_t active_cap;
    int64_t *given;
    size_t given_cap;
};

static int push_piece(struct builder *b, const char *name, uint64_t shape, int part, int64_t ns)
{
    struct tp_step_parts *o = b->out;
    if (o->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 1024;
        struct tp_piece *v = realloc(o->v, cap * sizeof *v);
        if (!v)
            return -1;
        o->v = v, b->cap = cap;
    }
    o->v[o->n++] = (struct tp_piece){name, ns, shape, (uint8_t)part};
    o->part_ns[part] += ns;
    return 0;
}

/* Cut the window [ws, we) among spans sp[0..n) (clipped to it) by a sweep
 * over their boundaries.  0, or -1 on out of memory. */
static int cut_step(struct builder *b, const struct span *sp, size_t n, int64_t ws, int64_t we)
{
    if (tp_grow((void **)&b->edges, &b->edges_cap, 2 * n, sizeof *b->edges) < 0 ||
        tp_grow((void **)&b->given, &b->given_cap, n, sizeof *b->given) < 0)
        return -1;
    if (n > b->active_cap) {
        for (int p = 0; p < TP_NPARTS; p++) {
            size_t *a = realloc(b->active[p], n * sizeof *a);
            if (!a)
                return -1;
            b->active[p] = a;
        }
        b->active_cap = n;
    }
    size_t ne = 0;
    for (size_t k = 0; k < n; k++) {
        int64_t s = sp[k].s < ws ? ws : sp[k].s, e = sp[k].e > we ? we : sp[k].e;
        b->given[k] = 0;
        if (e <= s)
            continue;   /* a zero-length call owns nothing; it is still a piece */
        b->edges[ne++] = (struct edge){s, 1, k};
        b->edges[ne++] = (struct edge){e, 0, k};
    }
    if (ne > 0)
        qsort(b->edges, ne, sizeof *b->edges, cmp_edge);
    memset(b->nactive, 0, sizeof b->nactive);
    int64_t t = ws, idle = 0;
    for (size_t i = 0; i <= ne; i++) {
        int64_t next = i < ne ? b->edges[i].t : we;
        if (next > t) {
            int p = 0;
            while (p < TP_PART_IDLE && b->nactive[p] == 0)
                p++;
            if (p == TP_PART_IDLE) {
                idle += next - t;
            } else {
                /* GPU time to the earliest-started activity, host time to
                 * the innermost call */
                size_t owner = p == TP_PART_HOST ? b->active[p][b->nactive[p] - 1] : b->active[p][0];
                b->given[owner] += next - t;
            }
            t = next;
        }
        if (i == ne)
            break;
        const struct edge *ed = &b->edges[i];
        int p = sp[ed->k].part;
        if (ed->start) {
            b->active[p][b->nactive[p]++] = ed->k;
        } else {
            size_t j = 0;
            while (b->active[p][j] != ed->k)
                j++;
            memmove(&b->active[p][j], &b->active[p][j + 1], (b->nactive[p] - j - 1) * sizeof(size_t));
            b->nactive[p]--;
        }
    }
    if (push_piece(b, "idle", 0, TP_PART_IDLE, idle) < 0)
        return -1;
    for (size_t k = 0; k < n; k++)
        if (push_piece(b, sp[k].name, sp[k].shape, sp[k].part, b->given[k]) < 0)
            return -1;
    return 0;
}

static void builder_free(struct builder *b)
{
    free(b->edges);
    free(b->given);
    for (int p = 0; p < TP_NPARTS; p++)
        free(b->active[p]);
}

int tp_step_parts_build(const tp_store *st, struct tp_step_parts *out, tp_error *err)
{
    memset(out, 0, sizeof *out);
    if (!st)
        return tp_error_set(err, TP_ERR_USAGE, "tp_step_parts_build: no store");
    size_t n = 0;
    for (size_t i = 0; i < st->n; i++)
        n += part_of(st, i) >= 0 && st->dur[i] >= 0;
    struct span *sp = malloc((n ? n : 1) * sizeof *sp);
    int64_t *reach = malloc((n ? n : 1) * sizeof *reach);
    struct builder b = {.out = out};
    struct span *win = NULL;   /* the spans of one step */
    size_t win_cap = 0;
    if (!sp || !reach)
        goto nomem;
    n = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < st->n; i++) {
        int p = part_of(st, i);
        if (p < 0 || st->dur[i] < 0)
            continue;
        int64_t e = st->ts[i] + st->dur[i];
        sp[n++] = (struct span){st->ts[i], e, (uint8_t)p, tp_store_str(st, st->name[i]), shape_of(st, i)};
        lo = st->ts[i] < lo ? st->ts[i] : lo;
        hi = e > hi ? e : hi;
    }
    if (n > 0)
        qsort(sp, n, sizeof *sp, cmp_span);
    /* reach[i]: the latest end among spans 0..i, so the first span that can
     * overlap a window is found by bisection even behind long spans */
    for (size_t i = 0; i < n; i++)
        reach[i] = i && reach[i - 1] > sp[i].e ? reach[i - 1] : sp[i].e;
    out->has_steps = st->nsteps > 0;
    size_t nwin = st->nsteps ? st->nsteps : (n ? 1 : 0);
    for (size_t w = 0; w < nwin; w++) {
        int64_t ws = st->nsteps ? st->steps[w].ts : lo, we = st->nsteps ? st->steps[w].end : hi;
        if (we <= ws)
            continue;
        size_t a = 0, z = n;
        while (a < z) {
            size_t m = a + (z - a) / 2;
            if (reach[m] > ws)
                z = m;
            else
                a = m + 1;
        }
        size_t k = 0;
        for (size_t i = a; i < n && sp[i].s < we; i++) {
            if (sp[i].e < ws || (sp[i].e == ws && sp[i].s < ws))
                continue;
            if (sp[i].s == sp[i].e && sp[i].s == we)
                continue;
            if (tp_grow((void **)&win, &win_cap, k + 1, sizeof *win) < 0)
                goto nomem;
            win[k++] = sp[i];
        }
        if (cut_step(&b, win, k, ws, we) < 0)
            goto nomem;
        out->nsteps++;
        out->total_ns += we - ws;
    }
    free(win);
    free(sp);
    free(reach);
    builder_free(&b);
    return TP_OK;
nomem:
    free(win);
    free(sp);
    free(reach);
    builder_free(&b);
    tp_step_parts_free(out);
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory cutting steps into parts");
}

void tp_step_parts_free(struct tp_step_parts *p)
{
    if (!p)
        return;
    free(p->v);
    memset(p, 0, sizeof *p);
}
