/* view_prof.c — prof.py's per-kernel table, tprof's default view.
 *
 * One row per kernel (st->annots, in kernel order) with prof.py's 20
 * columns (SPEC §5.1): the keys, headers and -w minimum widths are prof.py's,
 * kernel and params share what is left of -w.  FLOPs/bytes/params/TC come
 * from PyProf's op classes (flops.c): the apex-era dialect for nvprof, nsys
 * and dict inputs (it reproduces the published lm.csv), PyProf 3.x plus the
 * aten formulas (flops_aten.c) for kineto traces.  Rows whose op has no
 * formula show prof.py's defaults: params "na=na,", TC "na", 0 FLOPs and
 * bytes (kineto rows: "-" for unknown FLOPs/bytes). */
#include <stdlib.h>
#include <string.h>
#include "opcall.h"
#include "pyprof.h"
#include "store.h"
#include "store_file.h"
#include "table.h"
#include "coldefs.h"
#include "views.h"
#include "grow.h"

#define TP_COLS_FILE "view_prof.def"
#define TP_COLS_ARRAY tp_prof_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

static void set_dash(tp_table *t, size_t col, const tp_store *st, uint32_t id)
{
    const char *s = id ? tp_store_str(st, id) : "";
    tp_table_set_str_stable(t, col, s[0] ? s : "-");
}

static char *put_int(char *o, int64_t v)
{
    char tmp[24];
    int n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *o++ = '-';
    while (n)
        *o++ = tmp[--n];
    return o;
}

/* "x,y,z" of d into out (room for 36 bytes); its length. */
static size_t dims_text(const int32_t *d, char *out)
{
    char *o = out;
    for (int i = 0; i < 3; i++) {
        if (i)
            *o++ = ',';
        o = put_int(o, d[i]);
    }
    *o = 0;
    return (size_t)(o - out);
}

/* Grid and block texts by value: a trace launches a few hundred distinct
 * shapes, so each is formatted once and set into the table by address
 * (tp_table_set_str_stable) instead of hashed every row; past DIMS_MAX
 * distinct ones, formatted per row. */
#define DIMS_SLOTS 4096u
#define DIMS_MAX 2048u
struct dims_memo {
    uint32_t *slots;              /* entry index + 1; 0 free */
    int32_t (*key)[3];
    char (*text)[40];
    size_t n;
};

static void set_dims(struct dims_memo *m, tp_table *t, size_t col, const int32_t *d)
{
    uint32_t h = ((uint32_t)d[0] * 2654435761u ^ (uint32_t)d[1] * 40503u ^ (uint32_t)d[2]) & (DIMS_SLOTS - 1);
    for (;; h = (h + 1) & (DIMS_SLOTS - 1)) {
        uint32_t i = m->slots[h];
        if (!i)
            break;
        if (memcmp(m->key[i - 1], d, sizeof m->key[0]) == 0) {
            tp_table_set_str_stable(t, col, m->text[i - 1]);
            return;
        }
    }
    if (m->n == DIMS_MAX) {
        char buf[40];
        size_t len = dims_text(d, buf);
        tp_table_set_strn(t, col, buf, len);
        return;
    }
    memcpy(m->key[m->n], d, sizeof m->key[0]);
    dims_text(d, m->text[m->n]);
    m->slots[h] = (uint32_t)++m->n;
    tp_table_set_str_stable(t, col, m->text[m->n - 1]);
}

static void set_num(tp_table *t, size_t col, const struct tp_pynum *n)
{
    if (n->is_float)
        tp_table_set_float(t, col, n->value);
    else
        tp_table_set_int(t, col, (int64_t)n->value);
}

/* Parsed markers, by string id: training loops repeat the same markers every
 * step, so each is parsed once (up to MCACHE distinct ones). */
#define MCACHE 4096

struct mcache {
    uint32_t *ids;           /* marker string id per slot, 0 free */
    int *rc;
    struct tp_opcall *calls;
};

static void mcache_free(struct mcache *c)
{
    free(c->ids);
    free(c->rc);
    free(c->calls);
}

