/* table_test.c — unit tests of the table, the column registry and every
 * writer (space, CSV, -w columns, JSON lines), against prof.py's outputs. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "table.h"
#include "testing.h"

/* prof.py's columns (SPEC §5.1), flops/bytes NUM so 140000.0 stays a float. */
enum { C_IDX, C_SEQ, C_ALTSEQ, C_TID, C_LAYER, C_TRACE, C_DIR, C_SUB, C_MOD, C_OP, C_KERNEL,
       C_PARAMS, C_SIL, C_TC, C_DEVICE, C_STREAM, C_GRID, C_BLOCK, C_FLOPS, C_BYTES, C_N };

static const struct tp_coldef prof_cols[C_N] = {
    { "idx", "Idx", TP_COL_INT, 7, 0, "kernel number" },
    { "seq", "SeqId", TP_COL_STR, 7, 0, "" },
    { "altseq", "AltSeqId", TP_COL_STR, 7, 0, "" },
    { "tid", "TId", TP_COL_INT, 12, 0, "" },
    { "layer", "Layer", TP_COL_STR, 10, 0, "" },
    { "trace", "Trace", TP_COL_STR, 25, 0, "" },
    { "dir", "Direction", TP_COL_STR, 5, 0, "" },
    { "sub", "Sub", TP_COL_INT, 3, 0, "" },
    { "mod", "Module", TP_COL_STR, 15, 0, "" },
    { "op", "Op", TP_COL_STR, 15, 0, "" },
    { "kernel", "Kernel", TP_COL_STR, 0, 0, "" },
    { "params", "Params", TP_COL_STR, 0, 0, "" },
    { "sil", "Sil(ns)", TP_COL_INT, 10, 0, "" },
    { "tc", "TC", TP_COL_STR, 2, 0, "" },
    { "device", "Device", TP_COL_INT, 3, 0, "" },
    { "stream", "Stream", TP_COL_INT, 3, 0, "" },
    { "grid", "Grid", TP_COL_STR, 12, 0, "" },
    { "block", "Block", TP_COL_STR, 12, 0, "" },
    { "flops", "FLOPs", TP_COL_NUM, 12, 0, "" },
    { "bytes", "Bytes", TP_COL_NUM, 12, 0, "" },
};

#define DEFAULT_COLS "idx,dir,sub,mod,op,kernel,params,sil"
#define ALL_COLS "idx,seq,altseq,tid,layer,trace,dir,sub,mod,op,kernel,params,sil,tc,device,stream,grid,block,flops,bytes"
#define README_COLS "kernel,op,sil,tc,flops,bytes,device,stream,block,grid"

/* Rows 1 and 2 of the 17ed9e2 golden outputs.  `wtrace` is the -w form. */
static void add_kernel_row(tp_table *t, int idx, const char *seq, const char *mod, const char *op,
                           const char *kernel, const char *params, int64_t sil, const char *trace,
                           const char *grid, const char *block, int flops_float, double flops,
                           int64_t bytes)
{
    tp_table_add_row(t);
    tp_table_set_int(t, C_IDX, idx);
    tp_table_set_str(t, C_SEQ, seq);
    tp_table_set_str(t, C_ALTSEQ, "-");
    tp_table_set_int(t, C_TID, 3940300608LL);
    tp_table_set_str(t, C_LAYER, "-");
    tp_table_set_str(t, C_TRACE, trace);
    tp_table_set_str(t, C_DIR, "fprop");
    tp_table_set_int(t, C_SUB, 0);
    tp_table_set_str(t, C_MOD, mod);
    tp_table_set_str(t, C_OP, op);
    tp_table_set_str(t, C_KERNEL, kernel);
    tp_table_set_str(t, C_PARAMS, params);
    tp_table_set_int(t, C_SIL, sil);
    tp_table_set_str(t, C_TC, "-");
    tp_table_set_int(t, C_DEVICE, 0);
    tp_table_set_int(t, C_STREAM, 7);
    tp_table_set_str(t, C_GRID, grid);
    tp_table_set_str(t, C_BLOCK, block);
    if (flops_float)
        tp_table_set_float(t, C_FLOPS, flops);
    else
        tp_table_set_int(t, C_FLOPS, (int64_t)flops);
    tp_table_set_int(t, C_BYTES, bytes);
}

static tp_table *golden_table(int wmode)
{
    tp_table *t = tp_table_new(prof_cols, C_N);
    const char *tr = wmode ? "language-model.py:106"
                           : "language-model.py:319,language-model.py:261,language-model.py:106";
    add_kernel_row(t, 1, "65", "torch.nn.functional", "embedding", "indexSelectLargeIndex",
                   "I=(35,20),int64,E=(33278,200),fp32,", 6624, tr, "640,1,1", "128,1,1", 0, 0, 1125600);
    add_kernel_row(t, 2, "66", "Tensor", "__mul__", "elementwise_kernel", "T=[(35,20,200)],fp32,",
                   3168, tr, "274,1,1", "512,1,1", 1, 140000.0, 1120000);
    return t;
}

/* Write t with the given options into a malloc'd string; *rc gets the status. */
static char *render(const tp_table *t, enum tp_format fmt, int width, const char *cols,
                    const char *sort, size_t top, int header, int *rc, tp_error *err)
{
    struct tp_output_opts o;
    tp_output_opts_init(&o);
    o.format = fmt;
    o.width = width;
    o.columns = cols;
    o.sort = sort;
    o.top = top;
    o.header = header;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tp_error e;
    memset(&e, 0, sizeof e);
    int r = tp_table_write(t, &o, f, err ? err : &e);
    fclose(f);
    if (rc)
        *rc = r;
    return buf;
}

static char *out(const tp_table *t, enum tp_format fmt, int width, const char *cols)
{
    return render(t, fmt, width, cols, NULL, 0, 1, NULL, NULL);
}

#define CHECK_OUT(name, got, want) do { char *g__ = (got); CHECK_STR(name, g__, want); free(g__); } while (0)

static void check_fmt_pyfloat(const char *name, double v, const char *want)
{
    char buf[64];
    size_t n = tp_fmt_pyfloat(v, buf, sizeof buf);
    CHECK_STR(name, buf, want);
    CHECK_INT(name, n, strlen(want));
}

