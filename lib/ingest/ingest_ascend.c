/* ingest_ascend.c — Ascend NPU profiler output folders (torch_npu).
 *
 * A folder is recognised by what it holds, not by its name: the Ascend
 * plugin's regex ^(.*?)_(\d+(\.\d+)?)_ascend_pt$ rejects real folders such as
 * rank0_ascend_pt (SPEC §A.2, §A.7.10).  Given <worker>_<span>_ascend_pt/ or
 * its ASCEND_PROFILER_OUTPUT/ (or any folder holding those files directly),
 * this reads:
 *   - trace_view.json (a bare array of Chrome-trace events with string
 *     timestamps) through the kineto JSON importer: host ops, CANN calls,
 *     device tasks and flows become ordinary store rows; its earliest ts is
 *     the plugin's profiler_start_ts;
 *   - kernel_details.csv: one TP_K_KERNEL row per device task, plus the
 *     Ascend columns in st->npu->tasks;
 *   - operator_details, operator_memory, memory_record, npu_module_mem,
 *     step_trace_time (CSV) and communication.json into st->npu;
 *   - profiler_info*.json for the rank and profiler level;
 *   - CANN msprof's op_summary*.csv in place of a missing kernel_details.csv
 *     (the same table before torch_npu renames its columns);
 *   - the SQLite export when the folder has no CSVs (ascend_db.c).
 * Missing files are not errors: the views that need them say which file
 * they did not find. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "ascend.h"
#include "ingest.h"
#include "json.h"
#include "try.h"

static const struct {
    const char *name;
    enum tp_npu_file bit;
} known[] = {
    {"kernel_details.csv", TP_NPU_KERNEL_DETAILS},
    {"operator_details.csv", TP_NPU_OPERATOR_DETAILS},
    {"memory_record.csv", TP_NPU_MEMORY_RECORD},
    {"operator_memory.csv", TP_NPU_OPERATOR_MEMORY},
    {"npu_module_mem.csv", TP_NPU_MODULE_MEM},
    {"step_trace_time.csv", TP_NPU_STEP_TRACE},
    {"communication.json", TP_NPU_COMMUNICATION},
    {"trace_view.json", TP_NPU_TRACE_VIEW},
};
#define NKNOWN (sizeof known / sizeof known[0])

const char *const tp_npu_links[5] = {"RDMA", "HCCS", "PCIE", "SDMA", "SIO"};

const char *tp_npu_file_name(enum tp_npu_file f)
{
    for (size_t i = 0; i < NKNOWN; i++)
        if (known[i].bit == f)
            return known[i].name;
    return f == TP_NPU_DB ? "ascend_pytorch_profiler*.db" : "?";
}

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

static int is_db_name(const char *n)
{
    size_t l = strlen(n);
    /* .db as torch_npu writes it; .dat as msinsight's test data renamed it */
    return strncmp(n, "ascend_pytorch_profiler", 23) == 0 &&
           ((l >= 26 && strcmp(n + l - 3, ".db") == 0) || (l >= 27 && strcmp(n + l - 4, ".dat") == 0));
}

/* A trace_view.json is a bare JSON array. */
static int bare_array(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    int c;
    while ((c = fgetc(f)) == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0xef || c == 0xbb || c == 0xbf)
        ;
    fclose(f);
    return c == '[';
}

/* Bits of the known files directly in dir; *db gets the SQLite export's path. */
static unsigned scan(const char *dir, char *db, size_t dbcap, char *opsum, size_t opcap)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    unsigned bits = 0;
    struct dirent *e;
    char p[2048];
    while ((e = readdir(d))) {
        for (size_t i = 0; i < NKNOWN; i++)
            if (strcmp(e->d_name, known[i].name) == 0) {
                snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
                struct stat sb;
                if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode) &&
                    (known[i].bit != TP_NPU_TRACE_VIEW || bare_array(p)))
                    bits |= known[i].bit;
            }
        /* CANN msprof's op_summary[_*].csv: kernel_details before renaming */
        size_t l = strlen(e->d_name);
        if (strncmp(e->d_name, "op_summary", 10) == 0 && l > 14 && strcmp(e->d_name + l - 4, ".csv") == 0) {
            bits |= TP_NPU_OP_SUMMARY;
            if (opsum)
                snprintf(opsum, opcap, "%s/%s", dir, e->d_name);
        }
        if (is_db_name(e->d_name)) {
            bits |= TP_NPU_DB;
            if (db)
                snprintf(db, dbcap, "%s/%s", dir, e->d_name);
        }
    }
    closedir(d);
    return bits;
}

