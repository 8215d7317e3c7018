/* attribution_test.c — the attribution model (attribution.c) and the operator
 * tree built on it, on a small synthetic kineto trace holding one activity of
 * every case: a runtime launch inside an operator, a driver launch
 * (cuLaunchKernel) inside one, a graph replay no operator encloses, a runtime
 * launch outside any operator, and kernels without a launch record (launched
 * before the profiler, lost, no correlation id). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "store.h"
#include "table.h"
#include "views.h"
#include "testing.h"

static const char trace[] =
    "{\"traceEvents\":[\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100,"
    "\"args\":{\"External id\":10}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":110,\"dur\":5,"
    "\"args\":{\"External id\":10,\"correlation\":10}},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"triton_fused\",\"pid\":1,\"tid\":1,\"ts\":300,\"dur\":100,"
    "\"args\":{\"External id\":11}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":\"cuLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":310,\"dur\":5,"
    "\"args\":{\"External id\":11,\"correlation\":11}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGraphLaunch\",\"pid\":1,\"tid\":1,\"ts\":500,\"dur\":10,"
    "\"args\":{\"correlation\":12}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":600,\"dur\":5,"
    "\"args\":{\"correlation\":13}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":120,\"dur\":10,"
    "\"args\":{\"stream\":7,\"correlation\":10,\"device\":0}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"triton_k\",\"pid\":0,\"tid\":7,\"ts\":320,\"dur\":20,"
    "\"args\":{\"stream\":7,\"correlation\":11,\"device\":0}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"g1\",\"pid\":0,\"tid\":7,\"ts\":520,\"dur\":30,"
    "\"args\":{\"stream\":7,\"correlation\":12,\"device\":0}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"g2\",\"pid\":0,\"tid\":7,\"ts\":550,\"dur\":40,"
    "\"args\":{\"stream\":7,\"correlation\":12,\"device\":0}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"outside\",\"pid\":0,\"tid\":7,\"ts\":610,\"dur\":50,"
    "\"args\":{\"stream\":7,\"correlation\":13,\"device\":0}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"early\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":60,"
    "\"args\":{\"stream\":7,\"correlation\":5,\"device\":0}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"lost\",\"pid\":0,\"tid\":7,\"ts\":700,\"dur\":70,"
    "\"args\":{\"stream\":7,\"correlation\":20,\"device\":0}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"nocorr\",\"pid\":0,\"tid\":7,\"ts\":800,\"dur\":80,"
    "\"args\":{\"stream\":7,\"device\":0}}\n"
    "]}\n";

static int64_t row_named(const tp_store *st, const char *name)
{
    for (size_t i = 0; i < st->n; i++)
        if (strcmp(tp_store_str(st, st->name[i]), name) == 0 && st->kind[i] == TP_K_KERNEL)
            return (int64_t)i;
    return -1;
}

static const char *cell_of(const tp_table *t, const char *name, size_t col, char *buf, size_t cap)
{
    for (size_t r = 0; r < tp_table_rows(t); r++)
        if (strcmp(tp_table_cell_str(t, r, 0), name) == 0) {
            tp_table_format_cell(t, r, col, buf, cap);
            return buf;
        }
    return "(no row)";
}

/* A capture trace: a graph of `n` launch calls, the first in capA, the rest in capB. */
static int write_capture(const char *path, int n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "{\"traceEvents\":[\n"
               "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamBeginCapture\",\"pid\":1,\"tid\":1,"
               "\"ts\":10,\"dur\":2,\"args\":{\"correlation\":1}},\n"
               "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"capA\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":10},\n"
               "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"capB\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":50}");
    for (int k = 0; k < n; k++)
        fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
                   "\"ts\":%d,\"dur\":2,\"args\":{\"correlation\":%d}}", k == 0 ? 22 : 42 + 4 * k, 2 + k);
    fprintf(f, ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamEndCapture\",\"pid\":1,\"tid\":1,"
               "\"ts\":95,\"dur\":2,\"args\":{\"correlation\":99}}\n]}\n");
    return fclose(f);
}

