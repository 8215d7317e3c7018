/* write.c — tp_table_write: resolves -c, --sort and --top, then hands the
 * rows to one format writer (write_space.c, write_csv.c, write_columns.c,
 * write_jsonl.c, write_markdown.c).  Also the pieces the writers share: a growable line buffer
 * and the escaping that keeps untrusted names from reaching a terminal raw. */
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include "table.h"
#include "try.h"

void tp_output_opts_init(struct tp_output_opts *o)
{
    memset(o, 0, sizeof *o);
    o->format = TP_FMT_SPACE;
    o->width = 0;
    o->columns = NULL;
    o->sort = NULL;
    o->top = 0;
    o->header = 1;
}

/* ---- line buffer -------------------------------------------------------- */

int tp_sbuf_reserve(struct tp_sbuf *b, size_t n)
{
    if (b->oom)
        return -1;
    if (b->len + n <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n) {
        if (cap > SIZE_MAX / 2) {
            b->oom = 1;
            return -1;
        }
        cap *= 2;
    }
    char *p = realloc(b->p, cap);
    if (!p) {
        b->oom = 1;
        return -1;
    }
    b->p = p;
    b->cap = cap;
    return 0;
}

void tp_sbuf_put(struct tp_sbuf *b, const char *s, size_t n)
{
    if (n == 0 || tp_sbuf_room(b, n) != 0)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

void tp_sbuf_putc(struct tp_sbuf *b, char c)
{
    if (tp_sbuf_room(b, 1) != 0)
        return;
    b->p[b->len++] = c;
}

void tp_sbuf_pad(struct tp_sbuf *b, char c, size_t n)
{
    if (n == 0 || tp_sbuf_room(b, n) != 0)
        return;
    memset(b->p + b->len, c, n);
    b->len += n;
}

void tp_sbuf_free(struct tp_sbuf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* ---- header and cells for the typed formats -------------------------------- */

static const char *const unit_names[] = {[TP_UNIT_NS] = "ns", [TP_UNIT_US] = "us", [TP_UNIT_MS] = "ms",
                                         [TP_UNIT_S] = "s"};

/* Under --timeunit: 1 for a time column kept in ns (TP_COL_US), 2 for one
 * a view computes in microseconds (a mean, a std: a number whose header
 * says "(us)"), 0 otherwise. */
static int time_col(const struct tp_wctx *w, size_t j)
{
    const struct tp_coldef *c = &w->cols[w->sel[j]];
    if (w->o->timeunit <= TP_UNIT_DEFAULT || w->o->timeunit > TP_UNIT_S)
        return 0;
    if (c->type == TP_COL_US)
        return 1;
    return (c->type == TP_COL_FIXED || c->type == TP_COL_NUM) && c->header && strstr(c->header, "(us)") ? 2 : 0;
}

int tp_wctx_plain(const struct tp_wctx *w, size_t j)
{
    return !time_col(w, j) && !tp_wctx_human(w, j);
}

const char *tp_wctx_key(const struct tp_wctx *w, size_t j, char *buf, size_t cap)
{
    const char *k = w->cols[w->sel[j]].key;
    if (!k)
        return "";
    if (!time_col(w, j) || tp_wctx_human(w, j))   /* --human: each cell says its unit */
        return k;
    snprintf(buf, cap, "%s_%s", k, unit_names[w->o->timeunit]);
    return buf;
}

const char *tp_wctx_header(const struct tp_wctx *w, size_t j, char *buf, size_t cap)
{
    const struct tp_coldef *c = &w->cols[w->sel[j]];
    if (w->o->keys)
        return tp_wctx_key(w, j, buf, cap);
    const char *h = c->header ? c->header : "";
    if (tp_wctx_human(w, j))
        return tp_human_header(h, buf, cap);
    if (!time_col(w, j))
        return h;
    /* "Total(us)" -> "Total(ms)"; a header that names no unit gets one */
    const char *u = strstr(h, "(us)");
    if (u)
        snprintf(buf, cap, "%.*s(%s)%s", (int)(u - h), h, unit_names[w->o->timeunit], u + 4);
    else
        snprintf(buf, cap, "%s(%s)", h, unit_names[w->o->timeunit]);
    return buf;
}

const char *tp_wctx_cell(const struct tp_wctx *w, size_t row, size_t j, char *buf, size_t cap, size_t *len)
{
    enum tp_cellkind k = tp_table_cell_kind(w->t, row, w->sel[j]);
    if (k == TP_CELL_STR)   /* no option below changes a text cell */
        return tp_table_cell_strn(w->t, row, w->sel[j], len);
    /* empty NULLs only where a field can be empty: space-separated text
     * would lose a field */
    if (w->o->keys && k == TP_CELL_NULL && (w->o->format == TP_FMT_CSV || w->o->format == TP_FMT_TSV)) {
        *len = 0;
        return "";
    }
    enum tp_human hk = tp_wctx_human(w, j);
    if (hk && (k == TP_CELL_INT || k == TP_CELL_FLOAT)) {
        size_t n = tp_human_cell(w->t, row, w->sel[j], hk, w->o->timeunit, buf, cap);
        *len = n < cap ? n : cap - 1;
        return buf;
    }
    int tc = time_col(w, j);
    if (tc && (k == TP_CELL_INT || k == TP_CELL_FLOAT)) {
        double f = k == TP_CELL_FLOAT ? tp_table_cell_float(w->t, row, w->sel[j])
                                      : (double)tp_table_cell_int(w->t, row, w->sel[j]);
        size_t n = tc == 1 && k == TP_CELL_INT
                       ? tp_fmt_time(tp_table_cell_int(w->t, row, w->sel[j]), w->o->timeunit, buf, cap)
                       : tp_fmt_time_float(tc == 2 ? f * 1000.0 : f, w->o->timeunit, buf, cap);
        *len = n < cap ? n : cap - 1;
        return buf;
    }
    return tp_cell_text(w->t, row, w->sel[j], buf, cap, len);
}

/* ---- safe text ---------------------------------------------------------- */

static int cont(unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

size_t tp_text_unit(const unsigned char *s, size_t len, int *esc)
{
    unsigned char b = s[0];
    *esc = 0;
    if (b < 0x80) {
        *esc = b < 0x20 || b == 0x7f;
        return 1;
    }
    if (b >= 0xC2 && b <= 0xDF) {
        if (len >= 2 && cont(s[1])) {
            *esc = b == 0xC2 && s[1] < 0xA0;   /* C1 control U+0080..U+009F */
            return 2;
        }
    } else if (b >= 0xE0 && b <= 0xEF) {
        unsigned char lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
        if (len >= 3 && s[1] >= lo && s[1] <= hi && cont(s[2]))
            return 3;
    } else if (b >= 0xF0 && b <= 0xF4) {
        unsigned char lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
        if (len >= 4 && s[1] >= lo && s[1] <= hi && cont(s[2]) && cont(s[3]))
            return 4;
    }
    *esc = 1;   /* invalid UTF-8: this byte alone */
    return 1;
}

static void put_escaped_bytes(struct tp_sbuf *b, const unsigned char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        char e[4] = { '\\', 'x', hex[s[i] >> 4], hex[s[i] & 15] };
        tp_sbuf_put(b, e, 4);
    }
}

/* Bytes that need no look at all: printable ASCII.  Eight at a time while
 * a word has none below 0x20 and none at or above 0x7f (the classic
 * "has a byte less than n" tests, exact for whether any byte is). */
static size_t plain_run(const unsigned char *s, size_t len)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t x;
        memcpy(&x, s + i, 8);
        if ((((x - ones * 0x20) & ~x) | (x + ones * (127 - 0x7e)) | x) & highs)
            break;
    }
    while (i < len && s[i] >= 0x20 && s[i] < 0x7f)
        i++;
    return i;
}

