/* view_critical_path.c — `tprof critical-path`: Holistic Trace Analysis'
 * critical path of one step or annotation instance (critical_path.h builds
 * it).  The default table is HTA's summary(): one row per bound category,
 * the time of the path it takes and its share; --path lists the path edge by
 * edge as HTA's get_critical_path_breakdown() does (in path order: HTA's
 * comes from a set, in no order).  A note on stderr gives the graph's size
 * and the path's node, event and edge counts, the numbers HTA's tests check. */
#include <stdlib.h>
#include "checked.h"
#include "critical_path.h"
#include "table.h"
#include "coldefs.h"
#include "views.h"
#include "try.h"

#define TP_COLS_FILE "view_critical_path.def"
#define TP_COLS_ARRAY tp_critical_path_cols
#define TP_COLS_EXTERN
#include "coldefs_expand.h"

static void set_event(tp_table *t, const tp_store *st, int64_t row)
{
    if (row < 0) {
        for (int c = C_EVENT; c <= C_STREAM; c++)
            tp_table_set_null(t, (size_t)c);
        return;
    }
    char buf[32];
    tp_table_set_int(t, C_EVENT, row);
    tp_table_set_str(t, C_NAME, tp_store_str(st, st->name[row]));
    tp_table_set_str(t, C_CAT, tp_store_str(st, st->cat[row]));
    tp_table_set_int(t, C_PID, st->pid[row]);
    tp_table_set_str(t, C_TID, tp_store_tid_str(st, st->tid[row], buf));
    tp_table_set_int(t, C_STREAM, st->stream[row]);
}

static void path_rows(tp_table *t, const struct tp_hta *h, const struct tp_cp_graph *g, int64_t rank)
{
    for (size_t i = 0; i < g->npath_edges; i++) {
        const struct tp_cp_edge *e = &g->edges[g->path_edges[i]];
        if (tp_table_add_row(t) < 0)
            return;
        tp_table_set_int(t, C_RANK, rank);
        tp_table_set_str(t, C_BOUND, tp_cp_bound_name(tp_cp_bound_by(h, e)));
        tp_table_set_int(t, C_DUR, e->weight);
        tp_table_set_null(t, C_PCT);
        tp_table_set_null(t, C_EDGES);
        tp_table_set_int(t, C_INDEX, (int64_t)i);
        tp_table_set_int(t, C_FROM, e->from);
        tp_table_set_int(t, C_TO, e->to);
        tp_table_set_int(t, C_TS, g->nodes[e->from].ts);
        tp_table_set_str(t, C_TYPE, tp_cp_edge_type_name((enum tp_cp_edge_type)e->type));
        set_event(t, h->st, e->attr_row);
    }
}

static void summary_rows(tp_table *t, const struct tp_hta *h, const struct tp_cp_graph *g, int64_t rank)
{
    int64_t sum[TP_CP_NBOUND] = {0}, count[TP_CP_NBOUND] = {0}, total = 0;
    for (size_t i = 0; i < g->npath_edges; i++) {
        const struct tp_cp_edge *e = &g->edges[g->path_edges[i]];
        enum tp_cp_bound b = tp_cp_bound_by(h, e);
        tp_sat_add(&sum[b], e->weight);
        count[b]++;
        tp_sat_add(&total, e->weight);
    }
    for (int b = 0; b < TP_CP_BOUND_NONE; b++) {
        if (tp_table_add_row(t) < 0)
            return;
        tp_table_set_int(t, C_RANK, rank);
        tp_table_set_str(t, C_BOUND, tp_cp_bound_name((enum tp_cp_bound)b));
        tp_table_set_int(t, C_DUR, sum[b]);
        if (total != 0)
            tp_table_set_float(t, C_PCT, 100.0 * (double)sum[b] / (double)total);
        else
            tp_table_set_null(t, C_PCT);
        tp_table_set_int(t, C_EDGES, count[b]);
        for (int c = C_INDEX; c <= C_STREAM; c++)
            tp_table_set_null(t, (size_t)c);
    }
}

