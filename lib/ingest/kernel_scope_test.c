/* kernel_scope_test.c — an nvprof dump loaded for its kernels alone
 * (tp_store_set_kernel_scope) keeps only the runtime calls with a kernel's
 * correlation id and the NVTX ranges around them on their thread, and still
 * counts every malformed or unpaired row; its prof.py annotations equal
 * those of the whole load.  Plus the two lookups it uses (launch_scope.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sqlite3.h>
#include "ingest.h"
#include "testing.h"

/* thread A = pid 1, tid 10; thread B = pid 1, tid 11 */
static const char *const dump_sql =
    "CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY, value TEXT);"
    "INSERT INTO StringTable VALUES (1, 'kern_a'), (2, 'layer:outer'), (3, 'layer:inner'), (4, 'other'),"
    " (5, 'never closed');"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(_id_ INTEGER PRIMARY KEY, name INT, correlationId INT,"
    " start INT, end INT, deviceId INT, streamId INT, gridX INT, gridY INT, gridZ INT, blockX INT, blockY INT,"
    " blockZ INT, registersPerThread INT, staticSharedMemory INT, dynamicSharedMemory INT);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL VALUES"
    " (1, 1, 100, 5000, 5100, 0, 7, 1, 1, 1, 32, 1, 1, 16, 0, 0),"
    " (2, 1, 200, 6000, 6100, 0, 7, 1, 1, 1, 32, 1, 1, 16, 0, 0);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(_id_ INTEGER PRIMARY KEY, cbid INT, start INT, end INT,"
    " processId INT, threadId INT, correlationId INT);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
    " (1, 211, 1000, 1100, 1, 10, 100),"           /* k1's launch */
    " (2, 211, 2000, 2100, 1, 10, 200),"           /* k2's launch */
    " (3, 20, 1500, 1600, 1, 10, 150),"            /* no kernel: left out */
    " (4, 20, 'soon', 1700, 1, 10, 300),"          /* malformed, no kernel: counted all the same */
    " (5, 211, 3000, 3100, 1, 10, 100);"           /* k1's id again: kept (the first one wins) */
    "CREATE TABLE CUPTI_ACTIVITY_KIND_DRIVER(_id_ INTEGER PRIMARY KEY, cbid INT, start INT, end INT,"
    " processId INT, threadId INT, correlationId INT);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MARKER(_id_ INTEGER PRIMARY KEY, flags INT, timestamp INT, id INT,"
    " objectId BLOB, name INT);"
    "INSERT INTO CUPTI_ACTIVITY_KIND_MARKER VALUES"
    " (1, 2, 800, 1, X'010000000A00000000000000', 2),"    /* outer: around both launches */
    " (2, 2, 900, 2, X'010000000A00000000000000', 3),"    /* inner: around k1's launch */
    " (3, 4, 1200, 2, X'010000000A00000000000000', 0),"
    " (4, 2, 1400, 3, X'010000000A00000000000000', 4),"   /* around the call of no kernel */
    " (5, 4, 1700, 3, X'010000000A00000000000000', 0),"
    " (6, 2, 1950, 4, X'010000000A00000000000000', 4),"   /* ends inside k2's launch */
    " (7, 4, 2050, 4, X'010000000A00000000000000', 0),"
    " (8, 2, 500, 5, X'010000000B00000000000000', 4),"    /* thread B: launches nothing */
    " (9, 4, 9000, 5, X'010000000B00000000000000', 0),"
    " (10, 1, 950, 6, X'010000000A00000000000000', 4),"   /* an instantaneous mark */
    " (11, 2, 990, 7, X'010000000A00000000000000', 5),"   /* never closed */
    " (12, 4, 2990, 8, X'010000000A00000000000000', 0),"  /* an end without a start */
    " (13, 4, 2500, 1, X'010000000A00000000000000', 0);";

static size_t count_kind(const tp_store *st, enum tp_kind k, char ph)
{
    size_t n = 0;
    for (size_t i = 0; i < st->n; i++)
        n += st->kind[i] == k && (!ph || st->ph[i] == ph);
    return n;
}

/* path loaded (kernel-scoped, and at a lean level) and linked; *rc the
 * first status that is not TP_OK. */
static tp_store *load_lean(const char *path, int scoped, int lean, int *rc)
{
    tp_store *st = tp_store_new();
    tp_error err = {0};
    if (scoped)
        tp_store_set_kernel_scope(st);
    tp_store_set_lean(st, lean);
    *rc = tp_store_load(st, path, &err);
    if (*rc == TP_OK)
        *rc = tp_store_link(st, &err);
    return st;
}

static tp_store *load(const char *path, int scoped, int *rc)
{
    return load_lean(path, scoped, TP_LEAN_NONE, rc);
}

/* 1 when text is written to path whole. */
static int write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    int ok = f && fputs(text, f) >= 0;
    if (f)
        ok = fclose(f) == 0 && ok;
    return ok;
}

/* A temporary folder and the path of a trace file t.json in it (written
 * by the caller); scratch_close removes both. */
struct scratch { char dir[64], path[80]; };

static int scratch_open(struct scratch *sc, const char *tag)
{
    if (tt_tmpdir(sc->dir, sizeof sc->dir, tag) < 0)
        return -1;
    snprintf(sc->path, sizeof sc->path, "%s/t.json", sc->dir);
    return 0;
}

static void scratch_close(const struct scratch *sc)
{
    unlink(sc->path);
    rmdir(sc->dir);
}

static int same_skips(const tp_store *a, const tp_store *b)
{
    if (a->nskips != b->nskips)
        return 0;
    for (size_t i = 0; i < a->nskips; i++)
        if (strcmp(a->skips[i].reason, b->skips[i].reason) || a->skips[i].count != b->skips[i].count ||
            a->skips[i].first_offset != b->skips[i].first_offset || a->skips[i].malformed != b->skips[i].malformed)
            return 0;
    return 1;
}

