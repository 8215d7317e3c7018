/* view_memory.c — `tprof memory`: the TensorBoard plugin's Memory view
 * (SPEC §8) from the [memory] instants of a PyTorch profiler trace.
 *
 *   default   per operator name and device: calls, size increase and
 *             allocation count/size, inclusive and self (bytes; the plugin
 *             shows KB), over the plugin's op trees (memory_attr.c);
 *   --events  one row per allocation: its operator, size, allocation and
 *             release times (µs since the profiler started) and lifetime;
 *   --curve   the allocator's Total Allocated / Total Reserved after every
 *             record, per device, and one `peak` row per device;
 *   --curve --plot   that curve drawn in the terminal (plot.c).
 * --device CPU|GPU0|... keeps one device.
 *
 * Statistics follow MemorySnapshot.get_memory_statistics: a record counts
 * for the operator the record walk put it on (self) and for every operator
 * above it (inclusive); Calls counts the operator nodes the plugin's
 * traversal reaches (it does not enter nodes the walk never entered).
 * Allocation and release are paired by (device, address); the plugin pairs
 * by address alone (SPEC §12.12), and forgets an allocation whose address is
 * allocated again before a release — tprof lists it as never released. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "memory_attr.h"
#include "plot.h"
#include "store.h"
#include "store_file.h"
#include "table.h"
#include "coldefs.h"
#include "tbtree.h"
#include "views.h"
#include "summ.h"
#include "cmp.h"
#include "grow.h"
#include "try.h"

#define TP_COLS_FILE "view_memory.def"
#define TP_COLS_ARRAY tp_memory_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

#define EVENTS_COLS "op,device,size,alloc_time,release_time,duration"
#define CURVE_COLS "device,time,allocated,reserved,mark"

const char *tp_memory_columns_for(const struct tp_view_opts *vo)
{
    if (vo && vo->plot)
        return "plot";
    if (vo && vo->curve)
        return CURVE_COLS;
    if (vo && vo->events)
        return EVENTS_COLS;
    return NULL;
}

/* --device: -1 all, else the index; -2 unknown (message in err). */
static int pick_device(const struct tp_mem *mem, const struct tp_view_opts *vo, const tp_store *st, tp_error *err)
{
    if (!vo || !vo->device)
        return -1;
    for (size_t i = 0; i < mem->ndevs; i++)
        if (strcmp(mem->devs[i].name, vo->device) == 0)
            return (int)i;
    char list[256] = "";
    for (size_t i = 0; i < mem->ndevs && strlen(list) + 32 < sizeof list; i++) {
        if (i)
            strcat(list, ", ");
        strcat(list, mem->devs[i].name);
    }
    tp_error_set(err, TP_ERR_USAGE, "%s: no memory records on device %s (devices: %s)", st->path, vo->device,
                 list);
    return -2;
}

/* ---- statistics (SPEC 8.3) ---- */

enum { M_SINC, M_SASIZE, M_SACNT, M_NM };   /* self metrics; inclusive ones follow at +M_NM */

struct stats {
    const tp_store *st;
    const struct tb_model *m;
    const struct tp_mem *mem;
    size_t nd;                      /* devices */
    int64_t *head, *next;           /* records of each node: linked through next[] */
    int64_t *run;                   /* running totals of self metrics, nd * M_NM */
    int64_t *frames; size_t nframes;   /* per depth: snapshot + self, 2 * nd * M_NM */
    /* per operator name */
    int64_t *slot;                  /* name id hash -> agg index */
    uint32_t *slot_key; size_t slot_cap;
    uint32_t *agg_name; int64_t *agg_calls; int64_t *agg; size_t nagg, capagg;   /* agg: nd * 2 * M_NM each */
    int oom;
};

