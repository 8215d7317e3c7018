/* view_diff.c — `tprof diff A B`: per-name comparison of CPU ops and GPU
 * kernels of two linked stores, the summary totals, and the CI gate.
 * See diff.h for the meaning of every column. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diff.h"
#include "store.h"
#include "table.h"
#include "coldefs.h"
#include "summ.h"
#include "cmp.h"
#include "try.h"

#define TP_COLS_FILE "diff.def"
#define TP_COLS_ARRAY tp_diff_cols
#define TP_COLS_EXTERN
#define TP_COLS_NO_ENUM
#include "coldefs_expand.h"
const char tp_diff_default_columns[] =
    "kind,name,a_calls,b_calls,a_time,b_time,delta,delta_pct,category";

#define TP_COLS_FILE "diff_summary.def"
#define TP_COLS_ARRAY tp_diff_summary_cols
#define TP_COLS_EXTERN
#define TP_COLS_NO_ENUM
#include "coldefs_expand.h"
const char tp_diff_summary_default_columns[] = "metric,a,b,delta,delta_pct";

/* The two tables' columns as view descriptors (no build: two stores make a
 * diff), so the column checks and the help of views serve diff too. */
static const tp_view diff_views[2] = {
    {.name = "diff", .summary = "CPU ops and GPU kernels of two traces compared by name",
     .cols = tp_diff_cols, .ncols = TP_DIFF_NCOLS, .default_columns = tp_diff_default_columns},
    {.name = "diff", .summary = "step, kernel and op totals of two traces (--summary)",
     .cols = tp_diff_summary_cols, .ncols = TP_DIFFSUM_NCOLS, .default_columns = tp_diff_summary_default_columns},
};

const tp_view *tp_diff_view(int summary)
{
    return &diff_views[summary ? 1 : 0];
}

/* --plot: the per-name table as a waterfall of its biggest changes (in its
 * order: by |delta|), the gate's waterfall with each name under its part. */
static const char *const delta_col[] = {"delta"};
static const struct tp_chart name_chart = {.kind = TP_CHART_WATERFALL, .label = "name", .values = delta_col,
                                           .nvalues = 1};
static const struct tp_chart part_chart = {.kind = TP_CHART_WATERFALL, .label = "part", .label2 = "name",
                                           .values = delta_col, .nvalues = 1, .total = "step_time"};

int tp_diff_attach_plot(tp_table *t, tp_error *err)
{
    const struct tp_coldef *c = t ? tp_table_coldefs(t) : NULL;
    if (c && c == tp_diff_cols)
        tp_table_set_chart(t, &name_chart);
    else if (c && c == tp_gate_view(1)->cols)
        tp_table_set_chart(t, &part_chart);
    else
        return tp_error_set(err, TP_ERR_USAGE, "--plot draws the per-name diff and the gate's waterfall only");
    return TP_OK;
}

/* ---- aggregation by (kind, name) ---- */

enum { DK_KERNEL, DK_OP };   /* alphabetical: the tie order of rows */
static const char *const dk_name[] = {"kernel", "op"};

struct agg {
    int kind;
    const char *name;
    size_t len;
    int64_t calls, ns;
};

struct side {
    struct agg *v;
    size_t n;
};

static int cmp_agg(const void *pa, const void *pb)
{
    const struct agg *a = pa, *b = pb;
    if (a->kind != b->kind)
        return a->kind - b->kind;
    size_t m = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->name, b->name, m);
    if (c)
        return c;
    return TP_CMP(a->len, b->len);
}

