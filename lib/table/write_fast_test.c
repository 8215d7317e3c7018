/* write_fast_test.c — the writers that make a string's field once per
 * string id (write_fast.c's joined formats, -w, JSON lines, Markdown) print
 * every row as if each cell were written on its own: fixed outputs for
 * strings that repeat (quotes, escapes, empties, NULLs, --header keys), and
 * a random table whose CSV, TSV and space output is compared with one
 * assembled cell by cell from tp_cell_text and tp_text_put. */
#include <csv.h>
#include <stdlib.h>
#include <string.h>
#include "table.h"
#include "testing.h"

enum { K_IDX, K_NAME, K_OP, K_T, K_F, K_N };
static const struct tp_coldef cols[K_N] = {
    {"idx", "Idx", TP_COL_INT, 5, 0, "index"},
    {"name", "Name", TP_COL_STR, 8, 0, "a name"},
    {"op", "Op", TP_COL_STR, 0, 0, "an op"},
    {"t", "T(us)", TP_COL_US, 9, 0, "a time"},
    {"f", "F", TP_COL_FIXED, 7, 2, "a ratio"},
};
/* The same without fixed widths: tprof's own -w layout (fit to content). */
static const struct tp_coldef fitcols[K_N] = {
    {"idx", "Idx", TP_COL_INT, -1, 0, "index"},
    {"name", "Name", TP_COL_STR, -1, 0, "a name"},
    {"op", "Op", TP_COL_STR, -1, 0, "an op"},
    {"t", "T(us)", TP_COL_US, -1, 0, "a time"},
    {"f", "F", TP_COL_FIXED, -1, 2, "a ratio"},
};

static char *render(const tp_table *t, enum tp_format fmt, int width, int header, int keys)
{
    struct tp_output_opts o;
    tp_output_opts_init(&o);
    o.format = fmt;
    o.width = width;
    o.header = header;
    o.keys = keys;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tp_error e;
    memset(&e, 0, sizeof e);
    int rc = tp_table_write(t, &o, f, &e);
    fclose(f);
    if (rc != TP_OK) {
        free(buf);
        return NULL;
    }
    return buf;
}

#define CHECK_OUT(name, got, want) do { char *g__ = (got); CHECK_STR(name, g__, want); free(g__); } while (0)

/* Rows 0..2 repeat the same awkward strings (so the second and third come
 * from the cache); row 3 has an empty string and NULLs. */
static tp_table *repeat_table(const struct tp_coldef *c)
{
    static const char name[] = "a\"b,c", op[] = "x\ty|<z>";
    tp_table *t = tp_table_new(c, K_N);
    for (int i = 0; i < 3; i++) {
        tp_table_add_row(t);
        tp_table_set_int(t, K_IDX, i);
        tp_table_set_str_stable(t, K_NAME, name);
        tp_table_set_str(t, K_OP, op);
        tp_table_set_int(t, K_T, 1500 + i);
        tp_table_set_float(t, K_F, 0.125 * i);
    }
    tp_table_add_row(t);
    tp_table_set_int(t, K_IDX, 3);
    tp_table_set_str(t, K_NAME, "");
    return t;
}

