/* npu.h — what an Ascend NPU profiler folder holds beyond the event store.
 *
 * torch_npu writes a folder per rank (<worker>_<span>_ascend_pt/
 * ASCEND_PROFILER_OUTPUT/) of CSV tables, JSON and trace_view.json.  The
 * trace goes into the ordinary store rows; device tasks of kernel_details.csv
 * become TP_K_KERNEL rows too (so generic views see them); the tables with no
 * store equivalent (operator_details, memory files, step_trace_time,
 * communication.json) are kept here, in file order, hung off tp_store->npu.
 *
 * Timestamps are int64 ns parsed exactly from the decimal text (they are
 * ~1.7e15 µs: a double would lose the ns).  Sizes and MB values stay doubles:
 * they are not compared or subtracted. */
#ifndef TPROF_NPU_H
#define TPROF_NPU_H

#include <stddef.h>
#include <stdint.h>
#include "store.h"

/* The files a folder may hold, as bits of tp_npu_data.files. */
enum tp_npu_file {
    TP_NPU_KERNEL_DETAILS = 1 << 0,
    TP_NPU_OPERATOR_DETAILS = 1 << 1,
    TP_NPU_MEMORY_RECORD = 1 << 2,
    TP_NPU_OPERATOR_MEMORY = 1 << 3,
    TP_NPU_MODULE_MEM = 1 << 4,
    TP_NPU_STEP_TRACE = 1 << 5,
    TP_NPU_COMMUNICATION = 1 << 6,
    TP_NPU_TRACE_VIEW = 1 << 7,
    TP_NPU_DB = 1 << 8,          /* ascend_pytorch_profiler*.db (the SQLite export) */
    TP_NPU_OP_SUMMARY = 1 << 9,  /* CANN msprof op_summary*.csv (kernel_details before renaming) */
};

struct tp_npu_task {          /* kernel_details.csv: one device task */
    int64_t row;                  /* its TP_K_KERNEL row in the store */
    int64_t step;                 /* Step Id, TP_NONE when absent */
    int32_t device;               /* Device_id, -1 when absent */
    uint32_t name, type, core, state;   /* Name, Type, Accelerator Core, OP State (strtab) */
    int64_t start, dur, wait;     /* ns; start/wait TP_NONE when absent */
    double dur_us;                /* Duration(us) as the plugin's float() reads it */
    int64_t block_dim, mix_block_dim;   /* TP_NONE when N/A or absent */
    int64_t model_id, task_id, stream_id;
    uint32_t in_shapes, in_types, in_formats, out_shapes, out_types, out_formats;   /* 0 absent */
    uint32_t op;                  /* launching framework op (trace flows), 0 unknown */
    int64_t op_row;               /* its store row, -1 unknown */
};

/* kernel_details.csv's columns beyond those of tp_npu_task: HF32 Eligible,
 * Context ID and the PMU columns of whichever aic_metrics the run recorded
 * (aicore_time(us), aic_mac_ratio, aiv_vec_time(us), cube_utilization(%),
 * aic_l0a_read_bw(GB/s) ...; their set depends on the metrics and the chip).
 * The plugin's "All" table passes them through as the strings it read, so a
 * cell keeps its text exactly (decimals as written: "0.0", "50.522").
 *
 * A cell is one int64 (tp_npu_xcell), column-major: the cell of extra column
 * c for task t is xcells[c * ntasks + t].  A plain decimal ("0.519", "0.0",
 * "2910056", "-3.5": at most 15 digits, no leading zero, no exponent) is a
 * number: its digits as a signed integer times 256, plus how many of them
 * follow the point (0..15), so it prints back to the same text, takes no
 * string table space, and is exact as a double.  Any other text (N/A, YES,
 * "abc", "", "1e-3", "007") is a string id times 256, plus TP_NPU_XTEXT. */
struct tp_npu_xcol {
    uint32_t name;                /* the header name, as written (strtab) */
};
typedef int64_t tp_npu_xcell;
#define TP_NPU_XTEXT 255
#define TP_NPU_XDIGITS 15

/* The cell for text s[0..n) into *out (a string is interned when it is not
 * a number); 0, or -1 when out of memory. */