/* Aggregate one store into sorted (kind, name) entries. */
static int aggregate(const tp_store *st, struct side *out)
{
    size_t ns = st->strings.count;
    out->v = NULL;
    out->n = 0;
    struct { int64_t calls, ns; } *tally = calloc(2 * ns + 1, sizeof *tally);   /* by kind * ns + name */
    if (!tally)
        return -1;
    size_t distinct = 0;
    for (size_t i = 0; i < st->n; i++) {
        int k;
        if (st->kind[i] == TP_K_CPU_OP)
            k = DK_OP;
        else if (st->kind[i] == TP_K_KERNEL)
            k = DK_KERNEL;
        else
            continue;
        size_t slot = (size_t)k * ns + st->name[i];
        if (!tally[slot].calls++)
            distinct++;
        tally[slot].ns += st->dur[i] > 0 ? st->dur[i] : 0;
    }
    out->v = calloc(distinct + 1, sizeof *out->v);
    if (!out->v) {
        free(tally);
        return -1;
    }
    for (size_t slot = 0; slot < 2 * ns; slot++) {
        if (!tally[slot].calls)
            continue;
        uint32_t id = (uint32_t)(slot % ns);
        struct agg *a = &out->v[out->n++];
        a->kind = (int)(slot / ns);
        a->name = tp_strtab_get(&st->strings, id);
        a->len = tp_strtab_len(&st->strings, id);
        a->calls = tally[slot].calls;
        a->ns = tally[slot].ns;
    }
    free(tally);
    qsort(out->v, out->n, sizeof *out->v, cmp_agg);
    return 0;
}

struct drow {
    const struct agg *a, *b;     /* either may be NULL */
    int64_t delta;
};

static int cmp_drow(const void *pa, const void *pb)
{
    const struct drow *x = pa, *y = pb;
    uint64_t dx = x->delta < 0 ? (uint64_t)0 - (uint64_t)x->delta : (uint64_t)x->delta;
    uint64_t dy = y->delta < 0 ? (uint64_t)0 - (uint64_t)y->delta : (uint64_t)y->delta;
    if (dx != dy)
        return dx > dy ? -1 : 1;
    return cmp_agg(x->a ? x->a : x->b, y->a ? y->a : y->b);
}

static void set_pct(tp_table *t, size_t col, double a, double b)
{
    if (a == 0)
        tp_table_set_null(t, col);
    else
        tp_table_set_float(t, col, (b - a) / a * 100.0);
}

