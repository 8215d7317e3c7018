/* write_columns.c — the -w W format: prof.py's columnated output for the
 * prof views (below), a hard width limit for tprof's own (write_fit).
 *
 * Widths come from the coldefs: width > 0 is a fixed width (prof.py's
 * minimum width); width == 0 is flexible: the flexible columns share what the
 * fixed ones leave of W, int(remainder / n) each; width < 0 fits the content
 * (max of header and cell display widths) and, when the line would exceed W,
 * the widest such string columns shrink (never below 4) until it fits.
 * If the fixed widths alone exceed W: TP_ERR_USAGE "Minimum width required to
 * print a,b,c = N.".
 *
 * Every header field is "%-w.ws " (left-aligned, truncated), string cells too;
 * numeric cells are right-aligned and never truncated ("%wd ").  NUM float
 * cells in a fixed-width column print as Python's "%d" % x does: truncated
 * toward zero (prof.py shows 140000 where --csv shows 140000.0); elsewhere
 * numbers print as in the space format.  Every line ends with a space.
 * Widths count display units (code points; 4 per \xNN escape), as Python's
 * % formatting counts code points. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "table.h"

/* Text of a numeric cell as -w prints it. */
static const char *num_text(const struct tp_wctx *w, size_t row, size_t col, char *buf,
                            size_t cap, size_t *len)
{
    const struct tp_coldef *c = &w->cols[col];
    if (c->type == TP_COL_NUM && c->width > 0 &&
        tp_table_cell_kind(w->t, row, col) == TP_CELL_FLOAT) {
        double v = tp_table_cell_float(w->t, row, col);
        if (isfinite(v)) {
            int n = snprintf(buf, cap, "%.0f", trunc(v) + 0.0);
            *len = (size_t)n < cap ? (size_t)n : cap - 1;
            return buf;
        }
    }
    return tp_cell_text(w->t, row, col, buf, cap, len);
}

/* The text of selected column j's cell: a time column under --timeunit in
 * its unit, numbers as num_text prints them, strings as they are. */
static const char *col_text(const struct tp_wctx *w, size_t row, size_t j, char *buf, size_t cap, size_t *len)
{
    size_t col = w->sel[j];
    if (w->cols[col].type == TP_COL_STR)
        return tp_cell_text(w->t, row, col, buf, cap, len);
    if (w->o->timeunit || tp_wctx_human(w, j))   /* a time column in its unit; any other cell as below */
        return tp_wctx_cell(w, row, j, buf, cap, len);
    return num_text(w, row, col, buf, cap, len);
}

static size_t cell_width(const struct tp_wctx *w, size_t row, size_t j)
{
    char buf[TP_CELLBUF];
    size_t len;
    const char *s = col_text(w, row, j, buf, sizeof buf, &len);
    return tp_text_width(s, len);
}

static int min_width_error(const struct tp_wctx *w, long long sum)
{
    struct tp_sbuf b = { 0 };
    for (size_t j = 0; j < w->nsel; j++) {
        const char *k = w->cols[w->sel[j]].key;
        if (j)
            tp_sbuf_putc(&b, ',');
        tp_text_put(&b, k ? k : "", k ? strlen(k) : 0);
    }
    tp_sbuf_putc(&b, '\0');
    int rc = tp_error_set(w->err, TP_ERR_USAGE, "Minimum width required to print %s = %lld.",
                          b.oom ? "the selected columns" : b.p, sum);
    tp_sbuf_free(&b);
    return rc;
}

