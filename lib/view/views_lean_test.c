/* views_lean_test.c — each view's lean level (tp_view_lean_level) against
 * its output: on a kineto trace with every kind of event a lean load leaves
 * out (flows, python frames, memory events), every view built as `tprof
 * report` builds it (default columns, CSV and -w) from a store loaded at
 * its own level gives the tables, footers and notes of a whole load; and
 * the views that read what the next level leaves out differ there, so a
 * level set one too lean fails here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "testing.h"
#include "table.h"
#include "store.h"
#include "critical_path.h"
#include "tprof.h"

/* A python frame around the whole trace (its span: no ProfilerStep), a
 * label around python frames around a module call in a module call
 * (through a plain frame: its parent) around operators that launch
 * kernels (ac2g flows), a second label a python frame straddles, a
 * backward op linked by a fwdbwd flow, memory events, a python frame
 * named like an autograd node. */
static const char *const trace_json =
    "{\"deviceProperties\": [{\"id\": 0, \"name\": \"NVIDIA A100-SXM4-40GB\", \"totalGlobalMem\": 42505273344,"
    "  \"computeMajor\": 8, \"computeMinor\": 0, \"numSms\": 108, \"maxThreadsPerBlock\": 1024,"
    "  \"maxThreadsPerMultiprocessor\": 2048, \"regsPerBlock\": 65536, \"regsPerMultiprocessor\": 65536,"
    "  \"warpSize\": 32, \"sharedMemPerBlock\": 49152, \"sharedMemPerMultiprocessor\": 167936}],\n"
    "\"traceEvents\": [\n"
    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"train.py(1): <module>\", \"pid\": 1,"
    "  \"tid\": 1, \"ts\": 50, \"dur\": 1200, \"args\": {\"Python id\": 0}},\n"
    " {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"my_label\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 95, \"dur\": 600, \"args\": {\"External id\": 2}},\n"
    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"model.py(10): forward\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 100, \"dur\": 580, \"args\": {\"Python id\": 1, \"Python parent id\": 0}},\n"
    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: Block_0\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 104, \"dur\": 310, \"args\": {\"Python id\": 6, \"Python parent id\": 1, \"Python module id\": 1}},\n"
    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"model.py(30): block\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 107, \"dur\": 305, \"args\": {\"Python id\": 7, \"Python parent id\": 6}},\n"
    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"nn.Module: Linear_0\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 110, \"dur\": 300, \"args\": {\"Python id\": 2, \"Python parent id\": 7, \"Python module id\": 0}},\n"
    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"torch/nn/functional.py(5): linear\", \"pid\": 1,"
    "  \"tid\": 1, \"ts\": 115, \"dur\": 250, \"args\": {\"Python id\": 3, \"Python parent id\": 2}},\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::linear\", \"pid\": 1, \"tid\": 1, \"ts\": 120,"
    "  \"dur\": 200, \"args\": {\"External id\": 3, \"Sequence number\": 5, \"Input Dims\": [[4, 8], [8, 8]],"
    "  \"Input type\": [\"float\", \"float\"]}},\n"
    " {\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": 125,"
    "  \"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Addr\": 4096, \"Bytes\": 512,"
    "  \"Total Allocated\": 512, \"Total Reserved\": 2097152}},\n"
    " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 130, \"dur\": 10, \"args\": {\"correlation\": 11, \"External id\": 3}},\n"
    " {\"ph\": \"s\", \"id\": 11, \"pid\": 1, \"tid\": 1, \"ts\": 130, \"cat\": \"ac2g\", \"name\": \"launch\"},\n"
    " {\"ph\": \"f\", \"id\": 11, \"pid\": 0, \"tid\": 7, \"ts\": 200, \"cat\": \"ac2g\", \"name\": \"launch\","
    "  \"bp\": \"e\"},\n"
    " {\"ph\": \"s\", \"id\": 5, \"pid\": 1, \"tid\": 1, \"ts\": 120, \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\"},\n"
    " {\"ph\": \"f\", \"id\": 5, \"pid\": 1, \"tid\": 2, \"ts\": 710, \"cat\": \"fwdbwd\", \"name\": \"fwdbwd\","
    "  \"bp\": \"e\"},\n"
    " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 150, \"dur\": 10, \"args\": {\"correlation\": 12, \"External id\": 3}},\n"
    " {\"ph\": \"s\", \"id\": 12, \"pid\": 1, \"tid\": 1, \"ts\": 150, \"cat\": \"ac2g\", \"name\": \"launch\"},\n"
    " {\"ph\": \"f\", \"id\": 12, \"pid\": 0, \"tid\": 7, \"ts\": 260, \"cat\": \"ac2g\", \"name\": \"launch\","
    "  \"bp\": \"e\"},\n"
    " {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"act_label\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 415, \"dur\": 175, \"args\": {\"External id\": 6}},\n"
    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"model.py(20): act\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 420, \"dur\": 200, \"args\": {\"Python id\": 4, \"Python parent id\": 1}},\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::relu\", \"pid\": 1, \"tid\": 1, \"ts\": 430,"
    "  \"dur\": 150, \"args\": {\"External id\": 4, \"Sequence number\": 6, \"Input Dims\": [[4, 8]]}},\n"
    " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 440, \"dur\": 10, \"args\": {\"correlation\": 13, \"External id\": 4}},\n"
    " {\"ph\": \"i\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1, \"tid\": 1, \"ts\": 445,"
    "  \"args\": {\"Device Type\": 1, \"Device Id\": 0, \"Addr\": 4096, \"Bytes\": -512,"
    "  \"Total Allocated\": 0, \"Total Reserved\": 2097152}},\n"
    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"torch/autograd: MulBackward0\", \"pid\": 1,"
    "  \"tid\": 2, \"ts\": 700, \"dur\": 300, \"args\": {\"Python id\": 5, \"Python parent id\": 0}},\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mul\", \"pid\": 1, \"tid\": 2, \"ts\": 710,"
    "  \"dur\": 100, \"args\": {\"External id\": 5, \"Sequence number\": 5}},\n"
    " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 2,"
    "  \"ts\": 720, \"dur\": 10, \"args\": {\"correlation\": 14, \"External id\": 5}},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ampere_sgemm_32x32_sliced1x4_tn\", \"pid\": 0, \"tid\": 7,"
    "  \"ts\": 200, \"dur\": 50, \"args\": {\"correlation\": 11, \"device\": 0, \"stream\": 7, \"grid\": [4, 1, 1],"
    "  \"block\": [128, 1, 1], \"registers per thread\": 64, \"shared memory\": 8192}},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"bias\", \"pid\": 0, \"tid\": 7, \"ts\": 260, \"dur\": 5,"
    "  \"args\": {\"correlation\": 12, \"device\": 0, \"stream\": 7}},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"relu\", \"pid\": 0, \"tid\": 7, \"ts\": 460, \"dur\": 20,"
    "  \"args\": {\"correlation\": 13, \"device\": 0, \"stream\": 7}},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"mul\", \"pid\": 0, \"tid\": 7, \"ts\": 740, \"dur\": 5,"
    "  \"args\": {\"correlation\": 14, \"device\": 0, \"stream\": 7}}\n"
    "]}\n";

