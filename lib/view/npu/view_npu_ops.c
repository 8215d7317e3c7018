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
#include "agg.h"
#include "try.h"
#include "coldefs.h"

#define TP_COLS_FILE "view_npu_ops.def"
#define TP_COLS_ARRAY tp_npu_ops_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

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

/* The keys of an operator (agg.h: items are struct tp_agg_rec): its name,
 * input shapes and call stack as written (printed rewritten: show_shape,
 * show_stack). */
TP_AGG_TEXT_KEY(key_name, struct tp_npu_op, name)
TP_AGG_TEXT_KEY(key_shape, struct tp_npu_op, shapes)
TP_AGG_TEXT_KEY(key_stack, struct tp_npu_op, stack)
static const char *show_shape(const char *key, struct tp_sbuf *b)
{
    tp_npu_trans_shape(key, b);
    tp_sbuf_putc(b, 0);
    return b->oom ? NULL : b->p;
}
/* frames are separated by ";\n" (or ";\r\n"): one line */
static const char *show_stack(const char *key, struct tp_sbuf *b)
{
    for (const char *c = key; *c; c++)
        if (*c != '\r')
            tp_sbuf_putc(b, *c == '\n' ? ' ' : *c);
    while (b->len && (b->p[b->len - 1] == ' ' || b->p[b->len - 1] == ';'))
        b->len--;
    tp_sbuf_putc(b, 0);
    return b->oom ? NULL : b->p;
}

/* The plugin's running sums of each group, round(acc + v, 2) per row:
 * host self, host total, device self, device total, AI Core self, total. */
struct ctx {
    const tp_store *st;
    double (*r)[6];
    size_t cap;
};

/* the plugin's numbers (SPEC §A.6.1), from its running sums */
static int cell_time(const struct tp_agg_cell *c)
{
    const struct ctx *x = c->ctx;
    int q = c->col == C_HSELF ? 0 : c->col == C_HTOTAL ? 1 : c->col == C_DSELF ? 2 : 3;
    int64_t ns;
    if (tp_npu_ns(x->r[c->gi][q], 1000.0, &ns) < 0)
        return tp_npu_overflow(x->st, "operator durations", c->err);
    tp_table_set_int(c->t, c->col, ns);
    return TP_OK;
}
static int cell_ai(const struct tp_agg_cell *c)
{
    const double *r = ((const struct ctx *)c->ctx)->r[c->gi];
    if (c->col == C_ELIG)
        tp_table_set_str(c->t, c->col, r[4] > 0 || r[5] > 0 ? "Yes" : "No");
    else if (c->col == C_AISELF)
        tp_table_set_float(c->t, c->col, r[2] == 0 ? 0.0 : tp_npu_round2(r[4] / r[2] * 100));
    else
        tp_table_set_float(c->t, c->col, r[3] == 0 ? 0.0 : tp_npu_round2(r[5] / r[3] * 100));
    return TP_OK;
}
static double by_dself(void *ctx, size_t gi)
{
    return ((const struct ctx *)ctx)->r[gi][2];
}

