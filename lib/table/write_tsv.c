/* write_tsv.c — tab-separated values: the header (names, or keys with
 * --header keys) and one line per row, fields joined by one tab.  A tab or a
 * newline inside a name cannot be said in TSV; like every control character
 * it is escaped (\x09, \x0a), so a row stays one line and a field never
 * splits: `cut -f` and awk -F'\t' see the columns whatever the names hold. */
#include <string.h>
#include "table.h"

int tp_write_tsv(const struct tp_wctx *w)
{
    struct tp_sbuf b = { 0 };
    int rc = TP_OK;
    if (w->o->header) {
        for (size_t j = 0; j < w->nsel; j++) {
            char hb[160];
            const char *h = tp_wctx_header(w, j, hb, sizeof hb);
            if (j)
                tp_sbuf_putc(&b, '\t');
            tp_text_put(&b, h, strlen(h));
        }
        tp_sbuf_putc(&b, '\n');
        rc = tp_write_line(w, &b);
    }
    for (size_t i = 0; rc == TP_OK && i < w->nrows; i++) {
        size_t row = tp_wctx_row(w, i);
        for (size_t j = 0; j < w->nsel; j++) {
            char buf[TP_CELLBUF];
            size_t len;
            const char *s = tp_wctx_cell(w, row, j, buf, sizeof buf, &len);
            if (j)
                tp_sbuf_putc(&b, '\t');
            tp_text_put(&b, s, len);
        }
        tp_sbuf_putc(&b, '\n');
        rc = tp_write_line(w, &b);
    }
    tp_sbuf_free(&b);
    return rc;
}
