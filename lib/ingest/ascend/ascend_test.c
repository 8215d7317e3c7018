/* ascend_test.c — the Ascend folder importer: torch_npu's CSV dialect
 * (quotes, embedded newlines, CRLF, BOM, trailing TABs, N/A, exponents),
 * every header variant of SPEC §A.4, bad cells reported with file, row and
 * column, the probe, the plugin's shape text, and the extra (PMU) columns
 * of kernel_details.csv kept as written. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <math.h>
#include "ascend.h"
#include "ingest.h"
#include "testing.h"
#include "view_npu_kernels.h"

void tp_npu_trans_shape(const char *s, struct tp_sbuf *b);

static char dir[256];

static void put(const char *name, const char *text)
{
    char p[512];
    snprintf(p, sizeof p, "%s/ASCEND_PROFILER_OUTPUT/%s", dir, name);
    FILE *f = fopen(p, "wb");
    fputs(text, f);
    fclose(f);
}

static tp_store *load(void)
{
    tp_store *st = tp_store_new();
    tp_error e = {0};
    if (tp_store_load(st, dir, &e) != TP_OK)
        printf("# load: %s\n", e.msg);
    else if (tp_store_link(st, &e) != TP_OK)   /* views read linked stores */
        printf("# link: %s\n", e.msg);
    return st;
}

static void clean(void)
{
    static const char *const names[] = {"kernel_details.csv", "operator_details.csv", "memory_record.csv",
                                        "operator_memory.csv", "npu_module_mem.csv", "step_trace_time.csv",
                                        "communication.json", "trace_view.json"};
    char p[512];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/ASCEND_PROFILER_OUTPUT/%s", dir, names[i]);
        unlink(p);
    }
}

/* A folder of one file: clean(), put(name, text), load(). */
static tp_store *load_file(const char *name, const char *text)
{
    clean();
    put(name, text);
    return load();
}

/* Which of d's record arrays a variant test counts. */
enum npu_table { TASKS, STEPS, OPS };

static size_t npu_count(const struct tp_npu_data *d, enum npu_table which)
{
    return which == TASKS ? d->ntasks : which == STEPS ? d->nsteps : d->nops;
}

/* st's NPU data when it holds `want` records of `which` (the check NAME),
 * else NULL. */
static struct tp_npu_data *rows_of(const tp_store *st, const char *name, enum npu_table which, size_t want)
{
    struct tp_npu_data *d = st->npu;
    CHECK_INT(name, d ? (long long)npu_count(d, which) : -1, (long long)want);
    return d && npu_count(d, which) == want ? d : NULL;
}

/* rows_of a folder of one file (load_file), which replaces *st. */
static struct tp_npu_data *load_rows(tp_store **st, const char *file, const char *text, const char *name,
                                     enum npu_table which, size_t want)
{
    tp_store_free(*st);
    *st = load_file(file, text);
    return rows_of(*st, name, which, want);
}

static const char *skip_reason(const tp_store *st, const char *prefix, uint64_t *count, int *malformed)
{
    for (size_t i = 0; i < st->nskips; i++)
        if (strncmp(st->skips[i].reason, prefix, strlen(prefix)) == 0) {
            if (count) *count = st->skips[i].count;
            if (malformed) *malformed = st->skips[i].malformed;
            return st->skips[i].reason;
        }
    return NULL;
}

static int rows_seen, ns_rc;
static int64_t ns_val;
static char last[4][64];
static int row_fn(struct tp_npu_csv *c, void *ctx)
{
    (void)ctx;
    rows_seen++;
    ns_rc = tp_npu_cell_ns(c, 2, &ns_val);
    for (int i = 0; i < 4; i++) {
        size_t n;
        const char *s = tp_npu_cell(c, i, &n);
        snprintf(last[i], sizeof last[i], "%.*s", (int)n, s);
    }
    return 0;
}

