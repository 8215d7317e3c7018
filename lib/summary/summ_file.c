/* summ_file.c — summary files: a summary as an SQLite database that
 * sqlite3, pandas and DuckDB read as they are (layout in tprof(1), SUMMARY
 * FILES), and back.
 *
 * Every number the merge needs is stored exactly: int64 as INTEGER, the
 * 128-bit sums (squares, weighted sums) as decimal TEXT.  Each section also
 * gets an SQL view named after it (kernels_name, ops_shape, steps_all) with
 * the columns by their meaning, for people; tprof reads the tables. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include "summ.h"
#include "sqlite_open.h"

static const char schema[] =
    "PRAGMA journal_mode=OFF;"
    "PRAGMA synchronous=OFF;"
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value);"
    "CREATE TABLE sections(section INTEGER PRIMARY KEY, view TEXT, variant TEXT, nkeys INTEGER, nx INTEGER,"
    " nw INTEGER, nscal INTEGER, concat INTEGER, flags INTEGER, nseq INTEGER,"
    " scal0 INTEGER, scal1 INTEGER, scal2 INTEGER, scal3 INTEGER);"
    "CREATE TABLE streams(section INTEGER, pos INTEGER, stream INTEGER);"
    "CREATE TABLE groups(section INTEGER, gid INTEGER, key0 TEXT, key1 TEXT, key2 TEXT, key3 TEXT, key4 TEXT,"
    " key5 TEXT, n INTEGER, sum INTEGER, min INTEGER, max INTEGER, sumsq TEXT,"
    " x0 INTEGER, x1 INTEGER, x2 INTEGER, x3 INTEGER, x4 INTEGER, x5 INTEGER, x6 INTEGER, x7 INTEGER,"
    " x8 INTEGER, x9 INTEGER, x10 INTEGER, x11 INTEGER, w0 TEXT, w1 TEXT, flag INTEGER,"
    " PRIMARY KEY(section, gid));"
    "CREATE TABLE durations(section INTEGER, gid INTEGER, value INTEGER, count INTEGER);"
    "CREATE TABLE firsts(section INTEGER, gid INTEGER, stream INTEGER, seq INTEGER, pos INTEGER);";

static void i128_text(tp_i128 v, char *buf)
{
    char tmp[48];
    int n = 0, neg = v < 0;
    unsigned __int128 u = neg ? -(unsigned __int128)v : (unsigned __int128)v;
    do {
        tmp[n++] = (char)('0' + (int)(u % 10));
        u /= 10;
    } while (u);
    int o = 0;
    if (neg)
        buf[o++] = '-';
    while (n)
        buf[o++] = tmp[--n];
    buf[o] = 0;
}

static tp_i128 text_i128(const char *s)
{
    int neg = s && *s == '-';
    unsigned __int128 u = 0;
    for (const char *p = s ? s + neg : ""; *p >= '0' && *p <= '9'; p++)
        u = u * 10 + (unsigned)(*p - '0');
    return neg ? -(tp_i128)u : (tp_i128)u;
}

static int exec(sqlite3 *db, const char *sql, const char *path, tp_error *err)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return TP_OK;
    tp_error_set(err, TP_ERR_IO, "%s: %s", path, msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    return TP_ERR_IO;
}

static int put_meta(sqlite3_stmt *st, const char *key, const char *text, int64_t num, int is_num)
{
    sqlite3_reset(st);
    sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
    if (is_num)
        sqlite3_bind_int64(st, 2, num);
    else if (text)
        sqlite3_bind_text(st, 2, text, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 2);
    return sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
}

/* Size and CRC-32 of the source file (a folder: -1 and 0). */
static void source_facts(const char *source, struct tp_summary_meta *m)
{
    struct stat sb;
    m->source_size = -1;
    m->source_crc32 = 0;
    if (!source || stat(source, &sb) != 0 || !S_ISREG(sb.st_mode))
        return;
    FILE *f = fopen(source, "rb");
    if (!f)
        return;
    unsigned char buf[1 << 16];
    uLong crc = crc32(0L, Z_NULL, 0);
    size_t n;
    int64_t total = 0;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
        crc = crc32(crc, buf, (uInt)n);
        total += (int64_t)n;
    }
    if (!ferror(f)) {
        m->source_size = total;
        m->source_crc32 = (uint32_t)crc;
    }
    fclose(f);
}

