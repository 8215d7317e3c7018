/* bars.h — bar charts drawn as text for a terminal (internal to libtprof).
 *
 * The pieces a chart is made of, each appended to a line buffer: a
 * horizontal bar in eighths of a cell (share of time per kernel or
 * operator), a stacked bar whose segments each have their own glyph (a
 * step's time by role), and a panel of vertical bars in eighths of a row
 * (utilization per interval).  plot.c draws curves; write_chart.c lays the
 * pieces out from a table.  Colour is an SGR sequence around a run of
 * glyphs, only when the caller asks (a terminal without NO_COLOR); the
 * glyphs alone tell the segments apart. */
#ifndef TPROF_BARS_H
#define TPROF_BARS_H

#include <stddef.h>
#include <stdint.h>
#include "table.h"

/* A segment's look: its glyph (one UTF-8 character one cell wide) and
 * colour (an SGR parameter such as "32"; NULL: none). */
struct tp_bar_glyph {
    const char *glyph;
    const char *sgr;
};

/* The length in eighths of a cell of a bar for v on a scale where vmax
 * fills `width` cells: round(8 * width * v / vmax), at least 1 for v > 0,
 * never past 8 * width; 0 for v <= 0 or vmax <= 0. */
int64_t tp_bars_eighths(double v, double vmax, size_t width);

/* Append a bar of `eighths` eighths (full blocks, then one of ▏▎▍▌▋▊▉),
 * padded with spaces to `width` cells; coloured with sgr when color. */
void tp_bars_hbar(struct tp_sbuf *b, int64_t eighths, size_t width, const char *sgr, int color);

/* The cells of each segment of a stacked bar: the segments v[0..n)
 * (negative ones count as 0) laid end to end on a scale where `scale`
 * fills `width` cells, each boundary rounded from the running sum, so the
 * segments add up to the rounded whole and none is off by a cell or more.
 * cells[k] receives segment k's length. */
void tp_bars_stack_cells(const int64_t *v, size_t n, int64_t scale, size_t width, size_t *cells);

/* Append the stacked bar of tp_bars_stack_cells, segment k in g[k],
 * padded with spaces to `width` cells. */
void tp_bars_stack(struct tp_sbuf *b, const int64_t *v, size_t n, int64_t scale, size_t width,
                   const struct tp_bar_glyph *g, int color);

/* Row `row` (0 the top) of a panel of vertical bars `height` rows high:
 * bar i is h[i] eighths of a row tall (0..8 * height), one cell wide,
 * drawn with ▁▂▃▄▅▆▇█; a cell above a bar is a space. */
void tp_bars_column_row(struct tp_sbuf *b, const int64_t *h, size_t n, int height, int row, const char *sgr,
                        int color);

#endif
