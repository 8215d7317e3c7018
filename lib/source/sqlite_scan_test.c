/* sqlite_scan_test.c — tp_sqlite_scan reads what SQLite's SELECT reads:
 * integers of every width and sign, NULLs, reals, blobs and text on
 * overflow chains, a deep tree on small pages whose last leaves lie before
 * the first in the file (pages reused from the freelist), free blocks;
 * the filter column; and it declines what it does not model.  Damaged
 * copies: sqlite_check_test.c compares every table the check vouches for. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sqlite_check.h"
#include "sqlite_open.h"
#include "sqlite_scan_cmp.h"
#include "testing.h"

static void make(const char *path)
{
    sql_make(path, "PRAGMA page_size = 1024;"
                   "CREATE TABLE T(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, a INT NOT NULL, b INT, c BLOB, d TEXT,"
                   " e REAL);"
                   "CREATE INDEX T_a ON T(a);"
                   "CREATE TABLE E(id INTEGER PRIMARY KEY, x INT);"
                   "INSERT INTO E(x) VALUES (1), (2);"
                   "CREATE TABLE edge(v INT);"
                   "INSERT INTO edge VALUES (0), (1), (-1), (127), (-128), (128), (-129), (32767), (-32768), (32768),"
                   " (8388607), (-8388608), (8388608), (2147483647), (-2147483648), (2147483648), (140737488355327),"
                   " (-140737488355328), (140737488355328), (9223372036854775807), (-9223372036854775807 - 1);"
                   "BEGIN;"
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30000)"
                   " INSERT INTO T(a, b, c, d, e) SELECT (SELECT v FROM edge WHERE edge.rowid = 1 + i % 21),"
                   " CASE WHEN i % 5 THEN i * 3 - 7000 END,"
                   " CASE WHEN i % 997 = 0 THEN randomblob(9000) WHEN i % 11 THEN randomblob(i % 20) END,"
                   " CASE WHEN i % 1499 = 0 THEN printf('%.*c', 7000, 'y') ELSE 'text ' || i END, i * 0.5 FROM n;"
                   "COMMIT;"
                   "DELETE FROM T WHERE _id_ BETWEEN 2000 AND 9000 OR _id_ % 13 = 0;"
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)"
                   " INSERT INTO T(a, b, c, d, e) SELECT -i, i, randomblob(i % 7), 'late ' || i, i / 3.0 FROM n;");
}

struct counted {
    int64_t passed, bad;
};

static int b_div3(void *ctx, const struct tp_sq_val *v)
{
    (void)ctx;
    return v->type == SQLITE_INTEGER && v->i % 3 == 0;
}

static int count_row(void *ctx, int64_t rowid, const struct tp_sq_val *v)
{
    struct counted *c = ctx;
    (void)rowid;
    c->passed++;
    c->bad += !(v[1].type == SQLITE_INTEGER && v[1].i % 3 == 0) || v[0].type != SQLITE_INTEGER;
    return 0;
}

static int stop_at_10(void *ctx, int64_t rowid, const struct tp_sq_val *v)
{
    (void)v;
    (void)rowid;
    return ++*(int *)ctx == 10;
}

static int64_t count_sql(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s;
    int64_t n = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        n = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return n;
}

int main(void)
{
    char dir[256], p[300];
    if (tt_tmpdir(dir, sizeof dir, "test-sqlite-scan") < 0)
        return 0;
    snprintf(p, sizeof p, "%s/t.db", dir);
    make(p);
    struct tp_sqlite in;
    tp_error err = {0};
    CHECK_INT("sqlite_scan.open", tp_sqlite_open(&in, p, &err), TP_OK);
    CHECK_INT("sqlite_scan.vouched", tp_sqlite_fast_check(in.db, "T", NULL, NULL), 1);
    /* the shape the test means: overflow chains, leaves out of file order */
    CHECK("sqlite_scan.shape_overflow", count_sql(in.db, "SELECT count(*) FROM T WHERE length(c) > 1000") > 10);
    CHECK("sqlite_scan.shape_deep",
          count_sql(in.db, "SELECT count(*) FROM dbstat WHERE name = 'T' AND pagetype = 'internal'") > 1);
    CHECK("sqlite_scan.shape_leaves_out_of_file_order",
          count_sql(in.db, "SELECT count(*) FROM (SELECT pageno, lag(pageno) OVER (ORDER BY path) AS prev "
                    "FROM dbstat WHERE name = 'T' AND pagetype = 'leaf') WHERE pageno < prev") > 0);

    struct scan_cmp c;
    static const char *const all[] = { "_id_", "a", "b", "c", "d", "e", NULL };
    CHECK_INT("sqlite_scan.all_done", scan_cmp_table(in.db, "T", all, &c), TP_SQ_DONE);
    CHECK_STR("sqlite_scan.all_same", c.why, "");
    CHECK("sqlite_scan.all_rows", c.rows == count_sql(in.db, "SELECT count(*) FROM T") && c.rows > 20000);
    static const char *const some[] = { "_id_", "e", "c", NULL };
    CHECK_INT("sqlite_scan.some_done", scan_cmp_table(in.db, "T", some, &c), TP_SQ_DONE);
    CHECK_STR("sqlite_scan.some_same", c.why, "");
    CHECK_INT("sqlite_scan.all_columns", scan_cmp_all(in.db, "T", &c), TP_SQ_DONE);
    CHECK_STR("sqlite_scan.all_columns_same", c.why, "");

    /* the filter column: only rows it passes, every row counted as read */
    static const char *const ib[] = { "_id_", "b", NULL };
    struct counted k = {0};
    struct tp_sq_scan how = { .cols = ib, .row = count_row, .pass = b_div3, .gate = 1, .ctx = &k };
    int64_t rows = 0;
    CHECK_INT("sqlite_scan.gate_done", tp_sqlite_scan(in.db, "T", &how, &rows), TP_SQ_DONE);
    CHECK_INT("sqlite_scan.gate_passed", k.passed, count_sql(in.db, "SELECT count(*) FROM T WHERE b % 3 = 0"));
    CHECK_INT("sqlite_scan.gate_values", k.bad, 0);
    CHECK_INT("sqlite_scan.gate_rows_read", rows, count_sql(in.db, "SELECT count(*) FROM T"));
    how.gate = 2;
    CHECK_INT("sqlite_scan.gate_out_of_range", tp_sqlite_scan(in.db, "T", &how, &rows), TP_SQ_CANNOT);

    /* the callback stops it */
    int seen = 0;
    struct tp_sq_scan stop = { .cols = all, .row = stop_at_10, .ctx = &seen };
    CHECK_INT("sqlite_scan.stopped", tp_sqlite_scan(in.db, "T", &stop, &rows), TP_SQ_STOPPED);
    CHECK_INT("sqlite_scan.stopped_rows", rows, 10);

    /* what it declines, before any row */
    static const char *const e[] = { "id", "x", NULL }, *const notfirst[] = { "a", "_id_", NULL },
                             *const unknown[] = { "_id_", "zz", NULL };
    seen = 0;
    stop.cols = e;
    CHECK_INT("sqlite_scan.no_autoincrement", tp_sqlite_scan(in.db, "E", &stop, &rows), TP_SQ_CANNOT);
    stop.cols = notfirst;
    CHECK_INT("sqlite_scan.key_not_first", tp_sqlite_scan(in.db, "T", &stop, &rows), TP_SQ_CANNOT);
    stop.cols = unknown;
    CHECK_INT("sqlite_scan.unknown_column", tp_sqlite_scan(in.db, "T", &stop, &rows), TP_SQ_CANNOT);
    stop.cols = all;
    CHECK_INT("sqlite_scan.no_table", tp_sqlite_scan(in.db, "nope", &stop, &rows), TP_SQ_CANNOT);
    CHECK_INT("sqlite_scan.declined_no_row", seen, 0);
    tp_sqlite_close(&in);
    sqlite3 *plain;
    sqlite3_open_v2(p, &plain, SQLITE_OPEN_READONLY, NULL);
    CHECK_INT("sqlite_scan.not_immutable", tp_sqlite_scan(plain, "T", &stop, &rows), TP_SQ_CANNOT);
    sqlite3_close(plain);

    char cmd[320];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", dir);
    TEST_EXIT();
}
