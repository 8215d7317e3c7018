/* agg_test.c — the aggregation engine: --group lists and named sets, the
 * errors that list the keys, a roll-up equal to grouping the items by the
 * fewer keys directly, and the table it fills (sorting, ties, statistics,
 * default columns). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "agg.h"
#include "testing.h"

/* items: (colour, size, shape) and a duration */
struct item { const char *k[3]; int64_t d; };
static const char *key0(const void *it, struct tp_sbuf *b) { (void)b; return ((const struct item *)it)->k[0]; }
static const char *key1(const void *it, struct tp_sbuf *b) { (void)b; return ((const struct item *)it)->k[1]; }
static const char *key2(const void *it, struct tp_sbuf *b)
{
    return tp_agg_printf(b, "<%s>", ((const struct item *)it)->k[2]);
}
static const char *upper(const char *k) { return k[0] == 'r' ? "RED" : "other"; }

static const struct tp_coldef cols[] = {
    {"colour", "Colour", TP_COL_STR, -1, 0, ""}, {"size", "Size", TP_COL_STR, -1, 0, ""},
    {"shape", "Shape", TP_COL_STR, -1, 0, ""},   {"calls", "Calls", TP_COL_INT, -1, 0, ""},
    {"total", "Total", TP_COL_INT, -1, 0, ""},   {"min", "Min", TP_COL_INT, -1, 0, ""},
    {"max", "Max", TP_COL_INT, -1, 0, ""},       {"median", "Median", TP_COL_US, -1, 0, ""},
    {"pct", "Pct", TP_COL_FIXED, -1, 2, ""},     {"loud", "Loud", TP_COL_STR, -1, 0, ""},
};
static const struct tp_agg_key keys[] = {TP_AGG_KEY("colour", key0), TP_AGG_KEY("size", key1), {"shape", key2, 0, 1, NULL}};
static const struct tp_agg_set sets[] = {{"look", 1 | 4, "colour,shape,total"}};
static const struct tp_agg_metric metrics[] = {
    TP_AGG_M("calls", TP_AGG_CALLS, TP_AGG_DUR), TP_AGG_M("total", TP_AGG_SUM, TP_AGG_DUR),
    TP_AGG_M("min", TP_AGG_MIN, TP_AGG_DUR),     TP_AGG_M("max", TP_AGG_MAX, TP_AGG_DUR),
    TP_AGG_M("median", TP_AGG_MEDIAN, TP_AGG_DUR), TP_AGG_M("pct", TP_AGG_PCT, TP_AGG_DUR),
    {"loud", TP_AGG_KEYTEXT, 0, 0, 1, 0, upper, 0, NULL},
};
static const struct tp_agg_spec spec = {
    .view = "toy", .cols = cols, .ncols = sizeof cols / sizeof *cols, TP_AGG_ARRAY(keys, keys),
    TP_AGG_ARRAY(sets, sets), TP_AGG_ARRAY(metrics, metrics), .default_keys = 1,
    .metric_columns = "calls,total,loud", .sort = {TP_AGG_DUR, TP_AGG_DUR, 0, 0, NULL}, .others = "none",
};

static const struct item items[] = {
    {{"red", "S", "box"}, 5}, {{"blue", "L", "box"}, 7},  {{"red", "L", "ball"}, 1}, {{"green", "S", "box"}, 12},
    {{"red", "S", "box"}, 3}, {{"blue", "S", "ball"}, 5}, {{"red", "L", "box"}, 4},  {{"blue", "L", "box"}, 2},
};
#define NITEMS (sizeof items / sizeof *items)

static struct tp_section *group(tp_summary *s, unsigned k)
{
    static const struct tp_summ_desc d = {.view = "toy", .variant = "all"};
    struct tp_section *sec = tp_summ_section(s, &d);
    struct tp_agg_reader rd;
    tp_agg_reader_init(&rd, &spec, k, sec);
    for (size_t i = 0; i < NITEMS; i++) {
        struct tp_sgroup *g = tp_agg_group(&rd, sec, &items[i]);
        tp_summ_add(g, items[i].d * 1000);   /* µs, so medians print exactly */
        tp_summ_seen(sec, g, 0, (int64_t)i);
    }
    tp_agg_reader_free(&rd);
    tp_summ_finish(sec);
    return sec;
}

/* the table as "cell|cell|...;" rows of the given columns */
static void cells(const tp_table *t, const char *list, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = 0;
    for (size_t r = 0; r < tp_table_rows(t); r++) {
        for (const char *w = list; *w;) {
            size_t len = strcspn(w, ",");
            char key[32], v[64];
            snprintf(key, sizeof key, "%.*s", (int)len, w);
            long c = tp_table_col_find(cols, sizeof cols / sizeof *cols, key);
            if (tp_table_cell_kind(t, r, (size_t)c) == TP_CELL_NULL)
                snprintf(v, sizeof v, "-");
            else
                tp_table_format_cell(t, r, (size_t)c, v, sizeof v);
            o += (size_t)snprintf(out + o, cap - o, "%s%s", v, w[len] ? "|" : ";");
            w += len + (w[len] == ',');
        }
    }
}

