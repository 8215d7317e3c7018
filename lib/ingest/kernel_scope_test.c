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

/* View v's CSV of store a and of store b (gpu: --series=series unless
 * NULL), with its footer: 1 when equal. */
static int same_view_series(const char *v, const tp_store *a, const tp_store *b, const char *series)
{
    char *text[2] = {NULL, NULL};
    size_t len[2] = {0, 0};
    const tp_store *st[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        tp_table *t = NULL;
        tp_error err = {0};
        struct tp_view_opts vo = {0};
        vo.series = series;
        if (tp_view_build(tp_view_find(v), st[k], &vo, &t, &err) != TP_OK)
            break;
        FILE *f = open_memstream(&text[k], &len[k]);
        struct tp_output_opts o;
        tp_output_opts_init(&o);
        o.format = TP_FMT_CSV;
        if (f) {
            tp_table_write(t, &o, f, &err);
            fprintf(f, "%s", tp_table_footer(t) ? tp_table_footer(t) : "");
            fclose(f);
        }
        tp_table_free(t);
    }
    int same = text[0] && text[1] && len[0] > 0 && len[0] == len[1] && memcmp(text[0], text[1], len[0]) == 0;
    free(text[0]);
    free(text[1]);
    return same;
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
    char dir[64], path[80];
    if (tt_tmpdir(dir, sizeof dir, "no-python") < 0)
        return;
    snprintf(path, sizeof path, "%s/t.json", dir);
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
    snprintf(out, sizeof out, "%s/x.tprof", dir);
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
    unlink(path);
    rmdir(dir);
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
    char dir[64], path[80];
    if (tt_tmpdir(dir, sizeof dir, "straddle") < 0)
        return;
    snprintf(path, sizeof path, "%s/t.json", dir);
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
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    dump_scope();
    launch_lookups();
    kineto_lean();
    self_cpu_total_straddle();
    TEST_EXIT();
}