static void test_number_formats(void)
{
    check_fmt_pyfloat("pyfloat 140000.0", 140000.0, "140000.0");
    check_fmt_pyfloat("pyfloat 0.1", 0.1, "0.1");
    check_fmt_pyfloat("pyfloat 1e+16", 1e16, "1e+16");
    check_fmt_pyfloat("pyfloat 1e15", 1e15, "1000000000000000.0");
    check_fmt_pyfloat("pyfloat 9999999999999998", 9999999999999998.0, "9999999999999998.0");
    check_fmt_pyfloat("pyfloat 1e-05", 1e-05, "1e-05");
    check_fmt_pyfloat("pyfloat 0.0001", 0.0001, "0.0001");
    check_fmt_pyfloat("pyfloat 123456789012345.0", 123456789012345.0, "123456789012345.0");
    check_fmt_pyfloat("pyfloat 0.0", 0.0, "0.0");
    check_fmt_pyfloat("pyfloat -0.0", -0.0, "-0.0");
    check_fmt_pyfloat("pyfloat nan", NAN, "nan");
    check_fmt_pyfloat("pyfloat inf", INFINITY, "inf");
    check_fmt_pyfloat("pyfloat -inf", -INFINITY, "-inf");
    check_fmt_pyfloat("pyfloat 1/3", 1.0 / 3, "0.3333333333333333");
    check_fmt_pyfloat("pyfloat 0.1+0.2", 0.1 + 0.2, "0.30000000000000004");
    check_fmt_pyfloat("pyfloat 1.5e+300", 1.5e300, "1.5e+300");
    check_fmt_pyfloat("pyfloat 1e22", 1e22, "1e+22");
    check_fmt_pyfloat("pyfloat 5e-324", 5e-324, "5e-324");
    check_fmt_pyfloat("pyfloat max", 1.7976931348623157e308, "1.7976931348623157e+308");
    check_fmt_pyfloat("pyfloat -1e-07", -1e-7, "-1e-07");
    check_fmt_pyfloat("pyfloat 2.5", 2.5, "2.5");
    check_fmt_pyfloat("pyfloat -123.456", -123.456, "-123.456");
    check_fmt_pyfloat("pyfloat 1234567.125", 1234567.125, "1234567.125");
    check_fmt_pyfloat("pyfloat 1.2345678901234567e16", 12345678901234568.0, "1.2345678901234568e+16");
    check_fmt_pyfloat("pyfloat 0.000123", 0.000123, "0.000123");
    check_fmt_pyfloat("pyfloat 143500.0", 143500.0, "143500.0");

    char buf[64];
    struct { int64_t ns; const char *want; } us[] = {
        { 1234500, "1234.5" }, { 1234000, "1234" }, { -1500, "-1.5" }, { 0, "0" },
        { 1, "0.001" }, { 999, "0.999" }, { -1, "-0.001" }, { 1234567, "1234.567" },
        { 10, "0.01" }, { INT64_MIN, "-9223372036854775.808" }, { INT64_MAX, "9223372036854775.807" },
    };
    for (size_t i = 0; i < sizeof us / sizeof us[0]; i++) {
        char name[64];
        snprintf(name, sizeof name, "us %lld", (long long)us[i].ns);
        tp_fmt_us(us[i].ns, buf, sizeof buf);
        CHECK_STR(name, buf, us[i].want);
    }
    size_t n = tp_fmt_us(1234500, buf, 4);
    CHECK_INT("us truncated returns full length", n, 6);
    CHECK_STR("us truncated buffer", buf, "123");

    /* tp_table_format_cell through the column types */
    static const struct tp_coldef cols[] = {
        { "n", "N", TP_COL_NUM, -1, 0, "" },
        { "us", "Us", TP_COL_US, -1, 0, "" },
        { "pct", "Pct", TP_COL_FIXED, -1, 2, "" },
        { "i", "I", TP_COL_INT, -1, 0, "" },
        { "s", "S", TP_COL_STR, -1, 0, "" },
    };
    tp_table *t = tp_table_new(cols, 5);
    tp_table_add_row(t);
    tp_table_set_int(t, 0, 140000);
    tp_table_set_int(t, 1, 1234500);
    tp_table_set_float(t, 2, 1.5);
    tp_table_set_int(t, 3, -42);
    tp_table_set_str(t, 4, "x");
    tp_table_add_row(t);
    tp_table_set_float(t, 0, 140000.0);
    tp_table_set_float(t, 1, 2500.0);
    tp_table_set_int(t, 2, 100);
    tp_table_set_null(t, 3);
    tp_table_add_row(t);
    tp_table_set_float(t, 2, 99.999);
    tp_table_set_float(t, 1, NAN);
    tp_table_format_cell(t, 0, 0, buf, sizeof buf);
    CHECK_STR("num int cell", buf, "140000");
    tp_table_format_cell(t, 1, 0, buf, sizeof buf);
    CHECK_STR("num float cell", buf, "140000.0");
    tp_table_format_cell(t, 0, 1, buf, sizeof buf);
    CHECK_STR("us cell", buf, "1234.5");
    tp_table_format_cell(t, 1, 1, buf, sizeof buf);
    CHECK_STR("us float cell", buf, "2.5");
    tp_table_format_cell(t, 2, 1, buf, sizeof buf);
    CHECK_STR("us nan cell", buf, "nan");
    tp_table_format_cell(t, 0, 2, buf, sizeof buf);
    CHECK_STR("fixed cell", buf, "1.50");
    tp_table_format_cell(t, 1, 2, buf, sizeof buf);
    CHECK_STR("fixed int cell", buf, "100.00");
    tp_table_format_cell(t, 2, 2, buf, sizeof buf);
    CHECK_STR("fixed rounds", buf, "100.00");
    tp_table_format_cell(t, 0, 3, buf, sizeof buf);
    CHECK_STR("int cell", buf, "-42");
    tp_table_format_cell(t, 1, 3, buf, sizeof buf);
    CHECK_STR("null cell", buf, "-");
    tp_table_format_cell(t, 2, 4, buf, sizeof buf);
    CHECK_STR("unset cell is null", buf, "-");
    tp_table_format_cell(t, 0, 4, buf, sizeof buf);
    CHECK_STR("str cell", buf, "x");
    CHECK_OUT("space numbers", out(t, TP_FMT_SPACE, 0, NULL),
              "N Us Pct I S\n140000 1234.5 1.50 -42 x\n140000.0 2.5 100.00 - -\n- nan 100.00 - -\n");
    CHECK_OUT("jsonl numbers", out(t, TP_FMT_JSONL, 0, NULL),
              "{\"n\":140000,\"us\":1234.5,\"pct\":1.50,\"i\":-42,\"s\":\"x\"}\n"
              "{\"n\":140000.0,\"us\":2.5,\"pct\":100.00,\"i\":null,\"s\":null}\n"
              "{\"n\":null,\"us\":null,\"pct\":100.00,\"i\":null,\"s\":null}\n");
    CHECK_OUT("markdown numbers", out(t, TP_FMT_MARKDOWN, 0, NULL),
              "| N | Us | Pct | I | S |\n|---:|---:|---:|---:|:---|\n"
              "| 140000 | 1234.5 | 1.50 | -42 | x |\n| 140000.0 | 2.5 | 100.00 | - | - |\n"
              "| - | nan | 100.00 | - | - |\n");
    /* Markup in names stays text: a pipe does not split the cell, a template
     * is not an HTML tag, underscores are not emphasis. */
    tp_table_add_row(t);
    tp_table_set_str(t, 4, "void k<a_b|c*d> & [x]");
    CHECK_OUT("markdown escapes", render(t, TP_FMT_MARKDOWN, 0, "s", NULL, 0, 0, NULL, NULL),
              "| S |\n|:---|\n| x |\n| - |\n| - |\n| void k&lt;a\\_b\\|c\\*d&gt; &amp; \\[x\\] |\n");
    tp_table_free(t);
}

static void test_storage(void)
{
    static const struct tp_coldef cols[] = {
        { "a", "A", TP_COL_STR, -1, 0, "" },
        { "b", "B", TP_COL_INT, -1, 0, "" },
        { "c", "C", TP_COL_NUM, -1, 0, "" },
    };
    tp_table *t = tp_table_new(cols, 3);
    CHECK("new table", t != NULL);
    CHECK_INT("empty rows", tp_table_rows(t), 0);
    CHECK_INT("cols", tp_table_cols(t), 3);
    tp_table_set_int(t, 1, 5);   /* no row yet: ignored */
    CHECK_INT("setter before a row is ignored", tp_table_rows(t), 0);
    const size_t N = 200000;
    size_t bad_index = 0;
    for (size_t i = 0; i < N; i++) {
        if (tp_table_add_row(t) != (long)i)
            bad_index++;
        char name[32];
        snprintf(name, sizeof name, "kernel_%zu", i % 100);
        tp_table_set_str(t, 0, name);
        tp_table_set_int(t, 1, (int64_t)i * 1000);
        if (i % 2)
            tp_table_set_float(t, 2, i + 0.5);
        tp_table_set_int(t, 99, 1);   /* out of range: ignored */
    }
    CHECK_INT("add_row returns the row index", bad_index, 0);
    CHECK_INT("many rows", tp_table_rows(t), N);
    CHECK_STR("cell str row 0", tp_table_cell_str(t, 0, 0), "kernel_0");
    CHECK_STR("cell str last row", tp_table_cell_str(t, N - 1, 0), "kernel_99");
    CHECK("interned: same pointer", tp_table_cell_str(t, 5, 0) == tp_table_cell_str(t, 105, 0));
    CHECK_INT("cell int", tp_table_cell_int(t, 123456, 1), 123456000);
    CHECK_INT("cell kind int", tp_table_cell_kind(t, 123456, 1), TP_CELL_INT);
    CHECK_INT("cell kind float", tp_table_cell_kind(t, 4097, 2), TP_CELL_FLOAT);
    CHECK_INT("cell kind null", tp_table_cell_kind(t, 4096, 2), TP_CELL_NULL);
    CHECK_INT("cell kind str", tp_table_cell_kind(t, 4096, 0), TP_CELL_STR);
    CHECK("cell float", tp_table_cell_float(t, 4097, 2) == 4097.5);
    CHECK("cell int as float", tp_table_cell_float(t, 7, 1) == 7000.0);
    CHECK_INT("cell float as int", tp_table_cell_int(t, 4097, 2), 4097);
    CHECK_INT("out of range row is null", tp_table_cell_kind(t, N, 0), TP_CELL_NULL);
    CHECK_INT("out of range col is null", tp_table_cell_kind(t, 0, 3), TP_CELL_NULL);
    CHECK("str of int cell is NULL", tp_table_cell_str(t, 0, 1) == NULL);
    size_t len = 99;
    CHECK("strn of null", tp_table_cell_strn(t, 0, 2, &len) == NULL && len == 0);
    /* overwrite a cell and set NULL */
    tp_table_set_str(t, 1, "now a string");
    CHECK_STR("overwrite kind", tp_table_cell_str(t, N - 1, 1), "now a string");
    tp_table_set_null(t, 1);
    CHECK_INT("set null", tp_table_cell_kind(t, N - 1, 1), TP_CELL_NULL);
    tp_table_set_str(t, 0, NULL);
    CHECK_INT("set_str NULL is null", tp_table_cell_kind(t, N - 1, 0), TP_CELL_NULL);
    /* embedded NUL via set_strn */
    tp_table_set_strn(t, 0, "a\0b", 3);
    len = 0;
    const char *s = tp_table_cell_strn(t, N - 1, 0, &len);
    CHECK("strn keeps NUL", s && len == 3 && memcmp(s, "a\0b", 3) == 0);
    CHECK_INT("no oom", tp_table_nomem(t), 0);
    /* --top on a big table */
    int rc;
    char *o = render(t, TP_FMT_SPACE, 0, "b", "b", 3, 0, &rc, NULL);
    CHECK_STR("sort+top on 200000 rows", o, "199998000\n199997000\n199996000\n");
    free(o);
    tp_table_free(t);
    tp_table_free(NULL);
    CHECK_INT("rows of NULL", tp_table_rows(NULL), 0);
}

