/* store_file_model.c — the shared models in a .tprof store: the operator
 * tree (tbtree.h) and the step breakdown (breakdown.h).
 *
 * Building the tree was most of what `ops`, `gpu` and `memory` cost on a
 * store (0.6 of 1.15 s for a 1 GB trace), and the breakdown a third of
 * `steps`; both depend on the store alone, so `tprof import` builds them
 * once and writes them as sections of their own.  The reader keeps those
 * sections compressed with the store, and the first view that asks for a
 * model inflates them instead of building it (a view that never asks pays
 * nothing).  Their names start with "opt.", so a tprof that predates them
 * reads the store and builds the models as before.  opt.model.version holds
 * TP_TB_MODEL_VERSION and TP_TB_BREAKDOWN_VERSION of the writer: a model of
 * another version, or one whose sections do not fit the store (a damaged or
 * crafted file), is not used and is built instead, so what a view prints
 * never depends on which tprof imported the trace.
 *
 * A tree's pointers are written as numbers: a name as its byte offset in
 * the string table (which the store keeps byte for byte; UINT64_MAX for the
 * roots' "CallTreeRoot"), each node's launch calls and each call's device
 * rows as one flat array and a count per node or call.  What follows from
 * a node's or call's row (start, end, thread) is not written, nor are the
 * roots' threads (the thread list, in root order); indices and ids are
 * written as differences from the previous value, which makes the mostly
 * increasing ones small and repeating. */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include "breakdown.h"
#include "store_file_int.h"
#include "i64map.h"
#include "tbtree.h"

#define ROOT_NAME "CallTreeRoot"
#define NO_NAME UINT64_MAX

int tp_sf_is_model_section(const char *name)
{
    return strncmp(name, "opt.model.", 10) == 0;
}

/* ---- writing ---------------------------------------------------------------- */

/* n int64 values (or int32 ones, width 4) at `stride` bytes apart (`off`
 * into each record), as int64 differences from the one before. */
static int put_delta_w(struct tp_sf_writer *w, const char *name, const void *recs, size_t n, size_t stride,
                       size_t off, size_t width)
{
    int64_t *d = malloc((n + 1) * sizeof *d);
    if (!d)
        return -1;
    int64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t v;
        if (width == 4) {
            int32_t v32;
            memcpy(&v32, (const char *)recs + i * stride + off, 4);
            v = v32;
        } else {
            memcpy(&v, (const char *)recs + i * stride + off, 8);
        }
        d[i] = (int64_t)((uint64_t)v - (uint64_t)prev);   /* wraps: exact both ways */
        prev = v;
    }
    int rc = tp_sf_put(w, name, d, n, 8);
    free(d);
    return rc;
}

static int put_delta(struct tp_sf_writer *w, const char *name, const void *recs, size_t n, size_t stride, size_t off)
{
    return put_delta_w(w, name, recs, n, stride, off, 8);
}

/* A name's byte offset in the string table (NO_NAME for the roots' name);
 * 0 when it has none there. */
static int name_off(const tp_store *st, const char *name, uint64_t *off)
{
    uintptr_t p = (uintptr_t)name, b = (uintptr_t)st->strings.bytes;
    if (st->strings.bytes && p >= b && p < b + st->strings.nbytes) {
        *off = (uint64_t)(p - b);
        return 1;
    }
    *off = NO_NAME;
    return strcmp(name, ROOT_NAME) == 0;
}

/* What the file leaves out must follow from what it keeps: a node's and a
 * call's times and thread from its row, a root's from the thread list.
 * Trees built with a capture trace (stand-in nodes of no row) are never
 * written. */
static int derivable(const tp_store *st, const struct tb_model *m)
{
    if (m->nroots != m->ntids)
        return 0;
    size_t roots = 0;
    for (size_t i = 0; i < m->nnodes; i++) {
        const struct tb_node *N = &m->nodes[i];
        if ((unsigned)N->ev > 7 || (unsigned)N->cl > 7 || N->tix >= m->ntids)
            return 0;
        if (N->row < 0)
            roots++;
        else if (N->start != st->ts[N->row] || N->end != st->ts[N->row] + st->dur[N->row] ||
                 tb_node_tid(m, N) != st->tid[N->row])
            return 0;
    }
    for (size_t i = 0; i < m->nroots; i++) {
        const struct tb_node *R = &m->nodes[m->roots[i]];
        if (R->row >= 0 || R->start != INT64_MIN || R->end != INT64_MAX || R->tix != i)
            return 0;
    }
    for (size_t i = 0; i < m->nrts; i++) {
        const struct tb_rt *R = &m->rts[i];
        if (R->row >= 0 ? R->start != st->ts[R->row] || R->end != st->ts[R->row] + st->dur[R->row]
                        : R->start != 0 || R->end != 0)
            return 0;
    }
    return roots == m->nroots;
}