static const struct tp_opcall *parse_marker(struct mcache *c, const tp_store *st, uint32_t id, int *rc,
                                            struct tp_opcall *scratch)
{
    size_t h = ((size_t)id * 2654435761u) & (MCACHE - 1);
    for (size_t probe = 0; probe < 8; probe++, h = (h + 1) & (MCACHE - 1)) {
        if (c->ids[h] == id) {
            *rc = c->rc[h];
            return &c->calls[h];
        }
        if (!c->ids[h]) {
            c->ids[h] = id;
            c->rc[h] = tp_opcall_from_marker(tp_store_str(st, id), &c->calls[h]);
            *rc = c->rc[h];
            return &c->calls[h];
        }
    }
    *rc = tp_opcall_from_marker(tp_store_str(st, id), scratch);
    return scratch;
}

/* FLOPs results of kineto rows, by everything they depend on.  A training
 * trace launches the same kernels from the same operators with the same
 * shapes every step; parsing the shapes and running the formulas once per
 * distinct key instead of once per kernel took the default view on a
 * 995 MB trace from 2.46 to 1.79 s of CPU (medians of 5, same bytes out).
 * Up to FMEMO_MAX keys are kept; past that, rows are computed directly.
 * A failed allocation is reported (fm.oom), never done without. */
#define FMEMO_SLOTS (1u << 16)
#define FMEMO_MAX (1u << 15)

struct fkey {
    uint32_t opname, dims, types, concrete, kernel;
    int32_t grid[3];
    int32_t bprop, sub;
};

struct fentry {
    struct fkey key;
    int ran;
    struct tp_flops_result fr;
};

/* Entries sit in blocks that never move: a row's op, params and TC texts
 * are set into the table by address (tp_table_set_str_stable). */
#define FMEMO_BLOCK 1024u
struct fmemo {
    uint32_t *slots;          /* entry index + 1; 0 free */
    struct fentry *blk[FMEMO_MAX / FMEMO_BLOCK];
    size_t n;
    int oom;                  /* an allocation failed: the view reports it */
};
#define FENTRY(m, i) (&(m)->blk[(i) / FMEMO_BLOCK][(i) % FMEMO_BLOCK])

static void fmemo_free(struct fmemo *m)
{
    free(m->slots);
    for (size_t b = 0; b < FMEMO_MAX / FMEMO_BLOCK; b++)
        free(m->blk[b]);
}

static uint32_t fkey_hash(const struct fkey *k)
{
    /* FNV-1a over the key's words */
    const uint32_t *w = (const uint32_t *)k;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < sizeof *k / sizeof *w; i++)
        h = (h ^ w[i]) * 16777619u;
    return h;
}

/* The memo's entry for k, computed now if new; NULL when the memo is full
 * or out of memory (the caller computes the row itself). */
static const struct fentry *fmemo_get(struct fmemo *m, const struct fkey *k, const tp_store *st,
                                      const char *kname, struct tp_opcall *call)
{
    if (!m->slots)
        return NULL;
    uint32_t h = fkey_hash(k) & (FMEMO_SLOTS - 1);
    for (;; h = (h + 1) & (FMEMO_SLOTS - 1)) {
        uint32_t i = m->slots[h];
        if (!i)
            break;
        if (memcmp(&FENTRY(m, i - 1)->key, k, sizeof *k) == 0)
            return FENTRY(m, i - 1);
    }
    if (m->n == FMEMO_MAX)
        return NULL;
    if (m->n % FMEMO_BLOCK == 0 && !(m->blk[m->n / FMEMO_BLOCK] = malloc(FMEMO_BLOCK * sizeof(struct fentry)))) {
        m->oom = 1;
        return NULL;
    }
    struct fentry *e = FENTRY(m, m->n);
    e->key = *k;
    e->ran = 0;
    int rc = tp_opcall_from_kineto(tp_store_str(st, k->opname), k->dims ? tp_store_str(st, k->dims) : NULL,
                                   k->types ? tp_store_str(st, k->types) : NULL, call);
    if (rc == 0)
        rc = tp_opcall_add_concrete(call, k->concrete ? tp_store_str(st, k->concrete) : NULL);
    if (rc == TP_OPCALL_NOMEM) {
        m->oom = 1;
        return NULL;
    }
    if (rc == 0) {
        tp_flops_eval_grid(call, kname, k->bprop, k->sub, k->grid[0] == INT32_MIN ? NULL : k->grid, TP_PYPROF_3X,
                           &e->fr);
        e->ran = 1;
    }
    m->slots[h] = (uint32_t)++m->n;
    return e;
}

