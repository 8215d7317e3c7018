/* table.h — typed rows and the column registry (internal to libtprof).
 *
 * A view declares its columns once, as an array of tp_coldef; the table
 * writers do selection (-c), ordering, sorting (--sort), --top, width fitting
 * and every output format from that declaration.  No view formats text. */
#ifndef TPROF_TABLE_H
#define TPROF_TABLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "tprof.h"

enum tp_coltype {
    TP_COL_STR,     /* text, left-aligned */
    TP_COL_INT,     /* int64, right-aligned */
    TP_COL_NUM,     /* per cell int or float: Python str() semantics (140000 vs 140000.0) */
    TP_COL_US,      /* int64 nanoseconds printed as exact microseconds: 1234.5 (up to 3 decimals) */
    TP_COL_FIXED,   /* double printed with `decimals` places (percentages, ratios) */
};

struct tp_coldef {
    const char *key;       /* -c key: "kernel", "sil" */
    const char *header;    /* "Kernel", "Sil(ns)" */
    enum tp_coltype type;
    int width;             /* -w mode: >0 fixed width (prof.py's min width); 0 flexible
                              (shares what is left of -w); <0 fit to content */
    int decimals;          /* TP_COL_FIXED */
    const char *desc;      /* one line for `tprof VIEW -h` */
};

struct tp_table;   /* typedef'd in tprof.h as tp_table */

tp_table *tp_table_new(const struct tp_coldef *cols, size_t ncols);

/* Start a new row; returns its index (cells start NULL). -1 on out of memory. */
long tp_table_add_row(tp_table *t);

/* Setters address the last added row by column index in the coldef array.
 * Strings are copied into the table's arena. */
void tp_table_set_str(tp_table *t, size_t col, const char *s);
void tp_table_set_strn(tp_table *t, size_t col, const char *s, size_t len);
/* tp_table_set_str for a string whose address holds the same text as long
 * as the table is built (a store string, a literal, a cache kept through
 * the build): it is found again by its address, without strlen, hashing or
 * comparing it (a 245K-row prof table sets 13 strings a row). */
void tp_table_set_str_stable(tp_table *t, size_t col, const char *s);
void tp_table_set_int(tp_table *t, size_t col, int64_t v);
void tp_table_set_float(tp_table *t, size_t col, double v);    /* NUM/FIXED columns */
void tp_table_set_null(tp_table *t, size_t col);               /* printed as "-" */

/* Lines to print after the table ("Self CPU time total: 1.234s"): the -w
 * format prints them under the table; the other formats leave them to the
 * caller (tprof puts them on stderr, so CSV and awk input stay tables).
 * -1 on out of memory (the table is then marked, tp_table_nomem). */
int tp_table_add_footer(tp_table *t, const char *line);

/* --plot: how a table is drawn instead of printed in the -w format
 * (write_chart.c, with the glyphs of bars.c).  A view attaches one to the
 * table it builds; the numbers drawn are the table's own cells, read after
 * --sort, --name and --top as the table would print them (-c has no
 * effect on a chart). */
enum tp_chart_kind {
    TP_CHART_SHARE,   /* a bar per row for a value column, to scale of the largest, and its
                         share of the column's sum over every row of the table */
    TP_CHART_STACK,   /* a bar per row, its segments the value columns laid end to end (one
                         glyph each, a legend above), the `total` column after it */
    TP_CHART_SERIES,  /* per run of rows with the same label (a device): one vertical bar per
                         row for values[0], a percentage, along x0..x1 (time columns) */
    TP_CHART_WATERFALL, /* values[0] is a change: each row whose label2 is NULL (or that has
                         no label2) starts where the previous such row ended; rows with a
                         label2 stack from the start of the row above them (its parts);
                         the row whose label is `total` is drawn from 0 */
};

