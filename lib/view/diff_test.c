/* diff_test.c — `tprof diff`: the per-name comparison, the summary and the
 * CI gate on small synthetic traces written to /tmp. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "diff.h"
#include "store.h"
#include "table.h"
#include "testing.h"

static char dir[64];

/* Write a kineto trace: one step (when step), aten::mm with a kernel of
 * kdur µs launched kcalls times, and extra ops named in `extra`. */
static const char *write_trace(const char *name, int step, int kdur, int kcalls, const char *extra)
{
    static char path[8][128];
    static int next;
    char *p = path[next++ % 8];
    snprintf(p, 128, "%s/%s.json", dir, name);
    FILE *f = fopen(p, "w");
    if (!f)
        return p;
    fprintf(f, "{\"traceEvents\":[\n");
    if (step)
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\","
                   "\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":1000},\n");
    fprintf(f, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,"
               "\"ts\":110,\"dur\":50.5}");
    for (int k = 0; k < kcalls; k++)
        fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_kernel\",\"pid\":0,\"tid\":7,"
                   "\"ts\":%d,\"dur\":%d,\"args\":{\"stream\":7,\"correlation\":%d,\"device\":0}}",
                200 + k * 100, kdur, 10 + k);
    if (extra && *extra)
        fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":1,\"tid\":1,"
                   "\"ts\":500,\"dur\":7}", extra);
    fprintf(f, "\n]}\n");
    fclose(f);
    return p;
}

static tp_store *load(const char *path)
{
    tp_error err = {0};
    tp_store *st = tp_store_new();
    if (tp_store_load(st, path, &err) != TP_OK || tp_store_link(st, &err) != TP_OK)
        printf("# %s: %s\n", path, err.msg);
    return st;
}

/* Row of (kind, name), or -1. */
static long find_row(const tp_table *t, const char *kind, const char *name)
{
    for (size_t r = 0; r < tp_table_rows(t); r++)
        if (strcmp(tp_table_cell_str(t, r, TP_DIFF_KIND), kind) == 0 &&
            strcmp(tp_table_cell_str(t, r, TP_DIFF_NAME), name) == 0)
            return (long)r;
    return -1;
}

/* The diff of a and b into *t (the table there before is freed) and its row
 * of (kind, name), or -1. */
static long diff_row(tp_store *a, tp_store *b, tp_table **t, const char *kind, const char *name)
{
    tp_error err = {0};
    tp_table_free(*t);
    *t = NULL;
    tp_diff_build(a, b, t, &err);
    return *t ? find_row(*t, kind, name) : -1;
}

/* diff_row checked as a test's first step: the diff builds ("TEST: builds")
 * and the row is its first ("TEST: first row"). */
static long diff_first_row(tp_store *a, tp_store *b, tp_table **t, const char *test, const char *kind,
                           const char *name)
{
    char n[128];
    long r = diff_row(a, b, t, kind, name);
    snprintf(n, sizeof n, "%s: builds", test);
    CHECK(n, *t != NULL);
    snprintf(n, sizeof n, "%s: first row", test);
    CHECK_INT(n, r, 0);
    return r;
}

/* tp_diff_check of s against the gate spec: 1 failed, 0 passed; msg says why. */
static int gate(const struct tp_diff_summary *s, const char *spec, char *msg, size_t cap)
{
    struct tp_diff_gate g;
    tp_error err = {0};
    tp_diff_parse_gate(spec, &g, &err);
    return tp_diff_check(s, &g, msg, cap);
}

/* The end of a test: its table and the two stores. */
static void free_all(tp_table *t, tp_store *a, tp_store *b)
{
    tp_table_free(t);
    tp_store_free(a);
    tp_store_free(b);
}