static int write_meta(sqlite3 *db, const tp_summary *s)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "INSERT INTO meta VALUES(?,?)", -1, &st, NULL) != SQLITE_OK)
        return -1;
    const struct tp_summary_meta *m = &s->meta;
    int bad = put_meta(st, "format_version", NULL, m->format_version, 1) |
              put_meta(st, "tprof_version", m->tprof_version, 0, 0) |
              put_meta(st, "rank", NULL, m->rank, m->rank != INT64_MIN) |
              put_meta(st, "world_size", NULL, m->world_size, m->world_size != INT64_MIN) |
              put_meta(st, "ranks", NULL, s->nranks, 1) |
              put_meta(st, "host", m->host, 0, 0) |
              put_meta(st, "source", m->source, 0, 0) |
              put_meta(st, "source_size", NULL, m->source_size, m->source_size >= 0) |
              put_meta(st, "source_crc32", NULL, m->source_crc32, m->source_size >= 0) |
              put_meta(st, "run", m->run[0] ? m->run : NULL, 0, 0) |
              put_meta(st, "coverage", m->coverage, 0, 0) |
              put_meta(st, "path", s->path, 0, 0);
    sqlite3_finalize(st);
    return bad ? -1 : 0;
}

/* The section's groups, multisets, first sightings and stream order. */
/* One row of a section's side table: the section id, the group (or
 * stream) index, then the n numbers v; 0, or -1 when the insert fails. */
static int insert_row(sqlite3_stmt *st, int id, size_t i, const int64_t *v, int n)
{
    sqlite3_reset(st);
    sqlite3_bind_int(st, 1, id);
    sqlite3_bind_int64(st, 2, (int64_t)i);
    for (int k = 0; k < n; k++)
        sqlite3_bind_int64(st, 3 + k, v[k]);
    return sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
}

