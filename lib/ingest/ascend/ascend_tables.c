/* ascend_tables.c — one reader per CSV table of an Ascend profiler folder.
 *
 * Each reader finds its columns by header name (every variant of SPEC §A.4:
 * Step Id present or not, Device_id in front or not, Block Dim or Block
 * Num, the PMU columns of each aic_metrics), checks the columns it cannot do
 * without, and appends one record per row to tp_npu_data.  A row with fewer
 * fields than the header, or a cell that is not a number where one is
 * needed, is reported (file, row, column) and left out; the other rows and
 * files still count. */
#include <stdlib.h>
#include <string.h>
#include "ascend.h"
#include "grow.h"
#include "json.h"

static uint32_t cell_str(struct tp_npu_csv *c, int col)
{
    size_t n;
    const char *s = tp_npu_cell(c, col, &n);
    return col < 0 ? 0 : tp_store_intern(c->st, s, n);
}

/* Raw cell text (not trimmed of inner blanks): names keep their spelling. */
static uint32_t cell_raw(struct tp_npu_csv *c, int col)
{
    if (col < 0 || (size_t)col >= c->nf)
        return col < 0 ? 0 : tp_store_intern(c->st, "", 0);
    return tp_store_intern(c->st, c->f[col], c->flen[col]);
}

/* A row with fewer fields than the header: when a column the reader needs
 * is among the missing ones, report it (file, row, column) and leave the row
 * out; when only trailing optional columns are missing (hand-edited files,
 * SPEC §A.8 S3) the row counts, as it does for the plugin, and `tprof info`
 * notes it. */
static int full_row(struct tp_npu_csv *c, const int *need_cols, size_t n)
{
    if (c->nf >= c->nhdr)
        return 1;
    for (size_t i = 0; i < n; i++)
        if (need_cols[i] >= 0 && (size_t)need_cols[i] >= c->nf) {
            tp_npu_csv_bad(c, need_cols[i], "missing (the row is short)");
            return 0;
        }
    char reason[96];
    snprintf(reason, sizeof reason, "%s: rows with fewer fields than the header (first: row %llu)", c->file,
             (unsigned long long)c->row);
    for (size_t i = 0; i < c->st->nskips; i++)
        if (strncmp(c->st->skips[i].reason, reason, strlen(c->file) + 40) == 0) {
            c->st->skips[i].count++;
            return 1;
        }
    tp_store_skip(c->st, reason, c->row_off);
    return 1;
}

/* Missing required columns: one file-level message; 0 when all present. */
static int need(struct tp_npu_csv *c, const int *cols, const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (cols[i] < 0) {
            char what[80];
            snprintf(what, sizeof what, "no column \"%s\" in the header", names[i]);
            tp_npu_csv_bad(c, -2, what);
            return -1;
        }
    return 0;
}

static void note_first(struct tp_npu_data *d, int64_t ts)
{
    if (ts != TP_NONE && (d->first_ns == TP_NONE || ts < d->first_ns))
        d->first_ns = ts;
}

/* A record of time ts (note_first) appended to one of d's arrays: 0, or -1
 * on out of memory. */
static int add_timed(struct tp_npu_data *d, int64_t ts, void **arr, size_t *n, size_t *cap, const void *rec,
                     size_t size)
{
    note_first(d, ts);
    return tp_push(arr, n, cap, rec, size);
}

/* A reader's columns, found by header name on its first row: col[i] is the
 * column named names[i] (-1 when absent).  find_cols says whether the file
 * is unreadable: a column whose bit is in required is missing (said once;
 * every row is then left out). */
struct cols {
    struct tp_npu_data *d;
    int ready, bad;
    int col[12];
};