static uint16_t node_bits(const struct tb_node *N)
{
    return (uint16_t)(N->ev | N->cl << 3 | N->dropped << 6 | N->tc_elig << 7 | N->tc_allow << 8);
}

/* The tree's lists flattened, its names as offsets, its classes as bits,
 * the nodes' External ids. */
struct flat {
    uint32_t *ncnt, *rcnt;
    int64_t *nitems, *ritems;
    size_t nn, nr;
    uint64_t *noff, *koff;
    uint16_t *bits;
    int64_t *ext;
};

static void flat_free(struct flat *f)
{
    free(f->ncnt); free(f->rcnt); free(f->nitems); free(f->ritems); free(f->noff); free(f->koff); free(f->bits);
    free(f->ext);
}

/* 1, 0 when the tree cannot be written so, -1 out of memory */
static int flatten(const tp_store *st, const struct tb_model *m, struct flat *f)
{
    size_t nr = 0, nd = 0;
    for (size_t i = 0; i < m->nnodes; i++)
        nr += m->nodes[i].nrts;
    for (size_t i = 0; i < m->nrts; i++)
        nd += m->rts[i].ndev;
    f->ncnt = malloc((m->nnodes + 1) * sizeof *f->ncnt);
    f->noff = malloc((m->nnodes + 1) * sizeof *f->noff);
    f->bits = malloc((m->nnodes + 1) * sizeof *f->bits);
    f->nitems = malloc((nr + 1) * sizeof *f->nitems);
    f->rcnt = malloc((m->nrts + 1) * sizeof *f->rcnt);
    f->ritems = malloc((nd + 1) * sizeof *f->ritems);
    f->koff = malloc((m->nkern + 1) * sizeof *f->koff);
    f->ext = malloc((m->nnodes + 1) * sizeof *f->ext);
    if (!f->ncnt || !f->noff || !f->bits || !f->nitems || !f->rcnt || !f->ritems || !f->koff || !f->ext)
        return -1;
    for (size_t i = 0; i < m->nnodes; i++) {
        const struct tb_node *N = &m->nodes[i];
        if (!name_off(st, N->name, &f->noff[i]))
            return 0;
        f->bits[i] = node_bits(N);
        f->ext[i] = tb_node_ext(st, N);
        f->ncnt[i] = N->nrts;
        const uint32_t *l = tb_node_rts(m, N);
        for (size_t k = 0; k < N->nrts; k++)
            f->nitems[f->nn++] = l[k];
    }
    for (size_t i = 0; i < m->nrts; i++) {
        f->rcnt[i] = m->rts[i].ndev;
        const uint32_t *l = tb_rt_dev(m, &m->rts[i]);
        for (size_t k = 0; k < m->rts[i].ndev; k++)
            f->ritems[f->nr++] = l[k];
    }
    for (size_t k = 0; k < m->nkern; k++)
        if (!name_off(st, m->kern_op[k], &f->koff[k]) || f->koff[k] == NO_NAME)
            return 0;
    return derivable(st, m);
}

/* The nodes' int32 fields, written as int64 differences (the External id,
 * no field of a node, among them: SIZE_MAX), and their int64 stats. */
#define NODE_FIELD(f) {"opt.model.tb.node." #f, offsetof(struct tb_node, f)}
static const struct { const char *name; size_t off; } node_delta[] = {
    NODE_FIELD(row), {"opt.model.tb.node.ext", SIZE_MAX}, NODE_FIELD(first_child), NODE_FIELD(next_sib),
    NODE_FIELD(last_child)};
