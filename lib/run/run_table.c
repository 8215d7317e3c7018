/* run_table.c — the tables of a view shown over a run directory: a rank and
 * a worker column in front of every per-rank view (unless it has its own
 * rank column), one block of rows per rank, and the column lists that go
 * with them.  The CLI prints what this builds; it used to build it too.
 * --with-file uses the same blocks for every input at once: the rows of
 * each trace (or rank, or whole-run table) under its file. */
#include <stdlib.h>
#include <string.h>
#include "table.h"
#include "tprof.h"
#include "try.h"

/* The columns a run adds in front of a per-rank view (file is shown with
 * --with-file or when -c names it; rank and worker when the view has no
 * rank column of its own: see RUNCOLS). */
static const struct tp_coldef run_cols[] = {
    {"file", "File", TP_COL_STR, -1, 0, "the input the row comes from, as given (a run: the rank's trace "
                                        "in its directory); shown first with --with-file"},
    {"rank", "Rank", TP_COL_INT, -1, 0, "run: the rank (distributedInfo.rank, else the file name, else the order)"},
    {"worker", "Worker", TP_COL_STR, -1, 0, "run: the worker (trace file name without [.SPAN].pt.trace.json)"},
};
#define NRUNCOLS (sizeof run_cols / sizeof *run_cols)

/* ---- comma-separated column lists ---- */

/* The length of the list item at p (up to the next comma or the end). */
static size_t item_len(const char *p)
{
    const char *e = strchr(p, ',');
    return e ? (size_t)(e - p) : strlen(p);
}

static int item_is(const char *p, size_t len, const char *key)
{
    return strlen(key) == len && memcmp(p, key, len) == 0;
}

static int is_run_key(const char *p, size_t len)
{
    for (size_t i = 0; i < NRUNCOLS; i++)
        if (item_is(p, len, run_cols[i].key))
            return 1;
    return 0;
}

static int has_key(const char *list, const char *key)
{
    for (const char *p = list; p && *p;) {
        size_t len = item_len(p);
        if (item_is(p, len, key))
            return 1;
        p += len + (p[len] ? 1 : 0);
    }
    return 0;
}

/* list without the items `drop` says no to, in a new string; "" when none
 * is left; NULL on out of memory. */
static char *list_without(const char *list, int (*drop)(const char *p, size_t len, const void *ctx), const void *ctx)
{
    char *o = malloc(strlen(list) + 1);
    if (!o)
        return NULL;
    size_t n = 0;
    for (const char *p = list; *p;) {
        size_t len = item_len(p);
        if (!drop(p, len, ctx)) {
            if (n)
                o[n++] = ',';
            memcpy(o + n, p, len);
            n += len;
        }
        p += len + (p[len] ? 1 : 0);
    }
    o[n] = 0;
    return o;
}

static int drop_run_key(const char *p, size_t len, const void *unused)
{
    (void)unused;
    return is_run_key(p, len);
}

static int drop_key(const char *p, size_t len, const void *key)
{
    return item_is(p, len, key);
}

/* A --sort key (maybe signed) that is not a column of view ctx. */
static int drop_other_sort_key(const char *p, size_t len, const void *ctx)
{
    size_t skip = len && (*p == '-' || *p == '+');
    char key[128];
    if (len - skip >= sizeof key)
        return 1;
    memcpy(key, p + skip, len - skip);
    key[len - skip] = 0;
    return !tp_view_has_column(ctx, key);
}

int tp_run_check_columns(const tp_view *v, const char *columns, tp_error *err)
{
    if (!v || !columns)
        return tp_error_set(err, TP_ERR_USAGE, "tp_run_check_columns: %s", v ? "no column list" : "no view");
    char *rest = list_without(columns, drop_run_key, NULL);
    TP_TRY_NOMEM(rest, err);
    int rc = *rest ? tp_view_check_columns(v, rest, err) : TP_OK;   /* rank,worker alone: nothing to check */
    free(rest);
    return rc;
}