/* --capture: the replay's kernels go to the captured operators, position by position. */
static void test_capture(const char *path)
{
    char cpath[80];
    snprintf(cpath, sizeof cpath, "%s.capture.json", path);
    for (int n = 2; n <= 3; n++) {
        tp_error err = {0};
        tp_store *st = tp_store_new(), *cap = tp_store_new();
        if (write_capture(cpath, n) != 0 || tp_store_load(st, path, &err) != TP_OK ||
            tp_store_link(st, &err) != TP_OK || tp_store_load(cap, cpath, &err) != TP_OK ||
            tp_store_link(cap, &err) != TP_OK) {
            printf("FAIL attr capture: %s\n", err.msg);
            tt_failed++;
        }
        CHECK_INT(n == 2 ? "attr capture: attaches" : "attr capture 3: attaches",
                  tp_store_attach_capture(st, cap, &err), TP_OK);
        char line[2048];
        tp_store_coverage(st, line, sizeof line);
        tp_table *t = NULL;
        char buf[64];
        CHECK_INT("attr capture: ops builds", tp_view_ops.build(st, NULL, &t, &err), TP_OK);
        if (n == 2) {
            CHECK_INT("attr capture: kernels matched", st->attr.captured_n, 2);
            CHECK_INT("attr capture: replays matched", st->attr.replays_matched, 1);
            CHECK("attr capture: coverage says captured",
                  strstr(line, "2 of the 2 kernels of 1 graph launch are charged to the operators captured") != NULL);
            if (t) {
                CHECK_STR("attr capture: capA", cell_of(t, "capA", 3, buf, sizeof buf), "30");
                CHECK_STR("attr capture: capB", cell_of(t, "capB", 3, buf, sizeof buf), "40");
                CHECK_STR("attr capture: no graph launch row", cell_of(t, "cudaGraphLaunch", 3, buf, sizeof buf),
                          "(no row)");
                CHECK_STR("attr capture: aten::mm unchanged", cell_of(t, "aten::mm", 3, buf, sizeof buf), "10");
            }
        } else {
            CHECK_INT("attr capture 3: no replay of that size", st->attr.captured_n, 0);
            CHECK("attr capture 3: coverage says why",
                  strstr(line, "none of the 1 capture read has a replay's size") != NULL);
            if (t)
                CHECK_STR("attr capture 3: graph launch row stays",
                          cell_of(t, "cudaGraphLaunch", 3, buf, sizeof buf), "70");
        }
        tp_table_free(t);
        tp_store_free(st);
        tp_store_free(cap);
    }
    unlink(cpath);
}