static const struct { const char *name; size_t off; } node_plain[] = {
    NODE_FIELD(dev), NODE_FIELD(self_dev), NODE_FIELD(self_host), NODE_FIELD(tc_total), NODE_FIELD(tc_self)};

static int write_tree(struct tp_sf_writer *w, const tp_store *st, const struct tb_model *m)
{
    struct flat f = {0};
    int32_t has[2] = {m->has_kernel, m->has_memcpy_or_memset};
    int rc = 0;
    /* out of memory, or a tree not to be written so: no tree in the file
     * (it is built on first use, as before) */
    if (flatten(st, m, &f) > 0) {
        for (size_t i = 0; !rc && i < sizeof node_delta / sizeof *node_delta; i++)
            rc = node_delta[i].off == SIZE_MAX
                     ? put_delta(w, node_delta[i].name, f.ext, m->nnodes, 8, 0)
                     : put_delta_w(w, node_delta[i].name, m->nodes, m->nnodes, sizeof *m->nodes, node_delta[i].off, 4);
        for (size_t i = 0; !rc && i < sizeof node_plain / sizeof *node_plain; i++)
            rc = tp_sf_put_field(w, node_plain[i].name, m->nodes, m->nnodes, sizeof *m->nodes, node_plain[i].off, 8);
        rc = rc || tp_sf_put(w, "opt.model.tb.node.bits", f.bits, m->nnodes, 2) ||
             tp_sf_put(w, "opt.model.tb.node.name", f.noff, m->nnodes, 8) ||
             tp_sf_put(w, "opt.model.tb.node.nrts", f.ncnt, m->nnodes, 4) ||
             put_delta(w, "opt.model.tb.node.rts", f.nitems, f.nn, 8, 0) ||
             put_delta_w(w, "opt.model.tb.rt.row", m->rts, m->nrts, sizeof *m->rts, offsetof(struct tb_rt, row), 4) ||
             put_delta_w(w, "opt.model.tb.rt.next", m->rts, m->nrts, sizeof *m->rts, offsetof(struct tb_rt, next), 4) ||
             tp_sf_put(w, "opt.model.tb.rt.ndev", f.rcnt, m->nrts, 4) ||
             put_delta(w, "opt.model.tb.rt.dev", f.ritems, f.nr, 8, 0) ||
             tp_sf_put(w, "opt.model.tb.roots", m->roots, m->nroots, 8) ||
             tp_sf_put(w, "opt.model.tb.tids", m->tids, m->ntids, 8) ||
             tp_sf_put(w, "opt.model.tb.has", has, 2, 4) ||
             put_delta(w, "opt.model.tb.kern", m->kern, m->nkern, 8, 0) ||
             tp_sf_put(w, "opt.model.tb.kern_op", f.koff, m->nkern, 8) ||
             tp_sf_put(w, "opt.model.tb.kern_elig", m->kern_elig, m->nkern, sizeof *m->kern_elig) ||
             tp_sf_put(w, "opt.model.tb.kern_tid", m->kern_tid, m->nkern, 8) ||
             put_delta(w, "opt.model.tb.ops", m->ops, m->nops, 8, 0);
    }
    flat_free(&f);
    return rc ? TP_ERR_IO : TP_OK;   /* the writer's message says what */
}

int tp_sf_write_models(struct tp_sf_writer *w, const tp_store *st)
{
    /* kineto traces only (the models' home); a capture trace changes the
     * tree and is not part of the store */
    if (st->format != TP_SRC_KINETO_JSON || !st->linked || st->attr.cap_inst)
        return TP_OK;
    uint32_t version[2] = {TP_TB_MODEL_VERSION, TP_TB_BREAKDOWN_VERSION};
    int rc = tp_sf_put(w, "opt.model.version", version, 2, 4);
    const struct tb_model *m = tp_store_tb(st);
    const struct tp_tb_breakdown *bd = tp_store_breakdown(st);
    /* out of memory: the store is whole without them */
    if (!rc && m)
        rc = write_tree(w, st, m);
    if (!rc && bd &&
        (tp_sf_put(w, "opt.model.bd.steps", bd->steps, bd->nsteps, sizeof *bd->steps) ||
         tp_sf_put(w, "opt.model.bd.sum", bd->sum, 1, sizeof bd->sum)))
        rc = TP_ERR_IO;
    if (!rc)
        rc = tp_sf_write_results(w, st);
    return rc;
}

