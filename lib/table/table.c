/* table.c — typed rows of cells, the column registry helpers, sorting and
 * number formatting.
 *
 * A table can hold one row per GPU kernel, i.e. millions of rows, so cells are
 * stored compactly: rows live in chunks of TP_CHUNK_ROWS rows, each chunk one
 * allocation holding a 4-byte value per cell.  Strings are interned in a
 * tp_strtab (each distinct string stored once) and a string cell keeps its
 * 32-bit id; an integer cell its value when it fits in 32 bits (indexes,
 * counts, most durations in ns), else, like a float cell, the index of its
 * 8 bytes in the chunk's side array of wide values.  A chunk keeps a kind
 * byte per cell only once the cells of a column differ in kind within it;
 * until then one byte per column gives the kind of all of them (the row
 * being filled keeps its kinds apart, in lastk, until the next row comes).
 * 8-byte cells with a kind byte each made the default view's table of 245K
 * rows take 9 bytes a cell instead of 4.  There is no per-cell allocation. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "numfmt.h"
#include "strtab.h"
#include "table.h"
#include "cmp.h"

#define TP_CHUNK_SHIFT 12
#define TP_CHUNK_ROWS ((size_t)1 << TP_CHUNK_SHIFT)

struct tp_chunk {
    uint32_t *v;           /* TP_CHUNK_ROWS * nkept values: a string id, an int32, or an index into wide */
    unsigned char *ck;     /* nkept kinds (after v): each column's, for every complete row of the chunk */
    unsigned char *k;      /* NULL, or once a column's kinds differ: TP_CHUNK_ROWS * nkept kinds
                              (enum tp_cellkind, | WIDE: the value is in wide) */
    uint64_t *wide;        /* the 8-byte values: int64 outside int32's range, doubles (their bits) */
    size_t nwide, capwide;
};
#define WIDE 0x80

/* A string's id by its address (tp_table_set_str_stable): open addressing
 * on the address, p NULL when free. */
struct addr_slot {
    const char *p;
    uint32_t id;
};

struct tp_table {
    const struct tp_coldef *cols;
    size_t ncols;
    size_t nrows;
    struct tp_chunk *chunks;
    size_t nchunks, capchunks;
    tp_strtab strs;
    int oom;
    char *footer;            /* lines printed after the table (key_averages' totals), "" none */
    const struct tp_chart *chart;   /* --plot: how to draw it (write_chart.c), NULL none */
    char *defcols;           /* default columns chosen by the view for this input, NULL none */
    struct addr_slot *addr;  /* ids of stable strings by address; nslots a power of two */
    size_t naddr, addr_slots;
    struct addr_slot *lastaddr;   /* per column, the stable string it was last set to:
                                     a column often repeats its string row after row */
    /* The cells a row keeps: every column, unless tp_table_keep_columns
     * named the ones its reader will use (the others are NULL and cost
     * nothing).  slot[col] is the column's cell in a row, NOSLOT for one
     * not kept; nkept cells a row. */
    uint16_t *slot;
    size_t nkept;
    unsigned char *lastk;    /* nkept kinds of the last row's cells */
};

#define NOSLOT UINT16_MAX

/* ---- construction ------------------------------------------------------- */

tp_table *tp_table_new(const struct tp_coldef *cols, size_t ncols)
{
    tp_table *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->cols = cols;
    t->ncols = ncols;
    t->nkept = ncols;
    t->slot = malloc((ncols ? ncols : 1) * sizeof *t->slot);
    t->lastk = malloc(ncols ? ncols : 1);
    t->lastaddr = calloc(ncols ? ncols : 1, sizeof *t->lastaddr);
    if (!t->slot || !t->lastk || !t->lastaddr || ncols >= NOSLOT || tp_strtab_init(&t->strs) != 0) {
        tp_strtab_free(&t->strs);
        free(t->slot);
        free(t->lastk);
        free(t->lastaddr);
        free(t);
        return NULL;
    }
    for (size_t i = 0; i < ncols; i++)
        t->slot[i] = (uint16_t)i;
    return t;
}

void tp_table_free(tp_table *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nchunks; i++) {
        free(t->chunks[i].v);
        free(t->chunks[i].k);
        free(t->chunks[i].wide);
    }
    free(t->chunks);
    tp_strtab_free(&t->strs);
    free(t->footer);
    free(t->defcols);
    free(t->addr);
    free(t->slot);
    free(t->lastk);
    free(t->lastaddr);
    free(t);
}

