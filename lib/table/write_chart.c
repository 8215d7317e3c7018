/* write_chart.c — --plot: a table drawn as a chart (tp_table_set_chart) in
 * place of the -w table, within the width the table would have had.
 *
 * Every line keeps one column of W free, as the memory curve does (a line
 * exactly as wide as the terminal wraps on some).  A row's label is its
 * name shortened to fit (tp_disp_put_fit); after the bar come the numbers
 * the bar stands for, printed as the table prints them, so that a reader
 * (or scripts/golden/plot.sh) can hold one against the other. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bars.h"
#include "table.h"

#define SHARE_SGR "36"     /* cyan */
#define SERIES_SGR "32"    /* green */
#define SERIES_ROWS 4      /* rows of a utilization panel: 32 levels */
#define MIN_BAR 8          /* a label shrinks before a bar gets narrower than this */

/* The segments of a stacked bar, in order: a glyph each, told apart without colour. */
static const struct tp_bar_glyph PALETTE[] = {
    {"\xe2\x96\x88", "32"},   /* █ green */
    {"\xe2\x96\x93", "34"},   /* ▓ blue */
    {"\xe2\x96\x92", "36"},   /* ▒ cyan */
    {"\xe2\x96\x9a", "35"},   /* ▚ magenta */
    {"\xe2\x96\x9e", "33"},   /* ▞ yellow */
    {"\xe2\x96\x84", "31"},   /* ▄ red */
    {"\xe2\x96\x91", "37"},   /* ░ white */
    {"\xc2\xb7", "2"},        /* · dim */
};
#define NPALETTE (sizeof PALETTE / sizeof *PALETTE)

static long col_of(const struct tp_wctx *w, const char *key)
{
    return key ? tp_table_col_find(w->cols, tp_table_cols(w->t), key) : -1;
}

/* ns in the --timeunit unit, with the unit: "1234.5 us" */
static void time_text(const struct tp_wctx *w, int64_t ns, char *buf, size_t cap)
{
    static const char *const names[] = {"us", "ns", "us", "ms", "s"};
    int u = w->o->timeunit >= TP_UNIT_NS && w->o->timeunit <= TP_UNIT_S ? w->o->timeunit : TP_UNIT_US;
    size_t n = tp_fmt_time(ns, u, buf, cap);
    if (n + 1 < cap)
        snprintf(buf + n, cap - n, " %s", names[u]);
}

/* A value cell as the table prints it; a time column with its unit. */
static void value_text(const struct tp_wctx *w, size_t row, size_t c, char *buf, size_t cap)
{
    if (w->cols[c].type == TP_COL_US && tp_table_cell_kind(w->t, row, c) == TP_CELL_INT) {
        time_text(w, tp_table_cell_int(w->t, row, c), buf, cap);
        return;
    }
    char tmp[TP_CELLBUF];
    size_t len;
    const char *s = tp_cell_text(w->t, row, c, tmp, sizeof tmp, &len);
    snprintf(buf, cap, "%.*s", (int)len, s);
}

/* The label of a row: "rank R " in a run's table (tp_rank_table), "name "
 * when given, its label column, then label2 (when the chart has one). */
static void label_named(const struct tp_wctx *w, size_t row, const char *name, long c1, long c2, struct tp_sbuf *b)
{
    char tmp[TP_CELLBUF];
    size_t len;
    long rk = col_of(w, "rank");
    b->len = 0;
    if (rk >= 0 && rk != c1) {
        const char *s = tp_cell_text(w->t, row, (size_t)rk, tmp, sizeof tmp, &len);
        tp_sbuf_put(b, "rank ", 5);
        tp_sbuf_put(b, s, len);
        tp_sbuf_putc(b, ' ');
    }
    if (name) {
        tp_sbuf_put(b, name, strlen(name));
        tp_sbuf_putc(b, ' ');
    }
    if (c1 >= 0) {
        const char *s = tp_cell_text(w->t, row, (size_t)c1, tmp, sizeof tmp, &len);
        tp_sbuf_put(b, s, len);
    }
    if (c2 >= 0 && tp_table_cell_kind(w->t, row, (size_t)c2) != TP_CELL_NULL) {
        const char *s = tp_cell_text(w->t, row, (size_t)c2, tmp, sizeof tmp, &len);
        tp_sbuf_putc(b, ' ');
        tp_sbuf_put(b, s, len);
    }
}