/* ---- reading ---------------------------------------------------------------- */

void tp_sf_blobs_free(struct tp_sf_blobs *b)
{
    for (size_t i = 0; i < b->n; i++)
        free(b->v[i].z);
    free(b->v);
    memset(b, 0, sizeof *b);
}

/* 1 when the sections' writer had version `want` of model `which` (0 the
 * tree, 1 the breakdown). */
static int version_is(const struct tp_sf_blobs *b, int which, uint32_t want)
{
    for (size_t i = 0; b && i < b->n; i++) {
        const struct tp_sf_blob *s = &b->v[i];
        uint32_t v[2];
        if (strcmp(s->name, "opt.model.version") == 0 && s->width == 4 && s->count == 2 &&
            ZSTD_decompress(v, sizeof v, s->z, s->zlen) == sizeof v)
            return v[which] == want;
    }
    return 0;
}

static int has(const struct tp_sf_blobs *b, const char *name)
{
    for (size_t i = 0; i < b->n; i++)
        if (strcmp(b->v[i].name, name) == 0)
            return 1;
    return 0;
}

int tp_sf_keep_models(const tp_store *st, struct tp_sf_lazy *L)
{
    struct tp_sf_blobs *b = tp_sf_lazy_models(L);
    int tree = st->linked && version_is(b, 0, TP_TB_MODEL_VERSION);
    int bd = st->linked && version_is(b, 1, TP_TB_BREAKDOWN_VERSION);
    if (!tree && !bd)
        tp_sf_blobs_free(b);
    tp_sf_lazy_models_ok(L, tree || bd);
    /* (a tree that could not be written leaves the version alone) */
    return tree && bd && has(b, "opt.model.tb.roots") && has(b, "opt.model.bd.sum");
}

/* Section `name` inflated (count SIZE_MAX: any count, set in *count; else
 * it must hold *count values), width checked; NULL when absent or out of
 * memory.  The caller frees it. */
void *tp_sf_blob_inflate(const struct tp_sf_blobs *b, const char *name, size_t width, size_t *count)
{
    for (size_t i = 0; b && i < b->n; i++) {
        const struct tp_sf_blob *s = &b->v[i];
        if (strcmp(s->name, name) != 0 || s->width != width || (*count != SIZE_MAX && s->count != *count))
            continue;
        size_t raw = (size_t)(s->count * s->width);
        void *out = tp_sf_big_alloc(raw ? raw : 1);   /* (huge pages above 8 MB) */
        if (out && ZSTD_decompress(out, raw, s->z, s->zlen) != raw) {
            free(out);
            return NULL;
        }
        *count = (size_t)s->count;
        return out;
    }
    return NULL;
}

/* The count of section `name` of values `width` bytes wide, SIZE_MAX when
 * absent or of another width. */
static size_t count_of(const struct tp_sf_blobs *b, const char *name, size_t width)
{
    for (size_t i = 0; b && i < b->n; i++)
        if (strcmp(b->v[i].name, name) == 0 && b->v[i].width == width)
            return (size_t)b->v[i].count;
    return SIZE_MAX;
}

/* Section `name`, of exactly `count` values of `width` bytes, inflated into
 * out through d: 1, or 0 when absent, of another size or damaged. */
static int inflate_to(ZSTD_DCtx *d, const struct tp_sf_blobs *b, const char *name, size_t width, size_t count,
                      void *out)
{
    for (size_t i = 0; b && i < b->n; i++) {
        const struct tp_sf_blob *s = &b->v[i];
        if (strcmp(s->name, name) != 0)
            continue;
        size_t raw = count * width;
        return s->width == width && s->count == count && ZSTD_decompressDCtx(d, out, raw, s->z, s->zlen) == raw;
    }
    return 0;
}

/* An int64 section written as differences, summed back. */
static int64_t *inflate_delta(const struct tp_sf_blobs *b, const char *name, size_t *count)
{
    int64_t *v = tp_sf_blob_inflate(b, name, 8, count);
    uint64_t acc = 0;
    for (size_t i = 0; v && i < *count; i++)
        v[i] = (int64_t)(acc += (uint64_t)v[i]);
    return v;
}