static int64_t agg_of(struct stats *S, uint32_t name)
{
    size_t h = (size_t)(name * 2654435761u) & (S->slot_cap - 1);
    while (S->slot[h] >= 0 && S->slot_key[h] != name)
        h = (h + 1) & (S->slot_cap - 1);
    if (S->slot[h] >= 0)
        return S->slot[h];
    size_t K = S->nd * 2 * M_NM;
    size_t cap_name = S->capagg, cap_calls = S->capagg;   /* the three grow to the same capacity */
    if (tp_grow((void **)&S->agg_name, &cap_name, S->nagg + 1, sizeof *S->agg_name) < 0 ||
        tp_grow((void **)&S->agg_calls, &cap_calls, S->nagg + 1, sizeof *S->agg_calls) < 0 ||
        tp_grow((void **)&S->agg, &S->capagg, S->nagg + 1, (K ? K : 1) * sizeof *S->agg) < 0) {
        S->oom = 1;
        return -1;
    }
    size_t i = S->nagg++;
    S->agg_name[i] = name;
    S->agg_calls[i] = 0;
    memset(S->agg + i * K, 0, K * sizeof *S->agg);
    S->slot[h] = (int64_t)i;
    S->slot_key[h] = name;
    return (int64_t)i;
}

static void traverse(struct stats *S, int64_t ni, size_t depth)
{
    const struct tb_node *N = &S->m->nodes[ni];
    int op = tp_tb_is_op(N);
    int64_t a = -1;
    if (op) {
        a = agg_of(S, S->st->name[N->row]);
        if (a < 0)
            return;
        S->agg_calls[a]++;
    }
    if (!S->mem->visited || !S->mem->visited[ni])
        return;   /* the walk never entered it (none without records): the plugin skips its subtree */
    size_t K = S->nd * M_NM;
    if (depth >= S->nframes) {
        size_t c = S->nframes ? S->nframes * 2 : 64;
        int64_t *f = realloc(S->frames, c * 2 * (K ? K : 1) * sizeof *f);
        if (!f) {
            S->oom = 1;
            return;
        }
        S->frames = f;
        S->nframes = c;
    }
    int64_t *snap = S->frames + depth * 2 * K, *self = snap + K;
    memcpy(snap, S->run, K * sizeof *snap);
    memset(self, 0, K * sizeof *self);
    if (op)
        for (int64_t k = S->head[ni]; k >= 0; k = S->next[k]) {
            const struct tp_memstat *r = &S->mem->stats[k];
            if (r->dev < 0)
                continue;
            int64_t *v = self + (size_t)r->dev * M_NM;
            v[M_SINC] += r->bytes;
            if (r->bytes > 0) {
                v[M_SASIZE] += r->bytes;
                v[M_SACNT]++;
            }
        }
    for (size_t i = 0; i < K; i++)
        S->run[i] += self[i];
    for (int64_t c = N->first_child; c >= 0 && !S->oom; c = S->m->nodes[c].next_sib)
        traverse(S, c, depth + 1);
    if (op && !S->oom) {
        snap = S->frames + depth * 2 * K;   /* frames may have moved */
        self = snap + K;
        int64_t *g = S->agg + (size_t)a * 2 * K;
        for (size_t d = 0; d < S->nd; d++)
            for (int j = 0; j < M_NM; j++) {
                g[d * 2 * M_NM + j] += self[d * M_NM + j];
                g[d * 2 * M_NM + M_NM + j] += S->run[d * M_NM + j] - snap[d * M_NM + j];
            }
    }
}

/* The statistics of a store as a summary section: one group per (operator,
 * device) with the self and inclusive sums of the records (x[]); one per
 * operator with device "" holding its calls (x[X_CALLS]: counted over the
 * operator's nodes whatever their device); one per device with operator ""
 * (every device that has records, for --device's list).  Integer bytes and
 * counts summed: ranks merge exactly.  scal[0] counts the records. */
enum { X_CALLS, X_SINC, X_SSINC, X_ALLOCS, X_SALLOCS, X_ASIZE, X_SASIZE, X_N };

static void dev_keys(const struct tp_memdev *d, char *type, char *id)
{
    snprintf(type, 16, "%d", (int)d->type);
    snprintf(id, 16, "%d", (int)d->id);
}

