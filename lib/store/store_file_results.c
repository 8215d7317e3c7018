/* store_file_results.c — what some views compute from a store alone,
 * written into its .tprof file with the models (store_file_model.c) so that
 * a view on the store reads a few hundred bytes instead of inflating the
 * columns and the operator tree it was computed from.
 *
 * The GPU summary (gpu_metrics.h: the `gpu` view and `advice`) is one
 * record per GPU and two ratios; its step breakdown is the store's own
 * model.  opt.model.gpu.version holds TP_GPU_SUMMARY_VERSION of the writer:
 * a summary of another version, or one that does not fit the store (a
 * device id it lacks, ids out of order, a count past its kernels), is not
 * used, and the view computes it from the columns as on a JSON trace.
 *
 * The summary sections of `ops` (by name) and `memory` (summ.h: what their
 * tables are made of) are written whole, one section each
 * ("opt.model.summ.VIEW.VARIANT", bytes: see put_section), under
 * opt.model.summ.version (TP_SF_SUMM_VERSION).  A view reads its section
 * when its options ask for no other (tp_store_summ_view_build) and else
 * summarizes the columns.
 *
 * The default view's kernel rows (struct tp_prof_row: each annotation, and
 * the duration, device, stream, names, grid and block of its event) let it
 * read 128 bytes per kernel from one section instead of five event columns
 * (every event's), the annotations' 14 and the kernel records'. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "breakdown.h"
#include "gpu_metrics.h"
#include "grow.h"
#include "store_file_int.h"
#include "summ.h"
#include "try.h"

/* One GPU as the file holds it: the doubles' bits, so that what a view
 * prints is the bytes it prints from the trace. */
struct gpu_rec {
    int64_t id, kernels, kernel_ns, busy_ns;
    double util, sm_eff, occupancy, tc;
};

static int write_gpu(struct tp_sf_writer *w, const tp_store *st)
{
    struct tp_gpu_summary s;
    if (tp_gpu_summary(st, &s, NULL) != TP_OK)
        return TP_OK;   /* out of memory: the store is whole without it */
    struct gpu_rec *r = calloc(s.ngpus + 1, sizeof *r);
    int rc = TP_OK;
    if (r) {
        for (size_t i = 0; i < s.ngpus; i++) {
            const struct tp_gpu_metric *g = &s.gpus[i];
            r[i] = (struct gpu_rec){g->id, g->kernels, g->kernel_ns, g->busy_ns, g->util, g->sm_eff, g->occupancy,
                                    g->tc};
        }
        uint32_t version = TP_GPU_SUMMARY_VERSION;
        double ratios[2] = {s.tc_eligible_ops_kernel_ratio, s.tc_used_ratio};
        if (tp_sf_put(w, "opt.model.gpu.version", &version, 1, 4) ||
            tp_sf_put(w, "opt.model.gpu.gpus", r, s.ngpus, sizeof *r) ||
            tp_sf_put(w, "opt.model.gpu.ratios", ratios, 2, sizeof *ratios))
            rc = TP_ERR_IO;   /* the writer's message says what */
    }
    free(r);
    tp_gpu_summary_free(&s);
    return rc;
}

/* ---- summary sections ---------------------------------------------------------- */

/* Bump when a summarizer below (view_ops.c, view_memory.c: summarize())
 * changes what it computes, or the layout below changes: stores written
 * before have their sections summarized again. */
#define TP_SF_SUMM_VERSION 2   /* 2: ops' "Self CPU time total" nests torch events without the python frames */
static const struct tp_summ_view *const cached_views[] = {&tp_summ_ops_name, &tp_summ_memory};

/* A growing byte buffer (0 / -1 out of memory). */
struct bytes { unsigned char *p; size_t n, cap; int oom; };

static void put(struct bytes *b, const void *v, size_t n)
{
    if (b->oom || tp_grow((void **)&b->p, &b->cap, b->n + n, 1) < 0) {
        b->oom = 1;
        return;
    }
    if (n)
        memcpy(b->p + b->n, v, n);
    b->n += n;
}
static void put_i64(struct bytes *b, int64_t v) { put(b, &v, 8); }