static void dialect(void)
{
    tp_store *st = tp_store_new();
    struct tp_npu_csv c;
    memset(&c, 0, sizeof c);
    c.st = st;
    c.file = "x.csv";
    const char *text = "\xef\xbb\xbfName,Call Stack,Time(us),Size\r\n"
                       "a,\"f.py(1): g;\nh.py(2): k\",\"1736413971558972.912\t\",N/A\r\n"
                       "\"q\"\"uote\",,1.69512E+15,\n";
    rows_seen = 0;
    CHECK_INT("ascend.csv.parse", tp_npu_csv_parse(&c, text, strlen(text), row_fn, NULL), 0);
    CHECK_INT("ascend.csv.rows", rows_seen, 2);
    CHECK_INT("ascend.csv.bom", tp_npu_col(&c, "Name"), 0);
    CHECK_INT("ascend.csv.case", tp_npu_col(&c, "time(US)"), 2);
    CHECK_INT("ascend.csv.absent", tp_npu_col(&c, "Device_id"), -1);
    CHECK_STR("ascend.csv.escaped_quote", last[0], "q\"uote");
    CHECK_STR("ascend.csv.exponent_text", last[2], "1.69512E+15");
    tp_npu_csv_free(&c);

    /* the first row again, to look at its cells */
    memset(&c, 0, sizeof c);
    c.st = st;
    c.file = "x.csv";
    const char *one = "Name,Call Stack,Time(us),Size\r\na,\"f.py(1): g;\nh.py(2): k\",\"1736413971558972.912\t\",N/A\r\n";
    rows_seen = 0;
    tp_npu_csv_parse(&c, one, strlen(one), row_fn, NULL);
    CHECK_STR("ascend.csv.embedded_newline", last[1], "f.py(1): g;\nh.py(2): k");
    CHECK_STR("ascend.csv.trailing_tab_stripped", last[2], "1736413971558972.912");
    CHECK_INT("ascend.csv.ns_exact", ns_rc, 1);
    CHECK("ascend.csv.ns_value", ns_val == INT64_C(1736413971558972912));
    CHECK_STR("ascend.csv.na_text", last[3], "N/A");
    tp_npu_csv_free(&c);
    tp_store_free(st);
}

static void shapes(void)
{
    static const struct { const char *in, *out; } cases[] = {
        {"", "[[]]"},
        {"0", "[[0]]"},
        {"\"8,1024\"", "[[\"8,1024\"]]"},
        {";", "[[]]"},
        {"32,3,224,224;\n;\n;\n", "[[32,3,224,224], [], [], []]"},
        {"81920,4096;8192,512", "[[81920,4096], [8192,512]]"},   /* the plugin glues these: fixed */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct tp_sbuf b = {0};
        tp_npu_trans_shape(cases[i].in, &b);
        tp_sbuf_putc(&b, 0);
        char name[64];
        snprintf(name, sizeof name, "ascend.trans_shape.%zu", i);
        CHECK_STR(name, b.p, cases[i].out);
        tp_sbuf_free(&b);
    }
}