static void test_opts_init(void)
{
    struct tp_output_opts o;
    memset(&o, 0x5a, sizeof o);
    tp_output_opts_init(&o);
    CHECK("opts init", o.format == TP_FMT_SPACE && o.width == 0 && o.columns == NULL &&
                       o.sort == NULL && o.top == 0 && o.header == 1);
}

static void test_space_csv_golden(void)
{
    tp_table *t = golden_table(0);
    CHECK_OUT("space default columns", out(t, TP_FMT_SPACE, 0, DEFAULT_COLS),
              "Idx Direction Sub Module Op Kernel Params Sil(ns)\n"
              "1 fprop 0 torch.nn.functional embedding indexSelectLargeIndex I=(35,20),int64,E=(33278,200),fp32, 6624\n"
              "2 fprop 0 Tensor __mul__ elementwise_kernel T=[(35,20,200)],fp32, 3168\n");
    char *o = out(t, TP_FMT_SPACE, 0, ALL_COLS);
    CHECK("space all columns row 2",
          o && strstr(o, "\n2 66 - 3940300608 - language-model.py:319,language-model.py:261,language-model.py:106 "
                         "fprop 0 Tensor __mul__ elementwise_kernel T=[(35,20,200)],fp32, 3168 - 0 7 274,1,1 "
                         "512,1,1 140000.0 1120000\n"));
    CHECK("space all columns header",
          o && strncmp(o, "Idx SeqId AltSeqId TId Layer Trace Direction Sub Module Op Kernel Params Sil(ns) "
                          "TC Device Stream Grid Block FLOPs Bytes\n", 113) == 0);
    free(o);
    CHECK_OUT("csv default columns", out(t, TP_FMT_CSV, 0, DEFAULT_COLS),
              "\"Idx\",\"Direction\",\"Sub\",\"Module\",\"Op\",\"Kernel\",\"Params\",\"Sil(ns)\"\n"
              "\"1\",\"fprop\",\"0\",\"torch.nn.functional\",\"embedding\",\"indexSelectLargeIndex\","
              "\"I=(35,20),int64,E=(33278,200),fp32,\",\"6624\"\n"
              "\"2\",\"fprop\",\"0\",\"Tensor\",\"__mul__\",\"elementwise_kernel\",\"T=[(35,20,200)],fp32,\",\"3168\"\n");
    o = out(t, TP_FMT_CSV, 0, ALL_COLS);
    CHECK("csv all columns row 2",
          o && strstr(o, "\n\"2\",\"66\",\"-\",\"3940300608\",\"-\",\"language-model.py:319,language-model.py:261,"
                         "language-model.py:106\",\"fprop\",\"0\",\"Tensor\",\"__mul__\",\"elementwise_kernel\","
                         "\"T=[(35,20,200)],fp32,\",\"3168\",\"-\",\"0\",\"7\",\"274,1,1\",\"512,1,1\",\"140000.0\","
                         "\"1120000\"\n"));
    free(o);
    CHECK_OUT("csv readme columns no header", render(t, TP_FMT_CSV, 0, "kernel,flops", NULL, 0, 0, NULL, NULL),
              "\"indexSelectLargeIndex\",\"0\"\n\"elementwise_kernel\",\"140000.0\"\n");
    CHECK_OUT("space no header", render(t, TP_FMT_SPACE, 0, "idx,op", NULL, 0, 0, NULL, NULL),
              "1 embedding\n2 __mul__\n");
    CHECK_OUT("duplicates kept", out(t, TP_FMT_SPACE, 0, "idx,op,idx"), "Idx Op Idx\n1 embedding 1\n2 __mul__ 2\n");
    tp_table_free(t);

    /* empty strings, NULLs, embedded quote */
    t = tp_table_new(prof_cols, C_N);
    tp_table_add_row(t);
    tp_table_set_int(t, C_IDX, 50);
    tp_table_set_str(t, C_MOD, "");
    tp_table_set_str(t, C_OP, "say \"hi\", ok");
    CHECK_OUT("space empty and null cells", out(t, TP_FMT_SPACE, 0, "idx,mod,op,kernel"),
              "Idx Module Op Kernel\n50  say \"hi\", ok -\n");
    CHECK_OUT("csv empty, null, quote", out(t, TP_FMT_CSV, 0, "idx,mod,op,kernel"),
              "\"Idx\",\"Module\",\"Op\",\"Kernel\"\n\"50\",\"\",\"say \"\"hi\"\", ok\",\"-\"\n");
    tp_table_free(t);
    t = tp_table_new(prof_cols, C_N);
    CHECK_OUT("no rows: header only", out(t, TP_FMT_SPACE, 0, "idx,op"), "Idx Op\n");
    CHECK_OUT("no rows: -w header only", out(t, TP_FMT_COLUMNS, 30, "idx,op"), "Idx     Op              \n");
    CHECK_OUT("no rows: jsonl nothing", out(t, TP_FMT_JSONL, 0, "idx,op"), "");
    tp_table_free(t);
}