static int write_section(sqlite3 *db, const struct tp_section *sec, int id)
{
    sqlite3_stmt *gs = NULL, *ds = NULL, *fs = NULL, *ss = NULL, *cs = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(db, "INSERT INTO sections VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &cs, NULL) ||
        sqlite3_prepare_v2(db, "INSERT INTO groups VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                           -1, &gs, NULL) ||
        sqlite3_prepare_v2(db, "INSERT INTO durations VALUES(?,?,?,?)", -1, &ds, NULL) ||
        sqlite3_prepare_v2(db, "INSERT INTO firsts VALUES(?,?,?,?,?)", -1, &fs, NULL) ||
        sqlite3_prepare_v2(db, "INSERT INTO streams VALUES(?,?,?)", -1, &ss, NULL))
        goto done;
    int c = 1;
    sqlite3_bind_int(cs, c++, id);
    sqlite3_bind_text(cs, c++, sec->view, -1, SQLITE_STATIC);
    sqlite3_bind_text(cs, c++, sec->variant, -1, SQLITE_STATIC);
    int ints[] = {sec->nkeys, sec->nx, sec->nw, sec->nscal, sec->concat, sec->flags};
    for (size_t k = 0; k < sizeof ints / sizeof *ints; k++)
        sqlite3_bind_int(cs, c++, ints[k]);
    sqlite3_bind_int64(cs, c++, sec->nseq);
    for (int k = 0; k < TP_SUMM_SCAL; k++)
        sqlite3_bind_int64(cs, c++, sec->scal[k]);
    if (sqlite3_step(cs) != SQLITE_DONE)
        goto done;
    for (size_t i = 0; i < sec->nstreams; i++) {
        if (insert_row(ss, id, i, (int64_t[]){sec->streams[i]}, 1) < 0)
            goto done;
    }
    for (size_t i = 0; i < sec->ng; i++) {
        const struct tp_sgroup *g = &sec->g[i];
        char sq[48], w0[48], w1[48];
        sqlite3_reset(gs);
        c = 1;
        sqlite3_bind_int(gs, c++, id);
        sqlite3_bind_int64(gs, c++, (int64_t)i);
        for (int k = 0; k < TP_SUMM_KEYS; k++)
            if (k < sec->nkeys)
                sqlite3_bind_text(gs, c++, g->key[k], -1, SQLITE_STATIC);
            else
                sqlite3_bind_null(gs, c++);
        int64_t nums[] = {g->n, g->sum, g->min, g->max};
        for (size_t k = 0; k < 4; k++)
            sqlite3_bind_int64(gs, c++, nums[k]);
        i128_text(g->sumsq, sq);
        sqlite3_bind_text(gs, c++, sq, -1, SQLITE_STATIC);
        for (int k = 0; k < TP_SUMM_X; k++)
            if (k < sec->nx)
                sqlite3_bind_int64(gs, c++, g->x[k]);
            else
                sqlite3_bind_null(gs, c++);
        i128_text(g->w[0], w0);
        i128_text(g->w[1], w1);
        sqlite3_bind_text(gs, c++, w0, -1, SQLITE_STATIC);
        sqlite3_bind_text(gs, c++, w1, -1, SQLITE_STATIC);
        sqlite3_bind_int(gs, c++, g->flag);
        if (sqlite3_step(gs) != SQLITE_DONE)
            goto done;
        for (size_t j = 0; j < g->nd; j++)
            if (insert_row(ds, id, i, (int64_t[]){g->d[j].v, g->d[j].n}, 2) < 0)
                goto done;
        for (size_t j = 0; j < g->nf; j++)
            if (insert_row(fs, id, i, (int64_t[]){g->f[j].stream, g->f[j].seq, g->f[j].pos}, 3) < 0)
                goto done;
    }
    rc = 0;
done:
    sqlite3_finalize(cs);
    sqlite3_finalize(gs);
    sqlite3_finalize(ds);
    sqlite3_finalize(fs);
    sqlite3_finalize(ss);
    return rc;
}

/* "CREATE VIEW kernels_name AS SELECT key0 AS name, n AS calls ..." for a
 * section of a known view (its descriptor names the columns). */
static int write_view(sqlite3 *db, const struct tp_section *sec, int id, const char *path, tp_error *err)
{
    const struct tp_summ_desc *d = NULL;
    for (const struct tp_summ_view *const *v = tp_summ_views(); *v; v++)
        if (strcmp((*v)->desc->view, sec->view) == 0 && strcmp((*v)->desc->variant, sec->variant) == 0)
            d = (*v)->desc;
    if (!d)
        return TP_OK;
    char sql[4096];
    int o = snprintf(sql, sizeof sql, "CREATE VIEW %s_%s AS SELECT ", d->view, d->variant);
    for (char *p = sql + strlen("CREATE VIEW "); *p != ' '; p++)
        if (*p == '-')
            *p = '_';   /* kernel-types: an SQL name without quotes */
    for (int k = 0; k < d->nkeys; k++)
        o += snprintf(sql + o, sizeof sql - (size_t)o, "key%d AS \"%s\", ", k, d->keys[k]);
    o += snprintf(sql + o, sizeof sql - (size_t)o,
                  "n AS count, sum AS sum_ns, min AS min_ns, max AS max_ns, sumsq AS sumsq_ns2");
    for (int k = 0; k < d->nx; k++)
        o += snprintf(sql + o, sizeof sql - (size_t)o, ", x%d AS \"%s\"", k, d->xs[k]);
    for (int k = 0; k < d->nw; k++)
        o += snprintf(sql + o, sizeof sql - (size_t)o, ", w%d AS \"%s_x_ns_2p56\"", k, d->ws[k]);
    snprintf(sql + o, sizeof sql - (size_t)o, ", flag FROM groups WHERE section = %d ORDER BY gid", id);
    return exec(db, sql, path, err);
}

int tp_summary_save(tp_summary *s, const char *source, const char *run, const char *path, tp_error *err)
{
    if (!s || !path)
        return tp_error_set(err, TP_ERR_USAGE, "tp_summary_save: %s", s ? "no path" : "no summary");
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    unlink(tmp);
    if (source) {
        snprintf(s->meta.source, sizeof s->meta.source, "%s", source);
        source_facts(source, &s->meta);
    }
    s->meta.format_version = TP_SUMMARY_FORMAT;
    snprintf(s->meta.tprof_version, sizeof s->meta.tprof_version, "%s", tp_version());
    if (run)
        snprintf(s->meta.run, sizeof s->meta.run, "%s", run);
    if (gethostname(s->meta.host, sizeof s->meta.host - 1) != 0)
        s->meta.host[0] = 0;
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
        tp_error_set(err, TP_ERR_IO, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot create");
        sqlite3_close(db);
        unlink(tmp);
        return TP_ERR_IO;
    }
    int rc = exec(db, schema, path, err);
    if (rc == TP_OK)
        rc = exec(db, "BEGIN", path, err);
    if (rc == TP_OK && write_meta(db, s) < 0)
        rc = tp_error_set(err, TP_ERR_IO, "%s: %s", path, sqlite3_errmsg(db));
    for (size_t i = 0; rc == TP_OK && i < s->n; i++) {
        if (write_section(db, s->s[i], (int)i) < 0)
            rc = tp_error_set(err, TP_ERR_IO, "%s: %s", path, sqlite3_errmsg(db));
        else
            rc = write_view(db, s->s[i], (int)i, path, err);
    }
    if (rc == TP_OK)
        rc = exec(db, "COMMIT", path, err);
    if (sqlite3_close(db) != SQLITE_OK && rc == TP_OK)
        rc = tp_error_set(err, TP_ERR_IO, "%s: cannot close", path);
    if (rc == TP_OK && rename(tmp, path) != 0)
        rc = tp_error_set(err, TP_ERR_IO, "%s: %s", path, strerror(errno));
    if (rc != TP_OK)
        unlink(tmp);
    return rc;
}

static int64_t col_i64(sqlite3_stmt *st, int c)
{
    return sqlite3_column_type(st, c) == SQLITE_NULL ? INT64_MIN : sqlite3_column_int64(st, c);
}

static const char *col_text(sqlite3_stmt *st, int c)
{
    const char *t = (const char *)sqlite3_column_text(st, c);
    return t ? t : "";
}

static int read_meta(sqlite3 *db, tp_summary *s)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(db, "SELECT key, value FROM meta", -1, &st, NULL) != SQLITE_OK)
        return -1;
    struct tp_summary_meta *m = &s->meta;
    m->rank = m->world_size = INT64_MIN;
    m->source_size = -1;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *k = col_text(st, 0);
        if (!strcmp(k, "format_version")) m->format_version = (int)col_i64(st, 1);
        else if (!strcmp(k, "tprof_version")) snprintf(m->tprof_version, sizeof m->tprof_version, "%s", col_text(st, 1));
        else if (!strcmp(k, "rank")) m->rank = col_i64(st, 1);
        else if (!strcmp(k, "world_size")) m->world_size = col_i64(st, 1);
        else if (!strcmp(k, "ranks")) s->nranks = col_i64(st, 1);
        else if (!strcmp(k, "host")) snprintf(m->host, sizeof m->host, "%s", col_text(st, 1));
        else if (!strcmp(k, "source")) snprintf(m->source, sizeof m->source, "%s", col_text(st, 1));
        else if (!strcmp(k, "source_size")) m->source_size = col_i64(st, 1);
        else if (!strcmp(k, "source_crc32")) m->source_crc32 = (uint32_t)col_i64(st, 1);
        else if (!strcmp(k, "run")) snprintf(m->run, sizeof m->run, "%s", col_text(st, 1));
        else if (!strcmp(k, "path")) snprintf(s->path, sizeof s->path, "%s", col_text(st, 1));
        else if (!strcmp(k, "coverage") && sqlite3_column_type(st, 1) != SQLITE_NULL && !(m->coverage = strdup(col_text(st, 1))))
            rc = SQLITE_NOMEM;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* A durations row (gid, value, count) or a firsts row (gid, stream, seq,
 * pos) into its group; 0, or -1 (out of memory). */