static void variants(void)
{
    /* Level0 <= 2025-06: no Device_id, Block Dim */
    clean();
    put("kernel_details.csv", "Step Id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim\r\n"
                              "50,Cast16,N/A,N/A,1736405443887058.352\t,10.5,0,8\r\n"
                              "50,hcom_allReduce__1_0_1,N/A,HCCL,1736405443887100.000\t,100.25,31.648,N/A\r\n");
    put("memory_record.csv", "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Device Type\nPTA,1736405443887000,1.5,2.0,NPU:3\n");
    tp_store *st = load();
    struct tp_npu_data *d = rows_of(st, "ascend.variant.level0.rows", TASKS, 2);
    if (d) {
        CHECK_INT("ascend.variant.level0.device_from_memory", d->tasks[0].device, 3);
        CHECK_INT("ascend.variant.level0.block_dim", d->tasks[0].block_dim, 8);
        CHECK("ascend.variant.level0.block_na", d->tasks[1].block_dim == TP_NONE);
        CHECK_INT("ascend.variant.level0.dur_ns", d->tasks[1].dur, 100250);
        CHECK_INT("ascend.variant.level0.step", d->tasks[1].step, 50);
        CHECK_INT("ascend.variant.level0.store_kernel", st->kind[d->tasks[0].row], TP_K_KERNEL);
    }
    CHECK_INT("ascend.variant.level0.no_complaint", st->nskips, 0);
    CHECK_INT("ascend.variant.format", st->format, TP_SRC_ASCEND);

    /* 2026: Device_id in front, Block Num, Step ID spelled upper-case */
    d = load_rows(
        &st, "kernel_details.csv",
        "Step ID,Device_id,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Num\n"
        "7,1,MatMul1,MatMul,AI_CORE,1736405443887058.352,3.5,0,24\n"
        "7,1,allreduce,hcom,COMMUNICATION,1736405443887158.352,9,0,N/A\n",
        "ascend.variant.2026.rows", TASKS, 2);
    if (d) {
        CHECK_INT("ascend.variant.2026.device", d->tasks[0].device, 1);
        CHECK_INT("ascend.variant.2026.block_num", d->tasks[0].block_dim, 24);
        CHECK_INT("ascend.variant.2026.step", d->tasks[0].step, 7);
        CHECK_STR("ascend.variant.2026.core", tp_store_str(st, d->tasks[1].core), "COMMUNICATION");
    }

    /* step_trace_time with Device_id first: the step comes from "Step" */
    d = load_rows(&st, "step_trace_time.csv",
                  "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
                  "Communication(Not Overlapped and Exclude Receive),Preparing\r\n0,12,10.5,2,1,3,4,0,0,2,0\r\n",
                  "ascend.variant.steps.rows", STEPS, 1);
    if (d) {
        CHECK_INT("ascend.variant.steps.step_by_name", d->steps[0].step, 12);
        CHECK_INT("ascend.variant.steps.device", d->steps[0].device, 0);
    }
    tp_store_free(st);

    /* dist: computation = computing - overlapped; avg row over two steps */
    st = load_file("step_trace_time.csv", "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,"
                                          "Communication(Not Overlapped and Exclude Receive)\n1,10.5,2,1,3,4,0,0,2\n2,20.5,4,3,7,6,0,0,4\n");
    const tp_view *dist = tp_view_find("dist");
    tp_table *dt = NULL;
    tp_error de = {0};
    if (dist && tp_view_build(dist, st, &(struct tp_view_opts){0}, &dt, &de) == TP_OK) {
        CHECK_INT("ascend.dist.rows", tp_table_rows(dt), 3);
        CHECK_STR("ascend.dist.step", tp_table_cell_str(dt, 1, 1), "2");
        CHECK_INT("ascend.dist.computation_ns", tp_table_cell_int(dt, 0, 2), 9500);
        CHECK_STR("ascend.dist.avg", tp_table_cell_str(dt, 2, 1), "avg");
        CHECK_INT("ascend.dist.avg_computation", tp_table_cell_int(dt, 2, 2), 13500);
        CHECK_INT("ascend.dist.avg_other", tp_table_cell_int(dt, 2, 5), 5000);
    } else {
        CHECK("ascend.dist.build", 0);
        printf("# %s\n", de.msg);
    }
    tp_table_free(dt);
    tp_store_free(st);

    /* operator_details with its columns moved: found by name */
    st = NULL;
    d = load_rows(&st, "operator_details.csv",
                  "Call Stack,Name,Input Shapes,Device Total Duration(us),Host Self Duration(us),Host Total Duration(us),"
                  "Device Self Duration(us),Device Self Duration With AICore(us),Device Total Duration With AICore(us)\n"
                  "\"a.py(1): f;\nb.py(2): g\",aten::add,\"8,8;\n8,8;\n\",7.5,1,2,5.25,5.25,7.5\n",
                  "ascend.variant.ops.rows", OPS, 1);
    if (d) {
        CHECK_STR("ascend.variant.ops.name", tp_store_str(st, d->ops[0].name), "aten::add");
        CHECK_INT("ascend.variant.ops.dev_self", d->ops[0].dev_self, 5250);
        CHECK_INT("ascend.variant.ops.dev_total", d->ops[0].dev_total, 7500);
    }
    tp_store_free(st);
}