int tp_run_write_table(const tp_view *v, const tp_table *t, const struct tp_output_opts *o,
                       const struct tp_view_opts *vo, FILE *out, tp_error *err)
{
    if (!v || !t || !o || !out)
        return tp_error_set(err, TP_ERR_USAGE, "tp_run_write_table: %s", !v ? "no view" : !t ? "no table"
                                                                        : !o ? "no output options" : "no file");
    struct tp_output_opts wo = *o;
    char *cols = NULL;
    if (!wo.columns) {
        wo.columns = tp_table_default_columns(t);
        if (!wo.columns)
            wo.columns = tp_view_default_columns(v, vo);
    } else if (!tp_view_has_column(v, "rank")) {
        /* a one-table view of a run has no rank of its own to show */
        if (!(cols = list_without(o->columns, drop_run_key, NULL)))
            return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        wo.columns = *cols ? cols : tp_view_default_columns(v, vo);
    }
    int rc = tp_table_write(t, &wo, out, err);
    free(cols);
    return rc;
}

/* ---- one block of rows per rank ---- */

struct tp_rank_table {
    const tp_view *v;                /* the view the rank tables come from (a view or an NPU twin) */
    int files;                       /* --with-file: the file column first */
    int prepend;                     /* rank/worker columns added (the view has no rank column) */
    int any_rank;                    /* a row came from a rank of a run */
    size_t off;                      /* the first of the view's own columns */
    struct tp_coldef *cols;          /* what the table is made of: file, [rank, worker,] the view's */
    tp_table *t;
};