/* The layout: int64 nkeys, nx, nw, nscal, concat, flags, nseq, scal[4],
 * nstreams, ng; the streams; per group: each key (int64 length, -1 none,
 * then its bytes), n, sum, min, max, sumsq (16 bytes), x[nx], flag, w[nw]
 * (16 bytes each), nd and the (value, count) pairs, nf and the (stream,
 * seq, pos) triples; native byte order (a store is read where it was
 * written, as its columns). */
static void put_section(struct bytes *b, const struct tp_section *sec)
{
    int64_t head[] = {sec->nkeys, sec->nx, sec->nw, sec->nscal, sec->concat, sec->flags, sec->nseq,
                      sec->scal[0], sec->scal[1], sec->scal[2], sec->scal[3], (int64_t)sec->nstreams, (int64_t)sec->ng};
    put(b, head, sizeof head);
    put(b, sec->streams, sec->nstreams * sizeof *sec->streams);
    for (size_t i = 0; i < sec->ng; i++) {
        const struct tp_sgroup *g = &sec->g[i];
        for (int k = 0; k < sec->nkeys; k++) {
            put_i64(b, g->key[k] ? (int64_t)strlen(g->key[k]) : -1);
            if (g->key[k])
                put(b, g->key[k], strlen(g->key[k]));
        }
        int64_t nums[] = {g->n, g->sum, g->min, g->max};
        put(b, nums, sizeof nums);
        put(b, &g->sumsq, sizeof g->sumsq);
        put(b, g->x, (size_t)sec->nx * sizeof *g->x);
        put_i64(b, g->flag);
        put(b, g->w, (size_t)sec->nw * sizeof *g->w);
        put_i64(b, (int64_t)g->nd);
        put(b, g->d, g->nd * sizeof *g->d);
        put_i64(b, (int64_t)g->nf);
        put(b, g->f, g->nf * sizeof *g->f);
    }
}

static int write_sections(struct tp_sf_writer *w, const tp_store *st)
{
    uint32_t version = TP_SF_SUMM_VERSION;
    if (tp_sf_put(w, "opt.model.summ.version", &version, 1, 4))
        return TP_ERR_IO;
    for (size_t i = 0; i < sizeof cached_views / sizeof *cached_views; i++) {
        const struct tp_summ_view *sv = cached_views[i];
        tp_summary s = {0};
        tp_error e = {0};
        struct bytes b = {0};
        if (tp_summ_view_add(sv, st, NULL, &s, &e) == TP_OK)
            put_section(&b, s.s[0]);
        char name[65];
        snprintf(name, sizeof name, "opt.model.summ.%s.%s", sv->desc->view, sv->desc->variant);
        /* (a section that could not be made is left out: summarized on use) */
        int rc = s.n && !e.status && !b.oom && tp_sf_put(w, name, b.p, b.n, 1) ? TP_ERR_IO : TP_OK;
        for (size_t k = 0; k < s.n; k++)
            tp_summ_section_free(s.s[k]);
        free(s.s);
        free(b.p);
        if (rc)
            return rc;
    }
    return TP_OK;
}

/* ---- the default view's kernel rows --------------------------------------------- */

/* Bump when struct tp_prof_row or what tp_prof_row_of puts in it changes. */
#define TP_SF_PROF_VERSION 3

void tp_prof_row_of(const tp_store *st, const struct tp_kernel_annot *a, struct tp_prof_row *r)
{
    size_t e = a->event;
    const struct tp_kernel_info *ki = tp_store_kernel(st, e);
    memset(r, 0, sizeof *r);   /* (the file holds every byte: no stray padding) */
    r->a.tid = a->tid;
    r->a.op_event = a->op_event;
    r->a.event = a->event;
    r->a.seq = a->seq;
    r->a.altseq = a->altseq;
    r->a.layer = a->layer;
    r->a.trace = a->trace;
    r->a.trace_last = a->trace_last;
    r->a.sub = a->sub;
    r->a.mod = a->mod;
    r->a.op = a->op;
    r->a.marker = a->marker;
    r->a.input_dims = a->input_dims;
    r->a.input_types = a->input_types;
    r->a.concrete_inputs = a->concrete_inputs;
    r->a.bprop = a->bprop;
    r->dur = st->dur[e];
    r->opname = a->op_event >= 0 ? (int64_t)st->name[a->op_event] : -1;
    r->device = st->device[e];
    r->stream = st->stream[e];
    r->kname = st->name[e];
    r->has_kernel = ki != NULL;
    if (ki) {
        memcpy(r->grid, ki->grid, sizeof r->grid);
        memcpy(r->block, ki->block, sizeof r->block);
    }
}