void tp_text_put(struct tp_sbuf *b, const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < len) {
        size_t r = plain_run(s + i, len - i);
        tp_sbuf_put(b, (const char *)s + i, r);
        i += r;
        if (i == len)
            break;
        int esc;
        size_t u = tp_text_unit(s + i, len - i, &esc);
        if (esc)
            put_escaped_bytes(b, s + i, u);
        else
            tp_sbuf_put(b, (const char *)s + i, u);
        i += u;
    }
}

size_t tp_text_width(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, w = 0;
    while (i < len) {
        size_t r = plain_run(s + i, len - i);
        i += r;
        w += r;
        if (i == len)
            break;
        int esc;
        size_t u = tp_text_unit(s + i, len - i, &esc);
        w += esc ? 4 * u : 1;
        i += u;
    }
    return w;
}

size_t tp_text_put_trunc(struct tp_sbuf *b, const char *str, size_t len, size_t w, int pad)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0, used = 0;
    while (i < len && used < w) {
        size_t r = plain_run(s + i, len - i);
        if (r > w - used)
            r = w - used;
        tp_sbuf_put(b, (const char *)s + i, r);
        i += r;
        used += r;
        if (i == len || used == w)
            break;
        int esc;
        size_t u = tp_text_unit(s + i, len - i, &esc);
        size_t uw = esc ? 4 * u : 1;
        if (used + uw > w)
            break;   /* never cut an escape: pad instead */
        if (esc)
            put_escaped_bytes(b, s + i, u);
        else
            tp_sbuf_put(b, (const char *)s + i, u);
        i += u;
        used += uw;
    }
    if (pad && used < w)
        tp_sbuf_pad(b, ' ', w - used);
    return used;
}