static int block_new(const tp_view *v, int files, tp_rank_table **out, tp_error *err)
{
    if (out)
        *out = NULL;
    if (!v || !out || (!v->cols && v->ncols))
        return tp_error_set(err, TP_ERR_USAGE, "tp_rank_table_new: %s", !out ? "nowhere to put it" : "no view");
    tp_rank_table *b = calloc(1, sizeof *b);
    TP_TRY_NOMEM(b, err);
    b->v = v;
    b->files = files;
    b->prepend = !tp_view_has_column(v, "rank");
    b->off = b->prepend ? NRUNCOLS : 1;   /* file, then rank and worker */
    b->cols = malloc((v->ncols + b->off) * sizeof *b->cols + 1);
    if (b->cols) {
        memcpy(b->cols, run_cols, b->off * sizeof *b->cols);
        if (v->ncols)
            memcpy(b->cols + b->off, v->cols, v->ncols * sizeof *b->cols);
        b->t = tp_table_new(b->cols, v->ncols + b->off);
    }
    if (!b->t) {
        tp_rank_table_free(b);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    *out = b;
    return TP_OK;
}

int tp_rank_table_new(const tp_view *v, tp_rank_table **out, tp_error *err)
{
    return block_new(v, 0, out, err);
}

int tp_rank_table_new_files(const tp_view *v, tp_rank_table **out, tp_error *err)
{
    return block_new(v, 1, out, err);
}

const tp_view *tp_rank_table_view(const tp_rank_table *b)
{
    return b ? b->v : NULL;
}

/* Append t's rows in the order o gives them under file `path` and, when k
 * is not NULL, rank k. */
static int block_add(tp_rank_table *b, const char *path, const struct tp_run_rank *k, const tp_table *t,
                     const struct tp_output_opts *o, tp_error *err)
{
    if (tp_table_cols(t) != b->v->ncols)
        return tp_error_set(err, TP_ERR_USAGE, "tp_rank_table_add: a table of %zu columns, not the %zu of view %s",
                            tp_table_cols(t), b->v->ncols, b->v->name ? b->v->name : "?");
    size_t n = 0, *perm = NULL;
    struct tp_output_opts ro = *o;
    /* the view's own sort keys; a run column (file, rank) is the block's order */
    char *sort = o->sort ? list_without(o->sort, drop_other_sort_key, b->v) : NULL;
    if (o->sort && !sort)
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    ro.sort = sort && *sort ? sort : NULL;
    int rc = tp_table_order(t, &ro, &perm, &n, err);
    free(sort);
    if (rc != TP_OK)
        return rc;
    b->any_rank |= k != NULL;
    if (!tp_table_chart(b->t))   /* --plot: the block is drawn as its ranks' tables are */
        tp_table_set_chart(b->t, tp_table_chart(t));
    /* a block shows the columns its first rank's input chose (the ranks of
     * one run were recorded alike) */
    if (tp_table_default_columns(t) && !tp_table_default_columns(b->t) &&
        tp_table_set_default_columns(b->t, tp_table_default_columns(t)) < 0) {
        free(perm);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        size_t r = perm ? perm[i] : i;
        if (tp_table_add_row(b->t) < 0)
            break;
        tp_table_set_str(b->t, 0, path ? path : "");
        if (b->prepend && k) {
            tp_table_set_int(b->t, 1, k->rank);
            tp_table_set_str(b->t, 2, k->worker ? k->worker : "");
        }
        for (size_t c = 0; c < b->v->ncols; c++) {
            size_t len;
            const char *s;
            switch (tp_table_cell_kind(t, r, c)) {
            case TP_CELL_STR:
                s = tp_table_cell_strn(t, r, c, &len);
                tp_table_set_strn(b->t, b->off + c, s, len);
                break;
            case TP_CELL_INT: tp_table_set_int(b->t, b->off + c, tp_table_cell_int(t, r, c)); break;
            case TP_CELL_FLOAT: tp_table_set_float(b->t, b->off + c, tp_table_cell_float(t, r, c)); break;
            default: break;
            }
        }
    }
    free(perm);
    return tp_table_nomem(b->t) ? tp_error_set(err, TP_ERR_NOMEM, "out of memory") : TP_OK;
}

int tp_rank_table_add(tp_rank_table *b, const struct tp_run_rank *k, const tp_table *t,
                      const struct tp_output_opts *o, tp_error *err)
{
    if (!b || !k || !t || !o)
        return tp_error_set(err, TP_ERR_USAGE, "tp_rank_table_add: %s", !b ? "no block" : !k ? "no rank"
                                                                       : !t ? "no table" : "no output options");
    return block_add(b, k->path, k, t, o, err);
}

int tp_rank_table_add_file(tp_rank_table *b, const char *path, const tp_table *t, const struct tp_output_opts *o,
                           tp_error *err)
{
    if (!b || !path || !t || !o)
        return tp_error_set(err, TP_ERR_USAGE, "tp_rank_table_add_file: %s", !b ? "no block" : !path ? "no path"
                                                                            : !t ? "no table" : "no output options");
    return block_add(b, path, NULL, t, o, err);
}

/* "KEYS,list" (list may be ""), in a new string; NULL on out of memory. */
static char *list_with_front(const char *keys, const char *list)
{
    char *o = malloc(strlen(keys) + strlen(list) + 2);
    if (o)
        sprintf(o, "%s%s%s", keys, *list ? "," : "", list);
    return o;
}

int tp_rank_table_write(const tp_rank_table *b, const struct tp_output_opts *o,
                        const struct tp_view_opts *vo, FILE *out, tp_error *err)
{
    if (!b || !o || !out)
        return tp_error_set(err, TP_ERR_USAGE, "tp_rank_table_write: %s", !b ? "no block" : !o ? "no output options"
                                                                                           : "no file");
    struct tp_output_opts wo = *o;
    wo.sort = NULL;   /* applied per rank in tp_rank_table_add, as --name and --top */
    wo.top = 0;
    wo.name_regex = NULL;
    char *own = NULL, *cols = NULL;
    const char *list = wo.columns ? wo.columns : tp_table_default_columns(b->t);
    if (!list)
        list = tp_view_default_columns(b->v, vo);
    if (!list)
        list = "";
    if (!b->prepend && has_key(list, "worker") && !tp_view_has_column(b->v, "worker")) {
        /* the view has its own rank column but no worker: leave worker out */
        if (!(own = list_without(list, drop_key, "worker")))
            return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        list = *own ? own : "rank";
    }
    /* the rank in front when rows came from ranks and the list names
     * neither; with --with-file, the file before it, both unless the list
     * names the file (then it is taken as it is) */
    int add_file = b->files && !has_key(list, "file");
    int add_rank = b->prepend && (b->files ? add_file && b->any_rank : 1) && !has_key(list, "rank") &&
                   !has_key(list, "worker");
    if ((add_rank || add_file) &&
        !(cols = list_with_front(add_file && add_rank ? "file,rank" : add_file ? "file" : "rank", list))) {
        free(own);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    wo.columns = cols ? cols : list;
    int rc = tp_table_write(b->t, &wo, out, err);
    free(cols);
    free(own);
    return rc;
}

void tp_rank_table_free(tp_rank_table *b)
{
    if (!b)
        return;
    tp_table_free(b->t);
    free(b->cols);
    free(b);
}