int tp_critical_path_build(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err)
{
    struct tp_hta h;
    TP_TRY_NOMEM(tp_hta_init(&h, st, vo) >= 0, err);
    int64_t start, end;
    int64_t step = vo && vo->step_given ? vo->step : -1;
    int rc = tp_cp_window(&h, step, vo ? vo->annotation : NULL, vo ? vo->instance : 0, &start, &end, err);
    struct tp_cp_graph g;
    if (rc == TP_OK)
        rc = tp_cp_build(&h, start, end, &g, err);
    if (rc != TP_OK) {
        tp_hta_free(&h);
        return rc;
    }
    tp_table *t = tp_table_new(tp_critical_path_cols, C_N);
    if (!t) {
        tp_cp_free(&g);
        tp_hta_free(&h);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    int64_t rank = tp_hta_rank(st);
    if (vo && vo->path)
        path_rows(t, &h, &g, rank);
    else
        summary_rows(t, &h, &g, rank);
    tp_error_set(err, TP_OK,
                 "%s: critical path of %.3f..%.3f us: %zu nodes (%zu events), %zu edges, %.3f us long; "
                 "graph of %zu nodes and %zu edges",
                 st->path, (double)start / 1000.0, (double)end / 1000.0, g.npath, g.npath_events,
                 g.npath_edges, (double)g.length / 1000.0, g.nnodes, g.nedges);
    tp_cp_free(&g);
    tp_hta_free(&h);
    *out = t;
    return TP_OK;
}

/* 1 when no edge of the path is charged to a host event with a stream,
 * computed from store st as loaded.  Only such a charge can differ from a
 * whole load's (tp_cp_lean_serves says why): the graph, its weights and the
 * path do not read the frames left out, and an edge charged elsewhere is
 * bound alike by a frame and by the row a lean load finds in its place.
 * Where the path cannot be computed, 0: the whole load decides the error.
 * It is computed again by the build (and by report's check before it):
 * 0.03-0.04 s a GB, on traces with a host event with a stream only, where
 * the other answer is loading the trace again. */
static int path_clear_of_streamed_hosts(const tp_store *st, const struct tp_view_opts *vo)
{
    struct tp_hta h;
    if (tp_hta_init(&h, st, vo) < 0)
        return 0;
    tp_error err = {0};
    int64_t start, end, step = vo && vo->step_given ? vo->step : -1;
    struct tp_cp_graph g = {0};   /* freed whole or in part, built or not */
    int clear = tp_cp_window(&h, step, NULL, 0, &start, &end, &err) == TP_OK &&
                tp_cp_build(&h, start, end, &g, &err) == TP_OK;
    for (size_t i = 0; clear && i < g.npath_edges; i++) {
        int64_t r = g.edges[g.path_edges[i]].attr_row;
        clear = r < 0 || st->stream[r] < 0 || !tp_cp_host_nested(st, (size_t)r);
    }
    tp_cp_free(&g);
    tp_hta_free(&h);
    return clear;
}

/* The summary of a step's or the whole trace's path (not --path, which
 * names the events; not --annotation, which matches any name; not HTA's
 * quirks, which round each frame's end) from a store without most python
 * frames (TP_LEAN_PYGRAPH), where tp_cp_lean_serves finds nothing of them
 * that bears on it, or else the path, computed, has no edge they could
 * take. */
int tp_critical_path_lean_serves(const tp_store *st, const struct tp_view_opts *vo)
{
    if ((vo && (vo->path || vo->annotation || vo->hta_quirks)) || tp_hta_quirks_env())
        return 0;
    return !st || tp_cp_lean_serves(st) || path_clear_of_streamed_hosts(st, vo);
}

const char *tp_critical_path_columns_for(const struct tp_view_opts *vo)
{
    return vo && vo->path ? "index,from,to,duration,type,bound_by,stream,name" : NULL;
}