/* The folder that holds the files: DIR/ASCEND_PROFILER_OUTPUT or DIR. */
static int outdir(const char *dir, char *out, size_t cap)
{
    char p[2048];
    snprintf(p, sizeof p, "%s/ASCEND_PROFILER_OUTPUT", dir);
    if (is_dir(p) && scan(p, NULL, 0, NULL, 0)) {
        snprintf(out, cap, "%s", p);
        return 1;
    }
    if (scan(dir, NULL, 0, NULL, 0)) {
        snprintf(out, cap, "%s", dir);
        return 1;
    }
    return 0;
}

int tp_ascend_probe(const char *dir)
{
    char o[2048];
    return outdir(dir, o, sizeof o);
}

/* The whole file; NULL when it cannot be read, or, with *nomem set, when
 * memory ran out (an error of its own: not a file to skip). */
static char *slurp(const char *path, size_t *len, int *nomem)
{
    *nomem = 0;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    *nomem = !b;
    while (b) {
        size_t r = fread(b + n, 1, cap - n, f);
        n += r;
        if (n < cap) {
            if (ferror(f)) {
                free(b);
                b = NULL;
            }
            break;
        }
        char *nb = realloc(b, cap * 2);
        if (!nb) {
            free(b);
            b = NULL;
            *nomem = 1;
            break;
        }
        b = nb;
        cap *= 2;
    }
    fclose(f);
    *len = n;
    return b;
}

/* profiler_info[_N].json beside ASCEND_PROFILER_OUTPUT: rank_id and level;
 * -1 when out of memory. */
static int read_info(tp_store *st, struct tp_npu_data *d, const char *dir)
{
    DIR *dd = opendir(dir);
    if (!dd)
        return 0;
    struct dirent *e;
    while ((e = readdir(dd))) {
        size_t l = strlen(e->d_name);
        if (strncmp(e->d_name, "profiler_info", 13) != 0 || l < 18 || strcmp(e->d_name + l - 5, ".json") != 0)
            continue;
        char p[2048];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        size_t n;
        int oom;
        char *b = slurp(p, &n, &oom);
        if (!b && oom)
            break;
        if (!b)
            continue;
        char *s = realloc(b, n + 1);
        if (!s) {
            free(b);
            oom = 1;
            break;
        }
        s[n] = 0;
        const char *r = strstr(s, "\"rank_id\"");
        if (r && (r = strchr(r, ':'))) {
            char *end;
            long long v = strtoll(r + 1, &end, 10);
            if (end != r + 1 && v >= 0)
                st->rank = v;
        }
        if (st->rank == TP_NONE && e->d_name[13] == '_') {
            char *end;
            long long v = strtoll(e->d_name + 14, &end, 10);
            if (end != e->d_name + 14 && strcmp(end, ".json") == 0)
                st->rank = v;
        }
        const char *lv = strstr(s, "\"_profiler_level\"");
        if (lv && (lv = strstr(lv, "Level")) && lv[5] >= '0' && lv[5] <= '9')
            d->level = lv[5] - '0';
        free(s);
    }
    closedir(dd);
    return e ? -1 : 0;    /* left the loop early: out of memory */
}

/* "PATH: byte N: what" from the JSON reader -> reason "FILE: what" at N. */
void tp_ascend_json_bad(tp_store *st, const char *file, const char *msg)
{
    char reason[96];
    unsigned long long off = 0;
    const char *m = strstr(msg, file);
    m = m ? m + strlen(file) : msg;
    if (strncmp(m, ": ", 2) == 0)
        m += 2;
    if (sscanf(m, "byte %llu: ", &off) == 1) {
        const char *c = strstr(m, ": ");
        m = c ? c + 2 : m;
    }
    snprintf(reason, sizeof reason, "%s: %.70s", file, m);
    tp_store_bad(st, reason, off);
}