static void bad_input(void)
{
    clean();
    put("kernel_details.csv", "Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim\n"
                              "ok1,T,AI_CORE,1000.5,2,0,1\n"
                              "bad,T,AI_CORE,1001,abc,0,1\n"
                              "bad2,T,AI_CORE,1002,xyz,0,1\n"
                              "short,T\n"
                              "ok2,T,AI_CORE,1003,4,0,1\n");
    put("operator_details.csv", "Name,Input Shapes\naten::x,\n");
    tp_store *st = load();
    rows_of(st, "ascend.bad.other_rows_count", TASKS, 2);
    uint64_t n = 0;
    int mal = 0;
    const char *r = skip_reason(st, "kernel_details.csv row 2, column Duration(us)", &n, &mal);
    CHECK("ascend.bad.cell_message", r != NULL);
    if (r)
        printf("# %s\n", r);
    CHECK_INT("ascend.bad.cell_counted_once_per_column", n, 2);
    CHECK_INT("ascend.bad.cell_malformed", mal, 1);
    r = skip_reason(st, "kernel_details.csv row 4, column Duration(us): missing", &n, &mal);
    CHECK("ascend.bad.short_row", r != NULL);
    r = skip_reason(st, "operator_details.csv: no column \"Call Stack\"", NULL, NULL);
    CHECK("ascend.bad.optional_column_absent_ok", r == NULL);
    r = skip_reason(st, "operator_details.csv: no column \"Host Self Duration(us)\"", NULL, &mal);
    CHECK("ascend.bad.unknown_header", r != NULL && mal);
    tp_store_free(st);

    /* a view whose file is missing names it */
    st = load_file("kernel_details.csv", "Name,Duration(us)\nk,1\n");
    tp_error e = {0};
    tp_table *t = NULL;
    const tp_view *ops = tp_view_find("ops");
    int rc = ops ? tp_view_build(ops, st, &(struct tp_view_opts){0}, &t, &e) : TP_OK;
    CHECK("ascend.missing.status_ok", rc == TP_OK && e.status == TP_OK);
    CHECK("ascend.missing.empty_table", t != NULL && tp_table_rows(t) == 0);
    CHECK("ascend.missing.names_file", strstr(e.msg, "operator_details.csv not found") != NULL);
    CHECK("ascend.missing.names_found", strstr(e.msg, "found: kernel_details.csv") != NULL);
    tp_table_free(t);
    tp_store_free(st);
}

static void rounding(void)
{
    /* Python: round(0.125, 2) == 0.12, round(0.375, 2) == 0.38,
     * round(2.675, 2) == 2.67 (the double is below), round(1.005, 2) == 1.0 */
    CHECK("ascend.round2.tie_even_down", tp_npu_round2(0.125) == 0.12);
    CHECK("ascend.round2.tie_even_up", tp_npu_round2(0.375) == 0.38);
    CHECK("ascend.round2.binary_below", tp_npu_round2(2.675) == 2.67);
    CHECK("ascend.round2.binary_below2", tp_npu_round2(1.005) == 1.0);
    CHECK("ascend.round2.negative", tp_npu_round2(-0.004) == -0.0);

    /* 100 rows of 0.004 us: the plugin's running sum stays 0.0 (and the op is
     * not AI Core eligible); the exact sum is 0.4 us */
    clean();
    struct tp_sbuf b = {0};
    const char *hdr = "Name,Input Shapes,Call Stack,Host Self Duration(us),Host Total Duration(us),Device Self Duration(us),"
                      "Device Total Duration(us),Device Self Duration With AICore(us),Device Total Duration With AICore(us)\n";
    tp_sbuf_put(&b, hdr, strlen(hdr));
    for (int i = 0; i < 100; i++) {
        const char *row = "op,,,1,1,0.004,0.004,0.004,0.004\n";
        tp_sbuf_put(&b, row, strlen(row));
    }
    tp_sbuf_putc(&b, 0);
    put("operator_details.csv", b.p);
    tp_sbuf_free(&b);
    tp_store *st = load();
    const tp_view *ops = tp_view_find("ops");
    tp_table *t = NULL;
    tp_error e = {0};
    if (ops && tp_view_build(ops, st, &(struct tp_view_opts){0}, &t, &e) == TP_OK && tp_table_rows(t) == 1) {
        CHECK_INT("ascend.ops.plugin_running_sum", tp_table_cell_int(t, 0, 3), 0);
        CHECK_STR("ascend.ops.plugin_eligible", tp_table_cell_str(t, 0, 7), "No");
        CHECK_INT("ascend.ops.exact_sum_ns", tp_table_cell_int(t, 0, 12), 400);
        CHECK_INT("ascend.ops.host_total", tp_table_cell_int(t, 0, 6), 100000);
    } else {
        CHECK("ascend.ops.build", 0);
    }
    tp_table_free(t);
    tp_store_free(st);
}

