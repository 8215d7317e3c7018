/* views.c — the registry of views: a new analysis is one view_*.c file and
 * one line here. */
#include <string.h>
#include "store.h"
#include "store_file.h"
#include "table.h"
#include "views.h"

static const tp_view *const registry[] = {
    &tp_view_prof,
    &tp_view_info,
    &tp_view_kernels,
    &tp_view_ops,
    &tp_view_steps,
    &tp_view_memory,
    &tp_view_modules,
    &tp_view_lightning,
    &tp_view_dist,
    &tp_view_collectives,
    &tp_view_stragglers,
    &tp_view_gpu,
    &tp_view_advice,
    &tp_view_temporal,
    &tp_view_kernel_types,
    &tp_view_overlap,
    &tp_view_idle,
    &tp_view_launches,
    &tp_view_queue,
    &tp_view_check,
    &tp_view_api,
    &tp_view_memops,
    &tp_view_nvtx,
    &tp_view_labels,
    &tp_view_critical_path,
    &tp_view_roofline,
    NULL,
};

/* The parts of a lazily read .tprof store (tp_store_set_lazy) that each
 * view reads, from tp_store_need's list (store_file.h): with its default
 * options, and with any other.  A view not listed gets them all.  A part
 * read but not listed stops the process and names itself
 * (store_file_lazy.c): the golden tests run every view on such stores
 * (scripts/golden/store.sh).  The models read from the store ask for the
 * rows they read themselves (tp_store_file_tree). */
#define NEED(x) TP_NEED_##x
#define HTA (NEED(CORRELATION) | NEED(DUR) | NEED(KIND) | NEED(NAME) | NEED(PH) | NEED(STREAM) | NEED(TS) | \
             NEED(LAUNCHER))
static const struct {
    const tp_view *v;
    uint32_t plain, opted;
} view_needs_list[] = {
    /* (its annotations and their rows: a store holds them, else it asks for them) */
    {&tp_view_prof, 0, 0},
    {&tp_view_kernels, NEED(AUX) | NEED(DUR) | NEED(NAME) | NEED(KERNEL_INFO),
                       NEED(STREAM) | NEED(TID) | NEED(TS) | NEED(LAUNCH_OP) | NEED(OP_INFO)},
    /* ops and memory ask for the rest themselves (none when the store holds their summary) */
    {&tp_view_ops, 0, NEED(OP_INFO) | NEED(SEQ) | NEED(LAUNCH_OP) | NEED(LAUNCHER)},
    {&tp_view_steps, 0, 0},
    {&tp_view_memory, 0, 0},
    {&tp_view_modules, NEED(AUX) | NEED(CAT) | NEED(DUR) | NEED(NAME) | NEED(TID) | NEED(TS) | NEED(OP_INFO), 0},
    {&tp_view_lightning, NEED(NAME) | NEED(TS), 0},
    {&tp_view_dist, NEED(AUX) | NEED(CAT) | NEED(DUR) | NEED(EXTERNAL_ID) | NEED(NAME) | NEED(TS) | NEED(OP_INFO), 0},
    /* the GPU summary asks for its own (tp_gpu_summary: none when the store holds it) */
    {&tp_view_gpu, 0, NEED(AUX) | NEED(DEVICE) | NEED(DUR) | NEED(NAME) | NEED(TID) | NEED(TS) | NEED(KERNEL_INFO)},
    {&tp_view_advice, NEED(AUX) | NEED(NAME) | NEED(PID) | NEED(MEM_INFO), 0},
    {&tp_view_temporal, HTA, 0},
    {&tp_view_kernel_types, HTA, 0},
    {&tp_view_overlap, HTA, 0},
    {&tp_view_idle, HTA, 0},
    {&tp_view_launches, HTA, 0},
    {&tp_view_queue, HTA, 0},
    {&tp_view_check, NEED(CORRELATION) | NEED(DEVICE) | NEED(DUR) | NEED(NAME) | NEED(STREAM) | NEED(TS) |
                         NEED(LAUNCHER) | NEED(STEP) | NEED(ATTR_CAUSE), 0},
    {&tp_view_api, NEED(DUR) | NEED(NAME), 0},
    {&tp_view_memops, NEED(AUX) | NEED(DUR) | NEED(NAME) | NEED(KERNEL_INFO), 0},
    {&tp_view_nvtx, NEED(DUR) | NEED(PID) | NEED(TID) | NEED(TS) | NEED(LAUNCHER), 0},
    {&tp_view_labels, NEED(DUR) | NEED(NAME) | NEED(LAUNCHER) | NEED(PARENT), 0},
    {&tp_view_critical_path, NEED(AUX) | NEED(CAT) | NEED(CORRELATION) | NEED(DEVICE) | NEED(DUR) | NEED(NAME) |
                                 NEED(PID) | NEED(STREAM) | NEED(TID) | NEED(TS) | NEED(KERNEL_INFO) |
                                 NEED(LAUNCHER) | NEED(PARENT), 0},
    {&tp_view_roofline, NEED(ANNOTS) | NEED(AUX) | NEED(DEVICE) | NEED(DUR) | NEED(NAME) | NEED(STREAM) |
                            NEED(KERNEL_INFO), 0},
    {NULL, 0, 0},
};

/* Any option that changes what a view computes (not how it is drawn). */
static int opted(const struct tp_view_opts *vo)
{
    return vo->group || vo->device || vo->events || vo->curve || vo->all_steps || vo->columnated || vo->comm ||
           vo->runtime_cutoff_us != 0 || vo->launch_delay_cutoff_us != 0 || vo->hta_quirks || vo->max_queue ||
           vo->path || vo->step_given || vo->annotation || vo->instance || vo->short_us != 0 || vo->per_step ||
           vo->series || vo->hooks || vo->summary;
}

