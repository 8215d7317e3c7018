/* link_pyprof.c — PyProf's parse.py and prof.py stages for nvprof/nsys dumps
 * and dict files: fills st->annots, one per kernel in kernel order.
 *
 * parse.py (SPEC §2.4–2.8):
 *   - a kernel's launch is the runtime call with its correlation id, else the
 *     driver call (nsys: the same process); [rStart, rEnd] and the thread;
 *   - the NVTX ranges attached to a kernel are those of the launching thread
 *     with start < rStart and end > rEnd, outermost (earliest start) first.
 *     One sweep per thread over ranges sorted by start and launches sorted by
 *     rStart replaces PyProf's per-kernel queries.  PyProf's deletion of
 *     ranges that ended before the previous kernel's launch (its speed hack)
 *     is reproduced: a range must also end at or after the largest rStart of
 *     the kernels of that thread that come earlier in kernel order;
 *   - each range string is classified (pyprof argument marker, layer:, trace
 *     marker, strRepr, ", seq = ", other), seq markers sorted as strings and
 *     pruned, seqId extracted, direction and mod/op set, then seqId/subSeqId/
 *     altSeqId post-processed with Python's remove-while-iterating quirk.
 * prof.py (SPEC §4): a bprop kernel without an argument marker takes the
 *   marker, mod, op, layer and trace of the last earlier fprop kernel whose
 *   seqId (else altSeqId) holds its seqId[0].
 *
 * Where parse.py or prof.py would crash we keep going: a kernel without a
 * runtime/driver record gets no markers; a bprop kernel with no seqId gets
 * no lookup; a seq marker that does not split into "name, seq = N" is kept
 * as is and its id read from the first integer after "=".  "Other" markers
 * are kept outermost first (PyProf's set() order is random).  The nvprof
 * "altSeq" query (markers with ", seq=" without spaces) never matches what
 * PyTorch writes and is not done. */
#include <stdlib.h>
#include <string.h>
#include "ingest.h"
#include "i64map.h"
#include "pylit.h"
#include "pyprof.h"
#include "table.h"
#include "grow.h"
#include "slots.h"
#include "cmp.h"
#include "try.h"

/* map[k] = v (the last one wins); -1 on out of memory.  TP_NONE is not an id. */
static int imap_put(struct tp_i64map *m, int64_t k, int64_t v)
{
    if (k == TP_I64MAP_EMPTY)
        return 0;
    int64_t *slot = tp_i64map_slot(m, k);
    if (!slot)
        return -1;
    *slot = v;
    return 0;
}

/* ---- prof.py stage ------------------------------------------------------ */

struct tp_pp_state {
    tp_store *st;
    size_t cap;
    struct tp_i64map seq, alt;     /* seq value -> last fprop annot with it in seqId / altSeqId */
    int failed;
};

tp_pp_state *tp_pp_begin(tp_store *st)
{
    tp_pp_state *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->st = st;
    free(st->annots);
    st->annots = NULL;
    st->nannots = 0;
    return s;
}

uint32_t tp_pp_join_ints(tp_store *st, const int64_t *v, int n)
{
    char buf[4096];
    size_t len = 0;
    for (int i = 0; i < n && len + 24 < sizeof buf; i++)
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%lld", i ? "," : "", (long long)v[i]);
    return len ? tp_store_intern(st, buf, len) : 0;
}

int tp_pp_add(tp_pp_state *s, const struct tp_pp_kernel *k)
{
    tp_store *st = s->st;
    if (tp_grow((void **)&st->annots, &s->cap, st->nannots + 1, sizeof *st->annots) < 0) {
        s->failed = 1;
        return -1;
    }
    size_t idx = st->nannots++;
    struct tp_kernel_annot *a = &st->annots[idx];
    memset(a, 0, sizeof *a);
    a->event = k->event;
    a->tid = k->tid;
    a->seq = tp_pp_join_ints(st, k->seq, k->nseq);
    a->altseq = tp_pp_join_ints(st, k->alt, k->nalt);
    a->layer = k->layer;
    a->trace = k->trace;
    a->trace_last = k->trace_last;
    a->bprop = (uint8_t)(k->bprop != 0);
    a->sub = k->sub;
    a->mod = k->mod;
    a->op = k->op;
    a->marker = k->marker;
    a->op_event = -1;
    if (!k->bprop) {
        for (int i = 0; i < k->nseq; i++)
            if (imap_put(&s->seq, k->seq[i], (int64_t)idx) < 0)
                s->failed = 1;
        for (int i = 0; i < k->nalt; i++)
            if (imap_put(&s->alt, k->alt[i], (int64_t)idx) < 0)
                s->failed = 1;
    } else if (k->nseq >= 1 && k->nseqmarker > 0 && !k->marker) {
        int64_t f = tp_i64map_get(&s->seq, k->seq[0]);
        if (f < 0)
            f = tp_i64map_get(&s->alt, k->seq[0]);
        if (f >= 0) {
            const struct tp_kernel_annot *src = &st->annots[f];
            a->marker = src->marker;
            a->mod = src->mod;
            a->op = src->op;
            a->layer = src->layer;
            a->trace = src->trace;
            a->trace_last = src->trace_last;
        }
    }
    return s->failed ? -1 : 0;
}

void tp_pp_end(tp_pp_state *s)
{
    if (!s)
        return;
    s->st->annots_from_pyprof = 1;
    tp_i64map_free(&s->seq);
    tp_i64map_free(&s->alt);
    free(s);
}

/* ---- parse.py stage: marker strings ------------------------------------- */

enum mclass { MC_UNSEEN = 0, MC_SKIP, MC_PYPROF, MC_LAYER, MC_TRACE, MC_REPR, MC_SEQ, MC_OTHER };