/* 1 when row r's string ids and rows point inside the store (what the
 * store's own annotation columns are checked for). */
static int prof_row_fits(const tp_store *st, const struct tp_prof_row *r)
{
    uint64_t ns = st->strings.count;
    const struct tp_kernel_annot *a = &r->a;
    uint32_t ids[] = {a->seq, a->altseq, a->layer, a->trace, a->trace_last, a->mod, a->op, a->marker,
                      a->input_dims, a->input_types, a->concrete_inputs, r->kname};
    for (size_t k = 0; k < sizeof ids / sizeof *ids; k++)
        if (ids[k] >= ns)
            return 0;
    return (unsigned)r->has_kernel <= 1 && a->event < st->n && a->bprop <= 1 &&
           (a->op_event == -1 || (a->op_event >= 0 && (uint64_t)a->op_event < st->n)) &&
           (r->opname == -1 || (r->opname >= 0 && (uint64_t)r->opname < ns)) && (r->opname == -1) == (a->op_event < 0);
}

static int write_prof(struct tp_sf_writer *w, const tp_store *st)
{
    struct tp_prof_row *r = malloc((st->nannots + 1) * sizeof *r);
    if (!r)
        return TP_OK;   /* out of memory: the store is whole without them */
    for (size_t i = 0; i < st->nannots; i++)
        tp_prof_row_of(st, &st->annots[i], &r[i]);
    uint32_t version = TP_SF_PROF_VERSION;
    int rc = tp_sf_put(w, "opt.model.prof.version", &version, 1, 4) ||
             tp_sf_put(w, "opt.model.prof.rows", r, st->nannots, sizeof *r) ? TP_ERR_IO : TP_OK;
    free(r);
    return rc;
}

struct tp_prof_row *tp_store_file_prof_rows(const tp_store *st)
{
    const struct tp_sf_blobs *b = tp_sf_file_models(st);
    size_t one = 1, n = st->nannots;
    uint32_t *version = b ? tp_sf_blob_inflate(b, "opt.model.prof.version", 4, &one) : NULL;
    int ok = version && *version == TP_SF_PROF_VERSION;
    free(version);
    struct tp_prof_row *r = ok ? tp_sf_blob_inflate(b, "opt.model.prof.rows", sizeof *r, &n) : NULL;
    /* what the view uses as indices must point inside the store */
    for (size_t i = 0; r && i < n; i++)
        if (!prof_row_fits(st, &r[i])) {
            free(r);
            r = NULL;
        }
    return r;
}

int tp_sf_write_results(struct tp_sf_writer *w, const tp_store *st)
{
    int rc = write_gpu(w, st);
    if (!rc)
        rc = write_sections(w, st);
    if (!rc)
        rc = write_prof(w, st);
    return rc ? rc : tp_sf_write_modtree(w, st);
}

/* Reading a section back: every length checked against what is left. */
struct reader { const unsigned char *p, *end; int bad; };

static void get(struct reader *r, void *v, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = 1;
        memset(v, 0, n);
        return;
    }
    if (n)
        memcpy(v, r->p, n);
    r->p += n;
}
static int64_t get_i64(struct reader *r) { int64_t v; get(r, &v, 8); return v; }
/* A count of items `size` bytes each that the bytes left can hold. */
static size_t get_count(struct reader *r, size_t size)
{
    int64_t n = get_i64(r);
    if (n < 0 || (uint64_t)n > (uint64_t)(r->end - r->p) / size) {
        r->bad = 1;
        return 0;
    }
    return (size_t)n;
}