/* ---- output ------------------------------------------------------------- */

int tp_write_line(const struct tp_wctx *w, struct tp_sbuf *b)
{
    if (b->oom)
        return tp_error_set(w->err, TP_ERR_NOMEM, "out of memory while writing the table");
    if (b->len && fwrite(b->p, 1, b->len, w->out) != b->len) {
        int e = errno;
        if (w->err)
            w->err->sys_errno = e;
        return tp_error_set(w->err, TP_ERR_IO, "write error: %s", strerror(e ? e : EIO));
    }
    b->len = 0;
    return TP_OK;
}

int tp_write_header(const struct tp_wctx *w, struct tp_sbuf *b, size_t nsel,
                    void (*put)(struct tp_sbuf *b, const char *h, size_t j, void *ctx), void *ctx)
{
    if (!w->o->header)
        return TP_OK;
    for (size_t j = 0; j < nsel; j++) {
        char hb[160];
        put(b, tp_wctx_header(w, j, hb, sizeof hb), j, ctx);
    }
    tp_sbuf_putc(b, '\n');
    return tp_write_line(w, b);
}

/* Rows are handed to stdio this many bytes at a time rather than a line at
 * a time: one fwrite per row of a 250K-row table was a tenth of writing it. */
#define ROWS_BATCH ((size_t)1 << 16)

int tp_write_rows(const struct tp_wctx *w, struct tp_sbuf *b, size_t nsel,
                  void (*put)(struct tp_sbuf *b, const struct tp_wctx *w, size_t row, size_t j, void *ctx),
                  void *ctx)
{
    int rc = TP_OK;
    for (size_t i = 0; rc == TP_OK && i < w->nrows; i++) {
        size_t row = tp_wctx_row(w, i);
        for (size_t j = 0; j < nsel; j++)
            put(b, w, row, j, ctx);
        tp_sbuf_putc(b, '\n');
        if (b->len >= ROWS_BATCH || b->oom || i + 1 == w->nrows)
            rc = tp_write_line(w, b);
    }
    return rc;
}

int tp_write_footer(const struct tp_wctx *w)
{
    if (tp_table_footer(w->t)[0] && fputs(tp_table_footer(w->t), w->out) < 0)
        return tp_error_set(w->err, TP_ERR_IO, "write error");
    return TP_OK;
}

/* --name: keep the rows (in *perm order, made if NULL) whose name, kernel or
 * op column (any of them the table has) matches. */