int tp_npu_xcell_encode(tp_store *st, const char *s, size_t n, tp_npu_xcell *out);
/* Its text as written: the string, or the number formatted into buf (cap >=
 * 24). */
const char *tp_npu_xcell_str(const tp_store *st, tp_npu_xcell x, char *buf, size_t cap);
/* Its number (NaN when it is text: N/A, empty, not a number). */
double tp_npu_xcell_value(const tp_store *st, tp_npu_xcell x);
/* 1 when a cell read from a store is well formed (decimals in range, a
 * string id below nstrings). */
static inline int tp_npu_xcell_valid(tp_npu_xcell x, uint64_t nstrings)
{
    unsigned k = (unsigned)((uint64_t)x & 0xff);
    if (k == TP_NPU_XTEXT)
        return x >= 0 && (uint64_t)(x >> 8) < nstrings;
    return k <= TP_NPU_XDIGITS;
}

struct tp_npu_op {            /* operator_details.csv: one framework op instance */
    uint32_t name, shapes, stack;   /* strtab; shapes/stack "" when empty */
    int64_t host_self, host_total, dev_self, dev_total, dev_self_aic, dev_total_aic;   /* ns */
    double us[6];                 /* the same six as the plugin's float() reads them */
};

struct tp_npu_alloc {         /* operator_memory.csv: one allocation */
    uint32_t name, device;        /* device: the "Device Type" text, "NPU:0" */
    double size_kb;
    int64_t alloc, release, dur;  /* ns; TP_NONE when empty (never freed in the window) */
    int64_t active_release, active_dur;   /* TP_NONE when empty or absent */
    double alloc_allocated_mb, alloc_reserved_mb, release_allocated_mb, release_reserved_mb;  /* NAN empty */
};

struct tp_npu_record {        /* memory_record.csv: one sample of the curves */
    uint32_t component, device;   /* PTA, GE, PTA+GE, APP, WORKSPACE; "NPU:0" */
    int64_t ts;                   /* ns */
    double allocated_mb, reserved_mb, active_mb;   /* NAN when empty */
};

struct tp_npu_module {        /* npu_module_mem.csv: per driver component */
    uint32_t component, device;
    int64_t ts;
    double reserved_mb;
};

struct tp_npu_steptime {      /* step_trace_time.csv: µs */
    int64_t step;                 /* TP_NONE when empty (no step information) */
    int32_t device;               /* Device_id, -1 when absent */
    double computing, comm_not_overlapped, overlapped, comm, free, stage, bubble,
        comm_not_overlapped_excl_recv, preparing;   /* NAN when absent */
};

struct tp_npu_comm {          /* communication.json: one op (or "Total Op Info") */
    int64_t step;                 /* N of "stepN"; TP_NONE for a bare "step" */
    uint32_t kind;                /* "collective" / "p2p" */
    uint32_t name;                /* "hcom_allReduce__586_0_1@1752..." or "Total Op Info" */
    int total;                    /* 1 for the "Total Op Info" entry */
    int64_t start;                /* ns, TP_NONE when absent */
    double elapse_ms, transit_ms, wait_ms, sync_ms, idle_ms, wait_ratio, sync_ratio;
    double transit_size_mb;       /* Σ over link types (RDMA, HCCS, PCIE, SDMA, SIO) */
    double bw_gbps[5];            /* per link type, NAN when absent */
};

struct tp_npu_data {
    char dir[1024];               /* the ASCEND_PROFILER_OUTPUT folder read */
    unsigned files;               /* enum tp_npu_file bits present (as files or SQLite tables) */
    unsigned on_disk;             /* the bits found as files in dir */
    unsigned read;                /* bits that were read with usable rows */
    int64_t start_ns;             /* profiler start: min ts of trace_view.json; TP_NONE without one */
    int64_t first_ns;             /* earliest timestamp in any CSV, TP_NONE none */
    int level;                    /* profiler level 0/1/2 from profiler_info, -1 unknown */
    uint32_t kernel_header;       /* strtab: header line of kernel_details.csv */
    int tasks_from_trace;         /* no kernel_details: tasks are the trace's device events */