static void label_text(const struct tp_wctx *w, size_t row, long c1, long c2, struct tp_sbuf *b)
{
    label_named(w, row, NULL, c1, c2, b);
}

/* A bar's row up to its bar: the label fitted to lw cells, then " │". */
static void row_start(const struct tp_wctx *w, size_t row, long c1, long c2, size_t lw, struct tp_sbuf *lab,
                      struct tp_sbuf *line)
{
    label_text(w, row, c1, c2, lab);
    tp_disp_put_fit(line, lab->p ? lab->p : "", lab->len, lw, 1);
    tp_sbuf_put(line, " \xe2\x94\x82", 4);   /* │ */
}

/* s right-aligned in w cells (s is ASCII: a number and its unit) */
static void put_right(struct tp_sbuf *b, const char *s, size_t w)
{
    size_t n = strlen(s);
    tp_sbuf_pad(b, ' ', w > n ? w - n : 0);
    tp_sbuf_put(b, s, n);
}

/* A column's header as the table would print it (its unit under --timeunit). */
static const char *header_of(const struct tp_wctx *w, size_t c, char *buf, size_t cap)
{
    struct tp_wctx one = *w;
    one.sel = &c;
    one.nsel = 1;
    const char *h = tp_wctx_header(&one, 0, buf, cap);
    if (h != buf)
        snprintf(buf, cap, "%s", h);
    return buf;
}

static double cell_num(const tp_table *t, size_t row, size_t c)
{
    return tp_table_cell_kind(t, row, c) == TP_CELL_INT ? (double)tp_table_cell_int(t, row, c)
                                                        : tp_table_cell_float(t, row, c);
}

/* Put a whole line (text fitted to `room` cells) and write it. */
static int put_line(const struct tp_wctx *w, struct tp_sbuf *line)
{
    tp_sbuf_putc(line, '\n');
    return tp_write_line(w, line);
}

/* A bar's row ends with its last cell, right-aligned in width: the line
 * written. */
static int end_row(const struct tp_wctx *w, struct tp_sbuf *line, const char *last, size_t width)
{
    put_right(line, last, width);
    return put_line(w, line);
}

static int caption(const struct tp_wctx *w, struct tp_sbuf *line, const char *text, size_t room)
{
    tp_disp_put_fit(line, text, strlen(text), room, 0);
    return put_line(w, line);
}

static int too_narrow(const struct tp_wctx *w, size_t need)
{
    return tp_error_set(w->err, TP_ERR_USAGE, "--plot: width %d is too narrow for this chart (it needs %zu)",
                        w->o->width, need + 1);
}

/* A row's label into lab, and the widest so far in *widest. */
static void widen_label(const struct tp_wctx *w, size_t row, long c1, long c2, struct tp_sbuf *lab, size_t *widest)
{
    label_text(w, row, c1, c2, lab);
    size_t n = tp_disp_width(lab->p ? lab->p : "", lab->len);
    if (n > *widest)
        *widest = n;
}

/* The label's and the bar's width in a line of `room` cells that has
 * `fixed` cells besides: the widest label, at most a third of the line (8
 * at least), narrower still when the bar would fall under MIN_BAR; too
 * narrow when not even a 1-cell label leaves a bar. */
static int layout(const struct tp_wctx *w, size_t widest, size_t room, size_t fixed, size_t *lw, size_t *bw)
{
    size_t l = widest, cap = room / 3 > 8 ? room / 3 : 8;
    if (l > cap)
        l = cap;
    if (l + fixed + MIN_BAR > room)
        l = room > fixed + MIN_BAR ? room - fixed - MIN_BAR : 1;
    if (l + fixed + 1 > room)
        return too_narrow(w, fixed + 2);
    *lw = l;
    *bw = room - l - fixed;
    return TP_OK;
}