/* Two flows a whole load counts as malformed (a string start, an id that is
 * no integer) and a good one: a lean load that leaves flows out still
 * checks them, for info and check. */
static const char *const bad_flows_json =
    "{\"traceEvents\": [\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mul\", \"pid\": 1, \"tid\": 1, \"ts\": 10,"
    "  \"dur\": 100, \"args\": {\"External id\": 1}},\n"
    " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 20, \"dur\": 10, \"args\": {\"correlation\": 11, \"External id\": 1}},\n"
    " {\"ph\": \"s\", \"id\": 11, \"pid\": 1, \"tid\": 1, \"ts\": \"x\", \"cat\": \"ac2g\", \"name\": \"launch\"},\n"
    " {\"ph\": \"f\", \"id\": 1.5, \"pid\": 0, \"tid\": 7, \"ts\": 40, \"cat\": \"ac2g\", \"name\": \"launch\","
    "  \"bp\": \"e\"},\n"
    " {\"ph\": \"t\", \"id\": 11, \"pid\": 0, \"tid\": 7, \"ts\": 45, \"cat\": \"ac2g\", \"name\": \"launch\"},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"mul\", \"pid\": 0, \"tid\": 7, \"ts\": 40, \"dur\": 5,"
    "  \"args\": {\"correlation\": 11, \"device\": 0, \"stream\": 7}}\n"
    "]}\n";