static void probe(void)
{
    char p[512];
    clean();
    CHECK_INT("ascend.probe.empty", tp_ascend_probe(dir), 0);
    put("trace_view.json", "{\"traceEvents\": []}");
    CHECK_INT("ascend.probe.kineto_json_is_not_ascend", tp_ascend_probe(dir), 0);
    put("trace_view.json", "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":3170820512,\"tid\":1,\"ts\":\"1736408883688177.930\",\"dur\":1.5},"
                           "{\"ph\":\"s\",\"cat\":\"HostToDevice\",\"name\":\"H\",\"id\":\"40004068119343529983\",\"pid\":1,\"tid\":1,\"ts\":\"1736408883688177\"},"
                           "{\"ph\":\"f\",\"cat\":\"HostToDevice\",\"name\":\"H\",\"id\":\"40004068119343529983\",\"pid\":1,\"tid\":1,\"ts\":\"1736408883688178\",\"bp\":\"e\"}]");
    CHECK_INT("ascend.probe.trace_view", tp_ascend_probe(dir), 1);
    snprintf(p, sizeof p, "%s/ASCEND_PROFILER_OUTPUT", dir);
    CHECK_INT("ascend.probe.output_dir_itself", tp_ascend_probe(p), 1);
    tp_store *st = load();
    CHECK("ascend.trace.start_exact", st->npu && st->npu->start_ns == INT64_C(1736408883688177000));
    CHECK_INT("ascend.trace.big_flow_ids_no_complaint", st->nskips, 0);
    int64_t a = TP_NONE, b = TP_NONE;
    for (size_t i = 0; i < st->n; i++)
        if (st->kind[i] == TP_K_FLOW) {
            if (a == TP_NONE) a = st->correlation[i];
            else b = st->correlation[i];
        }
    CHECK("ascend.trace.flow_ids_pair", a != TP_NONE && a == b);
    tp_store_free(st);
}

/* kernel_details.csv's extra columns: kept in header order, each cell as
 * written with its number beside it (NaN for N/A, text, empty), column-major
 * and in step with the tasks (a row left out has no cells); the kernels
 * --group all table shows them by key, and the file's header is its
 * default column list. */
static void extras(void)
{
    char k[64];
    tp_npu_kernel_key("aic_l0a_read_bw(GB/s)", k, sizeof k);
    CHECK_STR("ascend.xkey.unit_dropped", k, "aic_l0a_read_bw");
    tp_npu_kernel_key("HF32 Eligible", k, sizeof k);
    CHECK_STR("ascend.xkey.spaces", k, "hf32_eligible");
    tp_npu_kernel_key("cube_utilization(%)", k, sizeof k);
    CHECK_STR("ascend.xkey.percent", k, "cube_utilization");
    tp_store *st = load_file("kernel_details.csv", "Step Id,Name,Duration(us),HF32 Eligible,Context ID,aicore_time(us),aic_mac_ratio,my_metric\r\n"
                                                   "1,MatMul,5,YES,N/A,4.50,0.519,7\r\n"
                                                   "1,bad,abc,NO,N/A,1,1,1\r\n"
                                                   "1,Cast,2,NO,3,0.0,abc,\r\n"
                                                   "1,hcom,9,NO,N/A,N/A\r\n");
    struct tp_npu_data *d = st->npu;
    CHECK_INT("ascend.xcol.tasks", d ? (long long)d->ntasks : -1, 3);
    CHECK_INT("ascend.xcol.count", d ? (long long)d->nxcols : -1, 5);
    if (!d || d->ntasks != 3 || d->nxcols != 5) {
        tp_store_free(st);
        return;
    }
    CHECK_STR("ascend.xcol.first", tp_store_str(st, d->xcols[0].name), "HF32 Eligible");
    CHECK_STR("ascend.xcol.last", tp_store_str(st, d->xcols[4].name), "my_metric");
    CHECK_INT("ascend.xcell.count", (long long)d->nxcells, 15);
    char b[32];
#define XS(c, t) tp_npu_xcell_str(st, tp_npu_xcell_at(d, c, t), b, sizeof b)
#define XV(c, t) tp_npu_xcell_value(st, tp_npu_xcell_at(d, c, t))
    CHECK_STR("ascend.xcell.as_written", XS(2, 0), "4.50");
    CHECK("ascend.xcell.value", XV(2, 0) == 4.5);
    CHECK_STR("ascend.xcell.next_task", XS(2, 1), "0.0");
    CHECK_STR("ascend.xcell.text_kept", XS(3, 1), "abc");
    CHECK("ascend.xcell.text_nan", isnan(XV(3, 1)));
    CHECK("ascend.xcell.na_nan", isnan(XV(1, 0)));
    CHECK_STR("ascend.xcell.short_row", XS(3, 2), "");
    CHECK_STR("ascend.xcell.short_row_kept", XS(2, 2), "N/A");
    CHECK("ascend.xcell.number_not_interned", tp_strtab_find(&st->strings, "0.519", 5) == UINT32_MAX);
#undef XS
#undef XV
    tp_error e = {0};
    tp_table *t = NULL;
    const tp_view *kv = tp_view_find("kernels");
    int rc = kv ? tp_view_build(kv, st, &(struct tp_view_opts){.group = "all"}, &t, &e) : TP_ERR_USAGE;
    CHECK("ascend.xview.built", rc == TP_OK && t);
    if (t) {
        CHECK_STR("ascend.xview.default_columns", tp_table_default_columns(t) ? tp_table_default_columns(t) : "",
                  "step,name,duration,hf32_eligible,context_id,aicore_time,aic_mac_ratio,extra");
        size_t n = 0;
        const char *s = tp_table_cell_strn(t, 0, NK_XCOL0 + 2, &n);
        CHECK_STR("ascend.xview.text_cell", s ? s : "", "4.50");
        CHECK_INT("ascend.xview.number_cell", tp_table_cell_kind(t, 1, NK_XCOL0 + 2), TP_CELL_FLOAT);
        s = tp_table_cell_strn(t, 0, NK_EXTRA, &n);
        CHECK_STR("ascend.xview.extra", s ? s : "", "my_metric=7");
        CHECK_INT("ascend.xview.hf32", tp_table_cell_kind(t, 0, NK_XCOL0), TP_CELL_STR);
    }
    tp_table_free(t);
    tp_store_free(st);
}