    struct tp_npu_task *tasks;      size_t ntasks, captasks;
    struct tp_npu_op *ops;          size_t nops, capops;
    struct tp_npu_alloc *allocs;    size_t nallocs, capallocs;
    struct tp_npu_record *records;  size_t nrecords, caprecords;
    struct tp_npu_module *modules;  size_t nmodules, capmodules;
    struct tp_npu_steptime *steps;  size_t nsteps, capsteps;
    struct tp_npu_comm *comms;      size_t ncomms, capcomms;
    struct tp_npu_xcol *xcols;      size_t nxcols, capxcols;     /* kernel_details' extra columns */
    tp_npu_xcell *xcells;           size_t nxcells, capxcells;   /* nxcols * ntasks, column-major */
};

/* The extra cell of task t in extra column c (t < ntasks, c < nxcols). */
static inline tp_npu_xcell tp_npu_xcell_at(const struct tp_npu_data *d, size_t c, size_t t)
{
    return d->xcells[c * d->ntasks + t];
}

/* Called by tp_store_free. */
void tp_npu_free(struct tp_npu_data *d);

/* The time views count relative times from: the trace's first event
 * (the plugin's profiler_start_ts), else the earliest CSV timestamp (the
 * plugin then prints epoch times; tprof does not), else 0. */
int64_t tp_npu_origin(const struct tp_npu_data *d);

/* Python's round(x, 2) on a double (correctly rounded, ties to even on the
 * binary value): the plugin's running sums round(acc + v, 2) (SPEC §A.6). */
double tp_npu_round2(double x);

/* Which of the link types bw_gbps[] holds, in order. */
extern const char *const tp_npu_links[5];

/* ---- CSV reading (ascend_csv.c), shared by the importer and the tests ---- */

struct tp_npu_csv;
/* Called once per data row; return -1 to stop (out of memory). */
typedef int (*tp_npu_row_fn)(struct tp_npu_csv *c, void *ctx);

struct tp_npu_csv {
    tp_store *st;                 /* problems are counted here (tp_store_bad) */
    const char *file;             /* the name used in messages: "kernel_details.csv" */
    char **hdr; size_t nhdr;      /* the header row */
    char **f; size_t *flen; size_t nf, capf;   /* the current row's fields (NUL-terminated) */
    char *arena; size_t alen, acap;
    uint64_t row;                 /* data row number, 1-based (the header is row 0) */
    uint64_t row_off, next_off;   /* byte offset of the current row in the file */
    int in_header;
    int nomem;
    tp_npu_row_fn fn;
    void *ctx;
    struct { char key[96]; size_t slot; } agg[32]; size_t nagg;   /* one message per file/column/problem */
};

/* Parse a CSV held in memory: the first row is the header (a UTF-8 BOM is
 * skipped), each later row calls fn.  Quoted fields, "" escapes, embedded
 * newlines, CRLF or LF.  Returns 0, or -1 when out of memory. */
int tp_npu_csv_parse(struct tp_npu_csv *c, const char *data, size_t len, tp_npu_row_fn fn, void *ctx);
void tp_npu_csv_free(struct tp_npu_csv *c);

/* Column index of a header name (case-insensitive, surrounding blanks
 * ignored), -1 when absent. */
int tp_npu_col(const struct tp_npu_csv *c, const char *name);
/* The current row's cell (trailing blanks and TABs stripped), "" when the
 * column is absent or the row is short. */
const char *tp_npu_cell(const struct tp_npu_csv *c, int col, size_t *len);
/* Typed cells: 1 a value, 0 empty / N/A / absent column, -1 not a number
 * (reported once per file and column with the row; the caller leaves the
 * row out). */
int tp_npu_cell_ns(struct tp_npu_csv *c, int col, int64_t *out);
int tp_npu_cell_i64(struct tp_npu_csv *c, int col, int64_t *out);
int tp_npu_cell_f64(struct tp_npu_csv *c, int col, double *out);
/* Report a problem with the current row (or the file when col < -1):
 * "FILE row N, column C: what", counted once per file/column/problem. */
void tp_npu_csv_bad(struct tp_npu_csv *c, int col, const char *what);

#endif