/* A Triton launch as torch.compile records it: a cpu_op with a "stream"
 * around a python frame around two launch calls, in an operator (the
 * critical path's walk takes no host event with a stream).  The gap between the
 * calls is attributed to their parent: the frame in a whole load
 * (cpu_bound), the cpu_op without it (gpu_compute_bound); so the critical
 * path of a TP_LEAN_PYGRAPH load is refused (tp_view_serves), and report
 * loads the trace again. */
static const char *const triton_json =
    "{\"traceEvents\": [\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::outer\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 90, \"dur\": 120, \"args\": {\"External id\": 2}},\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"triton_poi_fused_add_0\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 100, \"dur\": 100, \"args\": {\"External id\": 1, \"device\": 0, \"stream\": 7}},\n"
    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"<built-in function launch>\", \"pid\": 1,"
    "  \"tid\": 1, \"ts\": 105, \"dur\": 80, \"args\": {\"Python id\": 1}},\n"
    " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 110, \"dur\": 10, \"args\": {\"correlation\": 21, \"External id\": 1}},\n"
    " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 150, \"dur\": 10, \"args\": {\"correlation\": 22, \"External id\": 1}},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"triton_poi_fused_add_0\", \"pid\": 0, \"tid\": 7,"
    "  \"ts\": 130, \"dur\": 5, \"args\": {\"correlation\": 21, \"device\": 0, \"stream\": 7}},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"triton_poi_fused_add_0\", \"pid\": 0, \"tid\": 7,"
    "  \"ts\": 170, \"dur\": 5, \"args\": {\"correlation\": 22, \"device\": 0, \"stream\": 7}}\n"
    "]}\n";

/* The same launch on a second thread, off the critical path: the path
 * runs through thread 1's long operator and its kernel, so no edge of it
 * is charged to the Triton cpu_op, and the TP_LEAN_PYGRAPH load serves the
 * critical path after all (tp_critical_path_lean_serves computes it). */
static const char *const triton_off_path_json =
    "{\"traceEvents\": [\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::long\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 0, \"dur\": 5000, \"args\": {\"External id\": 3}},\n"
    " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 10, \"dur\": 10, \"args\": {\"correlation\": 31, \"External id\": 3}},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7,"
    "  \"ts\": 30, \"dur\": 9000, \"args\": {\"correlation\": 31, \"device\": 0, \"stream\": 7}},\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"triton_poi_fused_add_0\", \"pid\": 1, \"tid\": 2,"
    "  \"ts\": 100, \"dur\": 100, \"args\": {\"External id\": 1, \"device\": 0, \"stream\": 8}},\n"
    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"<built-in function launch>\", \"pid\": 1,"
    "  \"tid\": 2, \"ts\": 105, \"dur\": 80, \"args\": {\"Python id\": 1}},\n"
    " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 2,"
    "  \"ts\": 110, \"dur\": 10, \"args\": {\"correlation\": 21, \"External id\": 1}},\n"
    " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 2,"
    "  \"ts\": 150, \"dur\": 10, \"args\": {\"correlation\": 22, \"External id\": 1}},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"triton_poi_fused_add_0\", \"pid\": 0, \"tid\": 8,"
    "  \"ts\": 130, \"dur\": 5, \"args\": {\"correlation\": 21, \"device\": 0, \"stream\": 8}},\n"
    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"triton_poi_fused_add_0\", \"pid\": 0, \"tid\": 8,"
    "  \"ts\": 170, \"dur\": 5, \"args\": {\"correlation\": 22, \"device\": 0, \"stream\": 8}}\n"
    "]}\n";

/* A python frame a whole load counts as malformed (its parent id is no
 * integer): a TP_LEAN_PYGRAPH load checks its args too (info counts it),
 * a TP_LEAN_PYFUNCS load does not. */