static int find_cols(struct tp_npu_csv *c, struct cols *k, const char *const *names, int n, unsigned required)
{
    if (k->ready)
        return k->bad;
    k->ready = 1;
    int req[12];
    const char *rn[12];
    size_t nreq = 0;
    for (int i = 0; i < n; i++) {
        k->col[i] = tp_npu_col(c, names[i]);
        if (required >> i & 1) {
            req[nreq] = k->col[i];
            rn[nreq++] = names[i];
        }
    }
    k->bad = need(c, req, rn, nreq) < 0;
    return k->bad;
}

/* A cell the row cannot do without: 0 with *out set, or -1 when it is
 * empty or not a number (said with the row), and the row is left out. */
static int need_ns(struct tp_npu_csv *c, int col, int64_t *out)
{
    int r = tp_npu_cell_ns(c, col, out);
    if (r == 0)
        tp_npu_csv_bad(c, col, "empty");
    return r == 1 ? 0 : -1;
}

static int need_f64(struct tp_npu_csv *c, int col, double *out)
{
    int r = tp_npu_cell_f64(c, col, out);
    if (r == 0)
        tp_npu_csv_bad(c, col, "empty");
    return r == 1 ? 0 : -1;
}

/* ---- kernel_details.csv ---- */

struct kctx {
    struct tp_npu_data *d;
    int ready, bad;
    int step, dev, name, type, state, core, start, dur, wait, bd, mbd, model, task, stream;
    int ish, ity, ifm, osh, oty, ofm;
    int *xidx; size_t nx;         /* header indexes of the extra columns (tp_npu_xcol) */
};

/* The header columns the task record does not hold (HF32 Eligible, Context
 * ID, the PMU columns) become extra columns, in header order; only for the
 * first task table read, so that cell rows line up with d->tasks. */
static int extra_cols(struct tp_npu_csv *c, struct kctx *k)
{
    struct tp_npu_data *d = k->d;
    if (d->ntasks || d->nxcols)
        return 0;
    const int known[] = {k->step, k->dev, k->name, k->type, k->state, k->core, k->start, k->dur, k->wait,
                         k->bd, k->mbd, k->model, k->task, k->stream, k->ish, k->ity, k->ifm, k->osh,
                         k->oty, k->ofm};
    k->xidx = malloc((c->nhdr ? c->nhdr : 1) * sizeof *k->xidx);
    if (!k->xidx)
        return -1;
    for (size_t i = 0; i < c->nhdr; i++) {
        size_t j = 0;
        while (j < sizeof known / sizeof known[0] && known[j] != (int)i)
            j++;
        if (j < sizeof known / sizeof known[0])
            continue;
        if (tp_grow((void **)&d->xcols, &d->capxcols, d->nxcols + 1, sizeof *d->xcols) < 0)
            return -1;
        uint32_t name = tp_store_intern(c->st, c->hdr[i], strlen(c->hdr[i]));
        if (name == UINT32_MAX)
            return -1;
        d->xcols[d->nxcols++].name = name;
        k->xidx[k->nx++] = (int)i;
    }
    return 0;
}

/* One task's extra cells, row-major while reading (extra_done transposes),
 * each as written (tp_npu_xcell: a number or a string; a cell that is not
 * a number is kept as text, as the plugin keeps it). */
static int extra_cells(struct tp_npu_csv *c, struct kctx *k)
{
    struct tp_npu_data *d = k->d;
    for (size_t i = 0; i < k->nx; i++) {
        size_t col = (size_t)k->xidx[i];
        if (tp_grow((void **)&d->xcells, &d->capxcells, d->nxcells + 1, sizeof *d->xcells) < 0)
            return -1;
        if (tp_npu_xcell_encode(c->st, col < c->nf ? c->f[col] : "", col < c->nf ? c->flen[col] : 0,
                                &d->xcells[d->nxcells]) < 0)
            return -1;
        d->nxcells++;
    }
    return 0;
}

/* Row-major cells to column-major, in place (following the permutation's
 * cycles, with one bit per cell to mark those moved): a PMU table is the
 * biggest thing a folder holds (27 columns x every task), and a second copy
 * of it would double the import's peak.  A table cut short (out of memory
 * between a task and its cells) keeps no extra columns rather than cells of
 * the wrong task. */