/* Resolve the width of every selected column into wid[]. */
static int layout(const struct tp_wctx *w, size_t *wid)
{
    long long W = w->o->width, fixed = 0;
    size_t nflex = 0, nfit = 0;
    for (size_t j = 0; j < w->nsel; j++) {
        const struct tp_coldef *c = &w->cols[w->sel[j]];
        wid[j] = 0;
        if (c->width > 0) {
            wid[j] = (size_t)c->width;
            fixed += c->width;
        } else if (c->width == 0) {
            nflex++;
        } else {
            nfit++;
        }
    }
    if (fixed > W)
        return min_width_error(w, fixed);

    long long remainder = W - fixed;
    if (nfit) {
        long long total = fixed + (long long)w->nsel;   /* fit mode counts the separators */
        for (size_t j = 0; j < w->nsel; j++) {
            size_t col = w->sel[j];
            const struct tp_coldef *c = &w->cols[col];
            if (c->width >= 0)
                continue;
            char hb[160];
            const char *h = tp_wctx_header(w, j, hb, sizeof hb);
            size_t m = tp_text_width(h, strlen(h));
            for (size_t i = 0; i < w->nrows; i++) {
                size_t cw = cell_width(w, tp_wctx_row(w, i), j);
                if (cw > m)
                    m = cw;
            }
            wid[j] = m;
            total += (long long)m;
        }
        while (total > W) {
            size_t best = SIZE_MAX;
            for (size_t j = 0; j < w->nsel; j++) {
                const struct tp_coldef *c = &w->cols[w->sel[j]];
                if (c->width < 0 && c->type == TP_COL_STR && wid[j] > 4 &&
                    (best == SIZE_MAX || wid[j] > wid[best]))
                    best = j;
            }
            if (best == SIZE_MAX)
                break;   /* nothing left to shrink: the line overflows */
            wid[best]--;
            total--;
        }
        remainder = W - total;
    }
    if (remainder < 0)
        remainder = 0;
    for (size_t j = 0; j < w->nsel; j++)
        if (w->cols[w->sel[j]].width == 0)
            wid[j] = (size_t)(remainder / (long long)nflex);
    return TP_OK;
}

/* ---- tprof's own views: -w W (or the terminal's width) is a hard limit ----
 *
 * A table none of whose columns has a fixed width is one of tprof's own
 * views, not prof.py's: there every column starts at its content's width
 * (terminal cells: tp_disp_width), and while the line is wider than W
 * (counting the space after each column):
 *   1. the widest text column gives up one cell, down to its header's width
 *      or TP_FIT_MIN_TEXT cells (names are shortened in the middle:
 *      text_fit.c);
 *   2. then columns are left out from the right (never the first), and
 *      o->note says which;
 *   3. a first column alone still too wide is cut to W - 1;
 * then what leaving columns out freed goes back to the text columns.
 * So a line never exceeds W. */
#define TP_FIT_MIN_TEXT 24

static int is_prof_layout(const struct tp_wctx *w)
{
    for (size_t c = 0; c < tp_table_cols(w->t); c++)
        if (w->cols[c].width > 0)
            return 1;
    return 0;
}

/* Display widths of the table's strings by id, measured once each (a
 * column of 250K launches has a few hundred distinct names): 1 + width,
 * 0 not measured yet. */
struct idwidth {
    uint32_t *w;
    uint32_t n;
};

static size_t fit_cell_width(const struct tp_wctx *w, size_t row, size_t j, struct idwidth *iw)
{
    char buf[TP_CELLBUF];
    size_t len;
    union tp_cellval v;
    /* a string cell prints as the string whatever the column (col_text) */
    if (tp_table_cell_get(w->t, row, w->sel[j], &v) == TP_CELL_STR && v.s < iw->n) {
        if (!iw->w[v.s]) {
            const char *s = tp_table_string(w->t, v.s, &len);
            size_t dw = tp_disp_width(s, len);
            if (dw >= UINT32_MAX)
                return dw;
            iw->w[v.s] = (uint32_t)dw + 1;
        }
        return iw->w[v.s] - 1;
    }
    const char *s = col_text(w, row, j, buf, sizeof buf, &len);
    return tp_disp_width(s, len);
}

/* Widths of the selected columns fitted to W (wid, with minw and nat as
 * scratch, nsel entries each); *nsel drops when columns are left out.
 * TP_OK, or TP_ERR_NOMEM. */
