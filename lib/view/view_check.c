/* view_check.c — `tprof check FILE|DIR`: can these numbers be trusted?
 *
 * One row per finding, each with a severity: info (worth knowing, the
 * numbers hold), warning (some numbers are off; the detail says which and
 * why) or error (the trace cannot be trusted: it is cut short or holds
 * malformed events).  The families of findings live in check_*.c; this file
 * holds the input checks (truncation, skipped events), the steps without
 * GPU work, and the table.  A run directory is checked as a whole
 * (tp_check_build_run): every rank's findings, then the ones between ranks
 * (clocks).
 * The CLI exits with the worst severity (view.severity, tp_check_severity). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "grow.h"
#include "table.h"
#include "coldefs.h"
#include "views.h"

#define TP_COLS_FILE "view_check.def"
#define TP_COLS_ARRAY tp_check_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

static const char *const sev_names[] = {"info", "warning", "error"};

/* ---- helpers shared by check_*.c ---- */

struct tp_finding *tp_finding_add(struct tp_findings *f, const tp_store *st, enum tp_severity sev,
                                  const char *key, uint64_t count, int64_t row)
{
    if (tp_grow((void **)&f->v, &f->cap, f->n + 1, sizeof *f->v) < 0) {
        f->oom = 1;
        return NULL;
    }
    struct tp_finding *x = &f->v[f->n++];
    memset(x, 0, sizeof *x);
    x->severity = sev;
    x->key = key;
    x->rank = st ? st->rank : TP_NONE;
    x->count = count;
    x->first_ts = row >= 0 ? st->ts[row] : TP_NONE;
    x->first_event = row >= 0 ? tp_store_str(st, st->name[row]) : NULL;
    x->first_byte = TP_NONE;
    return x;
}

void tp_finding_detail(struct tp_finding *x, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->detail, sizeof x->detail, fmt, ap);
    va_end(ap);
}

int64_t tp_check_kernel_ns(const tp_store *st)
{
    int64_t sum = 0;
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_KERNEL)
            sum += st->dur[i];
    return sum;
}

/* ---- the input ---- */

static void check_input(const tp_store *st, struct tp_findings *f)
{
    if (st->truncated) {
        struct tp_finding *x = tp_finding_add(f, st, TP_SEV_ERROR, "truncated", 1, -1);
        if (x)
            tp_finding_detail(x, "the input ends early (a profiler still writing, a cut copy): the %zu events "
                              "before the cut are kept; whatever came after is missing from every table",
                              tp_store_event_count(st));
    }
    for (size_t i = 0; i < st->nskips; i++) {
        const struct tp_skip *s = &st->skips[i];
        struct tp_finding *x = tp_finding_add(f, st, s->malformed ? TP_SEV_ERROR : TP_SEV_INFO,
                                              s->malformed ? "malformed" : "skipped", s->count, -1);
        if (!x)
            return;
        x->first_byte = (int64_t)s->first_offset;
        tp_finding_detail(x, "%s%s", s->reason,
                          s->malformed ? ": left out of every table (bad input)" : ": not used by any view");
    }
}

/* ---- steps ---- */

/* ProfilerStep ranges that launched no GPU work although the trace has
 * some: their time is all host time (a data-loader stall, a step outside
 * the GPU profiling window, kernels lost). */
static void check_steps(const tp_store *st, struct tp_findings *f)
{
    if (!st->nsteps)
        return;
    unsigned char *busy = calloc(st->nsteps, 1);
    if (!busy) {
        f->oom = 1;
        return;
    }
    size_t ndev = 0;
    for (size_t i = 0; i < st->n; i++)
        if (tp_check_is_device(st, i)) {
            ndev++;
            int64_t s = tp_store_row_step(st, i);
            if (s >= 0 && (size_t)s < st->nsteps)
                busy[s] = 1;
        }
    size_t idle = 0, first = 0;
    char list[200] = "";
    size_t len = 0;
    for (size_t s = 0; s < st->nsteps; s++)
        if (!busy[s]) {
            if (!idle++)
                first = s;
            if (len < sizeof list - 24)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s#%lld", len ? " " : "",
                                        (long long)st->steps[s].number);
        }
    if (ndev && idle) {
        struct tp_finding *x = tp_finding_add(f, st, TP_SEV_WARNING, "step_without_gpu", idle,
                                              st->steps[first].name);
        if (x)
            tp_finding_detail(x, "%zu of %zu ProfilerSteps launched no kernel, memcpy or memset (%s%s): their "
                              "time is host time only; step averages include them", idle, st->nsteps, list,
                              len >= sizeof list - 24 ? " ..." : "");
    }
    free(busy);
}

