/* sqlite_check_test.c — the one-pass table check vouches for intact tables
 * (so quick_check is skipped), learns their column types, and never passes
 * a table PRAGMA quick_check fails: hundreds of randomly damaged copies of
 * a database shaped like an nvprof dump (and of the real one in
 * ../shared when it is there), every table of each compared. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sqlite_check.h"
#include "sqlite_open.h"
#include "sqlite_scan_cmp.h"
#include "testing.h"

static char dir[256];

/* Tables like nvprof's (AUTOINCREMENT ids, NOT NULL integers, a blob, an
 * index, strings long enough for overflow pages in the table and its
 * UNIQUE index) and like nsys's (nullable columns, text). */
static void make(const char *path)
{
    sql_make(path, "CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, value TEXT NOT NULL UNIQUE);"
                   "CREATE TABLE RUNTIME(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, cbid INT NOT NULL, start INT NOT NULL,"
                   " end INT NOT NULL, correlationId INT NOT NULL, objectId BLOB NOT NULL);"
                   "CREATE INDEX RUNTIME_corr ON RUNTIME(correlationId);"
                   "CREATE TABLE EVENTS(id INTEGER PRIMARY KEY, start INT, text TEXT, v REAL);"
                   "BEGIN;"
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)"
                   " INSERT INTO StringTable(value) SELECT printf('%d%.*c', i, i * 97, 'x') FROM n;"
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)"
                   " INSERT INTO RUNTIME(cbid, start, end, correlationId, objectId)"
                   " SELECT i % 300, 1600000000000000000 + i * 1000, 1600000000000000000 + i * 1000 + 500, i * 7,"
                   " randomblob(12) FROM n;"
                   "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)"
                   " INSERT INTO EVENTS(start, text, v)"
                   " SELECT CASE WHEN i % 5 THEN i END, 'range ' || i, i * 0.5 FROM n;"
                   "COMMIT;");
}

static const char *const tables[] = { "StringTable", "RUNTIME", "EVENTS", NULL };

/* quick_check's first answer for a table: 1 "ok", 0 anything else. */
static int quick_ok(sqlite3 *db, const char *table)
{
    char sql[128];
    snprintf(sql, sizeof sql, "PRAGMA quick_check(\"%s\")", table);
    sqlite3_stmt *s;
    int ok = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(s, 0);
        ok = t && strcmp(t, "ok") == 0;
    }
    sqlite3_finalize(s);
    return ok;
}

static unsigned long long rng = 0x9e3779b97f4a7c15ULL;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

/* One random damage to one page (never the file header): bytes, the page
 * header, a cell pointer, a cell's first bytes, a child pointer, a zeroed,
 * copied or swapped page, one bit. */
static void damage(unsigned char *b, long len, unsigned ps)
{
    unsigned np = (unsigned)(len / ps), p = 1 + rnd(np - 1), q = 1 + rnd(np - 1);
    unsigned char *pg = b + (size_t)p * ps, *pq = b + (size_t)q * ps;
    unsigned char tmp[65536];
    unsigned nc = (unsigned)pg[3] << 8 | pg[4], hs = pg[0] >= 10 ? 8 : 12;
    unsigned cp = nc ? hs + 2 * rnd(nc) : 1, pc = nc ? (unsigned)pg[cp] << 8 | pg[cp + 1] : 0;
    switch (rnd(9)) {
    case 0: for (unsigned k = 1 + rnd(8); k; k--) pg[rnd(ps)] = (unsigned char)rnd(256); break;
    case 1: pg[rnd(12)] = (unsigned char)rnd(256); break;
    case 2: pg[cp + rnd(2)] = (unsigned char)rnd(256); break;
    case 3: if (pc + 8 < ps) pg[pc + rnd(8)] = (unsigned char)rnd(256); break;
    case 4:
        if (pg[0] == 2 || pg[0] == 5) {
            unsigned at = nc && pc + 4 <= ps ? pc : 8, to = 1 + rnd(np + 1);
            pg[at] = (unsigned char)(to >> 24), pg[at + 1] = (unsigned char)(to >> 16);
            pg[at + 2] = (unsigned char)(to >> 8), pg[at + 3] = (unsigned char)to;
        }
        break;
    case 5: memset(pg, 0, ps); break;
    case 6: memcpy(pg, pq, ps); break;
    case 7: memcpy(tmp, pg, ps), memcpy(pg, pq, ps), memcpy(pq, tmp, ps); break;
    default: pg[rnd(ps)] ^= (unsigned char)(1 << rnd(8)); break;
    }
}