static int in(int64_t v, size_t n) { return v >= 0 && (uint64_t)v < n; }
static int in_or_none(int64_t v, size_t n) { return v == -1 || in(v, n); }

static int is_device_row(const tp_store *st, int64_t r)
{
    return in(r, st->n) && (st->kind[r] == TP_K_KERNEL || st->kind[r] == TP_K_MEMCPY || st->kind[r] == TP_K_MEMSET);
}

/* No walk down first_child / next_sib comes back to a node: each node is
 * left by at most two links, so a depth-first search that meets a node
 * still on its path has found a cycle (a crafted file; the builder makes
 * none). */
static int acyclic_dfs(const struct tb_model *m)
{
    uint8_t *color = calloc(m->nnodes + 1, 1);      /* 0 new, 1 on the path, 2 done */
    int64_t *stack = malloc((m->nnodes + 1) * sizeof *stack);
    uint8_t *state = malloc(m->nnodes + 1);         /* links of the path's nodes tried */
    int ok = color && stack && state;
    for (size_t s = 0; ok && s < m->nnodes; s++) {
        if (color[s])
            continue;
        size_t sp = 0;
        stack[sp] = (int64_t)s; state[sp++] = 0; color[s] = 1;
        while (ok && sp) {
            int64_t v = stack[sp - 1];
            if (state[sp - 1] == 2) { color[v] = 2; sp--; continue; }
            const struct tb_node *N = &m->nodes[v];
            int64_t next = state[sp - 1]++ == 0 ? N->first_child : N->next_sib;
            if (next < 0 || color[next] == 2)
                continue;
            if (color[next] == 1) { ok = 0; break; }
            color[next] = 1;
            stack[sp] = next; state[sp++] = 0;
        }
    }
    free(color); free(stack); free(state);
    return ok;
}

/* The builder numbers a node before its first child and its next sibling,
 * except the roots (made last): when every link but a root's points forward
 * and none points at a root, a cycle would have to go back through a root
 * that nothing enters, so there is none.  One pass in node order, where the
 * depth-first search jumped about a node array bigger than any cache (a
 * third of reading the tree); a tree of any other shape is searched. */
static int acyclic(const struct tb_model *m)
{
    size_t n = m->nnodes;
    uint8_t *root = malloc(n + 1);
    int forward = root != NULL;
    for (size_t i = 0; forward && i < n; i++)
        root[i] = m->nodes[i].ev == EV_ROOT;
    for (size_t i = 0; forward && i < n; i++) {
        int64_t l[2] = {m->nodes[i].first_child, m->nodes[i].next_sib};
        for (int k = 0; k < 2 && forward; k++)
            forward = l[k] < 0 || ((root[i] || (uint64_t)l[k] > i) && !root[l[k]]);
    }
    free(root);
    return forward || acyclic_dfs(m);
}

/* A name from its offset: inside the string table (each string ends with
 * its NUL, so any offset in it starts a C string), or the roots' name. */
static int name_at(const tp_store *st, uint64_t off, const char **out)
{
    if (off == NO_NAME)
        *out = ROOT_NAME;
    else if (off < st->strings.nbytes)
        *out = st->strings.bytes + off;
    else
        return 0;
    return 1;
}

/* The inflated sections of a tree (freed together). */
struct secs {
    int64_t *nitems, *rrow, *rnext, *ritems, *kern, *ops;
    uint64_t *koff;
    uint32_t *ncnt, *rcnt;
    int32_t *has;
    int *kelig;
    int64_t *ktid;
};

static void secs_free(struct secs *s)
{
    free(s->nitems); free(s->rrow); free(s->rnext); free(s->ritems); free(s->kern); free(s->ops);
    free(s->koff); free(s->ncnt); free(s->rcnt); free(s->has); free(s->kelig);
    free(s->ktid);
}

