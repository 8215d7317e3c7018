/* write_csv.c — prof.py's --csv: every field, the header too, in double
 * quotes, joined by ",".  Fields are written with libcsv, which doubles an
 * embedded quote (prof.py does not escape; the two differ only for names
 * holding '"').  Control bytes and invalid UTF-8 are escaped first. */
#include <csv.h>
#include <string.h>
#include "table.h"

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
    size_t q = csv_write(tmp->p, tmp->len, b->p + from, n);
    b->len = from;
    tp_sbuf_put(b, tmp->p, q);
}

static void field(struct tp_sbuf *b, struct tp_sbuf *tmp, const char *s, size_t len, int first)
{
    if (!first)
        tp_sbuf_putc(b, ',');
    size_t from = b->len;
    tp_text_put(b, s, len);
    if (!b->oom)
        quote_tail(b, tmp, from);
}

static void put_header(struct tp_sbuf *b, const char *h, size_t j, void *tmp)
{
    field(b, tmp, h, strlen(h), j == 0);
}

static void put_cell(struct tp_sbuf *b, const struct tp_wctx *w, size_t row, size_t j, void *tmp)
{
    char buf[TP_CELLBUF];
    size_t len;
    const char *s = tp_wctx_cell(w, row, j, buf, sizeof buf, &len);
    if (len == 0 && w->o->keys) {   /* NULL: an empty field, which readers take as missing */
        if (j)
            tp_sbuf_putc(b, ',');
        return;
    }
    field(b, tmp, s, len, j == 0);
}

int tp_write_csv(const struct tp_wctx *w)
{
    struct tp_sbuf b = { 0 }, tmp = { 0 };
    int rc = tp_write_header(w, &b, w->nsel, put_header, &tmp);
    if (rc == TP_OK)
        rc = tp_write_rows(w, &b, w->nsel, put_cell, &tmp);
    tp_sbuf_free(&b);
    tp_sbuf_free(&tmp);
    return rc;
}