static void test_columns_golden(void)
{
    tp_table *t = golden_table(1);
    CHECK_OUT("-w 150 default columns", out(t, TP_FMT_COLUMNS, 150, DEFAULT_COLS),
              "Idx     Direc Sub Module          Op              Kernel                                          "
              "Params                                          Sil(ns)    \n"
              "      1 fprop   0 torch.nn.functi embedding       indexSelectLargeIndex                           "
              "I=(35,20),int64,E=(33278,200),fp32,                   6624 \n"
              "      2 fprop   0 Tensor          __mul__         elementwise_kernel                              "
              "T=[(35,20,200)],fp32,                                 3168 \n");
    CHECK_OUT("-w 100 readme columns", out(t, TP_FMT_COLUMNS, 100, README_COLS),
              "Kernel              Op              Sil(ns)    TC FLOPs        Bytes        Dev Str Block        Grid         \n"
              "indexSelectLargeInd embedding             6624 -             0      1125600   0   7 128,1,1      640,1,1      \n"
              "elementwise_kernel  __mul__               3168 -        140000      1120000   0   7 512,1,1      274,1,1      \n");
    char *o = out(t, TP_FMT_COLUMNS, 300, ALL_COLS);
    CHECK("-w 300 all columns header",
          o && strncmp(o, "Idx     SeqId   AltSeqI TId          Layer      Trace                     Direc Sub "
                          "Module          Op              Kernel                                                   "
                          "        Params                                                           Sil(ns)    TC "
                          "Dev Str Grid         Block        FLOPs        Bytes        \n", 318) == 0);
    CHECK("-w 300 all columns row 2",
          o && strstr(o, "\n      2 66      -         3940300608 -          language-model.py:106     fprop   0 "
                         "Tensor          __mul__         elementwise_kernel                                       "
                         "        T=[(35,20,200)],fp32,                                                  3168 -    "
                         "0   7 274,1,1      512,1,1            140000      1120000 \n"));
    free(o);

    int rc;
    tp_error err;
    memset(&err, 0, sizeof err);
    o = render(t, TP_FMT_COLUMNS, 54, DEFAULT_COLS, NULL, 0, 1, &rc, &err);
    CHECK_INT("-w 54 default: usage error", rc, TP_ERR_USAGE);
    CHECK_INT("-w 54 default: err status", err.status, TP_ERR_USAGE);
    CHECK_STR("-w 54 default: message", err.msg,
              "Minimum width required to print idx,dir,sub,mod,op,kernel,params,sil = 55.");
    CHECK_STR("-w 54 default: prints nothing", o, "");
    free(o);
    CHECK_OUT("-w 55 default: flexible columns get 0", out(t, TP_FMT_COLUMNS, 55, DEFAULT_COLS),
              "Idx     Direc Sub Module          Op                Sil(ns)    \n"
              "      1 fprop   0 torch.nn.functi embedding               6624 \n"
              "      2 fprop   0 Tensor          __mul__                 3168 \n");
    CHECK_OUT("-w flexible: int(remainder/2)", out(t, TP_FMT_COLUMNS, 56, "idx,kernel,params,sil"),
              "Idx     Kernel              Params              Sil(ns)    \n"
              "      1 indexSelectLargeInd I=(35,20),int64,E=(       6624 \n"
              "      2 elementwise_kernel  T=[(35,20,200)],fp3       3168 \n");
    CHECK_OUT("-w one flexible gets the remainder", out(t, TP_FMT_COLUMNS, 20, "idx,kernel"),
              "Idx     Kernel        \n      1 indexSelectLa \n      2 elementwise_k \n");
    CHECK_OUT("-w 20 too narrow prints nothing", out(t, TP_FMT_COLUMNS, 20, "idx,kernel,op,params"),
              "");   /* 7+15 = 22 > 20 */
    memset(&err, 0, sizeof err);
    o = render(t, TP_FMT_COLUMNS, 20, "idx,kernel,op,params", NULL, 0, 1, &rc, &err);
    CHECK_STR("-w min width message lists the keys", err.msg,
              "Minimum width required to print idx,kernel,op,params = 22.");
    free(o);
    CHECK_OUT("-w 25 two flexible: int(3/2)", out(t, TP_FMT_COLUMNS, 25, "idx,kernel,op,params"),
              "Idx     K Op              P \n      1 i embedding       I \n      2 e __mul__         T \n");
    CHECK_OUT("-w 0 is the space format", out(t, TP_FMT_COLUMNS, 0, "idx,op"), "Idx Op\n1 embedding\n2 __mul__\n");
    CHECK_OUT("-w negative is the space format", out(t, TP_FMT_COLUMNS, -3, "idx,op"), "Idx Op\n1 embedding\n2 __mul__\n");
    tp_table_free(t);

    /* ints are not truncated, floats in -w print as Python's %d */
    t = tp_table_new(prof_cols, C_N);
    tp_table_add_row(t);
    tp_table_set_int(t, C_SUB, 123456);
    tp_table_set_float(t, C_FLOPS, -2.9);
    tp_table_set_float(t, C_BYTES, 1e20);
    tp_table_add_row(t);
    tp_table_set_float(t, C_FLOPS, -0.5);
    tp_table_set_float(t, C_BYTES, NAN);
    CHECK_OUT("-w ints overflow, floats truncate", out(t, TP_FMT_COLUMNS, 40, "sub,flops,bytes"),
              "Sub FLOPs        Bytes        \n123456           -2 100000000000000000000 \n"
              "  -            0          nan \n");
    tp_table_free(t);
}

static void test_fit_columns(void)
{
    static const struct tp_coldef cols[] = {
        { "name", "Name", TP_COL_STR, -1, 0, "" },
        { "calls", "Calls", TP_COL_INT, -1, 0, "" },
        { "total", "Total(us)", TP_COL_US, -1, 0, "" },
        { "pct", "%", TP_COL_FIXED, -1, 1, "" },
        { "desc", "Description", TP_COL_STR, -1, 0, "" },
    };
    tp_table *t = tp_table_new(cols, 5);
    tp_table_add_row(t);
    tp_table_set_str(t, 0, "aten::convolution_backward");
    tp_table_set_int(t, 1, 12);
    tp_table_set_int(t, 2, 1234500);
    tp_table_set_float(t, 3, 45.25);
    tp_table_set_str(t, 4, "x");
    tp_table_add_row(t);
    tp_table_set_str(t, 0, "mm");
    tp_table_set_int(t, 1, 1000000);
    tp_table_set_int(t, 2, 5);
    tp_table_set_float(t, 3, 4.0);
    tp_table_set_str(t, 4, "matrix multiply, long description");
    CHECK_OUT("fit to content, wide enough", out(t, TP_FMT_COLUMNS, 200, NULL),
              "Name                       Calls   Total(us) %    Description                       \n"
              "aten::convolution_backward      12    1234.5 45.2 x                                 \n"
              "mm                         1000000     0.005  4.0 matrix multiply, long description \n");
    /* natural line: 27+8+10+5+34 = 84.  At 60 the text columns shrink to
     * 24 cells (the widest first), still 73: the last column is left out,
     * and the 12 cells that frees go back to Name */
    struct tp_output_opts fo;
    tp_output_opts_init(&fo);
    fo.format = TP_FMT_COLUMNS;
    fo.width = 60;
    char note[64] = "?";
    fo.note = note;
    fo.note_cap = sizeof note;
    char *o = NULL;
    size_t olen = 0;
    FILE *f = open_memstream(&o, &olen);
    tp_error fe = {0};
    CHECK_INT("fit write", tp_table_write(t, &fo, f, &fe), TP_OK);
    fclose(f);
    CHECK_STR("fit leaves out from the right", o,
              "Name                       Calls   Total(us) %    \n"
              "aten::convolution_backward      12    1234.5 45.2 \n"
              "mm                         1000000     0.005  4.0 \n");
    CHECK_STR("fit says what it left out", note, "desc");
    free(o);
    CHECK_OUT("fit: text columns shrink, the widest first", out(t, TP_FMT_COLUMNS, 75, NULL),
              "Name                      Calls   Total(us) %    Description               \n"
              "aten::conv…ution_backward      12    1234.5 45.2 x                         \n"
              "mm                        1000000     0.005  4.0 matrix mul…ng description \n");
    CHECK_OUT("fit: the first column alone is cut", out(t, TP_FMT_COLUMNS, 10, "name,desc,calls"),
              "Name      \naten…ward \nmm        \n");
    tp_table_free(t);

    /* CJK names take two cells each; kernel names lose their parameter list,
     * then template arguments (innermost first), then their middle */
    t = tp_table_new(cols, 5);
    tp_table_add_row(t);
    tp_table_set_str(t, 0, "卷积反向传播");
    tp_table_set_int(t, 1, 1);
    tp_table_add_row(t);
    tp_table_set_str(t, 0, "void at::native::vectorized_elementwise_kernel<4, at::native::threshold_kernel_impl<float>"
                           "(at::TensorIterator&, float, float)::{lambda(float, float)#1}, at::detail::Array<char*, 3> >"
                           "(int, at::native::threshold_kernel_impl<float>(at::TensorIterator&, float, float)::"
                           "{lambda(float, float)#1}, at::detail::Array<char*, 3>)");
    tp_table_set_int(t, 1, 22);
    CHECK_OUT("fit: CJK counts two cells", out(t, TP_FMT_COLUMNS, 34, "calls,name"),
              "Calls Name                        \n"
              "    1 卷积反向传播                \n"
              "   22 void at::na…twise_kernel<…> \n");
    CHECK_OUT("fit: templates folded", out(t, TP_FMT_COLUMNS, 57, "calls,name"),
              "Calls Name                                               \n"
              "    1 卷积反向传播                                       \n"
              "   22 void at::native::vectorized_elementwise_kernel<…>  \n");
    CHECK_OUT("fit: middle cut keeps the end", out(t, TP_FMT_COLUMNS, 45, "calls,name"),
              "Calls Name                                   \n"
              "    1 卷积反向传播                           \n"
              "   22 void at::native…_elementwise_kernel<…> \n");
    /* never wider than W, for every W */
    int over = 0;
    for (int W = 1; W <= 400; W++) {
        char *x = out(t, TP_FMT_COLUMNS, W, NULL);
        for (char *p = x, *nl; p && (nl = strchr(p, '\n')); p = nl + 1)
            if (tp_disp_width(p, (size_t)(nl - p)) > (size_t)W) {
                over++;
                printf("# W=%d: %.*s\n", W, (int)(nl - p), p);
            }
        free(x);
    }
    CHECK_INT("fit: no line wider than W (W = 1..400)", over, 0);
    tp_table_free(t);
}