/* What one build keeps between rows: short names and Tensor Core verdicts
 * per kernel name, the marker parses and the FLOPs memo. */
struct prof_ctx {
    const tp_store *st;
    char **shortnames;          /* per string id, made on first use */
    unsigned char *tcfull;      /* per kernel name: 0 not yet known, 1 no, 2 yes */
    struct tp_opcall *call;     /* scratch */
    struct mcache mc;
    struct fmemo fm;
    struct dims_memo dm;
};

static void prof_ctx_free(struct prof_ctx *c)
{
    for (size_t i = 0; c->shortnames && i <= c->st->strings.count; i++)
        free(c->shortnames[i]);
    free(c->shortnames);
    free(c->call);
    free(c->tcfull);
    mcache_free(&c->mc);
    fmemo_free(&c->fm);
    free(c->dm.slots);
    free(c->dm.key);
    free(c->dm.text);
}

static int prof_ctx_init(struct prof_ctx *c, const tp_store *st)
{
    memset(c, 0, sizeof *c);
    c->st = st;
    c->shortnames = calloc(st->strings.count + 1, sizeof *c->shortnames);
    c->tcfull = calloc(st->strings.count + 1, 1);
    c->call = malloc(sizeof *c->call);
    c->mc = (struct mcache){calloc(MCACHE, sizeof *c->mc.ids), calloc(MCACHE, sizeof *c->mc.rc),
                            malloc(MCACHE * sizeof *c->mc.calls)};
    if (!st->annots_from_pyprof)
        c->fm.slots = calloc(FMEMO_SLOTS, sizeof *c->fm.slots);
    c->dm = (struct dims_memo){calloc(DIMS_SLOTS, sizeof *c->dm.slots), malloc(DIMS_MAX * sizeof *c->dm.key),
                               malloc(DIMS_MAX * sizeof *c->dm.text), 0};
    if (!c->shortnames || !c->tcfull || !c->call || !c->mc.ids || !c->mc.rc || !c->mc.calls || !c->dm.slots ||
        !c->dm.key || !c->dm.text ||
        (!st->annots_from_pyprof && !c->fm.slots)) {
        prof_ctx_free(c);
        return -1;
    }
    return 0;
}

/* PyProf's short name of kernel name nid; NULL when out of memory. */
static const char *short_name(struct prof_ctx *c, uint32_t nid)
{
    if (!c->shortnames[nid]) {
        const char *name = tp_store_str(c->st, nid);
        size_t cap = strlen(name) + 1;
        char *s = malloc(cap);
        if (!s || tp_pyprof_short_name(name, s, cap, 1) == SIZE_MAX) {
            free(s);
            return NULL;
        }
        c->shortnames[nid] = s;
    }
    return c->shortnames[nid];
}

/* The op class of annotation a: FLOPs, bytes, params, Tensor Cores.  *ran
 * is 1 when a class ran: *res is then fr, filled, or the FLOPs memo's
 * entry (which stays where it is through the build).  0, or -1 when out of
 * memory. */