/* ---- one bar per row, to scale of the largest ---- */

static int share(const struct tp_wctx *w, const struct tp_chart *ch, size_t room)
{
    long c1 = col_of(w, ch->label), c2 = col_of(w, ch->label2), vc = -1;
    size_t all = tp_table_rows(w->t);
    /* the column: --sort's first key when the chart may draw it */
    if (w->o->sort) {
        const char *k = w->o->sort + (w->o->sort[0] == '-' || w->o->sort[0] == '+');
        size_t kl = strcspn(k, ",");
        for (size_t i = 0; i < ch->nvalues && vc < 0; i++)
            if (strlen(ch->values[i]) == kl && strncmp(ch->values[i], k, kl) == 0)
                vc = col_of(w, ch->values[i]);
    }
    for (size_t i = 0; i < ch->nvalues && vc < 0; i++) {
        long c = col_of(w, ch->values[i]);
        for (size_t r = 0; r < all && c >= 0 && vc < 0; r++)
            if (cell_num(w->t, r, (size_t)c) != 0)
                vc = c;
    }
    if (vc < 0 && ch->nvalues)
        vc = col_of(w, ch->values[0]);
    if (vc < 0)
        return tp_error_set(w->err, TP_ERR_USAGE, "--plot: the table has no column to draw");
    int time = w->cols[vc].type == TP_COL_US;
    int64_t isum = 0;
    double sum = 0, vmax = 0;
    for (size_t r = 0; r < all; r++) {
        if (time)
            isum += tp_table_cell_int(w->t, r, (size_t)vc);
        else
            sum += cell_num(w->t, r, (size_t)vc);
    }
    if (time)
        sum = (double)isum;
    size_t widest = 0, vw = 0, pw = 0;
    struct tp_sbuf lab = {0}, line = {0};
    char v[TP_CELLBUF], p[64];
    for (size_t i = 0; i < w->nrows; i++) {
        size_t r = tp_wctx_row(w, i);
        double x = cell_num(w->t, r, (size_t)vc);
        if (x > vmax)
            vmax = x;
        widen_label(w, r, c1, c2, &lab, &widest);
        value_text(w, r, (size_t)vc, v, sizeof v);
        vw = strlen(v) > vw ? strlen(v) : vw;
        snprintf(p, sizeof p, "%.2f%%", sum > 0 ? 100.0 * x / sum : 0.0);
        pw = strlen(p) > pw ? strlen(p) : pw;
    }
    size_t fixed = 2 + 1 + vw + 2 + pw;   /* " │", bar, " value", "  pct" */
    size_t lw, bw;
    int rc = layout(w, widest, room, fixed, &lw, &bw);
    if (rc != TP_OK)
        goto done;
    if (w->o->header) {
        char head[128], tot[64], text[512];
        if (time)
            time_text(w, isum, tot, sizeof tot);
        else
            snprintf(tot, sizeof tot, "%g", sum);
        snprintf(text, sizeof text, "%s: bars to scale of the largest; %% of %s (%zu rows)",
                 header_of(w, (size_t)vc, head, sizeof head), tot, all);
        rc = caption(w, &line, text, room);
    }
    for (size_t i = 0; i < w->nrows && rc == TP_OK; i++) {
        size_t r = tp_wctx_row(w, i);
        double x = cell_num(w->t, r, (size_t)vc);
        row_start(w, r, c1, c2, lw, &lab, &line);
        tp_bars_hbar(&line, tp_bars_eighths(x, vmax, bw), bw, SHARE_SGR, w->o->color);
        value_text(w, r, (size_t)vc, v, sizeof v);
        snprintf(p, sizeof p, "%.2f%%", sum > 0 ? 100.0 * x / sum : 0.0);
        put_right(&line, v, 1 + vw);
        rc = end_row(w, &line, p, 2 + pw);
    }
done:
    tp_sbuf_free(&lab);
    tp_sbuf_free(&line);
    return rc;
}

/* ---- one stacked bar per row ---- */