/* The table of two sides (sorted by kind, name); frees both sides. */
static int diff_table(struct side sa, struct side sb, tp_table **out, tp_error *err)
{
    struct drow *rows = calloc(sa.n + sb.n + 1, sizeof *rows);
    tp_table *t = tp_table_new(tp_diff_cols, TP_DIFF_NCOLS);
    if (!rows || !t) {
        free(rows);
        tp_table_free(t);
        free(sa.v);
        free(sb.v);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    /* Merge join of the two sorted sides. */
    size_t i = 0, j = 0, n = 0;
    while (i < sa.n || j < sb.n) {
        int c = i == sa.n ? 1 : j == sb.n ? -1 : cmp_agg(&sa.v[i], &sb.v[j]);
        struct drow *r = &rows[n++];
        r->a = c <= 0 ? &sa.v[i++] : NULL;
        r->b = c >= 0 ? &sb.v[j++] : NULL;
        r->delta = (r->b ? r->b->ns : 0) - (r->a ? r->a->ns : 0);
    }
    qsort(rows, n, sizeof *rows, cmp_drow);
    for (size_t k = 0; k < n; k++) {
        const struct drow *r = &rows[k];
        const struct agg *any = r->a ? r->a : r->b;
        int64_t ac = r->a ? r->a->calls : 0, bc = r->b ? r->b->calls : 0;
        int64_t at = r->a ? r->a->ns : 0, bt = r->b ? r->b->ns : 0;
        const char *cat = !r->a ? "added" : !r->b ? "deleted"
                        : bc > ac ? "increased" : bc < ac ? "decreased" : "unchanged";
        tp_table_add_row(t);
        tp_table_set_str(t, TP_DIFF_KIND, dk_name[any->kind]);
        tp_table_set_strn(t, TP_DIFF_NAME, any->name, any->len);
        tp_table_set_int(t, TP_DIFF_A_CALLS, ac);
        tp_table_set_int(t, TP_DIFF_B_CALLS, bc);
        tp_table_set_int(t, TP_DIFF_A_TIME, at);
        tp_table_set_int(t, TP_DIFF_B_TIME, bt);
        tp_table_set_int(t, TP_DIFF_DELTA, r->delta);
        set_pct(t, TP_DIFF_DELTA_PCT, (double)at, (double)bt);
        tp_table_set_str(t, TP_DIFF_CATEGORY, cat);
    }
    free(rows);
    free(sa.v);
    free(sb.v);
    if (tp_table_nomem(t)) {
        tp_table_free(t);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    *out = t;
    return TP_OK;
}

int tp_diff_build(const tp_store *a, const tp_store *b, tp_table **out, tp_error *err)
{
    if (out)
        *out = NULL;
    if (!a || !b || !out)
        return tp_error_set(err, TP_ERR_USAGE, "tp_diff_build: %s", !out ? "nowhere to put the table" : "no store");
    if (!a->linked || !b->linked)
        return tp_error_set(err, TP_ERR_USAGE, "%s: tp_diff_build before tp_store_link", (!a->linked ? a : b)->path);
    struct side sa, sb;
    TP_TRY_NOMEM(aggregate(a, &sa) >= 0, err);
    if (aggregate(b, &sb) < 0) {
        free(sa.v);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    return diff_table(sa, sb, out, err);
}

/* ---- summary ---- */

static int is_step_row(const tp_store *st, size_t i)
{
    return strncmp(tp_store_str(st, st->name[i]), "ProfilerStep#", 13) == 0;
}

static void totals(const tp_store *st, int *has_steps, double *step_ns, int64_t *kernel_ns,
                   int64_t *op_ns)
{
    *has_steps = st->nsteps > 0;
    *step_ns = 0;
    if (st->nsteps) {
        int64_t sum = 0;
        for (size_t k = 0; k < st->nsteps; k++)
            sum += st->steps[k].end - st->steps[k].ts;
        *step_ns = (double)sum / (double)st->nsteps;
    }
    *kernel_ns = 0;
    *op_ns = 0;
    for (size_t i = 0; i < st->n; i++) {
        if (st->kind[i] == TP_K_KERNEL) {
            *kernel_ns += st->dur[i] > 0 ? st->dur[i] : 0;
        } else if (st->kind[i] == TP_K_CPU_OP && st->dur[i] > 0 && !is_step_row(st, i)) {
            /* Top-level only: no enclosing CPU op other than a ProfilerStep. */
            int nested = 0;
            if (st->parent)
                for (int64_t p = st->parent[i]; p >= 0 && !nested; p = st->parent[p])
                    if (st->kind[p] == TP_K_CPU_OP && !is_step_row(st, (size_t)p))
                        nested = 1;
            if (!nested)
                *op_ns += st->dur[i];
        }
    }
}

int tp_diff_summarize(const tp_store *a, const tp_store *b, struct tp_diff_summary *s)
{
    if (!s)
        return TP_ERR_USAGE;
    memset(s, 0, sizeof *s);
    if (!a || !b || !a->linked || !b->linked)
        return TP_ERR_USAGE;
    totals(a, &s->a_has_steps, &s->a_step_ns, &s->a_kernel_ns, &s->a_op_ns);
    totals(b, &s->b_has_steps, &s->b_step_ns, &s->b_kernel_ns, &s->b_op_ns);
    return TP_OK;
}

static void sum_row_i(tp_table *t, const char *metric, int64_t a, int64_t b)
{
    tp_table_add_row(t);
    tp_table_set_str(t, TP_DIFFSUM_METRIC, metric);
    tp_table_set_int(t, TP_DIFFSUM_A, a);
    tp_table_set_int(t, TP_DIFFSUM_B, b);
    tp_table_set_int(t, TP_DIFFSUM_DELTA, b - a);
    set_pct(t, TP_DIFFSUM_DELTA_PCT, (double)a, (double)b);
}

int tp_diff_summary_table(const struct tp_diff_summary *s, tp_table **out, tp_error *err)
{
    if (out)
        *out = NULL;
    if (!s || !out)
        return tp_error_set(err, TP_ERR_USAGE, "tp_diff_summary_table: %s", !s ? "no summary" : "nowhere to put the table");
    tp_table *t = tp_table_new(tp_diff_summary_cols, TP_DIFFSUM_NCOLS);
    TP_TRY_NOMEM(t, err);
    tp_table_add_row(t);
    tp_table_set_str(t, TP_DIFFSUM_METRIC, "avg_step_time");
    if (s->a_has_steps)
        tp_table_set_float(t, TP_DIFFSUM_A, s->a_step_ns);
    if (s->b_has_steps)
        tp_table_set_float(t, TP_DIFFSUM_B, s->b_step_ns);
    if (s->a_has_steps && s->b_has_steps) {
        tp_table_set_float(t, TP_DIFFSUM_DELTA, s->b_step_ns - s->a_step_ns);
        set_pct(t, TP_DIFFSUM_DELTA_PCT, s->a_step_ns, s->b_step_ns);
    }
    sum_row_i(t, "total_kernel_time", s->a_kernel_ns, s->b_kernel_ns);
    sum_row_i(t, "total_op_time", s->a_op_ns, s->b_op_ns);
    if (tp_table_nomem(t)) {
        tp_table_free(t);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    *out = t;
    return TP_OK;
}

/* ---- the CI gate ---- */

int tp_diff_parse_gate(const char *s, struct tp_diff_gate *g, tp_error *err)
{
    if (!g)
        return tp_error_set(err, TP_ERR_USAGE, "tp_diff_parse_gate: nowhere to put the gate");
    memset(g, 0, sizeof *g);
    char *end;
    double v = s && *s ? strtod(s, &end) : NAN;
    double scale = 0;
    if (!isnan(v) && end != s) {
        if (strcmp(end, "%") == 0)
            g->percent = 1, scale = 1;
        else if (strcmp(end, "us") == 0)
            scale = 1e3;
        else if (strcmp(end, "ms") == 0)
            scale = 1e6;
    }
    if (scale == 0 || !isfinite(v) || v < 0)
        return tp_error_set(err, TP_ERR_USAGE,
                            "--fail-above: '%s' is not a threshold (use e.g. 5%%, 250us, 2ms)",
                            s ? s : "");
    g->limit = v * scale;
    snprintf(g->text, sizeof g->text, "%s", s);
    return TP_OK;
}

/* One quantity against the gate: 1 when it grew past it; msg as below. */
static int check_one(const char *what, double a, double b, const struct tp_diff_gate *g, char *msg, size_t cap)
{
    double grow = b - a;
    int fail;
    char pct[48];
    if (a > 0) {
        double p = grow / a * 100.0;
        snprintf(pct, sizeof pct, "%+.1f%%", p);
        fail = g->percent ? p > g->limit : grow > g->limit;
    } else {
        snprintf(pct, sizeof pct, "%s", grow > 0 ? "new" : "+0.0%");
        fail = g->percent ? grow > 0 : grow > g->limit;
    }
    if (msg && cap)
        snprintf(msg, cap, "%s %.1f us -> %.1f us (%s)%s%s", what, a / 1e3, b / 1e3, pct,
                 fail ? " exceeds " : " within ", g->text);
    return fail;
}

int tp_diff_check(const struct tp_diff_summary *s, const struct tp_diff_gate *g, char *msg,
                  size_t cap)
{
    if (msg && cap)
        *msg = 0;
    if (!s || !g || !msg)
        return 0;
    int steps = s->a_has_steps && s->b_has_steps;
    return steps ? check_one("avg step time", s->a_step_ns, s->b_step_ns, g, msg, cap)
                 : check_one("total kernel time", (double)s->a_kernel_ns, (double)s->b_kernel_ns, g, msg, cap);
}

/* XML text: the five characters XML reserves, and control bytes as '?'. */
void tp_xml_text(FILE *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '&') fputs("&amp;", out);
        else if (c == '<') fputs("&lt;", out);
        else if (c == '>') fputs("&gt;", out);
        else if (c == '"') fputs("&quot;", out);
        else if (c == '\'') fputs("&apos;", out);
        else if (c < 0x20 && c != '\t' && c != '\n') fputc('?', out);
        else fputc(c, out);
    }
}

int tp_diff_junit(const struct tp_diff_summary *s, const struct tp_diff_gate *g, const char *a_name,
                  const char *b_name, FILE *out)
{
    struct quantity { const char *name, *what; double a, b; int gated; } q[3];
    size_t n = 0;
    if (!s || !g || !out || !a_name || !b_name)
        return -1;
    int steps = s->a_has_steps && s->b_has_steps;
    if (steps)
        q[n++] = (struct quantity){"avg_step_time", "avg step time", s->a_step_ns, s->b_step_ns, 1};
    q[n++] = (struct quantity){"total_kernel_time", "total kernel time", (double)s->a_kernel_ns,
                            (double)s->b_kernel_ns, !steps};
    q[n++] = (struct quantity){"total_op_time", "total op time", (double)s->a_op_ns, (double)s->b_op_ns, 0};
    char msg[256];
    int failures = 0, fail[3];
    /* Only the gated quantity can fail, as only it decides the exit status;
     * the others carry their numbers for the dashboard. */
    for (size_t i = 0; i < n; i++)
        failures += fail[i] = check_one(q[i].what, q[i].a, q[i].b, g, msg, sizeof msg) && q[i].gated;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(out, "<testsuites>\n<testsuite name=\"tprof diff\" tests=\"%zu\" failures=\"%d\">\n", n, failures);
    fputs("<properties><property name=\"base\" value=\"", out);
    tp_xml_text(out, a_name);
    fputs("\"/><property name=\"new\" value=\"", out);
    tp_xml_text(out, b_name);
    fputs("\"/><property name=\"threshold\" value=\"", out);
    tp_xml_text(out, g->text);
    fputs("\"/></properties>\n", out);
    for (size_t i = 0; i < n; i++) {
        check_one(q[i].what, q[i].a, q[i].b, g, msg, sizeof msg);
        fprintf(out, "<testcase classname=\"tprof.diff\" name=\"%s%s\" time=\"%.6f\">", q[i].name,
                q[i].gated ? "" : " (reported, not gated)", q[i].b / 1e9);
        if (fail[i]) {
            fputs("<failure message=\"", out);
            tp_xml_text(out, msg);
            fputs("\" type=\"regression\"/>", out);
        }
        fputs("<system-out>", out);
        tp_xml_text(out, msg);
        fputs("</system-out></testcase>\n", out);
    }
    fputs("</testsuite>\n</testsuites>\n", out);
    return ferror(out) ? -1 : 0;
}

/* ---- from summaries (summ.h): the comparison of two summary sets, so a
 * CI gate needs no trace.  The section keeps what the store's table and
 * totals read: calls and summed duration per (kind, name), and the step
 * count, step time, kernel time and top-level op time, all sums. ---- */

enum { DS_NSTEPS, DS_STEP_NS, DS_KERNEL_NS, DS_OP_NS };

static int diff_summarize(const tp_store *st, struct tp_section *sec, tp_error *err)
{
    struct side sd;
    TP_TRY_NOMEM(aggregate(st, &sd) >= 0, err);
    for (size_t i = 0; i < sd.n; i++) {
        const char *key[] = {dk_name[sd.v[i].kind], sd.v[i].name};
        struct tp_sgroup *g = tp_summ_group(sec, key);
        if (!g) {
            free(sd.v);
            return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        }
        g->n = sd.v[i].calls;
        g->sum = sd.v[i].ns;
    }
    free(sd.v);
    int has_steps;
    double step_ns;
    totals(st, &has_steps, &step_ns, &sec->scal[DS_KERNEL_NS], &sec->scal[DS_OP_NS]);
    sec->scal[DS_NSTEPS] = (int64_t)st->nsteps;
    for (size_t k = 0; k < st->nsteps; k++)
        sec->scal[DS_STEP_NS] += st->steps[k].end - st->steps[k].ts;
    return TP_OK;
}

static int diff_reads(const struct tp_view_opts *vo, const char *variant)
{
    (void)vo, (void)variant;
    return 0;   /* read by tp_diff_*_summaries, not by a view */
}

static const struct tp_summ_desc diff_desc = {
    .view = "diff", .variant = "names", .nkeys = 2, .nscal = 4,
    .keys = {"kind", "name"}, .scals = {"steps", "step_ns", "kernel_ns", "top_op_ns"},
};
const struct tp_summ_view tp_summ_diff = {&diff_desc, "diff", diff_reads, diff_summarize, NULL, NULL};

static int side_of(const tp_summary *s, struct side *out, tp_error *err)
{
    const struct tp_section *sec = tp_summ_find(s, "diff", "names");
    out->v = NULL;
    out->n = 0;
    if (!sec)
        return tp_error_set(err, TP_ERR_FORMAT, "%s: the summary holds no diff table", s->path);
    out->v = calloc(sec->ng + 1, sizeof *out->v);
    TP_TRY_NOMEM(out->v, err);
    for (size_t i = 0; i < sec->ng; i++) {
        const struct tp_sgroup *g = &sec->g[i];
        struct agg *a = &out->v[out->n++];
        a->kind = strcmp(g->key[0], "op") == 0 ? DK_OP : DK_KERNEL;
        a->name = g->key[1];
        a->len = strlen(g->key[1]);
        a->calls = g->n;
        a->ns = g->sum;
    }
    qsort(out->v, out->n, sizeof *out->v, cmp_agg);
    return TP_OK;
}

int tp_diff_build_summaries(const tp_summary *a, const tp_summary *b, tp_table **out, tp_error *err)
{
    if (out)
        *out = NULL;
    if (!a || !b || !out)
        return tp_error_set(err, TP_ERR_USAGE, "tp_diff_build_summaries: %s", !out ? "nowhere to put the table" : "no summary");
    struct side sa, sb;
    int rc = side_of(a, &sa, err);
    if (rc != TP_OK)
        return rc;
    if ((rc = side_of(b, &sb, err)) != TP_OK) {
        free(sa.v);
        return rc;
    }
    return diff_table(sa, sb, out, err);
}

static void sum_totals(const tp_summary *x, int *has_steps, double *step_ns, int64_t *kernel_ns, int64_t *op_ns)
{
    const struct tp_section *sec = tp_summ_find(x, "diff", "names");
    const int64_t *v = sec ? sec->scal : (const int64_t[TP_SUMM_SCAL]){0};
    *has_steps = v[DS_NSTEPS] > 0;
    *step_ns = v[DS_NSTEPS] ? (double)v[DS_STEP_NS] / (double)v[DS_NSTEPS] : 0;
    *kernel_ns = v[DS_KERNEL_NS];
    *op_ns = v[DS_OP_NS];
}

int tp_diff_summarize_summaries(const tp_summary *a, const tp_summary *b, struct tp_diff_summary *s)
{
    if (!s)
        return TP_ERR_USAGE;
    memset(s, 0, sizeof *s);
    if (!a || !b || !tp_summ_find(a, "diff", "names") || !tp_summ_find(b, "diff", "names"))
        return TP_ERR_USAGE;
    sum_totals(a, &s->a_has_steps, &s->a_step_ns, &s->a_kernel_ns, &s->a_op_ns);
    sum_totals(b, &s->b_has_steps, &s->b_step_ns, &s->b_kernel_ns, &s->b_op_ns);
    return TP_OK;
}