struct strinfo {             /* per NVTX string, computed once */
    uint8_t cls;
    uint32_t a, b;           /* PYPROF: op, mod ids; LAYER: layer id; TRACE: joined trace, last basename */
    int64_t seqid;           /* SEQ: int(m.split("=")[1]) */
};

/* text is built in a tp_sbuf (table.h): after an append fails (oom, sticky) the text is short */

static const char *const trace_drop[] = {
    "/torch/nn/modules/", "/torch/nn/functional.py", "/torch/tensor.py", "/torch/autograd/__init__.py",
    "/torch/_jit_internal.py", "/pyprof/nvtx/nvmarker.py", "/apex/optimizers/", "/torch/_utils.py",
    "/torch/optim/", NULL
};

static void classify(tp_store *st, uint32_t id, struct strinfo *si, pylit_arena *ar, struct tp_sbuf *tmp)
{
    const char *m = tp_store_str(st, id);
    si->cls = MC_OTHER;
    if (strstr(m, "CheckpointFunctionBackward")) {
        si->cls = MC_SKIP;
        return;
    }
    if (strstr(m, "mod") && strstr(m, "op") && strstr(m, "args") && strstr(m, "type")) {
        pylit_arena_reset(ar);
        py_val *d = pylit_parse(ar, m, strlen(m), NULL, NULL);
        const char *op = pylit_str(pylit_get(d, "op")), *mod = pylit_str(pylit_get(d, "mod"));
        if (op && mod && pylit_get(d, "args")) {
            si->cls = MC_PYPROF;
            si->a = tp_store_intern(st, op, strlen(op));
            si->b = tp_store_intern(st, mod, strlen(mod));
            return;
        }
        /* PyProf's substring test would take it and then crash; classify on */
    }
    const char *l = strstr(m, "layer:");
    if (l) {
        si->cls = MC_LAYER;
        const char *c1 = strchr(m, ':');           /* m.split(":")[1] */
        const char *c2 = strchr(c1 + 1, ':');
        size_t n = c2 ? (size_t)(c2 - c1 - 1) : strlen(c1 + 1);
        si->a = tp_store_intern(st, c1 + 1, n);
        return;
    }
    if (strstr(m, "traceMarker")) {
        si->cls = MC_TRACE;
        si->a = si->b = 0;
        pylit_arena_reset(ar);
        py_val *d = pylit_parse(ar, m, strlen(m), NULL, NULL);
        py_val *tl = pylit_get(d, "traceMarker");
        tmp->len = 0;
        const char *last = NULL;
        size_t nlast = 0;
        for (py_val *e = pylit_is_seq(tl) ? tl->first : NULL; e; e = e->next) {
            const char *s = pylit_str(e);
            if (!s)
                continue;
            int drop = 0;
            for (int i = 0; trace_drop[i]; i++)
                if (strstr(s, trace_drop[i]))
                    drop = 1;
            if (drop)
                continue;
            if (tmp->len)
                tp_sbuf_put(tmp, ",", 1);
            tp_sbuf_put(tmp, s, e->slen);
            const char *slash = strrchr(s, '/');
            last = slash ? slash + 1 : s;
            nlast = e->slen - (size_t)(last - s);
        }
        if (tmp->len) {
            si->a = tp_store_intern(st, tmp->p, tmp->len);
            si->b = tp_store_intern(st, last, nlast);
        }
        return;
    }
    if (strstr(m, "strRepr")) {
        si->cls = MC_REPR;
        return;
    }
    if (strstr(m, ", seq = ")) {
        si->cls = MC_SEQ;
        const char *eq = strchr(m, '=');
        si->seqid = eq ? strtoll(eq + 1, NULL, 10) : 0;
        return;
    }
}

/* seqcompare key: l = s.split(" = "); l[1] + l[0] */
static char *seq_key(const char *s)
{
    const char *a = strstr(s, " = ");
    if (!a)
        return strdup(s);
    const char *b = strstr(a + 3, " = ");
    size_t n1 = b ? (size_t)(b - (a + 3)) : strlen(a + 3), n0 = (size_t)(a - s);
    char *k = malloc(n1 + n0 + 1);
    if (!k)
        return NULL;
    memcpy(k, a + 3, n1);
    memcpy(k + n1, s, n0);
    k[n1 + n0] = 0;
    return k;
}

struct seqent {
    uint32_t id;
    char *key;
    int owned;                   /* key is this entry's to free (not a cached one) */
};