/* The cell encoding: every plain decimal prints back to its own text and
 * reads as strtod reads it; anything else is a string. */
static void xcell_codes(void)
{
    tp_store *st = tp_store_new();
    static const char *const nums[] = {"0", "0.0", "0.519", "2910056", "-3.5", "50.522", "0.000",
                                       "123456789012345", "0.00000000000001", "99.90"};
    static const char *const texts[] = {"", "N/A", "abc", "-0", "-0.0", "007", "1e-3", "5.", ".5", "+1",
                                        "1234567890123456", "1.5\t", "1,5"};
    char b[32];
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        tp_npu_xcell x = 0;
        CHECK("ascend.xcode.encode", tp_npu_xcell_encode(st, nums[i], strlen(nums[i]), &x) == 0);
        char name[64];
        snprintf(name, sizeof name, "ascend.xcode.number.%s", nums[i]);
        CHECK(name, ((uint64_t)x & 0xff) != TP_NPU_XTEXT && tp_npu_xcell_valid(x, st->strings.count));
        CHECK_STR(name, tp_npu_xcell_str(st, x, b, sizeof b), nums[i]);
        CHECK(name, tp_npu_xcell_value(st, x) == strtod(nums[i], NULL));
    }
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        tp_npu_xcell x = 0;
        CHECK("ascend.xcode.encode", tp_npu_xcell_encode(st, texts[i], strlen(texts[i]), &x) == 0);
        char name[64];
        snprintf(name, sizeof name, "ascend.xcode.text.%zu", i);
        CHECK(name, ((uint64_t)x & 0xff) == TP_NPU_XTEXT && tp_npu_xcell_valid(x, st->strings.count));
        CHECK_STR(name, tp_npu_xcell_str(st, x, b, sizeof b), texts[i]);
    }
    tp_npu_xcell x = 0;
    CHECK("ascend.xcode.text_number", tp_npu_xcell_encode(st, "1e-3", 4, &x) == 0 && tp_npu_xcell_value(st, x) == 1e-3);
    CHECK("ascend.xcode.text_tab", tp_npu_xcell_encode(st, "1.5\t", 4, &x) == 0 && tp_npu_xcell_value(st, x) == 1.5);
    CHECK("ascend.xcode.bad_id", !tp_npu_xcell_valid((int64_t)st->strings.count * 256 + TP_NPU_XTEXT, st->strings.count));
    CHECK("ascend.xcode.bad_decimals", !tp_npu_xcell_valid(16, st->strings.count));
    tp_store_free(st);
}

int main(void)
{
    if (tt_tmpdir(dir, sizeof dir, "ascend") < 0)
        return 0;
    char p[512];
    snprintf(p, sizeof p, "%s/ASCEND_PROFILER_OUTPUT", dir);
    mkdir(p, 0700);
    dialect();
    shapes();
    variants();
    bad_input();
    extras();
    xcell_codes();
    rounding();
    probe();
    clean();
    rmdir(p);
    rmdir(dir);
    TEST_EXIT();
}
