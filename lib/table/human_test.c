/* human_test.c — --human (human.c): torch's _format_time, time_unit= and
 * _format_memory, and which columns of which formats they reach. */
#include <stdlib.h>
#include <string.h>
#include "table.h"
#include "testing.h"

static void check_time(const char *name, double us, int unit, const char *want)
{
    char buf[64];
    size_t n = tp_fmt_human_time(us, unit, buf, sizeof buf);
    CHECK_STR(name, buf, want);
    CHECK_INT(name, n, strlen(want));
}

static void check_bytes(const char *name, double b, int integral, const char *want)
{
    char buf[64];
    tp_fmt_human_bytes(b, integral, buf, sizeof buf);
    CHECK_STR(name, buf, want);
}

static char *render(const tp_table *t, enum tp_format fmt, int timeunit)
{
    struct tp_output_opts o;
    tp_output_opts_init(&o);
    o.format = fmt;
    o.width = fmt == TP_FMT_COLUMNS ? 120 : 0;
    o.human = 1;
    o.timeunit = timeunit;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tp_error e = {0};
    int rc = tp_table_write(t, &o, f, &e);
    fclose(f);
    if (rc != TP_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

int main(void)
{
    /* _format_time: the largest unit reached, three decimals */
    check_time("time us", 123.4564, 0, "123.456us");
    check_time("time below 1 ms", 999.9999, 0, "1000.000us");   /* the unit is picked before rounding */
    check_time("time 1 ms", 1000.0, 0, "1.000ms");
    check_time("time ms", 12345.678, 0, "12.346ms");
    check_time("time s", 2500000.0, 0, "2.500s");
    check_time("time negative stays in us", -5000.0, 0, "-5000.000us");
    check_time("time zero", 0.0, 0, "0.000us");
    /* override_time_unit */
    check_time("time_unit s", 1234.5, TP_UNIT_S, "0.001s");
    check_time("time_unit ms", 1234567.0, TP_UNIT_MS, "1234.567ms");
    check_time("time_unit us", 2500000.0, TP_UNIT_US, "2500000.000us");
    check_time("time_unit ns (tprof's)", 1.5, TP_UNIT_NS, "1500ns");
    /* _format_memory: powers of 1024, two decimals, else the count */
    check_bytes("bytes", 512, 1, "512 B");
    check_bytes("bytes zero", 0, 1, "0 B");
    check_bytes("bytes 1 KB", 1024, 1, "1.00 KB");
    check_bytes("bytes KB", 1536, 1, "1.50 KB");
    check_bytes("bytes MB", 12.5 * 1048576, 1, "12.50 MB");
    check_bytes("bytes GB", 3.21 * 1073741824.0, 1, "3.21 GB");
    check_bytes("bytes negative", -5588026368.0, 1, "-5.20 GB");
    check_bytes("bytes negative small", -1023, 1, "-1023 B");
    check_bytes("bytes float below 1 KB: str(float)", 4.0, 0, "4.0 B");
    check_bytes("bytes float KB", 2048.5, 0, "2.00 KB");

    static const struct tp_coldef cols[] = {
        {"name", "Name", TP_COL_STR, -1, 0, ""},
        {"calls", "Calls", TP_COL_INT, -1, 0, ""},
        {"total", "Total(us)", TP_COL_US, -1, 0, ""},
        {"avg", "Avg(us)", TP_COL_FIXED, -1, 3, ""},
        {"gpu", "GpuTime(ns)", TP_COL_INT, -1, 0, ""},
        {"mem", "Mem(B)", TP_COL_INT, -1, 0, ""},
        {"pct", "Pct", TP_COL_FIXED, -1, 2, ""},
    };
    tp_table *t = tp_table_new(cols, sizeof cols / sizeof *cols);
    tp_table_add_row(t);
    tp_table_set_str(t, 0, "aten::mm");
    tp_table_set_int(t, 1, 3);
    tp_table_set_int(t, 2, 1234567);      /* ns */
    tp_table_set_float(t, 3, 411.522);    /* us */
    tp_table_set_int(t, 4, 2500);         /* ns */
    tp_table_set_int(t, 5, 1572864);
    tp_table_set_float(t, 6, 12.5);
    tp_table_add_row(t);
    tp_table_set_str(t, 0, "aten::add");
    tp_table_set_int(t, 1, 1);
    tp_table_set_int(t, 2, 42);
    tp_table_set_null(t, 3);
    tp_table_set_int(t, 4, 0);
    tp_table_set_int(t, 5, 100);
    tp_table_set_float(t, 6, 0.5);

    char *s = render(t, TP_FMT_SPACE, 0);
    CHECK_STR("space: units in the cells, none in the headers, the rest as it was", s,
              "Name Calls Total Avg GpuTime Mem Pct\n"
              "aten::mm 3 1.235ms 411.522us 2.500us 1.50 MB 12.50\n"
              "aten::add 1 0.042us - 0.000us 100 B 0.50\n");
    free(s);
    s = render(t, TP_FMT_COLUMNS, 0);
    CHECK_STR("columns: right-aligned with their units", s,
              "Name      Calls Total   Avg       GpuTime Mem     Pct   \n"
              "aten::mm      3 1.235ms 411.522us 2.500us 1.50 MB 12.50 \n"
              "aten::add     1 0.042us         - 0.000us   100 B  0.50 \n");
    free(s);
    s = render(t, TP_FMT_MARKDOWN, TP_UNIT_MS);
    CHECK("markdown, --timeunit ms: every time in ms",
          s && strstr(s, "| aten::mm | 3 | 1.235ms | 0.412ms | 0.003ms | 1.50 MB | 12.50 |") != NULL);
    free(s);
    /* the typed formats keep numbers: a reader's units would not load */
    s = render(t, TP_FMT_CSV, 0);
    CHECK("csv ignores it", s && strstr(s, "\"Total(us)\"") && strstr(s, "\"1234.567\"") && strstr(s, "\"1572864\""));
    free(s);
    s = render(t, TP_FMT_JSONL, 0);
    CHECK("jsonl ignores it", s && strstr(s, "\"total\":1234.567") && strstr(s, "\"mem\":1572864"));
    free(s);
    tp_table_free(t);
    TEST_EXIT();
}