static int same_annots(const tp_store *a, const tp_store *b)
{
    if (a->nannots != b->nannots)
        return 0;
    for (size_t i = 0; i < a->nannots; i++) {
        const struct tp_kernel_annot *x = &a->annots[i], *y = &b->annots[i];
        if (x->event != y->event || x->tid != y->tid || x->bprop != y->bprop || x->sub != y->sub ||
            strcmp(tp_store_str(a, x->layer), tp_store_str(b, y->layer)) ||
            strcmp(tp_store_str(a, x->seq), tp_store_str(b, y->seq)) ||
            strcmp(tp_store_str(a, x->op), tp_store_str(b, y->op)) ||
            strcmp(tp_store_str(a, x->trace), tp_store_str(b, y->trace)))
            return 0;
    }
    return 1;
}

static void dump_scope(void)
{
    char dir[64], path[80];
    if (tt_tmpdir(dir, sizeof dir, "kernel_scope") < 0)
        return;
    snprintf(path, sizeof path, "%s/net.sql", dir);
    sqlite3 *db;
    int ok = sqlite3_open(path, &db) == SQLITE_OK && sqlite3_exec(db, dump_sql, NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_close(db);
    CHECK("kernel_scope.dump_written", ok);
    int rcw, rcs;
    tp_store *whole = load(path, 0, &rcw), *part = load(path, 1, &rcs);
    CHECK_INT("kernel_scope.whole_loads", rcw, TP_OK);
    CHECK_INT("kernel_scope.scoped_loads", rcs, TP_OK);
    CHECK_INT("kernel_scope.whole_runtime", count_kind(whole, TP_K_RUNTIME, 0), 4);
    CHECK_INT("kernel_scope.whole_ranges", count_kind(whole, TP_K_NVTX, 'X'), 5);
    CHECK_INT("kernel_scope.whole_marks", count_kind(whole, TP_K_NVTX, 'i'), 1);
    CHECK_INT("kernel_scope.kernels", count_kind(part, TP_K_KERNEL, 0), 2);
    CHECK_INT("kernel_scope.launches_kept", count_kind(part, TP_K_RUNTIME, 0), 3);
    CHECK_INT("kernel_scope.ranges_kept", count_kind(part, TP_K_NVTX, 'X'), 2);
    CHECK_INT("kernel_scope.no_marks", count_kind(part, TP_K_NVTX, 'i'), 0);
    CHECK("kernel_scope.same_skips", same_skips(whole, part) && whole->nskips == 3);
    CHECK("kernel_scope.same_annots", same_annots(whole, part) && part->nannots == 2);
    CHECK_STR("kernel_scope.k1_layer", tp_store_str(part, part->annots[0].layer), "outer:inner");
    CHECK_STR("kernel_scope.k2_layer", tp_store_str(part, part->annots[1].layer), "outer");
    /* marker ids far apart: the end rows are sorted instead of counted
     * into place, with the same pairs */
    sqlite3_open(path, &db);
    ok = sqlite3_exec(db, "UPDATE CUPTI_ACTIVITY_KIND_MARKER SET id = id * 1000000000", NULL, NULL, NULL) == SQLITE_OK;
    sqlite3_close(db);
    int rcp;
    tp_store *sparse = load(path, 1, &rcp);
    CHECK("kernel_scope.sparse_ids", ok && rcp == TP_OK && count_kind(sparse, TP_K_NVTX, 'X') == 2 &&
                                     same_skips(whole, sparse) && same_annots(whole, sparse));
    tp_store_free(sparse);
    tp_error err = {0};
    char out[80];
    snprintf(out, sizeof out, "%s/x.tprof", dir);
    CHECK_INT("kernel_scope.not_saved", tp_store_save(part, NULL, out, &err), TP_ERR_USAGE);
    CHECK("kernel_scope.nothing_written", access(out, F_OK) != 0);
    tp_store_free(whole);
    tp_store_free(part);
    unlink(path);
    rmdir(dir);
}

static void launch_lookups(void)
{
    tp_store *st = tp_store_new();
    /* thread (1, 10): calls [100, 110] and [200, 260]; thread (1, 11): [150, 151] */
    int64_t call[][4] = { { 1, 10, 200, 60 }, { 1, 11, 150, 1 }, { 1, 10, 100, 10 } };
    for (int i = 0; i < 3; i++) {
        int64_t r = tp_store_add(st);
        st->kind[r] = TP_K_RUNTIME;
        st->pid[r] = call[i][0];
        st->tid[r] = call[i][1];
        st->ts[r] = call[i][2];
        st->dur[r] = call[i][3];
    }
    struct tp_launch_scope ls = {0};
    CHECK_INT("launch_scope.build", tp_launch_scope_build(&ls, st), 0);
    CHECK("launch_scope.encloses_first", tp_launch_scope_encloses(&ls, 1, 10, 99, 111));
    CHECK("launch_scope.start_not_before", !tp_launch_scope_encloses(&ls, 1, 10, 100, 111));
    CHECK("launch_scope.end_not_after", !tp_launch_scope_encloses(&ls, 1, 10, 99, 110));
    CHECK("launch_scope.later_call", tp_launch_scope_encloses(&ls, 1, 10, 150, 261));
    CHECK("launch_scope.short_of_both", !tp_launch_scope_encloses(&ls, 1, 10, 0, 105));
    CHECK("launch_scope.other_thread", tp_launch_scope_encloses(&ls, 1, 11, 140, 160) &&
                                       !tp_launch_scope_encloses(&ls, 1, 12, 0, 1000) &&
                                       !tp_launch_scope_encloses(&ls, 2, 10, 0, 1000));
    tp_launch_scope_free(&ls);

    /* correlation ids: a bitmap over a dense span, a map when far apart */
    int64_t dense[] = { 7, 9, 12 }, sparse[] = { 5, INT64_C(1) << 40, -3 };
    for (int m = 0; m < 2; m++) {
        tp_store *k = tp_store_new();
        for (int i = 0; i < 3; i++) {
            int64_t r = tp_store_add(k);
            k->kind[r] = TP_K_KERNEL;
            k->correlation[r] = m ? sparse[i] : dense[i];
        }
        int64_t r = tp_store_add(k);    /* a runtime call's id is no kernel's */
        k->kind[r] = TP_K_RUNTIME;
        k->correlation[r] = 8;
        struct tp_corr_set cs;
        CHECK_INT(m ? "corr_set.map_build" : "corr_set.bitmap_build", tp_corr_set_build(&cs, k), 0);
        CHECK(m ? "corr_set.map_kind" : "corr_set.bitmap_kind", m ? !cs.bits : cs.bits != NULL);
        int all = 1;
        for (int i = 0; i < 3; i++)
            all &= tp_corr_set_has(&cs, m ? sparse[i] : dense[i]);
        CHECK(m ? "corr_set.map_has" : "corr_set.bitmap_has", all);
        CHECK(m ? "corr_set.map_not" : "corr_set.bitmap_not",
              !tp_corr_set_has(&cs, 8) && !tp_corr_set_has(&cs, 6) && !tp_corr_set_has(&cs, 13) &&
              !tp_corr_set_has(&cs, INT64_MIN + 1) && !tp_corr_set_has(&cs, INT64_MAX));
        tp_corr_set_free(&cs);
        tp_store_free(k);
    }
    tp_store_free(st);
}

/* A kineto trace on one thread: python_function events around operators
 * (one named like an autograd node, one with its name before its category,
 * one with nested args), operators launching three kernels. */
static const char *const kineto_json =
    "{\"traceEvents\": [\n"
    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"model.py(10): forward\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 100, \"dur\": 900, \"args\": {\"Python id\": 1, \"Python parent id\": 0, \"finished\": true}},\n"
    " {\"name\": \"nn.Module: Linear_0\", \"ph\": \"X\", \"cat\": \"Python_Function\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 110, \"dur\": 300, \"args\": {\"Python id\": 2, \"Python parent id\": 1, \"Python module id\": 0,"
    "  \"nested\": {\"a\": [1, [2, {\"b\": \"c\\\"d\"}]], \"e\": null}}},\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::linear\", \"pid\": 1, \"tid\": 1, \"ts\": 120,"
    "  \"dur\": 200, \"args\": {\"External id\": 1, \"Sequence number\": 5, \"Input Dims\": [[4, 8], [8, 8]]}},\n"
    " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 130, \"dur\": 10, \"args\": {\"correlation\": 11}},\n"
    /* a flow pair and a memory event: no view a lean store serves reads them */
    " {\"ph\": \"s\", \"id\": 11, \"pid\": 1, \"tid\": 1, \"ts\": 130, \"cat\": \"ac2g\", \"name\": \"launch\"},\n"
    " {\"ph\": \"f\", \"id\": 11, \"pid\": 0, \"tid\": 7, \"ts\": 200, \"cat\": \"ac2g\", \"name\": \"launch\","
    "  \"bp\": \"e\"},\n"
    /* a forward-backward flow pair: the operator-tree views read those */
    " {\"ph\": \"s\", \"id\": 5, \"pid\": 1, \"tid\": 1, \"ts\": 120, \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\"},\n"
    " {\"ph\": \"f\", \"id\": 5, \"pid\": 1, \"tid\": 1, \"ts\": 510, \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\","
    "  \"bp\": \"e\"},\n"
    " {\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": 125,"
    "  \"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Addr\": 4096, \"Bytes\": 512}},\n"
    " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 150, \"dur\": 10, \"args\": {\"correlation\": 12}},\n"
    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"torch/autograd: MulBackward0\", \"pid\": 1,"
    "  \"tid\": 1, \"ts\": 500, \"dur\": 300, \"args\": {\"Python id\": 3, \"Python parent id\": 1}},\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mul\", \"pid\": 1, \"tid\": 1, \"ts\": 510,"
    "  \"dur\": 100, \"args\": {\"External id\": 2}},\n"
    " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 520, \"dur\": 10, \"args\": {\"correlation\": 13}},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 200, \"dur\": 50,"
    "  \"args\": {\"correlation\": 11, \"device\": 0, \"stream\": 7}},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"bias\", \"pid\": 0, \"tid\": 7, \"ts\": 260, \"dur\": 5,"
    "  \"args\": {\"correlation\": 12, \"device\": 0, \"stream\": 7}},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"mul\", \"pid\": 0, \"tid\": 7, \"ts\": 600, \"dur\": 5,"
    "  \"args\": {\"correlation\": 13, \"device\": 0, \"stream\": 7}},\n"
    /* no launch record, after the first python_function event and before
     * the first operator: lost by the profiler, not before it started */
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"lost\", \"pid\": 0, \"tid\": 7, \"ts\": 105, \"dur\": 5,"
    "  \"args\": {\"correlation\": 14, \"device\": 0, \"stream\": 7}}\n"
    "]}\n";

/* The prof.py fields a view without layer and trace reads, compared by
 * value (rows differ: the python rows are gone). */
static int same_annots_but_python(const tp_store *a, const tp_store *b)
{
    if (a->nannots != b->nannots)
        return 0;
    for (size_t i = 0; i < a->nannots; i++) {
        const struct tp_kernel_annot *x = &a->annots[i], *y = &b->annots[i];
        if (x->tid != y->tid || x->bprop != y->bprop || x->sub != y->sub ||
            strcmp(tp_store_str(a, a->name[x->event]), tp_store_str(b, b->name[y->event])) ||
            strcmp(tp_store_str(a, x->seq), tp_store_str(b, y->seq)) ||
            strcmp(tp_store_str(a, x->mod), tp_store_str(b, y->mod)) ||
            strcmp(tp_store_str(a, x->op), tp_store_str(b, y->op)) ||
            strcmp(tp_store_str(a, x->input_dims), tp_store_str(b, y->input_dims)))
            return 0;
    }
    return 1;
}

/* View v of st as CSV with its footer (NULL when it is not built). */
static char *view_text(const char *v, const tp_store *st, const struct tp_view_opts *vo, size_t *len)
{
    char *text = NULL;
    tp_table *t = NULL;
    tp_error err = {0};
    *len = 0;
    if (tp_view_build(tp_view_find(v), st, vo, &t, &err) != TP_OK)
        return NULL;
    FILE *f = open_memstream(&text, len);
    struct tp_output_opts o;
    tp_output_opts_init(&o);
    o.format = TP_FMT_CSV;
    if (f) {
        tp_table_write(t, &o, f, &err);
        fprintf(f, "%s", tp_table_footer(t) ? tp_table_footer(t) : "");
        fclose(f);
    }
    tp_table_free(t);
    return text;
}

/* View v of stores a and b the same as CSV with its footer: 1 when equal. */
static int same_view_opts(const char *v, const tp_store *a, const tp_store *b, const struct tp_view_opts *vo)
{
    size_t la, lb;
    char *ta = view_text(v, a, vo, &la), *tb = view_text(v, b, vo, &lb);
    int same = ta && tb && la > 0 && la == lb && memcmp(ta, tb, la) == 0;
    free(ta);
    free(tb);
    return same;
}

/* The same with option --series (NULL none). */
static int same_view_series(const char *v, const tp_store *a, const tp_store *b, const char *series)
{
    struct tp_view_opts vo = {0};
    vo.series = series;
    return same_view_opts(v, a, b, &vo);
}

static int same_view(const char *v, const tp_store *a, const tp_store *b)
{
    return same_view_series(v, a, b, NULL);
}

/* tp_store_set_lean: a kineto trace keeps no flow or memory events and
 * only the python_function events named like autograd nodes, and the
 * prof.py fields but layer and trace are those of the whole load. */
static void kineto_lean(void)
{
    struct scratch sc;
    if (scratch_open(&sc, "no-python") < 0)
        return;
    const char *path = sc.path;
    CHECK("lean.trace_written", write_text(path, kineto_json));
    int rcw, rcs;
    tp_store *whole = load(path, 1, &rcw);
    tp_store *part = load_lean(path, 0, TP_LEAN_KERNELS, &rcs);
    tp_error err = {0};
    CHECK_INT("lean.whole_loads", rcw, TP_OK);
    CHECK_INT("lean.part_loads", rcs, TP_OK);
    CHECK_INT("lean.whole_python", count_kind(whole, TP_K_PYTHON_FUNCTION, 0), 3);
    CHECK_INT("lean.autograd_kept", count_kind(part, TP_K_PYTHON_FUNCTION, 0), 1);
    CHECK_INT("lean.whole_flows", count_kind(whole, TP_K_FLOW, 0), 4);
    CHECK_INT("lean.whole_memory", count_kind(whole, TP_K_MEMORY, 0), 1);
    CHECK_INT("lean.no_flows", count_kind(part, TP_K_FLOW, 0), 0);
    CHECK_INT("lean.no_memory", count_kind(part, TP_K_MEMORY, 0), 0);
    CHECK_INT("lean.rows", part->n, whole->n - 7);
    CHECK_INT("lean.events_counted", tp_store_event_count(part), tp_store_event_count(whole));
    CHECK("lean.same_annots", same_annots_but_python(whole, part) && part->nannots == 4);
    CHECK("lean.bprop_from_python", part->nannots == 4 && part->annots[3].bprop && !part->annots[1].bprop);
    CHECK_STR("lean.whole_layer", whole->nannots == 4 ? tp_store_str(whole, whole->annots[1].layer) : "",
              "nn.Module: Linear_0");
    CHECK_STR("lean.part_no_layer", part->nannots == 4 ? tp_store_str(part, part->annots[1].layer) : "?", "");
    CHECK("lean.same_causes",
          memcmp(whole->attr.cause_n, part->attr.cause_n, sizeof whole->attr.cause_n) == 0 &&
              whole->attr.cause_n[TP_ATTR_NO_LAUNCH_RECORD] == 1);
    char out[80];
    snprintf(out, sizeof out, "%s/x.tprof", sc.dir);
    CHECK_INT("lean.not_saved", tp_store_save(part, NULL, out, &err), TP_ERR_USAGE);
    /* a view that reads every event refuses the lean store; prof without
     * layer and trace takes it */
    tp_table *t = NULL;
    struct tp_view_opts vo = {0};
    CHECK_INT("lean.ops_refused", tp_view_build(tp_view_find("ops"), part, &vo, &t, &err), TP_ERR_USAGE);
    vo.need_columns = "idx,dir,sub,mod,op,kernel";
    CHECK_INT("lean.prof_built", tp_view_build(tp_view_find("prof"), part, &vo, &t, &err), TP_OK);
    tp_table_free(t);
    /* TP_LEAN_FLOWS keeps every event but the flows other than fwdbwd */
    int rcf;
    tp_store *flows = load_lean(path, 0, TP_LEAN_FLOWS, &rcf);
    CHECK_INT("lean_flows.loads", rcf, TP_OK);
    CHECK_INT("lean_flows.fwdbwd_kept", count_kind(flows, TP_K_FLOW, 0), 2);
    CHECK_INT("lean_flows.rows", flows->n, whole->n - 2);
    CHECK_INT("lean_flows.python_kept", count_kind(flows, TP_K_PYTHON_FUNCTION, 0), 3);
    vo.need_columns = NULL;
    CHECK_INT("lean_flows.ops_built", tp_view_build(tp_view_find("ops"), flows, &vo, &t, &err), TP_OK);
    tp_table_free(t);
    CHECK("lean_flows.info_same", same_view("info", whole, flows));   /* the flows left out counted */
    tp_store_free(flows);
    /* TP_LEAN_PYFUNCS: those flows, and no python_function event but the
     * module call's and the autograd node's; memory events stay */
    int rcp;
    tp_store *py = load_lean(path, 0, TP_LEAN_PYFUNCS, &rcp);
    CHECK_INT("lean_py.loads", rcp, TP_OK);
    CHECK_INT("lean_py.python_kept", count_kind(py, TP_K_PYTHON_FUNCTION, 0), 2);
    CHECK_INT("lean_py.fwdbwd_kept", count_kind(py, TP_K_FLOW, 0), 2);
    CHECK_INT("lean_py.memory_kept", count_kind(py, TP_K_MEMORY, 0), 1);
    CHECK_INT("lean_py.rows", py->n, whole->n - 3);
    CHECK_INT("lean_py.events_counted", tp_store_event_count(py), tp_store_event_count(whole));
    CHECK("lean_py.first_host", py->left_out == 3 && py->left_out_first_ts == 100000);
    CHECK("lean_py.same_causes", memcmp(whole->attr.cause_n, py->attr.cause_n, sizeof whole->attr.cause_n) == 0);
    const char *const py_views[] = {"ops", "gpu", "advice", "memory", "steps"};   /* gpu, steps: leaner still */
    for (size_t i = 0; i < sizeof py_views / sizeof *py_views; i++) {
        char name[64];
        snprintf(name, sizeof name, "lean_py.%s_same", py_views[i]);
        CHECK(name, same_view(py_views[i], whole, py));
    }
    CHECK_INT("lean_py.modules_refused", tp_view_build(tp_view_find("modules"), py, &vo, &t, &err), TP_ERR_USAGE);
    /* the first python frame opens the trace's span and outlasts it (no
     * steps): gpu --series spans it in the lean store too */
    CHECK("lean_py.span", py->left_out_first_ts == 100000 && py->left_out_lo == 100000 && py->left_out_hi == 1000000);
    CHECK("lean_py.gpu_series_same", same_view_series("gpu", whole, py, "4"));
    /* TP_LEAN_TREE: no memory event either; gpu and steps the same, and
     * the views that read memory events refuse it */
    int rct;
    tp_store *tree = load_lean(path, 0, TP_LEAN_TREE, &rct);
    CHECK_INT("lean_tree.loads", rct, TP_OK);
    CHECK_INT("lean_tree.no_memory", count_kind(tree, TP_K_MEMORY, 0), 0);
    CHECK_INT("lean_tree.python_kept", count_kind(tree, TP_K_PYTHON_FUNCTION, 0), 2);
    CHECK_INT("lean_tree.fwdbwd_kept", count_kind(tree, TP_K_FLOW, 0), 2);
    CHECK_INT("lean_tree.rows", tree->n, whole->n - 4);
    CHECK_INT("lean_tree.events_counted", tp_store_event_count(tree), tp_store_event_count(whole));
    CHECK("lean_tree.first_host", tree->left_out_first_ts == 100000);
    CHECK("lean_tree.span", tree->left_out_lo == 100000 && tree->left_out_hi == 1000000);
    CHECK("lean_tree.gpu_same", same_view("gpu", whole, tree));
    CHECK("lean_tree.gpu_series_same", same_view_series("gpu", whole, tree, "4"));
    CHECK("lean_tree.steps_same", same_view("steps", whole, tree));
    const char *const mem_views[] = {"ops", "advice", "memory"};
    for (size_t i = 0; i < sizeof mem_views / sizeof *mem_views; i++) {
        char name[64];
        snprintf(name, sizeof name, "lean_tree.%s_refused", mem_views[i]);
        CHECK_INT(name, tp_view_build(tp_view_find(mem_views[i]), tree, &vo, &t, &err), TP_ERR_USAGE);
    }
    tp_store_free(tree);
    tp_store_free(py);
    tp_store_free(whole);
    tp_store_free(part);
    scratch_close(&sc);
}

/* TP_LEAN_MEMORY_PEAKS: memory events are checked whole but kept only as
 * each GPU's peak of "Total Allocated" (what advice reads); a bad one is
 * counted as in a whole load, the CPU's and a GPU without the key do not
 * move a peak, and the last event (a memory one) still ends the span. */
static const char *const peaks_json =
    "{\"deviceProperties\": [{\"id\": 0, \"name\": \"G\", \"totalGlobalMem\": 1000, \"numSms\": 10}],\n"
    " \"traceEvents\": [\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 100,"
    "  \"dur\": 900, \"args\": {\"External id\": 1}},\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 110,"
    "  \"dur\": 200, \"args\": {\"External id\": 2}},\n"
    " {\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": 115,"
    "  \"args\": {\"Device Type\": 0, \"Device Id\": -1, \"Total Allocated\": 5000}},\n"
    " {\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": 120,"
    "  \"args\": {\"Device Type\": 1, \"Device Id\": 3, \"Bytes\": 8}},\n"
    " {\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": 130,"
    "  \"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Total Allocated\": 500}},\n"
    " {\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": 140,"
    "  \"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Total Allocated\": \"lots\"}},\n"
    " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 150, \"dur\": 10, \"args\": {\"correlation\": 11}},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 200, \"dur\": 50,"
    "  \"args\": {\"correlation\": 11, \"device\": 0, \"stream\": 7}},\n"
    " {\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": 2000,"
    "  \"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Total Allocated\": 950}}\n"
    "]}\n";

static void memory_peaks_lean(void)
{
    struct scratch sc;
    if (scratch_open(&sc, "peaks") < 0)
        return;
    const char *path = sc.path;
    CHECK("peaks.trace_written", write_text(path, peaks_json));
    int rcw, rcp;
    tp_store *whole = load(path, 0, &rcw);
    tp_store *pk = load_lean(path, 0, TP_LEAN_MEMORY_PEAKS, &rcp);
    CHECK_INT("peaks.whole_loads", rcw, TP_OK);
    CHECK_INT("peaks.lean_loads", rcp, TP_OK);
    CHECK_INT("peaks.whole_memory", count_kind(whole, TP_K_MEMORY, 0), 4);
    CHECK_INT("peaks.no_memory_rows", count_kind(pk, TP_K_MEMORY, 0), 0);
    CHECK_INT("peaks.no_memory_records", pk->nmems, 0);
    CHECK_INT("peaks.rows", pk->n, whole->n - 4);
    CHECK_INT("peaks.events_counted", tp_store_event_count(pk), tp_store_event_count(whole));
    CHECK("peaks.bad_counted", same_skips(whole, pk) && pk->nskips == 1);
    CHECK("peaks.span", pk->left_out_lo == 115000 && pk->left_out_hi == 2000000);
    struct tp_gpu_mem_peak a[TP_GPU_MEM_PEAKS], b[TP_GPU_MEM_PEAKS];
    size_t na = tp_store_gpu_memory_peaks(whole, a, TP_GPU_MEM_PEAKS);
    size_t nb = tp_store_gpu_memory_peaks(pk, b, TP_GPU_MEM_PEAKS);
    CHECK("peaks.gpus_in_order", na == 2 && a[0].device_id == 3 && a[0].peak == 0 && a[1].device_id == 0 &&
                                     a[1].peak == 950);
    int same = na == nb;
    for (size_t q = 0; same && q < na; q++)   /* field by field: the records have padding */
        same = a[q].device_id == b[q].device_id && a[q].peak == b[q].peak;
    CHECK("peaks.same_as_rows", same);
    CHECK("peaks.capped", tp_store_gpu_memory_peaks(pk, b, 1) == 1 && b[0].device_id == 3);
    /* 950 of 1000: the memory advice, from the peaks alone */
    CHECK("peaks.advice_same", same_view("advice", whole, pk));
    tp_table *t = NULL;
    tp_error err = {0};
    struct tp_view_opts vo = {0};
    int memory_row = 0;
    if (tp_view_build(tp_view_find("advice"), pk, &vo, &t, &err) == TP_OK) {
        for (size_t r = 0; r < tp_table_rows(t); r++)
            memory_row |= strcmp(tp_table_cell_str(t, r, 0), "memory") == 0;
        tp_table_free(t);
    }
    CHECK("peaks.advice_memory_row", memory_row);
    CHECK("peaks.gpu_same", same_view("gpu", whole, pk));
    CHECK("peaks.gpu_series_same", same_view_series("gpu", whole, pk, "4"));
    CHECK("peaks.steps_same", same_view("steps", whole, pk));
    /* a part of a lean store would pass for a whole trace: refused */
    tp_store *part = NULL;
    CHECK_INT("peaks.filter_refused", tp_store_filter(pk, "1", NULL, &part, &err), TP_ERR_USAGE);
    CHECK("peaks.filter_none", part == NULL);
    CHECK_INT("peaks.filter_whole", tp_store_filter(whole, "1", NULL, &part, &err), TP_OK);
    tp_store_free(part);
    const char *const mem_views[] = {"ops", "memory"};
    for (size_t i = 0; i < sizeof mem_views / sizeof *mem_views; i++) {
        char name[64];
        snprintf(name, sizeof name, "peaks.%s_refused", mem_views[i]);
        CHECK_INT(name, tp_view_build(tp_view_find(mem_views[i]), pk, &vo, &t, &err), TP_ERR_USAGE);
    }
    tp_store_free(pk);
    tp_store_free(whole);
    scratch_close(&sc);
}

/* A python frame, module call or not (module -1), as the Python tracer
 * writes it; parent NULL none, else the JSON of its "Python parent id". */
#define PYF(name, ts, dur, id, parent, module) \
    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"" name "\", \"pid\": 1, \"tid\": 1, \"ts\": " #ts \
    ", \"dur\": " #dur ", \"args\": {\"Python id\": " #id ", \"Python parent id\": " parent module "}},\n"
#define MOD(id) ", \"Python module id\": " #id
#define OP(name, ts, dur) \
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"" name "\", \"pid\": 1, \"tid\": 1, \"ts\": " #ts \
    ", \"dur\": " #dur "},\n"

/* Two top-level modules.  Under A_0, frame 4 (under B_0) and the module
 * call C_0 start together, 4 read first: the plugin walks from 4 first, so
 * B_0 is A_0's first child.  Under Z_0, E_0 and frame 14 (under D_0) start
 * together, E_0 read first: E_0 first.  A merge that put the frames left
 * out after (or before) the rows they tie with swaps one pair.  Z_0's group
 * comes first in the file (the events sorted by start); frame 6 straddles
 * B_0's end and C_0's; the frame at 5 has no id (left out, no record); 20
 * is named like an autograd node (kept); 21's parent id is bad (counted, no
 * row, no record). */
static const char *const pygraph_events =
    PYF("nn.Module: Z_0", 300, 100, 11, "null", MOD(110))
    PYF("nn.Module: D_0", 310, 50, 13, "11", MOD(111))
    PYF("nn.Module: E_0", 340, 20, 15, "11", MOD(112))
    PYF("z.py(3): h", 340, 5, 14, "13", "")
    OP("aten::add", 345, 3)
    PYF("autograd::engine::evaluate_function: AddBackward0", 370, 4, 20, "11", "")
    PYF("z.py(9): bad", 380, 4, 21, "\"x\"", "")
    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"main.py(1): <module>\", \"pid\": 1, \"tid\": 1,"
    " \"ts\": 5, \"dur\": 500},\n"
    PYF("nn.Module: A_0", 10, 200, 1, "null", MOD(100))
    PYF("nn.Module: B_0", 20, 60, 3, "1", MOD(101))
    OP("aten::mm", 25, 10)
    PYF("a.py(4): f", 40, 10, 4, "3", "")
    PYF("nn.Module: C_0", 40, 30, 5, "1", MOD(102))
    PYF("a.py(6): s", 60, 100, 6, "1", "")
    OP("aten::relu", 150, 2);

/* Ids past 32 bits (the hash map, the 64-bit records) and leaves that
 * start too far apart for the radix key (the comparison sort): V_0, read
 * first, starts last, so U_0 is W_0's first child. */
static const char *const pygraph_wide_events =
    PYF("nn.Module: W_0", 1, 10, 5000000000, "null", MOD(7))
    PYF("w.py(1): a", 2, 1, 5000000001, "5000000000", "")
    PYF("nn.Module: V_0", 4000000000000000, 1, 5000000002, "5000000000", MOD(8))
    PYF("w.py(2): b", 3, 1, 5000000003, "5000000000", "")
    PYF("w.py(3): c", 3, 1, 5000000004, "5000000000", "")
    PYF("nn.Module: U_0", 4, 1, 5000000005, "5000000000", MOD(9))
    OP("aten::mm", 5, 2);

/* The trace `events` (a JSON array's members, each ending ",\n"), after
 * `before` (a whole member of the top-level object or ""), written to path. */
static int write_events(const char *path, const char *before, const char *events)
{
    size_t n = strlen(events);
    char *text = malloc(strlen(before) + n + 64);
    if (!text)
        return 0;
    sprintf(text, "{%s\"traceEvents\": [\n%.*s\n]}\n", before, (int)(n - 2), events);
    int ok = write_text(path, text);
    free(text);
    return ok;
}

/* The modules view of a whole and a TP_LEAN_PYGRAPH load of `events`
 * (`frames` python frames with an id left out, `left` events left out in
 * all): equal (default columns, all columns, --tree); name "pygraph" +
 * `tag`.  The whole load's CSV in *csv (the caller frees it). */
static void pygraph_case(const char *tag, const char *before, const char *events, size_t frames, size_t left,
                         char **csv)
{
    char name[96];
    *csv = NULL;
    struct scratch sc;
    if (scratch_open(&sc, "pygraph") < 0)
        return;
    const char *path = sc.path;
    snprintf(name, sizeof name, "pygraph%s.trace_written", tag);
    CHECK(name, write_events(path, before, events));
    int rcw, rcg, rcp;
    tp_store *whole = load(path, 0, &rcw), *g = load_lean(path, 0, TP_LEAN_PYGRAPH, &rcg),
             *py = load_lean(path, 0, TP_LEAN_PYFUNCS, &rcp);
#define NAMED(what) (snprintf(name, sizeof name, "pygraph%s.%s", tag, what), name)
    CHECK(NAMED("loads"), rcw == TP_OK && rcg == TP_OK && rcp == TP_OK);
    CHECK_INT(NAMED("frames_kept"), g->pyframes.n, frames);
    CHECK_INT(NAMED("left_out"), g->left_out, left);
    CHECK_INT(NAMED("rows"), g->n, whole->n - left);
    CHECK_INT(NAMED("rows_as_pyfuncs"), g->n, py->n);
    CHECK_INT(NAMED("python_rows"), count_kind(g, TP_K_PYTHON_FUNCTION, 0), count_kind(py, TP_K_PYTHON_FUNCTION, 0));
    CHECK_INT(NAMED("events_counted"), tp_store_event_count(g), tp_store_event_count(whole));
    CHECK(NAMED("span_as_pyfuncs"), g->left_out_first_ts == py->left_out_first_ts &&
                                        g->left_out_lo == py->left_out_lo && g->left_out_hi == py->left_out_hi);
    CHECK(NAMED("same_skips"), same_skips(whole, g));
    struct tp_view_opts vo = {0};
    CHECK(NAMED("modules_same"), same_view_opts("modules", whole, g, &vo));
    vo.need_columns = "module,id,depth,occurrences,operators,host_total,host_self,dev_total,dev_self,tree,share,bar";
    CHECK(NAMED("modules_all_columns_same"), same_view_opts("modules", whole, g, &vo));
    vo.need_columns = NULL;
    vo.tree = 1;
    CHECK(NAMED("modules_tree_same"), same_view_opts("modules", whole, g, &vo));
    vo.tree = 0;
    CHECK(NAMED("ops_same"), same_view_opts("ops", whole, g, &vo));
    tp_table *t = NULL;
    tp_error err = {0};
    CHECK_INT(NAMED("modules_refuse_pyfuncs"), tp_view_build(tp_view_find("modules"), py, &vo, &t, &err),
              TP_ERR_USAGE);
    CHECK_INT(NAMED("python_left_out"), g->left_out_py, left);   /* no flow in these traces */
    CHECK_INT(NAMED("python_left_out_pyfuncs"), py->left_out_py, py->left_out);
    CHECK(NAMED("info_same"), same_view_opts("info", whole, g, &vo));
    char out[80];
    snprintf(out, sizeof out, "%s/x.tprof", sc.dir);
    CHECK_INT(NAMED("not_saved"), tp_store_save(g, NULL, out, &err), TP_ERR_USAGE);
#undef NAMED
    size_t len;
    *csv = view_text("modules", whole, &vo, &len);
    tp_store_free(whole);
    tp_store_free(g);
    tp_store_free(py);
    scratch_close(&sc);
}

/* TP_LEAN_PYGRAPH: the python frames of no module call leave a record, not
 * a row, and the modules view is the whole load's. */
static void kineto_pygraph(void)
{
    char *csv;
    pygraph_case("", "", pygraph_events, 3, 4, &csv);
    const char *b = csv ? strstr(csv, "B_0") : NULL, *c = csv ? strstr(csv, "C_0") : NULL;
    const char *d = csv ? strstr(csv, "D_0") : NULL, *e = csv ? strstr(csv, "E_0") : NULL;
    CHECK("pygraph.b_before_c", b && c && b < c);
    CHECK("pygraph.e_before_d", d && e && e < d);
    free(csv);
    pygraph_case("_wide", "", pygraph_wide_events, 3, 3, &csv);
    const char *u = csv ? strstr(csv, "U_0") : NULL, *v = csv ? strstr(csv, "V_0") : NULL;
    CHECK("pygraph_wide.u_before_v", csv && strstr(csv, "W_0") && u && v && u < v);
    free(csv);
    /* "traceEvents" twice: the last array wins, the first's records go */
    pygraph_case("_repeated", "\"traceEvents\": [" PYF("nn.Module: Old_0", 1, 9, 1, "null", MOD(1))
                 PYF("o.py(1): o", 2, 1, 2, "1", "") PYF("o.py(2): p", 3, 1, 3, "2", "") "{}], ",
                 pygraph_events, 3, 4, &csv);
    CHECK("pygraph_repeated.old_gone", csv && !strstr(csv, "Old_0") && strstr(csv, "B_0"));
    free(csv);
}

/* Under TP_LEAN_PYGRAPH, frames kept as rows all the same: one named like
 * a step (HTA's quirks and the critical path match every event's name),
 * one whose escaped name may decode to one, one with a stream; the plain
 * frame is left out, its span kept.  critical-path is served, and the
 * same, though a row has a stream: no edge of its path is charged to it
 * (views_lean_test: a Triton launch on the path, refused). */
static void pygraph_rows(void)
{
    static const char *const events =
        PYF("ProfilerStep#3", 20, 10, 1, "null", "")
        PYF("Profiler\\u0053tep#4", 40, 10, 2, "null", "")
        " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"s.py(1): f\", \"pid\": 1, \"tid\": 1,"
        " \"ts\": 50, \"dur\": 5, \"args\": {\"Python id\": 3, \"stream\": 7}},\n"
        PYF("p.py(1): plain", 1, 100, 4, "null", "")
        OP("aten::mm", 60, 2);
    struct scratch sc;
    if (scratch_open(&sc, "pyrows") < 0)
        return;
    CHECK("pygraph_rows.trace_written", write_events(sc.path, "", events));
    int rcw, rcg;
    tp_store *whole = load(sc.path, 0, &rcw), *g = load_lean(sc.path, 0, TP_LEAN_PYGRAPH, &rcg);
    CHECK("pygraph_rows.loads", rcw == TP_OK && rcg == TP_OK);
    if (rcw == TP_OK && rcg == TP_OK) {
        CHECK_INT("pygraph_rows.python_rows", count_kind(g, TP_K_PYTHON_FUNCTION, 'X'), 3);
        CHECK_INT("pygraph_rows.left_out", g->left_out_py, 1);
        CHECK("pygraph_rows.span", g->left_out_lo == 1000 && g->left_out_hi == 101000);
        struct tp_view_opts vo = {0};
        CHECK("pygraph_rows.info_same", same_view_opts("info", whole, g, &vo));
        /* a host row with a stream: the path is computed to decide, and no
         * edge of it is charged to that frame, so the lean store serves */
        CHECK("pygraph_rows.cp_served_same", tp_view_serves(tp_view_find("critical-path"), g, &vo) &&
                                                 same_view_opts("critical-path", whole, g, &vo));
        vo.hta_quirks = 1;
        CHECK("pygraph_rows.temporal_quirks_same", same_view_opts("temporal", whole, g, &vo));
    }
    tp_store_free(whole);
    tp_store_free(g);
    scratch_close(&sc);
}

/* key_averages' "Self CPU time total" nests torch events among themselves:
 * a python frame that straddles an operator's end does not make the
 * operator inside both outermost (150 us: outer and after; nesting with the
 * frame counted inner's 20 us too), in a whole load and in a lean one. */
static void self_cpu_total_straddle(void)
{
    static const char *const json =
        "{\"traceEvents\": [\n"
        " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::outer\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 100},\n"
        " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"f.py(1): g\", \"pid\": 1, \"tid\": 1, \"ts\": 150,"
        "  \"dur\": 150, \"args\": {\"Python id\": 1}},\n"
        " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::inner\", \"pid\": 1, \"tid\": 1, \"ts\": 160, \"dur\": 20},\n"
        " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::after\", \"pid\": 1, \"tid\": 1, \"ts\": 400, \"dur\": 50}\n"
        "]}\n";
    struct scratch sc;
    if (scratch_open(&sc, "straddle") < 0)
        return;
    const char *path = sc.path;
    CHECK("straddle.trace_written", write_text(path, json));
    for (int lean = 0; lean < 2; lean++) {
        int rc;
        tp_store *st = load_lean(path, 0, lean ? TP_LEAN_PYFUNCS : TP_LEAN_NONE, &rc);
        tp_error err = {0};
        CHECK_INT(lean ? "straddle.lean_loads" : "straddle.whole_loads", rc, TP_OK);
        CHECK_INT(lean ? "straddle.lean_python" : "straddle.whole_python", count_kind(st, TP_K_PYTHON_FUNCTION, 0),
                  lean ? 0 : 1);
        tp_table *t = NULL;
        struct tp_view_opts vo = {0};
        const char *foot = NULL;
        if (tp_view_build(tp_view_find("ops"), st, &vo, &t, &err) == TP_OK)
            foot = tp_table_footer(t);
        CHECK(lean ? "straddle.lean_total" : "straddle.whole_total",
              foot && strstr(foot, "Self CPU time total: 150.000us") != NULL);
        tp_table_free(t);
        tp_store_free(st);
    }
    /* a python frame with a bad start: counted by the lean load too */
    int ok = write_text(path, "{\"traceEvents\": [\n"
                    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"f.py(1): g\", \"pid\": 1, \"tid\": 1,"
                    " \"ts\": \"x150\", \"dur\": 150},\n"
                    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::after\", \"pid\": 1, \"tid\": 1,"
                    " \"ts\": 400, \"dur\": 50}\n]}\n");
    CHECK("straddle.bad_trace_written", ok);
    for (int lean = 0; ok && lean < 2; lean++) {
        int rc;
        tp_store *st = load_lean(path, 0, lean ? TP_LEAN_PYFUNCS : TP_LEAN_NONE, &rc);
        CHECK(lean ? "straddle.lean_bad_counted" : "straddle.whole_bad_counted",
              st->nskips == 1 && strstr(st->skips[0].reason, "\"ts\"") && st->n == 1 && st->left_out == 0);
        tp_store_free(st);
    }
    scratch_close(&sc);
}

/* A label's device time in torch's nesting: a python frame that starts
 * inside the label and ends after it does not take the kernel launched
 * after the frame began (the linker's tree nests the call under the frame,
 * outside the label), in a whole load and in the labels view's lean one. */
static void label_straddle(void)
{
    static const char *const json =
        "{\"traceEvents\": [\n"
        " {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"L\", \"pid\": 1, \"tid\": 1, \"ts\": 100,"
        "  \"dur\": 900, \"args\": {\"External id\": 1}},\n"
        " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"f.py(1): g\", \"pid\": 1, \"tid\": 1, \"ts\": 120,"
        "  \"dur\": 1080, \"args\": {\"Python id\": 1}},\n"
        " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
        "  \"ts\": 500, \"dur\": 10, \"args\": {\"correlation\": 7}},\n"
        " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": 7, \"ts\": 600, \"dur\": 40,"
        "  \"args\": {\"correlation\": 7, \"device\": 0, \"stream\": 7}},\n"
        " {\"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"L\", \"pid\": 0, \"tid\": 7, \"ts\": 600,"
        "  \"dur\": 40}\n"
        "]}\n";
    struct scratch sc;
    if (scratch_open(&sc, "label") < 0)
        return;
    const char *path = sc.path;
    CHECK("label.trace_written", write_text(path, json));
    for (int lean = 0; lean < 2; lean++) {
        int rc;
        tp_store *st = load_lean(path, 0, lean ? tp_view_lean_level(tp_view_find("labels"), &(struct tp_view_opts){0})
                                               : TP_LEAN_NONE, &rc);
        tp_error err = {0};
        tp_table *t = NULL;
        struct tp_view_opts vo = {0};
        int64_t ops = -1, ns = -1;
        if (rc == TP_OK && tp_view_build(tp_view_find("labels"), st, &vo, &t, &err) == TP_OK) {
            for (size_t c = 0; c < tp_table_cols(t); c++) {
                if (strcmp(tp_table_col_key(t, c), "device_ops") == 0) ops = tp_table_cell_int(t, 0, c);
                if (strcmp(tp_table_col_key(t, c), "device_time") == 0) ns = tp_table_cell_int(t, 0, c);
            }
            tp_table_free(t);
        }
        CHECK(lean ? "label.lean_device_time" : "label.whole_device_time", ops == 1 && ns == 40000);
        tp_store_free(st);
    }
    scratch_close(&sc);
}

int main(void)
{
    dump_scope();
    launch_lookups();
    kineto_lean();
    memory_peaks_lean();
    kineto_pygraph();
    pygraph_rows();
    self_cpu_total_straddle();
    label_straddle();
    TEST_EXIT();
}