/* The whole after a stacked bar: the total column, else the parts' sum. */
static void whole_text(const struct tp_wctx *w, size_t row, long tc, const long *seg, size_t n, char *buf,
                       size_t cap)
{
    if (tc >= 0) {
        value_text(w, row, (size_t)tc, buf, cap);
        return;
    }
    int64_t sum = 0;
    for (size_t k = 0; k < n; k++)
        sum += tp_table_cell_int(w->t, row, (size_t)seg[k]);
    time_text(w, sum, buf, cap);
}

static int stack(const struct tp_wctx *w, const struct tp_chart *ch, size_t room)
{
    long c1 = col_of(w, ch->label), tc = col_of(w, ch->total), seg[16];
    size_t n = ch->nvalues < 16 ? ch->nvalues : 16;
    if (n > NPALETTE)
        n = NPALETTE;
    for (size_t k = 0; k < n; k++)
        if ((seg[k] = col_of(w, ch->values[k])) < 0)
            return tp_error_set(w->err, TP_ERR_USAGE, "--plot: no column %s", ch->values[k]);
    if (tc < 0 && ch->total)   /* no total column: the parts' sum is the whole */
        return tp_error_set(w->err, TP_ERR_USAGE, "--plot: no column %s", ch->total);
    size_t widest = 0, vw = 0;
    int64_t scale = 0;
    struct tp_sbuf lab = {0}, line = {0};
    char v[TP_CELLBUF];
    for (size_t i = 0; i < w->nrows; i++) {
        size_t r = tp_wctx_row(w, i);
        int64_t whole = tc >= 0 ? tp_table_cell_int(w->t, r, (size_t)tc) : 0, parts = 0;
        for (size_t k = 0; k < n; k++) {
            int64_t x = tp_table_cell_int(w->t, r, (size_t)seg[k]);
            parts += x > 0 ? x : 0;
        }
        if (whole > scale) scale = whole;
        if (parts > scale) scale = parts;
        widen_label(w, r, c1, -1, &lab, &widest);
        whole_text(w, r, tc, seg, n, v, sizeof v);
        vw = strlen(v) > vw ? strlen(v) : vw;
    }
    size_t fixed = 2 + 1 + vw;
    size_t lw, bw;
    int rc = layout(w, widest, room, fixed, &lw, &bw);
    if (rc != TP_OK)
        goto done;
    /* the legend, wrapped within the line: "█ Kernel  ▓ Memcpy ..." */
    size_t used = 0;
    for (size_t k = 0; k < n && rc == TP_OK; k++) {
        char head[128];
        header_of(w, (size_t)seg[k], head, sizeof head);
        size_t hl = strcspn(head, "(");   /* "Kernel(us)": the unit is the total's */
        size_t item = 2 + hl + (used ? 2 : 0);
        if (used && used + item > room) {
            rc = put_line(w, &line);
            used = 0;
            item -= 2;
        }
        if (used)
            tp_sbuf_put(&line, "  ", 2);
        if (w->o->color) {
            tp_sbuf_put(&line, "\x1b[", 2);
            tp_sbuf_put(&line, PALETTE[k].sgr, strlen(PALETTE[k].sgr));
            tp_sbuf_putc(&line, 'm');
        }
        tp_sbuf_put(&line, PALETTE[k].glyph, strlen(PALETTE[k].glyph));
        if (w->o->color)
            tp_sbuf_put(&line, "\x1b[0m", 4);
        tp_sbuf_putc(&line, ' ');
        tp_disp_put_fit(&line, head, hl, room > 2 ? room - 2 : 1, 0);
        used += item;
    }
    if (rc == TP_OK && used)
        rc = put_line(w, &line);
    for (size_t i = 0; i < w->nrows && rc == TP_OK; i++) {
        size_t r = tp_wctx_row(w, i);
        int64_t x[16];
        for (size_t k = 0; k < n; k++)
            x[k] = tp_table_cell_int(w->t, r, (size_t)seg[k]);
        row_start(w, r, c1, -1, lw, &lab, &line);
        tp_bars_stack(&line, x, n, scale, bw, PALETTE, w->o->color);
        whole_text(w, r, tc, seg, n, v, sizeof v);
        rc = end_row(w, &line, v, 1 + vw);
    }
done:
    tp_sbuf_free(&lab);
    tp_sbuf_free(&line);
    return rc;
}

