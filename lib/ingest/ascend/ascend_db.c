/* ascend_db.c — an Ascend folder exported as SQLite only (torch_npu
 * export_type "db": ascend_pytorch_profiler[_N].db and analysis.db).
 *
 * The tables carry most of what the CSVs carry, in ns and bytes:
 *   TASK + COMPUTE_TASK_INFO     -> kernel_details (compute tasks)
 *   COMMUNICATION_OP             -> kernel_details' HCCL rows
 *   STEP_TIME                    -> Step Id of each task
 *   MEMORY_RECORD, OP_MEMORY     -> memory_record, operator_memory
 *   NPU_MODULE_MEM + ENUM_MODULE -> npu_module_mem
 *   analysis.db StepTraceTime    -> step_trace_time
 *   analysis.db CommAnalyzerTime/Bandwidth -> communication.json
 * Strings are ids into STRING_IDS.  What has no table (operator_details:
 * per-operator device time) is said by the view that needs it.  A table
 * that is absent is skipped; a database that cannot be read (a schema that
 * cannot be read, a query that cannot be prepared, a sqlite3_step that
 * fails on a corrupt page or an I/O error) is an error naming the file and
 * the table, as for nvprof: the rows read before it are kept, and nothing
 * after it is read (a half-read export must not pass for a whole one).
 * Every table a query reads first passes PRAGMA quick_check: a damaged page
 * can read as other rows without any error from sqlite3_step.  Opened by
 * tp_sqlite_open (immutable; a -wal beside it read from a private copy). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "ascend.h"
#include "sqlite_open.h"
#include "grow.h"

struct db {
    sqlite3 *h;
    tp_store *st;
    struct tp_npu_data *d;
    const char *name;       /* file name for skip reasons */
    const char *path;       /* the file, for errors */
    tp_error *err;
    int rc;                 /* the first error (TP_OK while none) */
    char checked[512];      /* " T1 T2 ": the tables quick_check passed */
    char note[200];         /* "FILE: its -wal ... was not read": said at the end */
    uint32_t cat;           /* the category of the tasks' events ("ascend_db") */
};

static int fail(struct db *b, const char *table, int64_t rows, int stepping)
{
    if (b->rc == TP_OK)
        b->rc = stepping ? tp_sqlite_step_error(b->err, b->path, table, rows, b->h)
                         : tp_error_set(b->err, TP_ERR_FORMAT, "%s: table %s: %s", b->path, table, sqlite3_errmsg(b->h));
    return b->rc;
}

static int nomem(struct db *b)
{
    if (b->rc == TP_OK)
        b->rc = tp_error_set(b->err, TP_ERR_NOMEM, "%s: out of memory", b->path);
    return b->rc;
}

/* 1 when the table is there; 0 when it is not, or when the schema cannot be
 * read: then b->rc is set, and the caller stops at its next check. */
static int has_table(struct db *b, const char *t)
{
    int e = tp_sqlite_has_table(b->h, t);
    if (e < 0 && b->rc == TP_OK)
        b->rc = tp_error_set(b->err, TP_ERR_FORMAT, "%s: cannot read the schema: %s", b->path, sqlite3_errmsg(b->h));
    return e == 1;
}

/* "alias.col" when the table has the column (exports differ by version:
 * COMMUNICATION_OP.waitNs is recent), else "NULL". */
static const char *col_or_null(struct db *b, const char *table, const char *alias_col)
{
    const char *col = strchr(alias_col, '.');
    col = col ? col + 1 : alias_col;
    int e = tp_sqlite_has_column(b->h, table, col);
    if (e < 0)
        fail(b, table, 0, 0);
    return e == 1 ? alias_col : "NULL";
}