int tp_table_keep_columns(tp_table *t, const char *list)
{
    if (!t || t->nrows || !list || !*list)
        return 0;
    size_t *idx = malloc(t->ncols * sizeof *idx), n = 0;
    if (!idx) {
        t->oom = 1;   /* tp_table_write reports it */
        return -1;
    }
    /* an unknown key (a unit-suffixed one, a typo the writer will name):
     * every column stays, the writer decides */
    if (tp_table_select(t->cols, t->ncols, list, idx, t->ncols, &n, NULL) == TP_OK) {
        for (size_t i = 0; i < t->ncols; i++)
            t->slot[i] = NOSLOT;
        t->nkept = 0;
        for (size_t i = 0; i < n; i++)
            if (t->slot[idx[i]] == NOSLOT)
                t->slot[idx[i]] = (uint16_t)t->nkept++;
    }
    free(idx);
    return 0;
}

int tp_table_add_footer(tp_table *t, const char *line)
{
    size_t have = t->footer ? strlen(t->footer) : 0, n = strlen(line);
    char *p = realloc(t->footer, have + n + 2);
    if (!p) {
        t->oom = 1;   /* tp_table_write reports it */
        return -1;
    }
    memcpy(p + have, line, n);
    p[have + n] = '\n';
    p[have + n + 1] = 0;
    t->footer = p;
    return 0;
}

void tp_table_set_chart(tp_table *t, const struct tp_chart *c)
{
    if (t)
        t->chart = c;
}

const struct tp_chart *tp_table_chart(const tp_table *t)
{
    return t ? t->chart : NULL;
}

const char *tp_table_footer(const tp_table *t)
{
    return t && t->footer ? t->footer : "";
}

int tp_table_set_default_columns(tp_table *t, const char *list)
{
    char *p = strdup(list);
    if (!p) {
        t->oom = 1;   /* tp_table_write reports it */
        return -1;
    }
    free(t->defcols);
    t->defcols = p;
    return 0;
}

const char *tp_table_default_columns(const tp_table *t)
{
    return t ? t->defcols : NULL;
}

size_t tp_table_rows(const tp_table *t)
{
    return t ? t->nrows : 0;
}

size_t tp_table_cols(const tp_table *t)
{
    return t ? t->ncols : 0;
}

const struct tp_coldef *tp_table_coldefs(const tp_table *t)
{
    return t->cols;
}

int tp_table_nomem(const tp_table *t)
{
    return t->oom;
}

/* The kinds of the last row (lastk) into its chunk: the column kinds of
 * the chunk when it is the first row or they agree, else a kind per cell
 * from now on.  -1 on out of memory (the table is then marked). */
static int commit_last(tp_table *t)
{
    size_t r = t->nrows - 1, i = r & (TP_CHUNK_ROWS - 1), nk = t->nkept;
    struct tp_chunk *ch = &t->chunks[r >> TP_CHUNK_SHIFT];
    if (!ch->k) {
        if (i == 0 || memcmp(ch->ck, t->lastk, nk) == 0) {
            memcpy(ch->ck, t->lastk, nk);
            return 0;
        }
        ch->k = malloc(TP_CHUNK_ROWS * (nk ? nk : 1));
        if (!ch->k) {
            t->oom = 1;
            return -1;
        }
        for (size_t j = 0; j < i; j++)
            memcpy(ch->k + j * nk, ch->ck, nk);
    }
    memcpy(ch->k + i * nk, t->lastk, nk);
    return 0;
}

int tp_table_take(tp_table **t, tp_table **out, const char *path, tp_error *err)
{
    if (tp_table_nomem(*t))
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", path);
    *out = *t;
    *t = NULL;
    return TP_OK;
}

long tp_table_add_row(tp_table *t)
{
    if (!t)
        return -1;
    if (t->nrows && commit_last(t) < 0)
        return -1;
    size_t r = t->nrows;
    size_t c = r >> TP_CHUNK_SHIFT;
    if (c == t->nchunks) {
        if (t->nchunks == t->capchunks) {
            size_t cap = t->capchunks ? t->capchunks * 2 : 16;
            struct tp_chunk *ch = realloc(t->chunks, cap * sizeof *ch);
            if (!ch) {
                t->oom = 1;
                return -1;
            }
            t->chunks = ch;
            t->capchunks = cap;
        }
        size_t ncells = TP_CHUNK_ROWS * (t->nkept ? t->nkept : 1);
        uint32_t *v = malloc(ncells * sizeof *v + (t->nkept ? t->nkept : 1));
        if (!v) {
            t->oom = 1;
            return -1;
        }
        t->chunks[c] = (struct tp_chunk){v, (unsigned char *)(v + ncells), NULL, NULL, 0, 0};
        t->nchunks++;
    }
    size_t off = (r & (TP_CHUNK_ROWS - 1)) * t->nkept;
    memset(t->lastk, TP_CELL_NULL, t->nkept);
    memset(t->chunks[c].v + off, 0, t->nkept * sizeof *t->chunks[c].v);
    t->nrows++;
    return (long)r;
}

/* The offset of a kept column's cell in its chunk. */
static inline size_t cell_off(const tp_table *t, size_t row, size_t col)
{
    return (row & (TP_CHUNK_ROWS - 1)) * t->nkept + t->slot[col];
}

