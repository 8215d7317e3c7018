/* ingest_sqlite.c — nvprof and Nsight Systems SQLite exports.
 *
 * The file is opened by tp_sqlite_open (sqlite_open.c: read-only and
 * immutable, a -wal beside it read from a private copy) and told apart by its
 * tables, as parse.py does: StringTable means nvprof, StringIds with
 * CUPTI_ACTIVITY_KIND_KERNEL means nsys.  Each table is read with one
 * ordered scan; pairing, correlation and NVTX nesting are done in C
 * (link_pyprof.c), never with per-kernel queries.  nvprof's kernel,
 * runtime/driver and marker tables, where the table check proved their
 * columns, are read off their leaf pages (sqlite_scan.c) instead of
 * through sqlite3_step; the same row function (kernel_row, call_row,
 * marker_row) takes a row from either read.
 *
 * Rows (times in ns as stored):
 *   kernels  TP_K_KERNEL   nvprof: CONCURRENT_KERNEL (then KERNEL, the
 *            --analysis-metrics table PyProf ignores) in _id_ order; nsys:
 *            CUPTI_ACTIVITY_KIND_KERNEL by start.  name = the demangled
 *            name when the C++ runtime's demangler is linked in, else the
 *            name as stored; grid/block/registers/shared memory in the
 *            kernel side table; pid = nsys globalPid's process id.
 *   runtime  TP_K_RUNTIME / TP_K_DRIVER: nvprof tid = threadId & 0xFFFFFFFF
 *            (the marker's thread), nsys pid = (globalTid >> 24) & 0xFFFFFF
 *            and tid = globalTid & 0xFFFFFF (PyProf's globalTid % 2^24).
 *   NVTX     TP_K_NVTX, ph 'X' for ranges (nvprof: a flags=2 start row and
 *            the flags=4 end row with the same id; nsys: rows with an end),
 *            ph 'i' for marks; nsys: cat = the range style, "PushPop" or
 *            "StartEnd".  nvprof's objectId BLOB is pid (4 bytes LE)
 *            then tid (8 bytes LE).  nsys text is COALESCE(text, the
 *            StringIds value of textId).  Ranges never closed are counted
 *            as skipped.
 *   memcpy / memset (bytes in the kernel side table), devices.
 * Kernels whose end is not after their start are kept (duration 0) and
 * counted; PyProf aborts on them.
 *
 * SQLite keeps any value in any column, and a number read from text or a
 * blob is garbage (text "abc" as a start time reads as 0), so every column
 * read as a number is checked to hold an integer (or NULL where the export
 * leaves it NULL), and every string id to be in the string table: a row
 * that fails is malformed, left out and counted (exit status 2), never
 * shown with made-up times or a blank name.  A sqlite3_step that fails
 * (a corrupt page, an I/O error) ends the input with an error naming the
 * table; the rows before it are kept.  Before a table is read, its b-tree
 * must pass PRAGMA quick_check (or sqlite_check.c's one pass, as strict): a
 * damaged page can read as other rows with no error at all (SQLite has no
 * checksums).  Where that pass proved every row's column types, the reads
 * below skip their per-row type tests.  A changed byte inside a stored
 * value stays undetectable: no reader can tell it from the real value. */
#include <stdlib.h>
#include <string.h>
#include "ingest.h"
#include "nvtx_pair.h"
#include "occupancy.h"
#include "pyprof.h"
#include "sqlite_open.h"
#include "sqlite_scan.h"
#include "try.h"

struct sq {
    sqlite3 *db;
    tp_store *st;
    const char *path;
    tp_error *err;
    uint32_t *strmap;        /* DB string id -> strtab id + 1 (0: not loaded) */
    uint32_t *demap;         /* DB string id -> demangled strtab id + 1 */
    int64_t nstr;
    const char *checked;     /* the table quick_check passed last */
    /* A store loaded for its kernels alone (tp_store_set_kernel_scope) that
     * holds kernels: runtime/driver calls are kept when their correlation id
     * is a kernel's (kcorr), NVTX ranges when they enclose a kept call on
     * their thread (launches); NVTX marks are not kept.  Every row is still
     * read and checked. */
    int scoped;
    int64_t seen;            /* rows tprof_wanted()/tprof_marker() looked at (the read's row count) */
    struct marks *marks;     /* the marker read under way */
    struct tp_corr_set kcorr;
    struct tp_launch_scope launches;
};

/* What a column of kind k (bad_types) must hold that type t is not; NULL
 * when t is fine. */
static const char *type_breaks(char k, int t)
{
    switch (k) {
    case 'i': return t != SQLITE_INTEGER ? "an integer" : NULL;
    case 'n': return t != SQLITE_INTEGER && t != SQLITE_NULL ? "an integer" : NULL;
    case 't': return t != SQLITE_TEXT && t != SQLITE_NULL ? "text" : NULL;
    case 'b': return t != SQLITE_BLOB && t != SQLITE_NULL ? "a blob" : NULL;
    default: return NULL;
    }
}

/* After the kernel tables: whether the rows below are scoped, and the ids
 * that scope them. */
static int begin_scope(struct sq *q)
{
    if (!q->st->kernel_scope)
        return TP_OK;
    for (size_t i = 0; i < q->st->n && !q->scoped; i++)
        q->scoped = q->st->kind[i] == TP_K_KERNEL;
    if (q->scoped && tp_corr_set_build(&q->kcorr, q->st) < 0)
        return tp_error_set(q->err, TP_ERR_NOMEM, "%s: out of memory", q->path);
    return TP_OK;
}

/* Before the NVTX table: the kept calls by thread. */
static int scope_launches(struct sq *q)
{
    if (q->scoped && tp_launch_scope_build(&q->launches, q->st) < 0)
        return tp_error_set(q->err, TP_ERR_NOMEM, "%s: out of memory", q->path);
    return TP_OK;
}

/* tprof_wanted(kinds, corr, strid, column...) in the WHERE of a scoped read
 * of runtime/driver calls: 0 for a row the loop below would check and drop
 * (its columns hold what kinds says, as bad_types checks them; the string
 * id in column strid, -1 none, points at a string; its correlation id in
 * column corr is no kernel's), else 1.  SQLite's own loop drops the other
 * nine in ten rows without the dozen API calls a row returned costs. */
static void fn_wanted(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct sq *q = sqlite3_user_data(ctx);
    q->seen++;
    const char *kinds = (const char *)sqlite3_value_text(argv[0]);
    int corr = sqlite3_value_int(argv[1]), sid = sqlite3_value_int(argv[2]);
    sqlite3_value **col = argv + 3;
    int ncol = argc - 3, wanted = 0;
    for (int i = 0; kinds && kinds[i] && i < ncol && !wanted; i++)
        wanted = type_breaks(kinds[i], sqlite3_value_type(col[i])) != NULL;
    if (!wanted && sid >= 0 && sid < ncol && sqlite3_value_type(col[sid]) != SQLITE_NULL) {
        int64_t id = sqlite3_value_int64(col[sid]);
        wanted = !(id >= 0 && id < q->nstr && q->strmap[id]);
    }
    if (!wanted && corr >= 0 && corr < ncol)
        wanted = sqlite3_value_type(col[corr]) != SQLITE_NULL &&
                 tp_corr_set_has(&q->kcorr, sqlite3_value_int64(col[corr]));
    sqlite3_result_int(ctx, wanted);
}