struct tp_chart {
    enum tp_chart_kind kind;
    const char *label;          /* key of the row label column */
    const char *label2;         /* SHARE: a second label column shown after the first, or NULL */
    const char *const *values;  /* SHARE: the columns it may draw: the first key of --sort when it
                                   is one of them, else the first with a non-zero sum;
                                   STACK: the segments (at most 16); SERIES: the percentage */
    size_t nvalues;
    const char *total;          /* STACK: the whole (printed after the bar); SERIES: the summed
                                   column of the caption (busy time) */
    const char *x0, *x1;        /* SERIES: each row's start and end (TP_COL_US) */
};

/* Attach a chart (it must outlive the table; NULL detaches). */
void tp_table_set_chart(tp_table *t, const struct tp_chart *c);
const struct tp_chart *tp_table_chart(const tp_table *t);

/* The default columns for this table's input (tp_table_default_columns);
 * copied.  -1 on out of memory (the table is then marked, tp_table_nomem). */
int tp_table_set_default_columns(tp_table *t, const char *list);

/* Keep only the cells of these columns (a -c list) in the rows to come:
 * the others read as NULL and take no memory.  For a view whose caller
 * says which columns it will read (struct tp_view_opts.need_columns); a
 * list with a key the table does not have keeps every column.  Call
 * before the first row (later: no effect).  0, or -1 on out of memory (the
 * table is then marked, tp_table_nomem). */
int tp_table_keep_columns(tp_table *t, const char *list);

/* Parse a -c list against the coldefs: fills idx[] (capacity cap) and *n.
 * Unknown key: TP_ERR_USAGE with "KEY is not a valid column name. Valid
 * column names are a,b,c." */
int tp_table_select(const struct tp_coldef *cols, size_t ncols, const char *list,
                    size_t *idx, size_t cap, size_t *n, tp_error *err);

/* Read access (tp_table_cols, tp_table_cell_*): public, in tprof.h. */

/* Format one cell's value as the writers print it (space/CSV form). */
size_t tp_table_format_cell(const tp_table *t, size_t row, size_t col, char *buf, size_t cap);

/* ---- additions used by the writers (and by views that post-process) ---- */

/* The coldef array the table was created with (it must outlive the table). */
const struct tp_coldef *tp_table_coldefs(const tp_table *t);

/* Non-zero once a setter ran out of memory (tp_table_write then fails with
 * TP_ERR_NOMEM instead of printing a table with holes). */
int tp_table_nomem(const tp_table *t);
/* The end of a view's build: *t moved to *out (*t NULL) and TP_OK, or, when
 * one of its cells could not be stored (tp_table_nomem), TP_ERR_NOMEM with
 * "PATH: out of memory" and *t left to the caller to free. */
int tp_table_take(tp_table **t, tp_table **out, const char *path, tp_error *err);

/* Index of the first column whose key is `key`, or -1. */
long tp_table_col_find(const struct tp_coldef *cols, size_t ncols, const char *key);

/* Sort perm[0..n) (row indexes) by column col: numeric columns descending
 * (NaN, then NULL and text cells last), string columns ascending bytewise
 * (NULL last); ties keep ascending row order, so sorting 0..n-1 is stable.
 * 0, or -1 on out of memory. */
int tp_table_sort_rows(const tp_table *t, size_t col, size_t *perm, size_t n);

/* Number formatting as the writers print it.  All return the length the full
 * text needs (like snprintf) and NUL-terminate within cap. */
size_t tp_fmt_pyfloat(double v, char *buf, size_t cap);   /* Python repr(float): 140000.0 1e+16 */
size_t tp_fmt_us(int64_t ns, char *buf, size_t cap);      /* exact microseconds: 1234.5 */
size_t tp_fmt_time(int64_t ns, int unit, char *buf, size_t cap);   /* exact, in enum tp_timeunit */
size_t tp_fmt_time_float(double ns, int unit, char *buf, size_t cap);
/* The unit those print in for `unit` (TP_UNIT_DEFAULT or an unknown one:
 * microseconds): *unit set to it, its digits after the point returned and
 * *div = 10^digits, the nanoseconds in one. */