static int put_duration(struct tp_sgroup *g, sqlite3_stmt *st)
{
    return tp_summ_put_rl(g, sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2));
}

static int put_first(struct tp_sgroup *g, sqlite3_stmt *st)
{
    return tp_summ_put_first(g, (struct tp_first){sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
                                                  sqlite3_column_int64(st, 3)});
}

/* Every row of `sql` (its first column a group's gid) through put; 0, or -1
 * on an SQLite error, a gid out of range or out of memory. */
static int read_rows(sqlite3 *db, const char *sql, struct tp_section *sec,
                     int (*put)(struct tp_sgroup *g, sqlite3_stmt *st))
{
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK ? 0 : -1, step = SQLITE_DONE;
    while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t gid = sqlite3_column_int64(st, 0);
        rc = gid < 0 || (size_t)gid >= sec->ng ? -1 : put(&sec->g[gid], st);
    }
    if (rc == 0 && step != SQLITE_DONE)
        rc = -1;
    sqlite3_finalize(st);
    return rc;
}

/* Read section `id` into a new section of s. */
static int read_section(sqlite3 *db, tp_summary *s, sqlite3_stmt *cs)
{
    int id = sqlite3_column_int(cs, 0);
    struct tp_summ_desc d = {.view = col_text(cs, 1), .variant = col_text(cs, 2)};
    struct tp_section *sec = tp_summ_section(s, &d);
    if (!sec)
        return -1;
    sec->nkeys = sqlite3_column_int(cs, 3);
    sec->nx = sqlite3_column_int(cs, 4);
    sec->nw = sqlite3_column_int(cs, 5);
    sec->nscal = sqlite3_column_int(cs, 6);
    sec->concat = sqlite3_column_int(cs, 7);
    sec->flags = sqlite3_column_int(cs, 8);
    sec->nseq = sqlite3_column_int64(cs, 9);
    for (int k = 0; k < TP_SUMM_SCAL; k++)
        sec->scal[k] = sqlite3_column_int64(cs, 10 + k);
    if (sec->nkeys < 1 || sec->nkeys > TP_SUMM_KEYS || sec->nx > TP_SUMM_X || sec->nx < 0)
        return -2;
    sqlite3_stmt *st = NULL;
    int rc = -1;
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT stream FROM streams WHERE section = %d ORDER BY pos", id);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW)
        if (tp_summ_put_stream(sec, sqlite3_column_int64(st, 0)) < 0)
            goto done;
    sqlite3_finalize(st);
    snprintf(sql, sizeof sql, "SELECT * FROM groups WHERE section = %d ORDER BY gid", id);
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *keys[TP_SUMM_KEYS] = {0};
        for (int k = 0; k < sec->nkeys; k++)
            keys[k] = col_text(st, 2 + k);
        struct tp_sgroup *g = sec->concat ? tp_summ_row(sec, keys) : tp_summ_group(sec, keys);
        if (!g)
            goto done;
        int c = 2 + TP_SUMM_KEYS;
        g->n = sqlite3_column_int64(st, c++);
        g->sum = sqlite3_column_int64(st, c++);
        g->min = sqlite3_column_int64(st, c++);
        g->max = sqlite3_column_int64(st, c++);
        g->sumsq = text_i128(col_text(st, c++));
        for (int k = 0; k < TP_SUMM_X; k++, c++)
            g->x[k] = k < sec->nx ? sqlite3_column_int64(st, c) : 0;
        for (int k = 0; k < TP_SUMM_W; k++)
            g->w[k] = text_i128(col_text(st, c++));
        g->flag = sqlite3_column_int(st, c);
    }
    sqlite3_finalize(st);
    st = NULL;
    /* multisets and first sightings, in group order (gid is the index) */
    snprintf(sql, sizeof sql, "SELECT gid, value, count FROM durations WHERE section = %d ORDER BY gid, value", id);
    if (read_rows(db, sql, sec, put_duration) < 0)
        goto done;
    snprintf(sql, sizeof sql, "SELECT gid, stream, seq, pos FROM firsts WHERE section = %d ORDER BY rowid", id);
    if (read_rows(db, sql, sec, put_first) < 0)
        goto done;
    rc = 0;
