/* run.c — a run directory: one trace per rank, found by name, loaded in
 * parallel, settled into distinct ranks, and (for --merge and diff) laid end
 * to end in one store.
 *
 * Discovery follows the TensorBoard plugin (SPEC kineto §1.1): a file is a
 * rank when its name ends in .json (the plugin's WORKER[.SPAN].pt.trace.json
 * included) with an optional .gz or .zst; the worker name is what comes
 * before [.SPAN].pt.trace.json, and each worker's spans are numbered 1..n in
 * string order as the plugin does.  A subdirectory is a rank only when it is
 * an Ascend profiler folder.  The rank is distributedInfo.rank when the trace
 * has one, else a number in the name (rank-N, rank_N, rankN, workerN), else
 * the lowest rank no other file claims; a second file claiming a taken rank
 * fails with a message naming both, so two ranks are never merged silently.
 *
 * Loading runs one thread per file up to the core count; each thread parses
 * its own store (memory is bounded by the stores, never the text).  The
 * linker (and the Ascend importer's task linking) sort with file-scope
 * state, so linking and Ascend folders are serialised by a mutex while the
 * other threads keep parsing kineto files. */
#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "ingest.h"
#include "store.h"
#include "cmp.h"
#include "try.h"
#include "dir.h"
#include "grow.h"

struct tp_run {
    char dir[1024];
    struct tp_run_rank *r;
    size_t n;
    char *notes;            /* "DIR: what\n" lines */
    size_t nnotes, capnotes;
    /* loading */
    size_t *order;          /* the order ranks are loaded in (load_all) */
    _Atomic size_t ndone;   /* ranks loaded (and reduced), for a progress line */
    char *keep;             /* --rank: the ranks to keep ("0,2,5-7"), NULL all */
    /* tp_run_reduce: what each rank becomes before its store is freed */
    void *(*reduce)(const struct tp_run_rank *k, void *ctx);
    void (*drop)(void *result);
    void *ctx;
};

