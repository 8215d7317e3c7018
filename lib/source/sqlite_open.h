/* sqlite_open.h — open an SQLite input (nvprof, nsys, Ascend export) so
 * that nothing beside it is created or changed, and the small schema and
 * error helpers every SQLite importer shares. */
#ifndef TPROF_SQLITE_OPEN_H
#define TPROF_SQLITE_OPEN_H

#include <sqlite3.h>
#include <stdint.h>
#include "tprof.h"

struct tp_sqlite {
    sqlite3 *db;
    char *copy_dir;      /* private temporary folder with a copy of the input and its -wal/-journal, or NULL */
    char note[160];      /* non-empty: "its -wal (N bytes) was not read: why" (committed data left out) */
};

/* Opens path read-only and immutable ("file:///ABS?mode=ro&immutable=1"):
 * no lock, no -shm, no -wal is created beside it.  When a non-empty -wal
 * (or hot -journal) sits beside it, immutable would ignore what it holds:
 * the database and that file are copied into a private temporary folder and
 * the copy is read instead; when the copy cannot be made, the input is read
 * as it is and in->note says what was left out.  TP_ERR_IO on failure. */
int tp_sqlite_open(struct tp_sqlite *in, const char *path, tp_error *err);

/* Closes the database and removes the private copy, if any. */
void tp_sqlite_close(struct tp_sqlite *in);

/* 1 when the table (or the table's column) exists, 0 when not, -1 when the
 * schema cannot be read (a corrupt database): never "absent" by mistake. */
int tp_sqlite_has_table(sqlite3 *db, const char *table);
int tp_sqlite_has_column(sqlite3 *db, const char *table, const char *column);

/* PRAGMA quick_check(table) before a table is read: SQLite has no
 * checksums, and a corrupt page can read as other rows without any error
 * from sqlite3_step; the b-tree checks catch what it can.  Where
 * sqlite_check.c can vouch for the table (checks at least as strict, in one
 * pass over the pages), quick_check is not run.  TP_OK, or
 * TP_ERR_FORMAT with "PATH: table T: corrupt: SQLite's first complaint". */
int tp_sqlite_check_table(tp_error *err, const char *path, sqlite3 *db, const char *table);

/* tp_sqlite_check_table, and whether every row holds in the columns cols
 * (NULL-ended) what kinds says, a letter per column: 'i' an integer, 'n' an
 * integer or NULL, 't' text or NULL, 'b' a blob or NULL, '-' anything.
 * *sound = 1 when the check proved it of every row (sqlite_check.c), 0 when
 * not (quick_check ran, or some row breaks it): then the reader checks each
 * row itself. */
int tp_sqlite_check_table_types(tp_error *err, const char *path, sqlite3 *db, const char *table,
                                const char *const *cols, const char *kinds, int *sound);

/* The error of a sqlite3_step loop that did not end in SQLITE_DONE:
 * "PATH: table T: after N rows: SQLite's message" (TP_ERR_FORMAT, so the
 * rows read before it are kept and shown). */
int tp_sqlite_step_error(tp_error *err, const char *path, const char *table, int64_t rows, sqlite3 *db);

/* The same error worded with why instead of SQLite's last message (a read
 * that does not go through sqlite3_step: sqlite_scan.c). */
int tp_sqlite_rows_error(tp_error *err, const char *path, const char *table, int64_t rows, const char *why);

#endif
