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
    struct tp_sbuf bytes;      /* the fields made for strings, end to end */
    size_t *made;              /* per string id: 1 + its field's offset in bytes, 0 not made yet */
    uint32_t *madelen;
    uint32_t nids;
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

/* String id's field, made on first use. */
static void put_string(struct tp_sbuf *b, struct fieldfmt *f, const tp_table *t, uint32_t id)
{
    if (id >= f->nids) {   /* not in the table's strings: cannot happen, but never index past */
        b->oom = 1;
        return;
    }
    if (!f->made[id]) {
        size_t len, from = f->bytes.len;
        const char *s = tp_table_string(t, id, &len);
        put_field(&f->bytes, f, s, len);
        if (f->bytes.oom || f->bytes.len - from > UINT32_MAX) {
            b->oom = 1;
            return;
        }
        f->made[id] = from + 1;
        f->madelen[id] = (uint32_t)(f->bytes.len - from);
    }
    size_t n = f->madelen[id];
    if (tp_sbuf_room(b, n) == 0) {
        memcpy(b->p + b->len, f->bytes.p + f->made[id] - 1, n);
        b->len += n;
    }
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
        put_string(b, f, t, v.s);
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
        .nids = tp_table_nstrings(w->t),
    };
    unsigned char *plain = malloc(w->nsel ? w->nsel : 1);
    f.made = calloc(f.nids ? f.nids : 1, sizeof *f.made);
    f.madelen = malloc((f.nids ? f.nids : 1) * sizeof *f.madelen);
    int rc = TP_OK;
    if (!plain || !f.made || !f.madelen) {
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
    free(f.made);
    free(f.madelen);
    tp_sbuf_free(&f.tmp);
    tp_sbuf_free(&f.bytes);
    return rc;
}
