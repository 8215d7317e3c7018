/* view_npu_ops.c — `tprof ops` on an Ascend folder: the Ascend plugin's
 * Operator view from operator_details.csv (SPEC §A.6.1).
 *
 * One row per operator name (--group shape: name + input shapes; --group
 * stack: name + call stack, the plugin's "View CallStack"), in order
 * of device self time: calls, device/host self/total time, and whether the
 * op ran on AI Cores: eligible when its "With AICore" time is non-zero,
 * AI Core self/total = that time as a share of the device self/total time.
 * Columns are found by name (the plugin reads them by position).  The times
 * are the plugin's: it rounds its running sums to 2 decimals at every row
 * (round(acc + v, 2) on the float of the text), which tprof reproduces; the
 * *_exact columns hold the exact sums, which may differ by up to 0.005 µs
 * per row summed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ascend.h"
#include "views.h"

static const struct tp_coldef cols[] = {
    {"name", "Name", TP_COL_STR, -1, 0, "operator name"},
    {"shape", "Input Shape", TP_COL_STR, -1, 0, "input shapes, as the plugin prints them (--group shape)"},
    {"calls", "Calls", TP_COL_INT, -1, 0, "number of calls"},
    {"dev_self", "DeviceSelf(us)", TP_COL_US, -1, 0, "device time of the tasks the op launched itself"},
    {"dev_total", "DeviceTotal(us)", TP_COL_US, -1, 0, "device time including child operators"},
    {"host_self", "HostSelf(us)", TP_COL_US, -1, 0, "host time minus child operators"},
    {"host_total", "HostTotal(us)", TP_COL_US, -1, 0, "host time"},
    {"ai_core_eligible", "AICoreEligible", TP_COL_STR, -1, 0, "Yes when some of its device time ran on AI Cores"},
    {"ai_core_self", "AICoreSelf(%)", TP_COL_FIXED, -1, 2, "AI Core (incl. vector core) self time / device self time"},
    {"ai_core_total", "AICoreTotal(%)", TP_COL_FIXED, -1, 2, "AI Core total time / device total time"},
    {"call_stack", "CallStack", TP_COL_STR, -1, 0, "Yes when a call stack was recorded"},
    {"stack", "Stack", TP_COL_STR, 0, 0, "the call stack, frames joined by \"; \" (--group stack)"},
    {"dev_self_exact", "DeviceSelfExact(us)", TP_COL_US, -1, 0, "device self time, exact sum (ns)"},
    {"dev_total_exact", "DeviceTotalExact(us)", TP_COL_US, -1, 0, "device total time, exact sum (ns)"},
    {"host_self_exact", "HostSelfExact(us)", TP_COL_US, -1, 0, "host self time, exact sum (ns)"},
    {"host_total_exact", "HostTotalExact(us)", TP_COL_US, -1, 0, "host total time, exact sum (ns)"},
};
enum { C_NAME, C_SHAPE, C_CALLS, C_DSELF, C_DTOTAL, C_HSELF, C_HTOTAL, C_ELIG, C_AISELF, C_AITOTAL, C_STACK, C_STK,
       C_XDSELF, C_XDTOTAL, C_XHSELF, C_XHTOTAL, C_N };

/* The plugin's trans_shape (run_generator.py): "[[...], [...]]".  Its one
 * bug is fixed: shapes separated by ';' without newlines are split on ';'
 * instead of being glued together ("81920,4096;8192,512" became
 * [[81920,40968192,512]]). */
