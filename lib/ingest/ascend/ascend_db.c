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
 * per-operator device time) is said by the view that needs it.  Opened
 * read-only; a table that is absent or unreadable is skipped and noted. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include "ascend.h"

struct db {
    sqlite3 *h;
    tp_store *st;
    struct tp_npu_data *d;
    const char *name;       /* file name for messages */
};

static int has_table(sqlite3 *h, const char *t)
{
    sqlite3_stmt *s;
    int r = 0;
    if (sqlite3_prepare_v2(h, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", -1, &s, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(s, 1, t, -1, SQLITE_STATIC);
    r = sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
    return r;
}

/* "alias.col" when the table has the column (exports differ by version:
 * COMMUNICATION_OP.waitNs is recent), else "NULL". */
static const char *col_or_null(sqlite3 *h, const char *table, const char *alias_col)
{
    const char *col = strchr(alias_col, '.');
    col = col ? col + 1 : alias_col;
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT 1 FROM pragma_table_info('%s') WHERE name=?", table);
    sqlite3_stmt *s;
    int r = 0;
    if (sqlite3_prepare_v2(h, sql, -1, &s, NULL) == SQLITE_OK) {
        sqlite3_bind_text(s, 1, col, -1, SQLITE_STATIC);
        r = sqlite3_step(s) == SQLITE_ROW;
        sqlite3_finalize(s);
    }
    return r ? alias_col : "NULL";
}

static sqlite3_stmt *prep(struct db *b, const char *sql)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(b->h, sql, -1, &s, NULL) != SQLITE_OK) {
        char reason[96];
        snprintf(reason, sizeof reason, "%s: %.60s", b->name, sqlite3_errmsg(b->h));
        tp_store_skip(b->st, reason, 0);
        return NULL;
    }
    return s;
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

#define S(col) "(SELECT value FROM STRING_IDS WHERE id=" col ")"

static int tasks(struct db *b)
{
    struct tp_npu_data *d = b->d;
    tp_store *st = b->st;
    int have_steps = has_table(b->h, "STEP_TIME");
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
             col_or_null(b->h, "COMPUTE_TASK_INFO", "c.waitNs"), col_or_null(b->h, "COMPUTE_TASK_INFO", "c.blockDim"),
             col_or_null(b->h, "COMPUTE_TASK_INFO", "c.mixBlockDim"), col_or_null(b->h, "TASK", "t.modelId"),
             have_steps ? "(SELECT id FROM STEP_TIME WHERE t.startNs BETWEEN startNs AND endNs LIMIT 1)" : "NULL",
             col_or_null(b->h, "COMMUNICATION_OP", "o.waitNs"),
             have_steps ? "(SELECT id FROM STEP_TIME WHERE o.startNs BETWEEN startNs AND endNs LIMIT 1)" : "NULL");
    if (!has_table(b->h, "RANK_DEVICE_MAP"))
        return 0;
    sqlite3_stmt *s = prep(b, sql);
    if (!s)
        return 0;
    d->files |= TP_NPU_KERNEL_DETAILS;
    uint32_t cat = tp_store_intern(st, "ascend_db", 9);
    int r;
    while ((r = sqlite3_step(s)) == SQLITE_ROW) {
        struct tp_npu_task t;
        memset(&t, 0, sizeof t);
        t.name = col_str(b, s, 0);
        t.type = col_str(b, s, 1);
        t.core = col_str(b, s, 2);
        t.start = col_i64(s, 3);
        int64_t end = col_i64(s, 4);
        t.dur = t.start != TP_NONE && end != TP_NONE ? end - t.start : 0;
        t.dur_us = (double)t.dur / 1000.0;
        t.wait = col_i64(s, 5);
        t.block_dim = col_i64(s, 6);
        t.mix_block_dim = col_i64(s, 7);
        t.model_id = col_i64(s, 8);
        t.task_id = col_i64(s, 9);
        t.stream_id = col_i64(s, 10);
        int64_t dev = col_i64(s, 11);
        t.device = dev == TP_NONE ? -1 : (int32_t)dev;
        t.in_shapes = col_str(b, s, 12);
        t.in_types = col_str(b, s, 13);
        t.in_formats = col_str(b, s, 14);
        t.out_shapes = col_str(b, s, 15);
        t.out_types = col_str(b, s, 16);
        t.out_formats = col_str(b, s, 17);
        t.step = col_i64(s, 18);
        if (!t.core)
            t.core = tp_store_intern(st, "N/A", 3);
        int64_t row = tp_store_add(st);
        if (row < 0) {
            sqlite3_finalize(s);
            return -1;
        }
        st->kind[row] = TP_K_KERNEL;
        st->ts[row] = t.start == TP_NONE ? 0 : t.start;
        st->dur[row] = t.dur;
        st->name[row] = t.name;
        st->cat[row] = cat;
        st->device[row] = t.device;
        st->stream[row] = t.stream_id != TP_NONE && t.stream_id >= 0 && t.stream_id < INT32_MAX ? (int32_t)t.stream_id : -1;
        st->tid[row] = t.stream_id;
        t.row = row;
        if (t.start != TP_NONE && (d->first_ns == TP_NONE || t.start < d->first_ns))
            d->first_ns = t.start;
        if (d->ntasks == d->captasks) {
            size_t c = d->captasks ? d->captasks * 2 : 256;
            void *p = realloc(d->tasks, c * sizeof *d->tasks);
            if (!p) {
                sqlite3_finalize(s);
                return -1;
            }
            d->tasks = p;
            d->captasks = c;
        }
        d->tasks[d->ntasks++] = t;
    }
    sqlite3_finalize(s);
    d->read |= TP_NPU_KERNEL_DETAILS;
    return 0;
}