int main(void)
{
    tp_error err = {0};
    unsigned k = 0;
    char arg[16], buf[512];

    CHECK("agg_default", tp_agg_parse(&spec, NULL, &k, &err) == TP_OK && k == 1);
    CHECK("agg_list", tp_agg_parse(&spec, "size,colour", &k, &err) == TP_OK && k == 3);
    CHECK("agg_set_alone", tp_agg_parse(&spec, "look", &k, &err) == TP_OK && k == 5);
    CHECK("agg_set_in_list", tp_agg_parse(&spec, "size,look", &k, &err) == TP_OK && k == 7);
    CHECK("agg_arg_key", tp_agg_parse(&spec, "shape=3,size", &k, &err) == TP_OK && k == 6);
    CHECK_INT("agg_arg_value", tp_agg_arg("size,shape=3", "shape", arg, sizeof arg), 1);
    CHECK_STR("agg_arg_text", arg, "3");
    CHECK_INT("agg_arg_bare", tp_agg_arg("shape", "shape", arg, sizeof arg), 0);
    CHECK_INT("agg_arg_absent", tp_agg_arg("size", "shape", arg, sizeof arg), -1);
    CHECK("agg_arg_refused", tp_agg_parse(&spec, "size=3", &k, &err) == TP_ERR_USAGE);
    CHECK("agg_set_arg_refused", tp_agg_parse(&spec, "size,look=2", &k, &err) == TP_ERR_USAGE);
    CHECK("agg_unknown", tp_agg_parse(&spec, "colour,weight", &k, &err) == TP_ERR_USAGE);
    CHECK("agg_unknown_lists_keys", strstr(err.msg, "'weight'") && strstr(err.msg, "colour, size, shape[=N] or none") &&
                                        strstr(err.msg, "look = colour,shape"));
    CHECK("agg_empty_word", tp_agg_parse(&spec, "colour,", &k, &err) == TP_ERR_USAGE);
    CHECK("agg_set_columns", tp_agg_columns(&spec, "look") && !tp_agg_columns(&spec, "colour,shape"));

    /* by colour: red 5+1+3+4 = 13 µs, green 12, blue 7+5+2 = 14 */
    tp_summary s = {0};
    struct tp_section *byc = group(&s, 1);
    tp_table *t = NULL;
    CHECK("agg_table", tp_agg_table(&spec, byc, 1, NULL, &t, &err) == TP_OK);
    cells(t, "colour,calls,total,min,max,median,pct,loud", buf, sizeof buf);
    CHECK_STR("agg_table_rows", buf, "blue|3|14000|2000|7000|5|35.90|other;red|4|13000|1000|5000|3.5|33.33|RED;"
                                     "green|1|12000|12000|12000|12|30.77|other;");
    CHECK("agg_default_keys_no_columns", tp_table_default_columns(t) == NULL);
    tp_table_free(t);

    /* (size, shape) rolled up to shape is shape grouped directly */
    struct tp_section *fine = group(&s, 6), *direct = group(&s, 4), *up = NULL;
    char a[512], b[512];
    CHECK("agg_rollup", tp_agg_rollup(&spec, fine, 6, 4, &up, &err) == TP_OK);
    tp_table *ta = NULL, *tb = NULL;
    tp_agg_table(&spec, up, 4, NULL, &ta, &err);
    tp_agg_table(&spec, direct, 4, NULL, &tb, &err);
    cells(ta, "shape,calls,total,min,max,median", a, sizeof a);
    cells(tb, "shape,calls,total,min,max,median", b, sizeof b);
    CHECK_STR("agg_rollup_is_direct", a, b);
    CHECK_STR("agg_rollup_rows", a, "<box>|6|33000|2000|12000|4.5;<ball>|2|6000|1000|5000|3;");
    CHECK_STR("agg_generated_without_keytext", tp_table_default_columns(ta), "shape,calls,total");
    tp_table_free(ta);
    tp_table_free(tb);
    tp_summ_section_free(up);

    /* ties keep first-seen order: (red,S) 8 first, then (blue,L) 9... */
    struct tp_section *cs = group(&s, 3);
    tp_agg_table(&spec, cs, 3, NULL, &t, &err);
    cells(t, "colour,size,total", buf, sizeof buf);
    CHECK_STR("agg_first_seen_ties", buf, "green|S|12000;blue|L|9000;red|S|8000;red|L|5000;blue|S|5000;");
    CHECK_STR("agg_generated_columns", tp_table_default_columns(t), "colour,size,calls,total,loud");
    tp_table_free(t);
    CHECK("agg_describe", tp_agg_describe(&spec, buf, sizeof buf) > 0 && strncmp(buf, "colour, size", 12) == 0);

    for (size_t i = 0; i < s.n; i++)
        tp_summ_section_free(s.s[i]);
    free(s.s);
    TEST_EXIT();
}