/* Every table of reads (space-separated) passes quick_check, once each. */
static int check_tables(struct db *b, const char *reads)
{
    char t[64], key[68];
    for (const char *p = reads; *p && b->rc == TP_OK;) {
        size_t n = strcspn(p, " ");
        snprintf(t, sizeof t, "%.*s", (int)n, p);
        snprintf(key, sizeof key, " %s ", t);
        p += n + (p[n] == ' ');
        if (strstr(b->checked, key) || tp_sqlite_has_table(b->h, t) != 1)
            continue;   /* an optional table that is absent reads as NULL in the query */
        b->rc = tp_sqlite_check_table(b->err, b->path, b->h, t);
        if (!b->checked[0])
            strcpy(b->checked, " ");
        if (strlen(b->checked) + strlen(key) < sizeof b->checked)
            strcat(b->checked, key + 1);
    }
    return b->rc;
}

/* The statement for sql, which reads the tables in reads (space-separated,
 * checked first); table names errors. */
static sqlite3_stmt *prep(struct db *b, const char *table, const char *reads, const char *sql)
{
    sqlite3_stmt *s = NULL;
    if (b->rc != TP_OK || check_tables(b, reads) != TP_OK)
        return NULL;
    if (sqlite3_prepare_v2(b->h, sql, -1, &s, NULL) != SQLITE_OK) {
        fail(b, table, 0, 0);
        sqlite3_finalize(s);
        return NULL;
    }
    return s;
}

/* The end of a sqlite3_step loop: anything but SQLITE_DONE is an error. */
static int step_end(struct db *b, const char *table, sqlite3_stmt *s, int r, int64_t rows)
{
    if (r != SQLITE_DONE)
        fail(b, table, rows, 1);
    sqlite3_finalize(s);
    return b->rc;
}

static uint32_t col_str(struct db *b, sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    if (!t)
        return 0;
    return tp_store_intern(b->st, (const char *)t, (size_t)sqlite3_column_bytes(s, i));
}

static int64_t col_i64(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? TP_NONE : sqlite3_column_int64(s, i);
}

static double col_mb(sqlite3_stmt *s, int i)
{
    return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i) / (1024.0 * 1024.0);
}

static uint32_t dev_name(struct db *b, int64_t dev)
{
    char n[32];
    int l = dev == TP_NONE ? snprintf(n, sizeof n, "NPU") : snprintf(n, sizeof n, "NPU:%lld", (long long)dev);
    return tp_store_intern(b->st, n, (size_t)l);
}

/* One table's rows into one array of the Ascend data (ARRAY(d, records):
 * d->records, its count and its capacity).  row() fills the record at the
 * array's end from the statement's row and says whether to keep it (1),
 * pass over it (0) or stop (<0: out of memory).  The table's bit is set in
 * d->files once the query is prepared, and in d->read when the rows are
 * read: the rows before an error are kept. */
struct table_rows {
    const char *table, *reads, *sql;
    unsigned bit;
    void **arr;
    size_t *n, *cap, size;
    int (*row)(struct db *b, sqlite3_stmt *s, void *rec);
};
#define ARRAY(d, a) (void **)&(d)->a, &(d)->n##a, &(d)->cap##a, sizeof *(d)->a

static int read_rows(struct db *b, struct table_rows t)
{
    sqlite3_stmt *s = prep(b, t.table, t.reads, t.sql);
    if (!s)
        return b->rc;
    b->d->files |= t.bit;
    int r, keep;
    int64_t n = 0;
    while ((r = sqlite3_step(s)) == SQLITE_ROW) {
        n++;
        if (tp_grow(t.arr, t.cap, *t.n + 1, t.size) < 0 || (keep = t.row(b, s, (char *)*t.arr + *t.n * t.size)) < 0) {
            sqlite3_finalize(s);
            return nomem(b);
        }
        *t.n += (size_t)keep;
    }
    b->d->read |= t.bit;
    return step_end(b, t.table, s, r, n);
}

#define S(col) "(SELECT value FROM STRING_IDS WHERE id=" col ")"