done:
    sqlite3_finalize(st);
    return rc;
}

int tp_summary_load(const char *path, tp_summary **out, tp_error *err)
{
    return tp_summ_load(path, NULL, 0, out, err);
}

/* Why a filter: merging a thousand summary files for one view read every
 * view's sections of each (4.3 s for 1,024 DLRM ranks); reading only the
 * sections of the view asked for, and the metadata alone when ordering the
 * files, is what makes a merge cost what that view's data costs. */
int tp_summ_load(const char *path, const char *view, int meta_only, tp_summary **out, tp_error *err)
{
    *out = NULL;
    struct tp_sqlite in = {0};
    if (tp_sqlite_open(&in, path, err) != TP_OK)
        return TP_ERR_IO;
    tp_summary *s = calloc(1, sizeof *s);
    int rc = TP_OK;
    if (!s) {
        tp_sqlite_close(&in);
        return tp_error_set(err, TP_ERR_NOMEM, "out of memory");
    }
    s->nranks = 1;
    if (tp_sqlite_has_table(in.db, "meta") != 1 || tp_sqlite_has_table(in.db, "sections") != 1 ||
        read_meta(in.db, s) < 0 || s->meta.format_version < 1) {
        rc = tp_error_set(err, TP_ERR_FORMAT, "%s: not a tprof summary file", path);
    } else if (s->meta.format_version > TP_SUMMARY_FORMAT) {
        rc = tp_error_set(err, TP_ERR_FORMAT, "%s: summary file format %d is newer than this tprof's (%d)", path,
                          s->meta.format_version, TP_SUMMARY_FORMAT);
    } else {
        sqlite3_stmt *cs = NULL;
        if (sqlite3_prepare_v2(in.db, "SELECT * FROM sections ORDER BY section", -1, &cs, NULL) != SQLITE_OK)
            rc = tp_error_set(err, TP_ERR_FORMAT, "%s: %s", path, sqlite3_errmsg(in.db));
        while (rc == TP_OK && !meta_only && sqlite3_step(cs) == SQLITE_ROW) {
            if (view && strcmp(col_text(cs, 1), view) != 0)
                continue;
            int r = read_section(in.db, s, cs);
            if (r == -2)
                rc = tp_error_set(err, TP_ERR_FORMAT, "%s: a section with a bad shape", path);
            else if (r < 0)
                rc = tp_error_set(err, TP_ERR_FORMAT, "%s: %s", path, sqlite3_errmsg(in.db));
        }
        sqlite3_finalize(cs);
    }
    tp_sqlite_close(&in);
    if (rc != TP_OK) {
        tp_summary_free(s);
        return rc;
    }
    if (!s->path[0])
        snprintf(s->path, sizeof s->path, "%s", path);
    *out = s;
    return TP_OK;
}