/* Cell col of the last row: its value in its chunk (*ch, at *off) and
 * its kind (*k, in lastk); 0 when there is no row, col is out of range
 * or not kept. */
static int last_cell(tp_table *t, size_t col, struct tp_chunk **ch, size_t *off, unsigned char **k)
{
    if (!t || t->nrows == 0 || col >= t->ncols || t->slot[col] == NOSLOT)
        return 0;
    size_t r = t->nrows - 1;
    *ch = &t->chunks[r >> TP_CHUNK_SHIFT];
    *off = cell_off(t, r, col);
    *k = &t->lastk[t->slot[col]];
    return 1;
}

void tp_table_set_strn(tp_table *t, size_t col, const char *s, size_t len)
{
    struct tp_chunk *ch;
    size_t off;
    unsigned char *k;
    if (!last_cell(t, col, &ch, &off, &k))
        return;
    if (!s) {
        *k = TP_CELL_NULL;
        return;
    }
    if (len > UINT32_MAX - 1)
        len = UINT32_MAX - 1;
    uint32_t id = tp_strtab_intern(&t->strs, s, len);
    if (id == UINT32_MAX) {
        t->oom = 1;
        *k = TP_CELL_NULL;
        return;
    }
    ch->v[off] = id;
    *k = TP_CELL_STR;
}

void tp_table_set_str(tp_table *t, size_t col, const char *s)
{
    tp_table_set_strn(t, col, s, s ? strlen(s) : 0);
}

