/* views.c — the registry of views, built from the command table views.def:
 * each entry gives one tp_view, its place in tp_views() (or among the NPU
 * twins) and the parts of a lazily read store it reads.
 *
 * A view's columns are defined in its own file, expanded from its .def
 * (coldefs_expand.h), where its code sets cells by the same enum.  Here
 * the array is only an extern of unknown size, and C takes no sizeof of
 * that, so the entry includes the view's .def once more and counts its
 * lines into tp_ncols_ID: both counts come from one list, and the view's
 * own expansion asserts its enum against its array.  (The other ways:
 * defining the arrays here would take them away from the code that indexes
 * them; a sentinel row would change struct tp_view's meaning of ncols.) */
#include <string.h>
#include <strings.h>
#include "coll_run.h"
#include "modtree.h"
#include "store.h"
#include "store_file.h"
#include "summ.h"
#include "table.h"
#include "view_options.h"
#include "views.h"

#define NEED(x) TP_NEED_##x
/* What every HTA view reads (tp_hta_init). */
#define HTA (NEED(CORRELATION) | NEED(DUR) | NEED(KIND) | NEED(NAME) | NEED(PH) | NEED(STREAM) | NEED(TS) | \
             NEED(LAUNCHER))

/* The descriptors, each after the count of its columns. */
#define TP_VIEW_COLUMNS(id) enum { tp_ncols_##id = 0
#define TP_COL(id, ...) +1
#define TP_COLV(id, init) +1
#define TP_COLN(id, n, init) +(n)
#define TP_COLS_END(count) };
#define TP_VIEW_OWN_COLS_(id, ...)                                                                 \
    extern const struct tp_coldef tp_##id##_cols[];                                                \
    const tp_view tp_view_##id = {.cols = tp_##id##_cols, .ncols = tp_ncols_##id, .build = tp_##id##_build, \
                                  __VA_ARGS__};
#define TP_VIEW(id, plain, opted, ...) TP_VIEW_OWN_COLS_(id, __VA_ARGS__)
#define TP_NPU_VIEW(id, ...) TP_VIEW_OWN_COLS_(id, __VA_ARGS__)
#define TP_VIEW_SHARED_COLS(id, plain, opted, ...) \
    const tp_view tp_view_##id = {.build = tp_##id##_build, __VA_ARGS__};
#define TP_SUMM_VIEW(id, sv, plain, opted, ...)                                                            \
    int tp_##id##_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err) \
    {                                                                                                      \
        return tp_summ_view_build(&(sv), st, vo, out, err);                                                \
    }                                                                                                      \
    TP_VIEW_OWN_COLS_(id, __VA_ARGS__)
#include "views.def"
#undef TP_VIEW_COLUMNS
#undef TP_COL
#undef TP_COLV
#undef TP_COLN
#undef TP_COLS_END
#undef TP_VIEW
#undef TP_NPU_VIEW
#undef TP_VIEW_SHARED_COLS
#undef TP_SUMM_VIEW

/* The views (tp_views) and, in the same order, the parts of a lazily read
 * store each reads: with its default options, and with any other. */
#define TP_VIEW(id, plain, opted, ...) &tp_view_##id,
#define TP_VIEW_SHARED_COLS TP_VIEW   /* whatever TP_VIEW is, in both lists */
#define TP_SUMM_VIEW(id, sv, plain, opted, ...) &tp_view_##id,
#define TP_NPU_VIEW(id, ...)
static const tp_view *const registry[] = {
#include "views.def"
    NULL,
};
#undef TP_VIEW
#undef TP_SUMM_VIEW
#define TP_VIEW(id, plain, opted, ...) {plain, opted},
#define TP_SUMM_VIEW(id, sv, plain, opted, ...) {plain, opted},
static const struct {
    uint32_t plain, opted;
} view_needs_list[] = {
#include "views.def"
};
_Static_assert(sizeof view_needs_list / sizeof *view_needs_list == sizeof registry / sizeof *registry - 1,
               "a needs entry per view, in the registry's order");
#undef TP_VIEW
#undef TP_VIEW_SHARED_COLS
#undef TP_SUMM_VIEW
#undef TP_NPU_VIEW

/* The Ascend NPU twins. */
#define TP_VIEW(id, ...)
#define TP_VIEW_SHARED_COLS(id, ...)
#define TP_SUMM_VIEW(id, ...)
#define TP_NPU_VIEW(id, ...) &tp_view_##id,
static const tp_view *const npu_registry[] = {
#include "views.def"
    NULL,
};
#undef TP_VIEW
#undef TP_VIEW_SHARED_COLS
#undef TP_SUMM_VIEW
#undef TP_NPU_VIEW

/* Any option that changes what a view computes (not how it is drawn). */
static int opted(const struct tp_view_opts *vo)
{
    return vo->group || vo->device || vo->events || vo->curve || vo->all_steps || vo->columnated || vo->comm ||
           vo->runtime_cutoff_us != 0 || vo->launch_delay_cutoff_us != 0 || vo->hta_quirks || vo->max_queue ||
           vo->path || vo->step_given || vo->annotation || vo->instance || vo->short_us != 0 || vo->per_step ||
           vo->series || vo->hooks || vo->summary;
}

/* 1 when the comma list of columns names one of prof.py's layer and trace
 * (by key or header, any case) or all of them: they come from a kineto
 * trace's python_function events. */
static int names_layer_or_trace(const char *cols)
{
    static const char *const names[] = {"layer", "trace", "all"};
    for (const char *c = cols; *c;) {
        size_t n = strcspn(c, ",");
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
            if (n == strlen(names[i]) && strncasecmp(c, names[i], n) == 0)
                return 1;
        c += n + (c[n] == ',');
    }
    return 0;
}

int tp_view_lean_level(const tp_view *v, const struct tp_view_opts *vo)
{
    int kernels = v->lean_load == TP_LEAN_WITHOUT_LAYER_TRACE ? vo->need_columns && !names_layer_or_trace(vo->need_columns)
                  : v->lean_load == TP_LEAN_WITHOUT_OPTIONS   ? !opted(vo)
                                                              : 0;
    return kernels ? TP_LEAN_KERNELS : v->lean;
}

int tp_view_lean_try(const tp_view *v, const struct tp_view_opts *vo)
{
    int l = tp_view_lean_level(v, vo);
    return v->lean_serves && v->lean_try > l && v->lean_serves(NULL, vo) ? v->lean_try : l;
}

int tp_view_serves(const tp_view *v, const tp_store *st, const struct tp_view_opts *vo)
{
    if (!st->left_out || st->lean <= tp_view_lean_level(v, vo))
        return 1;
    return st->lean <= tp_view_lean_try(v, vo) && v->lean_serves(st, vo);
}

static uint32_t view_needs(const tp_view *v, const struct tp_view_opts *vo)
{
    for (size_t i = 0; registry[i]; i++)
        if (registry[i] == v) {   /* (every view reads the kinds: one byte an event) */
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
    for (size_t i = 0; npu_registry[i]; i++)
        if (strcmp(npu_registry[i]->name, v->name) == 0)
            return npu_registry[i];
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
    if (!tp_view_serves(v, st, vo))
        /* a table from part of the trace would print as if whole */
        return tp_error_set(err, TP_ERR_USAGE, "%s: the %s view (with these options and columns) reads events "
                            "this store was loaded without (tp_store_set_lean)", st->path, v->name);
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