static int cmp_seqent(const void *x, const void *y)
{
    const struct seqent *a = x, *b = y;
    return strcmp(a->key ? a->key : "", b->key ? b->key : "");
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

/* name, seq = m.split(","): exactly two parts (else the marker is kept) */
static int split_comma(const char *m, const char **c)
{
    *c = strchr(m, ',');
    return *c && !strchr(*c + 1, ',');
}

static int substr_n(const char *hay, size_t hn, const char *needle, size_t nn)
{
    if (nn > hn)
        return 0;
    for (size_t i = 0; i + nn <= hn; i++)
        if (memcmp(hay + i, needle, nn) == 0)
            return 1;
    return 0;
}

/* ---- the sweep ----------------------------------------------------------- */

struct launch {
    int64_t rs, re;
    int64_t w;           /* deletion watermark */
    uint32_t k;          /* kernel index */
    uint32_t th;         /* thread index */
};

struct range {             /* 24 bytes: a dump of 1 M kernels has millions */
    int64_t start, end;
    uint32_t row;
};

/* (pid, tid) -> thread index */
struct threads {
    int64_t *pid, *tid;
    uint32_t *slot;          /* index + 1 */
    size_t cap, n, capn;
};

static void threads_free(struct threads *t)
{
    free(t->pid);
    free(t->tid);
    free(t->slot);
}

static uint64_t thread_hash(const void *t, size_t v)
{
    const struct threads *th = t;
    return tp_i64_mix((uint64_t)th->pid[v] * 31 + (uint64_t)th->tid[v]);
}

static int64_t thread_of(struct threads *t, int64_t pid, int64_t tid)
{
    if ((t->n + 1) * 2 > t->cap && tp_slots_grow(&t->slot, &t->cap, t->n, thread_hash, t) < 0)
        return -1;
    size_t j = tp_i64_mix((uint64_t)pid * 31 + (uint64_t)tid) & (t->cap - 1);
    while (t->slot[j]) {
        uint32_t v = t->slot[j] - 1;
        if (t->pid[v] == pid && t->tid[v] == tid)
            return v;
        j = (j + 1) & (t->cap - 1);
    }
    size_t capn = t->capn;   /* both columns grow to the same capacity */
    if (tp_grow((void **)&t->pid, &capn, t->n + 1, sizeof *t->pid) < 0 ||
        tp_grow((void **)&t->tid, &t->capn, t->n + 1, sizeof *t->tid) < 0)
        return -1;
    t->pid[t->n] = pid;
    t->tid[t->n] = tid;
    t->slot[j] = (uint32_t)(t->n + 1);
    return (int64_t)t->n++;
}

TP_CMP_FIELDS(cmp_range_st, struct range, start, row)

TP_CMP_FIELDS(cmp_launch_rs1, struct launch, rs, k)

/* ---- tp_link_pyprof: the stages ------------------------------------------ */

/* What the stages share: the kernels in store order ("kernel order"), their
 * launches, the NVTX ranges, and per kernel the ranges attached to it. */
struct link_ctx {
    tp_store *st;
    tp_error *err;
    int nsys;
    size_t nk, nrg, nl, nth;     /* kernels, ranges, launches, threads */
    uint32_t *krow;              /* kernel -> row */
    int64_t *kl;                 /* kernel -> launch row or -1 */
    uint32_t *knext;             /* next kernel with the same correlation + 1 */
    struct launch *ln, *ln2;     /* launches in kernel order; ln2: bucketed by thread */
    uint32_t *rth;               /* range (store order) -> thread */
    struct range *rg2;           /* ranges bucketed by thread, store order within */
    size_t *rstart, *lstart;     /* thread t's ranges are rg2[rstart[t], rstart[t + 1]), launches likewise */
    uint64_t *aoff;              /* kernel k's attached ranges are att[aoff[k], aoff[k] + acnt[k]) */
    uint32_t *acnt;
    uint32_t *att;
    size_t natt, capatt;
    struct strinfo *info;        /* per NVTX string, classified on first use */
    struct tp_i64map corr;       /* correlation id -> first kernel with it */
    int rising;                  /* or, where every kernel's id is set and they rise: krow */
    struct threads th;
};

static int nomem(const struct link_ctx *c)
{
    return tp_error_set(c->err, TP_ERR_NOMEM, "%s: out of memory while decoding PyProf markers", c->st->path);
}

/* One allocation per array, sized by a first count, so that the stages
 * below only grow the attachment list. */
static int link_alloc(struct link_ctx *c)
{
    const tp_store *st = c->st;
    size_t nk = 0, nrg = 0;
    for (size_t i = 0; i < st->n; i++) {
        if (st->kind[i] == TP_K_KERNEL) nk++;
        else if (st->kind[i] == TP_K_NVTX && st->ph[i] == 'X') nrg++;
    }
    c->nk = nk;
    c->nrg = nrg;
    c->krow = malloc((nk ? nk : 1) * sizeof *c->krow);
    c->kl = malloc((nk ? nk : 1) * sizeof *c->kl);
    c->knext = malloc((nk ? nk : 1) * sizeof *c->knext);
    c->ln = malloc((nk ? nk : 1) * sizeof *c->ln);
    c->ln2 = malloc((nk ? nk : 1) * sizeof *c->ln2);
    c->rth = malloc((nrg ? nrg : 1) * sizeof *c->rth);
    c->rg2 = malloc((nrg ? nrg : 1) * sizeof *c->rg2);
    c->aoff = calloc(nk + 1, sizeof *c->aoff);
    c->acnt = calloc(nk ? nk : 1, sizeof *c->acnt);
    c->info = calloc(st->strings.count + 1, sizeof *c->info);
    if (!c->krow || !c->kl || !c->knext || !c->ln || !c->ln2 || !c->rth || !c->rg2 || !c->aoff || !c->acnt ||
        !c->info)
        return nomem(c);
    return TP_OK;
}

/* Where every kernel has a correlation id and they rise in kernel order, as
 * nvprof and nsys number launches, the kernels are searched by id through
 * krow, read in step with the calls' rising ids, instead of a hash map of a
 * million ids (a cache miss a kernel and a call, and its memory).  0 when
 * they do not rise: the map then. */
static int index_rising(struct link_ctx *c)
{
    const tp_store *st = c->st;
    size_t nk = 0;
    int64_t last = INT64_MIN;
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_KERNEL) {
            if (st->correlation[i] == TP_NONE || st->correlation[i] <= last)
                return 0;
            last = st->correlation[i];
        }
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_KERNEL) {
            c->krow[nk] = (uint32_t)i;
            c->kl[nk] = -1;
            c->knext[nk] = 0;
            nk++;
        }
    c->rising = 1;
    return 1;
}

/* The first kernel (n of them, ids rising) whose id is >= v, searched from
 * hint, the answer for the call before (calls come in rising ids too). */