static void note(tp_run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note(tp_run *r, const char *fmt, ...)
{
    char line[768];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    line[n] = 0;
    if (r->nnotes + (size_t)n + 1 > r->capnotes) {
        size_t cap = (r->capnotes + (size_t)n + 1) * 2;
        char *p = realloc(r->notes, cap);
        if (!p)
            return;
        r->notes = p;
        r->capnotes = cap;
    }
    memcpy(r->notes + r->nnotes, line, (size_t)n + 1);
    r->nnotes += (size_t)n;
}

int tp_path_is_run(const char *path)
{
    struct stat sb;
    if (!path || strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return 0;
    return !tp_ascend_probe(path);
}

static int ends_with(const char *s, size_t n, const char *suf)
{
    size_t k = strlen(suf);
    return n >= k && memcmp(s + n - k, suf, k) == 0;
}

/* A trace file name: worker and span per the plugin's WORKER_PATTERN
 * (extended to .zst, to plain .json and to .tprof stores).  0 when it is
 * not one. */
static int parse_name(const char *name, char **worker, char **span)
{
    size_t n = strlen(name);
    /* A .tprof store (tprof import) is the rank it was imported from: its
     * name is that trace's (or Ascend folder's) name plus ".tprof". */
    int store = ends_with(name, n, ".tprof") && n > 6;
    if (store)
        n -= 6;
    if (ends_with(name, n, ".gz"))
        n -= 3;
    else if (ends_with(name, n, ".zst"))
        n -= 4;
    if (!ends_with(name, n, ".json") || n == 5) {
        if (!store)
            return 0;
        *worker = strndup(name, n);
        *span = strdup("");
        return *worker && *span;
    }
    size_t w = n - 5, s0 = w, s1 = w;
    if (ends_with(name, n, ".pt.trace.json")) {
        w = n - 14;
        s1 = w;
        size_t i = w;
        while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
            i--;
        if (i < w && i > 1 && name[i - 1] == '.') {   /* ".DIGITS" before .pt.trace.json */
            s0 = i;
            w = i - 1;
        } else {
            s0 = s1;
        }
    }
    *worker = strndup(name, w);
    *span = strndup(name + s0, s1 - s0);
    return *worker && *span;
}

/* rank-N, rank_N, rankN, workerN, worker-N, worker_N anywhere in the name
 * (case-insensitive); the first one wins.  -1 when there is none. */
static int64_t rank_from_name(const char *name)
{
    static const char *const keys[] = {"rank", "worker"};
    for (const char *p = name; *p; p++)
        for (size_t k = 0; k < 2; k++) {
            size_t kl = strlen(keys[k]);
            if (strncasecmp(p, keys[k], kl) != 0)
                continue;
            const char *q = p + kl;
            if (*q == '-' || *q == '_')
                q++;
            if (*q < '0' || *q > '9')
                continue;
            int64_t v = 0;
            while (*q >= '0' && *q <= '9' && v < INT64_C(100000000000))
                v = v * 10 + (*q++ - '0');
            return v;
        }
    return -1;
}

struct found {
    char *name, *worker, *span;
    int ascend;
};

static int cmp_found(const void *a, const void *b)
{
    const struct found *x = a, *y = b;
    int c = strcmp(x->worker, y->worker);
    if (c)
        return c;
    c = strcmp(x->span, y->span);   /* the plugin's span order: string order */
    return c ? c : strcmp(x->name, y->name);
}

static void free_found(struct found *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(f[i].name);
        free(f[i].worker);
        free(f[i].span);
    }
    free(f);
}

/* Keep one span per worker: `span` as written, or its 1-based index, or the
 * first.  Returns the number kept (f is compacted), or -1 when `span` names
 * no span of any worker. */
static long pick_spans(tp_run *r, struct found *f, size_t n, const char *span)
{
    size_t keep = 0, multi = 0, matched = 0;
    char *end;
    long idx = span ? strtol(span, &end, 10) : 1;
    int is_index = span && *span && !*end && idx >= 1;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && strcmp(f[j].worker, f[i].worker) == 0)
            j++;
        /* distinct spans of this worker are f[i..j) in string order */
        size_t nspans = 0, pick = (size_t)-1;
        for (size_t k = i; k < j; k++) {
            if (k == i || strcmp(f[k].span, f[k - 1].span) != 0)
                nspans++;
            if (span && strcmp(f[k].span, span) == 0 && pick == (size_t)-1)
                pick = k;
        }
        if (pick == (size_t)-1 && (!span || is_index)) {
            size_t want = span ? (size_t)idx : 1, c = 0;
            for (size_t k = i; k < j; k++) {
                if (k == i || strcmp(f[k].span, f[k - 1].span) != 0)
                    c++;
                if (c == want) {
                    pick = k;
                    break;
                }
            }
        }
        if (nspans > 1)
            multi++;
        if (pick != (size_t)-1)
            matched++;
        else
            note(r, "%s: worker %s has no span %s; left out", r->dir, f[i].worker, span ? span : "1");
        for (size_t k = i; k < j; k++) {
            if (pick != (size_t)-1 && strcmp(f[k].span, f[pick].span) == 0)
                f[keep++] = f[k];
            else {
                free(f[k].name);
                free(f[k].worker);
                free(f[k].span);
            }
        }
        i = j;
    }
    if (span && !matched)
        return -1;
    if (!span && multi)
        note(r, "%s: %zu worker%s more than one span; showing the first of each (choose with --span)",
             r->dir, multi, multi == 1 ? " has" : "s have");
    return (long)keep;
}

/* The first subdirectory (name order) that directly holds a trace file, for
 * the message about a directory of runs; 0 when there is none. */
static int first_run_below(const char *dir, char *out, size_t cap)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    struct dirent *e;
    int found = 0;
    char full[2048];
    struct stat sb;
    while ((e = tp_dir_next(d, dir, full, sizeof full, &sb))) {
        if (!S_ISDIR(sb.st_mode))
            continue;
        DIR *sd = opendir(full);
        if (!sd)
            continue;
        struct dirent *se;
        int has = 0;
        while (!has && (se = readdir(sd))) {
            char *w = NULL, *sp = NULL;
            has = se->d_name[0] != '.' && parse_name(se->d_name, &w, &sp);
            free(w);
            free(sp);
        }
        closedir(sd);
        if (has && (!found || strcmp(e->d_name, out) < 0)) {
            snprintf(out, cap, "%s", e->d_name);
            found = 1;
        }
    }
    closedir(d);
    return found;
}