static void set_bothn(tp_table *t, const char *s, size_t len)
{
    tp_table_set_strn(t, 0, s, len);
    tp_table_set_strn(t, 2, s, len);
}

static void set_both(tp_table *t, const char *s)
{
    set_bothn(t, s, strlen(s));
}

static void test_escaping(void)
{
    static const struct tp_coldef cols[] = {
        { "name", "Name", TP_COL_STR, 8, 0, "" },
        { "n", "N", TP_COL_INT, 3, 0, "" },
        { "name5", "Name", TP_COL_STR, 5, 0, "" },
    };
    tp_table *t = tp_table_new(cols, 3);
    tp_table_add_row(t);
    tp_table_set_str(t, 0, "\x1b[31mred\n\tx\x7f");
    tp_table_set_int(t, 1, 1);
    CHECK_OUT("space escapes controls", out(t, TP_FMT_SPACE, 0, "name,n"),
              "Name N\n\\x1b[31mred\\x0a\\x09x\\x7f 1\n");
    CHECK_OUT("csv escapes controls", out(t, TP_FMT_CSV, 0, "name,n"),
              "\"Name\",\"N\"\n\"\\x1b[31mred\\x0a\\x09x\\x7f\",\"1\"\n");
    CHECK_OUT("jsonl escapes controls", out(t, TP_FMT_JSONL, 0, "name,n"),
              "{\"name\":\"\\u001b[31mred\\u000a\\u0009x\\u007f\",\"n\":1}\n");
    CHECK_OUT("-w escapes never cut", out(t, TP_FMT_COLUMNS, 11, "name,n"),
              "Name     N   \n\\x1b[31m   1 \n");
    tp_table_free(t);

    t = tp_table_new(cols, 3);
    tp_table_add_row(t);
    set_both(t, "ab\x1b" "cd");
    tp_table_add_row(t);
    set_both(t, "h\xc3\xa9llo w\xc3\xb6rld");   /* héllo wörld */
    tp_table_add_row(t);
    set_both(t, "bad\xff\xfe!");
    tp_table_add_row(t);
    set_both(t, "c1\xc2\x9b" "x");                /* U+009B CSI */
    tp_table_add_row(t);
    set_both(t, "\xe2\x82\xac\xf0\x9f\x98\x80\xed\xa0\x80");   /* € 😀 surrogate */
    tp_table_add_row(t);
    set_both(t, "trunc\xe2\x82");                  /* cut sequence at the end */
    tp_table_add_row(t);
    set_bothn(t, "nul\0z", 5);
    tp_table_add_row(t);
    set_both(t, "\xc0\xaf\xf8");                   /* overlong, 5-byte lead */
    CHECK_OUT("space utf-8 pass, invalid escaped", out(t, TP_FMT_SPACE, 0, "name"),
              "Name\nab\\x1bcd\nh\xc3\xa9llo w\xc3\xb6rld\nbad\\xff\\xfe!\nc1\\xc2\\x9bx\n"
              "\xe2\x82\xac\xf0\x9f\x98\x80\\xed\\xa0\\x80\ntrunc\\xe2\\x82\nnul\\x00z\n\\xc0\\xaf\\xf8\n");
    CHECK_OUT("jsonl utf-8 pass, invalid as \\\\xNN", out(t, TP_FMT_JSONL, 0, "name"),
              "{\"name\":\"ab\\u001bcd\"}\n{\"name\":\"h\xc3\xa9llo w\xc3\xb6rld\"}\n"
              "{\"name\":\"bad\\\\xff\\\\xfe!\"}\n{\"name\":\"c1\\u009bx\"}\n"
              "{\"name\":\"\xe2\x82\xac\xf0\x9f\x98\x80\\\\xed\\\\xa0\\\\x80\"}\n"
              "{\"name\":\"trunc\\\\xe2\\\\x82\"}\n{\"name\":\"nul\\u0000z\"}\n"
              "{\"name\":\"\\\\xc0\\\\xaf\\\\xf8\"}\n");
    /* -w counts code points (Python 3), pads to the width, never splits */
    CHECK_OUT("-w truncation by code points", out(t, TP_FMT_COLUMNS, 5, "name5"),
              "Name  \nab    \nh\xc3\xa9llo \nbad   \nc1    \n\xe2\x82\xac\xf0\x9f\x98\x80    \ntrunc \nnul   \n"
              "\\xc0  \n");
    CHECK_OUT("-w width 8", out(t, TP_FMT_COLUMNS, 8, "name"),
              "Name     \nab\\x1bcd \nh\xc3\xa9llo w\xc3\xb6 \nbad\\xff  \nc1       \n"
              "\xe2\x82\xac\xf0\x9f\x98\x80\\xed   \ntrunc    \nnul\\x00z \n\\xc0\\xaf \n");
    tp_table_free(t);

    /* JSON: quotes and backslashes */
    t = tp_table_new(cols, 3);
    tp_table_add_row(t);
    tp_table_set_str(t, 0, "a\"b\\c/d");
    tp_table_set_str(t, 1, "7");   /* a string in an int column prints as text */
    CHECK_OUT("jsonl quote and backslash", out(t, TP_FMT_JSONL, 0, "name,n"),
              "{\"name\":\"a\\\"b\\\\c/d\",\"n\":\"7\"}\n");
    CHECK_OUT("space keeps backslash", out(t, TP_FMT_SPACE, 0, "name,n"), "Name N\na\"b\\c/d 7\n");
    tp_table_free(t);
}