int main(void)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/tprof_attr_test.%ld.json", (long)getpid());
    FILE *f = fopen(path, "w");
    if (!f || fputs(trace, f) < 0 || fclose(f) != 0) {
        printf("FAIL attribution: cannot write %s\n", path);
        return 1;
    }
    tp_error err = {0};
    tp_store *st = tp_store_new();
    CHECK_INT("attr: loads", tp_store_load(st, path, &err), TP_OK);
    CHECK_INT("attr: links", tp_store_link(st, &err), TP_OK);
    const struct tp_attribution *a = &st->attr;

    struct { const char *kernel; int kind, cause; const char *op; } want[] = {
        {"gemm", TP_LAUNCH_RUNTIME, TP_ATTR_OPERATOR, "aten::mm"},
        {"triton_k", TP_LAUNCH_DRIVER, TP_ATTR_OPERATOR, "triton_fused"},
        {"g1", TP_LAUNCH_GRAPH, TP_ATTR_LAUNCH_CALL, "cudaGraphLaunch"},
        {"g2", TP_LAUNCH_GRAPH, TP_ATTR_LAUNCH_CALL, "cudaGraphLaunch"},
        {"outside", TP_LAUNCH_RUNTIME, TP_ATTR_OUTSIDE_OPERATOR, NULL},
        {"early", TP_LAUNCH_NONE, TP_ATTR_BEFORE_PROFILER, NULL},
        {"lost", TP_LAUNCH_NONE, TP_ATTR_NO_LAUNCH_RECORD, NULL},
        {"nocorr", TP_LAUNCH_NONE, TP_ATTR_NO_CORRELATION, NULL},
    };
    for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
        char name[96];
        int64_t r = row_named(st, want[k].kernel);
        snprintf(name, sizeof name, "attr: %s found", want[k].kernel);
        CHECK(name, r >= 0);
        if (r < 0)
            continue;
        snprintf(name, sizeof name, "attr: %s launch kind", want[k].kernel);
        CHECK_INT(name, tp_store_attr_kind(st, (size_t)r), want[k].kind);
        snprintf(name, sizeof name, "attr: %s cause", want[k].kernel);
        CHECK_INT(name, tp_store_attr_cause(st, (size_t)r), want[k].cause);
        snprintf(name, sizeof name, "attr: %s operator", want[k].kernel);
        CHECK_STR(name, tp_store_attr_op(st, (size_t)r) >= 0 ? tp_store_str(st, st->name[tp_store_attr_op(st, (size_t)r)]) : "-", want[k].op ? want[k].op : "-");
    }
    CHECK_INT("attr: kernels", a->kernels, 8);
    CHECK_INT("attr: kernel ns", a->kernel_ns, 360000);
    CHECK_INT("attr: driver ns", a->kind_ns[TP_LAUNCH_DRIVER], 20000);
    CHECK_INT("attr: graph ns", a->kind_ns[TP_LAUNCH_GRAPH], 70000);
    CHECK_INT("attr: graph launches", a->graph_launches, 1);
    CHECK_INT("attr: outside ns", a->cause_ns[TP_ATTR_OUTSIDE_OPERATOR], 50000);
    CHECK("attr: share 100 / 360", tp_attr_share(a) == 100.0 * 100000 / 360000);

    char line[2048];
    CHECK_INT("attr: coverage line", tp_store_coverage(st, line, sizeof line), 1);
    char head[512];
    snprintf(head, sizeof head, "%s: 27.8%% of kernel time attributed to operators (driver launches 5.6%%, "
             "graph replays 19.4%%, outside any operator 13.9%%: 1 kernel of calls such as cudaLaunchKernel, "
             "no launch record 58.3%%: 1 kernel without a correlation id, 1 kernel launched before the profiler "
             "started, 1 kernel whose launch call the profiler lost)", path);
    CHECK("attr: coverage shares and causes", strncmp(line, head, strlen(head)) == 0);
    if (strncmp(line, head, strlen(head)) != 0)
        printf("# %s\n", line);
    CHECK("attr: coverage names the graph's launcher", strstr(line, "2 kernels of 1 graph launch") != NULL);
    CHECK("attr: coverage under 95% says what to do", strstr(line, "; to attribute more: ") != NULL);

    char key[64], val[512];
    CHECK("attr: info row 0", tp_attr_info_line(st, 0, key, sizeof key, val, sizeof val));
    CHECK_STR("attr: info key", key, "kernel_time.attributed");
    CHECK("attr: info value", strncmp(val, "27.8% (4 of 8 kernels", 21) == 0);
    if (strncmp(val, "27.8% (4 of 8 kernels", 21) != 0)
        printf("# %s\n", val);

    /* the plugin operator tree: driver and graph launches are launches */
    tp_table *t = NULL;
    CHECK_INT("attr: ops builds", tp_view_ops.build(st, NULL, &t, &err), TP_OK);
    char buf[64];
    if (t) {
        CHECK_STR("attr: ops aten::mm", cell_of(t, "aten::mm", 3, buf, sizeof buf), "10");
        CHECK_STR("attr: ops driver launch", cell_of(t, "triton_fused", 3, buf, sizeof buf), "20");
        CHECK_STR("attr: ops graph launch", cell_of(t, "cudaGraphLaunch", 3, buf, sizeof buf), "70");
        CHECK_STR("attr: ops no row for a launch outside operators",
                  cell_of(t, "cudaLaunchKernel", 3, buf, sizeof buf), "(no row)");
    }
    tp_table_free(t);
    tp_store_free(st);
    test_capture(path);
    unlink(path);
    TEST_EXIT();
}