/* ---- vertical bars along time, per label ---- */

/* One group of rows g[0..n) (print order): a caption, then panels of at
 * most `cols` bars, each SERIES_ROWS high with a % axis and the panel's
 * start and end below. */
static int series_group(const struct tp_wctx *w, const struct tp_chart *ch, const size_t *g, size_t n, size_t room,
                        struct tp_sbuf *line)
{
    long c1 = col_of(w, ch->label), vc = col_of(w, ch->values[0]), tc = col_of(w, ch->total),
         x0 = col_of(w, ch->x0), x1 = col_of(w, ch->x1);
    const size_t axis = 6;   /* " 100% ┤" is 7 cells: "100% " then the tick */
    int rc = TP_OK;
    if (room < axis + 2)
        return too_narrow(w, axis + 2);
    size_t cols = room - axis - 1;
    if (w->o->header) {
        int64_t busy = 0, span = 0;
        for (size_t i = 0; i < n; i++) {
            busy += tc >= 0 ? tp_table_cell_int(w->t, g[i], (size_t)tc) : 0;
            span += tp_table_cell_int(w->t, g[i], (size_t)x1) - tp_table_cell_int(w->t, g[i], (size_t)x0);
        }
        char b[64], s[64], text[512];
        struct tp_sbuf lab = {0};
        label_named(w, g[0], ch->label, c1, -1, &lab);
        time_text(w, busy, b, sizeof b);
        time_text(w, span, s, sizeof s);
        snprintf(text, sizeof text, "%.*s: busy %s of %s (%.2f%%)", (int)lab.len, lab.p ? lab.p : "", b, s,
                 span > 0 ? 100.0 * (double)busy / (double)span : 0.0);
        tp_sbuf_free(&lab);
        rc = caption(w, line, text, room);
    }
    int64_t *h = malloc((cols ? cols : 1) * sizeof *h);
    if (!h)
        return tp_error_set(w->err, TP_ERR_NOMEM, "out of memory");
    size_t panels = (n + cols - 1) / cols, per = (n + panels - 1) / panels;   /* even panels */
    for (size_t p = 0; p < n && rc == TP_OK; p += per) {
        size_t m = n - p < per ? n - p : per;
        for (size_t i = 0; i < m; i++)
            h[i] = tp_bars_eighths(cell_num(w->t, g[p + i], (size_t)vc), 100.0, SERIES_ROWS);
        for (int r = 0; r < SERIES_ROWS && rc == TP_OK; r++) {
            const char *ax = r == 0 ? "100% \xe2\x94\xa4" : r == SERIES_ROWS - 1 ? "  0% \xe2\x94\xa4" : "     \xe2\x94\x82";
            tp_sbuf_put(line, ax, strlen(ax));
            tp_bars_column_row(line, h, m, SERIES_ROWS, r, SERIES_SGR, w->o->color);
            rc = put_line(w, line);
        }
        char a[64], z[64];
        time_text(w, tp_table_cell_int(w->t, g[p], (size_t)x0), a, sizeof a);
        time_text(w, tp_table_cell_int(w->t, g[p + m - 1], (size_t)x1), z, sizeof z);
        size_t al = strlen(a), zl = strlen(z), end = axis + m;   /* under the panel's last bar */
        tp_sbuf_pad(line, ' ', axis);
        tp_sbuf_put(line, a, al);
        if (end < axis + al + 1 + zl)
            end = axis + al + 1 + zl;
        if (end <= room) {
            tp_sbuf_pad(line, ' ', end - axis - al - zl);
            tp_sbuf_put(line, z, zl);
        }
        if (rc == TP_OK)
            rc = put_line(w, line);
    }
    free(h);
    return rc;
}