static int classify(struct prof_ctx *c, const struct tp_kernel_annot *a, const struct tp_prof_row *pr,
                    const char *kname, struct tp_flops_result *fr, const struct tp_flops_result **res, int *ran)
{
    const tp_store *st = c->st;
    *ran = 0;
    *res = fr;
    if (st->annots_from_pyprof) {
        if (!a->marker)
            return 0;
        int prc;
        const struct tp_opcall *mcall = parse_marker(&c->mc, st, a->marker, &prc, c->call);
        if (prc == TP_OPCALL_NOMEM)
            return -1;
        if (prc == 0) {
            tp_flops_eval_grid(mcall, kname, a->bprop, a->sub, pr->has_kernel ? pr->grid : NULL, TP_PYPROF_APEX, fr);
            *ran = 1;
        } else if (prc == -2) {
            memset(fr, 0, sizeof *fr);
            snprintf(fr->op, sizeof fr->op, "%s", mcall->op);
            snprintf(fr->params, sizeof fr->params, "na=na,");
            snprintf(fr->tc, sizeof fr->tc, "na");
            snprintf(fr->warning, sizeof fr->warning, "marker has more than %d arguments", TP_MAX_ARGS);
            *ran = 1;
        }
        return 0;
    }
    if (!(a->input_dims || a->input_types) || a->op_event < 0)
        return 0;
    struct fkey k = {(uint32_t)pr->opname, a->input_dims, a->input_types, a->concrete_inputs,
                     pr->kname, {INT32_MIN, 0, 0}, a->bprop, a->sub};
    if (pr->has_kernel)
        memcpy(k.grid, pr->grid, sizeof k.grid);
    const struct fentry *e = fmemo_get(&c->fm, &k, st, kname, c->call);
    if (c->fm.oom)
        return -1;
    if (e) {
        if ((*ran = e->ran))
            *res = &e->fr;
        return 0;
    }
    const char *opname = tp_store_str(st, (uint32_t)pr->opname);
    int orc = tp_opcall_from_kineto(opname, a->input_dims ? tp_store_str(st, a->input_dims) : NULL,
                                    a->input_types ? tp_store_str(st, a->input_types) : NULL, c->call);
    if (orc == 0)
        orc = tp_opcall_add_concrete(c->call, a->concrete_inputs ? tp_store_str(st, a->concrete_inputs) : NULL);
    if (orc == TP_OPCALL_NOMEM)
        return -1;
    if (orc == 0) {
        tp_flops_eval_grid(c->call, kname, a->bprop, a->sub, pr->has_kernel ? pr->grid : NULL, TP_PYPROF_3X, fr);
        *ran = 1;
    }
    return 0;
}

/* Tensor Cores on kineto traces: decided on the full kernel name, where
 * "void cutlass::Kernel2<cutlass_80_tensorop_...>" says what the short
 * name "cutlass::Kernel2" hides.  nvprof/nsys rows keep PyProf's rule. */
static int tc_from_name(struct prof_ctx *c, uint32_t nid)
{
    if (c->st->annots_from_pyprof)
        return 0;
    if (!c->tcfull[nid])
        c->tcfull[nid] = tp_kernel_uses_tc(tp_store_str(c->st, nid)) ? 2 : 1;
    return c->tcfull[nid] == 2;
}

/* The cells of row i (annotation a) of the table. */
/* A text by address when it stays put through the build, else by value. */
static void set_text(tp_table *t, size_t col, const char *s, int stable)
{
    if (stable)
        tp_table_set_str_stable(t, col, s);
    else
        tp_table_set_str(t, col, s);
}

/* The cells of row i (annotation a) of the table; stable: fr's texts stay
 * put through the build. */
