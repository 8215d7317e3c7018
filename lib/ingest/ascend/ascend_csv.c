/* ascend_csv.c — the CSV dialect of torch_npu's profiler output, over libcsv.
 *
 * SPEC §A.3: comma-separated, RFC-4180 quotes with "" escapes, fields with
 * embedded newlines (Call Stack, Input Shapes), CRLF or LF per file, an
 * optional UTF-8 BOM, numbers with a trailing TAB inside the field
 * ("1736408883704643.212\t", sometimes quoted), N/A and empty cells, Excel
 * exponents ("1.69512E+15").  Columns are found by header name, never by
 * position: the header changed many times (Device_id inserted in front,
 * Block Dim renamed Block Num).
 *
 * The file is fed to libcsv one physical line at a time so each row's byte
 * offset is known for messages.  A bad cell is reported once per file,
 * column and problem ("kernel_details.csv row 7, column Duration(us): not a
 * number"), with the count of rows it happened in. */
#include <csv.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "json.h"
#include "npu.h"

static int push_field(struct tp_npu_csv *c, const char *s, size_t len)
{
    if (c->nf == c->capf) {
        size_t n = c->capf ? c->capf * 2 : 64;
        char **f = realloc(c->f, n * sizeof *f);
        if (!f)
            return -1;
        c->f = f;
        size_t *l = realloc(c->flen, n * sizeof *l);
        if (!l)
            return -1;
        c->flen = l;
        c->capf = n;
    }
    if (c->alen + len + 1 > c->acap) {
        size_t n = c->acap ? c->acap : 4096;
        while (n < c->alen + len + 1)
            n *= 2;
        char *a = realloc(c->arena, n);
        if (!a)
            return -1;
        c->arena = a;
        c->acap = n;
    }
    memcpy(c->arena + c->alen, s, len);
    c->arena[c->alen + len] = 0;
    /* Offsets until the row ends: the arena may move. */
    c->f[c->nf] = (char *)(uintptr_t)c->alen;
    c->flen[c->nf] = len;
    c->nf++;
    c->alen += len + 1;
    return 0;
}

static void on_field(void *s, size_t len, void *data)
{
    struct tp_npu_csv *c = data;
    if (c->nomem)
        return;
    if (push_field(c, s ? s : "", s ? len : 0) < 0)
        c->nomem = 1;
}

static int header_copy(struct tp_npu_csv *c)
{
    c->hdr = calloc(c->nf ? c->nf : 1, sizeof *c->hdr);
    if (!c->hdr)
        return -1;
    for (size_t i = 0; i < c->nf; i++) {
        const char *s = c->f[i];
        size_t n = c->flen[i];
        if (i == 0 && n >= 3 && memcmp(s, "\xef\xbb\xbf", 3) == 0) {
            s += 3;
            n -= 3;
        }
        while (n && isspace((unsigned char)*s)) s++, n--;
        while (n && isspace((unsigned char)s[n - 1])) n--;
        c->hdr[i] = malloc(n + 1);
        if (!c->hdr[i])
            return -1;
        memcpy(c->hdr[i], s, n);
        c->hdr[i][n] = 0;
        c->nhdr = i + 1;
    }
    return 0;
}

static void on_row(int term, void *data)
{
    (void)term;
    struct tp_npu_csv *c = data;
    if (c->nomem)
        return;
    for (size_t i = 0; i < c->nf; i++)
        c->f[i] = c->arena + (uintptr_t)c->f[i];
    if (c->in_header) {
        c->in_header = 0;
        if (header_copy(c) < 0)
            c->nomem = 1;
    } else {
        c->row++;
        if (c->fn(c, c->ctx) < 0)
            c->nomem = 1;
    }
    c->nf = 0;
    c->alen = 0;
    c->row_off = c->next_off;
}

int tp_npu_csv_parse(struct tp_npu_csv *c, const char *data, size_t len, tp_npu_row_fn fn, void *ctx)
{
    struct csv_parser p;
    if (csv_init(&p, 0) != 0)
        return -1;
    c->fn = fn;
    c->ctx = ctx;
    c->in_header = 1;
    c->row = 0;
    c->row_off = 0;
    size_t pos = 0;
    while (pos < len && !c->nomem) {
        const char *nl = memchr(data + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - data) + 1 : len;
        c->next_off = end;
        if (csv_parse(&p, data + pos, end - pos, on_field, on_row, c) != end - pos) {
            c->nomem = 1;   /* not strict: only memory can fail */
            break;
        }
        pos = end;
    }
    if (!c->nomem)
        csv_fini(&p, on_field, on_row, c);
    csv_free(&p);
    return c->nomem ? -1 : 0;
}