static void test_repeats(void)
{
    tp_table *t = repeat_table(cols);
    CHECK_OUT("csv repeats", render(t, TP_FMT_CSV, 0, 1, 0),
              "\"Idx\",\"Name\",\"Op\",\"T(us)\",\"F\"\n"
              "\"0\",\"a\"\"b,c\",\"x\\x09y|<z>\",\"1.5\",\"0.00\"\n"
              "\"1\",\"a\"\"b,c\",\"x\\x09y|<z>\",\"1.501\",\"0.12\"\n"
              "\"2\",\"a\"\"b,c\",\"x\\x09y|<z>\",\"1.502\",\"0.25\"\n"
              "\"3\",\"\",\"-\",\"-\",\"-\"\n");
    CHECK_OUT("csv keys: empty and NULL are empty fields", render(t, TP_FMT_CSV, 0, 1, 1),
              "\"idx\",\"name\",\"op\",\"t\",\"f\"\n"
              "\"0\",\"a\"\"b,c\",\"x\\x09y|<z>\",\"1.5\",\"0.00\"\n"
              "\"1\",\"a\"\"b,c\",\"x\\x09y|<z>\",\"1.501\",\"0.12\"\n"
              "\"2\",\"a\"\"b,c\",\"x\\x09y|<z>\",\"1.502\",\"0.25\"\n"
              "\"3\",,,,\n");
    CHECK_OUT("tsv repeats", render(t, TP_FMT_TSV, 0, 0, 0),
              "0\ta\"b,c\tx\\x09y|<z>\t1.5\t0.00\n1\ta\"b,c\tx\\x09y|<z>\t1.501\t0.12\n"
              "2\ta\"b,c\tx\\x09y|<z>\t1.502\t0.25\n3\t\t-\t-\t-\n");
    CHECK_OUT("tsv keys: NULL empty", render(t, TP_FMT_TSV, 0, 0, 1),
              "0\ta\"b,c\tx\\x09y|<z>\t1.5\t0.00\n1\ta\"b,c\tx\\x09y|<z>\t1.501\t0.12\n"
              "2\ta\"b,c\tx\\x09y|<z>\t1.502\t0.25\n3\t\t\t\t\n");
    CHECK_OUT("space keys: NULL still -", render(t, TP_FMT_SPACE, 0, 0, 1),
              "0 a\"b,c x\\x09y|<z> 1.5 0.00\n1 a\"b,c x\\x09y|<z> 1.501 0.12\n"
              "2 a\"b,c x\\x09y|<z> 1.502 0.25\n3  - - -\n");
    CHECK_OUT("jsonl repeats", render(t, TP_FMT_JSONL, 0, 1, 0),
              "{\"idx\":0,\"name\":\"a\\\"b,c\",\"op\":\"x\\u0009y|<z>\",\"t\":1.5,\"f\":0.00}\n"
              "{\"idx\":1,\"name\":\"a\\\"b,c\",\"op\":\"x\\u0009y|<z>\",\"t\":1.501,\"f\":0.12}\n"
              "{\"idx\":2,\"name\":\"a\\\"b,c\",\"op\":\"x\\u0009y|<z>\",\"t\":1.502,\"f\":0.25}\n"
              "{\"idx\":3,\"name\":\"\",\"op\":null,\"t\":null,\"f\":null}\n");
    CHECK_OUT("markdown repeats", render(t, TP_FMT_MARKDOWN, 0, 1, 0),
              "| Idx | Name | Op | T(us) | F |\n|---:|:---|:---|---:|---:|\n"
              "| 0 | a\"b,c | x\\x09y\\|&lt;z&gt; | 1.5 | 0.00 |\n"
              "| 1 | a\"b,c | x\\x09y\\|&lt;z&gt; | 1.501 | 0.12 |\n"
              "| 2 | a\"b,c | x\\x09y\\|&lt;z&gt; | 1.502 | 0.25 |\n"
              "| 3 |  | - | - | - |\n");
    /* prof.py's layout: Name padded to 8 display units, Op the flexible
     * remainder 40-5-8-9-7 = 11, then 36-29 = 7: cut */
    CHECK_OUT("-w prof layout repeats", render(t, TP_FMT_COLUMNS, 40, 1, 0),
              "Idx   Name     Op          T(us)     F       \n"
              "    0 a\"b,c    x\\x09y|<z>        1.5    0.00 \n"
              "    1 a\"b,c    x\\x09y|<z>      1.501    0.12 \n"
              "    2 a\"b,c    x\\x09y|<z>      1.502    0.25 \n"
              "    3          -                   -       - \n");
    CHECK_OUT("-w prof layout cuts repeats alike", render(t, TP_FMT_COLUMNS, 36, 0, 0),
              "    0 a\"b,c    x\\x09y|       1.5    0.00 \n"
              "    1 a\"b,c    x\\x09y|     1.501    0.12 \n"
              "    2 a\"b,c    x\\x09y|     1.502    0.25 \n"
              "    3          -               -       - \n");
    tp_table_free(t);

    t = repeat_table(fitcols);
    CHECK_OUT("-w fit layout repeats", render(t, TP_FMT_COLUMNS, 80, 1, 0),
              "Idx Name  Op         T(us) F    \n"
              "  0 a\"b,c x\\x09y|<z>   1.5 0.00 \n"
              "  1 a\"b,c x\\x09y|<z> 1.501 0.12 \n"
              "  2 a\"b,c x\\x09y|<z> 1.502 0.25 \n"
              "  3       -              -    - \n");
    tp_table_free(t);

    /* the first field of the first line empty: still quoted */
    t = tp_table_new(cols, K_N);
    tp_table_add_row(t);
    tp_table_set_str(t, K_NAME, "");
    CHECK_OUT("csv empty first field, no header", render(t, TP_FMT_CSV, 0, 0, 0), "\"-\",\"\",\"-\",\"-\",\"-\"\n");
    char *o = NULL;
    struct tp_output_opts opt;
    tp_output_opts_init(&opt);
    opt.format = TP_FMT_CSV;
    opt.header = 0;
    opt.columns = "name,idx";
    size_t len = 0;
    FILE *f = open_memstream(&o, &len);
    tp_error e;
    memset(&e, 0, sizeof e);
    CHECK_INT("csv -c name first: ok", tp_table_write(t, &opt, f, &e), TP_OK);
    fclose(f);
    CHECK_STR("csv -c name first: \"\" starts the line", o, "\"\",\"-\"\n");
    free(o);
    tp_table_free(t);
}