static int layout_fit(const struct tp_wctx *w, size_t *wid, size_t *minw, size_t *nat, size_t *nsel)
{
    long long W = w->o->width, total = 0;
    struct idwidth iw = {calloc(tp_table_nstrings(w->t) ? tp_table_nstrings(w->t) : 1, sizeof *iw.w),
                         tp_table_nstrings(w->t)};
    if (!iw.w)
        return tp_error_set(w->err, TP_ERR_NOMEM, "out of memory");
    for (size_t j = 0; j < *nsel; j++) {
        char hb[160];
        const char *h = tp_wctx_header(w, j, hb, sizeof hb);
        size_t hw = tp_disp_width(h, strlen(h)), m = hw;
        for (size_t i = 0; i < w->nrows; i++) {
            size_t cw = fit_cell_width(w, tp_wctx_row(w, i), j, &iw);
            if (cw > m)
                m = cw;
        }
        wid[j] = nat[j] = minw[j] = m;
        if (w->cols[w->sel[j]].type == TP_COL_STR) {
            size_t floor_w = hw > TP_FIT_MIN_TEXT ? hw : TP_FIT_MIN_TEXT;
            minw[j] = m < floor_w ? m : floor_w;
        }
        total += (long long)m + 1;
    }
    free(iw.w);
    while (total > W) {   /* 1: the widest text column first */
        size_t best = SIZE_MAX;
        for (size_t j = 0; j < *nsel; j++)
            if (wid[j] > minw[j] && (best == SIZE_MAX || wid[j] > wid[best]))
                best = j;
        if (best == SIZE_MAX)
            break;
        wid[best]--;
        total--;
    }
    while (total > W && *nsel > 1) {   /* 2: columns from the right */
        (*nsel)--;
        total -= (long long)wid[*nsel] + 1;
    }
    if (total > W) {   /* 3: the first column alone */
        wid[0] = W > 1 ? (size_t)(W - 1) : 0;
        return TP_OK;
    }
    /* what leaving columns out freed goes back to the text columns that
     * gave up cells, left to right */
    for (size_t j = 0; j < *nsel && total < W; j++) {
        size_t more = nat[j] - wid[j];
        if ((long long)more > W - total)
            more = (size_t)(W - total);
        wid[j] += more;
        total += (long long)more;
    }
    return TP_OK;
}

static void note_left_out(const struct tp_wctx *w, size_t kept)
{
    if (!w->o->note || !w->o->note_cap || kept >= w->nsel)
        return;
    size_t n = 0, cap = w->o->note_cap;
    char *p = w->o->note;
    p[0] = 0;
    for (size_t j = kept; j < w->nsel && n + 1 < cap; j++) {
        const char *k = w->cols[w->sel[j]].key;
        int r = snprintf(p + n, cap - n, "%s%s", j > kept ? "," : "", k ? k : "");
        if (r < 0)
            break;
        n += (size_t)r < cap - n ? (size_t)r : cap - n - 1;
    }
}

static void put_fit_header(struct tp_sbuf *b, const char *h, size_t j, void *wid)
{
    tp_disp_put_fit(b, h, strlen(h), ((const size_t *)wid)[j], 1);
    tp_sbuf_putc(b, ' ');
}

static void put_trunc_header(struct tp_sbuf *b, const char *h, size_t j, void *wid)
{
    tp_text_put_trunc(b, h, strlen(h), ((const size_t *)wid)[j], 1);
    tp_sbuf_putc(b, ' ');
}

/* A text column's cell as write_fit prints it: fitted, padded, a space. */
static void make_fit(struct tp_sbuf *out, const char *s, size_t len, void *width)
{
    tp_disp_put_fit(out, s, len, *(const size_t *)width, 1);
    tp_sbuf_putc(out, ' ');
}

/* The widths, and per text column the cells made so far (a name is
 * fitted the same way in every row of a column); .made NULL for a
 * column that is not text. */
struct cells_ctx {
    const size_t *wid;
    struct tp_fieldcache *cache;   /* nsel */
};

/* A cell padded to its column's width (text left, numbers right), then a space. */
static void put_fit_cell(struct tp_sbuf *b, const struct tp_wctx *w, size_t row, size_t j, void *ctx)
{
    struct cells_ctx *cc = ctx;
    const size_t *wid = cc->wid;
    char buf[TP_CELLBUF];
    size_t len;
    union tp_cellval v;
    if (cc->cache[j].made && tp_table_cell_get(w->t, row, w->sel[j], &v) == TP_CELL_STR) {
        tp_fieldcache_put(&cc->cache[j], b, w->t, v.s, make_fit, (void *)&wid[j]);
        return;
    }
    const char *s = col_text(w, row, j, buf, sizeof buf, &len);
    if (w->cols[w->sel[j]].type == TP_COL_STR) {
        tp_disp_put_fit(b, s, len, wid[j], 1);
    } else {
        size_t tw = tp_disp_width(s, len);
        if (tw < wid[j])
            tp_sbuf_pad(b, ' ', wid[j] - tw);
        tp_disp_put_fit(b, s, len, wid[j], 0);
    }
    tp_sbuf_putc(b, ' ');
}