static const char *const bad_frame_json =
    "{\"traceEvents\": [\n"
    " {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mul\", \"pid\": 1, \"tid\": 1, \"ts\": 10,"
    "  \"dur\": 100, \"args\": {\"External id\": 1}},\n"
    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"f.py(1): g\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 5, \"dur\": 200, \"args\": {\"Python id\": 1}},\n"
    " {\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"f.py(2): h\", \"pid\": 1, \"tid\": 1,"
    "  \"ts\": 20, \"dur\": 10, \"args\": {\"Python id\": 2, \"Python parent id\": \"x\"}}\n"
    "]}\n";

/* View v built from st as `tprof report` builds it (-w 100 when
 * columnated, else CSV), into one text: its status, message, table and
 * footer.  The build bypasses tp_view_build's refusal of a store leaner
 * than the view's level (bypass: 1), to show what that level would give. */
static char *report_text(const tp_view *v, const tp_store *st, int columnated, int bypass)
{
    struct tp_view_opts vo = {0};
    vo.columnated = columnated;
    vo.need_columns = tp_view_default_columns(v, &vo);
    tp_table *t = NULL;
    tp_error err = {0};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return NULL;
    int rc = bypass ? v->build(st, &vo, &t, &err) : tp_view_build(v, st, &vo, &t, &err);
    fprintf(f, "%d %s\n", rc, err.msg);
    if (rc == TP_OK) {
        struct tp_output_opts o;
        tp_output_opts_init(&o);
        o.format = columnated ? TP_FMT_COLUMNS : TP_FMT_CSV;
        o.width = 100;
        o.columns = tp_table_default_columns(t);
        if (!o.columns)
            o.columns = vo.need_columns;
        tp_table_write(t, &o, f, &err);
        fprintf(f, "%s", tp_table_footer(t) ? tp_table_footer(t) : "");
        tp_table_free(t);
    }
    fclose(f);
    return text;
}

static tp_store *load(const char *path, int lean)
{
    tp_store *st = tp_store_new();
    tp_error err = {0};
    if (!st)
        return NULL;
    tp_store_set_lean(st, lean);
    if (tp_store_load(st, path, &err) != TP_OK || tp_store_link(st, &err) != TP_OK) {
        tp_store_free(st);
        return NULL;
    }
    return st;
}

/* 1 when v built from a store loaded at `lean` says what it says from
 * the whole load `whole` (CSV and -w); *built: it was not refused. */
static int same_as_whole(const tp_view *v, const char *path, const tp_store *whole, int lean, int bypass)
{
    tp_store *st = load(path, lean);
    if (!st)
        return 0;
    int same = 1;
    for (int c = 0; c < 2; c++) {
        char *a = report_text(v, whole, c, 0), *b = report_text(v, st, c, bypass);
        same &= a && b && strcmp(a, b) == 0;
        free(a);
        free(b);
    }
    tp_store_free(st);
    return same;
}

/* The leanest level report tries for view v (CSV or -w). */
static int report_level(const tp_view *v)
{
    int lean = TP_LEAN_KERNELS;
    for (int c = 0; c < 2; c++) {
        struct tp_view_opts vo = {0};
        vo.columnated = c;
        vo.need_columns = tp_view_default_columns(v, &vo);
        int l = tp_view_lean_try(v, &vo);
        lean = l < lean ? l : lean;
    }
    return lean;
}

static tp_store *write_and_load(const char *path, const char *text, const char *what)
{
    char name[64];
    FILE *f = fopen(path, "w");
    int ok = f && fputs(text, f) >= 0;
    if (f)
        ok = fclose(f) == 0 && ok;
    snprintf(name, sizeof name, "%s.written", what);
    CHECK(name, ok);
    tp_store *st = ok ? load(path, TP_LEAN_NONE) : NULL;
    snprintf(name, sizeof name, "%s.whole_loads", what);
    CHECK(name, st != NULL);
    return st;
}

/* 1 when v with options vo builds the same text from a and b (CSV);
 * b bypasses tp_view_build's refusal when bypass is 1. */