int tp_time_unit(int *unit, uint64_t *div);

/* --human (human.c): torch's key_averages formats.  A time in microseconds
 * as _format_time prints it ("123.456us", "1.234ms", "2.500s"), or in the
 * --timeunit `unit` as its time_unit= does (TP_UNIT_DEFAULT: by size); bytes
 * as _format_memory ("512 B", "1.50 KB", "3.21 GB"; a float below 1 KB as
 * Python's str: "512.5 B").  Both return snprintf's length. */
size_t tp_fmt_human_time(double us, int unit, char *buf, size_t cap);
size_t tp_fmt_human_bytes(double bytes, int integral, char *buf, size_t cap);

/* ---- writer internals (lib/write*.c) ------------------------------------ */

/* A growable byte buffer; `oom` sticks once an append failed. */
struct tp_sbuf {
    char *p;
    size_t len, cap;
    int oom;
};
void tp_sbuf_put(struct tp_sbuf *b, const char *s, size_t n);
void tp_sbuf_putc(struct tp_sbuf *b, char c);
void tp_sbuf_pad(struct tp_sbuf *b, char c, size_t n);
void tp_sbuf_free(struct tp_sbuf *b);
/* Room for n more bytes at b->p + b->len: 0, or -1 (b->oom set). */
int tp_sbuf_reserve(struct tp_sbuf *b, size_t n);
static inline int tp_sbuf_room(struct tp_sbuf *b, size_t n)
{
    return b->len + n <= b->cap && !b->oom ? 0 : tp_sbuf_reserve(b, n);
}

/* Untrusted text made safe for a terminal: control bytes (< 0x20, 0x7f), C1
 * controls (U+0080..U+009F) and invalid UTF-8 bytes become "\xNN"; valid
 * UTF-8 passes through.  Width is counted in display units: one per code
 * point, four per \xNN escape (Python 3's %-w.ws counts code points). */
void   tp_text_put(struct tp_sbuf *b, const char *s, size_t len);
size_t tp_text_width(const char *s, size_t len);
/* Append at most w display units of s (never cutting a UTF-8 sequence or an
 * escape), then pad with spaces to exactly w when pad is set; returns the
 * units written before padding. */
size_t tp_text_put_trunc(struct tp_sbuf *b, const char *s, size_t len, size_t w, int pad);
/* tprof's own views (text_fit.c): width in terminal cells (East Asian wide
 * characters 2, combining marks 0, escapes 4 per byte), and s appended in at
 * most w cells, a name too long shortened where it matters least (its
 * parameter list, its template arguments, then its middle: "…"); padded to
 * w when pad is set.  Returns the cells written before padding. */
size_t tp_disp_width(const char *s, size_t len);
size_t tp_disp_put_fit(struct tp_sbuf *b, const char *s, size_t len, size_t w, int pad);
/* s in at most w cells, cut in the middle only ("…", or "..." when ascii):
 * for names whose start and end both matter (a tree's module paths). */
size_t tp_disp_put_middle(struct tp_sbuf *b, const char *s, size_t len, size_t w, int ascii);
/* Text drawings for a terminal (tree_text.c).  A tree line's prefix: for
 * each level above the node, "│  " where that ancestor has a later sibling,
 * else "   ", then "├─ " (the node has a later sibling) or "└─ "; ASCII
 * "|  ", "|- ", "`- ".  more[k] says whether the ancestor at depth k+1 (k =
 * depth-1: the node itself) has a later sibling; depth 0 has no prefix. */
void tp_tree_prefix(struct tp_sbuf *b, const unsigned char *more, size_t depth, int ascii);
/* A bar of frac (0..1, clamped) of w cells: full blocks and an eighth block
 * ("█", "▏".."▉"), or '#' rounded to whole cells in ASCII. */
