/* diff_gate.c — the statistical regression gate of `tprof diff
 * --confidence P`: per-step time and its parts compared with a bootstrap
 * interval, and the waterfall that splits the step-time change.
 *
 * Why a stratified bootstrap over pieces, not a rank-sum test on step
 * times: a PyTorch profile holds 1 to 10 steps per rank, and a two-sample
 * rank-sum test on 3 + 3 steps cannot reach p < 0.05 (its smallest two-sided
 * p is 0.1), so a gate built on it would never fire.  The timing noise of a
 * run is in its events: each kernel, copy, operator and idle gap is a sample
 * of its name.  step_parts.c cuts every step into pieces owned by events;
 * here each side's pieces are grouped by (part, name) -- the strata -- and
 * every bootstrap replicate redraws each stratum's pieces with replacement,
 * as many as it has.  What the program does (which kernels run, how many
 * times) stays fixed; how long each took is resampled.  A name present on
 * one side only is a change of the program, not noise: it redraws the same
 * on every replicate of its side.  Strata of more than 64 pieces draw their
 * sum from its normal approximation (the central limit theorem; exact to
 * the mean and variance) so that a 1 GB trace costs what a small one does.
 * The replicates use a fixed seed: the same inputs print the same bytes.
 *
 * A quantity fails the gate when its change exceeds --fail-above and the
 * lower end of its interval is above zero (the growth is significant at P).
 * The interval is of the change in time per step, shown also as a share of
 * A's observed value. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "diff.h"
#include "step_parts.h"
#include "store.h"
#include "table.h"
#include "coldefs.h"
#include "try.h"

enum { GQ_STEP = TP_NPARTS, GQ_N };   /* quantities: the parts, then the step time */

static const char *quantity_name(int q)
{
    return q == GQ_STEP ? "step_time" : tp_part_name(q);
}

enum verdict { V_OK, V_REGRESSED, V_NOISE, V_IMPROVED };
static const char *const verdict_names[] = {"ok", "regressed", "within noise", "improved"};

struct stratum {
    int part;
    const char *name;
    const struct tp_piece *a, *b;    /* the pieces of each side */
    size_t na, nb;
    int64_t sum_a, sum_b;
    double mean_a, sd_a, mean_b, sd_b;
};

struct tp_gate {
    struct tp_step_parts pa, pb;
    struct tp_diff_gate limit;
    double confidence;
    int iterations;
    size_t top;
    struct stratum *st;
    size_t nst;
    double a[GQ_N], b[GQ_N];          /* observed time per step, ns */
    double lo[GQ_N], hi[GQ_N];        /* the interval of b - a, ns per step */
    enum verdict v[GQ_N];
};

/* ---- columns ---- */

/* Both tables compare a time per step of A and B (diff_gate.def, diff_waterfall.def). */
#define PER_STEP_A TP_COLDEF_A("time per step in A, microseconds")
#define PER_STEP_B TP_COLDEF_B("time per step in B, microseconds")
#define PER_STEP_DELTA TP_COLDEF_DELTA("b - a, microseconds per step")

#define TP_COLS_FILE "diff_gate.def"
#define TP_COLS_ARRAY gate_cols
#include "coldefs_expand.h"

#define TP_COLS_FILE "diff_waterfall.def"
#define TP_COLS_ARRAY waterfall_cols
#include "coldefs_expand.h"

static const tp_view gate_views[2] = {
    {.name = "diff", .summary = "the regression gate: step time and its parts with bootstrap intervals",
     .cols = gate_cols, .ncols = GC_N,
     .default_columns = "quantity,a,b,delta,delta_pct,ci_low_pct,ci_high_pct,verdict"},
    {.name = "diff", .summary = "the step-time change split into parts and the names that moved most",
     .cols = waterfall_cols, .ncols = WC_N, .default_columns = "part,name,a,b,delta,cumulative,share"},
};

const tp_view *tp_gate_view(int waterfall)
{
    return &gate_views[waterfall ? 1 : 0];
}

const char *tp_gate_default_columns(const struct tp_diff_gate *g)
{
    if (g && !g->percent)
        return "quantity,a,b,delta,delta_pct,ci_low,ci_high,verdict";
    return gate_views[0].default_columns;
}

int tp_gate_parse_confidence(const char *s, double *p, tp_error *err)
{
    char *end;
    double v = s && *s ? strtod(s, &end) : NAN;
    if (!isnan(v) && end != s && strcmp(end, "%") == 0)
        v /= 100.0;
    else if (isnan(v) || end == s || *end)
        v = NAN;
    if (!(v > 0 && v < 1))
        return tp_error_set(err, TP_ERR_USAGE,
                            "--confidence: '%s' is not a level between 0 and 1 (e.g. 0.95 or 95%%)",
                            s ? s : "");
    *p = v;
    return TP_OK;
}