/* ---- the table ---- */

static int check_store(const tp_store *st, int in_run, struct tp_findings *f)
{
    check_input(st, f);
    size_t ndev = 0;
    for (size_t i = 0; i < st->n; i++)
        ndev += tp_check_is_device(st, i);
    if (!ndev && st->format != TP_SRC_ASCEND) {
        struct tp_finding *x = tp_finding_add(f, st, TP_SEV_INFO, "no_gpu_activity", 0, -1);
        if (x)
            tp_finding_detail(x, "no kernel, memcpy or memset: a CPU-only trace (or the GPU was not "
                              "profiled); the GPU findings do not apply");
    }
    int rc = tp_check_streams(st, f);
    if (rc == TP_OK)
        rc = tp_check_launches(st, f);
    if (rc == TP_OK)
        rc = tp_check_attribution(st, f);
    if (rc == TP_OK)
        check_steps(st, f);
    if (rc == TP_OK)
        rc = tp_check_distributed(st, in_run, f);
    return f->oom ? TP_ERR_NOMEM : rc;
}

static int to_table(struct tp_findings *f, tp_table **out, tp_error *err)
{
    if (f->oom) {
        free(f->v);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    tp_table *t = tp_table_new(tp_check_cols, C_N);
    if (!t) {
        free(f->v);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < f->n; i++) {
        const struct tp_finding *x = &f->v[i];
        if (tp_table_add_row(t) < 0)
            break;
        if (x->rank != TP_NONE)
            tp_table_set_int(t, C_RANK, x->rank);
        tp_table_set_str(t, C_SEV, sev_names[x->severity]);
        tp_table_set_str(t, C_FINDING, x->key);
        tp_table_set_int(t, C_COUNT, (int64_t)x->count);
        if (x->first_ts != TP_NONE)
            tp_table_set_int(t, C_TS, x->first_ts);
        if (x->first_byte != TP_NONE)
            tp_table_set_int(t, C_BYTE, x->first_byte);
        if (x->first_event)
            tp_table_set_str(t, C_EVENT, x->first_event);
        tp_table_set_str(t, C_DETAIL, x->detail);
    }
    free(f->v);
    if (tp_table_nomem(t)) {
        tp_table_free(t);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    *out = t;
    return TP_OK;
}

/* When nothing at all was found, one info row says so (an empty table
 * would read as "the check did not run"). */
static void say_clean(const tp_store *st, struct tp_findings *f)
{
    if (f->n)
        return;
    struct tp_finding *x = tp_finding_add(f, st, TP_SEV_INFO, "clean", 0, -1);
    if (x)
        tp_finding_detail(x, "no finding");
}

int tp_check_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    (void)vo;
    struct tp_findings f = {0};
    int rc = check_store(st, 0, &f);
    if (rc != TP_OK) {
        free(f.v);
        return tp_error_set(err, rc, "%s: out of memory", st->path);
    }
    say_clean(st, &f);
    return to_table(&f, out, err);
}

int tp_check_build_run(const tp_store *const *stores, size_t n, const struct tp_view_opts *vo, tp_table **out,
                     tp_error *err)
{
    (void)vo;
    struct tp_findings f = {0};
    int rc = TP_OK;
    for (size_t i = 0; i < n && rc == TP_OK; i++)
        rc = check_store(stores[i], 1, &f);
    if (rc == TP_OK)
        rc = tp_check_clocks(stores, n, &f);
    if (rc != TP_OK || f.oom) {
        free(f.v);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    say_clean(NULL, &f);
    return to_table(&f, out, err);
}

enum tp_severity tp_check_severity(const tp_table *t)
{
    enum tp_severity w = TP_SEV_INFO;
    for (size_t r = 0; r < tp_table_rows(t); r++) {
        const char *s = tp_table_cell_str(t, r, C_SEV);
        for (int k = 0; s && k < 3; k++)
            if (strcmp(s, sev_names[k]) == 0 && (enum tp_severity)k > w)
                w = (enum tp_severity)k;
    }
    return w;
}