static size_t addr_hash(const char *p, size_t nslots)
{
    uint64_t h = (uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15u;
    return (size_t)(h >> 32) & (nslots - 1);
}

/* Room for one more address (at most half the slots used); -1 when the
 * map cannot grow: the table is then marked out of memory (a failed
 * allocation is reported, never done without). */
static int addr_room(tp_table *t)
{
    if (2 * (t->naddr + 1) <= t->addr_slots)
        return 0;
    size_t n = t->addr_slots ? 2 * t->addr_slots : 1024;
    struct addr_slot *a = calloc(n, sizeof *a);
    if (!a) {
        t->oom = 1;
        return -1;
    }
    for (size_t i = 0; i < t->addr_slots; i++) {
        if (!t->addr[i].p)
            continue;
        size_t h = addr_hash(t->addr[i].p, n);
        while (a[h].p)
            h = (h + 1) & (n - 1);
        a[h] = t->addr[i];
    }
    free(t->addr);
    t->addr = a;
    t->addr_slots = n;
    return 0;
}

void tp_table_set_str_stable(tp_table *t, size_t col, const char *s)
{
    if (t && col < t->ncols && t->slot[col] == NOSLOT)
        return;   /* not kept: nothing to intern */
    struct tp_chunk *ch;
    size_t off;
    unsigned char *k;
    if (s && t && t->nrows && col < t->ncols && t->lastaddr[col].p == s) {
        last_cell(t, col, &ch, &off, &k);
        ch->v[off] = t->lastaddr[col].id;
        *k = TP_CELL_STR;
        return;
    }
    if (!s || !t || t->nrows == 0 || col >= t->ncols || addr_room(t) < 0) {
        tp_table_set_str(t, col, s);
        return;
    }
    size_t h = addr_hash(s, t->addr_slots);
    while (t->addr[h].p && t->addr[h].p != s)
        h = (h + 1) & (t->addr_slots - 1);
    if (!t->addr[h].p) {
        tp_table_set_str(t, col, s);
        if (!last_cell(t, col, &ch, &off, &k) || *k != TP_CELL_STR)
            return;   /* out of memory: the table says so */
        t->addr[h] = (struct addr_slot){s, ch->v[off]};
        t->naddr++;
        t->lastaddr[col] = t->addr[h];
        return;
    }
    last_cell(t, col, &ch, &off, &k);
    ch->v[off] = t->addr[h].id;
    *k = TP_CELL_STR;
    t->lastaddr[col] = t->addr[h];
}

/* Cell col of the last row holds the 8 bytes `bits` of kind: in the
 * chunk's wide values (the slot it had, when it was wide already). */
static void set_wide(tp_table *t, size_t col, unsigned char kind, uint64_t bits)
{
    struct tp_chunk *ch;
    size_t off;
    unsigned char *k;
    if (!last_cell(t, col, &ch, &off, &k))
        return;
    if (!(*k & WIDE)) {
        if (ch->nwide == ch->capwide) {
            size_t cap = ch->capwide ? 2 * ch->capwide : 64;
            uint64_t *w = realloc(ch->wide, cap * sizeof *w);
            if (!w) {
                t->oom = 1;   /* tp_table_write reports it */
                *k = TP_CELL_NULL;
                return;
            }
            ch->wide = w;
            ch->capwide = cap;
        }
        ch->v[off] = (uint32_t)ch->nwide++;
    }
    ch->wide[ch->v[off]] = bits;
    *k = (unsigned char)(kind | WIDE);
}

void tp_table_set_int(tp_table *t, size_t col, int64_t x)
{
    if (x < INT32_MIN || x > INT32_MAX) {
        set_wide(t, col, TP_CELL_INT, (uint64_t)x);
        return;
    }
    struct tp_chunk *ch;
    size_t off;
    unsigned char *k;
    if (!last_cell(t, col, &ch, &off, &k))
        return;
    ch->v[off] = (uint32_t)(int32_t)x;
    *k = TP_CELL_INT;
}

void tp_table_set_float(tp_table *t, size_t col, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    set_wide(t, col, TP_CELL_FLOAT, bits);
}

void tp_table_set_null(tp_table *t, size_t col)
{
    struct tp_chunk *ch;
    size_t off;
    unsigned char *k;
    if (!last_cell(t, col, &ch, &off, &k))
        return;
    *k = TP_CELL_NULL;
}

/* ---- read access -------------------------------------------------------- */

static int get_cell(const tp_table *t, size_t row, size_t col, union tp_cellval *v)
{
    if (!t || row >= t->nrows || col >= t->ncols || t->slot[col] == NOSLOT)
        return TP_CELL_NULL;
    const struct tp_chunk *ch = &t->chunks[row >> TP_CHUNK_SHIFT];
    size_t off = cell_off(t, row, col);
    unsigned char k = row + 1 == t->nrows ? t->lastk[t->slot[col]] : ch->k ? ch->k[off] : ch->ck[t->slot[col]];
    if (k & WIDE) {
        uint64_t bits = ch->wide[ch->v[off]];
        k &= (unsigned char)~WIDE;
        if (k == TP_CELL_INT)
            v->i = (int64_t)bits;
        else
            memcpy(&v->f, &bits, sizeof v->f);
    } else if (k == TP_CELL_INT) {
        v->i = (int32_t)ch->v[off];
    } else {
        v->s = ch->v[off];
    }
    return k;
}

enum tp_cellkind tp_table_cell_kind(const tp_table *t, size_t row, size_t col)
{
    union tp_cellval v;
    return (enum tp_cellkind)get_cell(t, row, col, &v);
}

const char *tp_table_cell_strn(const tp_table *t, size_t row, size_t col, size_t *len)
{
    union tp_cellval v;
    if (get_cell(t, row, col, &v) != TP_CELL_STR) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (len)
        *len = tp_strtab_len(&t->strs, v.s);
    return tp_strtab_get(&t->strs, v.s);
}

const char *tp_table_cell_str(const tp_table *t, size_t row, size_t col)
{
    return tp_table_cell_strn(t, row, col, NULL);
}

int64_t tp_table_cell_int(const tp_table *t, size_t row, size_t col)
{
    union tp_cellval v;
    switch (get_cell(t, row, col, &v)) {
    case TP_CELL_INT: return v.i;
    case TP_CELL_FLOAT:
        if (isnan(v.f))
            return 0;
        if (v.f >= 9223372036854775807.0)
            return INT64_MAX;
        if (v.f <= -9223372036854775808.0)
            return INT64_MIN;
        return (int64_t)v.f;
    default: return 0;
    }
}

double tp_table_cell_float(const tp_table *t, size_t row, size_t col)
{
    union tp_cellval v;
    switch (get_cell(t, row, col, &v)) {
    case TP_CELL_INT: return (double)v.i;
    case TP_CELL_FLOAT: return v.f;
    default: return 0.0;
    }
}

/* ---- number formatting -------------------------------------------------- */

/* Copy src[0..n) into buf (NUL-terminated within cap); return n. */
static size_t put_out(const char *src, size_t n, char *buf, size_t cap)
{
    if (cap) {
        size_t m = n < cap - 1 ? n : cap - 1;
        memcpy(buf, src, m);
        buf[m] = '\0';
    }
    return n;
}

size_t tp_fmt_pyfloat(double v, char *buf, size_t cap)
{
    char out[64];
    size_t n = 0;
    if (isnan(v))
        return put_out("nan", 3, buf, cap);
    if (isinf(v))
        return v < 0 ? put_out("-inf", 4, buf, cap) : put_out("inf", 3, buf, cap);
    if (v == 0.0)
        return signbit(v) ? put_out("-0.0", 4, buf, cap) : put_out("0.0", 3, buf, cap);
    if (fabs(v) < 1e16 && v == trunc(v)) {
        /* Integral below 1e16: every such double prints exactly, and its exact
         * digits are also the shortest round-trip digits. */
        size_t k = tp_numfmt_i64((int64_t)v, out);   /* "%.0f": exact below 2^63 */
        memcpy(out + k, ".0", 2);
        return put_out(out, k + 2, buf, cap);
    }
    /* Shortest digit string that reads back as v (Python's repr).  A double
     * whose shortest form has p <= 15 digits rounds to that form padded with
     * zeros at 15 digits (15-digit decimals are coarser than doubles), so
     * 15, 16, 17 digits are the only tries needed; zeros are trimmed below. */
    char e[40];
    for (int p = fabs(v) < DBL_MIN ? 1 : 15; p <= 17; p++) {   /* subnormals: fewer bits */
        snprintf(e, sizeof e, "%.*e", p - 1, v);
        if (p == 17 || strtod(e, NULL) == v)
            break;
    }
    /* e is "-d.ddddde+XX": split into sign, digits, exponent. */
    const char *s = e;
    if (*s == '-')
        out[n++] = *s++;
    char digits[24];
    size_t nd = 0;
    for (; *s && *s != 'e'; s++)
        if (*s != '.')
            digits[nd++] = *s;
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    int exp10 = atoi(s + 1);
    int decpt = exp10 + 1;   /* digits d1d2... mean 0.d1d2... * 10^decpt */
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            out[n++] = '0';
            out[n++] = '.';
            for (int i = decpt; i < 0; i++)
                out[n++] = '0';
            memcpy(out + n, digits, nd);
            n += nd;
        } else {
            for (int i = 0; i < decpt; i++)
                out[n++] = (size_t)i < nd ? digits[i] : '0';
            out[n++] = '.';
            if ((size_t)decpt < nd) {
                memcpy(out + n, digits + decpt, nd - (size_t)decpt);
                n += nd - (size_t)decpt;
            } else {
                out[n++] = '0';
            }
        }
    } else {
        out[n++] = digits[0];
        if (nd > 1) {
            out[n++] = '.';
            memcpy(out + n, digits + 1, nd - 1);
            n += nd - 1;
        }
        n += (size_t)snprintf(out + n, sizeof out - n, "e%c%02d", exp10 < 0 ? '-' : '+',
                              exp10 < 0 ? -exp10 : exp10);
    }
    return put_out(out, n, buf, cap);
}