/* tprof_kernel_call(correlationId): tprof_wanted where the table check
 * proved every row's columns of the right types (and no string id is read):
 * then only the correlation id decides, and SQLite loads one column a row
 * instead of seven. */
static void fn_kernel_call(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct sq *q = sqlite3_user_data(ctx);
    q->seen++;
    sqlite3_result_int(ctx, argc == 1 && sqlite3_value_type(argv[0]) != SQLITE_NULL &&
                                tp_corr_set_has(&q->kcorr, sqlite3_value_int64(argv[0])));
}

/* The WHERE of a read of columns cols: in a scoped read, tprof_kernel_call's
 * on column corrcol where the types are proven (corrcol not NULL), else
 * tprof_wanted's; none when not scoped.  Resets the row count. */
static const char *call_filter(struct sq *q, char *buf, size_t cap, const char *kinds, int corr, int strid,
                               const char *cols, const char *corrcol)
{
    q->seen = 0;
    if (!q->scoped)
        return "";
    if (corrcol)
        snprintf(buf, cap, " WHERE tprof_kernel_call(%s)", corrcol);
    else
        snprintf(buf, cap, " WHERE tprof_wanted('%s', %d, %d, %s)", kinds, corr, strid, cols);
    return buf;
}

/* A checked runtime/driver row whose correlation id is in column col: kept? */
static int keep_call(const struct sq *q, sqlite3_stmt *s, int col)
{
    return !q->scoped ||
           (sqlite3_column_type(s, col) != SQLITE_NULL && tp_corr_set_has(&q->kcorr, sqlite3_column_int64(s, col)));
}

static int keep_range(const struct sq *q, int64_t pid, int64_t tid, int64_t start, int64_t end)
{
    return !q->scoped || tp_launch_scope_encloses(&q->launches, pid, tid, start, end);
}

static int fail_sql(struct sq *q, const char *table, const char *what)
{
    return tp_error_set(q->err, TP_ERR_FORMAT, "%s: table %s: %s", q->path, table, what);
}

static int table_exists(struct sq *q, const char *name)
{
    return tp_sqlite_has_table(q->db, name);
}

static int schema_error(struct sq *q)
{
    return tp_error_set(q->err, TP_ERR_FORMAT, "%s: cannot read the schema: %s", q->path, sqlite3_errmsg(q->db));
}

/* Columns are only probed in tables found in the schema, which was read
 * whole by then: a failing probe reads as "no such column". */
static int has_column(struct sq *q, const char *table, const char *col)
{
    return tp_sqlite_has_column(q->db, table, col) == 1;
}

static const char *type_name(int t)
{
    return t == SQLITE_TEXT ? "text" : t == SQLITE_FLOAT ? "a real" : t == SQLITE_BLOB ? "a blob" : "NULL";
}

/* kinds: one letter per result column, from the first: 'i' an integer,
 * 'n' an integer or NULL, 't' text or NULL, 'b' a blob or NULL, '-' any.
 * Returns 1 and counts the row as malformed ("TABLE.column is text, not an
 * integer", first rowid kept) when a column breaks it; 0 when it holds. */
static int bad_types(struct sq *q, const char *table, sqlite3_stmt *s, const char *kinds, int64_t rowid)
{
    for (int i = 0; kinds[i]; i++) {
        int t = sqlite3_column_type(s, i);
        const char *want = type_breaks(kinds[i], t);
        if (want) {
            char reason[96];
            snprintf(reason, sizeof reason, "%s.%s is %s, not %s", table, sqlite3_column_name(s, i), type_name(t), want);
            tp_store_bad_row(q->st, reason, rowid);
            return 1;
        }
    }
    return 0;
}

/* A string id column that points at no string: an event row is malformed
 * (left out, counted); a device keeps its properties without a name (noted). */
static int dangling_id(struct sq *q, const char *table, const char *col, int64_t id, int64_t rowid)
{
    if (id >= 0 && id < q->nstr && q->strmap[id])
        return 0;
    int event = strcmp(table, "CUPTI_ACTIVITY_KIND_DEVICE") != 0;
    char reason[96];
    snprintf(reason, sizeof reason, "%s.%s: string id not in %s%s", table, col,
             q->st->format == TP_SRC_NVPROF_SQLITE ? "StringTable" : "StringIds", event ? "" : " (no name)");
    if (event)
        tp_store_bad_row(q->st, reason, rowid);
    else
        tp_store_skip_row(q->st, reason, rowid);
    return event;
}

static int dangling(struct sq *q, const char *table, sqlite3_stmt *s, int col, int64_t rowid)
{
    return dangling_id(q, table, sqlite3_column_name(s, col), sqlite3_column_int64(s, col), rowid);
}

/* A checked row of a statement as the values a scan passes (sqlite_scan.h):
 * one row function serves both reads. */
static void row_vals(sqlite3_stmt *s, struct tp_sq_val *v, int n)
{
    for (int i = 0; i < n; i++) {
        v[i].type = sqlite3_column_type(s, i);
        v[i].i = 0;
        v[i].p = NULL;
        v[i].n = 0;
        if (v[i].type == SQLITE_BLOB || v[i].type == SQLITE_TEXT) {
            v[i].p = v[i].type == SQLITE_BLOB ? sqlite3_column_blob(s, i) : sqlite3_column_text(s, i);
            v[i].n = sqlite3_column_bytes(s, i);
        } else if (v[i].type != SQLITE_NULL) {
            v[i].i = sqlite3_column_int64(s, i);
        }
    }
}

static int64_t val_i64(const struct tp_sq_val *v)
{
    return v->type == SQLITE_NULL ? TP_NONE : v->i;
}

static int64_t col_i64(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? TP_NONE : sqlite3_column_int64(s, i);
}

/* The table's check (once a table); *sound: whether it proved the columns
 * cols of every row hold what kinds says (tp_sqlite_check_table_types). */
static int check(struct sq *q, const char *table, const char *const *cols, const char *kinds, int *sound)
{
    if (!q->checked || strcmp(q->checked, table) != 0) {
        TP_TRY(tp_sqlite_check_table_types(q->err, q->path, q->db, table, cols, kinds, sound));
        q->checked = table;
    }
    return TP_OK;
}

/* The statement that reads table, after the table passes its check. */
static int prepare(struct sq *q, const char *table, const char *sql, sqlite3_stmt **s)
{
    *s = NULL;
    TP_TRY(check(q, table, NULL, NULL, NULL));
    if (sqlite3_prepare_v2(q->db, sql, -1, s, NULL) != SQLITE_OK)
        return fail_sql(q, table, sqlite3_errmsg(q->db));
    return TP_OK;
}

