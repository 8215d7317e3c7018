/* api_test.c — the public header's promise that misuse is an error value,
 * never a crash: every entry point of tprof.h with NULL (or out-of-order)
 * arguments returns TP_ERR_USAGE (or an empty answer) and sets the message. */
#include <string.h>
#include "testing.h"
#include "tprof.h"

int main(void)
{
    tp_error err;
    tp_table *t = (tp_table *)&err;   /* must be reset to NULL on failure */
    tp_store *st = tp_store_new();
    const tp_view *v = tp_view_find("kernels");

    CHECK("find NULL", tp_view_find(NULL) == NULL);
    CHECK("find unknown", tp_view_find("no-such-view") == NULL);
    CHECK("npu twin NULL", tp_view_npu_twin(NULL) == NULL);
    CHECK("default columns NULL view", tp_view_default_columns(NULL, NULL) == NULL);
    CHECK("default columns NULL opts", v && tp_view_default_columns(v, NULL) != NULL);
    tp_view_print_columns(NULL, stdout);   /* prints nothing, returns */

    memset(&err, 0, sizeof err);
    CHECK_INT("build NULL view", tp_view_build(NULL, st, NULL, &t, &err), TP_ERR_USAGE);
    CHECK("build NULL view: table reset", t == NULL);
    CHECK("build NULL view: message", strstr(err.msg, "no view") != NULL);
    CHECK_INT("build NULL store", tp_view_build(v, NULL, NULL, &t, &err), TP_ERR_USAGE);
    CHECK_INT("build NULL out", tp_view_build(v, st, NULL, NULL, &err), TP_ERR_USAGE);
    CHECK_INT("build NULL err", tp_view_build(NULL, NULL, NULL, &t, NULL), TP_ERR_USAGE);
    CHECK_INT("build unlinked store", tp_view_build(v, st, NULL, &t, &err), TP_ERR_USAGE);
    CHECK("build unlinked store: message", strstr(err.msg, "before tp_store_link") != NULL);

    CHECK_INT("load NULL store", tp_store_load(NULL, "x", &err), TP_ERR_USAGE);
    CHECK_INT("load NULL path", tp_store_load(st, NULL, &err), TP_ERR_USAGE);
    CHECK_INT("link NULL", tp_store_link(NULL, &err), TP_ERR_USAGE);
    CHECK_INT("save NULL", tp_store_save(NULL, NULL, "x.tprof", &err), TP_ERR_USAGE);
    CHECK_INT("check columns NULL view", tp_view_check_columns(NULL, "name", &err), TP_ERR_USAGE);
    CHECK_INT("check columns NULL list", tp_view_check_columns(v, NULL, &err), TP_ERR_USAGE);
    CHECK_INT("write NULL table", tp_table_write(NULL, NULL, stdout, &err), TP_ERR_USAGE);
    CHECK_INT("rows NULL", (int)tp_table_rows(NULL), 0);
    tp_table_free(NULL);
    tp_store_free(NULL);

    tp_run *r = (tp_run *)&err;
    CHECK_INT("run open NULL out", tp_run_open(NULL, ".", NULL, &err), TP_ERR_USAGE);
    CHECK_INT("run open NULL dir", tp_run_open(&r, NULL, NULL, &err), TP_ERR_USAGE);
    CHECK_INT("run load NULL", tp_run_load(NULL, 1, &err), TP_ERR_USAGE);
    CHECK_INT("run merge NULL", tp_run_merge(NULL, NULL, &err), TP_ERR_USAGE);
    CHECK_INT("run size NULL", (int)tp_run_size(NULL), 0);
    CHECK("run rank NULL", tp_run_rank(NULL, 0) == NULL);
    CHECK("run notes NULL", strcmp(tp_run_notes(NULL), "") == 0);
    tp_run_free(NULL);

    /* The right order works, and NULL options mean the defaults. */
    CHECK_INT("load sample", tp_store_load(st, "testdata/sample.pt.trace.json", &err), TP_OK);
    CHECK_INT("link sample", tp_store_link(st, &err), TP_OK);
    CHECK_INT("build with NULL options", tp_view_build(v, st, NULL, &t, &err), TP_OK);
    CHECK_INT("three kernels", (int)tp_table_rows(t), 3);
    tp_table_free(t);
    tp_store_free(st);
    TEST_EXIT();
}