/* ns in `unit` (enum tp_timeunit; the default is microseconds), exactly:
 * the integer part, then the remainder's digits with trailing zeros trimmed
 * (1234567 ns = 1234.567 us = 1.234567 ms). */
int tp_time_unit(int *unit, uint64_t *div)
{
    static const int digits[] = {[TP_UNIT_NS] = 0, [TP_UNIT_US] = 3, [TP_UNIT_MS] = 6, [TP_UNIT_S] = 9};
    static const uint64_t per[] = {[TP_UNIT_NS] = 1, [TP_UNIT_US] = 1000, [TP_UNIT_MS] = 1000000,
                                   [TP_UNIT_S] = 1000000000};
    if (*unit <= TP_UNIT_DEFAULT || *unit > TP_UNIT_S)
        *unit = TP_UNIT_US;
    *div = per[*unit];
    return digits[*unit];
}

size_t tp_fmt_time(int64_t ns, int unit, char *buf, size_t cap)
{
    uint64_t div;
    int d = tp_time_unit(&unit, &div);
    char out[TP_NUMFMT_CAP];
    uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    uint64_t frac = mag % div;
    size_t n = 0;
    if (ns < 0)
        out[n++] = '-';
    n += tp_numfmt_u64(mag / div, out + n);
    if (frac) {
        out[n++] = '.';
        size_t fl = tp_numfmt_u64_pad(frac, d, out + n);
        while (out[n + fl - 1] == '0')
            fl--;
        n += fl;
    }
    return put_out(out, n, buf, cap);
}

size_t tp_fmt_us(int64_t ns, char *buf, size_t cap)
{
    return tp_fmt_time(ns, TP_UNIT_US, buf, cap);
}

/* A float number of ns in `unit`: 3 decimals beyond the unit's ns digits... */
size_t tp_fmt_time_float(double ns, int unit, char *buf, size_t cap)
{
    char out[400];
    uint64_t div;
    int d = tp_time_unit(&unit, &div);
    if (!isfinite(ns))
        return tp_fmt_pyfloat(ns, buf, cap);
    double v = ns / (double)div;
    int n = (int)tp_numfmt_fixed(v, d, out);
    if (!n)
        n = snprintf(out, sizeof out, "%.*f", d, v);
    return put_out(out, tp_numfmt_trim(out, (size_t)n, d), buf, cap);
}

/* Microseconds of a float number of nanoseconds, 3 decimals, zeros trimmed. */
static size_t fmt_us_float(double ns, char *buf, size_t cap)
{
    return tp_fmt_time_float(ns, TP_UNIT_US, buf, cap);
}

