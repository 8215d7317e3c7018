/* sqlite_scan_cmp.h — for the SQLite tests: whether tp_sqlite_scan reads a
 * table as SQLite's own SELECT does, value by value; SQL run on a test's
 * own database. */
#ifndef TPROF_SQLITE_SCAN_CMP_H
#define TPROF_SQLITE_SCAN_CMP_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "sqlite_scan.h"

/* Runs sql; a failure is printed as a comment line (the checks after it
 * then fail on what is missing). */
static void sql_exec(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        printf("# %s: %s\n", sql, msg ? msg : "?");
    sqlite3_free(msg);
}

/* A new database at path (any file there first removed) made by sql. */
static void sql_make(const char *path, const char *sql)
{
    sqlite3 *db;
    unlink(path);
    sqlite3_open(path, &db);
    sql_exec(db, sql);
    sqlite3_close(db);
}

struct scan_cmp {
    sqlite3_stmt *s;            /* SELECT cols FROM table ORDER BY rowid, stepped along */
    int ncol;
    long long rows;
    char why[160];              /* the first difference */
};

/* One value against SQLite's: the same storage class (an integer stored in
 * a REAL column is SQLite's real of the same value) and the same value. */
static int scan_cmp_value(sqlite3_stmt *s, int i, const struct tp_sq_val *v)
{
    int t = sqlite3_column_type(s, i);
    if (t == SQLITE_FLOAT && v->type == SQLITE_INTEGER)
        return (double)v->i == sqlite3_column_double(s, i);
    if (t != v->type)
        return 0;
    switch (t) {
    case SQLITE_INTEGER: return sqlite3_column_int64(s, i) == v->i;
    case SQLITE_FLOAT: return sqlite3_column_double(s, i) == v->f;
    case SQLITE_NULL: return 1;
    default: {
        const void *p = t == SQLITE_BLOB ? sqlite3_column_blob(s, i) : (const void *)sqlite3_column_text(s, i);
        int n = sqlite3_column_bytes(s, i);
        return n == v->n && (n == 0 || memcmp(p, v->p, (size_t)n) == 0);
    }
    }
}

static int scan_cmp_row(void *ctx, int64_t rowid, const struct tp_sq_val *v)
{
    struct scan_cmp *c = ctx;
    if (c->why[0])
        return 1;
    if (sqlite3_step(c->s) != SQLITE_ROW) {
        snprintf(c->why, sizeof c->why, "row %lld (rowid %lld): SQLite has no more rows", c->rows, (long long)rowid);
        return 1;
    }
    if (sqlite3_column_int64(c->s, 0) != rowid)
        snprintf(c->why, sizeof c->why, "row %lld: rowid %lld, SQLite's %lld", c->rows, (long long)rowid,
                 (long long)sqlite3_column_int64(c->s, 0));
    for (int i = 0; i < c->ncol && !c->why[0]; i++)
        if (!scan_cmp_value(c->s, i, &v[i]))
            snprintf(c->why, sizeof c->why, "row %lld (rowid %lld): column %d differs", c->rows, (long long)rowid, i);
    c->rows++;
    return c->why[0] != 0;
}

/* The scan of table's cols (cols[0] its rowid alias) against SQLite's:
 * TP_SQ_DONE and why[0] == 0 when they agree; what the scan returned. */
static int scan_cmp_table(sqlite3 *db, const char *table, const char *const *cols, struct scan_cmp *c)
{
    char sql[512];
    size_t len = (size_t)snprintf(sql, sizeof sql, "SELECT ");
    memset(c, 0, sizeof *c);
    for (c->ncol = 0; cols[c->ncol]; c->ncol++)
        len += (size_t)snprintf(sql + len, sizeof sql - len, "%s\"%s\"", c->ncol ? ", " : "", cols[c->ncol]);
    snprintf(sql + len, sizeof sql - len, " FROM \"%s\" ORDER BY rowid", table);
    if (sqlite3_prepare_v2(db, sql, -1, &c->s, NULL) != SQLITE_OK) {
        snprintf(c->why, sizeof c->why, "%s", sqlite3_errmsg(db));
        return TP_SQ_CANNOT;
    }
    struct tp_sq_scan how = { .cols = cols, .row = scan_cmp_row, .ctx = c };
    int64_t rows = 0;
    int rc = tp_sqlite_scan(db, table, &how, &rows);
    if (rc == TP_SQ_DONE && !c->why[0] && sqlite3_step(c->s) == SQLITE_ROW)
        snprintf(c->why, sizeof c->why, "SQLite has more than the scan's %lld rows", c->rows);
    if (rc == TP_SQ_DONE && rows != c->rows && !c->why[0])
        snprintf(c->why, sizeof c->why, "*rows %lld, %lld passed", (long long)rows, c->rows);
    sqlite3_finalize(c->s);
    c->s = NULL;
    return rc;
}

/* scan_cmp_table over every column of table, its INTEGER PRIMARY KEY first
 * (none: TP_SQ_CANNOT from the scan, as it should). */
static int scan_cmp_all(sqlite3 *db, const char *table, struct scan_cmp *c)
{
    char names[64][64];
    const char *cols[65];
    int n = 1, pk = 0;
    sqlite3_stmt *s;
    memset(c, 0, sizeof *c);
    if (sqlite3_prepare_v2(db, "SELECT name, pk FROM pragma_table_xinfo(?1)", -1, &s, NULL) != SQLITE_OK)
        return TP_SQ_CANNOT;
    sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
    snprintf(names[0], sizeof names[0], "rowid");
    while (sqlite3_step(s) == SQLITE_ROW && n < 64) {
        const char *name = (const char *)sqlite3_column_text(s, 0);
        int at = sqlite3_column_int(s, 1) == 1 && !pk ? 0 : n++;
        pk |= at == 0;
        snprintf(names[at], sizeof names[at], "%s", name ? name : "");
    }
    sqlite3_finalize(s);
    for (int i = 0; i < n; i++)
        cols[i] = names[i];
    cols[n] = NULL;
    return scan_cmp_table(db, table, cols, c);
}

#endif
