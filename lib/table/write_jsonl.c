/* write_jsonl.c — one JSON object per row, {"key": value, ...}, keys the
 * selected column keys in -c order.  Numeric columns give JSON numbers
 * (nan/inf, which JSON lacks, give null), string columns JSON strings, NULL
 * cells null.  No header line.
 *
 * Strings: '"' and '\\' are escaped, control characters (and the C1 controls
 * U+0080..U+009F) become \u00NN, so the text decodes back exactly; bytes
 * that are not valid UTF-8 cannot be said in JSON and become the six
 * characters \\xNN (the same text the other writers show). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "table.h"

static void json_str(struct tp_sbuf *b, const char *str, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)str;
    tp_sbuf_putc(b, '"');
    size_t i = 0;
    while (i < len) {
        size_t r = 0;
        while (i + r < len && s[i + r] >= 0x20 && s[i + r] < 0x7f && s[i + r] != '"' && s[i + r] != '\\')
            r++;
        tp_sbuf_put(b, str + i, r);
        i += r;
        if (i == len)
            break;
        unsigned char c = s[i];
        if (c == '"' || c == '\\') {
            char e[2] = { '\\', (char)c };
            tp_sbuf_put(b, e, 2);
            i++;
            continue;
        }
        int esc;
        size_t u = tp_text_unit(s + i, len - i, &esc);
        if (!esc) {
            tp_sbuf_put(b, str + i, u);
        } else if (c < 0x80 || u == 2) {
            unsigned cp = c < 0x80 ? c : s[i + 1];   /* C1: C2 xx is U+00xx */
            char e[6] = { '\\', 'u', '0', '0', hex[cp >> 4], hex[cp & 15] };
            tp_sbuf_put(b, e, 6);
        } else {
            char e[6] = { '\\', '\\', 'x', hex[c >> 4], hex[c & 15] };
            tp_sbuf_put(b, e, 5);
        }
        i += u;
    }
    tp_sbuf_putc(b, '"');
}

static void make_json_str(struct tp_sbuf *out, const char *s, size_t len, void *unused)
{
    (void)unused;
    json_str(out, s, len);
}

/* Rows go to stdio this many bytes at a time. */
#define ROWS_BATCH ((size_t)1 << 16)

/* Each selected column's `"key":` (after a comma but for the first), made
 * once: pre[j] is its start in keys->p, pre[j + 1] its end. */
static void make_prefixes(const struct tp_wctx *w, struct tp_sbuf *keys, size_t *pre)
{
    for (size_t j = 0; j < w->nsel; j++) {
        pre[j] = keys->len;
        if (j)
            tp_sbuf_putc(keys, ',');
        char kb[160];
        const char *key = tp_wctx_key(w, j, kb, sizeof kb);
        json_str(keys, key, strlen(key));
        tp_sbuf_putc(keys, ':');
    }
    pre[w->nsel] = keys->len;
}

int tp_write_jsonl(const struct tp_wctx *w)
{
    struct tp_sbuf b = { 0 }, keys = { 0 };
    struct tp_fieldcache strs;
    size_t *pre = malloc((w->nsel + 1) * sizeof *pre);
    int rc = TP_OK;
    if (tp_fieldcache_init(&strs, w->t) != 0 || !pre) {
        rc = tp_error_set(w->err, TP_ERR_NOMEM, "out of memory while writing the table");
        goto done;
    }
    make_prefixes(w, &keys, pre);
    if (keys.oom) {
        rc = tp_error_set(w->err, TP_ERR_NOMEM, "out of memory while writing the table");
        goto done;
    }
    for (size_t i = 0; rc == TP_OK && i < w->nrows; i++) {
        size_t row = tp_wctx_row(w, i);
        tp_sbuf_putc(&b, '{');
        for (size_t j = 0; j < w->nsel; j++) {
            size_t col = w->sel[j];
            const struct tp_coldef *c = &w->cols[col];
            tp_sbuf_put(&b, keys.p + pre[j], pre[j + 1] - pre[j]);
            union tp_cellval v;
            enum tp_cellkind k = (enum tp_cellkind)tp_table_cell_get(w->t, row, col, &v);
            char buf[TP_CELLBUF];
            size_t len;
            const char *s;
            if (k == TP_CELL_NULL) {
                tp_sbuf_put(&b, "null", 4);
            } else if (k == TP_CELL_STR) {
                tp_fieldcache_put(&strs, &b, w->t, v.s, make_json_str, NULL);
            } else if (c->type == TP_COL_STR) {
                s = tp_cell_text(w->t, row, col, buf, sizeof buf, &len);
                json_str(&b, s, len);
            } else if (k == TP_CELL_FLOAT && !isfinite(v.f)) {
                tp_sbuf_put(&b, "null", 4);
            } else {
                s = tp_wctx_cell(w, row, j, buf, sizeof buf, &len);
                tp_sbuf_put(&b, s, len);
            }
        }
        tp_sbuf_put(&b, "}\n", 2);
        if (b.len >= ROWS_BATCH || b.oom || i + 1 == w->nrows)
            rc = tp_write_line(w, &b);
    }
done:
    tp_sbuf_free(&b);
    tp_sbuf_free(&keys);
    tp_fieldcache_free(&strs);
    free(pre);
    return rc;
}