/* Every section of the tree, with the counts that must agree. */
static int inflate_tree(const struct tp_sf_blobs *b, struct secs *s, size_t *nn, size_t *nr, size_t *nrl,
                        size_t *ndl, size_t *nk, size_t *nops)
{
    size_t two = 2;
    *nn = *nr = *nrl = *ndl = *nk = *nops = SIZE_MAX;
    *nn = count_of(b, "opt.model.tb.node.row", 8);
    s->rrow = inflate_delta(b, "opt.model.tb.rt.row", nr);
    s->kern = inflate_delta(b, "opt.model.tb.kern", nk);
    if (*nn == SIZE_MAX || !s->rrow || !s->kern)
        return 0;
    s->ncnt = tp_sf_blob_inflate(b, "opt.model.tb.node.nrts", 4, nn);
    s->nitems = inflate_delta(b, "opt.model.tb.node.rts", nrl);
    s->rnext = inflate_delta(b, "opt.model.tb.rt.next", nr);
    s->rcnt = tp_sf_blob_inflate(b, "opt.model.tb.rt.ndev", 4, nr);
    s->ritems = inflate_delta(b, "opt.model.tb.rt.dev", ndl);
    s->has = tp_sf_blob_inflate(b, "opt.model.tb.has", 4, &two);
    s->koff = tp_sf_blob_inflate(b, "opt.model.tb.kern_op", 8, nk);
    s->kelig = tp_sf_blob_inflate(b, "opt.model.tb.kern_elig", sizeof *s->kelig, nk);
    s->ktid = tp_sf_blob_inflate(b, "opt.model.tb.kern_tid", 8, nk);
    s->ops = inflate_delta(b, "opt.model.tb.ops", nops);
    return s->ncnt && s->nitems && s->rnext && s->rcnt && s->ritems && s->has && s->koff && s->kelig && s->ktid && s->ops;
}

/* Each node's launch calls and each call's device rows in the model's two
 * lists (32 bits each); 0 when they do not add up or point outside. */
static int lists_from(const tp_store *st, struct tb_model *m, const struct secs *s, size_t nrl, size_t ndl)
{
    if (nrl > UINT32_MAX || ndl > UINT32_MAX)
        return 0;
    m->rtl = malloc((nrl + 1) * sizeof *m->rtl);
    m->devl = malloc((ndl + 1) * sizeof *m->devl);
    if (!m->rtl || !m->devl)
        return 0;
    m->nrtl = m->caprtl = nrl;
    m->ndevl = m->capdevl = ndl;
    for (size_t j = 0; j < nrl; j++) {
        if (!in(s->nitems[j], m->nrts))
            return 0;
        m->rtl[j] = (uint32_t)s->nitems[j];
    }
    for (size_t j = 0; j < ndl; j++) {
        if (!is_device_row(st, s->ritems[j]))
            return 0;
        m->devl[j] = (uint32_t)s->ritems[j];
    }
    size_t k = 0;
    for (size_t i = 0; i < m->nnodes; i++) {
        struct tb_node *N = &m->nodes[i];
        if (s->ncnt[i] > nrl - k)
            return 0;
        N->rts = (uint32_t)k;
        N->nrts = s->ncnt[i];
        k += N->nrts;
    }
    size_t d = 0;
    for (size_t i = 0; i < m->nrts; i++) {
        struct tb_rt *R = &m->rts[i];
        if (s->rcnt[i] > ndl - d)
            return 0;
        R->dev = (uint32_t)d;
        R->ndev = s->rcnt[i];
        d += R->ndev;
    }
    return k == nrl && d == ndl;
}

/* A node's thread as its place in the thread list (last: the one before,
 * nodes come in runs of a thread); 0 when its row's thread is not listed. */
static int tid_index(const struct tb_model *m, const struct tp_i64map *map, int64_t tid, uint32_t *last)
{
    if (*last < m->ntids && m->tids[*last] == tid)
        return 1;
    int64_t t = -1;
    if (tid == TP_I64MAP_EMPTY || !map->cap) {
        for (size_t i = 0; i < m->ntids && t < 0; i++)
            if (m->tids[i] == tid) t = (int64_t)i;
    } else {
        t = tp_i64map_get(map, tid);
    }
    if (t < 0)
        return 0;
    *last = (uint32_t)t;
    return 1;
}

/* The nodes' fields, a section at a time through one scratch buffer of
 * nnodes values, straight into the nodes: inflating every section into an
 * array of its own first cost as much again in fresh pages as the nodes
 * themselves (and inflating the ten int64 sections side by side into one
 * block, to write each node once, cost more than the ten passes).  An
 * int32 field out of its range is a damaged file. */