static int step_done(struct sq *q, const char *table, sqlite3_stmt *s, int rc, int64_t row)
{
    int e = rc != SQLITE_DONE ? tp_sqlite_step_error(q->err, q->path, table, row, q->db) : TP_OK;
    sqlite3_finalize(s);
    return e;
}

/* ---- strings -------------------------------------------------------------- */

static int load_strings(struct sq *q, const char *table, const char *idcol)
{
    char sql[256];
    sqlite3_stmt *s;
    snprintf(sql, sizeof sql, "SELECT max(%s) FROM %s", idcol, table);
    int rc = prepare(q, table, sql, &s);
    if (rc)
        return rc;
    rc = sqlite3_step(s);
    if (rc != SQLITE_ROW)
        return step_done(q, table, s, rc, 0);
    int64_t maxid = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    if (maxid < 0 || maxid > (INT64_C(1) << 28))
        return fail_sql(q, table, "string ids out of range");
    q->nstr = maxid + 1;
    q->strmap = calloc((size_t)q->nstr, sizeof *q->strmap);
    q->demap = calloc((size_t)q->nstr, sizeof *q->demap);
    if (!q->strmap || !q->demap)
        return tp_error_set(q->err, TP_ERR_NOMEM, "%s: out of memory reading %s", q->path, table);
    snprintf(sql, sizeof sql, "SELECT %s, value, rowid FROM %s", idcol, table);
    if ((rc = prepare(q, table, sql, &s)))
        return rc;
    int64_t row = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        row++;
        if (bad_types(q, table, s, "it", sqlite3_column_int64(s, 2)))
            continue;
        int64_t id = sqlite3_column_int64(s, 0);
        const char *v = (const char *)sqlite3_column_text(s, 1);
        int len = sqlite3_column_bytes(s, 1);
        if (id < 0 || id >= q->nstr)
            continue;
        uint32_t sid = tp_store_intern(q->st, v ? v : "", v ? (size_t)len : 0);
        if (sid == UINT32_MAX) {
            sqlite3_finalize(s);
            return tp_error_set(q->err, TP_ERR_NOMEM, "%s: out of memory reading %s", q->path, table);
        }
        q->strmap[id] = sid + 1;
    }
    return step_done(q, table, s, rc, row);
}

static uint32_t str_of(struct sq *q, int64_t id)
{
    if (id < 0 || id >= q->nstr || !q->strmap[id])
        return 0;
    return q->strmap[id] - 1;
}

/* kernel names: demangled when possible (cached per string id) */
static uint32_t kname_of(struct sq *q, int64_t id)
{
    if (id < 0 || id >= q->nstr || !q->strmap[id])
        return 0;
    if (!q->demap[id]) {
        uint32_t sid = q->strmap[id] - 1;
        char *dem = tp_demangle(tp_store_str(q->st, sid));
        if (dem) {
            sid = tp_store_intern(q->st, dem, strlen(dem));
            free(dem);
        }
        q->demap[id] = sid + 1;
    }
    return q->demap[id] - 1;
}

static uint32_t intern_c(struct sq *q, const char *s)
{
    return tp_store_intern(q->st, s, strlen(s));
}

static int nomem(struct sq *q)
{
    return tp_error_set(q->err, TP_ERR_NOMEM, "%s: out of memory", q->path);
}

/* The kernel side table's row; g (not NULL): grid x y z, block x y z,
 * registers, static and dynamic shared memory. */
static struct tp_kernel_info *add_kinfo(struct sq *q, int64_t r, const struct tp_sq_val *g)
{
    struct tp_kernel_info *ki = tp_store_add_kernel_info(q->st, (size_t)r);
    if (!ki)
        return NULL;
    if (g) {
        for (int d = 0; d < 3; d++) {
            ki->grid[d] = (int32_t)g[d].i;
            ki->block[d] = (int32_t)g[3 + d].i;
        }
        ki->regs = (int32_t)g[6].i;
        ki->smem = g[7].i + g[8].i;
    }
    return ki;
}

/* ---- reads: a row function shared by the SQL loop and the page scan ------ */

/* One table's read; row() takes a checked row (TP_OK, or an error that
 * ends the read). */
struct reader {
    struct sq *q;
    const char *table;
    int (*row)(struct reader *r, const struct tp_sq_val *v);
    int rc;
    int nsys;                   /* kernels: an nsys export */
    const char *namecol;        /* kernels: the name column */
    enum tp_kind kind;          /* runtime or driver calls */
    uint32_t *names;            /* calls: cbid -> name id + 1 */
    struct marks *mk;           /* markers */
    int filtered;               /* a SQL function in the WHERE counts the rows read (q->seen) */
    int (*pass)(void *ctx, const struct tp_sq_val *v);   /* the scan's filter on column gate */
    int gate;
};

static int scan_row(void *ctx, int64_t rowid, const struct tp_sq_val *v)
{
    struct reader *r = ctx;
    (void)rowid;
    r->rc = r->row(r, v);
    return r->rc != TP_OK;
}

/* The table read by tp_sqlite_scan where the check proved the types of
 * cols in every row (sound): 1 when it was (r->rc says how it ended, *rows
 * the rows read), 0 when the caller reads it with SQL. */
static int scan(struct reader *r, const char *const *cols, int sound, int64_t *rows)
{
    struct sq *q = r->q;
    if (!sound)
        return 0;
    r->rc = TP_OK;
    struct tp_sq_scan how = { .cols = cols, .row = scan_row, .pass = r->pass, .gate = r->gate, .ctx = r };
    switch (tp_sqlite_scan(q->db, r->table, &how, rows)) {
    case TP_SQ_CANNOT:
        return 0;
    case TP_SQ_NOMEM:
        r->rc = nomem(q);
        break;
    case TP_SQ_BROKEN:
        r->rc = tp_sqlite_rows_error(q->err, q->path, r->table, *rows, sqlite3_errstr(SQLITE_CORRUPT));
        break;
    default:                    /* TP_SQ_DONE, or TP_SQ_STOPPED with r->rc set */
        break;
    }
    return 1;
}

static const char *copy_kind(int64_t k)
{
    static const char *const names[] = { "Memcpy", "Memcpy HtoD", "Memcpy DtoH", "Memcpy HtoA", "Memcpy AtoH",
                                         "Memcpy AtoA", "Memcpy AtoD", "Memcpy DtoA", "Memcpy DtoD",
                                         "Memcpy HtoH", "Memcpy PtoP" };
    return k >= 0 && k < (int64_t)(sizeof names / sizeof names[0]) ? names[k] : "Memcpy";
}

/* ---- nvprof -------------------------------------------------------------- */

/* The kernels of either export: columns id, name, correlationId, start, end,
 * deviceId, streamId, grid x y z, block x y z, registers, static and dynamic
 * shared memory; nsys adds globalPid.  nvprof's names are string ids of
 * mangled names (kname_of), nsys's plain string ids. */
