/* plot.h — step curves drawn as text for a terminal (internal to libtprof).
 *
 * A plot is a grid of Unicode braille cells (2 x 4 dots each) with a y axis
 * of labels on the left and an x axis of labels below.  The library only
 * returns lines of UTF-8 text; whoever prints them decides where they go
 * (the memory view puts them in a one-column table). */
#ifndef TPROF_PLOT_H
#define TPROF_PLOT_H

#include <stddef.h>
#include <stdint.h>

/* One series: points (x[i], y[i]) with x ascending; the curve holds y[i]
 * from x[i] until the next point (a step function).  `fill` draws the area
 * under the curve, else only the curve itself. */
struct tp_plot_series {
    const int64_t *x, *y;
    size_t n;
    int fill;
};

/* Label formatters: write the text of v into buf (cap bytes). */
typedef void (*tp_plot_fmt)(int64_t v, char *buf, size_t cap);

struct tp_plot {
    char **lines;            /* NUL-terminated UTF-8, no newline */
    size_t n;
};

/* Draw the series over x in [x0, x1] and y in [0, ymax] (ymax <= 0: the
 * largest y) within `width` display columns (labels included, at least 20)
 * and `height` rows of dots (at least 2).  0, or -1 on out of memory. */
int tp_plot_steps(const struct tp_plot_series *s, size_t ns, int64_t x0, int64_t x1, int64_t ymax,
                  int width, int height, tp_plot_fmt fmt_x, tp_plot_fmt fmt_y, struct tp_plot *out);

void tp_plot_free(struct tp_plot *p);

/* Where the views put a plot: rows of the one-column table t (column col),
 * head first, then each line; p is freed. */
struct tp_table;
void tp_plot_to_table(struct tp_plot *p, const char *head, struct tp_table *t, size_t col);

#endif