int tp_run_open(tp_run **out, const char *dir, const char *span, tp_error *err)
{
    if (!out || !dir)
        return tp_error_set(err, TP_ERR_USAGE, "tp_run_open: %s", out ? "no directory" : "nowhere to put the run");
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return tp_error_set(err, TP_ERR_IO, "%s: %s", dir, strerror(errno));
    tp_run *r = calloc(1, sizeof *r);
    struct found *f = NULL;
    size_t n = 0, cap = 0;
    if (!r) {
        closedir(d);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    snprintf(r->dir, sizeof r->dir, "%s", dir);
    size_t dl = strlen(r->dir);
    while (dl > 1 && r->dir[dl - 1] == '/')
        r->dir[--dl] = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char full[2048];
        snprintf(full, sizeof full, "%s/%s", r->dir, e->d_name);
        struct stat sb;
        struct found x = {0};
        if (stat(full, &sb) != 0) {
            /* a trace name we cannot stat (a dangling link): a rank that
             * fails to load, named, rather than one silently missing */
            if (!parse_name(e->d_name, &x.worker, &x.span)) {
                free(x.worker);
                free(x.span);
                continue;
            }
        } else if (S_ISDIR(sb.st_mode)) {
            if (!tp_ascend_probe(full))
                continue;
            x.ascend = 1;
            x.worker = strdup(e->d_name);
            x.span = strdup("");
        } else if (!S_ISREG(sb.st_mode) || !parse_name(e->d_name, &x.worker, &x.span)) {
            continue;
        }
        x.name = strdup(e->d_name);
        if (tp_grow((void **)&f, &cap, n + 1, sizeof *f) < 0) {
            free(x.name);
            free(x.worker);
            free(x.span);
            goto oom;
        }
        f[n++] = x;
        if (!x.name || !x.worker || !x.span)
            goto oom;
    }
    closedir(d);
    d = NULL;
    if (n == 0) {
        free(f);
        free(r);
        char sub[256];
        if (first_run_below(dir, sub, sizeof sub))
            return tp_error_set(err, TP_ERR_FORMAT,
                                "%s: no traces in this directory; its subdirectory %s holds some "
                                "(a run is one directory of traces)", dir, sub);
        return tp_error_set(err, TP_ERR_FORMAT,
                            "%s: no traces in this directory (expected *.pt.trace.json, *.json, "
                            "with .gz or .zst, .tprof stores, or Ascend profiler folders)", dir);
    }
    qsort(f, n, sizeof *f, cmp_found);
    long kept = pick_spans(r, f, n, span);
    if (kept < 0) {
        /* f's entries are all freed by pick_spans */
        free(f);
        free(r->notes);
        free(r);
        return tp_error_set(err, TP_ERR_USAGE, "%s: --span %s: no worker has that span", dir, span);
    }
    n = (size_t)kept;
    r->r = calloc(n ? n : 1, sizeof *r->r);
    if (!r->r)
        goto oom;
    for (size_t i = 0; i < n; i++) {
        struct tp_run_rank *k = &r->r[i];
        char full[2048];
        snprintf(full, sizeof full, "%s/%s", r->dir, f[i].name);
        k->path = strdup(full);
        k->worker = f[i].worker;
        k->span = f[i].span;
        f[i].worker = f[i].span = NULL;
        k->rank = k->declared_rank = TP_NONE;
        k->rank_from = "order";
        r->n++;
        if (!k->path)
            goto oom;
    }
    free_found(f, n);
    *out = r;
    return TP_OK;
oom:
    if (d)
        closedir(d);
    free_found(f, n);
    tp_run_free(r);
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
}

/* Load and link one rank.  Loading and linking keep no shared state (the
 * sort contexts of link.c and the views are _Thread_local), so ranks run
 * fully in parallel. */
static void load_one(tp_run *r, struct tp_run_rank *k)
{
    k->store = tp_store_new();
    if (!k->store) {
        k->status = tp_error_set(&k->err, TP_ERR_NOMEM, "%s: out of memory", k->path);
        return;
    }
    k->status = tp_store_load(k->store, k->path, &k->err);
    /* A truncated or partly malformed trace still gives its complete events. */
    if (k->status == TP_OK || k->status == TP_ERR_TRUNCATED || k->status == TP_ERR_FORMAT) {
        tp_error lerr = {0};
        int rc = tp_store_link(k->store, &lerr);
        if (rc != TP_OK && k->status == TP_OK) {
            k->status = rc;
            k->err = lerr;
        }
    }
    const tp_store *st = k->store;
    k->usable = st->linked && (k->status == TP_OK || st->n > 0);
    k->declared_rank = st->rank;
    if (!r->reduce)
        return;
    /* What settling and the step check need, before the store goes. */
    if (st->nsteps && (k->step_numbers = malloc(st->nsteps * sizeof *k->step_numbers)) != NULL) {
        for (size_t s = 0; s < st->nsteps; s++)
            k->step_numbers[s] = st->steps[s].number;
        k->nsteps = st->nsteps;
    }
    if (k->usable)
        k->result = r->reduce(k, r->ctx);
    tp_store_free(k->store);
    k->store = NULL;
}