/* A task (a kernel_details row) and its kernel event in the store. */
static int task_row(struct db *b, sqlite3_stmt *s, void *rec)
{
    struct tp_npu_data *d = b->d;
    tp_store *st = b->st;
    struct tp_npu_task t;
    memset(&t, 0, sizeof t);
    t.name = col_str(b, s, 0);
    t.type = col_str(b, s, 1);
    t.core = col_str(b, s, 2);
    t.start = col_i64(s, 3);
    int64_t end = col_i64(s, 4);
    t.dur = t.start != TP_NONE && end != TP_NONE ? end - t.start : 0;
    t.dur_us = (double)t.dur / 1000.0;
    int64_t *i64[6] = {&t.wait, &t.block_dim, &t.mix_block_dim, &t.model_id, &t.task_id, &t.stream_id};
    for (int i = 0; i < 6; i++)
        *i64[i] = col_i64(s, 5 + i);
    int64_t dev = col_i64(s, 11);
    t.device = dev == TP_NONE ? -1 : (int32_t)dev;
    uint32_t *strs[6] = {&t.in_shapes, &t.in_types, &t.in_formats, &t.out_shapes, &t.out_types, &t.out_formats};
    for (int i = 0; i < 6; i++)
        *strs[i] = col_str(b, s, 12 + i);
    t.step = col_i64(s, 18);
    if (!t.core)
        t.core = tp_store_intern(st, "N/A", 3);
    t.row = tp_ascend_task_event(st, &t, b->cat);
    if (t.row < 0)
        return -1;
    if (t.start != TP_NONE && (d->first_ns == TP_NONE || t.start < d->first_ns))
        d->first_ns = t.start;
    *(struct tp_npu_task *)rec = t;
    return 1;
}

static int tasks(struct db *b)
{
    int have_steps = has_table(b, "STEP_TIME");
    char sql[2048];
    snprintf(sql, sizeof sql,
             "SELECT * FROM (SELECT " S("c.name") ", " S("c.opType") ", " S("c.taskType") ", t.startNs, t.endNs, "
             "%s, %s, %s, %s, t.taskId, t.streamId, t.deviceId, "
             S("c.inputShapes") ", " S("c.inputDataTypes") ", " S("c.inputFormats") ", " S("c.outputShapes") ", "
             S("c.outputDataTypes") ", " S("c.outputFormats") ", %s AS step "
             "FROM COMPUTE_TASK_INFO c JOIN TASK t ON t.globalTaskId = c.globalTaskId "
             "UNION ALL SELECT " S("o.opName") ", " S("o.opType") ", 'HCCL', o.startNs, o.endNs, %s, NULL, "
             "NULL, NULL, NULL, NULL, (SELECT deviceId FROM RANK_DEVICE_MAP LIMIT 1), NULL, NULL, NULL, NULL, NULL, "
             "NULL, %s FROM COMMUNICATION_OP o) ORDER BY startNs",
             col_or_null(b, "COMPUTE_TASK_INFO", "c.waitNs"), col_or_null(b, "COMPUTE_TASK_INFO", "c.blockDim"),
             col_or_null(b, "COMPUTE_TASK_INFO", "c.mixBlockDim"), col_or_null(b, "TASK", "t.modelId"),
             have_steps ? "(SELECT id FROM STEP_TIME WHERE t.startNs BETWEEN startNs AND endNs LIMIT 1)" : "NULL",
             col_or_null(b, "COMMUNICATION_OP", "o.waitNs"),
             have_steps ? "(SELECT id FROM STEP_TIME WHERE o.startNs BETWEEN startNs AND endNs LIMIT 1)" : "NULL");
    if (!has_table(b, "RANK_DEVICE_MAP"))
        return b->rc;
    b->cat = tp_store_intern(b->st, "ascend_db", 9);
    return read_rows(b, (struct table_rows){"TASK", "TASK COMPUTE_TASK_INFO COMMUNICATION_OP STRING_IDS RANK_DEVICE_MAP STEP_TIME",
                                            sql, TP_NPU_KERNEL_DETAILS, ARRAY(b->d, tasks), task_row});
}

static int record_row(struct db *b, sqlite3_stmt *s, void *rec)
{
    struct tp_npu_data *d = b->d;
    struct tp_npu_record r;
    r.component = col_str(b, s, 0);
    r.ts = col_i64(s, 1);
    r.allocated_mb = col_mb(s, 2);
    r.reserved_mb = col_mb(s, 3);
    r.active_mb = col_mb(s, 4);
    r.device = dev_name(b, col_i64(s, 5));
    if (r.ts == TP_NONE)
        return 0;
    if (d->first_ns == TP_NONE || r.ts < d->first_ns) d->first_ns = r.ts;
    *(struct tp_npu_record *)rec = r;
    return 1;
}

