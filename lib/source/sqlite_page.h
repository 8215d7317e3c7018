/* sqlite_page.h — what sqlite_check.c and sqlite_scan.c share to read a
 * table's pages through SQLite's own file handle: the big-endian fields and
 * varints of the file format, and the file they can model. */
#ifndef TPROF_SQLITE_PAGE_H
#define TPROF_SQLITE_PAGE_H

#include <sqlite3.h>
#include <stdint.h>
#include <string.h>

static inline uint32_t tp_sq_get2(const unsigned char *p)
{
    return (uint32_t)p[0] << 8 | p[1];
}

static inline uint32_t tp_sq_get4(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* SQLite's varint: 1 to 9 bytes, big-endian 7 bits a byte, the ninth whole.
 * The sizes, rowids and header lengths of millions of cells take 1 to 3
 * bytes: those without the loop. */
static inline int tp_sq_varint(const unsigned char *p, uint64_t *v)
{
    if (!(p[0] & 0x80)) {
        *v = p[0];
        return 1;
    }
    if (!(p[1] & 0x80)) {
        *v = (uint64_t)(p[0] & 0x7f) << 7 | p[1];
        return 2;
    }
    if (!(p[2] & 0x80)) {
        *v = (uint64_t)(p[0] & 0x7f) << 14 | (uint64_t)(p[1] & 0x7f) << 7 | p[2];
        return 3;
    }
    uint64_t x = 0;
    for (int i = 0; i < 8; i++) {
        x = x << 7 | (p[i] & 0x7f);
        if (!(p[i] & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    *v = x << 8 | p[8];
    return 9;
}

/* memcmp(a, b, n) == 0 for the short record headers of a table's rows (8
 * to 40 bytes, compared tens of millions of times): 8 bytes a load, the
 * last word overlapping, no call. */
static inline int tp_sq_same_bytes(const unsigned char *a, const unsigned char *b, size_t n)
{
    uint64_t x, y;
    if (n < 8) {
        for (size_t i = 0; i < n; i++)
            if (a[i] != b[i])
                return 0;
        return 1;
    }
    for (size_t i = 0; i + 8 <= n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            return 0;
    }
    memcpy(&x, a + n - 8, 8);
    memcpy(&y, b + n - 8, 8);
    return x == y;
}

/* The database file under a table, as both read it. */
struct tp_sq_file {
    sqlite3_file *f;
    uint32_t psize, usable, npage;
    unsigned char h[100];          /* the file header */
};

/* 0 when db's main file is opened read-only and immutable (SQLite reads
 * the file as it is: a private copy, opened read-write, and any -wal SQLite
 * would read hold other pages) and table is an ordinary rowid table (not
 * STRICT, not WITHOUT ROWID) in a file whose page size and count are sane;
 * -1 when not. */
int tp_sq_file_open(sqlite3 *db, const char *table, struct tp_sq_file *pf);

/* An integer the query (one text argument, or none) answers; -1 none. */
int64_t tp_sq_int_of(sqlite3 *db, const char *sql, const char *arg);

#endif