size_t tp_run_ranks_done(const tp_run *r)
{
    return r ? atomic_load(&((tp_run *)r)->ndone) : 0;
}

static int apply_keep(tp_run *r, tp_error *err);

/* The q-th rank to load (tp_parallel's job q). */
static void load_nth(void *arg, size_t q)
{
    tp_run *r = arg;
    load_one(r, &r->r[r->order ? r->order[q] : q]);
    atomic_fetch_add(&r->ndone, 1);
}

static int usable(const struct tp_run_rank *k)
{
    return k->usable && (k->store || k->result);
}

static int cmp_rank(const void *a, const void *b)
{
    const struct tp_run_rank *x = a, *y = b;
    TP_CMP_BY(x, y, rank);
    return strcmp(x->path, y->path);
}

static _Thread_local const tp_run *g_settle;   /* for cmp_claim (qsort has no context) */

/* claimed ranks by rank, then name order (their index) */
static int cmp_claim(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int64_t rx = g_settle->r[x].rank, ry = g_settle->r[y].rank;
    if (rx != ry)
        return rx < ry ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* Settle the ranks: metadata, then the name, then the lowest free rank;
 * a rank claimed twice fails on the later file. */
static void settle_ranks(tp_run *r)
{
    for (size_t i = 0; i < r->n; i++) {
        struct tp_run_rank *k = &r->r[i];
        int64_t nr = rank_from_name(k->worker);
        if (k->declared_rank != TP_NONE && k->declared_rank >= 0) {
            k->rank = k->declared_rank;
            k->rank_from = "distributedInfo";
        } else if (nr >= 0) {
            k->rank = nr;
            k->rank_from = "file name";
        }
    }
    /* Files without a rank take the lowest ranks no file claims, in name
     * order; a rank claimed twice stays with the first file (name order) and
     * the other is left out and named.  Sorting keeps this O(n log n) for
     * runs of thousands of ranks. */
    size_t *ord = malloc((r->n ? r->n : 1) * sizeof *ord);
    if (!ord) {   /* out of memory: number by order, duplicates unchecked */
        for (size_t i = 0; i < r->n; i++)
            if (r->r[i].rank == TP_NONE)
                r->r[i].rank = (int64_t)i;
        goto done;
    }
    size_t nc = 0;
    for (size_t i = 0; i < r->n; i++)
        if (r->r[i].rank != TP_NONE)
            ord[nc++] = i;
    g_settle = r;
    qsort(ord, nc, sizeof *ord, cmp_claim);
    int64_t cand = 0;
    size_t c = 0;
    for (size_t i = 0; i < r->n; i++) {
        struct tp_run_rank *k = &r->r[i];
        if (k->rank != TP_NONE)
            continue;
        for (;;) {
            while (c < nc && r->r[ord[c]].rank < cand)
                c++;
            if (c < nc && r->r[ord[c]].rank == cand) {
                cand++;
                continue;
            }
            break;
        }
        k->rank = cand++;
    }
    for (size_t q = 1; q < nc; q++) {
        struct tp_run_rank *keep = &r->r[ord[q - 1]], *k = &r->r[ord[q]];
        if (k->rank != keep->rank)
            continue;
        /* ord[q-1] comes first in name order (cmp_claim); a chain of
         * claimants all name the first one */
        size_t first = q - 1;
        while (first > 0 && r->r[ord[first - 1]].rank == k->rank)
            first--;
        k->status = tp_error_set(&k->err, TP_ERR_FORMAT,
                                 "%s: rank %lld (%s) is also claimed by %s; left out",
                                 k->path, (long long)k->rank, k->rank_from, r->r[ord[first]].path);
        tp_store_free(k->store);
        k->store = NULL;
        if (k->result && r->drop)
            r->drop(k->result);
        k->result = NULL;
        k->usable = 0;
    }
    free(ord);
done:
    for (size_t i = 0; i < r->n; i++)
        if (r->r[i].store)
            r->r[i].store->rank = r->r[i].rank;
    qsort(r->r, r->n, sizeof *r->r, cmp_rank);
}

/* Ranks whose ProfilerStep numbers differ: one note. */
static void check_steps(tp_run *r)
{
    const struct tp_run_rank *ref = NULL;
    for (size_t i = 0; i < r->n; i++) {
        const struct tp_run_rank *k = &r->r[i];
        if (!usable(k))
            continue;
        if (!ref) {
            ref = k;
            continue;
        }
        int same = k->nsteps == ref->nsteps;
        for (size_t s = 0; same && s < k->nsteps; s++)
            same = k->step_numbers[s] == ref->step_numbers[s];
        if (same)
            continue;
        char a[64], b[64];
        if (ref->nsteps)
            snprintf(a, sizeof a, "%zu (%lld..%lld)", ref->nsteps, (long long)ref->step_numbers[0],
                     (long long)ref->step_numbers[ref->nsteps - 1]);
        else
            snprintf(a, sizeof a, "none");
        if (k->nsteps)
            snprintf(b, sizeof b, "%zu (%lld..%lld)", k->nsteps, (long long)k->step_numbers[0],
                     (long long)k->step_numbers[k->nsteps - 1]);
        else
            snprintf(b, sizeof b, "none");
        note(r, "%s: ranks disagree on steps: rank %lld has %s, rank %lld has %s", r->dir,
             (long long)ref->rank, a, (long long)k->rank, b);
        return;
    }
}

/* The step numbers of a rank whose store is kept (tp_run_load). */
static void keep_steps(struct tp_run_rank *k)
{
    const tp_store *st = k->store;
    if (!st || !st->nsteps || k->step_numbers)
        return;
    if ((k->step_numbers = malloc(st->nsteps * sizeof *k->step_numbers)) == NULL)
        return;   /* out of memory: the rank reads as stepless to the check */
    for (size_t s = 0; s < st->nsteps; s++)
        k->step_numbers[s] = st->steps[s].number;
    k->nsteps = st->nsteps;
}

/* load order: ranks named by number first, by that number, then the rest
 * in natural order (trace_2 before trace_10: strverscmp), as files named by
 * a counter are usually numbered in rank order */
struct load_key {
    int64_t rank;
    size_t i;
    const char *name;
};

static int cmp_load_key(const void *a, const void *b)
{
    const struct load_key *x = a, *y = b;
    int nx = x->rank < 0, ny = y->rank < 0;
    if (nx != ny)
        return nx - ny;
    TP_CMP_BY(x, y, rank);
    int c = strverscmp(x->name, y->name);
    if (c)
        return c;
    return TP_CMP(x->i, y->i);
}

static int load_all(tp_run *r, int threads, tp_error *err)
{
    atomic_store(&r->ndone, 0);
    /* Load in the order the names number the ranks (rank-N, workerN; name
     * order for the others, after): the ranks are settled once all are
     * read, so the order changes nothing but when each is done, and a
     * reduce that merges ranks as they come (tprof --merge) then finds them
     * nearly in rank order, where name order (trace_1, trace_10,
     * trace_100 ...) would keep hundreds waiting. */
    r->order = malloc((r->n ? r->n : 1) * sizeof *r->order);
    struct load_key *lk = malloc((r->n ? r->n : 1) * sizeof *lk);
    if (r->order && lk) {
        for (size_t i = 0; i < r->n; i++)
            lk[i] = (struct load_key){rank_from_name(r->r[i].worker), i, r->r[i].path};
        qsort(lk, r->n, sizeof *lk, cmp_load_key);
        for (size_t i = 0; i < r->n; i++)
            r->order[i] = lk[i].i;
    } else {
        free(r->order);
        r->order = NULL;   /* out of memory: name order */
    }
    free(lk);
    tp_parallel(r->n, threads, load_nth, r);
    free(r->order);
    r->order = NULL;
    if (!r->reduce)
        for (size_t i = 0; i < r->n; i++)
            keep_steps(&r->r[i]);
    settle_ranks(r);
    int krc = apply_keep(r, err);
    if (krc != TP_OK)
        return krc;
    check_steps(r);
    for (size_t i = 0; i < r->n; i++)
        if (r->r[i].status != TP_OK) {
            if (err)
                *err = r->r[i].err;
            return r->r[i].status;
        }
    return TP_OK;
}

int tp_run_load(tp_run *r, int threads, tp_error *err)
{
    if (!r)
        return tp_error_set(err, TP_ERR_USAGE, "tp_run_load: no run");
    r->reduce = NULL;
    return load_all(r, threads, err);
}

int tp_run_reduce(tp_run *r, int threads, void *(*reduce)(const struct tp_run_rank *k, void *ctx),
                  void (*drop)(void *result), void *ctx, tp_error *err)
{
    if (!r || !reduce)
        return tp_error_set(err, TP_ERR_USAGE, "tp_run_reduce: %s", r ? "no reduce function" : "no run");
    r->reduce = reduce;
    r->drop = drop;
    r->ctx = ctx;
    return load_all(r, threads, err);
}

size_t tp_run_size(const tp_run *r)
{
    return r ? r->n : 0;
}

const struct tp_run_rank *tp_run_rank(const tp_run *r, size_t i)
{
    return r && i < r->n ? &r->r[i] : NULL;
}

const char *tp_run_notes(const tp_run *r)
{
    return r && r->notes ? r->notes : "";
}

/* What rank k of r holds (its names, store and result); not k itself. */
static void free_rank(const tp_run *r, struct tp_run_rank *k)
{
    free((char *)k->path);
    free((char *)k->worker);
    free((char *)k->span);
    free(k->step_numbers);
    tp_store_free(k->store);
    if (k->result && r->drop)
        r->drop(k->result);
}

/* "0,2,5-7" -> does it name rank x? (-1: the list is not one) */
static int rank_listed(const char *list, int64_t x)
{
    for (const char *p = list; *p;) {
        char *end;
        long long a = strtoll(p, &end, 10), b;
        if (end == p || a < 0)
            return -1;
        b = a;
        if (*end == '-') {
            const char *q = end + 1;
            b = strtoll(q, &end, 10);
            if (end == q || b < a)
                return -1;
        }
        if (*end && *end != ',')
            return -1;
        if (x >= a && x <= b)
            return 1;
        p = *end ? end + 1 : end;
    }
    return 0;
}

int tp_run_keep_ranks(tp_run *r, const char *list, tp_error *err)
{
    if (!r || !list)
        return tp_error_set(err, TP_ERR_USAGE, "tp_run_keep_ranks: %s", r ? "no list" : "no run");
    if (!*list || rank_listed(list, -1) < 0)
        return tp_error_set(err, TP_ERR_USAGE, "--rank: '%s' is not a list of ranks such as 0,2,5-7", list);
    free(r->keep);
    r->keep = strdup(list);
    return r->keep ? TP_OK : tp_error_set(err, TP_ERR_NOMEM, "out of memory");
}

/* --rank, once the ranks are settled (a rank is known only when its trace
 * was read: distributedInfo): drop the others, and fail on a rank the list
 * names that the run does not have (a typo is not an empty table). */
static int apply_keep(tp_run *r, tp_error *err)
{
    if (!r->keep)
        return TP_OK;
    for (const char *p = r->keep; *p;) {
        char *end;
        long long a = strtoll(p, &end, 10), b = a;
        if (*end == '-')
            b = strtoll(end + 1, &end, 10);
        for (long long x = a; x <= b && x - a < 1000000; x++) {
            size_t i = 0;
            while (i < r->n && r->r[i].rank != x)
                i++;
            if (i == r->n)
                return tp_error_set(err, TP_ERR_USAGE, "%s: --rank: no rank %lld in this run (%zu ranks)", r->dir, x,
                                    r->n);
        }
        p = *end ? end + 1 : end;
    }
    size_t k = 0;
    for (size_t i = 0; i < r->n; i++) {
        if (rank_listed(r->keep, r->r[i].rank) == 1) {
            r->r[k++] = r->r[i];
            continue;
        }
        free_rank(r, &r->r[i]);
    }
    r->n = k;
    return TP_OK;
}

void tp_run_free(tp_run *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++) {
        free_rank(r, &r->r[i]);
    }
    free(r->r);
    free(r->notes);
    free(r->keep);
    free(r);
}