static int memory(struct db *b)
{
    struct tp_npu_data *d = b->d;
    sqlite3_stmt *s;
    if (has_table(b->h, "MEMORY_RECORD") &&
        (s = prep(b, "SELECT " S("component") ", timestamp, totalAllocated, totalReserved, totalActive, deviceId "
                     "FROM MEMORY_RECORD ORDER BY rowid"))) {
        d->files |= TP_NPU_MEMORY_RECORD;
        while (sqlite3_step(s) == SQLITE_ROW) {
            struct tp_npu_record r;
            r.component = col_str(b, s, 0);
            r.ts = col_i64(s, 1);
            r.allocated_mb = col_mb(s, 2);
            r.reserved_mb = col_mb(s, 3);
            r.active_mb = col_mb(s, 4);
            r.device = dev_name(b, col_i64(s, 5));
            if (r.ts == TP_NONE)
                continue;
            if (d->first_ns == TP_NONE || r.ts < d->first_ns) d->first_ns = r.ts;
            if (d->nrecords == d->caprecords) {
                size_t c = d->caprecords ? d->caprecords * 2 : 256;
                void *p = realloc(d->records, c * sizeof *d->records);
                if (!p) { sqlite3_finalize(s); return -1; }
                d->records = p;
                d->caprecords = c;
            }
            d->records[d->nrecords++] = r;
        }
        sqlite3_finalize(s);
        d->read |= TP_NPU_MEMORY_RECORD;
    }
    if (has_table(b->h, "OP_MEMORY") &&
        (s = prep(b, "SELECT " S("name") ", size, allocationTime, releaseTime, activeReleaseTime, duration, "
                     "activeDuration, allocationTotalAllocated, allocationTotalReserved, releaseTotalAllocated, "
                     "releaseTotalReserved, deviceId FROM OP_MEMORY ORDER BY rowid"))) {
        d->files |= TP_NPU_OPERATOR_MEMORY;
        while (sqlite3_step(s) == SQLITE_ROW) {
            struct tp_npu_alloc a;
            a.name = col_str(b, s, 0);
            if (!a.name)
                a.name = tp_store_intern(b->st, "<unknown>", 9);
            a.size_kb = sqlite3_column_double(s, 1) / 1024.0;
            a.alloc = col_i64(s, 2);
            a.release = col_i64(s, 3);
            a.active_release = col_i64(s, 4);
            a.dur = col_i64(s, 5);
            a.active_dur = col_i64(s, 6);
            a.alloc_allocated_mb = col_mb(s, 7);
            a.alloc_reserved_mb = col_mb(s, 8);
            a.release_allocated_mb = col_mb(s, 9);
            a.release_reserved_mb = col_mb(s, 10);
            a.device = dev_name(b, col_i64(s, 11));
            if (a.alloc != TP_NONE && (d->first_ns == TP_NONE || a.alloc < d->first_ns)) d->first_ns = a.alloc;
            if (d->nallocs == d->capallocs) {
                size_t c = d->capallocs ? d->capallocs * 2 : 256;
                void *p = realloc(d->allocs, c * sizeof *d->allocs);
                if (!p) { sqlite3_finalize(s); return -1; }
                d->allocs = p;
                d->capallocs = c;
            }
            d->allocs[d->nallocs++] = a;
        }
        sqlite3_finalize(s);
        d->read |= TP_NPU_OPERATOR_MEMORY;
    }
    if (has_table(b->h, "NPU_MODULE_MEM") && has_table(b->h, "ENUM_MODULE") &&
        (s = prep(b, "SELECT (SELECT name FROM ENUM_MODULE WHERE id=moduleId), timestampNs, totalReserved, deviceId "
                     "FROM NPU_MODULE_MEM ORDER BY rowid"))) {
        d->files |= TP_NPU_MODULE_MEM;
        while (sqlite3_step(s) == SQLITE_ROW) {
            struct tp_npu_module m;
            m.component = col_str(b, s, 0);
            m.ts = col_i64(s, 1);
            m.reserved_mb = col_mb(s, 2);
            m.device = dev_name(b, col_i64(s, 3));
            if (m.ts == TP_NONE || isnan(m.reserved_mb))
                continue;
            if (d->nmodules == d->capmodules) {
                size_t c = d->capmodules ? d->capmodules * 2 : 256;
                void *p = realloc(d->modules, c * sizeof *d->modules);
                if (!p) { sqlite3_finalize(s); return -1; }
                d->modules = p;
                d->capmodules = c;
            }
            d->modules[d->nmodules++] = m;
        }
        sqlite3_finalize(s);
        d->read |= TP_NPU_MODULE_MEM;
    }
    return 0;
}