static uint32_t view_needs(const tp_view *v, const struct tp_view_opts *vo)
{
    for (size_t i = 0; view_needs_list[i].v; i++)
        if (view_needs_list[i].v == v) {   /* (every view reads the kinds: one byte an event) */
            uint32_t need = NEED(KIND) | NEED(PH) | view_needs_list[i].plain | (opted(vo) ? view_needs_list[i].opted : 0);
            /* an operator's python ids are a table of their own (format 3) */
            return need & NEED(OP_INFO) ? need | NEED(PY) : need;
        }
    return TP_NEED_ALL;
}

const tp_view *const *tp_views(void)
{
    return registry;
}

const tp_view *tp_view_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; registry[i]; i++)
        if (strcmp(registry[i]->name, name) == 0)
            return registry[i];
    return NULL;
}

const tp_view *tp_view_npu_twin(const tp_view *v)
{
    if (!v || !v->name)
        return NULL;
    for (size_t i = 0; tp_npu_views[i]; i++)
        if (strcmp(tp_npu_views[i]->name, v->name) == 0)
            return tp_npu_views[i];
    return NULL;
}

int tp_view_build(const tp_view *v, const tp_store *st, const struct tp_view_opts *vo,
                  tp_table **out, tp_error *err)
{
    if (out)
        *out = NULL;
    if (!v || !v->build || !st || !out)
        return tp_error_set(err, TP_ERR_USAGE, "tp_view_build: %s%s", !v ? "no view" : !v->build ? v->name ? v->name : "?"
                                                                : !st ? "no store" : "nowhere to put the table",
                            v && !v->build ? " is not built from one store" : "");
    if (!st->linked)
        return tp_error_set(err, TP_ERR_USAGE, "%s: tp_view_build before tp_store_link", st->path);
    static const struct tp_view_opts defaults;   /* NULL options: every default */
    if (!vo)
        vo = &defaults;
    int rc = tp_store_need(st, view_needs(v, vo), err);   /* a lazily read store's columns */
    if (rc != TP_OK)
        return rc;
    if (st->format == TP_SRC_ASCEND) {
        const tp_view *twin = tp_view_npu_twin(v);
        if (twin)
            return twin->build(st, vo, out, err);
    }
    return v->build(st, vo, out, err);
}

const tp_view *tp_view_for_store(const tp_view *v, const tp_store *st)
{
    const tp_view *twin = v && st && st->format == TP_SRC_ASCEND ? tp_view_npu_twin(v) : NULL;
    return twin ? twin : v;
}

int tp_view_check_columns(const tp_view *v, const char *columns, tp_error *err)
{
    size_t idx[256], n;
    if (!v || !columns)
        return tp_error_set(err, TP_ERR_USAGE, "tp_view_check_columns: %s", v ? "no column list" : "no view");
    if (tp_table_select(v->cols, v->ncols, columns, idx, 256, &n, err) == TP_OK)
        return TP_OK;
    const tp_view *twin = tp_view_npu_twin(v);
    tp_error e2 = {0};
    if (twin && tp_table_select(twin->cols, twin->ncols, columns, idx, 256, &n, &e2) == TP_OK) {
        if (err)
            *err = (tp_error){0};
        return TP_OK;
    }
    return err ? (int)err->status : TP_ERR_USAGE;
}

int tp_view_attributes(const tp_view *v, const struct tp_view_opts *vo)
{
    if (!v)
        return 0;
    if (v->attributes == TP_ATTRIBUTES_GROUPED)
        return vo && vo->group && *vo->group;
    return v->attributes == TP_ATTRIBUTES_ALWAYS;
}

const char *tp_view_default_columns(const tp_view *v, const struct tp_view_opts *vo)
{
    static const struct tp_view_opts defaults;
    if (!v)
        return NULL;
    if (!vo)
        vo = &defaults;
    const char *c = v->columns_for ? v->columns_for(vo) : NULL;
    return c ? c : v->default_columns;
}

int tp_view_has_column(const tp_view *v, const char *key)
{
    return v && key && tp_table_col_find(v->cols, v->ncols, key) >= 0;
}

const char *tp_view_column_key(const tp_view *v, size_t i)
{
    return v && i < v->ncols ? v->cols[i].key : NULL;
}

void tp_view_print_columns(const tp_view *v, FILE *out)
{
    size_t wkey = 3, whead = 6;
    if (!v || !out)
        return;
    for (size_t i = 0; i < v->ncols; i++) {
        size_t a = strlen(v->cols[i].key), b = strlen(v->cols[i].header);
        if (a > wkey) wkey = a;
        if (b > whead) whead = b;
    }
    fprintf(out, "  %-*s  %-*s  %s\n", (int)wkey, "key", (int)whead, "header", "description");
    for (size_t i = 0; i < v->ncols; i++)
        fprintf(out, "  %-*s  %-*s  %s\n", (int)wkey, v->cols[i].key, (int)whead, v->cols[i].header,
                v->cols[i].desc ? v->cols[i].desc : "");
    fprintf(out, "default: -c %s\n", v->default_columns);
    const tp_view *twin = tp_view_npu_twin(v);
    if (twin && twin != v) {
        fprintf(out, "\non Ascend NPU folders (%s):\n", twin->summary);
        tp_view_print_columns(twin, out);
    }
}