static size_t lower_bound(const int64_t *corr, const uint32_t *krow, size_t n, int64_t v, size_t hint)
{
    size_t lo = 0, hi = n;
    if (hint < n && corr[krow[hint]] < v) {
        size_t b = 1;
        lo = hint + 1;
        while (hint + b < n && corr[krow[hint + b]] < v) {
            lo = hint + b + 1;
            b *= 2;
        }
        hi = hint + b < n ? hint + b : n;
    } else if (hint <= n) {
        if (hint == 0 || corr[krow[hint - 1]] < v)
            return hint;
        hi = hint;
    }
    while (lo < hi) {
        size_t m = lo + (hi - lo) / 2;
        if (corr[krow[m]] < v)
            lo = m + 1;
        else
            hi = m;
    }
    return lo;
}

/* The first kernel with correlation id corr, or -1; *hint: see lower_bound. */
static int64_t kernel_of(const struct link_ctx *c, int64_t corr, size_t *hint)
{
    if (!c->rising)
        return tp_i64map_get(&c->corr, corr);
    const int64_t *kc = c->st->correlation;
    size_t i = lower_bound(kc, c->krow, c->nk, corr, *hint);
    *hint = i;
    return i < c->nk && kc[c->krow[i]] == corr ? (int64_t)i : -1;
}

/* Kernels by correlation id.  Several kernels may share an id (a chain
 * through knext), so the launch stage can give all of them their launch. */
static int index_kernels(struct link_ctx *c)
{
    const tp_store *st = c->st;
    size_t nk = 0;
    if (index_rising(c))
        return TP_OK;
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_KERNEL) {
            c->krow[nk] = (uint32_t)i;
            c->kl[nk] = -1;
            c->knext[nk] = 0;
            int64_t corr = st->correlation[i];
            if (corr != TP_NONE) {
                int64_t prev = tp_i64map_get(&c->corr, corr);
                if (prev >= 0) {             /* chain: same id on several kernels */
                    int64_t k = prev;
                    while (c->knext[k])
                        k = c->knext[k] - 1;
                    c->knext[k] = (uint32_t)nk + 1;
                } else if (imap_put(&c->corr, corr, (int64_t)nk) < 0) {
                    return nomem(c);
                }
            }
            nk++;
        }
    return TP_OK;
}

/* Kernel -> launch: the first runtime call with its id, else the first
 * driver call (nsys: of the kernel's process).  The launch gives the kernel
 * its thread and the [rStart, rEnd] its ranges must enclose. */
static int find_launches(struct link_ctx *c)
{
    const tp_store *st = c->st;
    size_t hint = 0;
    for (size_t i = 0; i < st->n && (c->rising ? c->nk : c->corr.n); i++) {
        if ((st->kind[i] != TP_K_RUNTIME && st->kind[i] != TP_K_DRIVER) || st->correlation[i] == TP_NONE)
            continue;
        int64_t k = kernel_of(c, st->correlation[i], &hint);
        for (; k >= 0; k = (int64_t)c->knext[k] - 1) {
            uint32_t r = c->krow[k];
            if (c->nsys && st->pid[r] != TP_NONE && st->pid[i] != st->pid[r])
                continue;
            if (c->kl[k] < 0 || (st->kind[c->kl[k]] == TP_K_DRIVER && st->kind[i] == TP_K_RUNTIME))
                c->kl[k] = (int64_t)i;
        }
    }
    return TP_OK;
}

/* Launches and ranges, bucketed by thread (stable: kernel order, store
 * order): a range only attaches to kernels launched from its thread, so
 * each thread is swept on its own. */
static int bucket_by_thread(struct link_ctx *c)
{
    const tp_store *st = c->st;
    size_t nl = 0;
    for (size_t k = 0; k < c->nk; k++) {
        int64_t b = c->kl[k];
        if (b < 0)
            continue;
        int64_t t = thread_of(&c->th, st->pid[b], st->tid[b]);
        if (t < 0)
            return nomem(c);
        c->ln[nl++] = (struct launch){ st->ts[b], st->ts[b] + st->dur[b], INT64_MIN, (uint32_t)k, (uint32_t)t };
    }
    c->nl = nl;
    size_t nrg = 0;
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_NVTX && st->ph[i] == 'X') {
            int64_t t = thread_of(&c->th, st->pid[i], st->tid[i]);
            if (t < 0)
                return nomem(c);
            c->rth[nrg++] = (uint32_t)t;
        }
    c->nrg = nrg;
    size_t nth = c->nth = c->th.n;
    c->rstart = calloc(nth + 1, sizeof *c->rstart);
    c->lstart = calloc(nth + 1, sizeof *c->lstart);
    if (!c->rstart || !c->lstart)
        return nomem(c);
    for (size_t i = 0; i < nrg; i++) c->rstart[c->rth[i] + 1]++;
    for (size_t i = 0; i < nl; i++) c->lstart[c->ln[i].th + 1]++;
    for (size_t t = 0; t < nth; t++) {
        c->rstart[t + 1] += c->rstart[t];
        c->lstart[t + 1] += c->lstart[t];
    }
    size_t *rp = calloc(nth + 1, sizeof *rp), *lp = calloc(nth + 1, sizeof *lp);
    if (!rp || !lp) {
        free(rp);
        free(lp);
        return nomem(c);
    }
    memcpy(rp, c->rstart, (nth + 1) * sizeof *rp);
    memcpy(lp, c->lstart, (nth + 1) * sizeof *lp);
    for (size_t i = 0, k = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_NVTX && st->ph[i] == 'X')
            c->rg2[rp[c->rth[k++]]++] = (struct range){ st->ts[i], st->ts[i] + st->dur[i], (uint32_t)i };
    for (size_t i = 0; i < nl; i++) c->ln2[lp[c->ln[i].th]++] = c->ln[i];
    free(rp);
    free(lp);
    return TP_OK;
}