/* ---- random tables against a cell-by-cell rendering -------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void)
{
    return tt_xorshift(&rng);
}

static const char *const POOL[] = {
    "", "aten::mm", "say \"hi\", ok", "tab\there", "nl\nx", "bad\xff\xfe utf8", "c1 \xc2\x85 ctl",
    "wide \xe4\xb8\xad\xe6\x96\x87", "<T>&|*_`#", "volta_sgemm_128x64_nn", "\"", ",", "x",
};
#define NPOOL (sizeof POOL / sizeof *POOL)

/* What tp_write_csv/tsv/space print for t, made one cell at a time. */
static char *reference(const tp_table *t, char sep, int csv)
{
    struct tp_sbuf b = { 0 }, cell = { 0 };
    char *tmp = NULL;
    for (size_t j = 0; j < K_N; j++) {
        if (j)
            tp_sbuf_putc(&b, sep);
        cell.len = 0;
        tp_text_put(&cell, cols[j].header, strlen(cols[j].header));
        if (csv) {
            tmp = realloc(tmp, 2 * cell.len + 2);
            tp_sbuf_put(&b, tmp, csv_write(tmp, 2 * cell.len + 2, cell.p ? cell.p : "", cell.len));
        } else {
            tp_sbuf_put(&b, cell.p, cell.len);
        }
    }
    tp_sbuf_putc(&b, '\n');
    for (size_t r = 0; r < tp_table_rows(t); r++) {
        for (size_t j = 0; j < K_N; j++) {
            char buf[TP_CELLBUF];
            size_t len;
            const char *s = tp_cell_text(t, r, j, buf, sizeof buf, &len);
            if (j)
                tp_sbuf_putc(&b, sep);
            cell.len = 0;
            tp_text_put(&cell, s, len);
            if (csv) {
                tmp = realloc(tmp, 2 * cell.len + 2);
                tp_sbuf_put(&b, tmp, csv_write(tmp, 2 * cell.len + 2, cell.p ? cell.p : "", cell.len));
            } else {
                tp_sbuf_put(&b, cell.p, cell.len);
            }
        }
        tp_sbuf_putc(&b, '\n');
    }
    tp_sbuf_putc(&b, 0);
    free(tmp);
    tp_sbuf_free(&cell);
    return b.p;
}

static void test_random(void)
{
    tp_table *t = tp_table_new(cols, K_N);
    for (int i = 0; i < 3000; i++) {
        tp_table_add_row(t);
        for (size_t j = 0; j < K_N; j++) {
            uint64_t r = next();
            switch (r % 8) {
            case 0: break;   /* NULL */
            case 1: case 2: tp_table_set_str_stable(t, j, POOL[(r >> 8) % NPOOL]); break;
            case 3: tp_table_set_str(t, j, POOL[(r >> 8) % NPOOL]); break;
            case 4: case 5: tp_table_set_int(t, j, (int64_t)(r >> 3) >> ((r >> 40) % 64)); break;
            default: tp_table_set_float(t, j, (double)(int64_t)(r >> 12) / (double)(1 + (r % 1000))); break;
            }
        }
    }
    static const struct { const char *name; enum tp_format fmt; char sep; int csv; } F[] = {
        {"random table: csv as cell by cell", TP_FMT_CSV, ',', 1},
        {"random table: tsv as cell by cell", TP_FMT_TSV, '\t', 0},
        {"random table: space as cell by cell", TP_FMT_SPACE, ' ', 0},
    };
    for (size_t k = 0; k < sizeof F / sizeof *F; k++) {
        char *want = reference(t, F[k].sep, F[k].csv), *got = render(t, F[k].fmt, 0, 1, 0);
        CHECK(F[k].name, want && got && strcmp(want, got) == 0);
        free(want);
        free(got);
    }
    tp_table_free(t);
}

/* A stable string column set row after row from the same address, from
 * other addresses with the same or other text, and from copies. */
static void test_stable_repeats(void)
{
    static const char a[] = "alpha", a2[] = "alpha", b[] = "beta";
    tp_table *t = tp_table_new(cols, K_N);
    const char *seq[] = {a, a, b, a2, a, NULL, a, b, b};
    for (size_t i = 0; i < sizeof seq / sizeof *seq; i++) {
        tp_table_add_row(t);
        if (i == 5)
            tp_table_set_str(t, K_NAME, "gamma");   /* not stable, between two stable ones */
        else
            tp_table_set_str_stable(t, K_NAME, seq[i]);
        tp_table_set_str_stable(t, K_OP, seq[i] ? seq[i] : b);
    }
    CHECK_OUT("stable repeats", render(t, TP_FMT_TSV, 0, 0, 0),
              "-\talpha\talpha\t-\t-\n-\talpha\talpha\t-\t-\n-\tbeta\tbeta\t-\t-\n"
              "-\talpha\talpha\t-\t-\n-\talpha\talpha\t-\t-\n-\tgamma\tbeta\t-\t-\n"
              "-\talpha\talpha\t-\t-\n-\tbeta\tbeta\t-\t-\n-\tbeta\tbeta\t-\t-\n");
    tp_table_free(t);
}

int main(void)
{
    test_repeats();
    test_random();
    test_stable_repeats();
    TEST_EXIT();
}
