/* write_csv.c — prof.py's --csv: every field, the header too, in double
 * quotes, joined by ",".  Fields are written with libcsv, which doubles an
 * embedded quote (prof.py does not escape; the two differ only for names
 * holding '"').  Control bytes and invalid UTF-8 are escaped first.  The
 * rows are write_fast.c's. */
#include <string.h>
#include "table.h"

static void put_header(struct tp_sbuf *b, const char *h, size_t j, void *tmp)
{
    if (j)
        tp_sbuf_putc(b, ',');
    tp_write_field(b, tmp, h, strlen(h), 1);
}

int tp_write_csv(const struct tp_wctx *w)
{
    struct tp_sbuf b = { 0 }, tmp = { 0 };
    int rc = tp_write_header(w, &b, w->nsel, put_header, &tmp);
    if (rc == TP_OK)
        rc = tp_write_joined_rows(w, &b, ',', 1);
    tp_sbuf_free(&b);
    tp_sbuf_free(&tmp);
    return rc;
}