static int same_opts(const tp_view *v, const tp_store *a, const tp_store *b, const struct tp_view_opts *vo,
                     int bypass)
{
    char *x[2] = {NULL, NULL};
    for (int k = 0; k < 2; k++) {
        const tp_store *st = k ? b : a;
        tp_table *t = NULL;
        tp_error err = {0};
        size_t len = 0;
        FILE *f = open_memstream(&x[k], &len);
        if (!f)
            break;
        int rc = k && bypass ? v->build(st, vo, &t, &err) : tp_view_build(v, st, vo, &t, &err);
        fprintf(f, "%d %s\n", rc, err.msg);
        if (rc == TP_OK) {
            struct tp_output_opts o;
            tp_output_opts_init(&o);
            o.format = TP_FMT_CSV;
            o.columns = tp_table_default_columns(t);
            if (!o.columns)
                o.columns = tp_view_default_columns(v, vo);
            tp_table_write(t, &o, f, &err);
            tp_table_free(t);
        }
        fclose(f);
    }
    int same = x[0] && x[1] && strcmp(x[0], x[1]) == 0;
    free(x[0]);
    free(x[1]);
    return same;
}

/* critical-path on `path` (trace_json: its window is the whole trace,
 * which a python frame spans): the whole load's summary from a
 * TP_LEAN_PYGRAPH load, through the frames' span (left_out_lo, hi), which
 * ignored gives another window; the forms that read the frames themselves
 * at TP_LEAN_FLOWS. */
static void lean_critical_path(const char *path, const tp_store *whole)
{
    const tp_view *cp = tp_view_find("critical-path");
    struct tp_view_opts vo = {0};
    CHECK_INT("critical-path.tries_pygraph", tp_view_lean_try(cp, &vo), TP_LEAN_PYGRAPH);
    CHECK_INT("critical-path.level_flows", tp_view_lean_level(cp, &vo), TP_LEAN_FLOWS);
    vo.path = 1;
    CHECK_INT("critical-path.path_flows", tp_view_lean_try(cp, &vo), TP_LEAN_FLOWS);
    vo.path = 0;
    vo.annotation = "label";
    CHECK_INT("critical-path.annotation_flows", tp_view_lean_try(cp, &vo), TP_LEAN_FLOWS);
    vo.annotation = NULL;
    vo.hta_quirks = 1;
    CHECK_INT("critical-path.quirks_flows", tp_view_lean_try(cp, &vo), TP_LEAN_FLOWS);
    vo.hta_quirks = 0;
    tp_store *g = load(path, TP_LEAN_PYGRAPH);
    CHECK("critical-path.pygraph_loads", g != NULL);
    if (!g)
        return;
    CHECK("critical-path.pygraph_left_frames", g->left_out_py > 0 && g->left_out_lo == 50000);
    CHECK("critical-path.pygraph_serves", tp_view_serves(cp, g, &vo));
    CHECK("critical-path.pygraph_same", same_opts(cp, whole, g, &vo, 0));
    vo.step_given = 1;   /* no such step: the same refusal */
    CHECK("critical-path.pygraph_step_same", same_opts(cp, whole, g, &vo, 0));
    vo.step_given = 0;
    vo.path = 1;
    CHECK("critical-path.pygraph_path_refused", !tp_view_serves(cp, g, &vo));
    vo.path = 0;
    setenv("TPROF_HTA_QUIRKS", "1", 1);
    CHECK("critical-path.pygraph_quirks_env_refused", !tp_view_serves(cp, g, &vo));
    unsetenv("TPROF_HTA_QUIRKS");
    g->left_out_py = 0;   /* as if the frames' span were not kept */
    CHECK("critical-path.needs_frames_span", !same_opts(cp, whole, g, &vo, 1));
    tp_store_free(g);
}

/* info counts the python frames a TP_LEAN_PYGRAPH load left out as
 * python_function events, and their span as the trace's; a malformed one
 * as a whole load does, which TP_LEAN_PYFUNCS does not. */
static void lean_info(const char *path)
{
    const tp_view *info = tp_view_find("info");
    struct tp_view_opts vo = {0};
    CHECK_INT("info.level", tp_view_lean_level(info, &vo), TP_LEAN_PYGRAPH);
    tp_store *whole = write_and_load(path, bad_frame_json, "bad_frame");
    tp_store *g = whole ? load(path, TP_LEAN_PYGRAPH) : NULL, *py = whole ? load(path, TP_LEAN_PYFUNCS) : NULL;
    CHECK("info.lean_loads", g && py && g->left_out_py == 1 && g->left_out == 1);
    if (whole && g && py) {
        CHECK("info.pygraph_same", same_opts(info, whole, g, &vo, 0));
        CHECK("info.pyfuncs_differs", !same_opts(info, whole, py, &vo, 1));
        g->left_out_py = 0;   /* as if the frames were not told from flows */
        CHECK("info.needs_frames_count", !same_opts(info, whole, g, &vo, 1));
    }
    tp_store_free(whole);
    tp_store_free(g);
    tp_store_free(py);
}