/* 0, -1 out of memory, -2 the bytes do not hold a section of sv's shape. */
static int get_section(struct reader *r, const struct tp_summ_desc *d, struct tp_section *sec)
{
    int64_t head[11];
    get(r, head, sizeof head);
    if (r->bad || head[0] != d->nkeys || head[1] != d->nx || head[2] != d->nw || head[3] != d->nscal ||
        head[4] != d->concat || head[5] < INT32_MIN || head[5] > INT32_MAX)
        return -2;
    sec->flags = (int)head[5];
    sec->nseq = head[6];
    memcpy(sec->scal, head + 7, sizeof sec->scal);
    size_t ns = get_count(r, 8);
    int64_t ng = get_i64(r);
    for (size_t i = 0; i < ns && !r->bad; i++)
        if (tp_summ_put_stream(sec, get_i64(r)) < 0)
            return -1;
    for (int64_t i = 0; i < ng && !r->bad; i++) {
        char *keys[TP_SUMM_KEYS] = {0};
        int rc = 0;
        for (int k = 0; k < sec->nkeys && !r->bad && !rc; k++) {
            int64_t len = get_i64(r);
            if (len < 0)
                continue;
            if ((uint64_t)len > (uint64_t)(r->end - r->p))
                r->bad = 1;
            else if (!(keys[k] = malloc((size_t)len + 1)))
                rc = -1;
            else {
                get(r, keys[k], (size_t)len);
                keys[k][len] = 0;
            }
        }
        struct tp_sgroup *g = NULL;
        if (!rc && !r->bad) {
            g = sec->concat ? tp_summ_row(sec, (const char *const *)keys) : tp_summ_group(sec, (const char *const *)keys);
            rc = g ? 0 : -1;
        }
        for (int k = 0; k < TP_SUMM_KEYS; k++)
            free(keys[k]);
        if (rc || r->bad)
            return rc ? rc : -2;
        int64_t nums[4];
        get(r, nums, sizeof nums);
        g->n = nums[0]; g->sum = nums[1]; g->min = nums[2]; g->max = nums[3];
        get(r, &g->sumsq, sizeof g->sumsq);
        get(r, g->x, (size_t)sec->nx * sizeof *g->x);
        int64_t flag = get_i64(r);
        g->flag = (int)flag;
        get(r, g->w, (size_t)sec->nw * sizeof *g->w);
        size_t nd = get_count(r, sizeof *g->d);
        if (r->bad || !(g->d = malloc((nd + 1) * sizeof *g->d)))
            return r->bad ? -2 : -1;
        g->capd = nd + 1;
        g->nd = nd;
        get(r, g->d, nd * sizeof *g->d);
        /* a multiset as tp_summ_finish leaves it: values ascending, counts
         * positive, adding up to the group's count (what the statistics
         * walk) */
        int64_t total = 0;
        for (size_t k = 0; k < nd && !r->bad; k++)
            if (g->d[k].n <= 0 || (k && g->d[k].v <= g->d[k - 1].v) ||
                __builtin_add_overflow(total, g->d[k].n, &total))
                r->bad = 1;
        if (total != g->n)
            r->bad = 1;
        size_t nf = get_count(r, sizeof *g->f);
        if (r->bad || !(g->f = malloc((nf + 1) * sizeof *g->f)))
            return r->bad ? -2 : -1;
        g->capf = nf + 1;
        g->nf = nf;
        get(r, g->f, nf * sizeof *g->f);
    }
    return r->bad || r->p != r->end ? -2 : 0;
}

/* Section sv of a store read from a file into a new section of s: 1, 0
 * when the file has none of this version (or a damaged one), -1 out of
 * memory. */
