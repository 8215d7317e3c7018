/* store_file_lazy.c — a .tprof store's per-event columns and side tables
 * inflated when something first needs them (tp_store_need).
 *
 * A view on a 1 GB trace's store spent most of its time having the kernel
 * clear pages for 400 MB of event, link and attribution columns and side
 * tables, most of which it never read.  So the reader keeps those sections as the file
 * holds them (compressed, checksum not yet verified) and points each
 * column (and each side table: kernel, operator and memory details,
 * prof.py rows, collectives) at a reservation of address space that no access may touch
 * (PROT_NONE): tp_view_build asks for the columns the view declared
 * (views.def), and they are checked (CRC, size, every index against its
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

/* The units read lazily, in the order of the TP_NEED_ bits: one column
 * each, then the side tables (all their columns at once). */
static const char *const unit_names[TP_SF_NLAZY] = {
    "ev.kind", "ev.ph", "ev.ts", "ev.dur", "ev.name", "ev.cat", "ev.pid", "ev.tid", "ev.device", "ev.stream",
    "ev.correlation", "ev.external_id", "ev.aux",
    "link.parent", "dlink.launcher", "dlink.launch_op",
    "opt.attr.op", "opt.attr.kind", "opt.attr.cause",
    "kern.*", "op.*", "mem.*", "annot.*", "opt.coll.*", "seq.*", "py.*",
};
static const enum tp_sf_table_id unit_tables[TP_SF_NLAZY - TP_SF_NLAZY_COLS] = {
    TP_SF_KERNELS, TP_SF_OPS, TP_SF_MEMS, TP_SF_ANNOTS, TP_SF_COLLS, TP_SF_SEQS, TP_SF_PYS,
};
enum { ATTR_OP = TP_SF_NLAZY_COLS - 3, ATTR_KIND, ATTR_CAUSE, MAX_SECS = 24 };

static const struct tp_sf_col *col_named(const char *name)
{
    for (size_t k = 0; k < tp_sf_ncols; k++)
        if (strcmp(tp_sf_cols[k].name, name) == 0)
            return &tp_sf_cols[k];
    return NULL;
}

int tp_sf_lazy_index(const char *name)
{
    for (int i = 0; i < TP_SF_NLAZY_COLS; i++)
        if (strcmp(unit_names[i], name) == 0)
            return i;
    const struct tp_sf_col *c = col_named(name);
    for (int i = TP_SF_NLAZY_COLS; c && i < TP_SF_NLAZY; i++)
        if (unit_tables[i - TP_SF_NLAZY_COLS] == c->table)
            return i;
    return -1;
}

/* Where unit i's pointer lives in the store, and the bytes of one of its
 * values (a record, for a table). */