static int push_attached(struct link_ctx *c, uint32_t row)
{
    if (c->natt == c->capatt) {
        size_t nc = c->capatt ? c->capatt * 2 : 4096;
        uint32_t *p = realloc(c->att, nc * sizeof *p);
        if (!p)
            return -1;
        c->att = p;
        c->capatt = nc;
    }
    c->att[c->natt++] = row;
    return 0;
}

/* One thread's range attachment: ranges by start, launches by rStart, and
 * one sweep where a range enters when it starts before the launch and
 * leaves once it ended before a launch.  PyProf's deletion of ranges that
 * ended before the previous kernel's launch is the watermark w. */
static int attach_thread(struct link_ctx *c, size_t t)
{
    /* ranges by start (already so when the export is in time order) */
    struct range *R = c->rg2 + c->rstart[t];
    size_t nr = c->rstart[t + 1] - c->rstart[t];
    for (size_t i = 1; i < nr; i++)
        if (cmp_range_st(&R[i - 1], &R[i]) > 0) {
            qsort(R, nr, sizeof *R, cmp_range_st);
            break;
        }
    /* deletion watermark: max rStart of the earlier kernels (kernel order) */
    struct launch *L = c->ln2 + c->lstart[t];
    size_t nll = c->lstart[t + 1] - c->lstart[t];
    int64_t runmax = INT64_MIN;
    for (size_t i = 0; i < nll; i++) {
        L[i].w = runmax;
        if (L[i].rs > runmax)
            runmax = L[i].rs;
    }
    for (size_t i = 1; i < nll; i++)
        if (cmp_launch_rs1(&L[i - 1], &L[i]) > 0) {
            qsort(L, nll, sizeof *L, cmp_launch_rs1);
            break;
        }
    size_t ri = 0, nact = 0, capact = 0;
    uint32_t *active = NULL;
    int rc = TP_OK;
    for (size_t i = 0; i < nll; i++) {
        while (ri < nr && R[ri].start < L[i].rs) {
            if (nact == capact) {
                size_t nc = capact ? capact * 2 : 64;
                uint32_t *p = realloc(active, nc * sizeof *p);
                if (!p) {
                    rc = nomem(c);
                    goto done;
                }
                active = p;
                capact = nc;
            }
            active[nact++] = (uint32_t)ri++;
        }
        size_t o = 0;
        for (size_t a = 0; a < nact; a++)
            if (R[active[a]].end > L[i].rs)
                active[o++] = active[a];
        nact = o;
        uint32_t k = L[i].k;
        c->aoff[k] = c->natt;
        for (size_t a = 0; a < nact; a++) {
            const struct range *X = &R[active[a]];
            if (X->end > L[i].re && (L[i].w == INT64_MIN || X->end >= L[i].w) && push_attached(c, X->row) < 0) {
                rc = nomem(c);
                goto done;
            }
        }
        c->acnt[k] = (uint32_t)(c->natt - c->aoff[k]);
    }
done:
    free(active);
    return rc;
}

static int attach_ranges(struct link_ctx *c)
{
    for (size_t t = 0; t < c->nth; t++) {
        TP_TRY(attach_thread(c, t));
    }
    return TP_OK;
}

/* ---- tp_link_pyprof: parse.py's per-kernel decoding ---------------------- */

/* What decoding carries from kernel to kernel: scratch buffers, and the
 * previous kernel's seqId, subSeqId and op list (parse.py's prevSeqId...). */
struct decoder {
    tp_pp_state *pp;
    pylit_arena *ar;
    struct tp_sbuf tmp, oplist;
    struct seqent *seqs;
    size_t capseqs;
    int64_t *ids, *alt;
    size_t capids;
    int64_t prev_seq, prev_sub;
    uint32_t prev_op;            /* UINT32_MAX is "na": equal to no op list */
    uint32_t na;
    int oom;                     /* an allocation failed while decoding this kernel */
    /* per seq marker string (the ids the store held when decoding began):
     * what prune_seq_markers and set_op derive from the string alone, once
     * (a million kernels share a few thousand markers) */
    struct seqcache {
        char *key;               /* seq_key, or NULL not yet */
        uint32_t op[2];          /* set_op's op id + 1 for pass 0 (sanitized) and 1; 0 not yet */
        unsigned char hit[2];    /* 1 + whether the pass takes the marker; 0 not yet */
    } *sc;
    size_t nsc;
};

/* One kernel's markers as parse.py sees them. */
struct kmarks {
    int nseq, np;                /* seq markers in d->seqs: distinct, then after pruning */
    int nid, nalt;               /* seqId in d->ids, altSeqId in d->alt */
    int nops;                    /* op list length */
    int bprop, sub;
    uint32_t first_marker, first_other, trace, trace_last;
    uint32_t op0, mod0, opl, layer;
};

/* room for n attached markers in the per-kernel arrays */
static int decoder_grow(struct decoder *d, size_t n)
{
    if (n + 1 > d->capseqs) {
        size_t nc = (n + 1) * 2;
        void *p = realloc(d->seqs, nc * sizeof *d->seqs);
        if (!p)
            return -1;
        d->seqs = p;
        d->capseqs = nc;
    }
    if (n + 1 > d->capids) {
        size_t nc = (n + 1) * 2;
        void *p1 = realloc(d->ids, nc * sizeof *d->ids);
        if (p1) d->ids = p1;
        void *p2 = realloc(d->alt, nc * sizeof *d->alt);
        if (p2) d->alt = p2;
        if (!p1 || !p2)
            return -1;
        d->capids = nc;
    }
    return 0;
}