static size_t fmt_fixed(double v, int decimals, char *buf, size_t cap)
{
    char out[400];
    if (!isfinite(v))
        return tp_fmt_pyfloat(v, buf, cap);
    if (decimals < 0)
        decimals = 0;
    if (decimals > 30)
        decimals = 30;
    size_t n = tp_numfmt_fixed(v, decimals, out);
    if (!n)
        n = (size_t)snprintf(out, sizeof out, "%.*f", decimals, v);
    return put_out(out, n, buf, cap);
}

/* Format a numeric cell value (kind INT or FLOAT) for column type ty. */
static size_t fmt_value(enum tp_coltype ty, int decimals, int kind, union tp_cellval v,
                        char *buf, size_t cap)
{
    char out[32];
    switch (ty) {
    case TP_COL_US:
        return kind == TP_CELL_INT ? tp_fmt_us(v.i, buf, cap) : fmt_us_float(v.f, buf, cap);
    case TP_COL_FIXED:
        return fmt_fixed(kind == TP_CELL_INT ? (double)v.i : v.f, decimals, buf, cap);
    default:
        if (kind == TP_CELL_FLOAT)
            return tp_fmt_pyfloat(v.f, buf, cap);
        return put_out(out, tp_numfmt_i64(v.i, out), buf, cap);
    }
}

size_t tp_table_format_cell(const tp_table *t, size_t row, size_t col, char *buf, size_t cap)
{
    union tp_cellval v;
    int kind = get_cell(t, row, col, &v);
    switch (kind) {
    case TP_CELL_STR:
        return put_out(tp_strtab_get(&t->strs, v.s), tp_strtab_len(&t->strs, v.s), buf, cap);
    case TP_CELL_INT:
    case TP_CELL_FLOAT:
        return fmt_value(t->cols[col].type, t->cols[col].decimals, kind, v, buf, cap);
    default:
        return put_out("-", 1, buf, cap);
    }
}

int tp_table_cell_get(const tp_table *t, size_t row, size_t col, union tp_cellval *v)
{
    return get_cell(t, row, col, v);
}

uint32_t tp_table_nstrings(const tp_table *t)
{
    return t->strs.count;
}

const char *tp_table_string(const tp_table *t, uint32_t id, size_t *len)
{
    *len = tp_strtab_len(&t->strs, id);
    return tp_strtab_get(&t->strs, id);
}

size_t tp_table_format_number(const tp_table *t, size_t col, int kind, union tp_cellval v, char *buf)
{
    const struct tp_coldef *c = &t->cols[col];
    if (kind == TP_CELL_INT && c->type != TP_COL_US && c->type != TP_COL_FIXED)
        return tp_numfmt_i64(v.i, buf);   /* the common case, without fmt_value's copy */
    size_t n = fmt_value(c->type, c->decimals, kind, v, buf, TP_CELLBUF);
    return n < TP_CELLBUF ? n : TP_CELLBUF - 1;
}

const char *tp_cell_text(const tp_table *t, size_t row, size_t col, char *buf, size_t cap,
                         size_t *len)
{
    union tp_cellval v;
    int kind = get_cell(t, row, col, &v);
    if (kind == TP_CELL_STR) {
        *len = tp_strtab_len(&t->strs, v.s);
        return tp_strtab_get(&t->strs, v.s);
    }
    if (kind != TP_CELL_INT && kind != TP_CELL_FLOAT) {
        *len = 1;
        return "-";
    }
    /* the cell read once (tp_table_format_cell would read it again) */
    size_t n = fmt_value(t->cols[col].type, t->cols[col].decimals, kind, v, buf, cap);
    *len = n < cap ? n : cap - 1;
    return buf;
}

/* ---- column selection --------------------------------------------------- */

long tp_table_col_find(const struct tp_coldef *cols, size_t ncols, const char *key)
{
    for (size_t i = 0; i < ncols; i++)
        if (cols[i].key && strcmp(cols[i].key, key) == 0)
            return (long)i;
    return -1;
}

static int not_a_column(const struct tp_coldef *cols, size_t ncols, const char *key, size_t klen,
                        tp_error *err)
{
    char valid[400];
    size_t n = 0;
    valid[0] = '\0';
    for (size_t i = 0; i < ncols && n < sizeof valid; i++)
        n += (size_t)snprintf(valid + n, sizeof valid - n, "%s%s", i ? "," : "",
                              cols[i].key ? cols[i].key : "");
    return tp_error_set(err, TP_ERR_USAGE,
                        "%.*s is not a valid column name. Valid column names are %s.",
                        (int)(klen > 100 ? 100 : klen), key, valid);
}

