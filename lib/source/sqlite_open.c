/* sqlite_open.c — SQLite inputs are read, never touched.
 *
 * A plain read-only open still lets SQLite create "-shm" (and "-wal") files
 * beside a WAL-mode database and take locks on it: tprof would write into
 * the user's folder (and into read-only reference data).  "immutable=1"
 * stops that, but it also makes SQLite ignore a "-wal" beside the file, the
 * transactions committed there and not yet checkpointed; and a hot
 * "-journal" (an interrupted write) would be ignored the same way, so half
 * a transaction would be read.  In those two cases the database and that
 * file are copied into a private temporary folder, where SQLite may do what
 * it needs (replay the WAL, roll the journal back), and the copy is read.
 *
 * The URI is built from the absolute path with every byte outside the
 * unreserved set percent-escaped, after "file://" and an empty authority: a
 * path starting with "//" stays a path, never a URI authority, and '?', '#',
 * '%' in names stay part of the name. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sqlite_check.h"
#include "sqlite_open.h"

static const char *const side_suffixes[] = { "-wal", "-journal" };
#define NSIDES (sizeof side_suffixes / sizeof *side_suffixes)

/* "file://" + the absolute path, escaped, + query; NULL when out of memory. */
static char *file_uri(const char *path, const char *query)
{
    char cwd[4096] = "";
    if (path[0] != '/' && !getcwd(cwd, sizeof cwd))
        return NULL;
    size_t n = strlen(cwd) + 1 + strlen(path);
    char *uri = malloc(n * 3 + strlen(query) + 16);
    if (!uri)
        return NULL;
    size_t u = (size_t)sprintf(uri, "file://");
    for (int part = 0; part < 2; part++) {
        const char *p = part ? path : cwd;
        if (part && cwd[0])
            uri[u++] = '/';
        for (; *p; p++) {
            unsigned char c = (unsigned char)*p;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '/' ||
                c == '-' || c == '.' || c == '_' || c == '~')
                uri[u++] = (char)c;
            else
                u += (size_t)sprintf(uri + u, "%%%02X", c);
        }
    }
    sprintf(uri + u, "%s", query);
    return uri;
}

static int open_uri(const char *path, const char *query, int flags, sqlite3 **db)
{
    char *uri = file_uri(path, query);
    if (!uri)
        return SQLITE_NOMEM;
    int rc = sqlite3_open_v2(uri, db, flags | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
    free(uri);
    return rc;
}

static int copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return -1;
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (out < 0) {
        int e = errno;
        close(in);
        errno = e;
        return -1;
    }
    enum { BUFSIZE = 1 << 16 };
    char *buf = malloc(BUFSIZE);
    ssize_t r;
    int rc = buf ? 0 : -1;
    while (buf && (r = read(in, buf, BUFSIZE)) != 0) {
        if (r < 0) {
            if (errno == EINTR)
                continue;
            rc = -1;
            break;
        }
        for (ssize_t w = 0; w < r;) {
            ssize_t k = write(out, buf + w, (size_t)(r - w));
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0) {
                rc = -1;
                break;
            }
            w += k;
        }
        if (rc)
            break;
    }
    int e = buf ? errno : ENOMEM;
    free(buf);
    close(in);
    if (close(out) != 0 && rc == 0)
        rc = -1, e = errno;
    errno = e;
    return rc;
}

/* Removes the private copy: the database, its side files, the folder. */
static void remove_copy(char *dir)
{
    static const char *const names[] = { "db", "db-wal", "db-journal", "db-shm" };
    char p[4200];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
    free(dir);
}

/* Copies path and its side file into a new private folder; the folder, or
 * NULL with errno set. */