/* critical-path on a Triton launch: a TP_LEAN_PYGRAPH load does not serve
 * it (built anyway, it says another thing), a TP_LEAN_FLOWS load does. */
static void lean_triton(const char *path)
{
    const tp_view *cp = tp_view_find("critical-path");
    struct tp_view_opts vo = {0};
    tp_store *whole = write_and_load(path, triton_json, "triton");
    tp_store *g = whole ? load(path, TP_LEAN_PYGRAPH) : NULL, *fl = whole ? load(path, TP_LEAN_FLOWS) : NULL;
    CHECK("triton.lean_loads", g && fl && g->left_out_py == 1);
    if (whole && g && fl) {
        CHECK("triton.pygraph_refused", !tp_view_serves(cp, g, &vo) && !same_opts(cp, whole, g, &vo, 0));
        CHECK("triton.pygraph_differs", !same_opts(cp, whole, g, &vo, 1));
        CHECK("triton.flows_same", tp_view_serves(cp, fl, &vo) && same_opts(cp, whole, fl, &vo, 0));
    }
    tp_store_free(whole);
    tp_store_free(g);
    tp_store_free(fl);
    /* off the path: the quick test refuses (a host event has a stream),
     * the path computed serves, and the table is the whole load's */
    whole = write_and_load(path, triton_off_path_json, "triton off the path");
    g = whole ? load(path, TP_LEAN_PYGRAPH) : NULL;
    CHECK("triton_off_path.lean_loads", g && g->left_out_py == 1);
    if (whole && g) {
        CHECK("triton_off_path.quick_test_refuses", !tp_cp_lean_serves(g));
        CHECK("triton_off_path.pygraph_serves", tp_view_serves(cp, g, &vo));
        CHECK("triton_off_path.pygraph_same", same_opts(cp, whole, g, &vo, 0));
    }
    tp_store_free(whole);
    tp_store_free(g);
}

int main(void)
{
    char dir[64], path[96], name[128];
    if (tt_tmpdir(dir, sizeof dir, "views-lean") < 0)
        TEST_EXIT();
    snprintf(path, sizeof path, "%s/t.json", dir);
    tp_store *whole = write_and_load(path, bad_flows_json, "bad_flows");
    if (whole) {
        char note[256];
        CHECK("bad_flows.malformed", tp_store_malformed(whole, 1, note, sizeof note) &&
                                         !tp_store_malformed(whole, 2, note, sizeof note));
        for (const tp_view *const *v = tp_views(); *v; v++) {
            snprintf(name, sizeof name, "bad_flows.%s.same_at_its_level", (*v)->name);
            CHECK(name, same_as_whole(*v, path, whole, report_level(*v), 0));
        }
        tp_store_free(whole);
    }
    whole = write_and_load(path, trace_json, "trace");
    if (!whole)
        TEST_EXIT();
    /* the views that read what the next level leaves out: their level is
     * as lean as it can be */
    static const char *const tight[] = {"modules", "memory"};
    size_t ntight = 0;
    for (const tp_view *const *v = tp_views(); *v; v++) {
        int lean = report_level(*v);
        snprintf(name, sizeof name, "%s.same_at_its_level", (*v)->name);
        CHECK(name, same_as_whole(*v, path, whole, lean, 0));
        for (size_t i = 0; i < sizeof tight / sizeof *tight; i++)
            if (strcmp((*v)->name, tight[i]) == 0) {
                ntight++;
                snprintf(name, sizeof name, "%s.differs_leaner", (*v)->name);
                CHECK(name, lean < TP_LEAN_KERNELS && !same_as_whole(*v, path, whole, lean + 1, 1));
            }
    }
    CHECK("tight_views_found", ntight == sizeof tight / sizeof *tight);
    lean_critical_path(path, whole);
    tp_store_free(whole);
    lean_info(path);
    lean_triton(path);
    unlink(path);
    rmdir(dir);
    TEST_EXIT();
}
