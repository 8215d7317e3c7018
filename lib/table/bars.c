/* bars.c — bar-chart glyphs (see bars.h).
 *
 * Lengths are whole eighths of a cell, computed once (tp_bars_eighths,
 * tp_bars_stack_cells) so that what a test reads back from the glyphs is
 * the number the chart meant: a reader counts full blocks as 8 and a
 * partial block as its eighths. */
#include <math.h>
#include <string.h>
#include "bars.h"

/* U+2588 full block, then U+2589..U+258F: seven eighths down to one */
static const char *const LEFT_EIGHTHS[8] = {"", "\xe2\x96\x8f", "\xe2\x96\x8e", "\xe2\x96\x8d", "\xe2\x96\x8c",
                                            "\xe2\x96\x8b", "\xe2\x96\x8a", "\xe2\x96\x89"};
#define FULL_BLOCK "\xe2\x96\x88"
/* U+2581..U+2588: lower one eighth up to the full block */
static const char *const LOWER_EIGHTHS[9] = {" ", "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
                                             "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", FULL_BLOCK};

static void sgr_on(struct tp_sbuf *b, const char *sgr, int color)
{
    if (!color || !sgr)
        return;
    tp_sbuf_put(b, "\x1b[", 2);
    tp_sbuf_put(b, sgr, strlen(sgr));
    tp_sbuf_putc(b, 'm');
}

static void sgr_off(struct tp_sbuf *b, const char *sgr, int color)
{
    if (color && sgr)
        tp_sbuf_put(b, "\x1b[0m", 4);
}

int64_t tp_bars_eighths(double v, double vmax, size_t width)
{
    if (!(v > 0) || !(vmax > 0) || width == 0)
        return 0;
    double e = round(8.0 * (double)width * v / vmax);
    double top = 8.0 * (double)width;
    if (e > top)
        e = top;
    return e < 1 ? 1 : (int64_t)e;
}

void tp_bars_hbar(struct tp_sbuf *b, int64_t eighths, size_t width, const char *sgr, int color)
{
    if (eighths < 0)
        eighths = 0;
    if ((uint64_t)eighths > 8 * (uint64_t)width)
        eighths = (int64_t)(8 * width);
    size_t full = (size_t)(eighths / 8), part = (size_t)(eighths % 8), used = full + (part > 0);
    if (used) {
        sgr_on(b, sgr, color);
        for (size_t i = 0; i < full; i++)
            tp_sbuf_put(b, FULL_BLOCK, 3);
        if (part)
            tp_sbuf_put(b, LEFT_EIGHTHS[part], 3);
        sgr_off(b, sgr, color);
    }
    tp_sbuf_pad(b, ' ', width - used);
}

void tp_bars_stack_cells(const int64_t *v, size_t n, int64_t scale, size_t width, size_t *cells)
{
    double run = 0.0;
    size_t prev = 0;
    for (size_t k = 0; k < n; k++) {
        run += v[k] > 0 ? (double)v[k] : 0.0;
        double edge = scale > 0 ? round(run * (double)width / (double)scale) : 0.0;
        size_t e = edge > (double)width ? width : (size_t)edge;
        if (e < prev)
            e = prev;
        cells[k] = e - prev;
        prev = e;
    }
}

void tp_bars_stack(struct tp_sbuf *b, const int64_t *v, size_t n, int64_t scale, size_t width,
                   const struct tp_bar_glyph *g, int color)
{
    size_t used = 0, cells[16];
    if (n > sizeof cells / sizeof *cells)
        n = sizeof cells / sizeof *cells;
    tp_bars_stack_cells(v, n, scale, width, cells);
    for (size_t k = 0; k < n; k++) {
        if (!cells[k])
            continue;
        sgr_on(b, g[k].sgr, color);
        for (size_t i = 0; i < cells[k]; i++)
            tp_sbuf_put(b, g[k].glyph, strlen(g[k].glyph));
        sgr_off(b, g[k].sgr, color);
        used += cells[k];
    }
    tp_sbuf_pad(b, ' ', width - used);
}

void tp_bars_column_row(struct tp_sbuf *b, const int64_t *h, size_t n, int height, int row, const char *sgr,
                        int color)
{
    int64_t floor8 = 8 * (int64_t)(height - 1 - row);   /* eighths below this row */
    int on = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t in = h[i] - floor8;
        int lvl = in <= 0 ? 0 : in >= 8 ? 8 : (int)in;
        if (lvl && !on) {
            sgr_on(b, sgr, color);
            on = 1;
        } else if (!lvl && on) {
            sgr_off(b, sgr, color);
            on = 0;
        }
        tp_sbuf_put(b, LOWER_EIGHTHS[lvl], strlen(LOWER_EIGHTHS[lvl]));
    }
    if (on)
        sgr_off(b, sgr, color);
}