static int kernel_row(struct reader *rd, const struct tp_sq_val *v)
{
    struct sq *q = rd->q;
    int64_t id = v[0].i;
    if (dangling_id(q, rd->table, rd->namecol, v[1].i, id))
        return TP_OK;
    int64_t r = tp_store_add(q->st);
    if (r < 0 || !add_kinfo(q, r, v + 7))
        return nomem(q);
    tp_store *st = q->st;
    st->kind[r] = TP_K_KERNEL;
    st->name[r] = rd->nsys ? str_of(q, v[1].i) : kname_of(q, v[1].i);
    st->correlation[r] = val_i64(&v[2]);
    int64_t start = v[3].i, end = v[4].i;
    st->ts[r] = start;
    st->dur[r] = end > start ? end - start : 0;
    if (end <= start)
        tp_store_skip_row(st, "kernel end not after its start (kept, duration 0)", id);
    st->device[r] = (int32_t)v[5].i;
    st->stream[r] = (int32_t)v[6].i;
    if (rd->nsys && v[16].type != SQLITE_NULL)
        st->pid[r] = (v[16].i >> 24) & 0xFFFFFF;
    return TP_OK;
}

/* The SQL read of a table: each row that holds what kinds says (one
 * letter per column, bad_types; not tested again where the check proved
 * it: sound) to rd->row, with column 0 its rowid.  *n: the rows stepped. */
static int read_rows(struct reader *rd, const char *sql, const char *kinds, int sound, int64_t *n)
{
    struct sq *q = rd->q;
    sqlite3_stmt *s;
    struct tp_sq_val v[32];
    int ncol = (int)strlen(kinds), rc;
    TP_TRY(prepare(q, rd->table, sql, &s));
    *n = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        ++*n;
        if (!sound && bad_types(q, rd->table, s, kinds, sqlite3_column_int64(s, 0)))
            continue;
        row_vals(s, v, ncol);
        if ((rc = rd->row(rd, v)) != TP_OK) {
            sqlite3_finalize(s);
            return rc;
        }
    }
    return step_done(q, rd->table, s, rc, rd->filtered ? q->seen : *n);
}

static int read_kernels(struct sq *q, const char *table, const char *sql, int nsys, int sound,
                        const char *const *cols)
{
    struct reader rd = { .q = q, .table = table, .row = kernel_row, .nsys = nsys, .namecol = cols[1] };
    int64_t n = 0;
    if (scan(&rd, cols, sound, &n))
        return rd.rc;
    return read_rows(&rd, sql, nsys ? "iiniiiinnnnnnnnnn" : "iiniiiinnnnnnnnn", sound, &n);
}

static int nvprof_kernels(struct sq *q, const char *table)
{
    static const char *const colnames[] = { "_id_", "name", "correlationId", "start", "end", "deviceId",
                                            "streamId", "gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
                                            "registersPerThread", "staticSharedMemory", "dynamicSharedMemory",
                                            NULL };
    char sql[512];
    int sound = 0;
    TP_TRY(check(q, table, colnames, "iiniiiinnnnnnnnn", &sound));
    snprintf(sql, sizeof sql,
             "SELECT _id_, name, correlationId, start, end, deviceId, streamId, gridX, gridY, gridZ, "
             "blockX, blockY, blockZ, registersPerThread, staticSharedMemory, dynamicSharedMemory "
             "FROM %s ORDER BY _id_", table);
    return read_kernels(q, table, sql, 0, sound, colnames);
}

/* A runtime or driver call: columns _id_, cbid, start, end, processId,
 * threadId, correlationId. */
static int call_row(struct reader *rd, const struct tp_sq_val *v)
{
    struct sq *q = rd->q;
    if (q->scoped && !(v[6].type != SQLITE_NULL && tp_corr_set_has(&q->kcorr, v[6].i)))
        return TP_OK;
    int64_t r = tp_store_add(q->st);
    if (r < 0)
        return nomem(q);
    tp_store *st = q->st;
    st->kind[r] = (uint8_t)rd->kind;
    int64_t cbid = v[1].i;
    if (cbid >= 0 && cbid < 1024 && rd->names[cbid]) {
        st->name[r] = rd->names[cbid] - 1;
    } else {
        char buf[64];
        int len = snprintf(buf, sizeof buf, "%s cbid %lld", rd->kind == TP_K_RUNTIME ? "cuda runtime" : "cuda driver",
                           (long long)cbid);
        st->name[r] = tp_store_intern(st, buf, (size_t)len);
        if (st->name[r] == UINT32_MAX)
            return nomem(q);
        if (cbid >= 0 && cbid < 1024)
            rd->names[cbid] = st->name[r] + 1;
    }
    int64_t start = v[2].i, end = v[3].i;
    st->ts[r] = start;
    st->dur[r] = end > start ? end - start : 0;
    st->pid[r] = v[4].i;
    st->tid[r] = v[5].i & INT64_C(0xFFFFFFFF);
    st->correlation[r] = val_i64(&v[6]);
    return TP_OK;
}

/* The scan's filter of a scoped read of calls: the correlation id is a
 * kernel's (call_row tests it again, for the SQL read). */
static int kernel_call(void *ctx, const struct tp_sq_val *corr)
{
    const struct reader *rd = ctx;
    return corr->type != SQLITE_NULL && tp_corr_set_has(&rd->q->kcorr, corr->i);
}

static int nvprof_api(struct sq *q, const char *table, enum tp_kind kind)
{
    static const char *const colnames[] = { "_id_", "cbid", "start", "end", "processId", "threadId", "correlationId",
                                         NULL };
    char sql[512], where[256];
    const char *cols = "_id_, cbid, start, end, processId, threadId, correlationId";
    int sound = 0;
    TP_TRY(check(q, table, colnames, "iiiiiin", &sound));
    snprintf(sql, sizeof sql, "SELECT %s FROM %s%s", cols, table,
             call_filter(q, where, sizeof where, "iiiiiin", 6, -1, cols, sound ? "correlationId" : NULL));
    uint32_t launch = intern_c(q, "cudaLaunchKernel");
    uint32_t names[1024] = {0};      /* cbid -> name id + 1 */
    if (kind == TP_K_RUNTIME)
        names[211] = launch + 1;
    struct reader rd = { .q = q, .table = table, .row = call_row, .kind = kind, .names = names,
                         .filtered = q->scoped, .pass = q->scoped ? kernel_call : NULL, .gate = 6 };
    int64_t n = 0;
    if (scan(&rd, colnames, sound, &n))
        return rd.rc;
    return read_rows(&rd, sql, "iiiiiin", sound, &n);
}

/* The marker rows of one read: ranges paired as their rows stream by. */
struct marks {
    struct tp_nvtx_pairs pairs;
    int oom;
    int sound;                  /* the table check proved every row's types */
};

/* nvprof's objectId: pid (4 bytes LE) then tid (8 bytes LE); TP_NONE both
 * when shorter. */
