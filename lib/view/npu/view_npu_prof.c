/* view_npu_prof.c — the default view on an Ascend folder: every device task
 * of kernel_details.csv, one row each in file (start time) order, like
 * prof.py's per-kernel rows: name, duration in ns (sil), device, stream,
 * the launching framework op (from the trace's flows), and what Ascend
 * adds — step, op type, accelerator core, start (µs since
 * the profiler started, exact), wait time, block dim, input/output shapes,
 * data types and formats. */
#include <stdlib.h>
#include <string.h>
#include "ascend.h"
#include "views.h"
#include "try.h"
#include "coldefs.h"

#define TP_COLS_FILE "view_npu_prof.def"
#define TP_COLS_ARRAY tp_npu_prof_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

static void set_opt(tp_table *t, size_t col, int64_t v, const char *none)
{
    char b[32];
    if (v == TP_NONE) {
        tp_table_set_str(t, col, none);
        return;
    }
    snprintf(b, sizeof b, "%lld", (long long)v);
    tp_table_set_str(t, col, b);
}

/* Shapes are written with literal quotes ("\"32,3,224,224\""): drop them. */
static void set_shape(tp_table *t, size_t col, const char *s)
{
    size_t n = strlen(s);
    if (n >= 2 && s[0] == '"' && s[n - 1] == '"')
        tp_table_set_strn(t, col, s + 1, n - 2);
    else
        tp_table_set_str(t, col, s);
}

int tp_npu_prof_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    (void)vo;
    const struct tp_npu_data *d = st->npu;
    if (!d || !(d->files & TP_NPU_KERNEL_DETAILS))
        return tp_npu_missing(st, TP_NPU_KERNEL_DETAILS, "default (per task)", tp_npu_prof_cols, C_N, out, err);
    tp_table *t = tp_table_new(tp_npu_prof_cols, C_N);
    TP_TRY_NOMEM(t, err);
    int64_t origin = tp_npu_origin(d);
    for (size_t i = 0; i < d->ntasks; i++) {
        const struct tp_npu_task *k = &d->tasks[i];
        tp_table_add_row(t);
        tp_table_set_int(t, C_IDX, (int64_t)i + 1);
        int64_t step = k->step;
        /* no Step Id (trace-only folders, no step range): the ProfilerStep
         * of the launching op, as the linker found it */
        int64_t op_step = k->op_row >= 0 ? tp_store_row_step(st, (size_t)k->op_row) : -1;
        if (step == TP_NONE && op_step >= 0 && (size_t)op_step < st->nsteps)
            step = st->steps[op_step].number;
        set_opt(t, C_STEP, step, "-");
        tp_table_set_int(t, C_DEV, k->device);
        set_opt(t, C_STREAM, k->stream_id, "-");
        tp_table_set_str(t, C_CORE, tp_store_str(st, k->core));
        tp_table_set_str(t, C_TYPE, k->type ? tp_store_str(st, k->type) : "-");
        tp_table_set_str(t, C_KERNEL, tp_store_str(st, k->name));
        tp_table_set_str(t, C_NAME, tp_store_str(st, k->name));
        tp_table_set_int(t, C_SIL, k->dur);
        if (k->start != TP_NONE) {
            tp_table_set_int(t, C_START, k->start - origin);
            tp_table_set_int(t, C_TS, k->start);
        }
        if (k->wait != TP_NONE)
            tp_table_set_int(t, C_WAIT, k->wait);
        set_opt(t, C_BD, k->block_dim, "N/A");
        set_opt(t, C_MBD, k->mix_block_dim, "N/A");
        tp_table_set_str(t, C_STATE, k->state ? tp_store_str(st, k->state) : "-");
        set_shape(t, C_ISH, k->in_shapes ? tp_store_str(st, k->in_shapes) : "-");
        tp_table_set_str(t, C_ITY, k->in_types ? tp_store_str(st, k->in_types) : "-");
        tp_table_set_str(t, C_IFM, k->in_formats ? tp_store_str(st, k->in_formats) : "-");
        set_shape(t, C_OSH, k->out_shapes ? tp_store_str(st, k->out_shapes) : "-");
        tp_table_set_str(t, C_OTY, k->out_types ? tp_store_str(st, k->out_types) : "-");
        tp_table_set_str(t, C_OFM, k->out_formats ? tp_store_str(st, k->out_formats) : "-");
        tp_table_set_str(t, C_OP, k->op ? tp_store_str(st, k->op) : "-");
        set_opt(t, C_TASK, k->task_id, "-");
        set_opt(t, C_MODEL, k->model_id, "-");
    }
    *out = t;
    return TP_OK;
}