static int extra_done(struct tp_npu_data *d)
{
    size_t nx = d->nxcols, nt = d->ntasks, n = d->nxcells;
    if (!nx)
        return 0;
    if (n != nx * nt) {
        d->nxcols = d->nxcells = 0;
        return 0;
    }
    if (n > 2 && nx > 1 && nt > 1) {
        unsigned char *moved = calloc(n / 8 + 1, 1);
        if (!moved) {
            d->nxcols = d->nxcells = 0;
            return -1;
        }
        /* the cell at i = t*nx + c goes to c*nt + t = i*nt mod (n-1); the
         * first and the last stay */
        for (size_t start = 1; start < n - 1; start++) {
            if (moved[start / 8] & (1u << (start % 8)))
                continue;
            size_t i = start;
            tp_npu_xcell carry = d->xcells[i];
            do {
                size_t j = n <= UINT32_MAX ? (size_t)((uint64_t)i * nt % (n - 1))   /* no overflow */
                                           : (size_t)((unsigned __int128)i * nt % (n - 1));
                tp_npu_xcell next = d->xcells[j];
                d->xcells[j] = carry;
                carry = next;
                moved[j / 8] |= (unsigned char)(1u << (j % 8));
                i = j;
            } while (i != start);
        }
        free(moved);
    }
    /* give back what doubling reserved (up to as much again); an allocator
     * that cannot even shrink a block is out of memory, and says so */
    tp_npu_xcell *fit = realloc(d->xcells, (n ? n : 1) * sizeof *fit);
    if (!fit)
        return -1;
    d->xcells = fit;
    d->capxcells = n;
    return 0;
}

int64_t tp_ascend_task_event(tp_store *st, const struct tp_npu_task *t, uint32_t cat)
{
    int64_t row = tp_store_add(st);
    if (row < 0)
        return -1;
    st->kind[row] = TP_K_KERNEL;
    st->ts[row] = t->start == TP_NONE ? 0 : t->start;
    st->dur[row] = t->dur;
    st->name[row] = t->name;
    st->cat[row] = cat;
    st->device[row] = t->device;
    st->stream[row] = t->stream_id != TP_NONE && t->stream_id >= 0 && t->stream_id < INT32_MAX ? (int32_t)t->stream_id : -1;
    st->tid[row] = t->stream_id;
    return row;
}