/* Classify each attached range's string (once per string) and collect the
 * argument markers' ops, the last trace marker, the distinct seq markers
 * and the first "other" marker, outermost first. */
static void collect_markers(struct link_ctx *c, struct decoder *d, const uint32_t *list, size_t n,
                            struct kmarks *km)
{
    tp_store *st = c->st;
    for (size_t a = 0; a < n; a++) {
        uint32_t sid = st->name[list[a]];
        struct strinfo *si = &c->info[sid];
        if (si->cls == MC_UNSEEN) {
            classify(st, sid, si, d->ar, &d->tmp);
            if (pylit_arena_oom(d->ar) || d->tmp.oom)
                d->oom = 1;   /* the class may be wrong: decoding stops (decode_kernel) */
        }
        switch (si->cls) {
        case MC_PYPROF:
            if (!km->first_marker) {
                km->first_marker = sid;
                km->op0 = si->a;
                km->mod0 = si->b;
            }
            {
                const char *o = tp_store_str(st, si->a);
                tp_sbuf_put(&d->oplist, o, strlen(o));
                tp_sbuf_put(&d->oplist, "\x1f", 1);
            }
            km->nops++;
            break;
        case MC_TRACE:
            km->trace = si->a;            /* the last trace marker wins */
            km->trace_last = si->b;
            break;
        case MC_SEQ: {
            int dup = 0;
            for (int q = 0; q < km->nseq; q++)
                if (d->seqs[q].id == sid)
                    dup = 1;
            if (!dup)
                d->seqs[km->nseq++] = (struct seqent){ sid, NULL, 0 };
            break;
        }
        case MC_OTHER:
            if (!km->first_other)
                km->first_other = sid;
            break;
        default:
            break;
        }
    }
}

/* layers, outermost first, ":"-joined; *oom set when out of memory */
static uint32_t join_layers(tp_store *st, const struct strinfo *info, const uint32_t *list, size_t n, int *oom)
{
    struct tp_sbuf lb = {0};
    for (size_t a = 0; a < n; a++) {
        const struct strinfo *si = &info[st->name[list[a]]];
        if (si->cls != MC_LAYER)
            continue;
        const char *l = tp_store_str(st, si->a);
        if (lb.len)
            tp_sbuf_put(&lb, ":", 1);
        tp_sbuf_put(&lb, l, strlen(l));
    }
    uint32_t layer = lb.len && !lb.oom ? tp_store_intern(st, lb.p, lb.len) : 0;
    if (lb.oom)
        *oom = 1;
    free(lb.p);
    return layer;
}

/* seq markers: sort by seqcompare's key, then drop a marker whose name is
 * similar to the previous one's with the same ", seq = N" part; the number
 * kept */
static int prune_seq_markers(tp_store *st, struct decoder *d, struct seqent *seqs, int nseq, int *oom)
{
    for (int q = 0; q < nseq; q++) {
        uint32_t id = seqs[q].id;
        char **cached = id < d->nsc ? &d->sc[id].key : NULL;
        seqs[q].owned = !cached || !*cached;
        seqs[q].key = cached && *cached ? *cached : seq_key(tp_store_str(st, id));
        if (!seqs[q].key)
            *oom = 1;   /* sorted as if empty; decode_kernel stops on *oom */
        else if (cached && !*cached) {
            *cached = seqs[q].key;
            seqs[q].owned = 0;
        }
    }
    qsort(seqs, (size_t)nseq, sizeof *seqs, cmp_seqent);
    int np = 0;
    for (int q = 0; q < nseq; q++) {
        if (q > 0) {
            const char *m = tp_store_str(st, seqs[q].id), *pm = tp_store_str(st, seqs[q - 1].id);
            const char *c, *pc;
            if (split_comma(m, &c) && split_comma(pm, &pc)) {
                size_t nl1 = (size_t)(c - m), nl0 = (size_t)(pc - pm);
                int similar = substr_n(pm, nl0, m, nl1) || substr_n(m, nl1, pm, nl0);
                if (strcmp(c, pc) == 0 && similar)
                    continue;
            }
        }
        seqs[np++].id = seqs[q].id;
    }
    for (int q = 0; q < nseq; q++) {
        if (seqs[q].owned)
            free(seqs[q].key);
        seqs[q].key = NULL;
    }
    return np;
}

/* seqId = sorted(set(ids)), without the 0 when non-zero ids are there too;
 * its length */
static int seq_ids(const struct strinfo *info, const struct seqent *seqs, int np, int64_t *ids)
{
    int nid = 0;
    for (int q = 0; q < np; q++) {
        int64_t v = info[seqs[q].id].seqid;
        int dup = 0;
        for (int z = 0; z < nid; z++)
            if (ids[z] == v)
                dup = 1;
        if (!dup)
            ids[nid++] = v;
    }
    qsort(ids, (size_t)nid, sizeof *ids, cmp_i64);
    int nonzero = 0, zero_at = -1;
    for (int z = 0; z < nid; z++) {
        if (ids[z] != 0) nonzero = 1;
        else if (zero_at < 0) zero_at = z;
    }
    if (nonzero && zero_at >= 0) {
        memmove(ids + zero_at, ids + zero_at + 1, (size_t)(nid - zero_at - 1) * sizeof *ids);
        nid--;
    }
    return nid;
}

