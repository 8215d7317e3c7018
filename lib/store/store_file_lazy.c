/* store_file_lazy.c — a .tprof store's per-event columns inflated when
 * something first needs them (tp_store_need).
 *
 * A view on a 1 GB trace's store spent most of its time having the kernel
 * clear pages for 400 MB of event, link and attribution columns, most of
 * which it never read.  So the reader keeps those sections as the file
 * holds them (compressed, checksum not yet verified) and points each
 * column at a reservation of address space that no access may touch
 * (PROT_NONE): tp_view_build asks for the columns the view declared
 * (views.c), and they are checked (CRC, size, every index against its
 * table) and inflated then, several at once (store_file_inflate.c).  A view
 * that reads a column it did not declare faults on the reservation, and
 * the handler below says which column and which view's declaration lacks
 * it instead of letting the view read anything: the golden tests run every
 * view on stores read this way (scripts/golden/store.sh).
 *
 * Only a store the caller marked (tp_store_set_lazy) stays lazy, and only
 * when the file holds the attribution and the models (else they would be
 * computed from every column anyway): every other reader gets all columns
 * inflated before tp_store_load returns, as before. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>
#include "store_file_int.h"

/* The columns read lazily, in the order of the TP_NEED_ bits. */
static const char *const lazy_names[TP_SF_NLAZY] = {
    "ev.kind", "ev.ph", "ev.ts", "ev.dur", "ev.name", "ev.cat", "ev.pid", "ev.tid", "ev.device", "ev.stream",
    "ev.correlation", "ev.external_id", "ev.seq", "ev.aux",
    "link.parent", "link.depth", "link.self_ns", "link.launcher", "link.launch_op", "link.step",
    "opt.attr.op", "opt.attr.kind", "opt.attr.cause",
};

int tp_sf_lazy_index(const char *name)
{
    for (int i = 0; i < TP_SF_NLAZY; i++)
        if (strcmp(lazy_names[i], name) == 0)
            return i;
    return -1;
}

/* Where column i's pointer lives in the store, its width, and what its
 * values must be (check_values). */
static void lazy_def(int i, size_t *base, size_t *width, const struct tp_sf_col **col)
{
    *col = NULL;
    switch (i) {
    case TP_SF_NLAZY - 3: *base = offsetof(tp_store, attr.op); *width = 8; return;
    case TP_SF_NLAZY - 2: *base = offsetof(tp_store, attr.kind); *width = 1; return;
    case TP_SF_NLAZY - 1: *base = offsetof(tp_store, attr.cause); *width = 1; return;
    }
    for (size_t k = 0; k < tp_sf_ncols; k++)
        if (strcmp(tp_sf_cols[k].name, lazy_names[i]) == 0) {
            *col = &tp_sf_cols[k];
            *base = tp_sf_cols[k].base;
            *width = tp_sf_cols[k].width;
            return;
        }
    abort();   /* a name above that store_file_cols.c does not list: a bug caught by every test */
}

/* ---- the reservations, and the fault handler that names them ---------------- */

enum { MAX_RESV = 256 };
/* A handler cannot take locks: slots are claimed and cleared atomically, and
 * read as they are. */
static struct resv {
    _Atomic uintptr_t lo, hi;
    const char *name;
    const char *path;
} resv[MAX_RESV];
static struct sigaction old_segv;
static atomic_int handler_set;

static void say(const char *s)
{
    ssize_t w = write(2, s, strlen(s));
    (void)w;
}

static void on_segv(int sig, siginfo_t *si, void *ctx)
{
    uintptr_t a = (uintptr_t)si->si_addr;
    for (size_t i = 0; i < MAX_RESV; i++) {
        if (a >= atomic_load(&resv[i].lo) && a < atomic_load(&resv[i].hi)) {
            say("tprof: internal error: column ");
            say(resv[i].name);
            say(" of ");
            say(resv[i].path);
            say(" was read before it was asked for (tp_store_need; a view's needs in lib/view/views.c)\n");
            abort();
        }
    }
    /* not ours: whoever handled it before, or the default (a core dump) */
    if ((old_segv.sa_flags & SA_SIGINFO) && old_segv.sa_sigaction) {
        old_segv.sa_sigaction(sig, si, ctx);
    } else if (old_segv.sa_handler != SIG_DFL && old_segv.sa_handler != SIG_IGN) {
        old_segv.sa_handler(sig);
    } else {
        signal(SIGSEGV, SIG_DFL);   /* the faulting access runs again and dumps core */
    }
}

