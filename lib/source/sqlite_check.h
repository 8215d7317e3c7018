/* sqlite_check.h — a cheaper stand-in for PRAGMA quick_check(table) that
 * never passes what quick_check would fail.  See sqlite_check.c. */
#ifndef TPROF_SQLITE_CHECK_H
#define TPROF_SQLITE_CHECK_H

#include <sqlite3.h>

/* 1: the table's b-tree, its indexes' b-trees and its rows passed checks at
 * least as strict as those of PRAGMA quick_check(table), so quick_check
 * would answer "ok"; 0: not shown (a damaged page, an unusual schema or
 * file the check does not model, a database read through a private copy):
 * the caller runs quick_check itself; -1: out of memory.  On 1 with types
 * not NULL: (*types)[j] for each of the *ncol columns (PRAGMA table_xinfo
 * order) has bit 1 << SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB
 * or SQLITE_NULL set for each storage class the column holds in some row
 * (the rowid alias holds integers), malloc'd for the caller to free. */
int tp_sqlite_fast_check(sqlite3 *db, const char *table, unsigned char **types, int *ncol);

#endif
