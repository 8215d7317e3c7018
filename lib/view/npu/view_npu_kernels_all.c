/* view_npu_kernels_all.c — `tprof kernels --group all` on an Ascend folder:
 * the plugin's kernel details table (its Kernel view, Group By "All"; SPEC
 * §A.6.2), one row per task in file order with every column of
 * kernel_details.csv, the extra ones too: HF32 Eligible, Context ID and the
 * PMU columns of the run's aic_metrics (aicore_time(us), aic_mac_ratio,
 * aiv_vec_time(us), cube_utilization(%) ...).
 *
 * The plugin passes those cells through as the strings it read, so tprof
 * prints each as written ("0.0" stays "0.0", "50.522" keeps its decimals, a
 * cell that is not a number stays text); a cell whose text is exactly how
 * tprof prints its number is stored as the number, so --sort orders the
 * column numerically.  Without -c, the columns are the file's own, in its
 * order; extra columns tprof has no key for are shown together in "extra". */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "json.h"
#include "view_npu_kernels.h"

void tp_npu_kernel_key(const char *h, char *buf, size_t cap)
{
    size_t n = strlen(h), o = 0;
    /* drop the unit: "aicore_time(us)", "aic_l0a_read_bw(GB/s)", "cube_utilization(%)" */
    if (n && h[n - 1] == ')') {
        const char *lp = memchr(h, '(', n);
        if (lp && lp > h)
            n = (size_t)(lp - h);
    }
    int sep = 0;
    for (size_t i = 0; i < n && o + 1 < cap; i++) {
        unsigned char ch = (unsigned char)h[i];
        int alnum = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
        if (!alnum) {
            sep = o > 0;
            continue;
        }
        if (sep && o + 2 < cap)
            buf[o++] = '_';
        sep = 0;
        buf[o++] = (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
    }
    if (cap)
        buf[o < cap ? o : cap - 1] = 0;
}

/* The header names of the task record's own fields, each with its key
 * (CANN op_summary spellings too, as the importer reads them). */
static const struct { const char *name, *key; } base_cols[] = {
    {"Step Id", "step"}, {"Device_id", "device"}, {"Model ID", "model_id"}, {"Task ID", "task_id"},
    {"Stream ID", "stream_id"}, {"Name", "name"}, {"Op Name", "name"}, {"Type", "type"}, {"OP Type", "type"},
    {"OP State", "state"}, {"Accelerator Core", "core"}, {"Task Type", "core"},
    {"Start Time(us)", "start_time"}, {"Task Start Time(us)", "start_time"},
    {"Duration(us)", "duration"}, {"Task Duration(us)", "duration"},
    {"Wait Time(us)", "wait"}, {"Task Wait Time(us)", "wait"},
    {"Block Dim", "block_dim"}, {"Block Num", "block_dim"}, {"Mix Block Dim", "mix_block_dim"},
    {"Mix Block Num", "mix_block_dim"}, {"Input Shapes", "in_shapes"}, {"Input Data Types", "in_types"},
    {"Input Formats", "in_formats"}, {"Output Shapes", "out_shapes"}, {"Output Data Types", "out_types"},
    {"Output Formats", "out_formats"},
};

/* The coldef of an extra column's header name, -1 when it has none. */
static long xcol_def(const char *name)
{
    char key[128];
    tp_npu_kernel_key(name, key, sizeof key);
    for (size_t i = NK_XCOL0; i < NK_EXTRA; i++)
        if (strcmp(tp_npu_kernels_cols[i].key, key) == 0)
            return (long)i;
    return -1;
}

static int has_key(const struct tp_sbuf *b, const char *key)
{
    size_t n = strlen(key);
    for (size_t i = 0; b->p && i + n <= b->len; i++)
        if ((i == 0 || b->p[i - 1] == ',') && memcmp(b->p + i, key, n) == 0 && (i + n == b->len || b->p[i + n] == ','))
            return 1;
    return 0;
}

static void add_key(struct tp_sbuf *b, const char *key)
{
    if (has_key(b, key))
        return;
    if (b->len)
        tp_sbuf_putc(b, ',');
    tp_sbuf_put(b, key, strlen(key));
}

/* The default columns: the file's header, in its order, as keys. */
static int default_columns(const tp_store *st, const struct tp_npu_data *d, const long *xmap, tp_table *t)
{
    if (!d->kernel_header)
        return 0;                      /* SQLite or trace tasks: the view's list */
    const char *h = tp_store_str(st, d->kernel_header);
    struct tp_sbuf b = {0};
    size_t x = 0;
    while (*h) {
        const char *e = strchr(h, ',');
        size_t n = e ? (size_t)(e - h) : strlen(h);
        const char *name = tp_store_str(st, x < d->nxcols ? d->xcols[x].name : 0);
        if (x < d->nxcols && strlen(name) == n && memcmp(name, h, n) == 0) {
            /* an extra column (they are kept in header order) */
            add_key(&b, xmap[x] >= 0 ? tp_npu_kernels_cols[xmap[x]].key : "extra");
            x++;
        } else {
            for (size_t i = 0; i < sizeof base_cols / sizeof base_cols[0]; i++)
                if (strlen(base_cols[i].name) == n && strncasecmp(base_cols[i].name, h, n) == 0) {
                    add_key(&b, base_cols[i].key);
                    break;
                }
        }
        h += n + (e != NULL);
    }
    tp_sbuf_putc(&b, 0);   /* a C string for the table */
    int rc = b.oom ? -1 : b.len > 1 ? tp_table_set_default_columns(t, b.p) : 0;
    tp_sbuf_free(&b);
    return rc;
}

static void set_opt(tp_table *t, size_t col, int64_t v, const char *none)
{
    char b[32];
    if (v == TP_NONE) {
        if (none)
            tp_table_set_str(t, col, none);
        return;
    }
    snprintf(b, sizeof b, "%lld", (long long)v);
    tp_table_set_str(t, col, b);
}

static void set_str0(tp_table *t, size_t col, const tp_store *st, uint32_t id)
{
    if (id && tp_store_str(st, id)[0])
        tp_table_set_str(t, col, tp_store_str(st, id));
}

/* A PMU cell: its number where tprof prints that number exactly as the file
 * wrote it (so it sorts as a number), else its text; empty stays empty. */
static void set_pmu(tp_table *t, size_t col, const char *s, double v)
{
    size_t n = strlen(s);
    if (!n)
        return;
    char b[64];
    int64_t i;
    if (tp_decimal_to_i64(s, n, &i) == 0 && (size_t)snprintf(b, sizeof b, "%lld", (long long)i) == n &&
        memcmp(b, s, n) == 0) {
        tp_table_set_int(t, col, i);
        return;
    }
    if (isfinite(v) && tp_fmt_pyfloat(v, b, sizeof b) == n && memcmp(b, s, n) == 0) {
        tp_table_set_float(t, col, v);
        return;
    }
    tp_table_set_str(t, col, s);
}

int tp_npu_kernels_all(const tp_store *st, tp_table **out, tp_error *err)
{
    const struct tp_npu_data *d = st->npu;
    long *xmap = malloc((d->nxcols ? d->nxcols : 1) * sizeof *xmap);
    tp_table *t = tp_table_new(tp_npu_kernels_cols, NK_N);
    struct tp_sbuf ex = {0};
    if (!xmap || !t)
        goto nomem;
    for (size_t c = 0; c < d->nxcols; c++)
        xmap[c] = xcol_def(tp_store_str(st, d->xcols[c].name));
    if (default_columns(st, d, xmap, t) < 0)
        goto nomem;
    for (size_t i = 0; i < d->ntasks; i++) {
        const struct tp_npu_task *k = &d->tasks[i];
        if (tp_table_add_row(t) < 0)
            goto nomem;
        set_opt(t, NK_STEP, k->step, NULL);
        set_opt(t, NK_DEVICE, k->device >= 0 ? k->device : TP_NONE, NULL);
        set_opt(t, NK_MODEL, k->model_id, "N/A");
        set_opt(t, NK_TASK, k->task_id, "N/A");
        set_opt(t, NK_STREAM, k->stream_id, "N/A");
        tp_table_set_str(t, NK_NAME, tp_store_str(st, k->name));
        set_str0(t, NK_TYPE, st, k->type);
        set_str0(t, NK_STATE, st, k->state);
        set_str0(t, NK_CORE, st, k->core);
        if (k->start != TP_NONE)
            tp_table_set_int(t, NK_START_TIME, k->start);
        tp_table_set_int(t, NK_DURATION, k->dur);
        if (k->wait != TP_NONE)
            tp_table_set_int(t, NK_WAIT, k->wait);
        set_opt(t, NK_BD, k->block_dim, "N/A");
        set_opt(t, NK_MBD, k->mix_block_dim, "N/A");
        set_str0(t, NK_ISH, st, k->in_shapes);
        set_str0(t, NK_ITY, st, k->in_types);
        set_str0(t, NK_IFM, st, k->in_formats);
        set_str0(t, NK_OSH, st, k->out_shapes);
        set_str0(t, NK_OTY, st, k->out_types);
        set_str0(t, NK_OFM, st, k->out_formats);
        ex.len = 0;
        for (size_t c = 0; c < d->nxcols; c++) {
            tp_npu_xcell x = tp_npu_xcell_at(d, c, i);
            char nb[32];
            const char *s = tp_npu_xcell_str(st, x, nb, sizeof nb);
            if (xmap[c] < 0) {
                /* no key: NAME=VALUE in the catch-all column */
                const char *name = tp_store_str(st, d->xcols[c].name);
                if (ex.len)
                    tp_sbuf_put(&ex, "; ", 2);
                tp_sbuf_put(&ex, name, strlen(name));
                tp_sbuf_putc(&ex, '=');
                tp_sbuf_put(&ex, s, strlen(s));
            } else if (tp_npu_kernels_cols[xmap[c]].type == TP_COL_NUM) {
                set_pmu(t, (size_t)xmap[c], s, tp_npu_xcell_value(st, x));
            } else if (*s) {
                tp_table_set_str(t, (size_t)xmap[c], s);
            }
        }
        if (ex.oom)
            goto nomem;
        if (ex.len)
            tp_table_set_strn(t, NK_EXTRA, ex.p, ex.len);
    }
    if (tp_table_nomem(t))
        goto nomem;
    free(xmap);
    tp_sbuf_free(&ex);
    *out = t;
    return TP_OK;
nomem:
    free(xmap);
    tp_sbuf_free(&ex);
    tp_table_free(t);
    return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
}