static void test_select(void)
{
    size_t idx[32], n = 99;
    tp_error err;
    memset(&err, 0, sizeof err);
    CHECK_INT("select default", tp_table_select(prof_cols, C_N, DEFAULT_COLS, idx, 32, &n, &err), TP_OK);
    CHECK("select default indexes", n == 8 && idx[0] == C_IDX && idx[1] == C_DIR && idx[5] == C_KERNEL &&
                                    idx[7] == C_SIL);
    CHECK_INT("select dups", tp_table_select(prof_cols, C_N, "op,op,idx", idx, 32, &n, &err), TP_OK);
    CHECK("select dups kept", n == 3 && idx[0] == C_OP && idx[1] == C_OP && idx[2] == C_IDX);
    CHECK_INT("select unknown", tp_table_select(prof_cols, C_N, "idx,bogus,op", idx, 32, &n, &err), TP_ERR_USAGE);
    CHECK_STR("select unknown message", err.msg,
              "bogus is not a valid column name. Valid column names are "
              "idx,seq,altseq,tid,layer,trace,dir,sub,mod,op,kernel,params,sil,tc,device,stream,grid,block,"
              "flops,bytes.");
    CHECK_INT("select unknown status", err.status, TP_ERR_USAGE);
    CHECK_INT("select prefix is not a key", tp_table_select(prof_cols, C_N, "id", idx, 32, &n, &err), TP_ERR_USAGE);
    CHECK_INT("select longer is not a key", tp_table_select(prof_cols, C_N, "idxx", idx, 32, &n, &err), TP_ERR_USAGE);
    CHECK_INT("select empty", tp_table_select(prof_cols, C_N, "", idx, 32, &n, &err), TP_ERR_USAGE);
    CHECK_INT("select NULL", tp_table_select(prof_cols, C_N, NULL, idx, 32, &n, &err), TP_ERR_USAGE);
    CHECK_INT("select trailing comma", tp_table_select(prof_cols, C_N, "idx,", idx, 32, &n, &err), TP_ERR_USAGE);
    CHECK_STR("select trailing comma message", err.msg,
              " is not a valid column name. Valid column names are "
              "idx,seq,altseq,tid,layer,trace,dir,sub,mod,op,kernel,params,sil,tc,device,stream,grid,block,"
              "flops,bytes.");
    CHECK_INT("select over capacity", tp_table_select(prof_cols, C_N, "idx,op,sil", idx, 2, &n, &err), TP_ERR_USAGE);
    CHECK_INT("col_find", tp_table_col_find(prof_cols, C_N, "flops"), C_FLOPS);
    CHECK_INT("col_find missing", tp_table_col_find(prof_cols, C_N, "nope"), -1);

    /* through tp_table_write */
    tp_table *t = golden_table(0);
    int rc;
    memset(&err, 0, sizeof err);
    char *o = render(t, TP_FMT_SPACE, 0, "idx,Kernel", NULL, 0, 1, &rc, &err);
    CHECK_INT("write unknown column", rc, TP_ERR_USAGE);
    CHECK("write unknown column message", strncmp(err.msg, "Kernel is not a valid column name.", 34) == 0);
    CHECK_STR("write unknown column prints nothing", o, "");
    free(o);
    CHECK_OUT("write NULL columns = all", out(t, TP_FMT_SPACE, 0, NULL) ,
              "Idx SeqId AltSeqId TId Layer Trace Direction Sub Module Op Kernel Params Sil(ns) TC Device Stream "
              "Grid Block FLOPs Bytes\n"
              "1 65 - 3940300608 - language-model.py:319,language-model.py:261,language-model.py:106 fprop 0 "
              "torch.nn.functional embedding indexSelectLargeIndex I=(35,20),int64,E=(33278,200),fp32, 6624 - 0 7 "
              "640,1,1 128,1,1 0 1125600\n"
              "2 66 - 3940300608 - language-model.py:319,language-model.py:261,language-model.py:106 fprop 0 "
              "Tensor __mul__ elementwise_kernel T=[(35,20,200)],fp32, 3168 - 0 7 274,1,1 512,1,1 140000.0 "
              "1120000\n");
    tp_table_free(t);
}

static void test_sort_top(void)
{
    static const struct tp_coldef cols[] = {
        { "name", "Name", TP_COL_STR, -1, 0, "" },
        { "n", "N", TP_COL_NUM, -1, 0, "" },
        { "t", "T", TP_COL_US, -1, 0, "" },
    };
    tp_table *t;
    t = tp_table_new(cols, 3);
    struct { const char *name; int kind; double v; } rows[] = {
        { "b", 1, 5 }, { "a", 2, 2.5 }, { "c", 0, 0 }, { NULL, 1, 5 }, { "a", 2, NAN }, { "B", 1, 1e18 },
        { "a", 2, 5.0 },
    };
    for (int i = 0; i < 7; i++) {
        tp_table_add_row(t);
        if (rows[i].name)
            tp_table_set_str(t, 0, rows[i].name);
        if (rows[i].kind == 1)
            tp_table_set_int(t, 1, (int64_t)rows[i].v);
        else if (rows[i].kind == 2)
            tp_table_set_float(t, 1, rows[i].v);
        tp_table_set_int(t, 2, i * 1000);
    }
    CHECK_OUT("no sort keeps view order", out(t, TP_FMT_SPACE, 0, "t"), "T\n0\n1\n2\n3\n4\n5\n6\n");
    CHECK_OUT("sort numeric descending, stable, nan and null last",
              render(t, TP_FMT_SPACE, 0, "n,t", "n", 0, 1, NULL, NULL),
              "N T\n1000000000000000000 5\n5 0\n5 3\n5.0 6\n2.5 1\nnan 4\n- 2\n");
    CHECK_OUT("sort string ascending, stable, null last",
              render(t, TP_FMT_SPACE, 0, "name,t", "name", 0, 1, NULL, NULL),
              "Name T\nB 5\na 1\na 4\na 6\nb 0\nc 2\n- 3\n");
    CHECK_OUT("sort US descending", render(t, TP_FMT_SPACE, 0, "t", "t", 3, 1, NULL, NULL),
              "T\n6\n5\n4\n");
    CHECK_OUT("sort by an unselected column", render(t, TP_FMT_CSV, 0, "name", "t", 2, 0, NULL, NULL),
              "\"a\"\n\"B\"\n");
    CHECK_OUT("top without sort", render(t, TP_FMT_SPACE, 0, "t", NULL, 2, 1, NULL, NULL), "T\n0\n1\n");
    CHECK_OUT("top larger than rows", render(t, TP_FMT_SPACE, 0, "t", NULL, 100, 0, NULL, NULL),
              "0\n1\n2\n3\n4\n5\n6\n");
    CHECK_OUT("top with jsonl", render(t, TP_FMT_JSONL, 0, "name,n", "n", 2, 1, NULL, NULL),
              "{\"name\":\"B\",\"n\":1000000000000000000}\n{\"name\":\"b\",\"n\":5}\n");
    int rc;
    tp_error err;
    memset(&err, 0, sizeof err);
    char *o = render(t, TP_FMT_SPACE, 0, "n", "size", 0, 1, &rc, &err);
    CHECK_INT("sort unknown key", rc, TP_ERR_USAGE);
    CHECK_STR("sort unknown key message", err.msg,
              "size is not a valid column name. Valid column names are name,n,t.");
    CHECK_STR("sort unknown prints nothing", o, "");
    free(o);
    /* a list sorts by each key in turn (once an error, now --sort a,-b) */
    o = render(t, TP_FMT_SPACE, 0, "n", "n,t", 0, 1, &rc, &err);
    CHECK_INT("sort list sorts", rc, TP_OK);
    free(o);
    o = render(t, TP_FMT_SPACE, 0, "n", "n,x", 0, 1, &rc, &err);
    CHECK_INT("sort list with an unknown key is an error", rc, TP_ERR_USAGE);
    free(o);
    o = render(t, TP_FMT_SPACE, 0, "n", "", 0, 1, &rc, &err);
    CHECK_INT("sort empty is an error", rc, TP_ERR_USAGE);
    free(o);
    tp_table_free(t);
}

static void test_write_errors(void)
{
    tp_table *t = tp_table_new(prof_cols, C_N);
    for (int i = 0; i < 5000; i++) {
        tp_table_add_row(t);
        tp_table_set_int(t, C_IDX, i);
        tp_table_set_str(t, C_KERNEL, "some_kernel_name_that_is_long_enough");
    }
    FILE *f = fopen("/dev/full", "w");
    if (!f) {
        SKIP("write error reported", "no /dev/full");
    } else {
        struct tp_output_opts o;
        tp_output_opts_init(&o);
        o.columns = "idx,kernel";
        enum tp_format fmts[] = { TP_FMT_SPACE, TP_FMT_CSV, TP_FMT_COLUMNS, TP_FMT_JSONL };
        for (int i = 0; i < 4; i++) {
            tp_error err;
            memset(&err, 0, sizeof err);
            o.format = fmts[i];
            o.width = 80;
            clearerr(f);
            int rc = tp_table_write(t, &o, f, &err);
            CHECK_INT("write error is TP_ERR_IO", rc, TP_ERR_IO);
            CHECK("write error message", strstr(err.msg, "No space left on device") != NULL);
        }
        fclose(f);
    }
    tp_error err;
    memset(&err, 0, sizeof err);
    CHECK_INT("write NULL table", tp_table_write(NULL, NULL, stdout, &err), TP_ERR_USAGE);
    struct tp_output_opts o;
    tp_output_opts_init(&o);
    o.format = (enum tp_format)42;
    char *buf = NULL;
    size_t len = 0;
    f = open_memstream(&buf, &len);
    CHECK_INT("write unknown format", tp_table_write(t, &o, f, &err), TP_ERR_USAGE);
    fclose(f);
    free(buf);
    tp_table_free(t);
}