static void make_trunc(struct tp_sbuf *out, const char *s, size_t len, void *width)
{
    tp_text_put_trunc(out, s, len, *(const size_t *)width, 1);
    tp_sbuf_putc(out, ' ');
}

/* The same in prof.py's layout: text cut to the width, numbers whole. */
static void put_prof_cell(struct tp_sbuf *b, const struct tp_wctx *w, size_t row, size_t j, void *ctx)
{
    struct cells_ctx *pc = ctx;
    const size_t *wid = pc->wid;
    size_t col = w->sel[j];
    char buf[TP_CELLBUF];
    size_t len;
    if (w->cols[col].type == TP_COL_STR) {
        union tp_cellval v;
        if (pc->cache[j].made && tp_table_cell_get(w->t, row, col, &v) == TP_CELL_STR) {
            tp_fieldcache_put(&pc->cache[j], b, w->t, v.s, make_trunc, (void *)&wid[j]);
            return;
        }
        const char *s = tp_cell_text(w->t, row, col, buf, sizeof buf, &len);
        tp_text_put_trunc(b, s, len, wid[j], 1);
    } else {
        const char *s = col_text(w, row, j, buf, sizeof buf, &len);
        size_t tw = tp_text_width(s, len);
        if (tw < wid[j])
            tp_sbuf_pad(b, ' ', wid[j] - tw);
        tp_text_put(b, s, len);
    }
    tp_sbuf_putc(b, ' ');
}

/* The first nsel selected columns' rows, put by put with a cells_ctx: a
 * cache for each text column. */
static int write_cached_rows(const struct tp_wctx *w, struct tp_sbuf *b, size_t nsel, const size_t *wid,
                             void (*put)(struct tp_sbuf *b, const struct tp_wctx *w, size_t row, size_t j,
                                         void *ctx))
{
    struct cells_ctx cc = {wid, calloc(nsel ? nsel : 1, sizeof *cc.cache)};
    int rc = cc.cache ? TP_OK : tp_error_set(w->err, TP_ERR_NOMEM, "out of memory");
    for (size_t j = 0; rc == TP_OK && j < nsel; j++)
        if (w->cols[w->sel[j]].type == TP_COL_STR && tp_fieldcache_init(&cc.cache[j], w->t) != 0)
            rc = tp_error_set(w->err, TP_ERR_NOMEM, "out of memory");
    if (rc == TP_OK)
        rc = tp_write_rows(w, b, nsel, put, &cc);
    for (size_t j = 0; cc.cache && j < nsel; j++)
        tp_fieldcache_free(&cc.cache[j]);
    free(cc.cache);
    return rc;
}

static int write_fit(const struct tp_wctx *w)
{
    size_t n = w->nsel ? w->nsel : 1;
    size_t *wid = malloc(3 * n * sizeof *wid);
    if (!wid)
        return tp_error_set(w->err, TP_ERR_NOMEM, "out of memory");
    size_t nsel = w->nsel;
    int rc = layout_fit(w, wid, wid + n, wid + 2 * n, &nsel);
    if (rc != TP_OK) {
        free(wid);
        return rc;
    }
    note_left_out(w, nsel);
    struct tp_sbuf b = { 0 };
    rc = tp_write_header(w, &b, nsel, put_fit_header, wid);
    if (rc == TP_OK)
        rc = write_cached_rows(w, &b, nsel, wid, put_fit_cell);
    if (rc == TP_OK)
        rc = tp_write_footer(w);
    tp_sbuf_free(&b);
    free(wid);
    return rc;
}

int tp_write_columns(const struct tp_wctx *w)
{
    if (w->o->note && w->o->note_cap)
        w->o->note[0] = 0;
    if (!is_prof_layout(w))
        return write_fit(w);
    size_t *wid = malloc((w->nsel ? w->nsel : 1) * sizeof *wid);
    if (!wid)
        return tp_error_set(w->err, TP_ERR_NOMEM, "out of memory");
    int rc = layout(w, wid);
    struct tp_sbuf b = { 0 };
    if (rc == TP_OK)
        rc = tp_write_header(w, &b, w->nsel, put_trunc_header, wid);
    if (rc == TP_OK)
        rc = write_cached_rows(w, &b, w->nsel, wid, put_prof_cell);
    if (rc == TP_OK)
        rc = tp_write_footer(w);
    tp_sbuf_free(&b);
    free(wid);
    return rc;
}