void tp_npu_trans_shape(const char *s, struct tp_sbuf *b)
{
    size_t n = strlen(s);
    const char *a = s, *e = s + n;
    while (a < e && (*a == ' ' || *a == '\t' || *a == '\n' || *a == '\r')) a++;
    while (e > a && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r')) e--;
    if (!strchr(s, ';')) {
        tp_sbuf_put(b, "[[", 2);
        tp_sbuf_put(b, a, (size_t)(e - a));
        tp_sbuf_put(b, "]]", 2);
        return;
    }
    if (e - a <= 1) {
        tp_sbuf_put(b, "[[]]", 4);
        return;
    }
    char sep = strchr(s, '\n') ? '\n' : ';';
    tp_sbuf_putc(b, '[');
    const char *p = s, *end = s + n;
    int first = 1;
    for (;;) {
        const char *q = memchr(p, sep, (size_t)(end - p));
        const char *pe = q ? q : end;
        if (!first)
            tp_sbuf_put(b, ", ", 2);
        first = 0;
        tp_sbuf_putc(b, '[');
        for (const char *c = p; c < pe; c++)
            if (*c != ';' && *c != '\r')
                tp_sbuf_putc(b, *c);
        tp_sbuf_putc(b, ']');
        if (!q)
            break;
        p = q + 1;
    }
    tp_sbuf_putc(b, ']');
}

struct agg {
    uint32_t name, shape, stk;
    int64_t calls, hself, htotal, dself, dtotal, aself, atotal;   /* exact ns */
    double r[6];              /* the plugin's running sums: round(acc + v, 2) per row */
    int stack;
    size_t first;
};

static _Thread_local const struct agg *g_a;
static int by_dself(const void *x, const void *y)
{
    const struct agg *a = &g_a[*(const size_t *)x], *b = &g_a[*(const size_t *)y];
    if (a->r[2] != b->r[2])
        return a->r[2] > b->r[2] ? -1 : 1;
    return a->first < b->first ? -1 : a->first > b->first;
}

/* --plot: each row's share of the device self time, or of the time
 * column --sort names (write_chart.c), as the ops view */
static const char *const share_cols[] = {"dev_self", "host_self", "dev_total", "host_total"};
static const struct tp_chart npu_ops_chart = {TP_CHART_SHARE, "name", "shape", share_cols, 4, NULL, NULL, NULL};

static int build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    const struct tp_npu_data *d = st->npu;
    int shape = vo && vo->group && strcmp(vo->group, "shape") == 0;
    int stack = vo && vo->group && strcmp(vo->group, "stack") == 0;
    if (vo && vo->group && !shape && !stack && strcmp(vo->group, "name") != 0)
        return tp_error_set(err, TP_ERR_USAGE, "ops: --group must be name, shape or stack, not %s", vo->group);
    if (!d || !(d->files & TP_NPU_OPERATOR_DETAILS))
        return tp_npu_missing(st, TP_NPU_OPERATOR_DETAILS, "ops", cols, C_N, out, err);
    size_t ns = st->strings.count + 1;
    int64_t *head = malloc(ns * sizeof *head);
    int64_t *next = malloc((d->nops + 1) * sizeof *next);
    struct agg *a = calloc(d->nops + 1, sizeof *a);
    size_t *perm = malloc((d->nops + 1) * sizeof *perm);
    tp_table *t = NULL;
    struct tp_sbuf sb = {0};
    int rc = TP_OK;
    if (!head || !next || !a || !perm) {
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < ns; i++)
        head[i] = -1;
    size_t na = 0;
    for (size_t i = 0; i < d->nops; i++) {
        const struct tp_npu_op *o = &d->ops[i];
        int64_t j = head[o->name];
        while (j >= 0 && ((shape && a[j].shape != o->shapes) || (stack && a[j].stk != o->stack)))
            j = next[j];
        if (j < 0) {
            j = (int64_t)na++;
            a[j].name = o->name;
            a[j].shape = o->shapes;
            a[j].stk = o->stack;
            a[j].first = i;
            next[j] = head[o->name];
            head[o->name] = j;
        }
        struct agg *g = &a[j];
        g->calls++;
        if (tp_npu_add(&g->hself, o->host_self) < 0 || tp_npu_add(&g->htotal, o->host_total) < 0 ||
            tp_npu_add(&g->dself, o->dev_self) < 0 || tp_npu_add(&g->dtotal, o->dev_total) < 0 ||
            tp_npu_add(&g->aself, o->dev_self_aic) < 0 || tp_npu_add(&g->atotal, o->dev_total_aic) < 0) {
            rc = tp_npu_overflow(st, "operator durations", err);
            goto done;
        }
        for (int q = 0; q < 6; q++)
            g->r[q] = tp_npu_round2(g->r[q] + o->us[q]);
        if (tp_store_str(st, o->stack)[0])
            g->stack = 1;
    }
    for (size_t i = 0; i < na; i++)
        perm[i] = i;
    g_a = a;
    qsort(perm, na, sizeof *perm, by_dself);
    t = tp_table_new(cols, C_N);
    if (!t) {
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t k = 0; k < na; k++) {
        const struct agg *g = &a[perm[k]];
        tp_table_add_row(t);
        tp_table_set_str(t, C_NAME, tp_store_str(st, g->name));
        if (shape) {
            sb.len = 0;
            tp_npu_trans_shape(tp_store_str(st, g->shape), &sb);
            tp_table_set_strn(t, C_SHAPE, sb.p ? sb.p : "", sb.len);
        }
        if (stack) {
            /* frames are separated by ";\n" (or ";\r\n"): one line */
            sb.len = 0;
            for (const char *c = tp_store_str(st, g->stk); *c; c++) {
                if (*c == '\r')
                    continue;
                if (*c == '\n')
                    tp_sbuf_putc(&sb, ' ');
                else
                    tp_sbuf_putc(&sb, *c);
            }
            while (sb.len && (sb.p[sb.len - 1] == ' ' || sb.p[sb.len - 1] == ';'))
                sb.len--;
            tp_table_set_strn(t, C_STK, sb.p ? sb.p : "", sb.len);
        }
        tp_table_set_int(t, C_CALLS, g->calls);
        /* the plugin's numbers (SPEC §A.6.1), from its running sums */
        const double *r = g->r;   /* host self, host total, dev self, dev total, S7, S8 */
        int64_t ns[4];
        for (int q = 0; q < 4; q++)
            if (tp_npu_ns(r[q], 1000.0, &ns[q]) < 0) {
                rc = tp_npu_overflow(st, "operator durations", err);
                goto done;
            }
        tp_table_set_int(t, C_DSELF, ns[2]);
        tp_table_set_int(t, C_DTOTAL, ns[3]);
        tp_table_set_int(t, C_HSELF, ns[0]);
        tp_table_set_int(t, C_HTOTAL, ns[1]);
        tp_table_set_str(t, C_ELIG, r[4] > 0 || r[5] > 0 ? "Yes" : "No");
        tp_table_set_float(t, C_AISELF, r[2] == 0 ? 0.0 : tp_npu_round2(r[4] / r[2] * 100));
        tp_table_set_float(t, C_AITOTAL, r[3] == 0 ? 0.0 : tp_npu_round2(r[5] / r[3] * 100));
        tp_table_set_int(t, C_XDSELF, g->dself);
        tp_table_set_int(t, C_XDTOTAL, g->dtotal);
        tp_table_set_int(t, C_XHSELF, g->hself);
        tp_table_set_int(t, C_XHTOTAL, g->htotal);
        tp_table_set_str(t, C_STACK, g->stack ? "Yes" : "No");
    }
    if (sb.oom)
        rc = tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    if (vo && vo->plot)
        tp_table_set_chart(t, &npu_ops_chart);
    *out = t;
    t = NULL;
done:
    tp_sbuf_free(&sb);
    if (t)
        tp_table_free(t);
    free(head);
    free(next);
    free(a);
    free(perm);
    return rc;
}

static const char *columns_for(const struct tp_view_opts *vo)
{
    if (vo && vo->group && strcmp(vo->group, "stack") == 0)
        return "name,calls,dev_self,dev_total,host_self,host_total,ai_core_eligible,ai_core_self,ai_core_total,stack";
    if (vo && vo->group && strcmp(vo->group, "shape") == 0)
        return "name,shape,calls,dev_self,dev_total,host_self,host_total,ai_core_eligible,ai_core_self,ai_core_total";
    return NULL;
}

const tp_view tp_view_npu_ops = {
    .name = "ops",
    .summary = "Ascend plugin Operator view: time per operator (--group shape|stack)",
    .cols = cols,
    .ncols = C_N,
    .default_columns = "name,calls,dev_self,dev_total,host_self,host_total,ai_core_eligible,ai_core_self,ai_core_total",
    .build = build,
    .columns_for = columns_for,
};