/* analysis.db beside the profiler export: step times and communication. */
static int analysis(struct db *b)
{
    struct tp_npu_data *d = b->d;
    sqlite3_stmt *s;
    if (has_table(b->h, "StepTraceTime") &&
        (s = prep(b, "SELECT step, computing, communication_not_overlapped, overlapped, communication, free, stage, "
                     "bubble, communication_not_overlapped_and_exclude_receive, preparing FROM StepTraceTime"))) {
        d->files |= TP_NPU_STEP_TRACE;
        while (sqlite3_step(s) == SQLITE_ROW) {
            struct tp_npu_steptime t;
            const unsigned char *stx = sqlite3_column_text(s, 0);
            t.step = stx && *stx ? strtoll((const char *)stx, NULL, 10) : TP_NONE;
            t.device = -1;
            double *dst[9] = {&t.computing, &t.comm_not_overlapped, &t.overlapped, &t.comm, &t.free, &t.stage,
                              &t.bubble, &t.comm_not_overlapped_excl_recv, &t.preparing};
            for (int i = 0; i < 9; i++)
                *dst[i] = sqlite3_column_type(s, i + 1) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i + 1);
            if (d->nsteps == d->capsteps) {
                size_t c = d->capsteps ? d->capsteps * 2 : 16;
                void *p = realloc(d->steps, c * sizeof *d->steps);
                if (!p) { sqlite3_finalize(s); return -1; }
                d->steps = p;
                d->capsteps = c;
            }
            d->steps[d->nsteps++] = t;
        }
        sqlite3_finalize(s);
        d->read |= TP_NPU_STEP_TRACE;
    }
    int bw = has_table(b->h, "CommAnalyzerBandwidth");
    char sql[1024];
    snprintf(sql, sizeof sql,
             "SELECT hccl_op_name, step, type, start_timestamp, elapse_time, transit_time, wait_time, "
             "synchronization_time, idle_time, %s FROM CommAnalyzerTime ORDER BY rowid",
             bw ? "(SELECT sum(ts) FROM (SELECT DISTINCT b.transport_type, b.transit_size AS ts FROM "
                  "CommAnalyzerBandwidth b WHERE b.hccl_op_name = CommAnalyzerTime.hccl_op_name AND "
                  "b.step IS CommAnalyzerTime.step AND b.type IS CommAnalyzerTime.type))" : "0");
    if (has_table(b->h, "CommAnalyzerTime") && (s = prep(b, sql))) {
        d->files |= TP_NPU_COMMUNICATION;
        size_t first = d->ncomms;
        while (sqlite3_step(s) == SQLITE_ROW) {
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
            if (d->ncomms == d->capcomms) {
                size_t n = d->capcomms ? d->capcomms * 2 : 64;
                void *p = realloc(d->comms, n * sizeof *d->comms);
                if (!p) { sqlite3_finalize(s); return -1; }
                d->comms = p;
                d->capcomms = n;
            }
            d->comms[d->ncomms++] = c;
        }
        sqlite3_finalize(s);
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
                if (!p) return -1;
                d->comms = p;
                d->capcomms = n;
            }
            d->comms[d->ncomms++] = t;
        }
        d->read |= TP_NPU_COMMUNICATION;
    }
    return 0;
}

