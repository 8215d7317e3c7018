/* plot_test.c — unit tests of the braille step plot (plot.c): size of the
 * drawing, where dots land for known curves, labels, degenerate input. */
#include <stdlib.h>
#include <string.h>
#include "plot.h"
#include "testing.h"

static void fmt_int(int64_t v, char *buf, size_t cap)
{
    snprintf(buf, cap, "%lld", (long long)v);
}

/* display width: one per code point */
static size_t width(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    return w;
}

/* the braille bits of the cell at display column c of a line ("" if not braille) */
static int cell_bits(const char *line, size_t col)
{
    size_t w = 0;
    for (const unsigned char *p = (const unsigned char *)line; *p; p++) {
        if ((*p & 0xC0) == 0x80)
            continue;
        if (w++ == col) {
            if (p[0] == 0xE2 && (p[1] & 0xFC) == 0xA0)
                return ((p[1] & 0x03) << 6) | (p[2] & 0x3F);
            return *p == ' ' ? 0 : -1;
        }
    }
    return -1;
}

int main(void)
{
    struct tp_plot pl;
    /* a constant filled at the maximum: every cell full */
    int64_t x[] = {0, 100}, y[] = {10, 10};
    struct tp_plot_series s = {x, y, 2, 1};
    CHECK_INT("plot/const/rc", tp_plot_steps(&s, 1, 0, 100, 10, 40, 4, fmt_int, fmt_int, &pl), 0);
    CHECK_INT("plot/const/lines", pl.n, 4 + 2);   /* rows + axis + labels */
    int ok = 1;
    for (size_t i = 0; i < pl.n; i++)
        ok &= width(pl.lines[i]) <= 40;
    CHECK("plot/const/width", ok);
    /* label column: "10 ┤" on the top row, "0 ┤" on the bottom */
    CHECK("plot/const/top-label", strncmp(pl.lines[0], "10 \xe2\x94\xa4", 6) == 0);
    CHECK("plot/const/bottom-label", strncmp(pl.lines[3], " 0 \xe2\x94\xa4", 6) == 0);
    int full = 1;
    for (size_t r = 0; r < 4; r++)
        for (size_t c = 4; c < 40 - 1; c++)
            full &= cell_bits(pl.lines[r], c) == 0xFF;
    CHECK("plot/const/full", full);
    CHECK("plot/const/x-labels", strstr(pl.lines[5], "0") && strstr(pl.lines[5], "100"));
    tp_plot_free(&pl);

    /* a step from 0 to the max half way: left half empty, right half full */
    int64_t x2[] = {0, 50}, y2[] = {0, 8};
    struct tp_plot_series s2 = {x2, y2, 2, 1};
    CHECK_INT("plot/step/rc", tp_plot_steps(&s2, 1, 0, 100, 8, 24, 2, fmt_int, fmt_int, &pl), 0);
    /* labels "8", "0": 1 wide + " ┤" = 3 columns; 21 cells of plot */
    CHECK_INT("plot/step/left-empty", cell_bits(pl.lines[0], 3), 0);
    CHECK_INT("plot/step/left-empty-bottom", cell_bits(pl.lines[1], 3), 0);
    CHECK_INT("plot/step/right-full", cell_bits(pl.lines[0], 3 + 20), 0xFF);
    CHECK_INT("plot/step/right-full-bottom", cell_bits(pl.lines[1], 3 + 20), 0xFF);
    tp_plot_free(&pl);

    /* a line series at half height sets one dot row per column, not the area */
    int64_t x3[] = {0}, y3[] = {4};
    struct tp_plot_series s3 = {x3, y3, 1, 0};
    CHECK_INT("plot/line/rc", tp_plot_steps(&s3, 1, 0, 100, 8, 24, 2, fmt_int, fmt_int, &pl), 0);
    /* 8 dot rows; value 4 -> dot row 3 from the bottom: the top row of the bottom cell */
    CHECK_INT("plot/line/top-cell-empty", cell_bits(pl.lines[0], 10), 0);
    CHECK_INT("plot/line/one-dot-row", cell_bits(pl.lines[1], 10), 0x01 | 0x08);
    tp_plot_free(&pl);

    /* a spike shorter than a dot column still shows */
    int64_t x4[] = {0, 500, 501}, y4[] = {0, 100, 0};
    struct tp_plot_series s4 = {x4, y4, 3, 1};
    CHECK_INT("plot/spike/rc", tp_plot_steps(&s4, 1, 0, 100000, 0, 30, 2, fmt_int, fmt_int, &pl), 0);
    int seen = 0;
    for (size_t c = 0; c < 30; c++)
        seen |= cell_bits(pl.lines[0], c) > 0;
    CHECK("plot/spike/visible", seen);
    tp_plot_free(&pl);

    /* degenerate input: no points, empty x range, tiny sizes */
    struct tp_plot_series s5 = {NULL, NULL, 0, 1};
    CHECK_INT("plot/empty/rc", tp_plot_steps(&s5, 1, 5, 5, 0, 1, 0, fmt_int, fmt_int, &pl), 0);
    CHECK_INT("plot/empty/lines", pl.n, 2 + 2);
    tp_plot_free(&pl);
    TEST_EXIT();
}