static int alloc_row(struct db *b, sqlite3_stmt *s, void *rec)
{
    struct tp_npu_data *d = b->d;
    struct tp_npu_alloc a;
    a.name = col_str(b, s, 0);
    if (!a.name)
        a.name = tp_store_intern(b->st, "<unknown>", 9);
    a.size_kb = sqlite3_column_double(s, 1) / 1024.0;
    int64_t *i64[5] = {&a.alloc, &a.release, &a.active_release, &a.dur, &a.active_dur};
    for (int i = 0; i < 5; i++)
        *i64[i] = col_i64(s, 2 + i);
    double *mb[4] = {&a.alloc_allocated_mb, &a.alloc_reserved_mb, &a.release_allocated_mb, &a.release_reserved_mb};
    for (int i = 0; i < 4; i++)
        *mb[i] = col_mb(s, 7 + i);
    a.device = dev_name(b, col_i64(s, 11));
    if (a.alloc != TP_NONE && (d->first_ns == TP_NONE || a.alloc < d->first_ns)) d->first_ns = a.alloc;
    *(struct tp_npu_alloc *)rec = a;
    return 1;
}

static int module_row(struct db *b, sqlite3_stmt *s, void *rec)
{
    struct tp_npu_module m;
    m.component = col_str(b, s, 0);
    m.ts = col_i64(s, 1);
    m.reserved_mb = col_mb(s, 2);
    m.device = dev_name(b, col_i64(s, 3));
    if (m.ts == TP_NONE || isnan(m.reserved_mb))
        return 0;
    *(struct tp_npu_module *)rec = m;
    return 1;
}

static int memory(struct db *b)
{
    if (has_table(b, "MEMORY_RECORD") &&
        read_rows(b, (struct table_rows){"MEMORY_RECORD", "MEMORY_RECORD STRING_IDS",
                                         "SELECT " S("component") ", timestamp, totalAllocated, totalReserved, "
                                         "totalActive, deviceId FROM MEMORY_RECORD ORDER BY rowid",
                                         TP_NPU_MEMORY_RECORD, ARRAY(b->d, records), record_row}))
        return b->rc;
    if (has_table(b, "OP_MEMORY") &&
        read_rows(b, (struct table_rows){"OP_MEMORY", "OP_MEMORY STRING_IDS",
                                         "SELECT " S("name") ", size, allocationTime, releaseTime, activeReleaseTime, "
                                         "duration, activeDuration, allocationTotalAllocated, allocationTotalReserved, "
                                         "releaseTotalAllocated, releaseTotalReserved, deviceId FROM OP_MEMORY ORDER BY rowid",
                                         TP_NPU_OPERATOR_MEMORY, ARRAY(b->d, allocs), alloc_row}))
        return b->rc;
    if (has_table(b, "NPU_MODULE_MEM") && has_table(b, "ENUM_MODULE"))
        read_rows(b, (struct table_rows){"NPU_MODULE_MEM", "NPU_MODULE_MEM ENUM_MODULE",
                                         "SELECT (SELECT name FROM ENUM_MODULE WHERE id=moduleId), timestampNs, "
                                         "totalReserved, deviceId FROM NPU_MODULE_MEM ORDER BY rowid",
                                         TP_NPU_MODULE_MEM, ARRAY(b->d, modules), module_row});
    return b->rc;
}

static int steptime_row(struct db *b, sqlite3_stmt *s, void *rec)
{
    (void)b;
    struct tp_npu_steptime t;
    const unsigned char *stx = sqlite3_column_text(s, 0);
    t.step = stx && *stx ? strtoll((const char *)stx, NULL, 10) : TP_NONE;
    t.device = -1;
    double *dst[9] = {&t.computing, &t.comm_not_overlapped, &t.overlapped, &t.comm, &t.free, &t.stage,
                      &t.bubble, &t.comm_not_overlapped_excl_recv, &t.preparing};
    for (int i = 0; i < 9; i++)
        *dst[i] = sqlite3_column_type(s, i + 1) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i + 1);
    *(struct tp_npu_steptime *)rec = t;
    return 1;
}