/* ---- strata ---- */

static int cmp_piece(const void *pa, const void *pb)
{
    const struct tp_piece *a = pa, *b = pb;
    if (a->part != b->part)
        return a->part - b->part;
    int c = strcmp(a->name, b->name);
    if (c)
        return c;
    return (a->shape > b->shape) - (a->shape < b->shape);
}

static void moments(const struct tp_piece *v, size_t n, int64_t *sum, double *mean, double *sd)
{
    int64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += v[i].ns;
    double m = n ? (double)s / (double)n : 0, q = 0;
    for (size_t i = 0; i < n; i++)
        q += ((double)v[i].ns - m) * ((double)v[i].ns - m);
    *sum = s, *mean = m, *sd = n ? sqrt(q / (double)n) : 0;
}

/* Join the sorted pieces of both sides into strata (part, name). */
static int build_strata(tp_gate *gt)
{
    struct tp_step_parts *pa = &gt->pa, *pb = &gt->pb;
    if (pa->n > 0)
        qsort(pa->v, pa->n, sizeof *pa->v, cmp_piece);
    if (pb->n > 0)
        qsort(pb->v, pb->n, sizeof *pb->v, cmp_piece);
    size_t cap = 64;
    gt->st = malloc(cap * sizeof *gt->st);
    if (!gt->st)
        return -1;
    size_t i = 0, j = 0;
    while (i < pa->n || j < pb->n) {
        int c = i == pa->n ? 1 : j == pb->n ? -1 : cmp_piece(&pa->v[i], &pb->v[j]);
        const struct tp_piece *key = c <= 0 ? &pa->v[i] : &pb->v[j];
        struct stratum s = {.part = key->part, .name = key->name};
        if (c <= 0) {
            s.a = &pa->v[i];
            while (i < pa->n && cmp_piece(&pa->v[i], key) == 0)
                i++, s.na++;
        }
        if (c >= 0) {
            s.b = &pb->v[j];
            while (j < pb->n && cmp_piece(&pb->v[j], key) == 0)
                j++, s.nb++;
        }
        moments(s.a, s.na, &s.sum_a, &s.mean_a, &s.sd_a);
        moments(s.b, s.nb, &s.sum_b, &s.mean_b, &s.sd_b);
        if (gt->nst == cap) {
            struct stratum *v = realloc(gt->st, 2 * cap * sizeof *v);
            if (!v)
                return -1;
            gt->st = v, cap *= 2;
        }
        gt->st[gt->nst++] = s;
    }
    return 0;
}

/* ---- the bootstrap ---- */

