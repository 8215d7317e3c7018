/* bars_test.c — unit tests of the bar glyphs (bars.c): lengths in eighths
 * and their rounding, stacked segments that add up and stay within a cell
 * of their share, vertical bars row by row, colour only when asked. */
#include <stdlib.h>
#include <string.h>
#include "bars.h"
#include "testing.h"

/* the buffer emptied, for the next drawing */
static struct tp_sbuf *emptied(struct tp_sbuf *b)
{
    b->len = 0;
    return b;
}

/* the text of a buffer, NUL-terminated (the buffer keeps it) */
static const char *text(struct tp_sbuf *b)
{
    tp_sbuf_putc(b, 0);
    b->len--;
    return b->p ? b->p : "";
}

/* display cells: one per code point outside an SGR escape */
static size_t cells(const char *s)
{
    size_t w = 0;
    for (; *s; s++) {
        if (*s == '\x1b') {
            while (*s && *s != 'm')
                s++;
            if (!*s)
                break;
            continue;
        }
        if (((unsigned char)*s & 0xC0) != 0x80)
            w++;
    }
    return w;
}

/* eighths a horizontal bar shows: 8 per full block, the partial one's own */
static long eighths_of(const char *s)
{
    long e = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (p[0] == 0xE2 && p[1] == 0x96 && p[2] >= 0x88 && p[2] <= 0x8F) {
            e += p[2] == 0x88 ? 8 : 8 - (p[2] - 0x88);
            p += 2;
        }
    return e;
}

int main(void)
{
    /* lengths: the whole scale fills the width, rounding to the nearest eighth */
    CHECK_INT("eighths.full", tp_bars_eighths(10, 10, 20), 160);
    CHECK_INT("eighths.half", tp_bars_eighths(5, 10, 20), 80);
    CHECK_INT("eighths.round_up", tp_bars_eighths(1.0625, 10, 10), 9);   /* 8.5 -> 9 */
    CHECK_INT("eighths.round_down", tp_bars_eighths(1.05, 10, 10), 8);   /* 8.4 -> 8 */
    CHECK_INT("eighths.tiny_shows", tp_bars_eighths(1e-9, 10, 10), 1);
    CHECK_INT("eighths.zero", tp_bars_eighths(0, 10, 10), 0);
    CHECK_INT("eighths.negative", tp_bars_eighths(-3, 10, 10), 0);
    CHECK_INT("eighths.no_scale", tp_bars_eighths(3, 0, 10), 0);
    CHECK_INT("eighths.capped", tp_bars_eighths(30, 10, 10), 80);

    /* a horizontal bar: its eighths, padded to the width, colour only when asked */
    struct tp_sbuf b = {0};
    tp_bars_hbar(&b, 29, 6, "36", 0);
    CHECK_INT("hbar.eighths", eighths_of(text(&b)), 29);
    CHECK_INT("hbar.cells", cells(text(&b)), 6);
    CHECK("hbar.no_colour", !strchr(text(&b), '\x1b'));
    CHECK_STR("hbar.glyphs", text(&b), "\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x8b  ");
    tp_bars_hbar(emptied(&b), 29, 6, "36", 1);
    CHECK("hbar.colour", strncmp(text(&b), "\x1b[36m", 5) == 0 && strstr(text(&b), "\x1b[0m"));
    CHECK_INT("hbar.colour_cells", cells(text(&b)), 6);
    tp_bars_hbar(emptied(&b), 0, 4, "36", 1);
    CHECK_STR("hbar.empty", text(&b), "    ");
    tp_bars_hbar(emptied(&b), 1000, 3, NULL, 0);
    CHECK_INT("hbar.clipped", eighths_of(text(&b)), 24);

    /* stacked: boundaries from the running sum, so the cells add up to the
     * rounded whole and every segment is within a cell of its share */
    {
        int64_t v[] = {333, 333, 334, 0, -5, 1000};
        size_t c[6], sum = 0;
        tp_bars_stack_cells(v, 6, 2000, 10, c);
        for (int k = 0; k < 6; k++)
            sum += c[k];
        CHECK_INT("stack.sum", sum, 10);
        CHECK_INT("stack.zero", c[3], 0);
        CHECK_INT("stack.negative", c[4], 0);
        CHECK_INT("stack.half", c[5], 5);
        int near = 1;
        for (int k = 0; k < 6; k++) {
            double want = (v[k] > 0 ? (double)v[k] : 0) * 10 / 2000.0, d = (double)c[k] - want;
            near &= d > -1 && d < 1;
        }
        CHECK("stack.within_a_cell", near);
        tp_bars_stack_cells(v, 3, 2000, 10, c);
        CHECK_INT("stack.part", c[0] + c[1] + c[2], 5);
        int64_t big[] = {INT64_MAX / 4, INT64_MAX / 4};
        tp_bars_stack_cells(big, 2, INT64_MAX / 2, 100, c);
        CHECK("stack.large", c[0] + c[1] == 100);
    }
    {
        static const struct tp_bar_glyph g[] = {{"#", "32"}, {"=", "34"}, {".", NULL}};
        int64_t v[] = {50, 25, 25};
        tp_bars_stack(emptied(&b), v, 3, 200, 8, g, 0);
        CHECK_STR("stack.draw", text(&b), "##=.    ");
        tp_bars_stack(emptied(&b), v, 3, 200, 8, g, 1);
        CHECK_STR("stack.draw_colour", text(&b), "\x1b[32m##\x1b[0m\x1b[34m=\x1b[0m.    ");
    }

    /* vertical bars: 2 rows, heights 0, 3, 8, 11, 16 eighths */
    {
        int64_t h[] = {0, 3, 8, 11, 16};
        tp_bars_column_row(emptied(&b), h, 5, 2, 0, NULL, 0);
        CHECK_STR("column.top", text(&b), "   \xe2\x96\x83\xe2\x96\x88");
        tp_bars_column_row(emptied(&b), h, 5, 2, 1, NULL, 0);
        CHECK_STR("column.bottom", text(&b), " \xe2\x96\x83\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88");
        tp_bars_column_row(emptied(&b), h, 5, 2, 1, "32", 1);
        CHECK_STR("column.colour", text(&b), " \x1b[32m\xe2\x96\x83\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\x1b[0m");
    }
    tp_sbuf_free(&b);
    TEST_EXIT();
}