static int comm_row(struct db *b, sqlite3_stmt *s, void *rec)
{
    struct tp_npu_comm c;
    memset(&c, 0, sizeof c);
    c.name = col_str(b, s, 0);
    const unsigned char *stx = sqlite3_column_text(s, 1);
    c.step = stx && strncmp((const char *)stx, "step", 4) == 0 && stx[4] ? strtoll((const char *)stx + 4, NULL, 10)
                                                                        : TP_NONE;
    c.kind = col_str(b, s, 2);
    double start_us = sqlite3_column_double(s, 3);
    /* range first: llround of a double past int64 has no defined value */
    c.start = sqlite3_column_type(s, 3) == SQLITE_NULL || !(fabs(start_us) < 9.2e15) ? TP_NONE
                                                        : (int64_t)llround(start_us * 1000.0);
    c.elapse_ms = sqlite3_column_double(s, 4);
    c.transit_ms = sqlite3_column_double(s, 5);
    c.wait_ms = sqlite3_column_double(s, 6);
    c.sync_ms = sqlite3_column_double(s, 7);
    c.idle_ms = sqlite3_column_double(s, 8);
    c.wait_ratio = c.sync_ratio = NAN;
    c.transit_size_mb = sqlite3_column_double(s, 9);
    for (int i = 0; i < 5; i++)
        c.bw_gbps[i] = NAN;
    *(struct tp_npu_comm *)rec = c;
    return 1;
}

/* analysis.db beside the profiler export: step times and communication. */
static int analysis(struct db *b)
{
    struct tp_npu_data *d = b->d;
    if (has_table(b, "StepTraceTime") &&
        read_rows(b, (struct table_rows){"StepTraceTime", "StepTraceTime",
                                         "SELECT step, computing, communication_not_overlapped, overlapped, communication, "
                                         "free, stage, bubble, communication_not_overlapped_and_exclude_receive, preparing "
                                         "FROM StepTraceTime", TP_NPU_STEP_TRACE, ARRAY(d, steps), steptime_row}))
        return b->rc;
    int bw = has_table(b, "CommAnalyzerBandwidth");
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT hccl_op_name, step, type, start_timestamp, elapse_time, transit_time, wait_time, "
             "synchronization_time, idle_time, %s FROM CommAnalyzerTime ORDER BY rowid",
             bw ? "(SELECT sum(ts) FROM (SELECT DISTINCT b.transport_type, b.transit_size AS ts FROM "
                  "CommAnalyzerBandwidth b WHERE b.hccl_op_name = CommAnalyzerTime.hccl_op_name AND "
                  "b.step IS CommAnalyzerTime.step AND b.type IS CommAnalyzerTime.type))" : "0");
    if (has_table(b, "CommAnalyzerTime")) {
        size_t first = d->ncomms;
        /* the totals below are of every row: a table cut by an error is not read */
        if (read_rows(b, (struct table_rows){"CommAnalyzerTime", "CommAnalyzerTime CommAnalyzerBandwidth", sql,
                                             TP_NPU_COMMUNICATION, ARRAY(d, comms), comm_row})) {
            d->read &= ~(unsigned)TP_NPU_COMMUNICATION;
            return b->rc;
        }
        /* communication.json has a "Total Op Info" per step and kind: the sums */
        size_t end = d->ncomms;
        for (size_t i = first; i < end; i++) {
            size_t j = first;
            while (j < i && (d->comms[j].step != d->comms[i].step || d->comms[j].kind != d->comms[i].kind))
                j++;
            if (j < i)
                continue;
            struct tp_npu_comm t;
            memset(&t, 0, sizeof t);
            t.step = d->comms[i].step;
            t.kind = d->comms[i].kind;
            t.name = tp_store_intern(b->st, "Total Op Info", 13);
            t.total = 1;
            t.start = TP_NONE;
            t.wait_ratio = t.sync_ratio = NAN;
            for (int q = 0; q < 5; q++)
                t.bw_gbps[q] = NAN;
            for (size_t k = first; k < end; k++)
                if (d->comms[k].step == t.step && d->comms[k].kind == t.kind) {
                    t.elapse_ms += d->comms[k].elapse_ms;
                    t.transit_ms += d->comms[k].transit_ms;
                    t.wait_ms += d->comms[k].wait_ms;
                    t.sync_ms += d->comms[k].sync_ms;
                    t.idle_ms += d->comms[k].idle_ms;
                    t.transit_size_mb += d->comms[k].transit_size_mb;
                }
            if (d->ncomms == d->capcomms) {
                size_t n = d->capcomms * 2;
                void *p = realloc(d->comms, n * sizeof *d->comms);
                if (!p) return nomem(b);
                d->comms = p;
                d->capcomms = n;
            }
            d->comms[d->ncomms++] = t;
        }
        d->read |= TP_NPU_COMMUNICATION;
    }
    return b->rc;
}

