/* write_space.c — prof.py's default output: header names and values joined
 * by single spaces, no padding, no trailing space; NULL cells print "-".
 * Strings are escaped (tp_text_put) so one row stays one line.  The TSV
 * writer is the same with a tab: control characters, tabs included, are
 * escaped as \xNN, so a field never splits.  The rows are write_fast.c's. */
#include <string.h>
#include "table.h"

static void put_joined(struct tp_sbuf *b, const char *s, size_t len, size_t j, char sep)
{
    if (j)
        tp_sbuf_putc(b, sep);
    tp_text_put(b, s, len);
}

static void put_header(struct tp_sbuf *b, const char *h, size_t j, void *sep)
{
    put_joined(b, h, strlen(h), j, *(const char *)sep);
}

/* Header and cells joined by `sep`. */
static int write_joined(const struct tp_wctx *w, char sep)
{
    struct tp_sbuf b = { 0 };
    int rc = tp_write_header(w, &b, w->nsel, put_header, &sep);
    if (rc == TP_OK)
        rc = tp_write_joined_rows(w, &b, sep, 0);
    tp_sbuf_free(&b);
    return rc;
}

int tp_write_space(const struct tp_wctx *w)
{
    return write_joined(w, ' ');
}

int tp_write_tsv(const struct tp_wctx *w)
{
    return write_joined(w, '\t');
}