void tp_npu_csv_free(struct tp_npu_csv *c)
{
    for (size_t i = 0; i < c->nhdr; i++)
        free(c->hdr[i]);
    free(c->hdr);
    free(c->f);
    free(c->flen);
    free(c->arena);
    c->hdr = NULL;
    c->f = NULL;
    c->flen = NULL;
    c->arena = NULL;
    c->nhdr = c->nf = c->capf = c->alen = c->acap = 0;
}

int tp_npu_col(const struct tp_npu_csv *c, const char *name)
{
    for (size_t i = 0; i < c->nhdr; i++)
        if (strcasecmp(c->hdr[i], name) == 0)
            return (int)i;
    return -1;
}

const char *tp_npu_cell(const struct tp_npu_csv *c, int col, size_t *len)
{
    if (col < 0 || (size_t)col >= c->nf) {
        *len = 0;
        return "";
    }
    const char *s = c->f[col];
    size_t n = c->flen[col];
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        n--;
    while (n && (*s == ' ' || *s == '\t'))
        s++, n--;
    *len = n;
    return s;
}

void tp_npu_csv_bad(struct tp_npu_csv *c, int col, const char *what)
{
    char key[96], reason[96];
    const char *cname = col >= 0 && (size_t)col < c->nhdr ? c->hdr[col] : "";
    snprintf(key, sizeof key, "%s\x1f%d\x1f%s", c->file, col, what);
    for (size_t i = 0; i < c->nagg; i++)
        if (strcmp(c->agg[i].key, key) == 0 && c->agg[i].slot < c->st->nskips) {
            c->st->skips[c->agg[i].slot].count++;
            return;
        }
    if (col >= 0)
        snprintf(reason, sizeof reason, "%s row %llu, column %s: %s", c->file, (unsigned long long)c->row, cname, what);
    else if (col == -1)
        snprintf(reason, sizeof reason, "%s row %llu: %s", c->file, (unsigned long long)c->row, what);
    else
        snprintf(reason, sizeof reason, "%s: %s", c->file, what);
    tp_store_bad(c->st, reason, c->row_off);
    if (c->nagg < sizeof c->agg / sizeof c->agg[0]) {
        for (size_t i = 0; i < c->st->nskips; i++)
            if (strcmp(c->st->skips[i].reason, reason) == 0) {
                memcpy(c->agg[c->nagg].key, key, sizeof key);
                c->agg[c->nagg].slot = i;
                c->nagg++;
                break;
            }
    }
}

static int absent(const char *s, size_t n)
{
    return n == 0 || (n == 3 && memcmp(s, "N/A", 3) == 0);
}

/* The typed cells share what is absent and how a cell that is not of its
 * type is said; they differ only in the parser. */
enum cell_type { CELL_NS, CELL_I64, CELL_F64 };

static int typed_cell(struct tp_npu_csv *c, int col, enum cell_type type, void *out)
{
    static const char *const not_one[] = {"not a number of microseconds", "not an integer", "not a number"};
    size_t n;
    const char *s = tp_npu_cell(c, col, &n);
    if (absent(s, n))
        return 0;
    int e = type == CELL_NS ? tp_decimal_us_to_ns(s, n, out)
          : type == CELL_I64 ? tp_decimal_to_i64(s, n, out) : tp_decimal_to_double(s, n, out);
    if (e == 0)
        return 1;
    tp_npu_csv_bad(c, col, not_one[type]);
    return -1;
}

int tp_npu_cell_ns(struct tp_npu_csv *c, int col, int64_t *out)
{
    return typed_cell(c, col, CELL_NS, out);
}

int tp_npu_cell_i64(struct tp_npu_csv *c, int col, int64_t *out)
{
    return typed_cell(c, col, CELL_I64, out);
}

int tp_npu_cell_f64(struct tp_npu_csv *c, int col, double *out)
{
    return typed_cell(c, col, CELL_F64, out);
}