static char *make_copy(const char *path, const char *suffix)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp)
        tmp = "/tmp";
    size_t cap = strlen(tmp) + 32;
    char *dir = malloc(cap);
    if (!dir)
        return NULL;
    snprintf(dir, cap, "%s/tprof-sqlite-XXXXXX", tmp);
    if (!mkdtemp(dir)) {
        int e = errno;
        free(dir);
        errno = e;
        return NULL;
    }
    size_t plen = strlen(path);
    char *side = malloc(plen + 16), *to = malloc(cap + 16);
    int rc = -1;
    if (side && to) {
        snprintf(to, cap + 16, "%s/db", dir);
        snprintf(side, plen + 16, "%s%s", path, suffix);
        if (copy_file(path, to) == 0) {
            snprintf(to, cap + 16, "%s/db%s", dir, suffix);
            rc = copy_file(side, to);
        }
    } else {
        errno = ENOMEM;
    }
    int e = errno;
    free(side);
    free(to);
    if (rc != 0) {
        remove_copy(dir);
        errno = e;
        return NULL;
    }
    return dir;
}

/* The side file (-wal, hot -journal) beside path that holds data, or NULL. */
static const char *side_with_data(const char *path, off_t *size)
{
    /* on the stack: a failed malloc here would read as "no side file" and
     * leave committed data unread without a word */
    char p[4200];
    if (strlen(path) + 16 > sizeof p)
        return NULL;   /* no such path opens anyway */
    const char *found = NULL;
    for (size_t i = 0; i < NSIDES && !found; i++) {
        struct stat sb;
        snprintf(p, sizeof p, "%s%s", path, side_suffixes[i]);
        if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
            found = side_suffixes[i];
            *size = sb.st_size;
        }
    }
    return found;
}

int tp_sqlite_open(struct tp_sqlite *in, const char *path, tp_error *err)
{
    memset(in, 0, sizeof *in);
    off_t side_size = 0;
    const char *side = side_with_data(path, &side_size);
    int rc;
    if (side) {
        in->copy_dir = make_copy(path, side);
        if (in->copy_dir) {
            char copy[4200];
            snprintf(copy, sizeof copy, "%s/db", in->copy_dir);
            rc = open_uri(copy, "", SQLITE_OPEN_READWRITE, &in->db);
            if (rc == SQLITE_OK) {
                /* the copy is thrown away: no checkpoint on close */
                sqlite3_db_config(in->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)NULL);
                return TP_OK;
            }
            sqlite3_close(in->db);
            in->db = NULL;
            remove_copy(in->copy_dir);
            in->copy_dir = NULL;
            snprintf(in->note, sizeof in->note, "its %s (%lld bytes) was not read: the private copy cannot be opened: %s",
                     side, (long long)side_size, sqlite3_errstr(rc));
        } else {
            snprintf(in->note, sizeof in->note, "its %s (%lld bytes) was not read: cannot copy it into a private folder: %s",
                     side, (long long)side_size, strerror(errno));
        }
    }
    rc = open_uri(path, "?mode=ro&immutable=1", SQLITE_OPEN_READONLY, &in->db);
    if (rc != SQLITE_OK) {
        rc = tp_error_set(err, rc == SQLITE_NOMEM || !in->db ? TP_ERR_NOMEM : TP_ERR_IO,
                          "%s: cannot open as SQLite: %s", path,
                          in->db ? sqlite3_errmsg(in->db) : sqlite3_errstr(rc));
        tp_sqlite_close(in);
        return rc;
    }
    return TP_OK;
}

void tp_sqlite_close(struct tp_sqlite *in)
{
    sqlite3_close(in->db);
    in->db = NULL;
    if (in->copy_dir)
        remove_copy(in->copy_dir);
    in->copy_dir = NULL;
}