/* direction: bprop when a seq marker names a backward function */
static int is_bprop(tp_store *st, const struct seqent *seqs, int np)
{
    int bprop = 0;
    for (int q = 0; q < np; q++) {
        const char *m = tp_store_str(st, seqs[q].id);
        if (strstr(m, "Backward, seq = ") || strstr(m, "backward, seq = ") || strstr(m, "Backward0, seq = "))
            bprop = 1;
    }
    return bprop;
}

/* parse.py's sanitize: drop namespace words and what follows "Backward" */
static void sanitize_op(char *buf)
{
    static const char *const rm[] = { "torch", "autograd", "_backward", "::", "jit", "(anonymous namespace)", NULL };
    for (int z = 0; rm[z]; z++) {
        size_t wl = strlen(rm[z]);
        char *rd = buf, *wr = buf;
        while (*rd) {
            if (strncmp(rd, rm[z], wl) == 0) { rd += wl; continue; }
            *wr++ = *rd++;
        }
        *wr = 0;
    }
    char *bw = strstr(buf, "Backward");
    if (bw)
        *bw = 0;
}

/* Whether setOp's pass (0: backward seq markers, 1: any seq marker) takes
 * seq marker sid, and its op (*oid, also appended to d->oplist): the name
 * before the comma, sanitized in pass 0.  Cached per marker string. */
static int seq_op(tp_store *st, struct decoder *d, uint32_t sid, int pass, uint32_t *oid)
{
    struct seqcache *c = sid < d->nsc ? &d->sc[sid] : NULL;
    const char *m = tp_store_str(st, sid);
    if (!c || !c->hit[pass]) {
        int hit = pass == 0 ? (strstr(m, "backward, seq = ") || strstr(m, "Backward, seq = "))
                            : strstr(m, ", seq = ") != NULL;
        if (c)
            c->hit[pass] = (unsigned char)(1 + hit);
        if (!hit)
            return 0;
    } else if (c->hit[pass] == 1) {
        return 0;
    }
    if (c && c->op[pass]) {
        *oid = c->op[pass] - 1;
        const char *o = tp_store_str(st, *oid);
        tp_sbuf_put(&d->oplist, o, strlen(o));
        tp_sbuf_put(&d->oplist, "\x1f", 1);
        return 1;
    }
    const char *comma = strchr(m, ',');
    size_t ln0 = comma ? (size_t)(comma - m) : strlen(m);
    char buf[1024];
    if (ln0 >= sizeof buf)
        ln0 = sizeof buf - 1;
    memcpy(buf, m, ln0);
    buf[ln0] = 0;
    if (pass == 0)
        sanitize_op(buf);
    *oid = tp_store_intern(st, buf, strlen(buf));
    if (c && *oid != UINT32_MAX)
        c->op[pass] = *oid + 1;
    tp_sbuf_put(&d->oplist, buf, strlen(buf));
    tp_sbuf_put(&d->oplist, "\x1f", 1);
    return 1;
}

/* mod/op (setOp): the argument markers' ops; without any, the names of the
 * backward seq markers (sanitized), else of all seq markers, else the first
 * other marker, with mod "na".  km->opl is the op list as one id. */
static void set_op(tp_store *st, struct decoder *d, struct kmarks *km)
{
    if (km->nops) {
        km->opl = tp_store_intern(st, d->oplist.p, d->oplist.len);
        return;
    }
    d->oplist.len = 0;
    int found = 0;
    for (int pass = 0; pass < 2 && !found; pass++)
        for (int q = 0; q < km->np; q++) {
            uint32_t oid;
            if (!seq_op(st, d, d->seqs[q].id, pass, &oid))
                continue;
            if (!found)
                km->op0 = oid;
            found = 1;
            km->nops++;
        }
    km->mod0 = d->na;
    if (!found && km->first_other) {
        km->op0 = km->first_other;
        km->nops = 1;
        const char *o = tp_store_str(st, km->first_other);
        tp_sbuf_put(&d->oplist, o, strlen(o));
        tp_sbuf_put(&d->oplist, "\x1f", 1);
    }
    km->opl = d->oplist.len ? tp_store_intern(st, d->oplist.p, d->oplist.len) : 0;
}

/* for s in seqId: if s != curr: seqId.remove(s); altSeqId.append(s) --
 * removing while iterating skips the element after each removed one, as in
 * Python; then curr leaves altSeqId, which is sorted and made unique.
 * Returns altSeqId's length. */
static int move_to_alt(int64_t *ids, int *nid, int64_t *alt, int64_t curr)
{
    int nalt = 0;
    for (int z = 0; z < *nid; z++) {
        int64_t v = ids[z];
        if (v != curr) {
            int f = 0;
            while (f < *nid && ids[f] != v) f++;
            memmove(ids + f, ids + f + 1, (size_t)(*nid - f - 1) * sizeof *ids);
            (*nid)--;
            alt[nalt++] = v;
        }
    }
    for (int z = 0; z < nalt; z++) {
        int64_t v = alt[z];
        if (v == curr) {
            int f = 0;
            while (f < nalt && alt[f] != v) f++;
            memmove(alt + f, alt + f + 1, (size_t)(nalt - f - 1) * sizeof *alt);
            nalt--;
        }
    }
    qsort(alt, (size_t)nalt, sizeof *alt, cmp_i64);
    int o = 0;
    for (int z = 0; z < nalt; z++)
        if (!o || alt[o - 1] != alt[z])
            alt[o++] = alt[z];
    return o;
}

/* seqId / subSeqId / altSeqId (parse.py main): the current seq id follows
 * the previous kernel's; a kernel repeating the previous id and op list (or
 * an RNN cell's forward) is its next sub-sequence. */