static int filter_by_name(const tp_table *t, const char *pattern, size_t **perm, size_t *nrows, tp_error *err)
{
    static const char *const keys[] = {"name", "kernel", "op"};
    const struct tp_coldef *cols = tp_table_coldefs(t);
    long nc[3];
    size_t nn = 0;
    for (size_t k = 0; k < 3; k++)
        if ((nc[nn] = tp_table_col_find(cols, tp_table_cols(t), keys[k])) >= 0)
            nn++;
    if (!nn)
        return tp_error_set(err, TP_ERR_USAGE, "--name: this table has no name, kernel or op column");
    regex_t re;
    int e = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB);
    if (e) {
        char why[128];
        regerror(e, &re, why, sizeof why);
        return tp_error_set(err, TP_ERR_USAGE, "--name: '%.200s': %s", pattern, why);
    }
    if (!*perm && *nrows) {
        *perm = malloc(*nrows * sizeof **perm);
        if (!*perm) {
            regfree(&re);
            return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
        }
        for (size_t i = 0; i < *nrows; i++)
            (*perm)[i] = i;
    }
    struct tp_sbuf name = {0};
    size_t kept = 0;
    for (size_t i = 0; i < *nrows && !name.oom; i++) {
        int hit = 0;
        for (size_t c = 0; c < nn && !hit && !name.oom; c++) {
            char buf[TP_CELLBUF];
            size_t len;
            const char *s = tp_cell_text(t, (*perm)[i], (size_t)nc[c], buf, sizeof buf, &len);
            name.len = 0;
            tp_sbuf_put(&name, s, len);   /* regexec wants a C string; names may hold NUL */
            tp_sbuf_putc(&name, 0);
            hit = !name.oom && regexec(&re, name.p, 0, NULL, 0) == 0;
        }
        if (hit)
            (*perm)[kept++] = (*perm)[i];
    }
    int oom = name.oom;
    tp_sbuf_free(&name);
    regfree(&re);
    if (oom)
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    *nrows = kept;
    return TP_OK;
}

/* torch.profiler key_averages().table(sort_by=...) names, for the columns
 * that mean the same in tprof's tables (a view without such a column still
 * says which keys are valid). */
static const char *const SORT_ALIASES[][2] = {
    {"count", "calls"},
    {"cpu_time_total", "host_total"}, {"self_cpu_time_total", "host_self"},
    {"cuda_time_total", "dev_total"}, {"self_cuda_time_total", "dev_self"},
    {"device_time_total", "dev_total"}, {"self_device_time_total", "dev_self"},
    {"xpu_time_total", "dev_total"}, {"self_xpu_time_total", "dev_self"},
    {"cpu_time", "cpu_avg"}, {"cuda_time", "cuda_avg"}, {"device_time", "cuda_avg"},
    {"cpu_memory_usage", "cpu_mem"}, {"self_cpu_memory_usage", "self_cpu_mem"},
    {"cuda_memory_usage", "dev_mem"}, {"self_cuda_memory_usage", "self_dev_mem"},
    {"device_memory_usage", "dev_mem"}, {"self_device_memory_usage", "self_dev_mem"},
};

static long sort_col_find(const struct tp_coldef *cols, size_t ncols, const char *key)
{
    long sc = tp_table_col_find(cols, ncols, key);
    for (size_t i = 0; sc < 0 && i < sizeof SORT_ALIASES / sizeof *SORT_ALIASES; i++)
        if (strcmp(key, SORT_ALIASES[i][0]) == 0)
            sc = tp_table_col_find(cols, ncols, SORT_ALIASES[i][1]);
    return sc;
}

/* --sort KEY[,KEY...]: one key without a sign keeps the single-column
 * order (numbers descending, text ascending); signs (-KEY descending, +KEY
 * ascending) and more keys sort by each in turn. */
static int sort_by(const tp_table *t, const struct tp_coldef *cols, size_t ncols, const char *spec, size_t **perm,
                   size_t nrows, tp_error *err)
{
    size_t keys[16], nk = 0;
    int dirs[16];
    for (const char *p = spec; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int dir = 0;
        if (len && (*p == '-' || *p == '+')) {
            dir = *p == '-' ? -1 : 1;
            p++;
            len--;
        }
        char key[128];
        if (len == 0 || len >= sizeof key || nk == 16)
            return tp_error_set(err, TP_ERR_USAGE, "--sort: '%.100s' is not a list of at most 16 column keys", spec);
        memcpy(key, p, len);
        key[len] = 0;
        long sc = sort_col_find(cols, ncols, key);
        if (sc < 0) {   /* the same message as -c, so the user sees the valid keys */
            size_t dummy[1], nd;
            int rc = tp_table_select(cols, ncols, key, dummy, 1, &nd, err);
            return rc != TP_OK ? rc : tp_error_set(err, TP_ERR_USAGE, "no sort column given");
        }
        keys[nk] = (size_t)sc;
        dirs[nk++] = dir;
        p += len + (e ? 1 : 0);
        if (e && !*p)
            return tp_error_set(err, TP_ERR_USAGE, "--sort: '%.100s' ends with a comma", spec);
    }
    if (nk == 0)
        return tp_error_set(err, TP_ERR_USAGE, "no sort column given");
    if (!nrows)
        return TP_OK;
    *perm = malloc(nrows * sizeof **perm);
    if (!*perm)
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory sorting %zu rows", nrows);
    for (size_t i = 0; i < nrows; i++)
        (*perm)[i] = i;
    int r = nk == 1 && dirs[0] == 0 ? tp_table_sort_rows(t, keys[0], *perm, nrows)
                                     : tp_table_sort_keys(t, keys, dirs, nk, *perm, nrows);
    return r == 0 ? TP_OK : tp_error_set(err, TP_ERR_NOMEM, "out of memory sorting %zu rows", nrows);
}