/* tp_table_set_str_stable gives the cells tp_table_set_str gives: strings
 * seen again by address, more addresses than the map's first size, NULL;
 * and rows written in 64 KB batches read the same as the rows one by one. */
static void test_stable_strings(void)
{
    enum { NBUF = 3000, NROWS = 20000 };
    static char bufs[NBUF][16];
    for (int i = 0; i < NBUF; i++)
        snprintf(bufs[i], sizeof bufs[i], "name%d", i % 1700);   /* equal texts at other addresses too */
    tp_table *a = tp_table_new(prof_cols, C_N), *b = tp_table_new(prof_cols, C_N);
    struct tp_sbuf want = {0};
    char line[96];
    for (int r = 0; r < NROWS; r++) {
        const char *s = bufs[(r * 7919) % NBUF], *lit = r & 1 ? "fprop" : "bprop";
        tp_table_add_row(a);
        tp_table_add_row(b);
        tp_table_set_int(a, C_IDX, r);
        tp_table_set_int(b, C_IDX, r);
        tp_table_set_str(a, C_KERNEL, s);
        tp_table_set_str_stable(b, C_KERNEL, s);
        tp_table_set_str(a, C_DIR, lit);
        tp_table_set_str_stable(b, C_DIR, lit);
        tp_table_set_str(a, C_OP, r % 5 ? s : NULL);
        tp_table_set_str_stable(b, C_OP, r % 5 ? s : NULL);
        int n = snprintf(line, sizeof line, "%d %s %s %s\n", r, s, lit, r % 5 ? s : "-");
        tp_sbuf_put(&want, line, (size_t)n);
    }
    tp_sbuf_putc(&want, 0);
    int same = 1;
    for (int r = 0; r < NROWS && same; r++)
        for (size_t c = 0; c < C_N && same; c++) {
            const char *x = tp_table_cell_str(a, (size_t)r, c), *y = tp_table_cell_str(b, (size_t)r, c);
            same = tp_table_cell_kind(a, (size_t)r, c) == tp_table_cell_kind(b, (size_t)r, c) &&
                   (x == y || (x && y && strcmp(x, y) == 0));
        }
    CHECK("stable strings: the cells of tp_table_set_str", same);
    char *ga = render(a, TP_FMT_SPACE, 0, "idx,kernel,dir,op", NULL, 0, 0, NULL, NULL);
    char *gb = render(b, TP_FMT_SPACE, 0, "idx,kernel,dir,op", NULL, 0, 0, NULL, NULL);
    CHECK("stable strings: 20000 rows (over 64 KB batches) as written one by one", ga && gb && want.p &&
          strcmp(ga, want.p) == 0 && strcmp(gb, want.p) == 0);
    free(ga);
    free(gb);
    tp_sbuf_free(&want);
    tp_table_free(a);
    tp_table_free(b);
}

/* Text escaping reads plain ASCII eight bytes at a time: random strings of
 * printable, control, DEL, UTF-8 and invalid bytes, at every alignment,
 * come out as a byte-by-byte reference puts them. */
static void test_escape_scan(void)
{
    static const unsigned char pool[] = {'a', 'Z', ' ', '~', '0', 0x1f, 0x20, 0x7e, 0x7f, 0x80, 0x9f, 0xc2, 0xa0,
                                         0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x98, 0x80, 0xff, '\n', '\t', 0};
    uint64_t x = 88172645463325252u;
    long bad = 0, badw = 0;
    unsigned char s[80];
    for (int iter = 0; iter < 20000; iter++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t len = (size_t)(x % 64), off = (size_t)(x >> 8) % 8;
        for (size_t i = 0; i < len; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            /* mostly printable runs, as names are */
            s[off + i] = x % 4 ? (unsigned char)(0x20 + (x >> 8) % 95) : pool[(x >> 8) % sizeof pool];
        }
        struct tp_sbuf got = {0}, ref = {0};
        size_t width = 0;
        tp_text_put(&got, (const char *)s + off, len);
        for (size_t i = 0; i < len;) {
            int esc;
            size_t u = tp_text_unit(s + off + i, len - i, &esc);
            width += esc ? 4 * u : 1;
            for (size_t k = 0; k < u; k++) {
                char e[5];
                snprintf(e, sizeof e, "\\x%02x", s[off + i + k]);
                if (esc)
                    tp_sbuf_put(&ref, e, 4);
                else
                    tp_sbuf_putc(&ref, (char)s[off + i + k]);
            }
            i += u;
        }
        bad += got.len != ref.len || (got.len && memcmp(got.p, ref.p, got.len) != 0);
        badw += tp_text_width((const char *)s + off, len) != width;
        tp_sbuf_free(&got);
        tp_sbuf_free(&ref);
    }
    CHECK_INT("escaping: 20000 random strings as the byte-by-byte reference", bad, 0);
    CHECK_INT("escaping: their display width as the reference counts it", badw, 0);
}

/* ---- golden: regenerate prof.py's outputs from its own CSV -------------- */

#define GOLDEN "../shared/reference/pyprof/data/golden/"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0, n;
    char tmp[65536];
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0) {
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            buf = realloc(buf, cap);
        }
        memcpy(buf + len, tmp, n);
        len += n;
    }
    fclose(f);
    if (buf)
        buf[len] = '\0';
    return buf;
}

/* Build the 17ed9e2 table from the apex prof.py --csv (all columns) output. */
static tp_table *table_from_csvall(const char *csv, int wmode)
{
    tp_table *t = tp_table_new(prof_cols, C_N);
    const char *line = strchr(csv, '\n');   /* skip the header */
    while (line && line[1]) {
        line++;
        const char *end = strchr(line, '\n');
        if (!end)
            end = line + strlen(line);
        tp_table_add_row(t);
        const char *p = line + 1;   /* after the first quote */
        for (int c = 0; c < C_N; c++) {
            const char *q = c == C_N - 1 ? end - 1 : strstr(p, "\",\"");
            if (!q || q > end)
                break;
            size_t len = (size_t)(q - p);
            char v[4096];
            snprintf(v, sizeof v, "%.*s", (int)len, p);
            if (c == C_TRACE && wmode) {
                const char *last = strrchr(v, ',');
                last = last ? last + 1 : v;
                const char *base = strrchr(last, '/');
                tp_table_set_str(t, c, base ? base + 1 : last);
            } else if (prof_cols[c].type == TP_COL_STR) {
                tp_table_set_strn(t, c, p, len);
            } else if (strchr(v, '.')) {
                tp_table_set_float(t, c, strtod(v, NULL));
            } else {
                tp_table_set_int(t, c, strtoll(v, NULL, 10));
            }
            p = q + 3;
        }
        line = end;
    }
    return t;
}

static void golden_mode(const char *name, const char *file, enum tp_format fmt, int width,
                        const char *cols, const char *csvall)
{
    char path[256];
    snprintf(path, sizeof path, GOLDEN "%s", file);
    char *want = slurp(path);
    if (!want) {
        SKIP(name, "reference outputs not found");
        return;
    }
    tp_table *t = table_from_csvall(csvall, fmt == TP_FMT_COLUMNS);
    char *got = out(t, fmt, width, cols);
    if (got && strcmp(got, want) == 0) {
        printf("ok %s\n", name);
    } else {
        size_t i = 0;
        while (got && got[i] && got[i] == want[i])
            i++;
        size_t ls = i;
        while (ls > 0 && want[ls - 1] != '\n')
            ls--;
        printf("FAIL %s: differs at byte %zu, line starting \"%.60s\"\n", name, i, want + ls);
        tt_failed++;
    }
    free(got);
    free(want);
    tp_table_free(t);
}