static void marker_thread(const unsigned char *blob, int blen, int64_t *pid, int64_t *tid)
{
    *pid = *tid = TP_NONE;
    if (!blob || blen < 12)
        return;
    *pid = (int32_t)((uint32_t)blob[0] | (uint32_t)blob[1] << 8 | (uint32_t)blob[2] << 16 | (uint32_t)blob[3] << 24);
    uint64_t t = 0;
    for (int i = 7; i >= 0; i--)
        t = t << 8 | blob[4 + i];
    *tid = (int64_t)t;
}

/* A checked marker row: a start or an end is paired (0; a range it
 * completes is kept when the read keeps it), an instantaneous mark is for
 * the caller to keep (1), or left out when the read is scoped (0); -1 out
 * of memory. */
static int take_marker(const struct sq *q, struct marks *mk, int64_t row, int64_t flags, int64_t ts, int64_t id,
                       const unsigned char *blob, int blen, int64_t name)
{
    struct tp_nvtx_mark m = { .id = id, .ts = ts, .pid = TP_NONE, .tid = TP_NONE, .row = row };
    if (!(flags & 2) && (flags & 4)) {
        m.is_end = 1;
    } else if (!(flags & 2)) {
        return !q->scoped;     /* an instantaneous mark: PyProf reads none */
    } else {
        m.name = (uint32_t)name;     /* the DB string id (checked to exist) */
        marker_thread(blob, blen, &m.pid, &m.tid);
    }
    struct tp_nvtx_range r;
    int t = tp_nvtx_pairs_add(&mk->pairs, &m, &r);
    if (t <= 0)
        return t;
    return keep_range(q, r.pid, r.tid, r.ts, r.end) ? tp_nvtx_pairs_keep(&mk->pairs, &r) : 0;
}

/* tprof_marker(_id_, flags, timestamp, id, objectId, name) in the WHERE of
 * the marker read: takes a sound row (take_marker) in SQLite's own loop and
 * answers 0; 1 for a row the loop below must see (a column of the wrong
 * type, a name that points nowhere, an instantaneous mark to keep).  Saves
 * the dozen API calls per row of millions of rows. */
static void fn_marker(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    struct sq *q = sqlite3_user_data(ctx);
    q->seen++;
    int bad = argc != 6;
    for (int i = 0; i < argc && !bad && !q->marks->sound; i++)
        bad = type_breaks("iiiibi"[i], sqlite3_value_type(argv[i])) != NULL;
    if (bad) {
        sqlite3_result_int(ctx, 1);
        return;
    }
    int64_t flags = sqlite3_value_int64(argv[1]), name = sqlite3_value_int64(argv[5]);
    if (!(flags & 4) && !(name >= 0 && name < q->nstr && q->strmap[name])) {
        sqlite3_result_int(ctx, 1);       /* the loop says it is dangling */
        return;
    }
    int t = take_marker(q, q->marks, sqlite3_value_int64(argv[0]), flags, sqlite3_value_int64(argv[2]),
                        sqlite3_value_int64(argv[3]), sqlite3_value_blob(argv[4]), sqlite3_value_bytes(argv[4]),
                        name);
    if (t < 0) {
        q->marks->oom = 1;
        sqlite3_result_error_nomem(ctx);
        return;
    }
    sqlite3_result_int(ctx, t);
}

/* A checked marker row: columns _id_, flags, timestamp, id, objectId, name. */
static int marker_row(struct reader *rd, const struct tp_sq_val *v)
{
    struct sq *q = rd->q;
    int64_t flags = v[1].i;
    /* an end row's name is not used (the start row's is) */
    if (!(flags & 4) && dangling_id(q, rd->table, "name", v[5].i, v[0].i))
        return TP_OK;
    int t = take_marker(q, rd->mk, v[0].i, flags, v[2].i, v[3].i, v[4].p, v[4].n, v[5].i);
    if (t <= 0)
        return t < 0 ? nomem(q) : TP_OK;
    /* an instantaneous mark */
    int64_t r = tp_store_add(q->st);
    if (r < 0)
        return nomem(q);
    tp_store *st = q->st;
    st->kind[r] = TP_K_NVTX;
    st->ph[r] = 'i';
    st->ts[r] = v[2].i;
    st->name[r] = str_of(q, v[5].i);
    st->correlation[r] = v[0].i;
    marker_thread(v[4].p, v[4].n, &st->pid[r], &st->tid[r]);
    return TP_OK;
}

static int nvprof_markers(struct sq *q)
{
    const char *table = "CUPTI_ACTIVITY_KIND_MARKER";
    sqlite3_stmt *s;
    /* start and end rows paired by id as they stream by (nvtx_pair.c) */
    static const char *const colnames[] = { "_id_", "flags", "timestamp", "id", "objectId", "name", NULL };
    struct marks mk = {0};
    TP_TRY(check(q, table, colnames, "iiiibi", &mk.sound));
    struct reader rd = { .q = q, .table = table, .row = marker_row, .mk = &mk };
    struct tp_nvtx_mark *left = NULL;
    int64_t n = 0;
    int rc;
    s = NULL;
    if (scan(&rd, colnames, mk.sound, &n)) {
        if ((rc = rd.rc) != TP_OK)
            goto done;
    } else {
        q->marks = &mk;
        q->seen = 0;
        rc = prepare(q, table, "SELECT _id_, flags, timestamp, id, objectId, name FROM CUPTI_ACTIVITY_KIND_MARKER "
                     "WHERE tprof_marker(_id_, flags, timestamp, id, objectId, name) ORDER BY _id_", &s);
        if (rc)
            goto done;
        struct tp_sq_val v[6];
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
            if (bad_types(q, table, s, "iiiibi", sqlite3_column_int64(s, 0)))
                continue;
            row_vals(s, v, 6);
            if ((rc = marker_row(&rd, v)) != TP_OK)
                goto done;
        }
        if (mk.oom)
            goto oom;
        sqlite3_finalize(s);
        s = NULL;
        if (rc != SQLITE_DONE) {
            rc = tp_error_set(q->err, TP_ERR_FORMAT, "%s: table %s: row %lld: %s", q->path, table, (long long)q->seen,
                              sqlite3_errmsg(q->db));
            goto done;
        }
    }
    /* the kept ranges in their start rows' order, as they were added
     * when every start row was held until the table ended */
    if (tp_nvtx_pairs_sort_kept(&mk.pairs) < 0)
        goto oom;
    for (size_t i = 0; i < mk.pairs.nkept; i++) {
        const struct tp_nvtx_range *k = &mk.pairs.kept[i];
        int64_t r = tp_store_add(q->st);
        if (r < 0)
            goto oom;
        tp_store *st = q->st;
        st->kind[r] = TP_K_NVTX;
        st->ph[r] = 'X';
        st->ts[r] = k->ts;
        st->dur[r] = k->end - k->ts;
        st->pid[r] = k->pid;
        st->tid[r] = k->tid;
        st->name[r] = str_of(q, k->name);
        st->correlation[r] = k->row;     /* the start row's _id_ (PyProf's marker id) */
    }
    size_t nleft, nstarts;
    if (tp_nvtx_pairs_left(&mk.pairs, &left, &nleft, &nstarts) < 0)
        goto oom;
    for (size_t i = 0; i < nleft; i++)
        tp_store_skip_row(q->st, i < nstarts ? "NVTX range never closed (CUPTI_ACTIVITY_KIND_MARKER start row without end)"
                                             : "NVTX range end without a start", left[i].row);
    rc = TP_OK;
    goto done;