static int series(const struct tp_wctx *w, const struct tp_chart *ch, size_t room)
{
    long c1 = col_of(w, ch->label);
    if (!ch->nvalues || col_of(w, ch->values[0]) < 0 || col_of(w, ch->x0) < 0 || col_of(w, ch->x1) < 0)
        return tp_error_set(w->err, TP_ERR_USAGE, "--plot: the table lacks the series' columns");
    size_t *g = malloc((w->nrows ? w->nrows : 1) * sizeof *g);
    if (!g)
        return tp_error_set(w->err, TP_ERR_NOMEM, "out of memory");
    struct tp_sbuf line = {0}, first = {0}, lab = {0};
    int rc = TP_OK;
    for (size_t i = 0, j; i < w->nrows && rc == TP_OK; i = j) {
        size_t n = 0;
        g[n++] = tp_wctx_row(w, i);
        label_text(w, g[0], c1, -1, &first);
        for (j = i + 1; j < w->nrows; j++) {   /* a group: the rows of one label (rank and device) */
            size_t r = tp_wctx_row(w, j);
            label_text(w, r, c1, -1, &lab);
            if (lab.len != first.len || (lab.len && memcmp(lab.p, first.p, lab.len) != 0))
                break;
            g[n++] = r;
        }
        rc = first.oom || lab.oom ? tp_error_set(w->err, TP_ERR_NOMEM, "out of memory")
                                  : series_group(w, ch, g, n, room, &line);
    }
    tp_sbuf_free(&line);
    tp_sbuf_free(&first);
    tp_sbuf_free(&lab);
    free(g);
    return rc;
}

/* ---- a waterfall of changes ---- */

#define UP_SGR "31"     /* red: time added */
#define DOWN_SGR "32"   /* green: time saved */

/* Where row r's bar starts and ends (see TP_CHART_WATERFALL). */
struct wf_span {
    double a, b;
};

static int wf_is_total(const struct tp_wctx *w, const struct tp_chart *ch, size_t r, long c1)
{
    char tmp[TP_CELLBUF];
    size_t len;
    if (!ch->total || c1 < 0)
        return 0;
    const char *s = tp_cell_text(w->t, r, (size_t)c1, tmp, sizeof tmp, &len);
    return len == strlen(ch->total) && memcmp(s, ch->total, len) == 0;
}

/* cell of value v on [lo, hi] drawn over bw cells */
static size_t wf_cell(double v, double lo, double hi, size_t bw)
{
    double x = hi > lo ? (v - lo) / (hi - lo) * (double)bw : 0;
    size_t c = x <= 0 ? 0 : (size_t)(x + 0.5);
    return c > bw ? bw : c;
}

