/* run_table_test.c — a run's tables (run_table.c): the rank and worker
 * columns in front of a per-rank view, each rank's rows in its own --sort,
 * --name and --top order, the column lists of a run, and the --with-file
 * block (a file column first, traces and ranks in one table). */
#include <stdlib.h>
#include <string.h>
#include "testing.h"
#include "tprof.h"

/* Write with o into a string (freed by the caller). */
static char *written(int (*write)(const void *, const struct tp_output_opts *, FILE *), const void *x,
                     const struct tp_output_opts *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    int rc = write(x, o, f);
    fclose(f);
    if (rc != TP_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

static int write_block(const void *b, const struct tp_output_opts *o, FILE *f)
{
    return tp_rank_table_write(b, o, NULL, f, NULL);
}

/* What o writes of x starts with `want`. */
static int starts(int (*write)(const void *, const struct tp_output_opts *, FILE *), const void *x,
                  const struct tp_output_opts *o, const char *want)
{
    char *s = written(write, x, o);
    int ok = s && strncmp(s, want, strlen(want)) == 0;
    if (!ok)
        printf("# got: %.80s\n", s ? s : "(nothing)");
    free(s);
    return ok;
}

static const tp_table *merged_table;
static int write_merged(const void *v, const struct tp_output_opts *o, FILE *f)
{
    return tp_run_write_table(v, merged_table, o, NULL, f, NULL);
}

int main(void)
{
    tp_error err = {0};
    const tp_view *kernels = tp_view_find("kernels"), *temporal = tp_view_find("temporal");
    tp_store *st = tp_store_new();
    tp_table *t = NULL;
    if (tp_store_load(st, "testdata/sample.pt.trace.json", &err) != TP_OK || tp_store_link(st, &err) != TP_OK ||
        tp_view_build(kernels, st, NULL, &t, &err) != TP_OK) {
        printf("FAIL run_table.sample: %s\n", err.msg);
        return 1;
    }
    CHECK_INT("sample: three kernels", (int)tp_table_rows(t), 3);

    CHECK_INT("-c with run keys", tp_run_check_columns(kernels, "rank,name,worker", &err), TP_OK);
    CHECK_INT("-c of run keys alone", tp_run_check_columns(kernels, "worker,rank", &err), TP_OK);
    CHECK_INT("-c with a key of no view", tp_run_check_columns(kernels, "rank,nope", &err), TP_ERR_USAGE);
    CHECK("-c with a key of no view: message", strstr(err.msg, "nope is not a valid column name") != NULL);

    struct tp_run_rank r3 = {.rank = 3, .worker = "w3"}, r1 = {.rank = 1, .worker = "w1"};
    tp_rank_table *b = NULL;
    CHECK_INT("block", tp_rank_table_new(kernels, &b, &err), TP_OK);
    CHECK("block view", tp_rank_table_view(b) == kernels);
    struct tp_output_opts o;
    tp_output_opts_init(&o);
    o.format = TP_FMT_CSV;
    o.columns = "name,calls";
    o.top = 1;
    o.sort = "-rank,+name";   /* rank is the block's order: only name sorts within a rank */
    CHECK_INT("add rank 3", tp_rank_table_add(b, &r3, t, &o, &err), TP_OK);
    CHECK_INT("add rank 1", tp_rank_table_add(b, &r1, t, &o, &err), TP_OK);
    char *s = written(write_block, b, &o);
    /* the first kernel by name, once per rank (--top per rank), in the order added */
    CHECK("rank in front, --top per rank",
          s && strncmp(s, "\"Rank\",\"Name\",\"Calls\"\n\"3\",\"nvjet_tst", 35) == 0 &&
              strstr(s, "\n\"1\",\"nvjet_tst") != NULL);
    size_t lines = 0;
    for (char *p = s; p && *p; p++)
        lines += *p == '\n';
    CHECK_INT("one row per rank and the header", lines, 3);
    free(s);
    o.columns = "worker,name";
    CHECK("worker asked for: no rank added", starts(write_block, b, &o, "\"Worker\",\"Name\"\n\"w3\","));
    tp_rank_table_free(b);

    /* a view with its own rank column: no run columns, worker left out */
    CHECK_INT("block of a view with a rank column", tp_rank_table_new(temporal, &b, &err), TP_OK);
    CHECK_INT("a table of another view is refused", tp_rank_table_add(b, &r3, t, &o, &err), TP_ERR_USAGE);
    tp_rank_table_free(b);

    /* --with-file: a trace's rows and a rank's under their files, the file
     * first, the rank (NULL for the trace) once a rank's rows are in */
    CHECK_INT("-c with file", tp_run_check_columns(kernels, "file,name", &err), TP_OK);
    CHECK_INT("files block", tp_rank_table_new_files(kernels, &b, &err), TP_OK);
    o.columns = "name,calls";
    o.top = 1;
    o.sort = "file,+name";   /* file is the block's order */
    CHECK_INT("add a trace", tp_rank_table_add_file(b, "a.json", t, &o, &err), TP_OK);
    CHECK("files: file in front, no rank for traces alone",
          starts(write_block, b, &o, "\"File\",\"Name\",\"Calls\"\n\"a.json\",\"nvjet_tst"));
    r3.path = "run/w3.pt.trace.json";
    CHECK_INT("add a rank", tp_rank_table_add(b, &r3, t, &o, &err), TP_OK);
    s = written(write_block, b, &o);
    CHECK("files: the rank after the file once ranks are in",
          s && strncmp(s, "\"File\",\"Rank\",\"Name\",\"Calls\"\n\"a.json\",\"-\",\"nvjet_tst", 50) == 0 &&
              strstr(s, "\n\"run/w3.pt.trace.json\",\"3\",\"nvjet_tst") != NULL);
    free(s);
    o.columns = "name,file";
    CHECK("files: -c places the file", starts(write_block, b, &o, "\"Name\",\"File\"\n\"nvjet_tst"));
    CHECK_INT("add_file NULL path", tp_rank_table_add_file(b, NULL, t, &o, &err), TP_ERR_USAGE);
    tp_rank_table_free(b);
    CHECK_INT("files block of a view with a rank column", tp_rank_table_new_files(temporal, &b, &err), TP_OK);
    o.columns = "worker";
    CHECK("files, own rank column: worker left out", starts(write_block, b, &o, "\"File\",\"Rank\"\n"));
    tp_rank_table_free(b);

    /* one table of a whole run: the run's keys left out of -c */
    merged_table = t;
    o.columns = "rank,name";
    o.top = 0;
    o.sort = NULL;
    CHECK("merged: run keys left out", starts(write_merged, kernels, &o, "\"Name\"\n"));
    o.columns = "rank";
    CHECK("merged: only run keys: the default columns", starts(write_merged, kernels, &o, "\"Name\",\"TC\",\"Calls\""));
    tp_table_free(t);
    tp_store_free(st);
    TEST_EXIT();
}