static void test_golden_files(void)
{
    char *csvall = slurp(GOLDEN "17ed9e2.ap.csvall.txt");
    if (!csvall) {
        SKIP("golden 17ed9e2 apex prof.py outputs", "../shared/reference absent");
        return;
    }
    golden_mode("golden 17ed9e2.ap.csvall", "17ed9e2.ap.csvall.txt", TP_FMT_CSV, 0, ALL_COLS, csvall);
    golden_mode("golden 17ed9e2.ap.csv", "17ed9e2.ap.csv.txt", TP_FMT_CSV, 0, DEFAULT_COLS, csvall);
    golden_mode("golden 17ed9e2.ap.default", "17ed9e2.ap.default.txt", TP_FMT_SPACE, 0, DEFAULT_COLS, csvall);
    golden_mode("golden 17ed9e2.ap.spaceall", "17ed9e2.ap.spaceall.txt", TP_FMT_SPACE, 0, ALL_COLS, csvall);
    golden_mode("golden 17ed9e2.ap.w150", "17ed9e2.ap.w150.txt", TP_FMT_COLUMNS, 150, DEFAULT_COLS, csvall);
    golden_mode("golden 17ed9e2.ap.w300all", "17ed9e2.ap.w300all.txt", TP_FMT_COLUMNS, 300, ALL_COLS, csvall);
    golden_mode("golden 17ed9e2.ap.w100readme", "17ed9e2.ap.w100readme.txt", TP_FMT_COLUMNS, 100, README_COLS,
                csvall);
    free(csvall);
}


/* Cells are 4 bytes: integers outside int32 and floats live in the chunk's
 * wide values; a chunk keeps one kind per column until a column's kinds
 * differ, then one per cell.  Every value and kind must read back as set,
 * in the row being filled, in earlier rows, and across chunks. */
static void test_narrow_cells(void)
{
    static const struct tp_coldef cols[] = {
        { "i", "I", TP_COL_INT, -1, 0, "" },
        { "f", "F", TP_COL_NUM, -1, 0, "" },
        { "s", "S", TP_COL_STR, -1, 0, "" },
    };
    static const int64_t wide[] = { INT64_MAX, INT64_MIN, (int64_t)INT32_MAX + 1, (int64_t)INT32_MIN - 1,
                                    INT32_MAX, INT32_MIN, -1, 0 };
    enum { NW = sizeof wide / sizeof wide[0], N = 3 * 4096 + 17 };
    tp_table *t = tp_table_new(cols, 3);
    size_t bad_last = 0;
    for (size_t r = 0; r < N; r++) {
        tp_table_add_row(t);
        int64_t x = wide[r % NW];
        if (r == 5000)
            tp_table_set_str(t, 0, "text in an int column");   /* the chunk's kinds differ from here */
        else if (r != 9000)                                     /* a NULL among ints */
            tp_table_set_int(t, 0, x);
        if (r % 3 == 0)
            tp_table_set_float(t, 1, (double)r + 0.25);
        else if (r % 3 == 1)
            tp_table_set_int(t, 1, (int64_t)r);
        tp_table_set_str(t, 2, r % 2 ? "odd" : "even");
        /* the row being filled reads back too */
        if ((r != 5000 && r != 9000 && tp_table_cell_int(t, r, 0) != x) ||
            tp_table_cell_kind(t, r, 2) != TP_CELL_STR)
            bad_last++;
    }
    CHECK_INT("narrow: the last row reads back while filled", bad_last, 0);
    size_t bad = 0;
    for (size_t r = 0; r < N; r++) {
        if (r == 5000) {
            bad += tp_table_cell_kind(t, r, 0) != TP_CELL_STR ||
                   strcmp(tp_table_cell_str(t, r, 0), "text in an int column") != 0;
        } else if (r == 9000) {
            bad += tp_table_cell_kind(t, r, 0) != TP_CELL_NULL;
        } else {
            bad += tp_table_cell_kind(t, r, 0) != TP_CELL_INT || tp_table_cell_int(t, r, 0) != wide[r % NW];
        }
        if (r % 3 == 0)
            bad += tp_table_cell_kind(t, r, 1) != TP_CELL_FLOAT || tp_table_cell_float(t, r, 1) != (double)r + 0.25;
        else if (r % 3 == 1)
            bad += tp_table_cell_kind(t, r, 1) != TP_CELL_INT || tp_table_cell_int(t, r, 1) != (int64_t)r;
        else
            bad += tp_table_cell_kind(t, r, 1) != TP_CELL_NULL;
        bad += strcmp(tp_table_cell_str(t, r, 2), r % 2 ? "odd" : "even") != 0;
    }
    CHECK_INT("narrow: every cell reads back (wide, narrow, mixed kinds, NULL)", bad, 0);
    /* a cell set twice in its row: wide over narrow, narrow over wide,
     * float over wide int */
    tp_table_add_row(t);
    tp_table_set_int(t, 0, 7);
    tp_table_set_int(t, 0, INT64_MAX - 1);
    CHECK_INT("narrow: wide over narrow", tp_table_cell_int(t, N, 0), INT64_MAX - 1);
    tp_table_set_int(t, 0, -3);
    CHECK_INT("narrow: narrow over wide", tp_table_cell_int(t, N, 0), -3);
    tp_table_set_int(t, 1, INT64_MIN);
    tp_table_set_float(t, 1, -0.0);
    CHECK("narrow: float over wide int", tp_table_cell_kind(t, N, 1) == TP_CELL_FLOAT &&
                                         signbit(tp_table_cell_float(t, N, 1)));
    tp_table_set_float(t, 1, NAN);
    tp_table_add_row(t);
    CHECK("narrow: NaN kept once the next row comes", isnan(tp_table_cell_float(t, N, 1)));
    CHECK_INT("narrow: no oom", tp_table_nomem(t), 0);
    tp_table_free(t);
}

/* tp_table_keep_columns: the columns left out read NULL and their setters
 * do nothing; the kept ones write as in a table that keeps them all. */
static void test_keep_columns(void)
{
    tp_table *all = tp_table_new(prof_cols, C_N), *some = tp_table_new(prof_cols, C_N);
    CHECK_INT("keep: unknown key keeps every column", tp_table_keep_columns(all, "idx,no_such"), 0);
    CHECK_INT("keep: a list", tp_table_keep_columns(some, "sil,idx,op,sil"), 0);
    for (int r = 0; r < 5000; r++) {
        tp_table *both[2] = { all, some };
        for (int k = 0; k < 2; k++) {
            tp_table *t = both[k];
            tp_table_add_row(t);
            tp_table_set_int(t, C_IDX, r + 1);
            tp_table_set_str(t, C_OP, r % 7 ? "conv" : "linear");
            tp_table_set_str_stable(t, C_KERNEL, "volta_sgemm");
            tp_table_set_int(t, C_SIL, (int64_t)r * 3000000000LL);
            tp_table_set_float(t, C_FLOPS, r * 1.5);
        }
    }
    CHECK_INT("keep: kept column", tp_table_cell_int(some, 4999, C_SIL), 4999 * 3000000000LL);
    CHECK_STR("keep: kept string", tp_table_cell_str(some, 7, C_OP), "linear");
    CHECK_INT("keep: left out string is NULL", tp_table_cell_kind(some, 3, C_KERNEL), TP_CELL_NULL);
    CHECK_INT("keep: left out float is NULL", tp_table_cell_kind(some, 3, C_FLOPS), TP_CELL_NULL);
    CHECK_STR("keep: unknown key kept all", tp_table_cell_str(all, 3, C_KERNEL), "volta_sgemm");
    int rc1, rc2;
    char *a = render(all, TP_FMT_CSV, 0, "idx,op,sil", NULL, 0, 0, &rc1, NULL);
    char *b = render(some, TP_FMT_CSV, 0, "idx,op,sil", NULL, 0, 0, &rc2, NULL);
    CHECK("keep: same CSV as the full table", rc1 == TP_OK && rc2 == TP_OK && a && b && strcmp(a, b) == 0);
    free(a);
    free(b);
    CHECK_INT("keep: after the first row, no effect", tp_table_keep_columns(all, "idx"), 0);
    CHECK_STR("keep: still every column", tp_table_cell_str(all, 3, C_KERNEL), "volta_sgemm");
    tp_table_free(all);
    tp_table_free(some);
}

int main(void)
{
    test_number_formats();
    test_storage();
    test_narrow_cells();
    test_keep_columns();
    test_opts_init();
    test_space_csv_golden();
    test_columns_golden();
    test_fit_columns();
    test_escaping();
    test_select();
    test_sort_top();
    test_write_errors();
    test_stable_strings();
    test_escape_scan();
    test_golden_files();
    TEST_EXIT();
}