oom:
    rc = nomem(q);
done:
    sqlite3_finalize(s);
    free(left);
    tp_nvtx_pairs_free(&mk.pairs);
    q->marks = NULL;
    return rc;
}

static int copies(struct sq *q, const char *table, int memset_, int nsys)
{
    char sql[512];
    if (memset_)
        snprintf(sql, sizeof sql, "SELECT bytes, start, end, deviceId, streamId, correlationId, %s, rowid FROM %s",
                 nsys ? "globalPid" : "NULL", table);
    else
        snprintf(sql, sizeof sql,
                 "SELECT bytes, start, end, deviceId, streamId, correlationId, %s, copyKind, rowid FROM %s",
                 nsys ? "globalPid" : "NULL", table);
    sqlite3_stmt *s;
    int rc = prepare(q, table, sql, &s);
    if (rc)
        return rc;
    uint32_t mset = intern_c(q, "Memset");
    int64_t n = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        n++;
        if (bad_types(q, table, s, memset_ ? "iiiiinn" : "iiiiinni", sqlite3_column_int64(s, memset_ ? 7 : 8)))
            continue;
        int64_t r = tp_store_add(q->st);
        struct tp_kernel_info *ki = r >= 0 ? add_kinfo(q, r, NULL) : NULL;
        if (!ki) {
            sqlite3_finalize(s);
            return nomem(q);
        }
        tp_store *st = q->st;
        st->kind[r] = memset_ ? TP_K_MEMSET : TP_K_MEMCPY;
        st->name[r] = memset_ ? mset : intern_c(q, copy_kind(sqlite3_column_int64(s, 7)));
        ki->bytes = sqlite3_column_int64(s, 0);
        int64_t start = sqlite3_column_int64(s, 1), end = sqlite3_column_int64(s, 2);
        st->ts[r] = start;
        st->dur[r] = end > start ? end - start : 0;
        st->device[r] = (int32_t)sqlite3_column_int64(s, 3);
        st->stream[r] = (int32_t)sqlite3_column_int64(s, 4);
        st->correlation[r] = col_i64(s, 5);
        if (nsys && sqlite3_column_type(s, 6) != SQLITE_NULL)
            st->pid[r] = (sqlite3_column_int64(s, 6) >> 24) & 0xFFFFFF;
    }
    return step_done(q, table, s, rc, n);
}

/* A device from a row of either export's device table whose columns are,
 * from the first: id, name (not read: name is its string id), total memory,
 * compute capability major and minor, SMs, threads, registers and shared
 * memory per block.  NULL out of memory. */
static struct tp_device *add_device(struct sq *q, sqlite3_stmt *s, uint32_t name)
{
    tp_store *st = q->st;
    void *p = realloc(st->devices, (st->ndevices + 1) * sizeof *st->devices);
    if (!p)
        return NULL;
    st->devices = p;
    struct tp_device *d = &st->devices[st->ndevices++];
    memset(d, 0, sizeof *d);
    d->id = (int32_t)sqlite3_column_int64(s, 0);
    d->name = name;
    d->total_mem = sqlite3_column_int64(s, 2);
    d->major = (int)sqlite3_column_int64(s, 3);
    d->minor = (int)sqlite3_column_int64(s, 4);
    d->num_sms = (int)sqlite3_column_int64(s, 5);
    d->max_threads_per_block = (int)sqlite3_column_int64(s, 6);
    d->regs_per_block = (int)sqlite3_column_int64(s, 7);
    d->smem_per_block = sqlite3_column_int64(s, 8);
    d->warp_size = 32;
    return d;
}

static int nvprof_devices(struct sq *q)
{
    const char *table = "CUPTI_ACTIVITY_KIND_DEVICE";
    sqlite3_stmt *s;
    int rc = prepare(q, table, "SELECT id, name, globalMemorySize, computeCapabilityMajor, computeCapabilityMinor, "
                     "numMultiprocessors, maxThreadsPerBlock, maxRegistersPerBlock, maxSharedMemoryPerBlock, "
                     "numThreadsPerWarp, maxRegistersPerMultiprocessor, maxSharedMemoryPerMultiprocessor, "
                     "maxWarpsPerMultiprocessor FROM CUPTI_ACTIVITY_KIND_DEVICE", &s);
    if (rc)
        return rc;
    int64_t n = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        n++;
        if (bad_types(q, table, s, "iinnnnnnnnnnn", n) || dangling(q, table, s, 1, n))
            continue;
        struct tp_device *d = add_device(q, s, str_of(q, sqlite3_column_int64(s, 1)));
        if (!d) {
            sqlite3_finalize(s);
            return nomem(q);
        }
        d->warp_size = (int)sqlite3_column_int64(s, 9);
        d->regs_per_sm = (int)sqlite3_column_int64(s, 10);
        d->smem_per_sm = sqlite3_column_int64(s, 11);
        d->max_threads_per_sm = (int)sqlite3_column_int64(s, 12) * (d->warp_size ? d->warp_size : 32);
    }
    return step_done(q, table, s, rc, n);
}

/* The memcpy and memset tables, where the export has them. */
static int read_copies(struct sq *q, int memcpy_, int memset_, int nsys)
{
    if (memcpy_)
        TP_TRY(copies(q, "CUPTI_ACTIVITY_KIND_MEMCPY", 0, nsys));
    if (memset_)
        TP_TRY(copies(q, "CUPTI_ACTIVITY_KIND_MEMSET", 1, nsys));
    return TP_OK;
}

/* What both exports read after their kernels, in this order: the calls
 * (the kernels scope them), the NVTX ranges (the kept calls scope them),
 * copies and sets, devices (NULL stages: the export lacks the table). */
struct after_kernels {
    int (*calls)(struct sq *q);
    int (*nvtx)(struct sq *q);
    int (*devices)(struct sq *q);
    int memcpy_, memset_, nsys;
};

static int read_after_kernels(struct sq *q, const struct after_kernels *a)
{
    TP_TRY(begin_scope(q));
    if (a->calls)
        TP_TRY(a->calls(q));
    if (a->nvtx) {
        TP_TRY(scope_launches(q));
        TP_TRY(a->nvtx(q));
    }
    TP_TRY(read_copies(q, a->memcpy_, a->memset_, a->nsys));
    if (a->devices)
        TP_TRY(a->devices(q));
    /* blocks per SM and est. achieved occupancy as kineto computes them:
     * from the device properties nvprof's dump keeps; nsys's export has
     * neither, and its devices give the estimate what it needs */
    tp_occ_fill_store(q->st);
    return TP_OK;
}