static int nodes_from(const tp_store *st, struct tb_model *m, const struct tp_sf_blobs *b, int64_t *scratch)
{
    size_t nn = m->nnodes;
    ZSTD_DCtx *d = ZSTD_createDCtx();
    int ok = d != NULL;
    for (size_t f = 0; ok && f < 10; f++) {
        int delta = f < 5;
        const char *name = delta ? node_delta[f].name : node_plain[f - 5].name;
        size_t off = delta ? node_delta[f].off : node_plain[f - 5].off;
        ok = inflate_to(d, b, name, 8, nn, scratch);
        uint64_t acc = 0;
        for (size_t i = 0; ok && i < nn; i++) {
            int64_t v = delta ? (int64_t)(acc += (uint64_t)scratch[i]) : scratch[i];
            if (!delta) {
                memcpy((char *)&m->nodes[i] + off, &v, 8);
            } else if (off == SIZE_MAX) {
                m->nodes[i].no_ext = v == TP_NONE;
            } else {
                /* row: a row or -1; the links: a node or -1 */
                ok = in_or_none(v, off == offsetof(struct tb_node, row) ? st->n : nn);
                int32_t v32 = (int32_t)v;
                memcpy((char *)&m->nodes[i] + off, &v32, 4);
            }
        }
    }
    uint16_t *bits = (uint16_t *)scratch;
    ok = ok && inflate_to(d, b, "opt.model.tb.node.bits", 2, nn, bits);
    for (size_t i = 0; ok && i < nn; i++) {
        struct tb_node *N = &m->nodes[i];
        unsigned v = bits[i];
        N->ev = v & 7;
        N->cl = v >> 3 & 7;
        N->dropped = v >> 6 & 1;
        N->tc_elig = v >> 7 & 1;
        N->tc_allow = v >> 8 & 1;
        ok = !(v >> 9);
    }
    uint64_t *noff = (uint64_t *)scratch;
    ok = ok && inflate_to(d, b, "opt.model.tb.node.name", 8, nn, noff);
    ZSTD_freeDCtx(d);
    struct tp_i64map map = {0};
    /* many threads: by a map (a failed one is out of memory, like the rest) */
    if (ok && m->ntids > 8)
        ok = tp_i64map_init(&map, m->ntids) == 0;
    if (ok && m->ntids > 8)
        for (size_t t = 0; t < m->ntids && ok; t++) {
            int64_t *v = m->tids[t] == TP_I64MAP_EMPTY ? NULL : tp_i64map_slot(&map, m->tids[t]);
            if (m->tids[t] != TP_I64MAP_EMPTY && !v)
                ok = 0;
            else if (v && *v < 0)
                *v = (int64_t)t;
        }
    uint32_t last = 0;
    for (size_t i = 0; ok && i < nn; i++) {
        struct tb_node *N = &m->nodes[i];
        int64_t r = N->row;
        /* a root and only a root has no row */
        if ((r < 0) != (N->ev == EV_ROOT) || N->cl > CL_ROOT || !name_at(st, noff[i], &N->name))
            ok = 0;
        else if (r >= 0) {
            N->start = st->ts[r];
            N->end = st->ts[r] + st->dur[r];
            ok = tid_index(m, &map, st->tid[r], &last);
            N->tix = last;
        } else {
            N->start = INT64_MIN;
            N->end = INT64_MAX;
        }
    }
    tp_i64map_free(&map);
    if (!ok)
        return 0;
    for (size_t i = 0; i < m->nroots; i++) {
        if (!in(m->roots[i], nn) || m->nodes[m->roots[i]].ev != EV_ROOT)
            return 0;
        m->nodes[m->roots[i]].tix = (uint32_t)i;
    }
    return 1;
}