static void test_identical(void)
{
    const char *a = write_trace("same", 1, 30, 1, "aten::add");
    tp_store *sa = load(a), *sb = load(a);
    tp_table *t = NULL;
    tp_error err = {0};
    CHECK_INT("diff identical: builds", tp_diff_build(sa, sb, &t, &err), TP_OK);
    CHECK_INT("diff identical: 3 rows", t ? tp_table_rows(t) : 0, 3);
    int all = 1;
    for (size_t r = 0; t && r < tp_table_rows(t); r++)
        if (strcmp(tp_table_cell_str(t, r, TP_DIFF_CATEGORY), "unchanged") != 0 ||
            tp_table_cell_int(t, r, TP_DIFF_DELTA) != 0 ||
            tp_table_cell_int(t, r, TP_DIFF_A_CALLS) != tp_table_cell_int(t, r, TP_DIFF_B_CALLS))
            all = 0;
    CHECK("diff identical: all unchanged, delta 0", all);
    long r = t ? find_row(t, "op", "aten::mm") : -1;
    CHECK("diff identical: aten::mm row", r >= 0);
    if (r >= 0) {
        CHECK_INT("diff identical: aten::mm a_time ns", tp_table_cell_int(t, r, TP_DIFF_A_TIME), 50500);
        char buf[64];
        tp_table_format_cell(t, (size_t)r, TP_DIFF_A_TIME, buf, sizeof buf);
        CHECK_STR("diff identical: a_time printed as us", buf, "50.5");
        tp_table_format_cell(t, (size_t)r, TP_DIFF_DELTA_PCT, buf, sizeof buf);
        CHECK_STR("diff identical: delta_pct", buf, "0.00");
    }
    /* Ties on |delta| are ordered by kind, then name. */
    if (t && tp_table_rows(t) == 3) {
        CHECK_STR("diff identical: order 0", tp_table_cell_str(t, 0, TP_DIFF_NAME), "gemm_kernel");
        CHECK_STR("diff identical: order 1", tp_table_cell_str(t, 1, TP_DIFF_NAME), "aten::add");
        CHECK_STR("diff identical: order 2", tp_table_cell_str(t, 2, TP_DIFF_NAME), "aten::mm");
    }
    struct tp_diff_summary s;
    tp_diff_summarize(sa, sb, &s);
    CHECK("diff identical: both have steps", s.a_has_steps && s.b_has_steps);
    CHECK("diff identical: avg step 1000 us", s.a_step_ns == 1e6 && s.b_step_ns == 1e6);
    CHECK_INT("diff identical: kernel time", s.a_kernel_ns, 30000);
    CHECK_INT("diff identical: op time", s.a_op_ns, 57500);
    struct tp_diff_gate g;
    CHECK_INT("diff identical: gate parses", tp_diff_parse_gate("5%", &g, &err), TP_OK);
    char msg[256];
    CHECK_INT("diff identical: gate passes", tp_diff_check(&s, &g, msg, sizeof msg), 0);
    CHECK_INT("diff identical: 0% gate passes", (tp_diff_parse_gate("0%", &g, &err),
                                                 tp_diff_check(&s, &g, msg, sizeof msg)), 0);
    tp_table *st = NULL;
    CHECK_INT("diff identical: summary builds", tp_diff_summary_table(&s, &st, &err), TP_OK);
    CHECK_INT("diff identical: summary 3 rows", st ? tp_table_rows(st) : 0, 3);
    if (st && tp_table_rows(st) == 3) {
        CHECK_STR("diff summary: metric 0", tp_table_cell_str(st, 0, TP_DIFFSUM_METRIC), "avg_step_time");
        CHECK_STR("diff summary: metric 1", tp_table_cell_str(st, 1, TP_DIFFSUM_METRIC), "total_kernel_time");
        CHECK_STR("diff summary: metric 2", tp_table_cell_str(st, 2, TP_DIFFSUM_METRIC), "total_op_time");
        char buf[64];
        tp_table_format_cell(st, 0, TP_DIFFSUM_A, buf, sizeof buf);
        CHECK_STR("diff summary: avg step printed", buf, "1000");
    }
    tp_table_free(st);
    free_all(t, sa, sb);
}

static void test_kernel_slower(void)
{
    /* No steps: the gate falls back to the total kernel time. */
    tp_store *sa = load(write_trace("k_a", 0, 30, 1, NULL));
    tp_store *sb = load(write_trace("k_b", 0, 45, 1, NULL));
    tp_table *t = NULL;
    long r = diff_first_row(sa, sb, &t, "diff slower kernel", "kernel", "gemm_kernel");
    if (r >= 0) {
        CHECK_INT("diff slower kernel: delta", tp_table_cell_int(t, r, TP_DIFF_DELTA), 15000);
        CHECK("diff slower kernel: delta_pct 50",
              tp_table_cell_float(t, r, TP_DIFF_DELTA_PCT) == 50.0);
        /* HTA's ops_diff decides by call count: same count is "unchanged". */
        CHECK_STR("diff slower kernel: category by count",
                  tp_table_cell_str(t, r, TP_DIFF_CATEGORY), "unchanged");
    }
    struct tp_diff_summary s;
    tp_diff_summarize(sa, sb, &s);
    char msg[256];
    CHECK_INT("diff slower kernel: 5% gate fails", gate(&s, "5%", msg, sizeof msg), 1);
    CHECK_STR("diff slower kernel: message", msg, "total kernel time 30.0 us -> 45.0 us (+50.0%) exceeds 5%");
    CHECK_INT("diff slower kernel: 60% gate passes", gate(&s, "60%", msg, sizeof msg), 0);
    CHECK_INT("diff slower kernel: 10us gate fails", gate(&s, "10us", msg, sizeof msg), 1);
    CHECK_INT("diff slower kernel: 0.02ms gate passes", gate(&s, "0.02ms", msg, sizeof msg), 0);
    /* The other way round is an improvement. */
    tp_diff_summarize(sb, sa, &s);
    CHECK_INT("diff faster kernel: gate passes", gate(&s, "0%", msg, sizeof msg), 0);
    free_all(t, sa, sb);

    /* More calls: increased; fewer: decreased. */
    sa = load(write_trace("c_a", 0, 30, 1, NULL));
    sb = load(write_trace("c_b", 0, 30, 3, NULL));
    t = NULL;
    r = diff_row(sa, sb, &t, "kernel", "gemm_kernel");
    CHECK("diff more calls: row", r >= 0);
    if (r >= 0) {
        CHECK_STR("diff more calls: increased", tp_table_cell_str(t, r, TP_DIFF_CATEGORY), "increased");
        CHECK_INT("diff more calls: b_calls", tp_table_cell_int(t, r, TP_DIFF_B_CALLS), 3);
    }
    r = diff_row(sb, sa, &t, "kernel", "gemm_kernel");
    CHECK_STR("diff fewer calls: decreased", r >= 0 ? tp_table_cell_str(t, r, TP_DIFF_CATEGORY) : "",
              "decreased");
    free_all(t, sa, sb);
}