/* Damaged copies of src: no table the check vouches for fails quick_check,
 * and tp_sqlite_scan reads each such table (with an AUTOINCREMENT key) as
 * SQLite does. */
static void fuzz(const char *name, const char *src, const char *const *names, int rounds)
{
    size_t ulen = 0;
    unsigned char *orig = (unsigned char *)tt_read_file(src, &ulen);
    long len = (long)ulen;
    if (!orig || len < 1024) {
        CHECK(name, 0);
        free(orig);
        return;
    }
    unsigned ps = (unsigned)orig[16] << 8 | orig[17];
    ps = ps == 1 ? 65536 : ps;
    unsigned char *b = malloc((size_t)len);
    char p[300];
    snprintf(p, sizeof p, "%s/fuzz.db", dir);
    int unsound = 0, vouched = 0, caught = 0, checks = 0, scanned = 0, misread = 0;
    for (int r = 0; r < rounds && b; r++) {
        memcpy(b, orig, (size_t)len);
        for (int k = 1 + (r % 3 == 0); k; k--)
            damage(b, len, ps);
        FILE *f = fopen(p, "wb");
        fwrite(b, 1, (size_t)len, f);
        fclose(f);
        struct tp_sqlite in;
        tp_error err = {0};
        if (tp_sqlite_open(&in, p, &err) != TP_OK)
            continue;
        for (int t = 0; names[t]; t++) {
            if (tp_sqlite_has_table(in.db, names[t]) != 1)
                continue;
            int fast = tp_sqlite_fast_check(in.db, names[t], NULL, NULL), qc = quick_ok(in.db, names[t]);
            checks++;
            vouched += fast == 1;
            caught += !qc;
            if (fast == 1 && !qc) {
                unsound++;
                printf("# %s round %d table %s: vouched for, quick_check fails\n", name, r, names[t]);
            }
            struct scan_cmp sc;
            int how = fast == 1 ? scan_cmp_all(in.db, names[t], &sc) : TP_SQ_CANNOT;
            scanned += how == TP_SQ_DONE;
            if (how != TP_SQ_CANNOT && (how != TP_SQ_DONE || sc.why[0])) {
                misread++;
                printf("# %s round %d table %s: scan %d: %s\n", name, r, names[t], how, sc.why);
            }
        }
        tp_sqlite_close(&in);
    }
    printf("# %s: %d table checks, %d vouched for, %d failed quick_check, %d scanned\n", name, checks, vouched,
           caught, scanned);
    CHECK_INT(name, unsound, 0);
    CHECK_INT(name, misread, 0);
    CHECK(name, scanned * 8 > checks);
    /* the damage was real and the fast path was taken: the test can fail */
    CHECK(name, caught * 20 > checks && vouched * 4 > checks);
    free(b);
    free(orig);
}