static int exists(sqlite3 *db, const char *sql, const char *a, const char *b)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(s, 1, a, -1, SQLITE_STATIC);
    if (b)
        sqlite3_bind_text(s, 2, b, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

int tp_sqlite_has_table(sqlite3 *db, const char *table)
{
    return exists(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", table, NULL);
}

int tp_sqlite_has_column(sqlite3 *db, const char *table, const char *column)
{
    return exists(db, "SELECT 1 FROM pragma_table_info(?) WHERE name=?", table, column);
}

static int quick_check(tp_error *err, const char *path, sqlite3 *db, const char *table)
{
    char sql[160];
    snprintf(sql, sizeof sql, "PRAGMA quick_check(\"%s\")", table);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return tp_error_set(err, TP_ERR_FORMAT, "%s: table %s: %s", path, table, sqlite3_errmsg(db));
    int rc = sqlite3_step(s);
    const char *first = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : NULL;
    int e = TP_OK;
    if (rc != SQLITE_ROW)
        e = tp_error_set(err, TP_ERR_FORMAT, "%s: table %s: %s", path, table, sqlite3_errmsg(db));
    else if (!first || strcmp(first, "ok") != 0) {
        /* the first line is "*** in database main ***", the second the complaint */
        const char *nl = first ? strchr(first, '\n') : NULL;
        const char *what = nl ? nl + 1 : first ? first : "?";
        e = tp_error_set(err, TP_ERR_FORMAT, "%s: table %s: corrupt: %.*s", path, table,
                         (int)strcspn(what, "\n"), what);
    }
    sqlite3_finalize(s);
    return e;
}

/* The storage classes a column kind allows (bad_types' letters). */
static unsigned allowed(char kind)
{
    switch (kind) {
    case 'i': return 1u << SQLITE_INTEGER;
    case 'n': return 1u << SQLITE_INTEGER | 1u << SQLITE_NULL;
    case 't': return 1u << SQLITE_TEXT | 1u << SQLITE_NULL;
    case 'b': return 1u << SQLITE_BLOB | 1u << SQLITE_NULL;
    default: return ~0u;
    }
}

static int column_index(sqlite3 *db, const char *table, const char *column)
{
    sqlite3_stmt *s;
    int cid = -1;
    if (sqlite3_prepare_v2(db, "SELECT cid FROM pragma_table_xinfo(?1) WHERE name = ?2 COLLATE NOCASE", -1, &s,
                           NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
    sqlite3_bind_text(s, 2, column, -1, SQLITE_STATIC);
    if (sqlite3_step(s) == SQLITE_ROW)
        cid = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    return cid;
}

int tp_sqlite_check_table_types(tp_error *err, const char *path, sqlite3 *db, const char *table,
                                const char *const *cols, const char *kinds, int *sound)
{
    unsigned char *types = NULL;
    int ncol = 0;
    if (sound)
        *sound = 0;
    /* the same checks in one pass over the pages; when it cannot vouch
     * for the table, quick_check decides and words the error */
    int fast = tp_sqlite_fast_check(db, table, sound ? &types : NULL, &ncol);
    if (fast < 0)
        return tp_error_set(err, TP_ERR_NOMEM, "%s: table %s: out of memory checking it", path, table);
    if (fast != 1)
        return quick_check(err, path, db, table);
    if (sound) {
        int ok = 1;
        for (int i = 0; ok && cols[i] && kinds[i]; i++) {
            int cid = column_index(db, table, cols[i]);
            ok = cid >= 0 && cid < ncol && (types[cid] & ~allowed(kinds[i])) == 0;
        }
        *sound = ok;
        free(types);
    }
    return TP_OK;
}

int tp_sqlite_check_table(tp_error *err, const char *path, sqlite3 *db, const char *table)
{
    return tp_sqlite_check_table_types(err, path, db, table, NULL, NULL, NULL);
}

int tp_sqlite_rows_error(tp_error *err, const char *path, const char *table, int64_t rows, const char *why)
{
    return tp_error_set(err, TP_ERR_FORMAT, "%s: table %s: after %lld row%s: %s", path, table, (long long)rows,
                        rows == 1 ? "" : "s", why);
}

int tp_sqlite_step_error(tp_error *err, const char *path, const char *table, int64_t rows, sqlite3 *db)
{
    return tp_sqlite_rows_error(err, path, table, rows, sqlite3_errmsg(db));
}
