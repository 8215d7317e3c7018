/* plot.c — step curves as braille text (see plot.h).
 *
 * Each character cell holds 2 x 4 dots, so a plot of C columns and H rows
 * has 2C x 4H dots.  A dot column covers an x interval; a series takes there
 * the largest value its step function has anywhere in that interval, so a
 * spike shorter than a dot column still shows.  Filled series set every dot
 * up to that value; line series set one dot and join it vertically to the
 * previous column. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plot.h"
#include "table.h"

/* lines are built in a tp_sbuf (write.c), ended with a NUL by add_line */

static void puts_(struct tp_sbuf *b, const char *s)
{
    tp_sbuf_put(b, s, strlen(s));
}

static void spaces(struct tp_sbuf *b, size_t n)
{
    while (n--)
        tp_sbuf_put(b, " ", 1);
}

static int add_line(struct tp_plot *out, struct tp_sbuf *b)
{
    tp_sbuf_putc(b, 0);
    if (b->oom)
        return -1;
    char **l = realloc(out->lines, (out->n + 1) * sizeof *l);
    if (!l)
        return -1;
    out->lines = l;
    out->lines[out->n++] = b->p;
    memset(b, 0, sizeof *b);
    return 0;
}

/* The dot bit of (dx, dy) in a braille cell, dy counted from the top. */
static unsigned dot_bit(int dx, int dy)
{
    static const unsigned bits[2][4] = {{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}};
    return bits[dx][dy];
}