static void *reserve(size_t len, const char *name, const char *path)
{
    void *p = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    int expect = 0;
    if (atomic_compare_exchange_strong(&handler_set, &expect, 1)) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_segv;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, &old_segv);
    }
    for (size_t i = 0; i < MAX_RESV; i++) {
        uintptr_t zero = 0;
        if (atomic_compare_exchange_strong(&resv[i].lo, &zero, (uintptr_t)p)) {
            resv[i].name = name;
            resv[i].path = path;
            atomic_store(&resv[i].hi, (uintptr_t)p + len);
            break;
        }
    }   /* all taken: a stray read still faults, unnamed */
    return p;
}

static void unreserve(void *p, size_t len)
{
    for (size_t i = 0; i < MAX_RESV; i++)
        if (atomic_load(&resv[i].lo) == (uintptr_t)p) {
            atomic_store(&resv[i].hi, 0);
            atomic_store(&resv[i].lo, 0);
        }
    munmap(p, len);
}

/* ---- the lazy state ----------------------------------------------------------- */

struct lazy_col {
    int present;                   /* the file has it */
    int loaded;
    const unsigned char *hdr;      /* the section in the file: header (hlen bytes), frame (zlen) */
    size_t hlen, zlen;
    const unsigned char *z;
    uint32_t crc, flags;
    uint64_t count;
    void *resv; size_t resv_len;   /* while not loaded: the store's pointer */
};

struct tp_sf_lazy {
    tp_store *st;
    unsigned char *file; size_t flen;   /* the whole file, until every column present is loaded */
    pthread_mutex_t lock;
    struct lazy_col col[TP_SF_NLAZY];
    struct tp_sf_blobs models;          /* the model sections (store_file_model.c) */
    int models_ok;
    int64_t attr_totals[TP_SF_ATTR_TOTALS];
    int have_totals;
};

struct tp_sf_lazy *tp_sf_lazy_new(tp_store *st)
{
    struct tp_sf_lazy *L = calloc(1, sizeof *L);
    if (L) {
        L->st = st;
        pthread_mutex_init(&L->lock, NULL);
    }
    return L;
}

static void **slot(tp_store *st, int i)
{
    size_t base, width;
    const struct tp_sf_col *c;
    lazy_def(i, &base, &width, &c);
    return (void **)((char *)st + base);
}

void tp_sf_lazy_free(struct tp_sf_lazy *L)
{
    if (!L)
        return;
    for (int i = 0; i < TP_SF_NLAZY; i++) {
        struct lazy_col *C = &L->col[i];
        if (C->resv) {
            unreserve(C->resv, C->resv_len);
            void **p = slot(L->st, i);
            if (*p == C->resv)
                *p = NULL;              /* tp_store_free frees the loaded ones */
        }
    }
    tp_sf_blobs_free(&L->models);
    free(L->file);
    pthread_mutex_destroy(&L->lock);
    free(L);
}

void tp_sf_lazy_take_file(struct tp_sf_lazy *L, unsigned char *file, size_t len)
{
    L->file = file;
    L->flen = len;
}

/* Column i's reservation, in the store's pointer. */
static int reserve_col(struct tp_sf_lazy *L, int i)
{
    size_t base, w;
    const struct tp_sf_col *c;
    lazy_def(i, &base, &w, &c);
    struct lazy_col *C = &L->col[i];
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    C->resv_len = ((size_t)(C->count ? C->count : 1) * w + page - 1) / page * page;
    C->resv = reserve(C->resv_len, lazy_names[i], L->st->path);
    if (!C->resv)
        return -1;
    *slot(L->st, i) = C->resv;
    return 0;
}