static int file_section(const tp_store *st, const struct tp_summ_view *sv, tp_summary *s)
{
    const struct tp_sf_blobs *b = st->attr.cap_inst ? NULL : tp_sf_file_models(st);
    size_t one = 1, n = SIZE_MAX;
    uint32_t *version = b ? tp_sf_blob_inflate(b, "opt.model.summ.version", 4, &one) : NULL;
    int ok = version && *version == TP_SF_SUMM_VERSION;
    free(version);
    char name[65];
    snprintf(name, sizeof name, "opt.model.summ.%s.%s", sv->desc->view, sv->desc->variant);
    unsigned char *bytes = ok ? tp_sf_blob_inflate(b, name, 1, &n) : NULL;
    if (!bytes)
        return 0;
    struct tp_section *sec = tp_summ_section(s, sv->desc);
    struct reader r = {bytes, bytes + n, 0};
    int rc = sec ? get_section(&r, sv->desc, sec) : -1;
    free(bytes);
    return rc == 0 ? 1 : rc == -1 ? -1 : 0;
}

int tp_store_summ_view_build(const struct tp_summ_view *sv, uint32_t needs, const tp_store *st,
                             const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    /* the file's section is summarized with the default options: a view
     * whose options change the summary (its param) summarizes */
    if (!sv->param || sv->param(vo) == 0) {
        tp_summary s = {0};
        int got = file_section(st, sv, &s);
        int rc = got > 0 ? sv->table(s.s[0], st->path, vo, out, err) : TP_OK;
        for (size_t k = 0; k < s.n; k++)
            tp_summ_section_free(s.s[k]);
        free(s.s);
        if (got != 0)
            return got > 0 ? rc : tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    TP_TRY(tp_store_need(st, needs, err));
    return tp_summ_view_build(sv, st, vo, out, err);
}

/* 1 when the records fit the store: ascending device ids that name
 * devices of some kernel, counts within its events. */
static int gpus_fit(const tp_store *st, const struct gpu_rec *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (r[i].id < INT32_MIN || r[i].id > INT32_MAX || (i && r[i].id <= r[i - 1].id) || r[i].kernels < 1 ||
            (uint64_t)r[i].kernels > st->n || r[i].kernel_ns < 0 || r[i].busy_ns < 0)
            return 0;
    }
    return 1;
}

int tp_store_file_gpu(const tp_store *st, struct tp_gpu_summary *out)
{
    memset(out, 0, sizeof *out);
    /* (a capture trace changes the operator tree the Tensor Core numbers
     * walk: computed then) */
    const struct tp_sf_blobs *b = st->attr.cap_inst ? NULL : tp_sf_file_models(st);
    size_t one = 1, two = 2, n = SIZE_MAX;
    uint32_t *version = b ? tp_sf_blob_inflate(b, "opt.model.gpu.version", 4, &one) : NULL;
    if (!version || *version != TP_GPU_SUMMARY_VERSION) {
        free(version);
        return 0;
    }
    free(version);
    double *ratios = tp_sf_blob_inflate(b, "opt.model.gpu.ratios", sizeof *ratios, &two);
    struct gpu_rec *r = tp_sf_blob_inflate(b, "opt.model.gpu.gpus", sizeof *r, &n);
    const struct tp_tb_breakdown *bd = ratios && r && gpus_fit(st, r, n) ? tp_store_breakdown(st) : NULL;
    int got = 0;
    if (bd && (out->gpus = calloc(n + 1, sizeof *out->gpus))) {
        out->steps = *bd;   /* the store's, read only (as tp_gpu_summary's) */
        if (bd->nsteps) {
            out->start = bd->steps[0].start;
            out->end = bd->steps[bd->nsteps - 1].end;
        }
        out->ngpus = n;
        out->tc_eligible_ops_kernel_ratio = ratios[0];
        out->tc_used_ratio = ratios[1];
        for (size_t i = 0; i < n; i++) {
            struct tp_gpu_metric *g = &out->gpus[i];
            *g = (struct tp_gpu_metric){(int32_t)r[i].id, NULL, r[i].kernels, r[i].kernel_ns, r[i].busy_ns,
                                        r[i].util, r[i].sm_eff, r[i].occupancy, r[i].tc};
            for (size_t d = 0; d < st->ndevices; d++)
                if (st->devices[d].id == g->id) { g->dev = &st->devices[d]; break; }
        }
        got = 1;
    } else if (bd) {
        got = -1;   /* out of memory */
    }
    free(ratios);
    free(r);
    return got;
}