int tp_table_select(const struct tp_coldef *cols, size_t ncols, const char *list,
                    size_t *idx, size_t cap, size_t *n, tp_error *err)
{
    *n = 0;
    if (!list || !*list)
        return tp_error_set(err, TP_ERR_USAGE, "no columns selected");
    const char *p = list;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t klen = e ? (size_t)(e - p) : strlen(p);
        size_t i;
        for (i = 0; i < ncols; i++)
            if (cols[i].key && strlen(cols[i].key) == klen && memcmp(cols[i].key, p, klen) == 0)
                break;
        if (i == ncols)
            return not_a_column(cols, ncols, p, klen, err);
        if (*n == cap)
            return tp_error_set(err, TP_ERR_USAGE, "too many columns selected (at most %zu)", cap);
        idx[(*n)++] = i;
        if (!e)
            break;
        p = e + 1;
    }
    return TP_OK;
}

/* ---- sorting ------------------------------------------------------------ */

struct sort_ctx {
    const tp_table *t;
    size_t col;
    int numeric;
};

/* Numeric: descending, NaN and NULL and strings last. */
static int cmp_numeric(const tp_table *t, size_t col, size_t a, size_t b)
{
    union tp_cellval va, vb;
    int ka = get_cell(t, a, col, &va), kb = get_cell(t, b, col, &vb);
    int ra = ka == TP_CELL_INT ? 0 : ka == TP_CELL_FLOAT ? (isnan(va.f) ? 1 : 0) : 2;
    int rb = kb == TP_CELL_INT ? 0 : kb == TP_CELL_FLOAT ? (isnan(vb.f) ? 1 : 0) : 2;
    if (ra != rb)
        return ra < rb ? -1 : 1;
    if (ra != 0)
        return 0;
    if (ka == TP_CELL_INT && kb == TP_CELL_INT)
        return va.i > vb.i ? -1 : va.i < vb.i ? 1 : 0;
    long double x = ka == TP_CELL_INT ? (long double)va.i : (long double)va.f;
    long double y = kb == TP_CELL_INT ? (long double)vb.i : (long double)vb.f;
    return x > y ? -1 : x < y ? 1 : 0;
}

/* Strings: ascending bytewise, NULL last; other kinds compare by their text. */
static int cmp_text(const tp_table *t, size_t col, size_t a, size_t b)
{
    union tp_cellval va, vb;
    int ka = get_cell(t, a, col, &va), kb = get_cell(t, b, col, &vb);
    if ((ka == TP_CELL_NULL) != (kb == TP_CELL_NULL))
        return ka == TP_CELL_NULL ? 1 : -1;
    if (ka == TP_CELL_NULL)
        return 0;
    if (ka == TP_CELL_STR && kb == TP_CELL_STR && va.s == vb.s)
        return 0;
    char ba[TP_CELLBUF], bb[TP_CELLBUF];
    size_t la, lb;
    const char *sa = tp_cell_text(t, a, col, ba, sizeof ba, &la);
    const char *sb = tp_cell_text(t, b, col, bb, sizeof bb, &lb);
    int c = memcmp(sa, sb, la < lb ? la : lb);
    if (c)
        return c < 0 ? -1 : 1;
    return la < lb ? -1 : la > lb ? 1 : 0;
}

static int cmp_rows(const void *pa, const void *pb, void *arg)
{
    const struct sort_ctx *c = arg;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    int r = c->numeric ? cmp_numeric(c->t, c->col, a, b) : cmp_text(c->t, c->col, a, b);
    if (r)
        return r;
    return a < b ? -1 : a > b ? 1 : 0;   /* stable: original order breaks ties */
}

/* Fast path: each row's sort key extracted once into a compact array, so the
 * sort touches neither the chunks nor the string bytes.  String columns sort
 * by the rank of the interned id among all strings. */
struct skey {
    union { int64_t i; double f; uint64_t r; } k;
    uint32_t cls;     /* 0 value, 1 NaN, 2 NULL/other: sorted in this order */
    uint32_t isint;
    size_t row;
};

static int cmp_skey_num(const void *pa, const void *pb)
{
    const struct skey *a = pa, *b = pb;
    TP_CMP_BY(a, b, cls);
    if (a->cls == 0) {
        if (a->isint && b->isint) {
            if (a->k.i != b->k.i)
                return a->k.i > b->k.i ? -1 : 1;
        } else {
            long double x = a->isint ? (long double)a->k.i : (long double)a->k.f;
            long double y = b->isint ? (long double)b->k.i : (long double)b->k.f;
            if (x != y)
                return x > y ? -1 : 1;
        }
    }
    return a->row < b->row ? -1 : a->row > b->row ? 1 : 0;
}

static int cmp_skey_str(const void *pa, const void *pb)
{
    const struct skey *a = pa, *b = pb;
    TP_CMP_BY(a, b, cls);
    TP_CMP_BY(a, b, k.r);
    return a->row < b->row ? -1 : a->row > b->row ? 1 : 0;
}

static int cmp_strid(const void *pa, const void *pb, void *arg)
{
    const tp_strtab *st = arg;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    size_t la = tp_strtab_len(st, a), lb = tp_strtab_len(st, b);
    int c = memcmp(tp_strtab_get(st, a), tp_strtab_get(st, b), la < lb ? la : lb);
    if (c)
        return c;
    return la < lb ? -1 : la > lb ? 1 : 0;
}

