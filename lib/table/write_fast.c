/* write_fast.c — the rows of the joined formats (space, TSV, CSV) written
 * straight into one output buffer.
 *
 * The default view's table of a 1 GB trace has 245K rows of 8 cells, and
 * writing it cell by cell through tp_wctx_cell, the escaping and libcsv's
 * quoting was half of what `tprof --csv` costs on a store.  Here a string
 * cell's field (escaped, and quoted for CSV) is made once per distinct
 * string, by its id in the table, and copied from then on; a number is
 * formatted in place (its text is printable ASCII with no quote: nothing
 * to escape); the choices that hold for a whole column (--timeunit or
 * --human change it: the cell goes the general way) are made once. */
#include <csv.h>
#include <stdlib.h>
#include <string.h>
#include "table.h"

/* Rows go to stdio this many bytes at a time. */
#define ROWS_BATCH ((size_t)1 << 16)

struct fieldfmt {
    char sep;
    int csv;
    int empty_null;            /* a NULL cell is an empty field (--keys, CSV and TSV) */
    int empty_str;             /* so is an empty string (--keys, CSV) */
    struct tp_sbuf tmp;        /* libcsv's output */
    struct tp_fieldcache cache;
};

/* Quote b's text from `from` to its end with libcsv, in place. */
static void quote_tail(struct tp_sbuf *b, struct tp_sbuf *tmp, size_t from)
{
    size_t n = b->len - from;
    tmp->len = 0;
    /* at worst every byte is a quote: 2n + 2 */
    tp_sbuf_pad(tmp, 0, 2 * n + 2);
    if (tmp->oom) {
        b->oom = 1;
        return;
    }
    /* libcsv writes nothing for a NULL source: an empty field still gets
     * its quotes while nothing was put in b yet */
    size_t q = csv_write(tmp->p, tmp->len, b->p ? b->p + from : "", n);
    b->len = from;
    tp_sbuf_put(b, tmp->p, q);
}

/* Text s as a field: escaped, and for CSV in quotes (a quote doubled). */
static void put_field(struct tp_sbuf *b, struct fieldfmt *f, const char *s, size_t len)
{
    size_t from = b->len;
    tp_text_put(b, s, len);
    if (f->csv && !b->oom)
        quote_tail(b, &f->tmp, from);
}

void tp_write_field(struct tp_sbuf *b, struct tp_sbuf *tmp, const char *s, size_t len, int csv)
{
    struct fieldfmt f = { .csv = csv, .tmp = *tmp };
    put_field(b, &f, s, len);
    *tmp = f.tmp;
}

int tp_fieldcache_init(struct tp_fieldcache *c, const tp_table *t)
{
    memset(c, 0, sizeof *c);
    c->nids = tp_table_nstrings(t);
    c->made = calloc(c->nids ? c->nids : 1, sizeof *c->made);
    c->len = malloc((c->nids ? c->nids : 1) * sizeof *c->len);
    if (!c->made || !c->len) {
        tp_fieldcache_free(c);
        return -1;
    }
    return 0;
}

void tp_fieldcache_free(struct tp_fieldcache *c)
{
    tp_sbuf_free(&c->bytes);
    free(c->made);
    free(c->len);
    memset(c, 0, sizeof *c);
}

void tp_fieldcache_put(struct tp_fieldcache *c, struct tp_sbuf *b, const tp_table *t, uint32_t id,
                       void (*make)(struct tp_sbuf *out, const char *s, size_t len, void *ctx), void *ctx)
{
    if (id >= c->nids) {   /* not one of the table's strings: never index past */
        b->oom = 1;
        return;
    }
    if (!c->made[id]) {
        size_t len, from = c->bytes.len;
        const char *s = tp_table_string(t, id, &len);
        make(&c->bytes, s, len, ctx);
        if (c->bytes.oom || c->bytes.len - from > UINT32_MAX) {
            b->oom = 1;
            return;
        }
        c->made[id] = from + 1;
        c->len[id] = (uint32_t)(c->bytes.len - from);
    }
    size_t n = c->len[id];
    if (n && tp_sbuf_room(b, n) == 0) {
        memcpy(b->p + b->len, c->bytes.p + c->made[id] - 1, n);
        b->len += n;
    }
}

static void make_field(struct tp_sbuf *out, const char *s, size_t len, void *f)
{
    put_field(out, f, s, len);
}

/* Cell j of row: a column that prints as tp_cell_text does (plain). */
static void put_plain(struct tp_sbuf *b, struct fieldfmt *f, const tp_table *t, size_t row, size_t col)
{
    union tp_cellval v;
    int kind = tp_table_cell_get(t, row, col, &v);
    if (kind == TP_CELL_STR) {
        if (f->empty_str) {
            size_t len;
            tp_table_string(t, v.s, &len);
            if (!len)
                return;
        }
        tp_fieldcache_put(&f->cache, b, t, v.s, make_field, f);
        return;
    }
    if (tp_sbuf_room(b, TP_CELLBUF + 2) != 0)
        return;
    char *p = b->p + b->len;
    if (kind == TP_CELL_INT || kind == TP_CELL_FLOAT) {
        if (f->csv)
            *p++ = '"';
        p += tp_table_format_number(t, col, kind, v, p);
        if (f->csv)
            *p++ = '"';
    } else if (!f->empty_null) {
        if (f->csv)
            *p++ = '"';
        *p++ = '-';
        if (f->csv)
            *p++ = '"';
    }
    b->len = (size_t)(p - b->p);
}

/* Cell j of row through tp_wctx_cell (a --timeunit or --human column). */
static void put_general(struct tp_sbuf *b, struct fieldfmt *f, const struct tp_wctx *w, size_t row, size_t j)
{
    char buf[TP_CELLBUF];
    size_t len;
    const char *s = tp_wctx_cell(w, row, j, buf, sizeof buf, &len);
    if (len == 0 && f->empty_str)   /* CSV --keys: NULL and "" are empty fields */
        return;
    put_field(b, f, s, len);
}

int tp_write_joined_rows(const struct tp_wctx *w, struct tp_sbuf *b, char sep, int csv)
{
    int keys = w->o->keys, fmt = w->o->format;
    struct fieldfmt f = {
        .sep = sep,
        .csv = csv,
        .empty_null = keys && (fmt == TP_FMT_CSV || fmt == TP_FMT_TSV),
        .empty_str = keys && csv,
    };
    unsigned char *plain = malloc(w->nsel ? w->nsel : 1);
    int rc = TP_OK;
    if (tp_fieldcache_init(&f.cache, w->t) != 0 || !plain) {
        rc = tp_error_set(w->err, TP_ERR_NOMEM, "out of memory while writing the table");
        goto done;
    }
    for (size_t j = 0; j < w->nsel; j++)
        plain[j] = (unsigned char)tp_wctx_plain(w, j);
    for (size_t i = 0; rc == TP_OK && i < w->nrows; i++) {
        size_t row = tp_wctx_row(w, i);
        for (size_t j = 0; j < w->nsel; j++) {
            if (j)
                tp_sbuf_putc(b, sep);
            if (plain[j])
                put_plain(b, &f, w->t, row, w->sel[j]);
            else
                put_general(b, &f, w, row, j);
        }
        tp_sbuf_putc(b, '\n');
        if (b->len >= ROWS_BATCH || b->oom || i + 1 == w->nrows)
            rc = tp_write_line(w, b);
    }
done:
    free(plain);
    tp_fieldcache_free(&f.cache);
    tp_sbuf_free(&f.tmp);
    return rc;
}