/* ---- the merged store ---- */

/* Ids of one rank kept apart from the others': ids below 2^40 move to
 * their own 2^40-wide band per rank; larger ones (hashes) stay. */
static int64_t apart(int64_t v, size_t k)
{
    const int64_t band = INT64_C(1) << 40;
    if (v == TP_NONE || v < 0 || v >= band || k >= (size_t)1 << 22)
        return v;
    return v + (int64_t)k * band;
}

struct remap {
    const tp_store *src;
    tp_store *dst;
    uint32_t *ids;
};

static uint32_t rs(struct remap *m, uint32_t id)
{
    if (id >= m->src->strings.count)
        return 0;
    if (m->ids[id] == UINT32_MAX)
        m->ids[id] = tp_store_intern(m->dst, tp_store_str(m->src, id),
                                     tp_strtab_len(&m->src->strings, id));
    return m->ids[id] == UINT32_MAX ? 0 : m->ids[id];
}

static int copy_rank(tp_store *dst, const tp_store *src, size_t k, int64_t shift)
{
    struct remap m = {src, dst, malloc((src->strings.count + 1) * sizeof(uint32_t))};
    if (!m.ids)
        return -1;
    memset(m.ids, 0xff, (src->strings.count + 1) * sizeof(uint32_t));
    for (size_t i = 0; i < src->n; i++) {
        int64_t row = tp_store_add(dst);
        if (row < 0) {
            free(m.ids);
            return -1;
        }
        size_t o = (size_t)row;
        dst->kind[o] = src->kind[i];
        dst->ph[o] = src->ph[i];
        dst->ts[o] = src->ts[i] + (src->kind[i] == TP_K_META ? 0 : shift);
        dst->dur[o] = src->dur[i];
        dst->name[o] = rs(&m, src->name[i]);
        dst->cat[o] = rs(&m, src->cat[i]);
        dst->pid[o] = src->pid[i];
        int64_t tid = src->tid[i];
        if (tid != TP_NONE && tid >= 0 && (tid & TP_TID_STRING))
            tid = TP_TID_STRING | rs(&m, (uint32_t)(tid & ~TP_TID_STRING));
        dst->tid[o] = tid;
        dst->device[o] = src->device[i];
        dst->stream[o] = src->stream[i];
        dst->correlation[o] = apart(src->correlation[i], k);
        if (tp_store_set_ext(dst, o, apart(tp_store_ext(src, i), k)) < 0)
            goto oom;
        if (tp_store_set_seq(dst, o, apart(tp_store_seq(src, i), k)) < 0)
            goto oom;
        uint32_t a = src->aux[i];
        if (a == TP_NO_AUX)
            continue;
        switch (src->kind[i]) {
        case TP_K_META:
            dst->aux[o] = rs(&m, a);
            break;
        case TP_K_KERNEL:
        case TP_K_MEMCPY:
        case TP_K_MEMSET:
        case TP_K_SYNC:
        case TP_K_MEMORY:
        case TP_K_CPU_OP:
        case TP_K_USER_ANNOTATION:
        case TP_K_GPU_USER_ANNOTATION:
        case TP_K_PYTHON_FUNCTION: {
            struct tp_op_info *oi;
            if (tp_store_copy_info(dst, o, src, i, &oi) < 0)
                goto oom;
            if (oi) {
                oi->input_dims = rs(&m, oi->input_dims);
                oi->input_types = rs(&m, oi->input_types);
                oi->concrete_inputs = rs(&m, oi->concrete_inputs);
                oi->input_strides = rs(&m, oi->input_strides);
                oi->call_stack = rs(&m, oi->call_stack);
                if (oi->py < dst->npys) {
                    struct tp_py_info py = *tp_store_py(dst, oi);
                    py.python_id = apart(py.python_id, k);
                    py.python_parent_id = apart(py.python_parent_id, k);
                    if (tp_store_put_py(dst, oi->py, py) < 0)
                        goto oom;
                }
            }
            /* a sync's record names the cudaEventRecord it waits for by
             * correlation, which is kept apart per rank like the rows' own */
            if (src->kind[i] == TP_K_SYNC && dst->aux[o] != TP_NO_AUX && dst->aux[o] < dst->nkernels)
                dst->kernels[dst->aux[o]].sync_record_corr = apart(dst->kernels[dst->aux[o]].sync_record_corr, k);
            break;
        }
        default:
            dst->aux[o] = a;   /* a value, not an index into a side table we know */
            break;
        }
    }
    free(m.ids);
    return 0;
oom:
    free(m.ids);
    return -1;
}