static int kernel_row(struct tp_npu_csv *c, void *vctx)
{
    struct kctx *k = vctx;
    struct tp_npu_data *d = k->d;
    tp_store *st = c->st;
    if (!k->ready) {
        k->ready = 1;
        k->step = tp_npu_col(c, "Step Id");
        k->dev = tp_npu_col(c, "Device_id");
        /* CANN's op_summary names, which kernel_details renames */
#define COL2(a, b) (tp_npu_col(c, a) >= 0 ? tp_npu_col(c, a) : tp_npu_col(c, b))
        k->name = COL2("Name", "Op Name");
        k->type = COL2("Type", "OP Type");
        k->state = tp_npu_col(c, "OP State");
        k->core = COL2("Accelerator Core", "Task Type");
        k->start = COL2("Start Time(us)", "Task Start Time(us)");
        k->dur = COL2("Duration(us)", "Task Duration(us)");
        k->wait = COL2("Wait Time(us)", "Task Wait Time(us)");
#undef COL2
        k->bd = tp_npu_col(c, "Block Dim");
        if (k->bd < 0)
            k->bd = tp_npu_col(c, "Block Num");
        k->mbd = tp_npu_col(c, "Mix Block Dim");
        if (k->mbd < 0)
            k->mbd = tp_npu_col(c, "Mix Block Num");
        k->model = tp_npu_col(c, "Model ID");
        k->task = tp_npu_col(c, "Task ID");
        k->stream = tp_npu_col(c, "Stream ID");
        k->ish = tp_npu_col(c, "Input Shapes");
        k->ity = tp_npu_col(c, "Input Data Types");
        k->ifm = tp_npu_col(c, "Input Formats");
        k->osh = tp_npu_col(c, "Output Shapes");
        k->oty = tp_npu_col(c, "Output Data Types");
        k->ofm = tp_npu_col(c, "Output Formats");
        static const char *const req[] = {"Name", "Duration(us)"};
        int cols[] = {k->name, k->dur};
        k->bad = need(c, cols, req, 2) < 0;
        struct tp_sbuf b = {0};
        for (size_t i = 0; i < c->nhdr; i++) {
            if (i)
                tp_sbuf_putc(&b, ',');
            tp_sbuf_put(&b, c->hdr[i], strlen(c->hdr[i]));
        }
        /* the header gives kernels --group all its default columns: out of
         * memory here is the import's error, not a header quietly lost */
        d->kernel_header = b.oom ? UINT32_MAX : tp_store_intern(st, b.p ? b.p : "", b.len);
        tp_sbuf_free(&b);
        if (d->kernel_header == UINT32_MAX) {
            d->kernel_header = 0;
            return -1;
        }
        if (!k->bad && extra_cols(c, k) < 0)
            return -1;
    }
    if (k->bad || !full_row(c, (int[]){k->name, k->dur, k->start}, 3))
        return 0;
    struct tp_npu_task t;
    memset(&t, 0, sizeof t);
    int64_t x;
    int r;
    /* In a short (hand-edited) row the fields after the gap are shifted:
     * keep the ones the plugin reads, drop the optional numbers quietly. */
    int shifted = c->nf < c->nhdr;
#define OPT_I64(col, dst) do { \
        size_t n_; \
        const char *s_ = tp_npu_cell(c, (col), &n_); \
        if (shifted) { \
            if (n_ && tp_decimal_to_i64(s_, n_, &x) == 0) (dst) = x; \
        } else { \
            if ((r = tp_npu_cell_i64(c, (col), &x)) < 0) return 0; \
            if (r) (dst) = x; \
        } \
    } while (0)
    t.step = TP_NONE;
    if ((r = tp_npu_cell_i64(c, k->step, &x)) < 0) return 0;
    if (r) t.step = x;
    t.device = -1;
    if ((r = tp_npu_cell_i64(c, k->dev, &x)) < 0) return 0;
    if (r) t.device = (int32_t)x;
    t.start = t.wait = TP_NONE;
    if ((r = tp_npu_cell_ns(c, k->start, &x)) < 0) return 0;
    if (r) t.start = x;
    if (need_ns(c, k->dur, &t.dur) < 0)
        return 0;
    {
        size_t n_;
        const char *s_ = tp_npu_cell(c, k->dur, &n_);
        if (tp_decimal_to_double(s_, n_, &t.dur_us) != 0)
            t.dur_us = (double)t.dur / 1000.0;
    }
    if (shifted) {
        size_t n_;
        const char *s_ = tp_npu_cell(c, k->wait, &n_);
        if (n_ && tp_decimal_us_to_ns(s_, n_, &x) == 0)
            t.wait = x;
    } else {
        if ((r = tp_npu_cell_ns(c, k->wait, &x)) < 0) return 0;
        if (r) t.wait = x;
    }
    t.block_dim = t.mix_block_dim = t.model_id = t.task_id = t.stream_id = TP_NONE;
    OPT_I64(k->bd, t.block_dim);
    OPT_I64(k->mbd, t.mix_block_dim);
    OPT_I64(k->model, t.model_id);
    OPT_I64(k->task, t.task_id);
    OPT_I64(k->stream, t.stream_id);