void tp_tree_bar(struct tp_sbuf *b, double frac, size_t w, int ascii);
/* Start of the display unit at s[0]: its byte length; *esc set when it is
 * printed as \xNN escapes (one per byte). */
size_t tp_text_unit(const unsigned char *s, size_t len, int *esc);

/* A cell's text as printed by the space/CSV writers (unescaped): strings
 * point into the table, numbers into buf (cap >= TP_CELLBUF holds any
 * number).  NULL cells are "-". */
#define TP_CELLBUF 384
const char *tp_cell_text(const tp_table *t, size_t row, size_t col, char *buf, size_t cap,
                         size_t *len);

/* A cell as the table stores it, for writers that format cells straight
 * into their output (write_fast.c): tp_table_cell_get returns its kind
 * (enum tp_cellkind) and fills the value: .s a string id (below
 * tp_table_nstrings, the same id for the same text: what is derived from
 * a string can be kept per id), .i or .f a number. */
union tp_cellval {
    int64_t i;
    double f;
    uint32_t s;
};
int tp_table_cell_get(const tp_table *t, size_t row, size_t col, union tp_cellval *v);
uint32_t tp_table_nstrings(const tp_table *t);
const char *tp_table_string(const tp_table *t, uint32_t id, size_t *len);
/* A number cell (kind TP_CELL_INT or TP_CELL_FLOAT) of column col as
 * tp_cell_text prints it, into buf (at least TP_CELLBUF bytes, no NUL);
 * returns its length. */
size_t tp_table_format_number(const tp_table *t, size_t col, int kind, union tp_cellval v, char *buf);

/* What tp_table_write resolved and hands to one format writer. */
struct tp_wctx {
    const tp_table *t;
    const struct tp_coldef *cols;
    const size_t *sel;        /* selected column indexes, -c order, duplicates kept */
    size_t nsel;
    const size_t *rows;       /* row indexes in print order; NULL: 0..nrows-1 */
    size_t nrows;
    const struct tp_output_opts *o;
    FILE *out;
    tp_error *err;
};
static inline size_t tp_wctx_row(const struct tp_wctx *w, size_t i)
{
    return w->rows ? w->rows[i] : i;
}
/* Write one finished line (buffer reset afterwards); TP_ERR_IO/NOMEM on failure. */
int tp_write_line(const struct tp_wctx *w, struct tp_sbuf *b);
/* The header line of the first nsel selected columns, when o->header asks
 * for one: put(b, header text, j, ctx) appends each, then the line is ended
 * and written (tp_write_line).  TP_OK without a header. */
int tp_write_header(const struct tp_wctx *w, struct tp_sbuf *b, size_t nsel,
                    void (*put)(struct tp_sbuf *b, const char *h, size_t j, void *ctx), void *ctx);
/* The rows of w in print order: put(b, w, row, j, ctx) appends cell j (of
 * the first nsel selected) of each, then the line is ended and written.
 * Stops at the first write error. */
int tp_write_rows(const struct tp_wctx *w, struct tp_sbuf *b, size_t nsel,
                  void (*put)(struct tp_sbuf *b, const struct tp_wctx *w, size_t row, size_t j, void *ctx),
                  void *ctx);
/* Fields made from a table's strings, kept by string id (write_fast.c):
 * a writer that prints a string the same way wherever it appears makes
 * its bytes once (escaped, quoted, padded) and copies them from then on. */
struct tp_fieldcache {
    struct tp_sbuf bytes;   /* the fields, end to end */
    size_t *made;           /* per id: 1 + offset in bytes; 0: not made yet */
    uint32_t *len;
    uint32_t nids;
};
/* For the strings of t; -1 on out of memory. */
int tp_fieldcache_init(struct tp_fieldcache *c, const tp_table *t);
void tp_fieldcache_free(struct tp_fieldcache *c);
/* Append string id's field to b: made by make(&c->bytes, s, len, ctx)
 * the first time, copied after. */
