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

enum tp_cellkind { TP_CELL_NULL, TP_CELL_STR, TP_CELL_INT, TP_CELL_FLOAT };

struct tp_table;   /* typedef'd in tprof.h as tp_table */

tp_table *tp_table_new(const struct tp_coldef *cols, size_t ncols);

/* Start a new row; returns its index (cells start NULL). -1 on out of memory. */
long tp_table_add_row(tp_table *t);

/* Setters address the last added row by column index in the coldef array.
 * Strings are copied into the table's arena. */
void tp_table_set_str(tp_table *t, size_t col, const char *s);
void tp_table_set_strn(tp_table *t, size_t col, const char *s, size_t len);
void tp_table_set_int(tp_table *t, size_t col, int64_t v);
void tp_table_set_float(tp_table *t, size_t col, double v);    /* NUM/FIXED columns */
void tp_table_set_null(tp_table *t, size_t col);               /* printed as "-" */

/* Parse a -c list against the coldefs: fills idx[] (capacity cap) and *n.
 * Unknown key: TP_ERR_USAGE with "KEY is not a valid column name. Valid
 * column names are a,b,c." */
int tp_table_select(const struct tp_coldef *cols, size_t ncols, const char *list,
                    size_t *idx, size_t cap, size_t *n, tp_error *err);

/* Read access (views that post-process, diff, tests). */
size_t tp_table_cols(const tp_table *t);
enum tp_cellkind tp_table_cell_kind(const tp_table *t, size_t row, size_t col);
const char *tp_table_cell_str(const tp_table *t, size_t row, size_t col);
int64_t tp_table_cell_int(const tp_table *t, size_t row, size_t col);
double tp_table_cell_float(const tp_table *t, size_t row, size_t col);

/* Format one cell's value as the writers print it (space/CSV form). */
size_t tp_table_format_cell(const tp_table *t, size_t row, size_t col, char *buf, size_t cap);

#endif