static int put_stats(struct tp_section *sec, const struct stats *S)
{
    size_t K = S->nd * 2 * M_NM;
    for (size_t d = 0; d < S->nd; d++) {
        char type[16], id[16];
        dev_keys(&S->mem->devs[d], type, id);
        const char *key[] = {"", S->mem->devs[d].name, type, id};
        if (!tp_summ_group(sec, key))
            return -1;
    }
    for (size_t a = 0; a < S->nagg; a++) {
        const char *op = tp_store_str(S->st, S->agg_name[a]);
        const char *ckey[] = {op, "", "", ""};
        struct tp_sgroup *c = tp_summ_group(sec, ckey);
        if (!c)
            return -1;
        c->x[X_CALLS] += S->agg_calls[a];
        for (size_t d = 0; d < S->nd; d++) {
            const int64_t *g = S->agg + a * K + d * 2 * M_NM;
            int any = 0;
            for (int j = 0; j < 2 * M_NM; j++)
                any |= g[j] != 0;
            if (!any)
                continue;
            char type[16], id[16];
            dev_keys(&S->mem->devs[d], type, id);
            const char *key[] = {op, S->mem->devs[d].name, type, id};
            struct tp_sgroup *G = tp_summ_group(sec, key);
            if (!G)
                return -1;
            G->x[X_SINC] += g[M_NM + M_SINC];
            G->x[X_SSINC] += g[M_SINC];
            G->x[X_ALLOCS] += g[M_NM + M_SACNT];
            G->x[X_SALLOCS] += g[M_SACNT];
            G->x[X_ASIZE] += g[M_NM + M_SASIZE];
            G->x[X_SASIZE] += g[M_SASIZE];
        }
    }
    return 0;
}

static int summarize_stats(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    const struct tb_model *m = tp_store_tb(st);   /* the store's, built once */
    struct tp_mem mem;
    if (!m || tp_mem_collect_stats(st, m, &mem) < 0)
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    struct stats S = {0};
    S.st = st;
    S.m = m;
    S.mem = &mem;
    S.nd = mem.ndevs;
    S.slot_cap = 1024;
    while (S.slot_cap < m->nnodes / 4 + 16 && S.slot_cap < ((size_t)1 << 24))
        S.slot_cap *= 2;
    S.head = malloc((m->nnodes ? m->nnodes : 1) * sizeof *S.head);
    S.next = malloc((mem.n ? mem.n : 1) * sizeof *S.next);
    S.run = calloc(S.nd * M_NM + 1, sizeof *S.run);
    S.slot = malloc(S.slot_cap * sizeof *S.slot);
    S.slot_key = malloc(S.slot_cap * sizeof *S.slot_key);
    int rc = -1;
    if (!S.head || !S.next || !S.run || !S.slot || !S.slot_key)
        goto out;
    /* a rank without records still counts its operators' calls (a merged
     * run's Calls are over every rank) */
    sec->scal[0] = (int64_t)mem.n;
    for (size_t i = 0; i < m->nnodes; i++)
        S.head[i] = -1;
    for (size_t i = 0; i < S.slot_cap; i++)
        S.slot[i] = -1;
    for (size_t k = mem.n; k-- > 0;) {   /* lists in time order */
        int64_t nd = mem.stats[k].node;
        S.next[k] = nd >= 0 ? S.head[nd] : -1;
        if (nd >= 0)
            S.head[nd] = (int64_t)k;
    }
    for (size_t r = 0; r < m->nroots && !S.oom; r++)
        for (int64_t c = m->nodes[m->roots[r]].first_child; c >= 0 && !S.oom; c = m->nodes[c].next_sib)
            traverse(&S, c, 0);
    if (!S.oom)
        rc = put_stats(sec, &S);
out:
    free(S.head); free(S.next); free(S.run); free(S.frames); free(S.slot); free(S.slot_key);
    free(S.agg_name); free(S.agg_calls); free(S.agg);
    tp_mem_free(&mem);
    return rc < 0 ? tp_error_set(err, TP_ERR_NOMEM, "out of memory") : TP_OK;
}

/* The calls groups (device "") first, by operator name; then each device
 * as the records' collection orders them (CPU, then GPUs by id): its
 * presence group (operator ""), then its operators by name. */