static int nvprof_calls(struct sq *q)
{
    TP_TRY(nvprof_api(q, "CUPTI_ACTIVITY_KIND_RUNTIME", TP_K_RUNTIME));
    return nvprof_api(q, "CUPTI_ACTIVITY_KIND_DRIVER", TP_K_DRIVER);
}

static int ingest_nvprof(struct sq *q)
{
    static const char *const need[] = { "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME",
                                        "CUPTI_ACTIVITY_KIND_DRIVER", "CUPTI_ACTIVITY_KIND_MARKER", NULL };
    for (int i = 0; need[i]; i++) {
        int e = table_exists(q, need[i]);
        if (e <= 0)
            return tp_error_set(q->err, TP_ERR_FORMAT, "%s: nvprof export without table %s%s", q->path, need[i],
                                e < 0 ? " (unreadable database)" : "");
    }
    q->st->format = TP_SRC_NVPROF_SQLITE;
    /* optional tables: an unreadable schema is an error, never "absent" */
    int kernel = table_exists(q, "CUPTI_ACTIVITY_KIND_KERNEL"), memcpy_ = table_exists(q, "CUPTI_ACTIVITY_KIND_MEMCPY"),
        memset_ = table_exists(q, "CUPTI_ACTIVITY_KIND_MEMSET"), device = table_exists(q, "CUPTI_ACTIVITY_KIND_DEVICE");
    if (kernel < 0 || memcpy_ < 0 || memset_ < 0 || device < 0)
        return schema_error(q);
    TP_TRY(load_strings(q, "StringTable", "_id_"));
    TP_TRY(nvprof_kernels(q, "CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL"));
    if (kernel)
        TP_TRY(nvprof_kernels(q, "CUPTI_ACTIVITY_KIND_KERNEL"));
    const struct after_kernels a = { nvprof_calls, nvprof_markers, device ? nvprof_devices : NULL,
                                     memcpy_, memset_, 0 };
    return read_after_kernels(q, &a);
}

/* ---- nsys ---------------------------------------------------------------- */

static int nsys_kernels(struct sq *q)
{
    const char *table = "CUPTI_ACTIVITY_KIND_KERNEL";
    const char *name = has_column(q, table, "demangledName") ? "demangledName"
                       : has_column(q, table, "shortName") ? "shortName" : NULL;
    if (!name)
        return fail_sql(q, table, "no demangledName column");
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT rowid, %s, correlationId, start, end, deviceId, streamId, gridX, gridY, gridZ, "
             "blockX, blockY, blockZ, registersPerThread, staticSharedMemory, dynamicSharedMemory, %s "
             "FROM %s ORDER BY start, rowid", name, has_column(q, table, "globalPid") ? "globalPid" : "NULL", table);
    const char *const cols[] = { "rowid", name, NULL };     /* read with SQL: ordered by start */
    return read_kernels(q, table, sql, 1, 0, cols);
}

static int nsys_runtime(struct sq *q)
{
    const char *table = "CUPTI_ACTIVITY_KIND_RUNTIME";
    char sql[512], where[256], cols[128];
    snprintf(cols, sizeof cols, "start, end, globalTid, correlationId, %s",
             has_column(q, table, "nameId") ? "nameId" : "NULL");
    snprintf(sql, sizeof sql, "SELECT %s, rowid FROM %s%s", cols, table,
             call_filter(q, where, sizeof where, "iinnn", 3, 4, cols, NULL));
    sqlite3_stmt *s;
    int rc = prepare(q, table, sql, &s);
    if (rc)
        return rc;
    uint32_t generic = intern_c(q, "cuda runtime");
    int64_t n = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        n++;
        int64_t id = sqlite3_column_int64(s, 5);
        if (bad_types(q, table, s, "iinnn", id) ||
            (sqlite3_column_type(s, 4) != SQLITE_NULL && dangling(q, table, s, 4, id)) || !keep_call(q, s, 3))
            continue;
        int64_t r = tp_store_add(q->st);
        if (r < 0) {
            sqlite3_finalize(s);
            return nomem(q);
        }
        tp_store *st = q->st;
        st->kind[r] = TP_K_RUNTIME;
        int64_t start = sqlite3_column_int64(s, 0), end = sqlite3_column_int64(s, 1);
        st->ts[r] = start;
        st->dur[r] = end > start ? end - start : 0;
        int64_t g = sqlite3_column_int64(s, 2);
        st->pid[r] = (g >> 24) & 0xFFFFFF;
        st->tid[r] = g & 0xFFFFFF;
        st->correlation[r] = col_i64(s, 3);
        st->name[r] = sqlite3_column_type(s, 4) == SQLITE_NULL ? generic : str_of(q, sqlite3_column_int64(s, 4));
    }
    return step_done(q, table, s, rc, q->scoped ? q->seen : n);
}

static int nsys_nvtx(struct sq *q)
{
    const char *table = "NVTX_EVENTS";
    int text = has_column(q, table, "text"), textid = has_column(q, table, "textId");
    char sql[512];
    snprintf(sql, sizeof sql, "SELECT start, end, globalTid, %s, %s, eventType, rowid FROM %s ORDER BY start, rowid",
             text ? "text" : "NULL", textid ? "textId" : "NULL", table);
    sqlite3_stmt *s;
    int rc = prepare(q, table, sql, &s);
    if (rc)
        return rc;
    int64_t n = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        n++;
        /* registrations (no start, no thread) are told apart below; events need a start */
        int64_t id = sqlite3_column_int64(s, 6);
        if (bad_types(q, table, s, "nnntnn", id))
            continue;
        int64_t type = sqlite3_column_int64(s, 5);
        int isrange = sqlite3_column_type(s, 1) != SQLITE_NULL;
        if (!isrange && type != 34) {     /* domain/category registrations, not events */
            tp_store_skip_row(q->st, "NVTX_EVENTS row that is neither a range nor a mark", id);
            continue;
        }
        if (bad_types(q, table, s, "i", id) ||
            (sqlite3_column_type(s, 3) == SQLITE_NULL && sqlite3_column_type(s, 4) != SQLITE_NULL &&
             dangling(q, table, s, 4, id)))
            continue;
        if (q->scoped) {
            int64_t g = sqlite3_column_int64(s, 2), start = sqlite3_column_int64(s, 0);
            if (!isrange || !keep_range(q, (g >> 24) & 0xFFFFFF, g & 0xFFFFFF, start, sqlite3_column_int64(s, 1)))
                continue;
        }
        int64_t r = tp_store_add(q->st);
        if (r < 0) {
            sqlite3_finalize(s);
            return nomem(q);
        }
        tp_store *st = q->st;
        st->kind[r] = TP_K_NVTX;
        st->ph[r] = isrange ? 'X' : 'i';
        /* the range style nvtx_sum prints: 59/70 push-pop, 60/71 start-end */
        if (type == 59 || type == 70)
            st->cat[r] = intern_c(q, "PushPop");
        else if (type == 60 || type == 71)
            st->cat[r] = intern_c(q, "StartEnd");
        int64_t start = sqlite3_column_int64(s, 0);
        st->ts[r] = start;
        st->dur[r] = isrange ? sqlite3_column_int64(s, 1) - start : 0;
        int64_t g = sqlite3_column_int64(s, 2);
        st->pid[r] = (g >> 24) & 0xFFFFFF;
        st->tid[r] = g & 0xFFFFFF;
        if (sqlite3_column_type(s, 3) != SQLITE_NULL) {
            const char *t = (const char *)sqlite3_column_text(s, 3);
            st->name[r] = tp_store_intern(st, t ? t : "", t ? (size_t)sqlite3_column_bytes(s, 3) : 0);
        } else if (sqlite3_column_type(s, 4) != SQLITE_NULL) {
            st->name[r] = str_of(q, sqlite3_column_int64(s, 4));
        }
        st->correlation[r] = n;
    }
    return step_done(q, table, s, rc, n);
}