/* splitmix64: small, fast, and good enough for resampling indexes */
static uint64_t next_u64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double uniform01(uint64_t *x)
{
    return ((double)(next_u64(x) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* One replicate of the sum of n pieces drawn with replacement. */
static double resample_sum(const struct tp_piece *v, size_t n, double mean, double sd, uint64_t *rng)
{
    if (n == 0)
        return 0;
    if (sd == 0)
        return mean * (double)n;
    if (n > 64) {   /* Box-Muller: one normal deviate */
        double z = sqrt(-2.0 * log(uniform01(rng))) * cos(6.283185307179586 * uniform01(rng));
        double s = mean * (double)n + sd * sqrt((double)n) * z;
        return s > 0 ? s : 0;
    }
    double s = 0;
    for (size_t k = 0; k < n; k++)
        s += (double)v[(size_t)(((unsigned __int128)next_u64(rng) * n) >> 64)].ns;
    return s;
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* The q-quantile of sorted v[0..n) (linear interpolation, numpy's default). */
static double quantile(const double *v, size_t n, double q)
{
    double h = (double)(n - 1) * q;
    size_t i = (size_t)h;
    return i + 1 < n ? v[i] + (h - (double)i) * (v[i + 1] - v[i]) : v[n - 1];
}

static int bootstrap(tp_gate *gt, uint64_t seed)
{
    size_t it = (size_t)gt->iterations;
    double *d = malloc(GQ_N * it * sizeof *d);
    if (!d)
        return -1;
    uint64_t rng = seed;
    double sa = (double)gt->pa.nsteps, sb = (double)gt->pb.nsteps;
    for (size_t r = 0; r < it; r++) {
        double qa[GQ_N] = {0}, qb[GQ_N] = {0};
        for (size_t k = 0; k < gt->nst; k++) {
            const struct stratum *s = &gt->st[k];
            qa[s->part] += resample_sum(s->a, s->na, s->mean_a, s->sd_a, &rng);
            qb[s->part] += resample_sum(s->b, s->nb, s->mean_b, s->sd_b, &rng);
        }
        for (int q = 0; q < TP_NPARTS; q++) {
            qa[q] /= sa, qb[q] /= sb;
            qa[GQ_STEP] += qa[q], qb[GQ_STEP] += qb[q];
        }
        for (int q = 0; q < GQ_N; q++)
            d[(size_t)q * it + r] = qb[q] - qa[q];
    }
    double tail = (1.0 - gt->confidence) / 2.0;
    for (int q = 0; q < GQ_N; q++) {
        double *v = d + (size_t)q * it;
        qsort(v, it, sizeof *v, cmp_double);
        gt->lo[q] = quantile(v, it, tail);
        gt->hi[q] = quantile(v, it, 1.0 - tail);
    }
    free(d);
    return 0;
}

static enum verdict judge(const tp_gate *gt, int q)
{
    double a = gt->a[q], delta = gt->b[q] - gt->a[q];
    double over, under;   /* how far past the limit the growth / the shrinking is */
    if (gt->limit.percent) {
        if (a > 0)
            over = delta / a * 100.0 - gt->limit.limit, under = -delta / a * 100.0 - gt->limit.limit;
        else
            over = delta > 0 ? 1 : -1, under = -1;   /* from nothing: growth past any share */
    } else {
        over = delta - gt->limit.limit, under = -delta - gt->limit.limit;
    }
    if (over > 0)
        return gt->lo[q] > 0 ? V_REGRESSED : V_NOISE;
    if (under > 0 && gt->hi[q] < 0)
        return V_IMPROVED;
    return V_OK;
}

int tp_gate_compare(const tp_store *a, const tp_store *b, const struct tp_diff_gate *g,
                    const struct tp_gate_opts *o, tp_gate **out, tp_error *err)
{
    if (out)
        *out = NULL;
    if (!a || !b || !g || !o || !out)
        return tp_error_set(err, TP_ERR_USAGE, "tp_gate_compare: missing argument");
    if (!(o->confidence > 0 && o->confidence < 1))
        return tp_error_set(err, TP_ERR_USAGE, "tp_gate_compare: confidence must be between 0 and 1");
    tp_gate *gt = calloc(1, sizeof *gt);
    TP_TRY_NOMEM(gt, err);
    gt->limit = *g;
    gt->confidence = o->confidence;
    gt->iterations = o->iterations > 0 ? o->iterations : 2000;
    gt->top = o->top ? o->top : 3;
    int rc = tp_step_parts_build(a, &gt->pa, err);
    if (rc == TP_OK)
        rc = tp_step_parts_build(b, &gt->pb, err);
    if (rc == TP_OK && (gt->pa.nsteps == 0 || gt->pb.nsteps == 0))
        rc = tp_error_set(err, TP_ERR_FORMAT, "%s has no CPU or GPU event to measure",
                          gt->pa.nsteps == 0 ? a->path : b->path);
    if (rc == TP_OK && (build_strata(gt) < 0 || bootstrap(gt, o->seed ? o->seed : 0x7470726f66ull) < 0))
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory in the bootstrap");
    if (rc != TP_OK) {
        tp_gate_free(gt);
        return rc;
    }
    for (int q = 0; q < TP_NPARTS; q++) {
        gt->a[q] = (double)gt->pa.part_ns[q] / (double)gt->pa.nsteps;
        gt->b[q] = (double)gt->pb.part_ns[q] / (double)gt->pb.nsteps;
    }
    gt->a[GQ_STEP] = (double)gt->pa.total_ns / (double)gt->pa.nsteps;
    gt->b[GQ_STEP] = (double)gt->pb.total_ns / (double)gt->pb.nsteps;
    for (int q = 0; q < GQ_N; q++)
        gt->v[q] = judge(gt, q);
    *out = gt;
    return TP_OK;
}

void tp_gate_free(tp_gate *gt)
{
    if (!gt)
        return;
    tp_step_parts_free(&gt->pa);
    tp_step_parts_free(&gt->pb);
    free(gt->st);
    free(gt);
}

/* ---- tables ---- */

/* 100 * num / den, NULL when den is 0 (the gate's A values are never
 * negative; a waterfall's step delta may be). */
static void set_pct(tp_table *t, size_t col, double num, double den)
{
    if (den != 0)
        tp_table_set_float(t, col, num / den * 100.0);
    else
        tp_table_set_null(t, col);
}

/* Rows in the order a reader wants them: the step time first, then the
 * parts in their priority order. */
int tp_gate_table(const tp_gate *gt, tp_table **out, tp_error *err)
{
    if (!gt || !out)
        return tp_error_set(err, TP_ERR_USAGE, "tp_gate_table: missing argument");
    tp_table *t = tp_table_new(gate_cols, GC_N);
    TP_TRY_NOMEM(t, err);
    for (int k = 0; k < GQ_N; k++) {
        int q = k == 0 ? GQ_STEP : k - 1;
        if (tp_table_add_row(t) < 0)
            break;
        tp_table_set_str(t, GC_QUANTITY, quantity_name(q));
        tp_table_set_float(t, GC_A, gt->a[q]);
        tp_table_set_float(t, GC_B, gt->b[q]);
        tp_table_set_float(t, GC_DELTA, gt->b[q] - gt->a[q]);
        set_pct(t, GC_DELTA_PCT, gt->b[q] - gt->a[q], gt->a[q]);
        tp_table_set_float(t, GC_LO, gt->lo[q]);
        tp_table_set_float(t, GC_HI, gt->hi[q]);
        set_pct(t, GC_LO_PCT, gt->lo[q], gt->a[q]);
        set_pct(t, GC_HI_PCT, gt->hi[q], gt->a[q]);
        tp_table_set_int(t, GC_STEPS_A, (int64_t)gt->pa.nsteps);
        tp_table_set_int(t, GC_STEPS_B, (int64_t)gt->pb.nsteps);
        tp_table_set_str(t, GC_VERDICT, verdict_names[gt->v[q]]);
    }
    if (tp_table_nomem(t)) {
        tp_table_free(t);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    *out = t;
    return TP_OK;
}

static double per_step(int64_t ns, size_t steps)
{
    return (double)ns / (double)steps;
}

/* A name of the waterfall: the strata of one (part, name), consecutive
 * since strata are sorted by part, name, shape. */
struct moved {
    const char *name;
    int64_t sum_a, sum_b;
    double delta;
};

/* The top names of part p by |delta|, largest first (equal |delta|: the
 * first by name). */
static size_t top_names(const tp_gate *gt, int p, struct moved *pick)
{
    size_t n = 0;
    for (size_t k = 0; k < gt->nst;) {
        const struct stratum *s = &gt->st[k];
        struct moved m = {s->name, 0, 0, 0};
        size_t j = k;
        for (; j < gt->nst && gt->st[j].part == s->part && strcmp(gt->st[j].name, s->name) == 0; j++)
            m.sum_a += gt->st[j].sum_a, m.sum_b += gt->st[j].sum_b;
        k = j;
        m.delta = per_step(m.sum_b, gt->pb.nsteps) - per_step(m.sum_a, gt->pa.nsteps);
        if (s->part != p || m.delta == 0)
            continue;
        size_t at = n < gt->top ? n++ : gt->top;
        while (at > 0 && fabs(pick[at - 1].delta) < fabs(m.delta)) {
            if (at < gt->top)
                pick[at] = pick[at - 1];
            at--;
        }
        if (at < gt->top)
            pick[at] = m;
    }
    return n;
}

/* One waterfall row: a part's (name NULL) or a name's; cum NULL leaves the
 * running sum out. */
static void waterfall_row(tp_table *t, const char *part, const char *name, double a, double b,
                          const double *cum, double step_delta)
{
    tp_table_add_row(t);
    tp_table_set_str(t, WC_PART, part);
    if (name)
        tp_table_set_str(t, WC_NAME, name);
    else
        tp_table_set_null(t, WC_NAME);
    tp_table_set_float(t, WC_A, a);
    tp_table_set_float(t, WC_B, b);
    tp_table_set_float(t, WC_DELTA, b - a);
    if (cum)
        tp_table_set_float(t, WC_CUMULATIVE, *cum);
    else
        tp_table_set_null(t, WC_CUMULATIVE);
    set_pct(t, WC_SHARE, b - a, step_delta);
}

int tp_gate_waterfall(const tp_gate *gt, tp_table **out, tp_error *err)
{
    if (!gt || !out)
        return tp_error_set(err, TP_ERR_USAGE, "tp_gate_waterfall: missing argument");
    tp_table *t = tp_table_new(waterfall_cols, WC_N);
    struct moved *pick = malloc(gt->top * sizeof *pick);
    if (!t || !pick) {
        tp_table_free(t);
        free(pick);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    double step_delta = gt->b[GQ_STEP] - gt->a[GQ_STEP], cum = 0;
    for (int p = 0; p < TP_NPARTS; p++) {
        cum += gt->b[p] - gt->a[p];
        waterfall_row(t, tp_part_name(p), NULL, gt->a[p], gt->b[p], &cum, step_delta);
        size_t n = top_names(gt, p, pick);
        for (size_t k = 0; k < n; k++)
            waterfall_row(t, tp_part_name(p), pick[k].name, per_step(pick[k].sum_a, gt->pa.nsteps),
                          per_step(pick[k].sum_b, gt->pb.nsteps), NULL, step_delta);
    }
    waterfall_row(t, "step_time", NULL, gt->a[GQ_STEP], gt->b[GQ_STEP], &step_delta, step_delta);
    free(pick);
    if (tp_table_nomem(t)) {
        tp_table_free(t);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    *out = t;
    return TP_OK;
}

/* "host 12.0 us -> 541.0 us per step (+4408.3%; 95% interval +4300.1% ..
 * +4512.0%)" */
static void describe(const tp_gate *gt, int q, char *msg, size_t cap)
{
    double a = gt->a[q], b = gt->b[q];
    int n = snprintf(msg, cap, "%s %.1f us -> %.1f us per step", quantity_name(q), a / 1e3, b / 1e3);
    if (n < 0 || (size_t)n >= cap)
        return;
    if (a > 0)
        snprintf(msg + n, cap - (size_t)n, " (%+.1f%%; %g%% interval %+.1f%% .. %+.1f%%)",
                 (b - a) / a * 100.0, gt->confidence * 100.0, gt->lo[q] / a * 100.0, gt->hi[q] / a * 100.0);
    else
        snprintf(msg + n, cap - (size_t)n, " (new; %g%% interval %+.1f us .. %+.1f us)",
                 gt->confidence * 100.0, gt->lo[q] / 1e3, gt->hi[q] / 1e3);
}

int tp_gate_failed(const tp_gate *gt, size_t i, char *msg, size_t cap)
{
    if (msg && cap)
        *msg = 0;
    if (!gt)
        return 0;
    size_t seen = 0;
    for (int k = 0; k < GQ_N; k++) {
        int q = k == 0 ? GQ_STEP : k - 1;
        if (gt->v[q] != V_REGRESSED)
            continue;
        if (seen++ == i) {
            if (msg && cap) {
                describe(gt, q, msg, cap);
                size_t n = strlen(msg);
                snprintf(msg + n, cap - n, " exceeds %s", gt->limit.text);
            }
            return 1;
        }
    }
    return 0;
}

int tp_gate_junit(const tp_gate *gt, const char *a_name, const char *b_name, FILE *out)
{
    if (!gt || !a_name || !b_name || !out)
        return -1;
    int failures = 0;
    for (int q = 0; q < GQ_N; q++)
        failures += gt->v[q] == V_REGRESSED;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    fprintf(out, "<testsuites>\n<testsuite name=\"tprof diff\" tests=\"%d\" failures=\"%d\">\n", GQ_N,
            failures);
    fputs("<properties><property name=\"base\" value=\"", out);
    tp_xml_text(out, a_name);
    fputs("\"/><property name=\"new\" value=\"", out);
    tp_xml_text(out, b_name);
    fputs("\"/><property name=\"threshold\" value=\"", out);
    tp_xml_text(out, gt->limit.text);
    fprintf(out, "\"/><property name=\"confidence\" value=\"%g\"/></properties>\n", gt->confidence);
    char msg[320];
    for (int k = 0; k < GQ_N; k++) {
        int q = k == 0 ? GQ_STEP : k - 1;
        describe(gt, q, msg, sizeof msg);
        fprintf(out, "<testcase classname=\"tprof.diff\" name=\"%s\" time=\"%.6f\">", quantity_name(q),
                gt->b[q] / 1e9);
        if (gt->v[q] == V_REGRESSED) {
            fputs("<failure message=\"", out);
            tp_xml_text(out, msg);
            fputs("\" type=\"regression\"/>", out);
        }
        fputs("<system-out>", out);
        tp_xml_text(out, msg);
        fprintf(out, ": %s</system-out></testcase>\n", verdict_names[gt->v[q]]);
    }
    fputs("</testsuite>\n</testsuites>\n", out);
    return ferror(out) ? -1 : 0;
}