static int waterfall(const struct tp_wctx *w, const struct tp_chart *ch, size_t room)
{
    long c1 = col_of(w, ch->label), c2 = col_of(w, ch->label2), vc = ch->nvalues ? col_of(w, ch->values[0]) : -1;
    if (vc < 0)
        return tp_error_set(w->err, TP_ERR_USAGE, "--plot: the table has no column to draw");
    struct wf_span *sp = malloc((w->nrows ? w->nrows : 1) * sizeof *sp);
    if (!sp)
        return tp_error_set(w->err, TP_ERR_NOMEM, "out of memory");
    double run = 0, sub = 0, lo = 0, hi = 0;
    size_t widest = 0, vw = 0;
    struct tp_sbuf lab = {0}, line = {0};
    char v[TP_CELLBUF];
    for (size_t i = 0; i < w->nrows; i++) {
        size_t r = tp_wctx_row(w, i);
        double d = tp_table_cell_kind(w->t, r, (size_t)vc) == TP_CELL_NULL ? 0 : cell_num(w->t, r, (size_t)vc);
        if (wf_is_total(w, ch, r, c1)) {
            sp[i] = (struct wf_span){0, d};
        } else if (c2 >= 0 && tp_table_cell_kind(w->t, r, (size_t)c2) != TP_CELL_NULL) {
            sp[i] = (struct wf_span){sub, sub + d};   /* a part of the step above */
            sub += d;
        } else {
            sp[i] = (struct wf_span){run, run + d};
            sub = run;
            run += d;
        }
        lo = fmin(lo, fmin(sp[i].a, sp[i].b));
        hi = fmax(hi, fmax(sp[i].a, sp[i].b));
        widen_label(w, r, c1, c2, &lab, &widest);
        value_text(w, r, (size_t)vc, v, sizeof v);
        vw = strlen(v) > vw ? strlen(v) : vw;
    }
    size_t fixed = 2 + 1 + vw;   /* " │", bar, " value" */
    size_t lw, bw;
    int rc = layout(w, widest, room, fixed, &lw, &bw);
    if (rc == TP_OK && w->o->header) {
        char head[128], text[512];
        snprintf(text, sizeof text, "%s as a waterfall: \xe2\x96\x88 adds time, \xe2\x96\x91 saves it, "
                 "\xe2\x94\x86 is zero",
                 header_of(w, (size_t)vc, head, sizeof head));
        rc = caption(w, &line, text, room);
    }
    size_t zero = wf_cell(0, lo, hi, bw);
    if (zero >= bw && bw > 0)
        zero = bw - 1;
    for (size_t i = 0; i < w->nrows && rc == TP_OK; i++) {
        size_t r = tp_wctx_row(w, i);
        size_t ca = wf_cell(sp[i].a, lo, hi, bw), cb = wf_cell(sp[i].b, lo, hi, bw);
        size_t from = ca < cb ? ca : cb, to = ca < cb ? cb : ca;
        int up = sp[i].b > sp[i].a;
        if (to == from && sp[i].b != sp[i].a) {   /* a change too small for a cell still shows */
            if (to < bw)
                to++;
            else if (from > 0)
                from--;
        }
        row_start(w, r, c1, c2, lw, &lab, &line);
        for (size_t k = 0; k < bw; k++) {
            if (k >= from && k < to) {
                if (w->o->color && k == from)
                    tp_sbuf_put(&line, up ? "\x1b[" UP_SGR "m" : "\x1b[" DOWN_SGR "m", 5);
                tp_sbuf_put(&line, up ? "\xe2\x96\x88" : "\xe2\x96\x91", 3);   /* █ ░ */
                if (w->o->color && k + 1 == to)
                    tp_sbuf_put(&line, "\x1b[0m", 4);
            } else if (k == zero) {
                tp_sbuf_put(&line, "\xe2\x94\x86", 3);   /* ┆ */
            } else {
                tp_sbuf_putc(&line, ' ');
            }
        }
        value_text(w, r, (size_t)vc, v, sizeof v);
        rc = end_row(w, &line, v, 1 + vw);
    }
    free(sp);
    tp_sbuf_free(&lab);
    tp_sbuf_free(&line);
    return rc;
}

int tp_write_chart(const struct tp_wctx *w)
{
    const struct tp_chart *ch = tp_table_chart(w->t);
    size_t room = w->o->width > 1 ? (size_t)w->o->width - 1 : 1;
    int rc = TP_OK;
    struct tp_sbuf line = {0};
    if (w->nrows == 0)   /* nothing to draw (the view's note says why): no legend, no caption */
        goto footer;
    switch (ch->kind) {
    case TP_CHART_SHARE: rc = share(w, ch, room); break;
    case TP_CHART_STACK: rc = stack(w, ch, room); break;
    case TP_CHART_SERIES: rc = series(w, ch, room); break;
    case TP_CHART_WATERFALL: rc = waterfall(w, ch, room); break;
    default: rc = tp_error_set(w->err, TP_ERR_USAGE, "--plot: unknown chart kind %d", (int)ch->kind); break;
    }
footer:
    /* the view's closing lines (key_averages' totals), within the width too */
    for (const char *f = tp_table_footer(w->t), *nl; rc == TP_OK && *f; f = nl + 1) {
        nl = strchr(f, '\n');
        tp_disp_put_fit(&line, f, (size_t)(nl - f), room, 0);
        rc = put_line(w, &line);
    }
    tp_sbuf_free(&line);
    return rc;
}