int tp_plot_steps(const struct tp_plot_series *s, size_t ns, int64_t x0, int64_t x1, int64_t ymax,
                  int width, int height, tp_plot_fmt fmt_x, tp_plot_fmt fmt_y, struct tp_plot *out)
{
    memset(out, 0, sizeof *out);
    if (width < 20)
        width = 20;
    if (height < 2)
        height = 2;
    if (x1 <= x0)
        x1 = x0 + 1;
    if (ymax <= 0) {
        for (size_t k = 0; k < ns; k++)
            for (size_t i = 0; i < s[k].n; i++)
                if (s[k].y[i] > ymax)
                    ymax = s[k].y[i];
        if (ymax <= 0)
            ymax = 1;
    }
    /* y labels: top, middle, bottom */
    char ylab[3][48];
    fmt_y(ymax, ylab[0], sizeof ylab[0]);
    fmt_y(ymax / 2, ylab[1], sizeof ylab[1]);
    fmt_y(0, ylab[2], sizeof ylab[2]);
    size_t lw = 0;
    for (int i = 0; i < 3; i++)
        if (strlen(ylab[i]) > lw)
            lw = strlen(ylab[i]);
    int cols = width - (int)lw - 2;   /* label, space, axis */
    if (cols < 4)
        cols = 4;
    int pw = 2 * cols, ph = 4 * height;
    unsigned char *cell = calloc((size_t)cols * (size_t)height, 1);
    if (!cell)
        return -1;

    for (size_t k = 0; k < ns; k++) {
        const struct tp_plot_series *S = &s[k];
        size_t i = 0;        /* first point with x > column start */
        int prev = -1;       /* previous column's dot row (line series) */
        for (int p = 0; p < pw; p++) {
            double fa = (double)p / pw, fb = (double)(p + 1) / pw;
            int64_t xa = x0 + (int64_t)((double)(x1 - x0) * fa);
            int64_t xb = p + 1 == pw ? x1 + 1 : x0 + (int64_t)((double)(x1 - x0) * fb);
            while (i < S->n && S->x[i] <= xa)
                i++;
            int have = i > 0;
            int64_t v = have ? S->y[i - 1] : 0;
            for (size_t j = i; j < S->n && S->x[j] < xb; j++) {
                if (!have || S->y[j] > v)
                    v = S->y[j];
                have = 1;
            }
            if (!have) {
                prev = -1;
                continue;
            }
            if (v < 0)
                v = 0;
            if (!S->fill && v == 0) {   /* a line at zero is the axis: only draw the drop to it */
                if (prev > 0)
                    for (int d = 0; d <= prev; d++) {
                        int fromtop = ph - 1 - d;
                        cell[(size_t)(fromtop / 4) * (size_t)cols + (size_t)(p / 2)] |=
                            (unsigned char)dot_bit(p % 2, fromtop % 4);
                    }
                prev = 0;
                continue;
            }
            if (v > ymax)
                v = ymax;
            /* dots from the bottom: level 0 means none */
            int lvl = (int)((double)v * ph / (double)ymax + 0.5);
            if (v > 0 && lvl == 0)
                lvl = 1;
            int row = lvl > 0 ? lvl - 1 : 0;   /* the top dot, counted from the bottom */
            int lo = S->fill ? 0 : row, hi = S->fill ? lvl - 1 : row;
            if (!S->fill && prev >= 0) {   /* the step: a vertical run between the levels */
                lo = prev < row ? prev : row;
                hi = prev > row ? prev : row;
            }
            for (int d = lo; d <= hi; d++) {
                int fromtop = ph - 1 - d;
                cell[(size_t)(fromtop / 4) * (size_t)cols + (size_t)(p / 2)] |=
                    (unsigned char)dot_bit(p % 2, fromtop % 4);
            }
            prev = row;
        }
    }

    struct tp_sbuf b = {0};
    int rc = 0;
    for (int r = 0; r < height && rc == 0; r++) {
        const char *lab = r == 0 ? ylab[0] : r == height - 1 ? ylab[2] : r == height / 2 && height > 2 ? ylab[1] : "";
        spaces(&b, lw - strlen(lab));
        puts_(&b, lab);
        puts_(&b, *lab ? " \xe2\x94\xa4" : " \xe2\x94\x82");   /* ┤ or │ */
        for (int c = 0; c < cols; c++) {
            unsigned bits = cell[(size_t)r * (size_t)cols + (size_t)c];
            if (!bits) {
                tp_sbuf_put(&b, " ", 1);
                continue;
            }
            unsigned cp = 0x2800u + bits;
            char u[3] = {(char)(0xE0 | (cp >> 12)), (char)(0x80 | ((cp >> 6) & 0x3F)), (char)(0x80 | (cp & 0x3F))};
            tp_sbuf_put(&b, u, 3);
        }
        rc = add_line(out, &b);
    }
    if (rc == 0) {
        spaces(&b, lw + 1);
        puts_(&b, "\xe2\x94\x94");   /* └ */
        for (int c = 0; c < cols; c++)
            puts_(&b, "\xe2\x94\x80");   /* ─ */
        rc = add_line(out, &b);
    }
    if (rc == 0) {
        char xl[3][48];
        fmt_x(x0, xl[0], sizeof xl[0]);
        fmt_x(x0 + (x1 - x0) / 2, xl[1], sizeof xl[1]);
        fmt_x(x1, xl[2], sizeof xl[2]);
        size_t total = lw + 2 + (size_t)cols, a = strlen(xl[0]), m = strlen(xl[1]), z = strlen(xl[2]);
        size_t pos = lw + 1;
        spaces(&b, pos);
        puts_(&b, xl[0]);
        pos += a;
        size_t mid = lw + 2 + (size_t)cols / 2 - m / 2;
        if (mid > pos + 1 && mid + m + 1 < total - z) {
            spaces(&b, mid - pos);
            puts_(&b, xl[1]);
            pos = mid + m;
        }
        if (total > pos + z) {
            spaces(&b, total - pos - z);
            puts_(&b, xl[2]);
        }
        rc = add_line(out, &b);
    }
    free(b.p);
    free(cell);
    if (rc < 0)
        tp_plot_free(out);
    return rc;
}

void tp_plot_free(struct tp_plot *p)
{
    for (size_t i = 0; i < p->n; i++)
        free(p->lines[i]);
    free(p->lines);
    p->lines = NULL;
    p->n = 0;
}

void tp_plot_to_table(struct tp_plot *p, const char *head, tp_table *t, size_t col)
{
    tp_table_add_row(t);
    tp_table_set_str(t, col, head);
    for (size_t l = 0; l < p->n; l++) {
        tp_table_add_row(t);
        tp_table_set_str(t, col, p->lines[l]);
    }
    tp_plot_free(p);
}