static void number_seq(tp_store *st, struct decoder *d, struct kmarks *km)
{
    if (!km->nid)
        return;
    int64_t *ids = d->ids;
    int nid = km->nid;
    int64_t curr;
    if (!km->bprop) {
        if (ids[nid - 1] > d->prev_seq) {
            curr = ids[0];
            for (int z = 0; z < nid; z++)
                if (ids[z] > d->prev_seq) { curr = ids[z]; break; }
        } else {
            curr = d->prev_seq;
        }
    } else {
        curr = ids[0];
    }
    int rnn = km->nops && strcmp(tp_store_str(st, km->op0), "forward") == 0 &&
              (strcmp(tp_store_str(st, km->mod0), "LSTMCell") == 0 ||
               strcmp(tp_store_str(st, km->mod0), "GRUCell") == 0 ||
               strcmp(tp_store_str(st, km->mod0), "RNNCell") == 0);
    if ((curr == d->prev_seq && km->opl == d->prev_op) || (rnn && km->opl == d->prev_op))
        km->sub = (int)(d->prev_sub + 1);
    d->prev_seq = curr;
    d->prev_sub = km->sub;
    d->prev_op = km->opl;
    km->nalt = move_to_alt(ids, &km->nid, d->alt, curr);
}

/* One kernel, decoded from its attached ranges and handed to prof.py's stage. */
static int decode_kernel(struct link_ctx *c, struct decoder *d, size_t k)
{
    tp_store *st = c->st;
    size_t n = c->acnt[k];
    const uint32_t *list = c->att ? c->att + c->aoff[k] : NULL;
    if (decoder_grow(d, n) < 0)
        return nomem(c);
    struct kmarks km;
    memset(&km, 0, sizeof km);
    d->oplist.len = 0;
    d->oom = 0;
    collect_markers(c, d, list, n, &km);
    km.layer = join_layers(st, c->info, list, n, &d->oom);
    km.np = prune_seq_markers(st, d, d->seqs, km.nseq, &d->oom);
    if (d->oom || d->oplist.oom)
        return nomem(c);
    km.nid = seq_ids(c->info, d->seqs, km.np, d->ids);
    km.bprop = is_bprop(st, d->seqs, km.np);
    set_op(st, d, &km);
    number_seq(st, d, &km);
    struct tp_pp_kernel pk;
    memset(&pk, 0, sizeof pk);
    pk.event = c->krow[k];
    pk.tid = c->kl[k] >= 0 ? st->tid[c->kl[k]] : TP_NONE;
    pk.layer = km.layer;
    pk.seq = d->ids;
    pk.nseq = km.nid;
    pk.alt = d->alt;
    pk.nalt = km.nalt;
    pk.trace = km.trace;
    pk.trace_last = km.trace_last;
    pk.marker = km.first_marker;
    pk.nseqmarker = km.np;
    pk.bprop = km.bprop;
    pk.sub = km.sub;
    pk.mod = km.mod0;
    pk.op = km.nops ? km.op0 : 0;
    if (tp_pp_add(d->pp, &pk) < 0)
        return nomem(c);
    return TP_OK;
}

/* parse.py's per-kernel decoding, in kernel order (prof.py's lookup needs
 * the earlier kernels) */
static int decode_kernels(struct link_ctx *c)
{
    struct decoder d = { .prev_seq = -1, .prev_sub = -1, .prev_op = UINT32_MAX };
    int rc = TP_OK;
    d.pp = tp_pp_begin(c->st);
    d.ar = pylit_arena_new();
    d.na = tp_store_intern(c->st, "na", 2);
    d.nsc = c->st->strings.count + 1;
    d.sc = calloc(d.nsc, sizeof *d.sc);
    if (!d.pp || !d.ar || !d.sc) {
        rc = nomem(c);
        goto done;
    }
    for (size_t k = 0; k < c->nk && rc == TP_OK; k++)
        rc = decode_kernel(c, &d, k);
done:
    tp_pp_end(d.pp);
    pylit_arena_free(d.ar);
    free(d.tmp.p);
    free(d.oplist.p);
    free(d.seqs);
    free(d.ids);
    free(d.alt);
    for (size_t i = 0; d.sc && i < d.nsc; i++)
        free(d.sc[i].key);
    free(d.sc);
    return rc;
}

/* Decoding reads only the attachments: what built them goes before it
 * (a dump of 1 M kernels holds millions of ranges). */
static void free_sweep(struct link_ctx *c)
{
    free(c->knext);
    free(c->ln);
    free(c->ln2);
    free(c->rth);
    free(c->rg2);
    tp_i64map_free(&c->corr);
    c->knext = NULL;
    c->ln = c->ln2 = NULL;
    c->rth = NULL;
    c->rg2 = NULL;
}

static void link_ctx_free(struct link_ctx *c)
{
    free_sweep(c);
    free(c->krow);
    free(c->rstart);
    free(c->lstart);
    threads_free(&c->th);
    free(c->kl);
    free(c->aoff);
    free(c->acnt);
    free(c->info);
    free(c->att);
}

int tp_link_pyprof(tp_store *st, tp_error *err)
{
    if (st->format == TP_SRC_PYPROF_DICT)
        return TP_OK;                /* the dict importer filled st->annots */
    struct link_ctx c = { .st = st, .err = err, .nsys = st->format == TP_SRC_NSYS_SQLITE };
    int rc;
    if ((rc = link_alloc(&c)) != TP_OK || (rc = index_kernels(&c)) != TP_OK ||
        (rc = find_launches(&c)) != TP_OK || (rc = bucket_by_thread(&c)) != TP_OK ||
        (rc = attach_ranges(&c)) != TP_OK)
        goto done;
    free_sweep(&c);
    rc = decode_kernels(&c);
done:
    link_ctx_free(&c);
    return rc;
}