static int rest_from(const tp_store *st, struct tb_model *m, const struct secs *s)
{
    for (size_t i = 0; i < m->nrts; i++) {
        struct tb_rt *R = &m->rts[i];
        if (!in_or_none(s->rrow[i], st->n) || !in_or_none(s->rnext[i], m->nrts))
            return 0;
        R->row = (int32_t)s->rrow[i];
        R->next = (int32_t)s->rnext[i];
        if (R->row >= 0) {
            R->start = st->ts[R->row];
            R->end = st->ts[R->row] + st->dur[R->row];
        }
    }
    for (size_t k = 0; k < m->nkern; k++)
        if (!is_device_row(st, m->kern[k]) || !name_at(st, s->koff[k], &m->kern_op[k]) || s->koff[k] == NO_NAME)
            return 0;
    for (size_t i = 0; i < m->nops; i++)
        if (!in(m->ops[i], m->nnodes))
            return 0;
    return 1;
}

struct tb_model *tp_store_file_tree(const tp_store *st)
{
    const struct tp_sf_blobs *b = tp_sf_file_models(st);
    /* the nodes take their times and threads from their rows */
    if (b && tp_store_need(st, TP_NEED_KIND | TP_NEED_TS | TP_NEED_DUR | TP_NEED_TID, NULL) != TP_OK)
        b = NULL;
    struct secs s = {0};
    size_t nn, nr, nrl, ndl, nk, nops;
    struct tb_model *m = version_is(b, 0, TP_TB_MODEL_VERSION) ? calloc(1, sizeof *m) : NULL;
    /* (indices and rows are 32 bits in the tree) */
    if (!m || !inflate_tree(b, &s, &nn, &nr, &nrl, &ndl, &nk, &nops) || nn > (size_t)INT32_MAX ||
        nr > (size_t)INT32_MAX || st->n > (size_t)INT32_MAX)
        goto bad;
    m->nodes = calloc(nn + 1, sizeof *m->nodes);
    m->rts = calloc(nr + 1, sizeof *m->rts);
    m->kern_op = malloc((nk + 1) * sizeof *m->kern_op);
    size_t nroots = SIZE_MAX, ntids = SIZE_MAX;
    m->roots = tp_sf_blob_inflate(b, "opt.model.tb.roots", 8, &nroots);
    m->tids = tp_sf_blob_inflate(b, "opt.model.tb.tids", 8, &ntids);
    if (!m->nodes || !m->rts || !m->kern_op || !m->roots || !m->tids || nroots != ntids)
        goto bad;
    m->nnodes = nn;
    m->nrts = nr;
    m->nroots = nroots;
    m->ntids = m->captids = ntids;
    m->has_kernel = s.has[0];
    m->has_memcpy_or_memset = s.has[1];
    /* the arrays taken over from the sections */
    m->kern = s.kern; s.kern = NULL;
    m->kern_elig = s.kelig; s.kelig = NULL;
    m->kern_tid = s.ktid; s.ktid = NULL;
    m->nkern = m->capkern = nk;
    m->ops = s.ops; s.ops = NULL;
    m->nops = m->capops = nops;
    int64_t *scratch = malloc((nn + 1) * 8);
    int ok = scratch && nodes_from(st, m, b, scratch);
    free(scratch);
    if (!ok || !rest_from(st, m, &s) || !lists_from(st, m, &s, nrl, ndl) || !acyclic(m))
        goto bad;
    secs_free(&s);
    return m;
bad:
    secs_free(&s);
    if (m)
        tp_tb_model_delete(m);
    /* the caller builds the tree from the columns then */
    tp_store_need(st, TP_NEED_ALL, NULL);
    return NULL;
}

struct tp_tb_breakdown *tp_store_file_breakdown(const tp_store *st)
{
    const struct tp_sf_blobs *b = tp_sf_file_models(st);
    size_t ns = SIZE_MAX, one = 1;
    struct tp_tb_breakdown *bd = version_is(b, 1, TP_TB_BREAKDOWN_VERSION) ? calloc(1, sizeof *bd) : NULL;
    void *sum = bd ? tp_sf_blob_inflate(b, "opt.model.bd.sum", sizeof bd->sum, &one) : NULL;
    if (bd && sum && (bd->steps = tp_sf_blob_inflate(b, "opt.model.bd.steps", sizeof *bd->steps, &ns))) {
        bd->nsteps = ns;
        memcpy(bd->sum, sum, sizeof bd->sum);
        free(sum);
        return bd;
    }
    free(sum);
    if (bd)
        tp_tb_breakdown_delete(bd);
    tp_store_need(st, TP_NEED_ALL, NULL);   /* the caller builds it from the columns then */
    return NULL;
}