int tp_sf_lazy_add(struct tp_sf_lazy *L, int i, const unsigned char *hdr, size_t hlen, uint32_t crc,
                   const unsigned char *z, size_t zlen, uint64_t count, uint32_t width, uint32_t flags,
                   const char **why)
{
    size_t base, w;
    const struct tp_sf_col *c;
    lazy_def(i, &base, &w, &c);
    struct lazy_col *C = &L->col[i];
    if (C->present)
        return *why = "a section appears twice", -1;
    if (width != w || (flags & ~(uint32_t)TP_SF_DELTA) || (flags & TP_SF_DELTA) != (c ? (uint32_t)(c->flags & TP_SF_DELTA) : 0))
        return *why = "a column's width or encoding differs from this tprof's", -1;
    C->count = count;
    if (reserve_col(L, i) < 0)
        return *why = NULL, -1;   /* out of memory (address space) */
    C->present = 1;
    C->hdr = hdr;
    C->hlen = hlen;
    C->crc = crc;
    C->z = z;
    C->zlen = zlen;
    C->flags = flags;
    return 0;
}

int tp_sf_lazy_present(const struct tp_sf_lazy *L, int i)
{
    return L->col[i].present;
}

int tp_sf_lazy_loaded(const struct tp_sf_lazy *L, const char *name)
{
    int i = tp_sf_lazy_index(name);
    return i < 0 || !L->col[i].present || L->col[i].loaded;
}

uint64_t tp_sf_lazy_count(const struct tp_sf_lazy *L, int i)
{
    return L->col[i].count;
}

void tp_sf_lazy_set_totals(struct tp_sf_lazy *L, const int64_t *v)
{
    memcpy(L->attr_totals, v, sizeof L->attr_totals);
    L->have_totals = 1;
}

int tp_sf_lazy_has_attr(const struct tp_sf_lazy *L)
{
    return L->have_totals && L->col[TP_SF_NLAZY - 3].present && L->col[TP_SF_NLAZY - 2].present &&
           L->col[TP_SF_NLAZY - 1].present;
}

const int64_t *tp_sf_lazy_totals(const struct tp_sf_lazy *L)
{
    return L->attr_totals;
}

struct tp_sf_blobs *tp_sf_lazy_models(struct tp_sf_lazy *L)
{
    return &L->models;
}

void tp_sf_lazy_models_ok(struct tp_sf_lazy *L, int ok)
{
    L->models_ok = ok;
}

const struct tp_sf_blobs *tp_sf_file_models(const tp_store *st)
{
    const struct tp_sf_lazy *L = st->models[TP_MODEL_FILE].p;
    return L && L->models_ok ? &L->models : NULL;
}

/* The values of a freshly inflated column that the views use as indices,
 * checked against their tables (as store_file.c checks the others). */
static const char *check_values(const tp_store *st, int i, char *msg, size_t cap)
{
    size_t base, w;
    const struct tp_sf_col *c;
    lazy_def(i, &base, &w, &c);
    if (c)
        return tp_sf_check_col(st, c, st->n, msg, cap);
    const struct tp_attribution *a = &st->attr;
    for (size_t k = 0; k < st->n; k++) {
        if (i == TP_SF_NLAZY - 3 ? a->op[k] < -1 || (a->op[k] >= 0 && (uint64_t)a->op[k] >= st->n)
            : i == TP_SF_NLAZY - 2 ? a->kind[k] >= TP_LAUNCH_KINDS : a->cause[k] >= TP_ATTR_CAUSES) {
            snprintf(msg, cap, "column %s, value %zu: out of range", lazy_names[i], k);
            return msg;
        }
    }
    return NULL;
}

/* The bits of `want` with the columns their checks read too: an event's
 * details (aux) are checked against its kind. */
static uint32_t closure(uint32_t want)
{
    return want & TP_NEED_AUX ? want | TP_NEED_KIND : want;
}