static int read_trace(tp_store *st, struct tp_npu_data *d, const char *path)
{
    tp_source *src;
    tp_error e = {0};
    size_t first = st->n;
    if (tp_source_open(&src, path, &e) != TP_OK) {
        tp_store_bad(st, "trace_view.json: cannot be opened", 0);
        return 0;
    }
    size_t skips_before = st->nskips;
    /* the ops are linked to their tasks through the trace's flows
     * (ascend_link.c): a lean load (tp_store_set_lean) reads it whole */
    int lean = st->lean;
    st->lean = 0;
    int rc = tp_ingest_kineto(st, src, &e);
    st->lean = lean;
    /* the importer's own complaints: say which file they are about */
    for (size_t i = skips_before; i < st->nskips; i++) {
        char r[96];
        snprintf(r, sizeof r, "trace_view.json: %.78s", st->skips[i].reason);
        memcpy(st->skips[i].reason, r, sizeof r);
    }
    st->text_bytes = 0;
    tp_source_close(src);
    if (rc == TP_ERR_NOMEM)
        return -1;
    if (rc != TP_OK) {
        /* The rows before the error stay; say what happened. */
        tp_ascend_json_bad(st, "trace_view.json", e.msg);
    }
    for (size_t i = first; i < st->n; i++)
        if (st->ph[i] != 'M' && (d->start_ns == TP_NONE || st->ts[i] < d->start_ns))
            d->start_ns = st->ts[i];
    if (st->n > first)
        d->read |= TP_NPU_TRACE_VIEW;
    return 0;
}

/* "NPU:3" -> 3, else -1. */
static int npu_id(const char *s)
{
    if (strncmp(s, "NPU:", 4) != 0 || s[4] < '0' || s[4] > '9')
        return -1;
    return atoi(s + 4);
}