int tp_run_merge(const tp_run *r, tp_store **out, tp_error *err)
{
    if (!r || !out)
        return tp_error_set(err, TP_ERR_USAGE, "tp_run_merge: %s", r ? "nowhere to put the store" : "no run");
    *out = NULL;
    tp_store *st = tp_store_new();
    TP_TRY_NOMEM(st, err);
    snprintf(st->path, sizeof st->path, "%s", r->dir);
    int64_t prev_end = INT64_MIN;
    size_t k = 0;
    int64_t *shifts = calloc(r->n ? r->n : 1, sizeof *shifts);
    if (!shifts)
        goto oom;
    for (size_t i = 0; i < r->n; i++) {
        const struct tp_run_rank *rk = &r->r[i];
        if (!usable(rk))
            continue;
        const tp_store *src = rk->store;
        if (k == 0) {
            st->format = src->format;
            st->compression = src->compression;
            st->base_time_ns = src->base_time_ns;
            st->world_size = src->world_size;
            st->schema_version = src->schema_version;
            if (src->ndevices) {
                st->devices = malloc(src->ndevices * sizeof *st->devices);
                if (!st->devices)
                    goto oom;
                memcpy(st->devices, src->devices, src->ndevices * sizeof *st->devices);
                for (size_t d = 0; d < src->ndevices; d++)
                    st->devices[d].name = tp_store_intern(st, tp_store_str(src, src->devices[d].name),
                                                          tp_strtab_len(&src->strings,
                                                                        src->devices[d].name));
                st->ndevices = src->ndevices;
            }
        } else if (src->format != st->format) {
            st->format = TP_SRC_KINETO_JSON;
        }
        /* Ascend folders contribute their events (tasks, ops, steps), not
         * their NPU tables: the merged store is not an Ascend store. */
        if (st->format == TP_SRC_ASCEND)
            st->format = TP_SRC_UNKNOWN;
        st->input_bytes += src->input_bytes;
        st->text_bytes += src->text_bytes;
        st->truncated |= src->truncated;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (size_t e = 0; e < src->n; e++) {
            if (src->kind[e] == TP_K_META)
                continue;
            if (src->ts[e] < lo)
                lo = src->ts[e];
            if (src->ts[e] + src->dur[e] > hi)
                hi = src->ts[e] + src->dur[e];
        }
        int64_t shift = (prev_end == INT64_MIN || lo == INT64_MAX) ? 0 : prev_end - lo;
        shifts[k] = shift;
        if (copy_rank(st, src, k, shift) < 0)
            goto oom;
        if (hi != INT64_MIN && hi + shift > prev_end)
            prev_end = hi + shift;
        for (size_t s = 0; s < src->nskips; s++) {
            const struct tp_skip *sk = &src->skips[s];
            size_t q = 0;
            while (q < st->nskips && strcmp(st->skips[q].reason, sk->reason) != 0)
                q++;
            if (q < st->nskips) {
                st->skips[q].count += sk->count;
                st->skips[q].malformed |= sk->malformed;
            } else if (st->nskips < sizeof st->skips / sizeof *st->skips) {
                st->skips[st->nskips++] = *sk;
            }
        }
        k++;
    }
    if (tp_store_link(st, err) != TP_OK) {
        free(shifts);
        tp_store_free(st);
        return err ? (int)err->status : TP_ERR_NOMEM;
    }
    /* The linker keeps one step per run of equal numbers (a step written as
     * both cpu_op and user_annotation); here each rank's own steps are steps
     * of the merged store, so ProfilerStep#5 of rank 0 and of rank 1 stay two. */
    size_t nsteps = 0;
    for (size_t i = 0; i < r->n; i++)
        if (usable(&r->r[i]))
            nsteps += r->r[i].store->nsteps;
    struct tp_step *steps = calloc(nsteps ? nsteps : 1, sizeof *steps);
    free(st->step);
    st->step = malloc((st->n ? st->n : 1) * sizeof *st->step);   /* each rank's steps are its own */
    if (!steps || !st->step) {
        free(steps);
        goto oom;
    }
    size_t row_off = 0, step_off = 0;
    for (size_t i = 0, kk = 0; i < r->n; i++) {
        const struct tp_run_rank *rk = &r->r[i];
        if (!usable(rk))
            continue;
        const tp_store *src = rk->store;
        int64_t shift = shifts[kk++];
        for (size_t s = 0; s < src->nsteps; s++) {
            steps[step_off + s] = src->steps[s];
            steps[step_off + s].ts += shift;
            steps[step_off + s].end += shift;
            steps[step_off + s].name += (int64_t)row_off;
        }
        for (size_t e = 0; e < src->n; e++) {
            int64_t s = tp_store_row_step(src, e);
            st->step[row_off + e] = s >= 0 ? (int32_t)(s + (int64_t)step_off) : -1;
        }
        row_off += src->n;
        step_off += src->nsteps;
    }
    free(st->steps);
    st->steps = steps;
    st->nsteps = nsteps;
    free(shifts);
    *out = st;
    return TP_OK;
oom:
    free(shifts);
    tp_store_free(st);
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
}

int64_t tp_run_name_rank(const struct tp_run_rank *k)
{
    return k && k->worker ? rank_from_name(k->worker) : -1;
}