int tp_table_order(const tp_table *t, const struct tp_output_opts *o, size_t **order, size_t *n, tp_error *err)
{
    const struct tp_coldef *cols = tp_table_coldefs(t);
    size_t ncols = tp_table_cols(t);
    size_t nrows = tp_table_rows(t);
    size_t *perm = NULL;
    int rc = TP_OK;
    *order = NULL;
    *n = 0;
    if (o->sort && (rc = sort_by(t, cols, ncols, o->sort, &perm, nrows, err)) != TP_OK)
        goto fail;
    if (o->name_regex && (rc = filter_by_name(t, o->name_regex, &perm, &nrows, err)) != TP_OK)
        goto fail;
    if (o->top && o->top < nrows)
        nrows = o->top;

    *order = perm;
    *n = nrows;
    return TP_OK;
fail:
    free(perm);
    return rc;
}

int tp_table_write(const tp_table *t, const struct tp_output_opts *o, FILE *out, tp_error *err)
{
    if (!t || !out)
        return tp_error_set(err, TP_ERR_USAGE, "no table to write");
    struct tp_output_opts defaults;
    if (!o) {
        tp_output_opts_init(&defaults);
        o = &defaults;
    }
    if (tp_table_nomem(t))
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory while building the table");

    const struct tp_coldef *cols = tp_table_coldefs(t);
    size_t ncols = tp_table_cols(t);
    size_t nrows = tp_table_rows(t);
    size_t *sel = NULL, *perm = NULL, nsel = 0;
    int rc = TP_OK;

    /* -c: a list of n keys has n-1 commas. */
    size_t cap = ncols;
    if (o->columns) {
        cap = 1;
        for (const char *p = o->columns; *p; p++)
            cap += *p == ',';
    }
    sel = malloc((cap ? cap : 1) * sizeof *sel);
    TP_TRY_NOMEM(sel, err);
    if (o->columns) {
        TP_TRY_TO(rc, tp_table_select(cols, ncols, o->columns, sel, cap, &nsel, err), done);
    } else {
        for (nsel = 0; nsel < ncols; nsel++)
            sel[nsel] = nsel;
    }

    TP_TRY_TO(rc, tp_table_order(t, o, &perm, &nrows, err), done);

    struct tp_wctx w = { t, cols, sel, nsel, perm, nrows, o, out, err };
    switch (o->format) {
    case TP_FMT_SPACE: rc = tp_write_space(&w); break;
    case TP_FMT_CSV: rc = tp_write_csv(&w); break;
    case TP_FMT_COLUMNS:
        /* prof.py: columnated iff w > 0, so -w 0 is the space format */
        rc = o->width > 0 ? (tp_table_chart(t) ? tp_write_chart(&w) : tp_write_columns(&w)) : tp_write_space(&w);
        break;
    case TP_FMT_JSONL: rc = tp_write_jsonl(&w); break;
    case TP_FMT_MARKDOWN: rc = tp_write_markdown(&w); break;
    case TP_FMT_TSV: rc = tp_write_tsv(&w); break;
    default: rc = tp_error_set(err, TP_ERR_USAGE, "unknown output format %d", (int)o->format); break;
    }
    errno = 0;
    if (rc == TP_OK && (fflush(out) != 0 || ferror(out))) {
        int e = errno;
        if (err)
            err->sys_errno = e;
        rc = tp_error_set(err, TP_ERR_IO, "write error: %s", strerror(e ? e : EIO));
    }
done:
    free(sel);
    free(perm);
    return rc;
}