static int cmp_stat(const struct tp_sgroup *const *a, const struct tp_sgroup *const *b)
{
    const struct tp_sgroup *x = *a, *y = *b;
    int cx = x->key[1][0] == 0, cy = y->key[1][0] == 0;
    if (cx != cy)
        return cx ? -1 : 1;
    long tx = strtol(x->key[2], NULL, 10), ty = strtol(y->key[2], NULL, 10);
    if (tx != ty)
        return tx < ty ? -1 : 1;
    long ix = strtol(x->key[3], NULL, 10), iy = strtol(y->key[3], NULL, 10);
    if (ix != iy)
        return ix < iy ? -1 : 1;
    int c = strcmp(x->key[1], y->key[1]);
    return c ? c : strcmp(x->key[0], y->key[0]);
}

/* The calls of operator op: its group among the first ncalls of perm. */
static int64_t calls_of(const struct tp_sgroup *const *perm, size_t ncalls, const char *op)
{
    size_t lo = 0, hi = ncalls;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(perm[mid]->key[0], op);
        if (c == 0)
            return perm[mid]->x[X_CALLS];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

static int stats_table(struct tp_section *sec, const char *path, const struct tp_view_opts *vo, tp_table **out,
                       tp_error *err)
{
    *out = NULL;
    const struct tp_sgroup **perm;
    tp_table *t;
    int rc = tp_summ_sorted_table(sec, cmp_stat, tp_memory_cols, C_N, &perm, &t, err);
    if (rc != TP_OK)
        return rc;
    size_t ng = sec->ng, ncalls = 0;
    while (ncalls < ng && !perm[ncalls]->key[1][0])
        ncalls++;
    const char *dev = vo ? vo->device : NULL;
    if (sec->scal[0] == 0) {
        /* nothing to show: an empty table and a note (status stays TP_OK) */
        tp_error_set(err, TP_OK, "%s: no [memory] events (profile with profile_memory=True)", path);
    } else if (dev) {
        int have = 0;
        char list[256] = "";
        for (size_t i = ncalls; i < ng; i++) {
            if (perm[i]->key[0][0])
                continue;   /* a device's presence group: operator "" */
            have |= strcmp(perm[i]->key[1], dev) == 0;
            if (strlen(list) + 32 < sizeof list) {
                if (*list)
                    strcat(list, ", ");
                strcat(list, perm[i]->key[1]);
            }
        }
        if (!have)
            rc = tp_error_set(err, TP_ERR_USAGE, "%s: no memory records on device %s (devices: %s)", path, dev, list);
    }
    for (size_t i = ncalls; i < ng && rc == TP_OK && sec->scal[0]; i++) {
        const struct tp_sgroup *g = perm[i];
        if (!g->key[0][0] || (dev && strcmp(g->key[1], dev) != 0))
            continue;
        tp_table_add_row(t);
        tp_table_set_str(t, C_OP, g->key[0]);
        tp_table_set_str(t, C_DEV, g->key[1]);
        tp_table_set_int(t, C_CALLS, calls_of(perm, ncalls, g->key[0]));
        tp_table_set_int(t, C_SINC, g->x[X_SINC]);
        tp_table_set_int(t, C_SSINC, g->x[X_SSINC]);
        tp_table_set_int(t, C_ALLOCS, g->x[X_ALLOCS]);
        tp_table_set_int(t, C_SALLOCS, g->x[X_SALLOCS]);
        tp_table_set_int(t, C_ASIZE, g->x[X_ASIZE]);
        tp_table_set_int(t, C_SASIZE, g->x[X_SASIZE]);
    }
    free(perm);
    if (rc == TP_OK && tp_table_nomem(t))
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    if (rc != TP_OK) {
        tp_table_free(t);
        return rc;
    }
    *out = t;
    return TP_OK;
}

static int reads_stats(const struct tp_view_opts *vo, const char *variant)
{
    (void)variant;   /* --events and --curve are timelines: per trace, never summed */
    return !vo || (!vo->events && !vo->curve && !vo->plot && !vo->group);
}

static const struct tp_summ_desc stats_desc = {
    .view = "memory", .variant = "stats", .nkeys = 4, .nx = X_N, .nscal = 1,
    .keys = {"op", "device", "device_type", "device_id"},
    .xs = {"calls", "size_inc", "self_size_inc", "allocs", "self_allocs", "alloc_size", "self_alloc_size"},
    .scals = {"records"},
};
const struct tp_summ_view tp_summ_memory = {&stats_desc, "memory", reads_stats, summarize_stats, stats_table, NULL};

/* ---- events (SPEC 8.5) ---- */

struct ev { int dev; int64_t op_rec; int64_t size, at, rel; };   /* at/rel: TP_NONE when unknown */

static _Thread_local const struct ev *g_ev;
static int cmp_ev(const void *a, const void *b)
{
    const struct ev *x = &g_ev[*(const size_t *)a], *y = &g_ev[*(const size_t *)b];
    TP_CMP_BY(x, y, dev);
    int64_t tx = x->at != TP_NONE ? x->at : x->rel, ty = y->at != TP_NONE ? y->at : y->rel;
    if (tx != ty)
        return tx < ty ? -1 : 1;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    return TP_CMP(i, j);
}

/* The plugin's operator label of an allocation record. */
static void op_label(const struct tb_model *m, const struct tp_memrec *r, char *buf, size_t cap)
{
    if (!r || r->node < 0) {
        snprintf(buf, cap, "<unknown>");
        return;
    }
    const char *name = m->nodes[r->node].name;
    if (strncmp(name, "aten::empty", 11) == 0 && r->parent >= 0)
        snprintf(buf, cap, "%s (%s)", m->nodes[r->parent].name, name);
    else
        snprintf(buf, cap, "%s", name);
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ULL; x ^= x >> 33;
    return x;
}

static int build_events(const struct tb_model *m, const struct tp_mem *mem, int dev, tp_table *t)
{
    size_t cap = 16;
    while (cap < mem->n * 2 + 16)
        cap *= 2;
    int64_t *key_addr = malloc(cap * sizeof *key_addr);
    int *key_dev = malloc(cap * sizeof *key_dev);
    int64_t *val = malloc(cap * sizeof *val);      /* open allocation record, -1 none */
    struct ev *evs = malloc((mem->n ? mem->n : 1) * sizeof *evs);
    size_t nev = 0, *perm = NULL;
    int rc = -1;
    if (!key_addr || !key_dev || !val || !evs)
        goto out;
    for (size_t i = 0; i < cap; i++)
        key_dev[i] = -3;
    for (size_t k = 0; k < mem->n; k++) {
        const struct tp_memrec *r = &mem->recs[k];
        if (r->addr == TP_NONE || r->dev < 0 || r->bytes == 0)
            continue;
        size_t h = mix((uint64_t)r->addr * 31u + (uint64_t)r->dev) & (cap - 1);
        while (key_dev[h] != -3 && (key_dev[h] != r->dev || key_addr[h] != r->addr))
            h = (h + 1) & (cap - 1);
        if (key_dev[h] == -3) {
            key_dev[h] = r->dev;
            key_addr[h] = r->addr;
            val[h] = -1;
        }
        if (r->bytes > 0) {
            if (val[h] >= 0) {   /* allocated again before a release: the first one never was */
                const struct tp_memrec *o = &mem->recs[val[h]];
                evs[nev++] = (struct ev){o->dev, val[h], o->bytes, o->ts - mem->start_ts, TP_NONE};
            }
            val[h] = (int64_t)k;
        } else if (val[h] >= 0) {
            const struct tp_memrec *o = &mem->recs[val[h]];
            evs[nev++] = (struct ev){o->dev, val[h], -r->bytes, o->ts - mem->start_ts, r->ts - mem->start_ts};
            val[h] = -1;
        } else {
            evs[nev++] = (struct ev){r->dev, -1, -r->bytes, TP_NONE, r->ts - mem->start_ts};
        }
    }
    for (size_t h = 0; h < cap; h++)
        if (key_dev[h] != -3 && val[h] >= 0) {
            const struct tp_memrec *o = &mem->recs[val[h]];
            evs[nev++] = (struct ev){o->dev, val[h], o->bytes, o->ts - mem->start_ts, TP_NONE};
        }
    perm = malloc((nev ? nev : 1) * sizeof *perm);
    if (!perm)
        goto out;
    for (size_t i = 0; i < nev; i++)
        perm[i] = i;
    g_ev = evs;
    qsort(perm, nev, sizeof *perm, cmp_ev);
    for (size_t i = 0; i < nev; i++) {
        const struct ev *e = &evs[perm[i]];
        if (dev >= 0 && e->dev != dev)
            continue;
        char label[1024];
        op_label(m, e->op_rec >= 0 ? &mem->recs[e->op_rec] : NULL, label, sizeof label);
        tp_table_add_row(t);
        tp_table_set_str(t, C_OP, label);
        tp_table_set_str(t, C_DEV, mem->devs[e->dev].name);
        tp_table_set_int(t, C_SIZE, e->size);
        if (e->at != TP_NONE) tp_table_set_int(t, C_ATIME, e->at);
        if (e->rel != TP_NONE) tp_table_set_int(t, C_RTIME, e->rel);
        if (e->at != TP_NONE && e->rel != TP_NONE) tp_table_set_int(t, C_DUR, e->rel - e->at);
    }
    rc = 0;
out:
    free(key_addr); free(key_dev); free(val); free(evs); free(perm);
    return rc;
}

/* ---- curve (SPEC 8.4) ---- */

static int curve_point(const struct tp_memrec *r)
{
    return r->addr != TP_NONE && r->dev >= 0 && r->total_allocated != TP_NONE && r->total_reserved != TP_NONE;
}

static void fmt_bytes(int64_t v, char *buf, size_t cap)
{
    static const char *const unit[] = {"B", "KB", "MB", "GB", "TB"};
    double x = (double)v;
    int u = 0;
    while ((x >= 1024.0 || x <= -1024.0) && u < 4) {
        x /= 1024.0;
        u++;
    }
    if (u == 0)
        snprintf(buf, cap, "%lld B", (long long)v);
    else
        snprintf(buf, cap, "%.1f %s", x, unit[u]);
}

static void fmt_ms(int64_t ns, char *buf, size_t cap)
{
    snprintf(buf, cap, "%.1f ms", (double)ns / 1e6);
}

static int build_curve(const tp_store *st, const struct tp_mem *mem, int dev, int plot, int width, tp_table *t)
{
    for (size_t d = 0; d < mem->ndevs; d++) {
        if (dev >= 0 && (size_t)dev != d)
            continue;
        size_t n = 0, peak = SIZE_MAX;
        for (size_t k = 0; k < mem->n; k++) {
            const struct tp_memrec *r = &mem->recs[k];
            if (r->dev != (int)d || !curve_point(r))
                continue;
            n++;
            if (peak == SIZE_MAX || r->total_allocated > mem->recs[peak].total_allocated)
                peak = k;
        }
        if (n == 0)
            continue;
        if (!plot) {
            for (size_t k = 0; k < mem->n; k++) {
                const struct tp_memrec *r = &mem->recs[k];
                if (r->dev != (int)d || !curve_point(r))
                    continue;
                tp_table_add_row(t);
                tp_table_set_str(t, C_DEV, mem->devs[d].name);
                tp_table_set_int(t, C_TIME, r->ts - mem->start_ts);
                tp_table_set_int(t, C_ALLOC, r->total_allocated);
                tp_table_set_int(t, C_RES, r->total_reserved);
            }
            const struct tp_memrec *p = &mem->recs[peak];
            tp_table_add_row(t);
            tp_table_set_str(t, C_DEV, mem->devs[d].name);
            tp_table_set_int(t, C_TIME, p->ts - mem->start_ts);
            tp_table_set_int(t, C_ALLOC, p->total_allocated > 0 ? p->total_allocated : 0);
            tp_table_set_int(t, C_RES, p->total_reserved);
            tp_table_set_str(t, C_MARK, "peak");
            continue;
        }
        int64_t *x = malloc(n * sizeof *x), *ya = malloc(n * sizeof *ya), *yr = malloc(n * sizeof *yr);
        if (!x || !ya || !yr) {
            free(x); free(ya); free(yr);
            return -1;
        }
        size_t i = 0;
        int64_t ymax = 1, last = 0;
        for (size_t k = 0; k < mem->n; k++) {
            const struct tp_memrec *r = &mem->recs[k];
            if (r->dev != (int)d || !curve_point(r))
                continue;
            x[i] = r->ts - mem->start_ts;
            ya[i] = r->total_allocated;
            yr[i] = r->total_reserved;
            if (ya[i] > ymax) ymax = ya[i];
            if (yr[i] > ymax) ymax = yr[i];
            last = x[i];
            i++;
        }
        /* the x axis ends at the last event of the trace the plugin reads */
        int64_t xend = last;
        for (size_t r = 0; r < st->n; r++)
            if (st->ph[r] == 'X' && st->ts[r] + st->dur[r] - mem->start_ts > xend)
                xend = st->ts[r] + st->dur[r] - mem->start_ts;
        struct tp_plot_series s[2] = {{x, ya, n, 1}, {x, yr, n, 0}};
        struct tp_plot pl;
        int rc = tp_plot_steps(s, 2, 0, xend, ymax, width, 12, fmt_ms, fmt_bytes, &pl);
        free(x); free(ya); free(yr);
        if (rc < 0)
            return -1;
        char head[256], pk[48];
        fmt_bytes(mem->recs[peak].total_allocated, pk, sizeof pk);
        snprintf(head, sizeof head, "%s  peak %s at %.3f ms  (fill: allocated, line: reserved)",
                 mem->devs[d].name, pk, (double)(mem->recs[peak].ts - mem->start_ts) / 1e6);
        tp_plot_to_table(&pl, head, t, C_PLOT);
    }
    return 0;
}

/* ---- the view ---- */

int tp_memory_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    int curve = vo && (vo->curve || vo->plot), events = vo && vo->events && !curve;
    /* what the view reads of a lazily read store: asked for here, as the
     * view's needs (views.def) leave them out for the store's own section */
    uint32_t needs = TP_NEED_AUX | TP_NEED_CAT | TP_NEED_DUR | TP_NEED_NAME | TP_NEED_TID | TP_NEED_TS |
                     TP_NEED_MEM_INFO;
    if (!curve && !events)   /* one trace is a run of one rank: the statistics come from its summary */
        return tp_store_summ_view_build(&tp_summ_memory, needs, st, vo, out, err);
    TP_TRY(tp_store_need(st, needs, err));
    const struct tb_model *tree = NULL;   /* the store's, built once */
    struct tp_mem mem;
    if (!curve && !(tree = tp_store_tb(st)))
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    TP_TRY_NOMEM(tp_mem_collect(st, tree, &mem) >= 0, err);
    tp_table *t = tp_table_new(tp_memory_cols, C_N);
    int rc = TP_OK;
    if (!t) {
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        goto done;
    }
    if (mem.n == 0) {
        /* nothing to show: an empty table and a note (status stays TP_OK) */
        tp_error_set(err, TP_OK, "%s: no [memory] events (profile with profile_memory=True)", st->path);
        goto done;
    }
    int dev = pick_device(&mem, vo, st, err);
    if (dev == -2) {
        rc = TP_ERR_USAGE;
        goto done;
    }
    int r;
    if (curve) {
        int have = 0;
        for (size_t k = 0; k < mem.n && !have; k++)
            have = curve_point(&mem.recs[k]);
        if (!have) {
            tp_error_set(err, TP_OK, "%s: no memory curve: the [memory] events have no Addr and Total Allocated "
                         "(PyTorch before 1.10)", st->path);
            goto done;
        }
        /* the -w writer keeps one column free at the end of a line */
        r = build_curve(st, &mem, dev, vo->plot, vo->width > 0 ? vo->width - 1 : 79, t);
    } else {
        int have = 0;
        for (size_t k = 0; k < mem.n && !have; k++)
            have = mem.recs[k].addr != TP_NONE;
        if (!have) {
            tp_error_set(err, TP_OK, "%s: no memory events table: the [memory] events have no Addr "
                         "(PyTorch before 1.10)", st->path);
            goto done;
        }
        r = build_events(tree, &mem, dev, t);
    }
    if (r < 0 || tp_table_nomem(t))
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
done:
    if (rc == TP_OK && t) {
        *out = t;
        t = NULL;
    }
    if (t) tp_table_free(t);
    tp_mem_free(&mem);
    return rc;
}
