/* summary_test.c — the statistics the nsys stats reports print. */
#include <math.h>
#include <stdlib.h>
#include "summary.h"
#include "testing.h"

static int near(double a, double b) { return fabs(a - b) < 1e-9; }

int main(void)
{
    /* two groups interleaved; "b" has an even count, "a" one sample */
    struct tp_sample s[] = {
        {.key = "b", .v = 40, .x = 1, .y = 10}, {.key = "a", .v = 7},
        {.key = "b", .v = 10, .x = 2, .y = 20}, {.key = "b", .v = 30}, {.key = "b", .v = 20},
    };
    struct tp_summary *g;
    long n = tp_summarize(s, 5, &g);
    CHECK_INT("summary_groups", n, 2);
    CHECK_STR("summary_key_order", g[0].key, "a");
    CHECK("summary_single_std_is_zero", g[0].n == 1 && g[0].std == 0.0 && near(g[0].med, 7));
    CHECK_INT("summary_total", g[1].total, 100);
    CHECK("summary_min_max", g[1].min == 10 && g[1].max == 40);
    CHECK("summary_even_median_is_mean_of_middle_two", near(g[1].med, 25.0));
    /* sample standard deviation of 10,20,30,40: sqrt(500/3) */
    CHECK("summary_sample_std", near(g[1].std, sqrt(500.0 / 3.0)));
    CHECK("summary_payload_sums", g[1].xsum == 3 && g[1].ysum == 30);
    int64_t all = tp_summary_sort_total(g, (size_t)n);
    CHECK_STR("summary_sorted_by_total", g[0].key, "b");
    CHECK_INT("summary_grand_total", all, 107);
    /* a row: Time(%) then the seven statistics, in TP_SUMMARY_COLS order */
    static const struct tp_coldef cols[] = {
        {"pct", "Time(%)", TP_COL_FIXED, -1, 1, ""}, TP_SUMMARY_COLS("calls", "NumCalls", "call")};
    tp_table *tb = tp_table_new(cols, 8);
    tp_summary_row(tb, 0, &g[0], all);
    char buf[64];
    tp_table_format_cell(tb, 0, 0, buf, sizeof buf);
    CHECK_STR("summary_row_pct", buf, "93.5");
    CHECK("summary_row_stats", tp_table_cell_int(tb, 0, 1) == 100 && tp_table_cell_int(tb, 0, 2) == 4 &&
                                   near(tp_table_cell_float(tb, 0, 4), 25.0) && tp_table_cell_int(tb, 0, 5) == 10 &&
                                   tp_table_cell_int(tb, 0, 6) == 40);
    tp_table_format_cell(tb, 0, 7, buf, sizeof buf);
    CHECK_STR("summary_row_std_one_decimal", buf, "12.9");
    tp_table_free(tb);
    CHECK("summary_pct", near(tp_summary_pct(25, 100), 25.0) && tp_summary_pct(1, 0) == 0.0);
    free(g);

    /* the tag keeps groups of one key apart; odd count: the middle value */
    struct tp_sample t[] = {{.key = "r", .tag = 2, .v = 5}, {.key = "r", .tag = 1, .v = 9},
                            {.key = "r", .tag = 1, .v = 1}, {.key = "r", .tag = 1, .v = 4}};
    n = tp_summarize(t, 4, &g);
    CHECK("summary_tag_groups", n == 2 && g[0].tag == 1 && g[0].n == 3 && g[1].n == 1);
    CHECK("summary_odd_median", near(g[0].med, 4.0));
    free(g);

    n = tp_summarize(NULL, 0, &g);
    CHECK("summary_empty", n == 0 && g != NULL);
    free(g);
    TEST_EXIT();
}