#undef OPT_I64
    t.name = cell_raw(c, k->name);
    t.type = cell_str(c, k->type);
    t.state = cell_str(c, k->state);
    t.core = k->core >= 0 ? cell_str(c, k->core) : tp_store_intern(st, "N/A", 3);
    t.in_shapes = cell_raw(c, k->ish);
    t.in_types = cell_str(c, k->ity);
    t.in_formats = cell_str(c, k->ifm);
    t.out_shapes = cell_raw(c, k->osh);
    t.out_types = cell_str(c, k->oty);
    t.out_formats = cell_str(c, k->ofm);
    t.row = tp_ascend_task_event(st, &t, tp_store_intern(st, "kernel_details", 14));
    if (t.row < 0)
        return -1;
    note_first(d, t.start);
    if (extra_cells(c, k) < 0)
        return -1;
    return tp_push((void **)&d->tasks, &d->ntasks, &d->captasks, &t, sizeof t);
}

/* ---- operator_details.csv ---- */

static int op_row(struct tp_npu_csv *c, void *vctx)
{
    static const char *const names[9] = {
        "Name", "Input Shapes", "Call Stack", "Host Self Duration(us)", "Host Total Duration(us)",
        "Device Self Duration(us)", "Device Total Duration(us)", "Device Self Duration With AICore(us)",
        "Device Total Duration With AICore(us)"};
    struct cols *o = vctx;
    /* Input Shapes and Call Stack are optional (record_shapes/with_stack off). */
    if (find_cols(c, o, names, 9, 0x1f9) || !full_row(c, o->col, 9))
        return 0;
    struct tp_npu_op op;
    int64_t v[6];
    /* the plugin's float('') fails on an empty one too: the row is not an operator row */
    for (int i = 0; i < 6; i++)
        if (need_ns(c, o->col[3 + i], &v[i]) < 0)
            return 0;
    op.name = cell_raw(c, o->col[0]);
    op.shapes = o->col[1] >= 0 ? cell_raw(c, o->col[1]) : tp_store_intern(c->st, "", 0);
    op.stack = o->col[2] >= 0 ? cell_raw(c, o->col[2]) : tp_store_intern(c->st, "", 0);
    for (int i = 0; i < 6; i++) {
        size_t n_;
        const char *s_ = tp_npu_cell(c, o->col[3 + i], &n_);
        if (tp_decimal_to_double(s_, n_, &op.us[i]) != 0)
            op.us[i] = (double)v[i] / 1000.0;
    }
    op.host_self = v[0];
    op.host_total = v[1];
    op.dev_self = v[2];
    op.dev_total = v[3];
    op.dev_self_aic = v[4];
    op.dev_total_aic = v[5];
    struct tp_npu_data *d = o->d;
    return tp_push((void **)&d->ops, &d->nops, &d->capops, &op, sizeof op);
}

/* ---- operator_memory.csv ---- */

static int get_ns_opt(struct tp_npu_csv *c, int col, int64_t *out)
{
    int64_t x;
    int r = tp_npu_cell_ns(c, col, &x);
    *out = r == 1 ? x : TP_NONE;
    return r;
}

static int get_f_opt(struct tp_npu_csv *c, int col, double *out)
{
    double x;
    int r = tp_npu_cell_f64(c, col, &x);
    *out = r == 1 ? x : NAN;
    return r;
}

enum { A_NAME, A_SIZE, A_ALLOC, A_REL, A_AREL, A_DUR, A_ADUR, A_AA, A_AR, A_RA, A_RR, A_DEV };