/* One database: the main export, or analysis.db beside it. */
static int read_one(struct db *b, const char *path, int (*reader)(struct db *))
{
    struct tp_sqlite in;
    const char *slash = strrchr(path, '/');
    b->path = path;
    b->name = slash ? slash + 1 : path;
    b->checked[0] = 0;
    if (tp_sqlite_open(&in, path, b->err) != TP_OK)
        return b->rc = TP_ERR_FORMAT;   /* the message names the file; the folder's other rows stay */
    if (in.note[0] && !b->note[0])   /* a -wal that could not be read: said, never silently ignored */
        snprintf(b->note, sizeof b->note, "%s: %s", path, in.note);
    b->h = in.db;
    reader(b);
    tp_sqlite_close(&in);
    b->h = NULL;
    return b->rc;
}

static int profiler_tables(struct db *b)
{
    tp_store *st = b->st;
    int task = has_table(b, "TASK"), mem = has_table(b, "MEMORY_RECORD"), opmem = has_table(b, "OP_MEMORY");
    if (b->rc != TP_OK)
        return b->rc;
    if (!task && !mem && !opmem) {
        char reason[96];
        snprintf(reason, sizeof reason, "%s: no profiler tables (TASK, MEMORY_RECORD ...): an empty export", b->name);
        tp_store_skip(st, reason, 0);
        return TP_OK;
    }
    if (task && has_table(b, "COMPUTE_TASK_INFO") && has_table(b, "COMMUNICATION_OP") && has_table(b, "STRING_IDS"))
        tasks(b);
    if (b->rc == TP_OK)
        memory(b);
    if (b->rc == TP_OK && st->rank == TP_NONE && has_table(b, "RANK_DEVICE_MAP")) {
        sqlite3_stmt *s = prep(b, "RANK_DEVICE_MAP", "RANK_DEVICE_MAP", "SELECT rankId FROM RANK_DEVICE_MAP LIMIT 1");
        if (s) {
            int r = sqlite3_step(s);
            if (r == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
                st->rank = sqlite3_column_int64(s, 0);
            step_end(b, "RANK_DEVICE_MAP", s, r == SQLITE_ROW ? SQLITE_DONE : r, 0);
        }
    }
    return b->rc;
}

int tp_ascend_read_db(tp_store *st, struct tp_npu_data *d, const char *path, tp_error *err)
{
    struct db b = {.st = st, .d = d, .err = err, .rc = TP_OK};
    if (read_one(&b, path, profiler_tables) != TP_OK)
        return b.rc;
    /* analysis.db (or analysis.dat) sits beside it; absent is fine, unreadable is not */
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t blen = strlen(base);
    char ap[2048];
    snprintf(ap, sizeof ap, "%.*sanalysis.%s", (int)(base - path), path,
             blen > 4 && strcmp(base + blen - 4, ".dat") == 0 ? "dat" : "db");
    struct stat sb;
    if (stat(ap, &sb) == 0)
        read_one(&b, ap, analysis);
    if (b.rc == TP_OK && b.note[0])
        b.rc = tp_error_set(err, TP_ERR_FORMAT, "%s", b.note);
    return b.rc;
}
