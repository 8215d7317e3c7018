/* write_markdown.c — a GitHub-flavoured Markdown table, for pull-request
 * comments and READMEs: a header row, an alignment row (numbers right,
 * text left) and one row per table row.  NULL cells print "-".
 *
 * Kernel names are full of characters Markdown reads as markup
 * (`void f<cutlass::gemm_*>`: an HTML tag, emphasis, a pipe that would
 * split the cell), so every ASCII punctuation character that GFM can
 * format is backslash-escaped, and <, > and & become entities; control
 * characters and invalid UTF-8 are \xNN as in the other writers. */
#include <string.h>
#include "table.h"

static void md_text(struct tp_sbuf *b, const char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        size_t r = 0;
        while (i + r < len && !strchr("\\`*_[]|#~<>&!", s[i + r]) && s[i + r] != 0)
            r++;
        tp_text_put(b, s + i, r);
        i += r;
        if (i == len)
            break;
        char c = s[i++];
        if (c == 0)
            tp_text_put(b, &c, 1);                /* \x00, as every writer */
        else if (c == '<')
            tp_sbuf_put(b, "&lt;", 4);
        else if (c == '>')
            tp_sbuf_put(b, "&gt;", 4);
        else if (c == '&')
            tp_sbuf_put(b, "&amp;", 5);
        else {
            char e[2] = { '\\', c };
            tp_sbuf_put(b, e, 2);
        }
    }
}

/* A cell: " TEXT |". */
static void md_cell(struct tp_sbuf *b, const char *s, size_t len, void *unused)
{
    (void)unused;
    tp_sbuf_putc(b, ' ');
    md_text(b, s, len);
    tp_sbuf_put(b, " |", 2);
}

/* Rows go to stdio this many bytes at a time. */
#define ROWS_BATCH ((size_t)1 << 16)

int tp_write_markdown(const struct tp_wctx *w)
{
    struct tp_sbuf b = { 0 };
    struct tp_fieldcache strs;   /* a string's cell made once */
    if (tp_fieldcache_init(&strs, w->t) != 0)
        return tp_error_set(w->err, TP_ERR_NOMEM, "out of memory while writing the table");
    int rc = TP_OK;
    /* GFM needs the header and the alignment row even with --no-header. */
    tp_sbuf_putc(&b, '|');
    for (size_t j = 0; j < w->nsel; j++) {
        char hb[160];
        const char *h = tp_wctx_header(w, j, hb, sizeof hb);
        tp_sbuf_putc(&b, ' ');
        md_text(&b, h, strlen(h));
        tp_sbuf_put(&b, " |", 2);
    }
    tp_sbuf_put(&b, "\n|", 2);
    for (size_t j = 0; j < w->nsel; j++) {
        if (w->cols[w->sel[j]].type == TP_COL_STR)
            tp_sbuf_put(&b, ":---|", 5);
        else
            tp_sbuf_put(&b, "---:|", 5);
    }
    tp_sbuf_putc(&b, '\n');
    rc = tp_write_line(w, &b);
    for (size_t i = 0; rc == TP_OK && i < w->nrows; i++) {
        size_t row = tp_wctx_row(w, i);
        tp_sbuf_putc(&b, '|');
        for (size_t j = 0; j < w->nsel; j++) {
            union tp_cellval v;
            if (tp_table_cell_get(w->t, row, w->sel[j], &v) == TP_CELL_STR) {   /* tp_wctx_cell: as it is */
                tp_fieldcache_put(&strs, &b, w->t, v.s, md_cell, NULL);
                continue;
            }
            char buf[TP_CELLBUF];
            size_t len;
            const char *s = tp_wctx_cell(w, row, j, buf, sizeof buf, &len);
            md_cell(&b, s, len, NULL);
        }
        tp_sbuf_putc(&b, '\n');
        if (b.len >= ROWS_BATCH || b.oom || i + 1 == w->nrows)
            rc = tp_write_line(w, &b);
    }
    tp_sbuf_free(&b);
    tp_fieldcache_free(&strs);
    return rc;
}
