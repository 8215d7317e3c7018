/* sqlite_open_test.c — SQLite inputs opened without touching them: odd
 * paths, a -wal read from a private copy that is then removed, the same
 * when no copy can be made, an unreadable schema, a damaged table. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sqlite_open.h"
#include "testing.h"

static char dir[256];

static int count(sqlite3 *db)
{
    sqlite3_stmt *s;
    int n = -1;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM t", -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        n = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    return n;
}

static int entries(const char *d, const char *prefix)
{
    DIR *dd = opendir(d);
    int n = 0;
    struct dirent *e;
    while (dd && (e = readdir(dd)))
        n += e->d_name[0] != '.' && strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    if (dd)
        closedir(dd);
    return n;
}

/* path: a database with table t of `rows` rows; in WAL mode `walrows` more
 * are committed and left in the -wal (the writer is still open: returned). */
static sqlite3 *make(const char *path, int rows, int walrows)
{
    sqlite3 *db;
    sqlite3_open(path, &db);
    sqlite3_exec(db, "CREATE TABLE t(x INTEGER)", NULL, NULL, NULL);
    for (int i = 0; i < rows; i++)
        sqlite3_exec(db, "INSERT INTO t VALUES (1)", NULL, NULL, NULL);
    if (!walrows) {
        sqlite3_close(db);
        return NULL;
    }
    sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0", NULL, NULL, NULL);
    for (int i = 0; i < walrows; i++)
        sqlite3_exec(db, "INSERT INTO t VALUES (2)", NULL, NULL, NULL);
    return db;
}

int main(void)
{
    if (tt_tmpdir(dir, sizeof dir, "sqlite_open") < 0)
        return 0;
    char p[512], q[600];
    tp_error err = {0};
    struct tp_sqlite in;

    /* a name SQLite's URI syntax would misread, reached through "//" */
    snprintf(p, sizeof p, "%s/a?b#c%%41 d.db", dir);
    make(p, 3, 0);
    snprintf(q, sizeof q, "/%s", p);
    CHECK_INT("sqlite_open.odd_name_double_slash", tp_sqlite_open(&in, q, &err), TP_OK);
    CHECK_INT("sqlite_open.odd_name_rows", count(in.db), 3);
    tp_sqlite_close(&in);
    CHECK_INT("sqlite_open.nothing_beside", entries(dir, "a?b"), 1);
    unlink(p);

    /* committed rows in a -wal: read from a private copy, removed after */
    snprintf(p, sizeof p, "%s/w.db", dir);
    sqlite3 *writer = make(p, 2, 5);
    struct stat sb;
    snprintf(q, sizeof q, "%s-wal", p);
    CHECK("sqlite_open.wal_has_data", stat(q, &sb) == 0 && sb.st_size > 0);
    char tmp[300];
    snprintf(tmp, sizeof tmp, "%s/tmp", dir);
    mkdir(tmp, 0700);
    setenv("TMPDIR", tmp, 1);
    CHECK_INT("sqlite_open.wal_open", tp_sqlite_open(&in, p, &err), TP_OK);
    CHECK_INT("sqlite_open.wal_rows_read", count(in.db), 7);
    CHECK("sqlite_open.wal_copy_made", in.copy_dir && entries(tmp, "tprof-sqlite-") == 1 && !in.note[0]);
    tp_sqlite_close(&in);
    CHECK_INT("sqlite_open.wal_copy_removed", entries(tmp, "tprof-sqlite-"), 0);

    /* no private copy possible: the file as it is, and the note says so */
    snprintf(tmp, sizeof tmp, "%s/no-such-folder", dir);
    setenv("TMPDIR", tmp, 1);
    CHECK_INT("sqlite_open.nocopy_open", tp_sqlite_open(&in, p, &err), TP_OK);
    CHECK_INT("sqlite_open.nocopy_rows_of_the_file", count(in.db), 2);
    CHECK("sqlite_open.nocopy_said", strstr(in.note, "its -wal (") && strstr(in.note, "was not read"));
    tp_sqlite_close(&in);
    sqlite3_close(writer);
    unsetenv("TMPDIR");

    /* a schema that cannot be read is not "no such table" */
    snprintf(p, sizeof p, "%s/bad.db", dir);
    FILE *f = fopen(p, "wb");
    fwrite("SQLite format 3", 1, 16, f);
    for (int i = 0; i < 8192; i++)
        fputc(0x5a, f);
    fclose(f);
    if (tp_sqlite_open(&in, p, &err) == TP_OK) {
        CHECK_INT("sqlite_open.bad_schema_has_table", tp_sqlite_has_table(in.db, "t"), -1);
        CHECK_INT("sqlite_open.bad_schema_has_column", tp_sqlite_has_column(in.db, "t", "x"), -1);
        tp_sqlite_close(&in);
    } else {
        CHECK("sqlite_open.bad_schema_open", 0);
    }

    /* a damaged leaf page of t: quick_check names the table */
    snprintf(p, sizeof p, "%s/dmg.db", dir);
    make(p, 2000, 0);
    CHECK_INT("sqlite_open.intact_check", (tp_sqlite_open(&in, p, &err), tp_sqlite_check_table(&err, p, in.db, "t")),
              TP_OK);
    tp_sqlite_close(&in);
    f = fopen(p, "r+b");
    fseek(f, 4096 + 3, SEEK_SET);   /* page 2, the root of t: its cell count */
    fputc(0xff, f);
    fputc(0xff, f);
    fclose(f);
    tp_sqlite_open(&in, p, &err);
    CHECK_INT("sqlite_open.damaged_check", tp_sqlite_check_table(&err, p, in.db, "t"), TP_ERR_FORMAT);
    CHECK("sqlite_open.damaged_message", strstr(err.msg, "table t: ") != NULL);
    tp_sqlite_close(&in);

    char cmd[320];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", dir);
    TEST_EXIT();
}