static int alloc_row(struct tp_npu_csv *c, void *vctx)
{
    static const char *const names[12] = {
        "Name", "Size(KB)", "Allocation Time(us)", "Release Time(us)", "Active Release Time(us)", "Duration(us)",
        "Active Duration(us)", "Allocation Total Allocated(MB)", "Allocation Total Reserved(MB)",
        "Release Total Allocated(MB)", "Release Total Reserved(MB)", "Device Type"};
    struct cols *m = vctx;
    const int *k = m->col;
    if (find_cols(c, m, names, 12, 1u << A_NAME | 1u << A_SIZE | 1u << A_ALLOC | 1u << A_REL | 1u << A_DUR | 1u << A_DEV) ||
        !full_row(c, (int[]){k[A_NAME], k[A_SIZE], k[A_ALLOC], k[A_DEV]}, 4))
        return 0;
    struct tp_npu_alloc a;
    memset(&a, 0, sizeof a);
    if (need_f64(c, k[A_SIZE], &a.size_kb) < 0)
        return 0;
    if (get_ns_opt(c, k[A_ALLOC], &a.alloc) < 0 || get_ns_opt(c, k[A_REL], &a.release) < 0 ||
        get_ns_opt(c, k[A_DUR], &a.dur) < 0 || get_ns_opt(c, k[A_AREL], &a.active_release) < 0 ||
        get_ns_opt(c, k[A_ADUR], &a.active_dur) < 0 || get_f_opt(c, k[A_AA], &a.alloc_allocated_mb) < 0 ||
        get_f_opt(c, k[A_AR], &a.alloc_reserved_mb) < 0 || get_f_opt(c, k[A_RA], &a.release_allocated_mb) < 0 ||
        get_f_opt(c, k[A_RR], &a.release_reserved_mb) < 0)
        return 0;
    size_t n;
    tp_npu_cell(c, k[A_NAME], &n);
    a.name = n ? cell_raw(c, k[A_NAME]) : tp_store_intern(c->st, "<unknown>", 9);
    a.device = cell_str(c, k[A_DEV]);
    struct tp_npu_data *d = m->d;
    return add_timed(d, a.alloc, (void **)&d->allocs, &d->nallocs, &d->capallocs, &a, sizeof a);
}

/* ---- memory_record.csv ---- */

enum { R_COMP, R_TS, R_ALLOC, R_RES, R_ACT, R_DEV };

static int record_row(struct tp_npu_csv *c, void *vctx)
{
    static const char *const names[6] = {"Component", "Timestamp(us)", "Total Allocated(MB)", "Total Reserved(MB)",
                                         "Total Active(MB)", "Device Type"};
    struct cols *m = vctx;
    const int *k = m->col;
    if (find_cols(c, m, names, 6, 1u << R_COMP | 1u << R_TS | 1u << R_ALLOC | 1u << R_RES | 1u << R_DEV) ||
        !full_row(c, (int[]){k[R_COMP], k[R_TS], k[R_DEV]}, 3))
        return 0;
    struct tp_npu_record rec;
    if (need_ns(c, k[R_TS], &rec.ts) < 0)
        return 0;
    if (get_f_opt(c, k[R_ALLOC], &rec.allocated_mb) < 0 || get_f_opt(c, k[R_RES], &rec.reserved_mb) < 0 ||
        get_f_opt(c, k[R_ACT], &rec.active_mb) < 0)
        return 0;
    rec.component = cell_str(c, k[R_COMP]);
    rec.device = cell_str(c, k[R_DEV]);
    struct tp_npu_data *d = m->d;
    return add_timed(d, rec.ts, (void **)&d->records, &d->nrecords, &d->caprecords, &rec, sizeof rec);
}

/* ---- npu_module_mem.csv ---- */

static int module_row(struct tp_npu_csv *c, void *vctx)
{
    static const char *const names[4] = {"Component", "Timestamp(us)", "Total Reserved(MB)", "Device"};
    struct cols *m = vctx;
    const int *k = m->col;
    if (find_cols(c, m, names, 4, 0xf) || !full_row(c, k, 4))
        return 0;
    struct tp_npu_module mm;
    if (need_ns(c, k[1], &mm.ts) < 0 || need_f64(c, k[2], &mm.reserved_mb) < 0)
        return 0;
    mm.component = cell_str(c, k[0]);
    mm.device = cell_str(c, k[3]);
    struct tp_npu_data *d = m->d;
    return add_timed(d, mm.ts, (void **)&d->modules, &d->nmodules, &d->capmodules, &mm, sizeof mm);
}