static void test_added_deleted(void)
{
    tp_store *sa = load(write_trace("o_a", 1, 30, 1, NULL));
    tp_store *sb = load(write_trace("o_b", 1, 30, 1, "aten::relu"));
    tp_table *t = NULL;
    long r = diff_first_row(sa, sb, &t, "diff op added", "op", "aten::relu");
    if (r >= 0) {
        CHECK_STR("diff op added: category", tp_table_cell_str(t, r, TP_DIFF_CATEGORY), "added");
        CHECK_INT("diff op added: a_calls", tp_table_cell_int(t, r, TP_DIFF_A_CALLS), 0);
        CHECK_INT("diff op added: b_calls", tp_table_cell_int(t, r, TP_DIFF_B_CALLS), 1);
        CHECK_INT("diff op added: delta", tp_table_cell_int(t, r, TP_DIFF_DELTA), 7000);
        CHECK_INT("diff op added: delta_pct null", tp_table_cell_kind(t, r, TP_DIFF_DELTA_PCT),
                  TP_CELL_NULL);
    }
    r = t ? find_row(t, "op", "aten::mm") : -1;
    CHECK_STR("diff op added: others unchanged", r >= 0 ? tp_table_cell_str(t, r, TP_DIFF_CATEGORY) : "",
              "unchanged");
    r = diff_row(sb, sa, &t, "op", "aten::relu");
    CHECK_STR("diff op deleted: category", r >= 0 ? tp_table_cell_str(t, r, TP_DIFF_CATEGORY) : "",
              "deleted");
    CHECK_INT("diff op deleted: delta", r >= 0 ? tp_table_cell_int(t, r, TP_DIFF_DELTA) : 0, -7000);
    /* Same steps: the step gate passes although the op time grew. */
    struct tp_diff_summary s;
    tp_diff_summarize(sa, sb, &s);
    CHECK_INT("diff op added: op time grew", s.b_op_ns - s.a_op_ns, 7000);
    char msg[256];
    CHECK_INT("diff op added: step gate passes", gate(&s, "0%", msg, sizeof msg), 0);
    free_all(t, sa, sb);
}

static void test_step_gate(void)
{
    struct tp_diff_summary s = {0};
    s.a_has_steps = s.b_has_steps = 1;
    s.a_step_ns = 1234500;
    s.b_step_ns = 1400000;
    s.a_kernel_ns = s.b_kernel_ns = 5;
    char msg[256];
    CHECK_INT("diff step gate: fails", gate(&s, "5%", msg, sizeof msg), 1);
    CHECK_STR("diff step gate: message", msg, "avg step time 1234.5 us -> 1400.0 us (+13.4%) exceeds 5%");
    CHECK_INT("diff step gate: 13.5% passes", gate(&s, "13.5%", msg, sizeof msg), 0);
    s.b_has_steps = 0;   /* one side without steps: kernel time decides */
    CHECK_INT("diff step gate: falls back to kernels", gate(&s, "5%", msg, sizeof msg), 0);
    CHECK("diff step gate: fallback message", strncmp(msg, "total kernel time", 17) == 0);
}

static void test_parse_gate(void)
{
    struct tp_diff_gate g;
    tp_error err = {0};
    CHECK("diff gate: 5%", tp_diff_parse_gate("5%", &g, &err) == TP_OK && g.percent && g.limit == 5);
    CHECK("diff gate: 250us", tp_diff_parse_gate("250us", &g, &err) == TP_OK && !g.percent &&
                                  g.limit == 250000);
    CHECK("diff gate: 1.5ms", tp_diff_parse_gate("1.5ms", &g, &err) == TP_OK && !g.percent &&
                                  g.limit == 1500000);
    const char *bad[] = {"", "5", "x%", "5x", "-1%", "5 %", "nan%", "inf%", "%"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char name[64];
        snprintf(name, sizeof name, "diff gate: bad '%s'", bad[i]);
        CHECK(name, tp_diff_parse_gate(bad[i], &g, &err) == TP_ERR_USAGE);
    }
    CHECK("diff gate: message names the value", strstr(err.msg, "'%'") != NULL);
}

int main(void)
{
    snprintf(dir, sizeof dir, "/tmp/tprof_diff_test.%ld", (long)getpid());
    char cmd[128];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    if (system(cmd) != 0) {
        printf("FAIL diff: cannot make %s\n", dir);
        return 1;
    }
    test_identical();
    test_kernel_slower();
    test_added_deleted();
    test_step_gate();
    test_parse_gate();
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", dir);
    TEST_EXIT();
}