int tp_store_need(const tp_store *st, uint32_t want, tp_error *err)
{
    struct tp_sf_lazy *L = st ? st->models[TP_MODEL_FILE].p : NULL;
    /* (the columns are the store's cache, as its models are: const for the views) */
    return L ? tp_sf_lazy_need(L, want, err) : TP_OK;   /* not read from a file: everything is there */
}

int tp_sf_lazy_need(struct tp_sf_lazy *L, uint32_t want, tp_error *err)
{
    tp_store *st = L->st;
    want = closure(want);
    pthread_mutex_lock(&L->lock);
    struct tp_sf_job jobs[TP_SF_NLAZY];
    int which[TP_SF_NLAZY];
    size_t nj = 0;
    int rc = TP_OK;
    for (int i = 0; i < TP_SF_NLAZY && rc == TP_OK; i++) {
        struct lazy_col *C = &L->col[i];
        if (!(want >> i & 1) || !C->present || C->loaded)
            continue;
        size_t base, w;
        const struct tp_sf_col *c;
        lazy_def(i, &base, &w, &c);
        size_t raw = (size_t)C->count * w;
        char *dst = tp_sf_big_alloc(raw ? raw : w);
        if (!dst) {
            rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory reading the store", st->path);
            break;
        }
        jobs[nj] = (struct tp_sf_job){.dst = dst, .z = C->z, .zlen = C->zlen, .raw = raw,
                                      .delta = (C->flags & TP_SF_DELTA) != 0,
                                      .at = (size_t)(C->hdr - L->file), .hdr = C->hdr, .hlen = C->hlen,
                                      .crc = C->crc, .check_crc = 1, .id = i};
        which[nj++] = i;
    }
    if (rc == TP_OK && nj) {
        tp_sf_inflate_all(jobs, nj);     /* (reorders them: each knows its column by id) */
        for (size_t j = 0; j < nj && rc == TP_OK; j++)
            if (jobs[j].error)
                rc = tp_error_set(err, TP_ERR_IO, "%s: byte %zu: %s (section %s)", st->path, jobs[j].at,
                                  jobs[j].error, lazy_names[jobs[j].id]);
    }
    /* Put the inflated columns in place of their reservations, then check
     * them (a check may read another column just put in place). */
    for (size_t j = 0; j < nj; j++) {
        struct lazy_col *C = &L->col[jobs[j].id];
        if (rc != TP_OK) {
            free(jobs[j].dst);
            continue;
        }
        *slot(st, jobs[j].id) = jobs[j].dst;
        unreserve(C->resv, C->resv_len);
        C->resv = NULL;
        C->loaded = 1;
    }
    for (size_t j = 0; j < nj && rc == TP_OK; j++) {   /* in column order: ev.kind before ev.aux */
        char msg[160];
        const char *why = check_values(st, which[j], msg, sizeof msg);
        if (!why && 1u << which[j] == TP_NEED_AUX)   /* the details of the event's kind */
            why = tp_sf_check_aux(st);
        if (!why && 1u << which[j] == TP_NEED_TID)
            why = tp_sf_check_tid(st);
        if (why) {
            const struct lazy_col *C = &L->col[which[j]];
            rc = tp_error_set(err, TP_ERR_IO, "%s: byte %zu: %s (section %s)", st->path, (size_t)(C->hdr - L->file),
                              why, lazy_names[which[j]]);
            /* a column that failed its checks must not be read: back to a
             * reservation, still present (asked again, it fails again) */
            free(*slot(st, which[j]));
            *slot(st, which[j]) = NULL;
            reserve_col(L, which[j]);   /* (failed: NULL, and inflated again when asked) */
            L->col[which[j]].loaded = 0;
        }
    }
    int all = 1;
    for (int i = 0; i < TP_SF_NLAZY; i++)
        all &= !L->col[i].present || L->col[i].loaded;
    if (all && rc == TP_OK) {
        free(L->file);                   /* nothing more to inflate from it */
        L->file = NULL;
    }
    pthread_mutex_unlock(&L->lock);
    return rc;
}