enum { KEY_NAME = 1, KEY_SHAPE = 2, KEY_STACK = 4 };
/* the exact sums: the count and sum are the device self time's */
enum { X_HSELF, X_HTOTAL, X_DTOTAL, X_ASELF, X_ATOTAL };
static const struct tp_agg_key op_keys[] = {
    TP_AGG_KEY("name", key_name), {"shape", key_shape, 0, 0, show_shape}, {"stack", key_stack, 0, 0, show_stack},
};
#define OP_COLUMNS "calls,dev_self,dev_total,host_self,host_total,ai_core_eligible,ai_core_self,ai_core_total"
static const struct tp_agg_set op_sets[] = {
    {"shape", KEY_NAME | KEY_SHAPE, "name,shape," OP_COLUMNS},
    {"stack", KEY_NAME | KEY_STACK, "name," OP_COLUMNS ",stack"},
};
static const struct tp_agg_metric op_metrics[] = {
    TP_AGG_M("calls", TP_AGG_CALLS, TP_AGG_DUR),       TP_AGG_CELL_OF("dev_self", cell_time, 0),
    TP_AGG_CELL_OF("dev_total", cell_time, 0),         TP_AGG_CELL_OF("host_self", cell_time, 0),
    TP_AGG_CELL_OF("host_total", cell_time, 0),        TP_AGG_CELL_OF("ai_core_eligible", cell_ai, 0),
    TP_AGG_CELL_OF("ai_core_self", cell_ai, 0),        TP_AGG_CELL_OF("ai_core_total", cell_ai, 0),
    TP_AGG_M("dev_self_exact", TP_AGG_SUM, TP_AGG_DUR), TP_AGG_M("dev_total_exact", TP_AGG_SUM, X_DTOTAL),
    TP_AGG_M("host_self_exact", TP_AGG_SUM, X_HSELF),  TP_AGG_M("host_total_exact", TP_AGG_SUM, X_HTOTAL),
    TP_AGG_M("call_stack", TP_AGG_FLAG, 0),
};
static const struct tp_agg_spec op_spec = {
    .view = "ops", .cols = tp_npu_ops_cols, .ncols = C_N, TP_AGG_ARRAY(keys, op_keys), TP_AGG_ARRAY(sets, op_sets),
    TP_AGG_ARRAY(metrics, op_metrics), .default_keys = KEY_NAME, .metric_columns = OP_COLUMNS,
    .sort = {0, 0, 0, 0, by_dself},   /* the plugin's device self time; ties in file order */
};

/* --plot: each row's share of the device self time, or of the time
 * column --sort names (write_chart.c), as the ops view */
static const char *const share_cols[] = {"dev_self", "host_self", "dev_total", "host_total"};
static const struct tp_chart npu_ops_chart = {TP_CHART_SHARE, "name", "shape", share_cols, 4, NULL, NULL, NULL};

/* One operator into its group. */
static int add(struct tp_agg_local *l, void *ctx, const struct tp_agg_rec *it, size_t i, tp_error *err)
{
    const struct tp_npu_op *o = it->rec;
    struct ctx *c = ctx;
    double *r;
    struct tp_sgroup *g = tp_agg_local_group(l, it, (void **)&c->r, &c->cap, sizeof *c->r, (void **)&r);
    TP_TRY_NOMEM(g, err);
    int64_t dself = g->sum;
    if (tp_npu_add(&g->x[X_HSELF], o->host_self) < 0 || tp_npu_add(&g->x[X_HTOTAL], o->host_total) < 0 ||
        tp_npu_add(&dself, o->dev_self) < 0 || tp_npu_add(&g->x[X_DTOTAL], o->dev_total) < 0 ||
        tp_npu_add(&g->x[X_ASELF], o->dev_self_aic) < 0 || tp_npu_add(&g->x[X_ATOTAL], o->dev_total_aic) < 0)
        return tp_npu_overflow(c->st, "operator durations", err);
    for (int q = 0; q < 6; q++)
        r[q] = tp_npu_round2(r[q] + o->us[q]);
    if (tp_store_str(it->st, o->stack)[0])
        g->flag = 1;
    if (tp_summ_add(g, o->dev_self) < 0 || tp_summ_seen(l->sec, g, 0, (int64_t)i) < 0)
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    return TP_OK;
}

int tp_npu_ops_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    const struct tp_npu_data *d = st->npu;
    unsigned keys;
    if (tp_agg_parse(&op_spec, vo ? vo->group : NULL, &keys, err) != TP_OK)
        return err->status;
    if (!d || !(d->files & TP_NPU_OPERATOR_DETAILS))
        return tp_npu_missing(st, TP_NPU_OPERATOR_DETAILS, "ops", tp_npu_ops_cols, C_N, out, err);
    struct ctx c = {st, NULL, 0};
    int rc = tp_agg_local_table(&op_spec, keys, st, d->ops, d->nops, sizeof *d->ops, add, &c, out, err);
    if (rc == TP_OK && vo && vo->plot)
        tp_table_set_chart(*out, &npu_ops_chart);
    free(c.r);
    return rc;
}

const char *tp_npu_ops_columns_for(const struct tp_view_opts *vo)
{
    return tp_agg_columns(&op_spec, vo ? vo->group : NULL);
}

size_t tp_npu_ops_group_keys(char *buf, size_t cap)
{
    return tp_agg_describe(&op_spec, buf, cap);
}
