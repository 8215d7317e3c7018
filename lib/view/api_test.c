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

    /* The additions the CLI lives on (it includes tprof.h alone). */
    char line[256] = "x";
    CHECK_INT("event count NULL", (int)tp_store_event_count(NULL), 0);
    CHECK_INT("is ascend NULL", tp_store_is_ascend(NULL), 0);
    CHECK_INT("malformed NULL store", tp_store_malformed(NULL, 0, line, sizeof line), 0);
    CHECK("malformed NULL store: empty line", line[0] == 0);
    CHECK_INT("malformed NULL buf", tp_store_malformed(st, 0, NULL, 0), 0);
    CHECK_INT("has column NULL view", tp_view_has_column(NULL, "name"), 0);
    CHECK_INT("has column NULL key", tp_view_has_column(v, NULL), 0);
    CHECK_INT("has column name", tp_view_has_column(v, "name"), 1);
    CHECK_INT("attributes NULL view", tp_view_attributes(NULL, NULL), 0);
    size_t nopt = 7;
    CHECK("options NULL view", tp_view_options(NULL, &nopt) == NULL && nopt == 0);
    CHECK("options NULL count", tp_view_options(v, NULL) != NULL);
    CHECK("option find NULL view", tp_view_option_find(NULL, "group") == NULL);
    CHECK("option find NULL name", tp_view_option_find(v, NULL) == NULL);
    struct tp_view_opts vo = {0};
    CHECK_INT("set option NULL view", tp_view_set_option(NULL, &vo, "group", "props", &err), TP_ERR_USAGE);
    CHECK_INT("set option NULL opts", tp_view_set_option(v, NULL, "group", "props", &err), TP_ERR_USAGE);
    CHECK_INT("set option NULL name", tp_view_set_option(v, &vo, NULL, "props", &err), TP_ERR_USAGE);
    CHECK_INT("set option NULL err", tp_view_set_option(v, &vo, "comm", NULL, NULL), TP_ERR_USAGE);
    CHECK_INT("set option without its value", tp_view_set_option(v, &vo, "group", NULL, &err), TP_ERR_USAGE);
    CHECK("set option without its value: message", strstr(err.msg, "needs a value") != NULL);
    tp_view_print_options(NULL, stdout);   /* prints nothing, returns */
    tp_view_print_options(v, NULL);

    CHECK("diff view", tp_diff_view(0) && tp_diff_view(1) && tp_diff_view(0) != tp_diff_view(1));
    CHECK_INT("diff view columns", tp_view_check_columns(tp_diff_view(1), "metric,delta_pct", &err), TP_OK);
    CHECK_INT("diff view is not built from one store", tp_view_build(tp_diff_view(0), st, NULL, &t, &err),
              TP_ERR_USAGE);
    CHECK("diff view build: message", strstr(err.msg, "not built from one store") != NULL);
    struct tp_diff_summary ds;
    struct tp_diff_gate gate;
    CHECK_INT("diff build NULL", tp_diff_build(NULL, st, &t, &err), TP_ERR_USAGE);
    CHECK("diff build NULL: table reset", t == NULL);
    CHECK_INT("diff build NULL out", tp_diff_build(st, st, NULL, &err), TP_ERR_USAGE);
    CHECK_INT("diff build unlinked", tp_diff_build(st, st, &t, &err), TP_ERR_USAGE);
    CHECK_INT("diff summarize NULL", tp_diff_summarize(NULL, st, &ds), TP_ERR_USAGE);
    CHECK_INT("diff summarize NULL out", tp_diff_summarize(st, st, NULL), TP_ERR_USAGE);
    CHECK_INT("diff summary table NULL", tp_diff_summary_table(NULL, &t, &err), TP_ERR_USAGE);
    CHECK_INT("diff summary table NULL out", tp_diff_summary_table(&ds, NULL, &err), TP_ERR_USAGE);
    CHECK_INT("diff gate NULL", tp_diff_parse_gate("5%", NULL, &err), TP_ERR_USAGE);
    CHECK_INT("diff gate NULL text", tp_diff_parse_gate(NULL, &gate, &err), TP_ERR_USAGE);
    CHECK_INT("diff check NULL", tp_diff_check(NULL, &gate, line, sizeof line), 0);
    CHECK_INT("diff check NULL msg", tp_diff_check(&ds, &gate, NULL, 0), 0);
    CHECK_INT("diff junit NULL", tp_diff_junit(NULL, &gate, "a", "b", stdout), -1);
    CHECK_INT("diff junit NULL name", tp_diff_junit(&ds, &gate, NULL, "b", stdout), -1);

    tp_rank_table *rt = (tp_rank_table *)&err;
    CHECK_INT("run check columns NULL view", tp_run_check_columns(NULL, "rank", &err), TP_ERR_USAGE);
    CHECK_INT("run check columns NULL list", tp_run_check_columns(v, NULL, &err), TP_ERR_USAGE);
    CHECK_INT("run write table NULL", tp_run_write_table(v, NULL, NULL, NULL, stdout, &err), TP_ERR_USAGE);
    CHECK_INT("rank table new NULL view", tp_rank_table_new(NULL, &rt, &err), TP_ERR_USAGE);
    CHECK("rank table new NULL view: reset", rt == NULL);
    CHECK_INT("rank table new NULL out", tp_rank_table_new(v, NULL, &err), TP_ERR_USAGE);
    CHECK_INT("rank table add NULL", tp_rank_table_add(NULL, NULL, NULL, NULL, &err), TP_ERR_USAGE);
    CHECK_INT("files table new NULL view", tp_rank_table_new_files(NULL, &rt, &err), TP_ERR_USAGE);
    CHECK_INT("rank table add file NULL", tp_rank_table_add_file(NULL, "a", NULL, NULL, &err), TP_ERR_USAGE);
    CHECK_INT("rank table write NULL", tp_rank_table_write(NULL, NULL, NULL, stdout, &err), TP_ERR_USAGE);
    CHECK("rank table view NULL", tp_rank_table_view(NULL) == NULL);
    tp_rank_table_free(NULL);

    /* The right order works, and NULL options mean the defaults. */
    CHECK_INT("load sample", tp_store_load(st, "testdata/sample.pt.trace.json", &err), TP_OK);
    CHECK_INT("link sample", tp_store_link(st, &err), TP_OK);
    CHECK_INT("build with NULL options", tp_view_build(v, st, NULL, &t, &err), TP_OK);
    CHECK_INT("three kernels", (int)tp_table_rows(t), 3);
    CHECK_INT("cells: NULL table", tp_table_cell_kind(NULL, 0, 0), TP_CELL_NULL);
    CHECK("cells: NULL table string", tp_table_cell_str(NULL, 0, 0) == NULL);
    CHECK_INT("cells: NULL table columns", (int)tp_table_cols(NULL), 0);
    CHECK("cells: NULL table key", tp_table_col_key(NULL, 0) == NULL);
    CHECK_INT("cells: NULL table index", tp_table_col_index(NULL, "name"), -1);
    CHECK_INT("cells: NULL key index", tp_table_col_index(t, NULL), -1);
    long name = tp_table_col_index(t, "name"), calls = tp_table_col_index(t, "calls");
    CHECK("cells: columns by key", name >= 0 && calls >= 0 && strcmp(tp_table_col_key(t, (size_t)name), "name") == 0);
    CHECK("cells: key out of range", tp_table_col_key(t, tp_table_cols(t)) == NULL);
    CHECK_INT("cells: a name is a string", tp_table_cell_kind(t, 0, (size_t)name), TP_CELL_STR);
    size_t nlen = 0;
    const char *kname = tp_table_cell_strn(t, 0, (size_t)name, &nlen);
    CHECK("cells: string and length", kname && nlen == strlen(kname) && nlen > 0);
    CHECK_INT("cells: calls", tp_table_cell_int(t, 0, (size_t)calls), 1);
    CHECK("cells: calls as float", tp_table_cell_float(t, 0, (size_t)calls) == 1.0);
    CHECK_INT("cells: row out of range", tp_table_cell_kind(t, 3, (size_t)name), TP_CELL_NULL);
    CHECK_INT("cells: a string read as a number", tp_table_cell_int(t, 0, (size_t)name), 0);
    tp_table_free(t);
    tp_store_free(st);
    TEST_EXIT();
}