static void fill_row(tp_table *t, struct dims_memo *dm, const tp_store *st, size_t i, const struct tp_kernel_annot *a,
                     const struct tp_prof_row *pr, const char *kname, const struct tp_flops_result *fr, int ran,
                     int stable, int tc_full, int columnated)
{
    int pyprof_row = st->annots_from_pyprof;
    tp_table_set_int(t, C_IDX, (int64_t)i + 1);
    set_dash(t, C_SEQ, st, a->seq);
    set_dash(t, C_ALTSEQ, st, a->altseq);
    if (a->tid == TP_NONE)
        tp_table_set_null(t, C_TID);
    else
        tp_table_set_int(t, C_TID, a->tid);
    set_dash(t, C_LAYER, st, a->layer);
    set_dash(t, C_TRACE, st, columnated ? a->trace_last : a->trace);
    tp_table_set_str_stable(t, C_DIR, a->bprop ? "bprop" : "fprop");
    tp_table_set_int(t, C_SUB, a->sub);
    tp_table_set_str_stable(t, C_MOD, tp_store_str(st, a->mod));
    if (ran)
        set_text(t, C_OP, fr->op, stable);
    else
        tp_table_set_str_stable(t, C_OP, tp_store_str(st, a->op));
    tp_table_set_str_stable(t, C_KERNEL, kname);   /* c.shortnames keeps it through the build */
    /* (literals stay put) */
    set_text(t, C_PARAMS, ran ? fr->params : "na=na,", stable || !ran);
    tp_table_set_int(t, C_SIL, pr->dur);
    set_text(t, C_TC, tc_full ? "1" : ran ? fr->tc : "na", tc_full || stable || !ran);
    tp_table_set_int(t, C_DEVICE, pr->device);
    tp_table_set_int(t, C_STREAM, pr->stream);
    if (pr->has_kernel && pr->grid[0] >= 0)
        set_dims(dm, t, C_GRID, pr->grid);
    else
        tp_table_set_null(t, C_GRID);
    if (pr->has_kernel && pr->block[0] >= 0)
        set_dims(dm, t, C_BLOCK, pr->block);
    else
        tp_table_set_null(t, C_BLOCK);
    if (ran && (fr->known || pyprof_row)) {
        set_num(t, C_FLOPS, &fr->flops);
        set_num(t, C_BYTES, &fr->bytes);
    } else if (pyprof_row) {
        tp_table_set_int(t, C_FLOPS, 0);
        tp_table_set_int(t, C_BYTES, 0);
    } else {
        /* inputs unknown: say so, never guess */
        tp_table_set_str_stable(t, C_FLOPS, "na");
        tp_table_set_str_stable(t, C_BYTES, "na");
    }
    /* store strings and literals: set by address (tp_table_set_str_stable) */
    tp_table_set_str_stable(t, C_NAME, tp_store_str(st, pr->kname));
    tp_table_set_str_stable(t, C_OPNAME, pr->opname >= 0 ? tp_store_str(st, (uint32_t)pr->opname) : "N/A");
}

int tp_prof_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    struct prof_ctx c;
    tp_table *t = tp_table_new(tp_prof_cols, C_N);
    if (!t || prof_ctx_init(&c, st) < 0) {
        tp_table_free(t);
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
    }
    /* each annotation's event row: as a .tprof store holds them, else
     * from the event columns (asked for here: the view's needs in views.def
     * leave them out) */
    struct tp_prof_row *rows = tp_store_file_prof_rows(st), one;
    int rc = rows ? TP_OK
                  : tp_store_need(st, TP_NEED_ANNOTS | TP_NEED_AUX | TP_NEED_DEVICE | TP_NEED_DUR | TP_NEED_NAME |
                                          TP_NEED_STREAM | TP_NEED_KERNEL_INFO, err);
    if (rc != TP_OK) {
        prof_ctx_free(&c);
        tp_table_free(t);
        return rc;
    }
    int nomem = 0, columnated = vo && vo->columnated;
    /* 245K rows of 22 cells on a 1 GB trace, where the output reads 8:
     * the others are left out (tp_table_keep_columns) */
    if (vo && vo->need_columns && tp_table_keep_columns(t, vo->need_columns) < 0)
        nomem = 1;
    for (size_t i = 0; i < st->nannots && !nomem; i++) {
        const struct tp_prof_row *pr = rows ? &rows[i] : (tp_prof_row_of(st, &st->annots[i], &one), &one);
        const struct tp_kernel_annot *a = &pr->a;
        const char *kname = short_name(&c, pr->kname);
        struct tp_flops_result fr;
        const struct tp_flops_result *res;
        int ran = 0;
        if (tp_table_add_row(t) < 0 || !kname || classify(&c, a, pr, kname, &fr, &res, &ran) < 0) {
            nomem = 1;
            break;
        }
        fill_row(t, &c.dm, st, i, a, pr, kname, res, ran, res != &fr, tc_from_name(&c, pr->kname), columnated);
    }
    free(rows);
    prof_ctx_free(&c);
    if (nomem || tp_table_nomem(t)) {   /* a setter's failure too: roofline reads this table */
        tp_table_free(t);
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", st->path);
    }
    *out = t;
    return TP_OK;
}
