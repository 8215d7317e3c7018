/* sqlite_scan.h — a table's rows read straight from its b-tree leaves, for
 * a table sqlite_check.c has just vouched for.  See sqlite_scan.c. */
#ifndef TPROF_SQLITE_SCAN_H
#define TPROF_SQLITE_SCAN_H

#include <sqlite3.h>
#include <stdint.h>

/* One column's value in one row: type is SQLITE_INTEGER (i), SQLITE_NULL,
 * SQLITE_FLOAT (f), SQLITE_TEXT or SQLITE_BLOB (p, n bytes, valid during
 * the callback only). */
struct tp_sq_val {
    int type, n;
    int64_t i;
    double f;
    const unsigned char *p;
};

/* Called once a row in rowid order; v[k] is the value of cols[k].  0 goes
 * on, anything else stops the scan. */
typedef int (*tp_sq_row_fn)(void *ctx, int64_t rowid, const struct tp_sq_val *v);

enum {
    TP_SQ_STOPPED = 2,     /* the callback stopped it */
    TP_SQ_DONE = 1,        /* every row was passed */
    TP_SQ_CANNOT = 0,      /* no row was passed: read the table with SQL instead */
    TP_SQ_NOMEM = -1,
    TP_SQ_BROKEN = -2      /* a read failed or a page is not what the check saw, after *rows rows */
};

/* What to read: columns cols (NULL-ended, names as declared, at most 32),
 * each row to row(ctx, ...).  With pass not NULL, column gate of a row is
 * decoded first and the row goes on to row() only where pass(ctx, that
 * value) is nonzero (most rows of a filtered read cost one value). */
struct tp_sq_scan {
    const char *const *cols;
    tp_sq_row_fn row;
    int (*pass)(void *ctx, const struct tp_sq_val *v);
    int gate;
    void *ctx;
};

/* The rows of table in rowid order, as SELECT cols FROM table ORDER BY
 * rowid would return them, values as stored (no affinity applied: an
 * integral value in a REAL column reads as an integer).  cols[0] must be
 * the table's INTEGER PRIMARY KEY AUTOINCREMENT (the rowid itself).  Only
 * for a database opened read-only and immutable (sqlite_open.c) and a table
 * that passed tp_sqlite_fast_check: it reads the same file handle, in file
 * order where the leaves lie in key order.  *rows: the rows read. */
int tp_sqlite_scan(sqlite3 *db, const char *table, const struct tp_sq_scan *how, int64_t *rows);

#endif