int main(void)
{
    if (tt_tmpdir(dir, sizeof dir, "sqlite_check") < 0)
        return 0;
    char p[300];
    snprintf(p, sizeof p, "%s/t.db", dir);
    make(p);
    struct tp_sqlite in;
    tp_error err = {0};

    /* intact: vouched for, quick_check not needed, types learnt */
    CHECK_INT("sqlite_check.open", tp_sqlite_open(&in, p, &err), TP_OK);
    for (int t = 0; tables[t]; t++)
        CHECK_INT("sqlite_check.intact_vouched", tp_sqlite_fast_check(in.db, tables[t], NULL, NULL), 1);
    unsigned char *types = NULL;
    int ncol = 0;
    CHECK_INT("sqlite_check.types", tp_sqlite_fast_check(in.db, "RUNTIME", &types, &ncol), 1);
    CHECK_INT("sqlite_check.types_ncol", ncol, 6);
    CHECK_INT("sqlite_check.types_alias_integer", types ? types[0] : -1, 1 << SQLITE_INTEGER);
    CHECK_INT("sqlite_check.types_blob", types ? types[5] : -1, 1 << SQLITE_BLOB);
    free(types);
    CHECK_INT("sqlite_check.types_nullable", tp_sqlite_fast_check(in.db, "EVENTS", &types, &ncol), 1);
    CHECK_INT("sqlite_check.types_nullable_start", types ? types[1] : -1, 1 << SQLITE_INTEGER | 1 << SQLITE_NULL);
    /* integral reals are stored as integers and read back as reals */
    CHECK_INT("sqlite_check.types_real", types ? types[3] : -1, 1 << SQLITE_FLOAT);
    free(types);
    static const char *const rcols[] = { "_id_", "start", "objectId", NULL };
    int sound = -1;
    CHECK_INT("sqlite_check.sound_call", tp_sqlite_check_table_types(&err, p, in.db, "RUNTIME", rcols, "iib", &sound),
              TP_OK);
    CHECK_INT("sqlite_check.sound", sound, 1);
    tp_sqlite_close(&in);

    /* a real in an integer column: quick_check and the check pass, the
     * types are not proven; text that reads as no number: quick_check
     * passes, the check (stricter) leaves it to quick_check */
    sqlite3 *w;
    sqlite3_open(p, &w);
    sql_exec(w, "UPDATE RUNTIME SET start = 2.5 WHERE _id_ = 4000");
    sqlite3_close(w);
    tp_sqlite_open(&in, p, &err);
    CHECK_INT("sqlite_check.real_vouched", tp_sqlite_fast_check(in.db, "RUNTIME", NULL, NULL), 1);
    CHECK_INT("sqlite_check.real_check", tp_sqlite_check_table_types(&err, p, in.db, "RUNTIME", rcols, "iib", &sound),
              TP_OK);
    CHECK_INT("sqlite_check.real_not_sound", sound, 0);
    tp_sqlite_close(&in);
    sqlite3_open(p, &w);
    sql_exec(w, "UPDATE RUNTIME SET start = 'abc' WHERE _id_ = 4000");
    sqlite3_close(w);
    tp_sqlite_open(&in, p, &err);
    CHECK_INT("sqlite_check.text_left_to_quick_check", tp_sqlite_fast_check(in.db, "RUNTIME", NULL, NULL), 0);
    CHECK_INT("sqlite_check.text_quick_check_ok", tp_sqlite_check_table(&err, p, in.db, "RUNTIME"), TP_OK);
    tp_sqlite_close(&in);

    /* a NULL in a NOT NULL column (the schema changed under the rows):
     * not vouched for, quick_check names it */
    sqlite3_open(p, &w);
    sql_exec(w, "CREATE TABLE N(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, a INT); INSERT INTO N(a) VALUES (1), (NULL);"
            "PRAGMA writable_schema = ON;"
            "UPDATE sqlite_master SET sql = 'CREATE TABLE N(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, a INT NOT NULL)'"
            " WHERE name = 'N';");
    sqlite3_close(w);
    tp_sqlite_open(&in, p, &err);
    CHECK_INT("sqlite_check.null_not_vouched", tp_sqlite_fast_check(in.db, "N", NULL, NULL), 0);
    CHECK_INT("sqlite_check.null_quick_check", tp_sqlite_check_table(&err, p, in.db, "N"), TP_ERR_FORMAT);
    CHECK("sqlite_check.null_message", strstr(err.msg, "NULL value in N.a") != NULL);
    tp_sqlite_close(&in);

    /* never less strict than quick_check on damaged copies */
    make(p);
    char src[300];
    snprintf(src, sizeof src, "%s/src.db", dir);
    rename(p, src);
    fuzz("sqlite_check.fuzz_never_vouches_for_what_quick_check_fails", src, tables, 400);
    static const char *const nvprof[] = { "StringTable", "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL",
                                          "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER",
                                          "CUPTI_ACTIVITY_KIND_MARKER", "CUPTI_ACTIVITY_KIND_OVERHEAD",
                                          "CUPTI_ACTIVITY_KIND_DEVICE", NULL };
    const char *ref = "../shared/reference/pyprof/data/josiahdavis_profiling-lm/17ed9e2/net.sql";
    if (access(ref, R_OK) == 0)
        fuzz("sqlite_check.fuzz_nvprof_dump", ref, nvprof, 300);   /* read only: copies are damaged */
    else
        SKIP("sqlite_check.fuzz_nvprof_dump", "../shared not found");

    char cmd[320];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", dir);
    TEST_EXIT();
}