int tp_ingest_ascend(tp_store *st, const char *dir, tp_error *err)
{
    struct tp_npu_data *d = calloc(1, sizeof *d);
    if (!d)
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", dir);
    st->npu = d;
    st->format = TP_SRC_ASCEND;
    d->start_ns = d->first_ns = TP_NONE;
    d->level = -1;
    if (!outdir(dir, d->dir, sizeof d->dir))
        return tp_error_set(err, TP_ERR_FORMAT, "%s: no Ascend profiler files (kernel_details.csv, trace_view.json ...)",
                            dir);
    char db[2048] = "", opsum[2048] = "";
    d->files = d->on_disk = scan(d->dir, db, sizeof db, opsum, sizeof opsum);

    /* profiler_info*.json sits in the *_ascend_pt folder, one level up. */
    if (read_info(st, d, dir) < 0 ||
        (st->rank == TP_NONE && strcmp(d->dir, dir) != 0 && read_info(st, d, d->dir) < 0))
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory reading profiler_info", dir);

    char p[2048];
    struct stat sb;
    for (size_t i = 0; i < NKNOWN; i++) {
        if (!(d->files & known[i].bit))
            continue;
        snprintf(p, sizeof p, "%s/%s", d->dir, known[i].name);
        if (stat(p, &sb) == 0)
            st->input_bytes += (uint64_t)sb.st_size;
        if (known[i].bit == TP_NPU_TRACE_VIEW) {
            if (read_trace(st, d, p) < 0)
                return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", p);
            continue;
        }
        if (known[i].bit == TP_NPU_COMMUNICATION) {
            int rc = tp_ascend_read_comm(st, d, p, err);
            if (rc == TP_ERR_NOMEM)
                return rc;
            continue;
        }
        size_t len;
        int oom;
        char *b = slurp(p, &len, &oom);
        if (!b && oom)
            return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", p);
        if (!b) {
            char reason[96];
            snprintf(reason, sizeof reason, "%s: cannot be read", known[i].name);
            tp_store_bad(st, reason, 0);
            continue;
        }
        int rc = tp_ascend_read_csv(st, d, known[i].bit, known[i].name, b, len);
        free(b);
        if (rc < 0)
            return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", p);
    }
    st->format = TP_SRC_ASCEND;   /* the kineto importer set its own */

    if (!(d->files & TP_NPU_KERNEL_DETAILS) && (d->files & TP_NPU_OP_SUMMARY)) {
        size_t len;
        int oom;
        char *b = slurp(opsum, &len, &oom);
        if (!b && oom)
            return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", opsum);
        const char *base = strrchr(opsum, '/') ? strrchr(opsum, '/') + 1 : opsum;
        if (b) {
            st->input_bytes += len;
            int rc = tp_ascend_read_csv(st, d, TP_NPU_KERNEL_DETAILS, base, b, len);
            free(b);
            if (rc < 0)
                return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", opsum);
            d->files |= TP_NPU_KERNEL_DETAILS;
        }
    }

    unsigned csvs = TP_NPU_KERNEL_DETAILS | TP_NPU_OPERATOR_DETAILS | TP_NPU_MEMORY_RECORD |
                    TP_NPU_OPERATOR_MEMORY | TP_NPU_MODULE_MEM | TP_NPU_STEP_TRACE;
    int dbrc = TP_OK;   /* a database that fails part way: its rows so far are linked and shown, then the error */
    if (!(d->files & csvs) && (d->files & TP_NPU_DB)) {
        if (stat(db, &sb) == 0)
            st->input_bytes += (uint64_t)sb.st_size;
        dbrc = tp_ascend_read_db(st, d, db, err);
        if (dbrc == TP_ERR_NOMEM)
            return dbrc;
    }

    if (tp_ascend_link(st, d) < 0)
        return tp_error_set(err, TP_ERR_NOMEM, "%s: out of memory", dir);

    /* Level0 kernel_details has no Device_id: the memory files name the device. */
    int dev = -1, agree = 1;
    for (size_t i = 0; i < d->nrecords && agree; i++) {
        int x = npu_id(tp_store_str(st, d->records[i].device));
        if (x >= 0 && dev >= 0 && x != dev) agree = 0;
        if (x >= 0) dev = x;
    }
    for (size_t i = 0; i < d->nallocs && agree; i++) {
        int x = npu_id(tp_store_str(st, d->allocs[i].device));
        if (x >= 0 && dev >= 0 && x != dev) agree = 0;
        if (x >= 0) dev = x;
    }
    if (agree && dev >= 0)
        for (size_t i = 0; i < d->ntasks; i++)
            if (d->tasks[i].device < 0) {
                d->tasks[i].device = dev;
                st->device[d->tasks[i].row] = dev;
            }
    return dbrc;
}

double tp_npu_round2(double x)
{
    /* glibc's printf rounds the exact binary value correctly, as Python's
     * round() does; the text goes back through strtod like Python's float */
    char b[64];
    if (!isfinite(x) || fabs(x) > 1e17)
        return x;
    snprintf(b, sizeof b, "%.2f", x);
    return strtod(b, NULL);
}

int64_t tp_npu_origin(const struct tp_npu_data *d)
{
    if (!d)
        return 0;
    if (d->start_ns != TP_NONE)
        return d->start_ns;
    return d->first_ns != TP_NONE ? d->first_ns : 0;
}

void tp_npu_free(struct tp_npu_data *d)
{
    if (!d)
        return;
    void *arrays[] = {d->tasks, d->ops, d->allocs, d->records, d->modules, d->steps, d->comms, d->xcols, d->xcells};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++)
        free(arrays[i]);
    free(d);
}

int tp_npu_ns(double us, double scale, int64_t *ns)
{
    double x = us * scale;
    /* 2^63 is exact as a double; anything at or above it does not fit */
    if (!(x > -9223372036854775808.0 && x < 9223372036854775808.0))
        return -1;
    double r = round(x);
    if (!(r < 9223372036854775808.0))
        return -1;
    *ns = (int64_t)r;
    return 0;
}

int tp_npu_overflow(const tp_store *st, const char *what, tp_error *err)
{
    return tp_error_set(err, TP_ERR_FORMAT, "%s: %s sum beyond int64 ns (292 years): not a real profile",
                        st->path, what);
}