/* ---- step_trace_time.csv ---- */

static int step_row(struct tp_npu_csv *c, void *vctx)
{
    /* Step, Device_id, then the times */
    static const char *const names[11] = {
        "Step", "Device_id", "Computing", "Communication(Not Overlapped)", "Overlapped", "Communication", "Free",
        "Stage", "Bubble", "Communication(Not Overlapped and Exclude Receive)", "Preparing"};
    struct cols *s = vctx;
    const int *k = s->col;
    if (find_cols(c, s, names, 11, 1u << 0 | 1u << 2 | 1u << 3 | 1u << 4 | 1u << 6) ||
        !full_row(c, (int[]){k[0], k[2]}, 2))
        return 0;
    struct tp_npu_steptime t;
    int64_t x;
    int r;
    t.step = TP_NONE;
    if ((r = tp_npu_cell_i64(c, k[0], &x)) < 0) return 0;
    if (r) t.step = x;
    t.device = -1;
    if ((r = tp_npu_cell_i64(c, k[1], &x)) < 0) return 0;
    if (r) t.device = (int32_t)x;
    double *dst[9] = {&t.computing, &t.comm_not_overlapped, &t.overlapped, &t.comm, &t.free, &t.stage,
                      &t.bubble, &t.comm_not_overlapped_excl_recv, &t.preparing};
    for (int i = 0; i < 9; i++)
        if (get_f_opt(c, k[2 + i], dst[i]) < 0)
            return 0;
    struct tp_npu_data *d = s->d;
    return tp_push((void **)&d->steps, &d->nsteps, &d->capsteps, &t, sizeof t);
}

/* ---- dispatch ---- */

int tp_ascend_read_csv(tp_store *st, struct tp_npu_data *d, enum tp_npu_file which, const char *name,
                       const char *data, size_t len)
{
    struct tp_npu_csv c;
    memset(&c, 0, sizeof c);
    c.st = st;
    c.file = name;
    union {
        struct kctx k;
        struct cols t;            /* every other table's */
    } u;
    memset(&u, 0, sizeof u);
    tp_npu_row_fn fn;
    size_t before = 0;
    switch (which) {
    case TP_NPU_KERNEL_DETAILS: u.k.d = d; fn = kernel_row; before = d->ntasks; break;
    case TP_NPU_OPERATOR_DETAILS: u.t.d = d; fn = op_row; before = d->nops; break;
    case TP_NPU_OPERATOR_MEMORY: u.t.d = d; fn = alloc_row; before = d->nallocs; break;
    case TP_NPU_MEMORY_RECORD: u.t.d = d; fn = record_row; before = d->nrecords; break;
    case TP_NPU_MODULE_MEM: u.t.d = d; fn = module_row; before = d->nmodules; break;
    case TP_NPU_STEP_TRACE: u.t.d = d; fn = step_row; before = d->nsteps; break;
    default: return 0;
    }
    int rc = tp_npu_csv_parse(&c, data, len, fn, &u);
    if (c.in_header) {
        /* not even a header line */
        tp_npu_csv_bad(&c, -2, "empty file (no header)");
    }
    tp_npu_csv_free(&c);
    if (which == TP_NPU_KERNEL_DETAILS) {
        /* only the read that set up the extra columns lays out their cells */
        if (u.k.xidx && extra_done(d) < 0)
            rc = -1;
        free(u.k.xidx);
    }
    size_t after = which == TP_NPU_KERNEL_DETAILS ? d->ntasks : which == TP_NPU_OPERATOR_DETAILS ? d->nops
                 : which == TP_NPU_OPERATOR_MEMORY ? d->nallocs : which == TP_NPU_MEMORY_RECORD ? d->nrecords
                 : which == TP_NPU_MODULE_MEM ? d->nmodules : d->nsteps;
    if (after > before || !c.nagg)
        d->read |= (unsigned)which;
    return rc;
}
