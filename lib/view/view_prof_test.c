/* view_prof_test.c — the default view with need_columns: the columns asked
 * for hold what a build of every column holds, the others are left out,
 * and roofline (which builds the default view's table for itself) still
 * gets every column. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tprof.h"
#include "testing.h"

/* The table of view `name` written as CSV with columns `cols` (NULL: the
 * table's every column); malloc'd. */
static char *csv_of(const tp_table *t, const char *cols)
{
    struct tp_output_opts o;
    tp_output_opts_init(&o);
    o.format = TP_FMT_CSV;
    o.columns = cols;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tp_error err = {0};
    if (!f)
        return NULL;
    int rc = tp_table_write(t, &o, f, &err);
    fclose(f);
    if (rc != TP_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

static tp_table *build(const tp_store *st, const char *view, const char *need)
{
    struct tp_view_opts vo;
    memset(&vo, 0, sizeof vo);
    vo.need_columns = need;
    tp_table *t = NULL;
    tp_error err = {0};
    if (tp_view_build(tp_view_find(view), st, &vo, &t, &err) != TP_OK)
        return NULL;
    return t;
}

int main(void)
{
    tp_error err = {0};
    tp_store *st = tp_store_new();
    CHECK_INT("load sample", tp_store_load(st, "testdata/sample.pt.trace.json", &err), TP_OK);
    CHECK_INT("link sample", tp_store_link(st, &err), TP_OK);

    static const char *const lists[] = {"idx,dir,sub,mod,op,kernel,params,sil", "sil,idx", "flops,bytes,tc,grid",
                                        "opname,name,seq,altseq,trace,layer,tid,device,stream,block"};
    tp_table *full = build(st, "prof", NULL);
    CHECK("prof: every column", full && tp_table_rows(full) == 3);
    for (size_t i = 0; i < sizeof lists / sizeof lists[0] && full; i++) {
        tp_table *some = build(st, "prof", lists[i]);
        char *a = csv_of(full, lists[i]), *b = some ? csv_of(some, lists[i]) : NULL;
        char pre[128];
        snprintf(pre, sizeof pre, "%s: ", lists[i]);
        tt_prefix = pre;
        CHECK("prof: the columns asked for as in the full table", a && b && strcmp(a, b) == 0 && strlen(a) > 20);
        tt_prefix = "";
        free(a);
        free(b);
        tp_table_free(some);
    }
    /* a column not asked for is left out: NULL cells */
    tp_table *narrow = build(st, "prof", "idx,sil");
    long kernel = narrow ? tp_table_col_index(narrow, "kernel") : -1, sil = narrow ? tp_table_col_index(narrow, "sil") : -1;
    CHECK("prof: kernel and sil columns", kernel >= 0 && sil >= 0);
    if (kernel >= 0 && sil >= 0) {
        CHECK_INT("prof: a column not asked for is NULL", tp_table_cell_kind(narrow, 0, (size_t)kernel), TP_CELL_NULL);
        CHECK_INT("prof: the full table has it", tp_table_cell_kind(full, 0, (size_t)kernel), TP_CELL_STR);
        CHECK_INT("prof: an asked column is kept", tp_table_cell_int(narrow, 0, (size_t)sil),
                  tp_table_cell_int(full, 0, (size_t)sil));
    }
    /* a key the view does not have: every column */
    tp_table *unknown = build(st, "prof", "idx,no_such_column");
    char *a = full ? csv_of(full, NULL) : NULL, *b = unknown ? csv_of(unknown, NULL) : NULL;
    CHECK("prof: an unknown key keeps every column", a && b && strcmp(a, b) == 0);
    free(a);
    free(b);
    /* roofline reads columns of the prof table that its own list does not name */
    tp_table *r1 = build(st, "roofline", NULL), *r2 = build(st, "roofline", "idx");
    a = r1 ? csv_of(r1, NULL) : NULL;
    b = r2 ? csv_of(r2, NULL) : NULL;
    CHECK("roofline: the same with need_columns", a && b && strcmp(a, b) == 0);
    free(a);
    free(b);
    tp_table_free(r1);
    tp_table_free(r2);
    tp_table_free(unknown);
    tp_table_free(narrow);
    tp_table_free(full);
    tp_store_free(st);
    TEST_EXIT();
}