/* rank[id] = position of string id in byte order; NULL on OOM. */
static uint32_t *string_ranks(const tp_table *t)
{
    uint32_t n = t->strs.count;
    uint32_t *ids = malloc((size_t)n * sizeof *ids);
    uint32_t *rank = malloc((size_t)n * sizeof *rank);
    if (!ids || !rank) {
        free(ids);
        free(rank);
        return NULL;
    }
    for (uint32_t i = 0; i < n; i++)
        ids[i] = i;
    qsort_r(ids, n, sizeof *ids, cmp_strid, (void *)&t->strs);
    for (uint32_t i = 0; i < n; i++)
        rank[ids[i]] = i;
    free(ids);
    return rank;
}

/* 1 sorted, 0 not applicable (mixed kinds in a string column), -1 OOM. */
static int sort_fast(const tp_table *t, size_t col, size_t *perm, size_t n, int numeric)
{
    struct skey *keys = malloc(n * sizeof *keys);
    uint32_t *rank = NULL;
    if (!keys)
        return -1;
    if (!numeric && !(rank = string_ranks(t))) {
        free(keys);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        union tp_cellval v;
        int kind = get_cell(t, perm[i], col, &v);
        struct skey *k = &keys[i];
        k->row = perm[i];
        k->isint = 0;
        k->k.r = 0;
        if (numeric) {
            if (kind == TP_CELL_INT) {
                k->cls = 0;
                k->isint = 1;
                k->k.i = v.i;
            } else if (kind == TP_CELL_FLOAT) {
                k->cls = isnan(v.f) ? 1 : 0;
                k->k.f = v.f;
            } else {
                k->cls = 2;
            }
        } else if (kind == TP_CELL_STR) {
            k->cls = 0;
            k->k.r = rank[v.s];
        } else if (kind == TP_CELL_NULL) {
            k->cls = 2;
        } else {
            free(keys);
            free(rank);
            return 0;
        }
    }
    qsort(keys, n, sizeof *keys, numeric ? cmp_skey_num : cmp_skey_str);
    for (size_t i = 0; i < n; i++)
        perm[i] = keys[i].row;
    free(keys);
    free(rank);
    return 1;
}

/* Several keys (--sort a,-b,+c): each key's default direction is the
 * single-key one (numbers descending, text ascending); -KEY is descending,
 * +KEY ascending; NULL and NaN cells stay last either way; ties keep the
 * original order. */
struct keys_ctx {
    const tp_table *t;
    const size_t *cols;
    const int *dirs;
    size_t nkeys;
};

static int null_class(const tp_table *t, size_t row, size_t col, int numeric)
{
    union tp_cellval v;
    int k = get_cell(t, row, col, &v);
    if (numeric)
        return k == TP_CELL_INT ? 0 : k == TP_CELL_FLOAT ? (isnan(v.f) ? 1 : 0) : 2;
    return k == TP_CELL_NULL ? 2 : 0;
}

static int cmp_keys(const void *pa, const void *pb, void *arg)
{
    const struct keys_ctx *c = arg;
    size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
    for (size_t k = 0; k < c->nkeys; k++) {
        size_t col = c->cols[k];
        int numeric = c->t->cols[col].type != TP_COL_STR;
        int ca = null_class(c->t, a, col, numeric), cb = null_class(c->t, b, col, numeric);
        if (ca != cb)
            return ca < cb ? -1 : 1;
        int r = numeric ? cmp_numeric(c->t, col, a, b) : cmp_text(c->t, col, a, b);
        int natural = numeric ? -1 : 1;
        if (c->dirs[k] && c->dirs[k] != natural)
            r = -r;
        if (r)
            return r;
    }
    return a < b ? -1 : a > b ? 1 : 0;
}

int tp_table_sort_keys(const tp_table *t, const size_t *cols, const int *dirs, size_t nkeys, size_t *perm,
                       size_t n)
{
    for (size_t k = 0; k < nkeys; k++)
        if (cols[k] >= t->ncols)
            return -1;
    if (n < 2)
        return 0;
    struct keys_ctx c = {t, cols, dirs, nkeys};
    qsort_r(perm, n, sizeof *perm, cmp_keys, &c);
    return 0;
}

int tp_table_sort_rows(const tp_table *t, size_t col, size_t *perm, size_t n)
{
    if (col >= t->ncols)
        return -1;
    if (n < 2)
        return 0;
    struct sort_ctx c = { t, col, t->cols[col].type != TP_COL_STR };
    int r = sort_fast(t, col, perm, n, c.numeric);
    if (r < 0)
        return -1;
    if (r == 0)
        qsort_r(perm, n, sizeof *perm, cmp_rows, &c);
    return 0;
}