static int nsys_devices(struct sq *q)
{
    const char *table = "TARGET_INFO_GPU";
    /* 9..: what the occupancy estimate needs (occupancy.c); NULL (0) where
     * an older export lacks a column, and the estimate is then left out */
    const char *cols[] = { "id", "name", "totalMemory", "computeMajor", "computeMinor", "smCount",
                           "maxThreadsPerBlock", "maxRegistersPerBlock", "maxShmemPerBlock",
                           "threadsPerWarp", "maxWarpsPerSm", "maxRegistersPerSm", "maxShmemPerSm",
                           "maxShmemPerBlockOptin", "maxBlocksPerSm", "memoryBandwidth" };
    char sql[512];
    size_t len = (size_t)snprintf(sql, sizeof sql, "SELECT ");
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        len += (size_t)snprintf(sql + len, sizeof sql - len, "%s%s", i ? ", " : "",
                                has_column(q, table, cols[i]) ? cols[i] : "NULL");
    snprintf(sql + len, sizeof sql - len, " FROM %s", table);
    sqlite3_stmt *s;
    int rc = prepare(q, table, sql, &s);
    if (rc)
        return rc;
    int64_t n = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        n++;
        const char *nm = (const char *)sqlite3_column_text(s, 1);
        struct tp_device *d = add_device(q, s, nm ? intern_c(q, nm) : 0);
        if (!d) {
            sqlite3_finalize(s);
            return nomem(q);
        }
        if (sqlite3_column_int64(s, 9) > 0)
            d->warp_size = (int)sqlite3_column_int64(s, 9);
        d->max_threads_per_sm = (int)sqlite3_column_int64(s, 10) * d->warp_size;
        d->regs_per_sm = (int)sqlite3_column_int64(s, 11);
        d->smem_per_sm = sqlite3_column_int64(s, 12);
        d->smem_optin = sqlite3_column_int64(s, 13);
        d->max_blocks_per_sm = (int)sqlite3_column_int64(s, 14);
        d->mem_bw = sqlite3_column_int64(s, 15) > 0 ? sqlite3_column_int64(s, 15) : 0;   /* roofline */
    }
    return step_done(q, table, s, rc, n);
}

static int ingest_nsys(struct sq *q)
{
    q->st->format = TP_SRC_NSYS_SQLITE;
    /* optional tables: an unreadable schema is an error, never "absent" */
    int runtime = table_exists(q, "CUPTI_ACTIVITY_KIND_RUNTIME"), nvtx = table_exists(q, "NVTX_EVENTS"),
        memcpy_ = table_exists(q, "CUPTI_ACTIVITY_KIND_MEMCPY"), memset_ = table_exists(q, "CUPTI_ACTIVITY_KIND_MEMSET"),
        gpus = table_exists(q, "TARGET_INFO_GPU");
    if (runtime < 0 || nvtx < 0 || memcpy_ < 0 || memset_ < 0 || gpus < 0)
        return schema_error(q);
    TP_TRY(load_strings(q, "StringIds", "id"));
    TP_TRY(nsys_kernels(q));
    const struct after_kernels a = { runtime ? nsys_runtime : NULL, nvtx ? nsys_nvtx : NULL,
                                     gpus ? nsys_devices : NULL, memcpy_, memset_, 1 };
    return read_after_kernels(q, &a);
}

/* ---- entry --------------------------------------------------------------- */

int tp_ingest_sqlite(tp_store *st, const char *path, tp_error *err)
{
    struct tp_sqlite in;
    int rc = tp_sqlite_open(&in, path, err);
    if (rc != TP_OK)
        return rc;
    struct sq q = { .db = in.db, .st = st, .path = path, .err = err };
    if (sqlite3_create_function_v2(q.db, "tprof_wanted", -1, SQLITE_UTF8, &q, fn_wanted, NULL, NULL, NULL) !=
            SQLITE_OK ||
        sqlite3_create_function_v2(q.db, "tprof_kernel_call", 1, SQLITE_UTF8, &q, fn_kernel_call, NULL, NULL, NULL) !=
            SQLITE_OK ||
        sqlite3_create_function_v2(q.db, "tprof_marker", 6, SQLITE_UTF8, &q, fn_marker, NULL, NULL, NULL) != SQLITE_OK) {
        tp_sqlite_close(&in);
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", path);
    }
    /* No mmap_size: a mapped database that shrinks while it is read (a
     * profiler still writing, NFS) kills the process with SIGBUS, as a mapped
     * trace did (D3).  SQLite's pread path costs 2-3 % CPU on a 261 MB dump
     * (2.21-2.25 s against 2.14-2.21 s) and fails with an I/O error instead. */
    int nv = table_exists(&q, "StringTable");
    if (nv < 0) {
        rc = tp_error_set(err, TP_ERR_FORMAT, "%s: not a readable SQLite database: %s", path, sqlite3_errmsg(q.db));
    } else if (nv == 1) {
        rc = ingest_nvprof(&q);
    } else if (table_exists(&q, "StringIds") == 1 && table_exists(&q, "CUPTI_ACTIVITY_KIND_KERNEL") == 1) {
        rc = ingest_nsys(&q);
    } else if (table_exists(&q, "StringIds") == 1) {
        st->format = TP_SRC_NSYS_SQLITE;   /* an nsys export with no GPU kernels */
        rc = TP_OK;
    } else {
        rc = tp_error_set(err, TP_ERR_FORMAT,
                          "%s: SQLite database is not an nvprof or Nsight Systems export (no StringTable or "
                          "StringIds table)", path);
    }
    /* a -wal beside it that could not be read: said after the rows, never silently ignored */
    if (rc == TP_OK && in.note[0])
        rc = tp_error_set(err, TP_ERR_FORMAT, "%s: %s", path, in.note);
    free(q.strmap);
    free(q.demap);
    tp_corr_set_free(&q.kcorr);
    tp_launch_scope_free(&q.launches);
    tp_sqlite_close(&in);
    return rc;
}