int tp_npu_missing(const tp_store *st, unsigned need, const char *view, const struct tp_coldef *cols, size_t ncols,
                   tp_table **out, tp_error *err)
{
    /* what can be shown: the view's header, no rows; the note says why */
    *out = tp_table_new(cols, ncols);
    TP_TRY_NOMEM(*out, err);
    const struct tp_npu_data *d = st->npu;
    char miss[256] = "", found[512] = "";
    size_t m = 0, f = 0;
    for (size_t i = 0; i < NKNOWN; i++) {
        if ((need & known[i].bit) && !(d && (d->files & known[i].bit)))
            m += (size_t)snprintf(miss + m, m < sizeof miss ? sizeof miss - m : 0, "%s%s", m ? " and " : "",
                                  known[i].name);
        if (d && (d->on_disk & known[i].bit))
            f += (size_t)snprintf(found + f, f < sizeof found ? sizeof found - f : 0, "%s%s", f ? ", " : "",
                                  known[i].name);
    }
    if (d && (d->on_disk & TP_NPU_OP_SUMMARY))
        f += (size_t)snprintf(found + f, f < sizeof found ? sizeof found - f : 0, "%s%s", f ? ", " : "",
                              "op_summary*.csv");
    if (d && (d->on_disk & TP_NPU_DB))
        f += (size_t)snprintf(found + f, f < sizeof found ? sizeof found - f : 0, "%s%s", f ? ", " : "",
                              "the SQLite export, which has no table for it");
    return tp_error_set(err, TP_OK, "%s: %s not found: the %s view needs it (found: %s)",
                        d ? d->dir : st->path, miss[0] ? miss : "input", view, found[0] ? found : "nothing");
}

int tp_npu_info_line(const tp_store *st, size_t i, char *key, size_t kcap, char *val, size_t vcap)
{
    const struct tp_npu_data *d = st->npu;
    if (!d)
        return 0;
    switch (i) {
    case 0:
        snprintf(key, kcap, "ascend.dir");
        snprintf(val, vcap, "%s", d->dir);
        return 1;
    case 1: {
        size_t n = 0;
        val[0] = 0;
        for (size_t k = 0; k < NKNOWN; k++)
            if (d->on_disk & known[k].bit)
                n += (size_t)snprintf(val + n, n < vcap ? vcap - n : 0, "%s%s", n ? " " : "", known[k].name);
        if (d->on_disk & TP_NPU_OP_SUMMARY)
            n += (size_t)snprintf(val + n, n < vcap ? vcap - n : 0, "%sop_summary*.csv", n ? " " : "");
        if (d->on_disk & TP_NPU_DB)
            snprintf(val + n, n < vcap ? vcap - n : 0, "%sSQLite export", n ? " " : "");
        snprintf(key, kcap, "ascend.files");
        return 1;
    }
    case 2:
        snprintf(key, kcap, "ascend.level");
        if (d->level >= 0)
            snprintf(val, vcap, "Level%d", d->level);
        else
            snprintf(val, vcap, "unknown (no profiler_info)");
        return 1;
    case 3:
        snprintf(key, kcap, "ascend.start_ns");
        if (d->start_ns != TP_NONE)
            snprintf(val, vcap, "%lld (first event of trace_view.json)", (long long)d->start_ns);
        else
            snprintf(val, vcap, "%lld (no trace_view.json: earliest CSV timestamp)", (long long)tp_npu_origin(d));
        return 1;
    case 4:
        snprintf(key, kcap, "ascend.rows");
        snprintf(val, vcap, "tasks %zu, operators %zu, allocations %zu, memory records %zu, module records %zu, steps %zu, "
                 "communication ops %zu", d->ntasks, d->nops, d->nallocs, d->nrecords, d->nmodules, d->nsteps, d->ncomms);
        return 1;
    case 5: {
        /* HF32 Eligible, Context ID, the PMU columns: kernels --group all */
        snprintf(key, kcap, "ascend.kernel_extra_columns");
        size_t n = (size_t)snprintf(val, vcap, "%zu", d->nxcols);
        for (size_t c = 0; c < d->nxcols && n < vcap; c++)
            n += (size_t)snprintf(val + n, vcap - n, "%s%s", c ? "," : ": ", tp_store_str(st, d->xcols[c].name));
        return 1;
    }
    default:
        return 0;
    }
}