static void unit_def(int i, size_t *base, size_t *size)
{
    switch (i) {
    case ATTR_OP: *base = offsetof(tp_store, attr.dev_op); *size = 4; return;
    case ATTR_KIND: *base = offsetof(tp_store, attr.dev_kind); *size = 1; return;
    case ATTR_CAUSE: *base = offsetof(tp_store, attr.dev_cause); *size = 1; return;
    }
    for (size_t k = 0; k < tp_sf_ncols; k++) {
        const struct tp_sf_col *c = &tp_sf_cols[k];
        if (i < TP_SF_NLAZY_COLS ? strcmp(c->name, unit_names[i]) == 0
                                 : c->table == unit_tables[i - TP_SF_NLAZY_COLS]) {
            *base = c->base;
            *size = c->stride;
            return;
        }
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
            say("tprof: internal error: ");
            say(resv[i].name);
            say(" of ");
            say(resv[i].path);
            say(" was read before it was asked for (tp_store_need; a view's needs in lib/view/views.def)\n");
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

struct lazy_sec {             /* one section as the file holds it */
    const struct tp_sf_col *c;     /* NULL: an attribution array */
    const unsigned char *hdr;      /* header (hlen bytes), then the frame (zlen) */
    const unsigned char *z;
    size_t hlen, zlen;
    uint32_t crc, flags;
};

struct lazy_unit {
    int present;                   /* the file has it */
    int loaded;
    uint64_t count;
    void *resv; size_t resv_len;   /* while not loaded: the store's pointer */
    struct lazy_sec sec[MAX_SECS];
    size_t nsec;
};

struct tp_sf_lazy {
    tp_store *st;
    unsigned char *file;           /* the whole file, until every unit present is loaded */
    pthread_mutex_t lock;
    struct lazy_unit u[TP_SF_NLAZY];
    struct tp_sf_blobs models;     /* the model sections (store_file_model.c) */
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
    size_t base, size;
    unit_def(i, &base, &size);
    return (void **)((char *)st + base);
}

void tp_sf_lazy_free(struct tp_sf_lazy *L)
{
    if (!L)
        return;
    for (int i = 0; i < TP_SF_NLAZY; i++) {
        struct lazy_unit *U = &L->u[i];
        if (U->resv) {
            unreserve(U->resv, U->resv_len);
            void **p = slot(L->st, i);
            if (*p == U->resv)
                *p = NULL;              /* tp_store_free frees the loaded ones */
        }
    }
    tp_sf_blobs_free(&L->models);
    free(L->file);
    pthread_mutex_destroy(&L->lock);
    free(L);
}

void tp_sf_lazy_take_file(struct tp_sf_lazy *L, unsigned char *file)
{
    L->file = file;
}

/* Unit i's reservation, in the store's pointer. */
static int reserve_unit(struct tp_sf_lazy *L, int i)
{
    size_t base, size;
    unit_def(i, &base, &size);
    struct lazy_unit *U = &L->u[i];
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    U->resv_len = ((size_t)(U->count ? U->count : 1) * size + page - 1) / page * page;
    U->resv = reserve(U->resv_len, unit_names[i], L->st->path);
    if (!U->resv)
        return -1;
    *slot(L->st, i) = U->resv;
    return 0;
}

int tp_sf_lazy_add(struct tp_sf_lazy *L, int i, const char *name, const unsigned char *hdr, size_t hlen,
                   uint32_t crc, const unsigned char *z, size_t zlen, uint64_t count, uint32_t width,
                   uint32_t flags, const char **why)
{
    const struct tp_sf_col *c = col_named(name);
    size_t w = c ? c->width : i == ATTR_OP ? 4 : 1;
    struct lazy_unit *U = &L->u[i];
    for (size_t k = 0; k < U->nsec; k++)
        if (U->sec[k].c == c)
            return *why = "a section appears twice", -1;
    uint32_t delta = c ? (uint32_t)(c->flags & TP_SF_DELTA) : 0;
    if (width != w || (flags & ~(uint32_t)TP_SF_DELTA) || (flags & TP_SF_DELTA) != delta)
        return *why = "a column's width or encoding differs from this tprof's", -1;
    if (U->present && count != U->count)
        return *why = "columns of one table differ in length", -1;
    if (U->nsec == MAX_SECS)
        return *why = "more sections than any store has", -1;
    if (!U->present) {
        U->count = count;
        if (reserve_unit(L, i) < 0)
            return *why = NULL, -1;   /* out of memory (address space) */
        U->present = 1;
    }
    U->sec[U->nsec++] = (struct lazy_sec){.c = c, .hdr = hdr, .hlen = hlen, .crc = crc, .z = z, .zlen = zlen,
                                          .flags = flags};
    return 0;
}

int tp_sf_lazy_present(const struct tp_sf_lazy *L, int i)
{
    return L->u[i].present;
}

int tp_sf_lazy_loaded(const struct tp_sf_lazy *L, const char *name)
{
    int i = tp_sf_lazy_index(name);
    return i < 0 || !L->u[i].present || L->u[i].loaded;
}

/* How many values column unit i has in an intact store: one per event, or
 * one per device row (dlink.*, the attribution's). */
size_t tp_sf_lazy_rows(const tp_store *st, int i)
{
    size_t base, size;
    unit_def(i, &base, &size);
    return i >= ATTR_OP || base == offsetof(tp_store, dev_launcher) || base == offsetof(tp_store, dev_launch_op)
               ? st->ndev : st->n;
}

uint64_t tp_sf_lazy_count(const struct tp_sf_lazy *L, int i)
{
    return L->u[i].count;
}

void tp_sf_lazy_set_totals(struct tp_sf_lazy *L, const int64_t *v)
{
    memcpy(L->attr_totals, v, sizeof L->attr_totals);
    L->have_totals = 1;
}

int tp_sf_lazy_has_attr(const struct tp_sf_lazy *L)
{
    return L->have_totals && L->u[ATTR_OP].present && L->u[ATTR_KIND].present && L->u[ATTR_CAUSE].present;
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

/* The values of a freshly inflated unit that the views use as indices,
 * checked against their tables (as store_file.c checks the others). */
static const char *check_unit(const tp_store *st, int i, const struct lazy_unit *U, char *msg, size_t cap)
{
    for (size_t k = 0; k < U->nsec; k++) {
        const char *why = U->sec[k].c ? tp_sf_check_col(st, U->sec[k].c, (size_t)U->count, msg, cap) : NULL;
        if (why)
            return why;
    }
    if (1u << i == TP_NEED_AUX)   /* the details of the event's kind */
        return tp_sf_check_aux(st);
    if (1u << i == TP_NEED_TID)
        return tp_sf_check_tid(st);
    const struct tp_attribution *a = &st->attr;
    for (size_t k = 0; i >= ATTR_OP && i <= ATTR_CAUSE && k < st->ndev; k++) {
        if (i == ATTR_OP ? a->dev_op[k] < -1 || (a->dev_op[k] >= 0 && (uint64_t)a->dev_op[k] >= st->n)
            : i == ATTR_KIND ? a->dev_kind[k] >= TP_LAUNCH_KINDS : a->dev_cause[k] >= TP_ATTR_CAUSES) {
            snprintf(msg, cap, "column %s, value %zu: out of range", unit_names[i], k);
            return msg;
        }
    }
    return NULL;
}

/* The bits of `want` with the units their checks read too: an event's
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

static const char *sec_name(const struct lazy_sec *S, int i)
{
    return S->c ? S->c->name : unit_names[i];
}

/* The inflated columns of each side table (jobs of units past the event
 * columns) into its records recs[unit], a block of rows at a time: column
 * by column over the whole table passed over its records once per column
 * (72 bytes a record, 14 columns for the annotations: a quarter of the
 * default view's CPU on a store), a block's records stay in cache. */
static void scatter_tables(const struct tp_sf_lazy *L, const struct tp_sf_job *jobs, size_t nj, char *const *recs)
{
    enum { BLOCK = 1024 };
    for (int i = TP_SF_NLAZY_COLS; i < TP_SF_NLAZY; i++) {
        size_t n = recs[i] ? (size_t)L->u[i].count : 0;
        for (size_t r0 = 0; r0 < n; r0 += BLOCK) {
            size_t m = n - r0 < BLOCK ? n - r0 : BLOCK;
            for (size_t j = 0; j < nj; j++) {
                if (jobs[j].id / MAX_SECS != i)
                    continue;
                const struct tp_sf_col *c = L->u[i].sec[jobs[j].id % MAX_SECS].c;
                if (c->flags & TP_SF_FWD)
                    continue;   /* not in the records (tp_sf_lazy_need puts it in st->fwds) */
                tp_sf_scatter(recs[i] + r0 * c->stride + c->field, c->stride,
                              (const unsigned char *)jobs[j].dst + r0 * c->width, c->width, m);
            }
        }
    }
}

int tp_sf_lazy_need(struct tp_sf_lazy *L, uint32_t want, tp_error *err)
{
    tp_store *st = L->st;
    want = closure(want);
    pthread_mutex_lock(&L->lock);
    enum { MAX_JOBS = TP_SF_NLAZY_COLS + (TP_SF_NLAZY - TP_SF_NLAZY_COLS) * MAX_SECS };
    struct tp_sf_job jobs[MAX_JOBS];
    int which[TP_SF_NLAZY];
    size_t nj = 0, nu = 0;
    int rc = TP_OK;
    /* Every section of the units asked for, inflated at once: a column
     * straight into its memory, a table's columns each into its own
     * buffer, scattered into the records after. */
    for (int i = 0; i < TP_SF_NLAZY && rc == TP_OK; i++) {
        struct lazy_unit *U = &L->u[i];
        if (!(want >> i & 1) || !U->present || U->loaded)
            continue;
        which[nu++] = i;
        for (size_t k = 0; k < U->nsec && rc == TP_OK; k++) {
            const struct lazy_sec *S = &U->sec[k];
            size_t base, size;
            unit_def(i, &base, &size);
            size_t raw = (size_t)U->count * (S->c ? S->c->width : size);
            char *dst = i < TP_SF_NLAZY_COLS ? tp_sf_big_alloc(raw ? raw : size) : malloc(raw ? raw : 1);
            if (!dst) {
                rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory reading the store", st->path);
                break;
            }
            jobs[nj++] = (struct tp_sf_job){.dst = dst, .z = S->z, .zlen = S->zlen, .raw = raw,
                                            .delta = (S->flags & TP_SF_DELTA) != 0,
                                            .at = (size_t)(S->hdr - L->file), .hdr = S->hdr, .hlen = S->hlen,
                                            .crc = S->crc, .check_crc = 1, .id = i * MAX_SECS + (int)k};
        }
    }
    if (rc == TP_OK && nj) {
        tp_sf_inflate_all(jobs, nj);     /* (reorders them: each knows its section by id) */
        for (size_t j = 0; j < nj && rc == TP_OK; j++)
            if (jobs[j].error) {
                int i = jobs[j].id / MAX_SECS;
                rc = tp_error_set(err, TP_ERR_IO, "%s: byte %zu: %s (section %s)", st->path, jobs[j].at,
                                  jobs[j].error, sec_name(&L->u[i].sec[jobs[j].id % MAX_SECS], i));
            }
    }
    /* Put the units in place of their reservations, then check them (a
     * check may read another unit just put in place). */
    char *recs[TP_SF_NLAZY] = {0};
    for (size_t k = 0; k < nu && rc == TP_OK; k++) {
        int i = which[k];
        size_t base, size;
        unit_def(i, &base, &size);
        if (i >= TP_SF_NLAZY_COLS && !(recs[i] = calloc(L->u[i].count ? (size_t)L->u[i].count : 1, size)))
            rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory reading the store", st->path);
    }
    if (rc == TP_OK)
        scatter_tables(L, jobs, nj, recs);
    for (size_t j = 0; j < nj && rc == TP_OK; j++) {
        int i = jobs[j].id / MAX_SECS;
        const struct tp_sf_col *c = i >= TP_SF_NLAZY_COLS ? L->u[i].sec[jobs[j].id % MAX_SECS].c : NULL;
        if (c && (c->flags & TP_SF_FWD) && tp_sf_fwds_from(st, (const unsigned char *)jobs[j].dst, (size_t)L->u[i].count) < 0)
            rc = tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory reading the store", st->path);
    }
    for (size_t j = 0; j < nj; j++) {
        int i = jobs[j].id / MAX_SECS;
        if (rc != TP_OK || i >= TP_SF_NLAZY_COLS) {
            free(jobs[j].dst);
            continue;
        }
        recs[i] = jobs[j].dst;
    }
    for (size_t k = 0; k < nu; k++) {
        int i = which[k];
        struct lazy_unit *U = &L->u[i];
        if (rc != TP_OK) {
            if (i >= TP_SF_NLAZY_COLS)
                free(recs[i]);
            continue;
        }
        *slot(st, i) = recs[i];
        unreserve(U->resv, U->resv_len);
        U->resv = NULL;
        U->loaded = 1;
    }
    for (size_t k = 0; k < nu && rc == TP_OK; k++) {   /* in unit order: ev.kind before ev.aux */
        char msg[160];
        int i = which[k];
        struct lazy_unit *U = &L->u[i];
        const char *why = check_unit(st, i, U, msg, sizeof msg);
        if (why) {
            rc = tp_error_set(err, TP_ERR_IO, "%s: byte %zu: %s (section %s)", st->path,
                              (size_t)(U->sec[0].hdr - L->file), why, sec_name(&U->sec[0], i));
            /* a unit that failed its checks must not be read: back to a
             * reservation, still present (asked again, it fails again) */
            free(*slot(st, i));
            *slot(st, i) = NULL;
            reserve_unit(L, i);          /* (failed: NULL, and inflated again when asked) */
            U->loaded = 0;
        }
    }
    int all = 1;
    for (int i = 0; i < TP_SF_NLAZY; i++)
        all &= !L->u[i].present || L->u[i].loaded;
    if (all && rc == TP_OK) {
        free(L->file);                   /* nothing more to inflate from it */
        L->file = NULL;
    }
    pthread_mutex_unlock(&L->lock);
    return rc;
}