static int open_ro(const char *path, sqlite3 **h)
{
    return sqlite3_open_v2(path, h, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL);
}

int tp_ascend_read_db(tp_store *st, struct tp_npu_data *d, const char *path, tp_error *err)
{
    struct db b = {.st = st, .d = d};
    const char *slash = strrchr(path, '/');
    b.name = slash ? slash + 1 : path;
    if (open_ro(path, &b.h) != SQLITE_OK) {
        char reason[96];
        snprintf(reason, sizeof reason, "%s: cannot be opened as SQLite", b.name);
        tp_store_bad(st, reason, 0);
        sqlite3_close(b.h);
        return TP_OK;
    }
    int rc = 0;
    if (!has_table(b.h, "TASK") && !has_table(b.h, "MEMORY_RECORD") && !has_table(b.h, "OP_MEMORY")) {
        char reason[96];
        snprintf(reason, sizeof reason, "%s: no profiler tables (TASK, MEMORY_RECORD ...): an empty export", b.name);
        tp_store_skip(st, reason, 0);
    } else {
        if (has_table(b.h, "TASK") && has_table(b.h, "COMPUTE_TASK_INFO") && has_table(b.h, "COMMUNICATION_OP") &&
            has_table(b.h, "STRING_IDS"))
            rc = tasks(&b);
        if (rc == 0)
            rc = memory(&b);
        if (rc == 0 && st->rank == TP_NONE && has_table(b.h, "RANK_DEVICE_MAP")) {
            sqlite3_stmt *s = prep(&b, "SELECT rankId FROM RANK_DEVICE_MAP LIMIT 1");
            if (s && sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL)
                st->rank = sqlite3_column_int64(s, 0);
            sqlite3_finalize(s);
        }
    }
    sqlite3_close(b.h);
    if (rc == 0) {
        /* analysis.db (or analysis.dat) sits beside it */
        char ap[2048];
        snprintf(ap, sizeof ap, "%.*sanalysis.%s", (int)(b.name - path), path,
                 strlen(b.name) > 4 && strcmp(b.name + strlen(b.name) - 4, ".dat") == 0 ? "dat" : "db");
        if (open_ro(ap, &b.h) == SQLITE_OK) {
            b.name = strrchr(ap, '/') ? strrchr(ap, '/') + 1 : ap;
            rc = analysis(&b);
        }
        sqlite3_close(b.h);
    }
    if (rc < 0)
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", path);
    return TP_OK;
}
