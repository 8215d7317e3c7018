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
#include "view_options.h"
#include "try.h"
#include "coldefs.h"

static const struct tp_coldef cols[] = {
    {"idx", "Idx", TP_COL_INT, 5, 0, "1-based position in kernel_details.csv"},
    {"step", "Step", TP_COL_STR, 4, 0, "Step Id; else the ProfilerStep of the launching op (- none)"},
    {"device", "Device", TP_COL_INT, 3, 0, "NPU device id (-1 unknown)"},
    {"stream", "Stream", TP_COL_STR, 3, 0, "Stream ID (- when absent)"},
    {"core", "Core", TP_COL_STR, 14, 0, "Accelerator Core: AI_CORE, AI_VECTOR_CORE, MIX_AIC, HCCL ..."},
    {"type", "Type", TP_COL_STR, 12, 0, "op type (Type)"},
    {"kernel", "Kernel", TP_COL_STR, 0, 0, "task name (Name)"},
    TP_COLDEF_NAME_FILL("task name (Name), as -c name on GPUs"),
    {"sil", "Sil(ns)", TP_COL_INT, 10, 0, "duration in ns"},
    {"start", "Start(us)", TP_COL_US, 12, 0, "start, µs since the profiler started"},
    {"ts", "StartTime(us)", TP_COL_US, 20, 0, "Start Time(us) as written (epoch µs, exact)"},
    {"wait", "Wait(us)", TP_COL_US, 10, 0, "Wait Time(us): gap after the previous task"},
    {"block_dim", "BlockDim", TP_COL_STR, 8, 0, "Block Dim / Block Num (N/A for communication)"},
    {"mix_block_dim", "MixBlockDim", TP_COL_STR, 4, 0, "Mix Block Dim"},
    {"state", "State", TP_COL_STR, 7, 0, "OP State (static/dynamic)"},
    {"in_shapes", "InputShapes", TP_COL_STR, 0, 0, "Input Shapes"},
    {"in_types", "InputTypes", TP_COL_STR, 0, 0, "Input Data Types"},
    {"in_formats", "InputFormats", TP_COL_STR, 0, 0, "Input Formats"},
    {"out_shapes", "OutputShapes", TP_COL_STR, 0, 0, "Output Shapes"},
    {"out_types", "OutputTypes", TP_COL_STR, 0, 0, "Output Data Types"},
    {"out_formats", "OutputFormats", TP_COL_STR, 0, 0, "Output Formats"},
    {"op", "Op", TP_COL_STR, 15, 0, "launching framework op (trace_view.json flows; - unknown)"},
    {"task_id", "TaskId", TP_COL_STR, 6, 0, "Task ID"},
    {"model_id", "ModelId", TP_COL_STR, 10, 0, "Model ID"},
};
enum { C_IDX, C_STEP, C_DEV, C_STREAM, C_CORE, C_TYPE, C_KERNEL, C_NAME, C_SIL, C_START, C_TS, C_WAIT, C_BD,
       C_MBD, C_STATE, C_ISH, C_ITY, C_IFM, C_OSH, C_OTY, C_OFM, C_OP, C_TASK, C_MODEL, C_N };

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

static int build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    (void)vo;
    const struct tp_npu_data *d = st->npu;
    if (!d || !(d->files & TP_NPU_KERNEL_DETAILS))
        return tp_npu_missing(st, TP_NPU_KERNEL_DETAILS, "default (per task)", cols, C_N, out, err);
    tp_table *t = tp_table_new(cols, C_N);
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

const tp_view tp_view_npu_prof = {
    .name = "prof",
    .summary = "every device task of kernel_details.csv (Ascend)",
    TP_VIEW_COLS(cols),
    .default_columns = "idx,step,device,stream,core,op,kernel,sil,start,wait,block_dim,in_shapes,in_types,out_shapes,out_types",
    .build = build,
};