void tp_fieldcache_put(struct tp_fieldcache *c, struct tp_sbuf *b, const tp_table *t, uint32_t id,
                       void (*make)(struct tp_sbuf *out, const char *s, size_t len, void *ctx), void *ctx);

/* The rows of the joined formats (write_fast.c): cells joined by sep,
 * each escaped (tp_text_put) and, with csv, quoted as libcsv quotes; a
 * NULL cell "-" (empty under --keys in CSV and TSV, as an empty string in
 * CSV).  A string's field is made once per distinct string. */
int tp_write_joined_rows(const struct tp_wctx *w, struct tp_sbuf *b, char sep, int csv);
/* One field as those rows hold it (tmp: scratch kept between calls). */
void tp_write_field(struct tp_sbuf *b, struct tp_sbuf *tmp, const char *s, size_t len, int csv);
/* The table's footer (key_averages' totals) after its rows, if it has one. */
int tp_write_footer(const struct tp_wctx *w);

int tp_write_space(const struct tp_wctx *w);
int tp_write_csv(const struct tp_wctx *w);
int tp_write_columns(const struct tp_wctx *w);
int tp_write_jsonl(const struct tp_wctx *w);
int tp_write_markdown(const struct tp_wctx *w);
int tp_write_tsv(const struct tp_wctx *w);
int tp_write_chart(const struct tp_wctx *w);   /* the table's chart (tp_table_set_chart) */

/* The rows tp_table_write would print, in order: --sort, then --name, then
 * --top.  *order is NULL for "all rows as they are" (free it otherwise). */
/* Sort perm by several columns; dirs[k]: 0 the column's natural order
 * (numbers descending, text ascending), -1 descending, +1 ascending. */
int tp_table_sort_keys(const tp_table *t, const size_t *cols, const int *dirs, size_t nkeys, size_t *perm,
                       size_t n);

int tp_table_order(const tp_table *t, const struct tp_output_opts *o, size_t **order, size_t *n, tp_error *err);

/* The header text of selected column j: its header, or its key with
 * o->keys; a time column's unit follows --timeunit.  buf holds at least 128. */
const char *tp_wctx_header(const struct tp_wctx *w, size_t j, char *buf, size_t cap);
/* Its key (JSON lines), with "_ms" etc. on a time column under --timeunit. */
const char *tp_wctx_key(const struct tp_wctx *w, size_t j, char *buf, size_t cap);
/* A cell's text for the writers: tp_cell_text, but "" for a NULL cell with
 * o->keys, a time column in the --timeunit unit, and with --human a time or
 * byte column with its unit (tp_wctx_human). */
const char *tp_wctx_cell(const struct tp_wctx *w, size_t row, size_t j, char *buf, size_t cap, size_t *len);

/* Whether selected column j prints its cells as tp_cell_text does (no
 * --timeunit or --human change to it). */
int tp_wctx_plain(const struct tp_wctx *w, size_t j);

/* What --human does to selected column j: nothing (a typed format, or a
 * column without a unit), or print it as a time (TP_COL_US and headers
 * ending "(ns)": nanoseconds; "(us)": microseconds) or bytes ("(B)"). */
enum tp_human { TP_HUMAN_NONE, TP_HUMAN_NS, TP_HUMAN_US, TP_HUMAN_BYTES };
enum tp_human tp_wctx_human(const struct tp_wctx *w, size_t j);
/* A header without its unit ("Total(us)" -> "Total"), into buf; h itself
 * when it names none. */
const char *tp_human_header(const char *h, char *buf, size_t cap);
/* The cell (row, col), a number, printed as `kind` says; returns its length. */
size_t tp_human_cell(const tp_table *t, size_t row, size_t col, enum tp_human kind, int unit, char *buf,
                     size_t cap);

#endif