int tp_summary_file_set_rank(const char *path, int64_t rank, tp_error *err)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int rc = TP_OK;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "UPDATE meta SET value = ? WHERE key = 'rank'", -1, &st, NULL) != SQLITE_OK ||
        sqlite3_bind_int64(st, 1, rank) != SQLITE_OK || sqlite3_step(st) != SQLITE_DONE)
        rc = tp_error_set(err, TP_ERR_IO, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
    else if (sqlite3_changes(db) == 0)   /* written without a rank: add it */
        rc = exec(db, "INSERT INTO meta VALUES('rank', NULL)", path, err) == TP_OK &&
                     (sqlite3_finalize(st), st = NULL,
                      sqlite3_prepare_v2(db, "UPDATE meta SET value = ? WHERE key = 'rank'", -1, &st, NULL) == SQLITE_OK &&
                      sqlite3_bind_int64(st, 1, rank) == SQLITE_OK && sqlite3_step(st) == SQLITE_DONE)
                 ? TP_OK
                 : tp_error_set(err, TP_ERR_IO, "%s: %s", path, sqlite3_errmsg(db));
    sqlite3_finalize(st);
    if (sqlite3_close(db) != SQLITE_OK && rc == TP_OK)
        rc = tp_error_set(err, TP_ERR_IO, "%s: cannot close", path);
    return rc;
}
