/* store.h — the columnar event store (internal to libtprof).
 *
 * One row per event, one array per field (struct of arrays): a view touches
 * only the columns it needs.  Times are int64 nanoseconds parsed exactly from
 * the decimal text.  Names and categories are interned string ids.  Details
 * only some kinds have (kernel launch geometry, operator inputs, memory
 * records) live in side tables that the row's `aux` column indexes, so the
 * common columns stay narrow.
 *
 * One store holds one input (one trace file, one SQLite dump, one Ascend
 * folder = one rank); a run of many ranks is an array of stores. */
#ifndef TPROF_STORE_H
#define TPROF_STORE_H

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include "strtab.h"
#include "tprof.h"

enum tp_kind {
    TP_K_OTHER = 0,          /* a category we do not know: kept, counted, shown by `info` */
    TP_K_CPU_OP,             /* cpu_op, Operator */
    TP_K_USER_ANNOTATION,    /* user_annotation (ProfilerStep#N in PyTorch 2.x) */
    TP_K_GPU_USER_ANNOTATION,
    TP_K_PYTHON_FUNCTION,    /* python_function, legacy python */
    TP_K_RUNTIME,            /* cuda_runtime, Runtime, hip/mtia/xpu/privateuse1 runtime */
    TP_K_DRIVER,             /* cuda_driver (Triton's cuLaunchKernel), xpu_driver ... */
    TP_K_KERNEL,
    TP_K_MEMCPY,
    TP_K_MEMSET,
    TP_K_MEMORY,             /* [memory] instant events (allocations) */
    TP_K_FLOW,               /* ac2g / fwdbwd / async flow points: ph s/f/t, id in `correlation` */
    TP_K_COUNTER,            /* ph C */
    TP_K_INSTANT,            /* other ph i/I */
    TP_K_META,               /* ph M: process_name, thread_name ...; aux = strtab id of the value */
    TP_K_TRACE_SPAN,         /* cat Trace / "Iteration Start" spans */
    TP_K_NVTX,               /* NVTX range (nvprof / nsys) */
    TP_K_SYNC,               /* cuda_sync / cuda_event */
    TP_K_COUNT
};

const char *tp_kind_name(enum tp_kind k);

#define TP_NONE     INT64_MIN      /* an absent integer field */
/* The most events one store links (parent, launcher, launch_op, the
 * attribution and a run's step column hold rows in 32 bits, -1 for none):
 * 2^31 - 1. */
#define TP_STORE_MAX_ROWS INT32_MAX
#define TP_NO_AUX   UINT32_MAX

/* tid: numeric tids are stored as is; a non-numeric tid string ("stream 7")
 * is stored as TP_TID_STRING | strtab id. */
#define TP_TID_STRING (INT64_C(1) << 62)

struct tp_kernel_info {      /* kernels, memcpy, memset; cuda_sync events that wait on a CUDA event */
    int32_t grid[3], block[3];     /* -1 when absent */
    int32_t regs;                  /* registers per thread, -1 absent */
    int32_t sync_wait_stream;      /* sync: the stream that event was recorded on, -1 absent
                                      (here, beside regs: no padding, 72 bytes a record, not 80) */
    int64_t smem;                  /* shared memory bytes, -1 absent */
    double blocks_per_sm;          /* NAN when absent */
    double occupancy;              /* est. achieved occupancy %, NAN when absent */
    int64_t bytes;                 /* memcpy/memset bytes, -1 absent */
    int64_t sync_record_corr;      /* sync: the cudaEventRecord waited for (correlation), TP_NONE absent */
};

struct tp_op_info {          /* cpu_op, user_annotation, python_function */
    uint32_t input_dims;           /* strtab id of the raw JSON of "Input Dims", 0 absent */
    uint32_t input_types;          /* raw JSON of "Input type" */
    uint32_t concrete_inputs;      /* raw JSON of "Concrete Inputs" (scalar argument values), 0 absent */
    uint32_t input_strides;        /* raw JSON of "Input Strides", 0 absent */
    uint32_t call_stack;           /* "Call stack" text */
    uint32_t py;                   /* its python ids: index into st->pys, TP_NO_AUX none (tp_store_py) */
};                                 /* "Fwd thread id": tp_store_fwd_thread */

/* An operator's "Fwd thread id" (autograd's thread of the forward pass, on
 * backward operators), by op record: (record, value) sorted by record, found
 * by binary search (tp_store_fwd_thread), not 8 bytes of every op record
 * (1.44M op records on a 1 GB OWLv2 trace, half of them python functions,
 * which have none: 11 MB).  A .tprof file still holds it as the column
 * op.fwd_thread of every op record. */
struct tp_fwd_rec {
    int64_t op;
    int64_t tid;
};

/* A python_function's ids ("Python id", "Python parent id", "Python module
 * id"; TP_NONE when absent).  Only python functions have them, so they are
 * a table of their own that an op record points into: 32 bytes an operator
 * instead of 56 (0.66M operators on a 1 GB ResNet-50 trace: 16 MB). */
struct tp_py_info {
    int64_t python_id, python_parent_id, module_id;
};

/* The same in 32 bits each (TP_PY32_NONE: absent), which a store keeps
 * while every id is in [0, 2^32 - 1): 12 bytes a python function instead of
 * 24 (1.04M of them on a 1 GB OWLv2 trace: 12 MB).  A negative or larger
 * id (a run's merged store keeps the ranks' ids apart) makes the table
 * struct tp_py_info's, as a store read from a .tprof has it. */
struct tp_py32 {
    uint32_t python_id, python_parent_id, module_id;
};
#define TP_PY32_NONE UINT32_MAX

/* The python_function frames a TP_LEAN_PYGRAPH load left out that have a
 * "Python id": no row, only what the module hierarchy walks (modtree_py.c),
 * 20 bytes a frame instead of a row, an op record and its strings (2.3M of
 * them on a 1 GB OWLv2 trace).  In the order they were read; `at` is the
 * row count then (the frame sat before row `at` of the store), so the
 * whole load's (start, row) order is rebuilt exactly: frame i was row
 * at[i] + i of the whole load.  Ids in 32 bits (TP_PY32_NONE: no parent)
 * while every one is in [0, 2^32 - 1), else ids64 (ids32 NULL).  Read with
 * tp_store_pyframe_ids. */
struct tp_pyframes {
    size_t n, cap;
    int64_t *ts;
    uint32_t *at;
    uint32_t *ids32;               /* python id, python parent id: two a frame */
    int64_t *ids64;                /* the same, TP_NONE no parent */
};

struct tp_mem_info {         /* [memory] instants */
    int64_t addr, bytes, total_allocated, total_reserved;   /* TP_NONE when absent */
    int32_t device_type;           /* 0 CPU, 1 CUDA, ... -1 absent */
    int32_t device_id;
};

/* A collective's metadata as PyTorch writes it on an NCCL kernel and on its
 * record_param_comms operator ("Collective name", "In msg nelems", "Out msg
 * nelems", "Group size", "dtype", "Process Group Name"/"Description"/
 * "Ranks", "Seq"): one record per event that carries any of them, in row
 * order (so a row's record is found by binary search, tp_store_coll). */
struct tp_coll_info {
    int64_t row;                   /* the event it was read from */
    uint32_t name;                 /* strtab: "Collective name" ("allreduce", "_allgather_base"), 0 absent */
    uint32_t dtype;                /* strtab: "dtype" ("Float", "BFloat16"), 0 absent */
    uint32_t pg_name;              /* strtab: "Process Group Name" (else "Process Group ID"), 0 absent */
    uint32_t pg_desc;              /* strtab: "Process Group Description", 0 absent */
    uint32_t pg_ranks;             /* strtab: "Process Group Ranks" as written ("[0, 1]"), 0 absent */
    int64_t in_nelems, out_nelems; /* TP_NONE when absent */
    int64_t group_size;            /* "Group size", TP_NONE absent */
    int64_t seq;                   /* "Seq": the collective's sequence number in its group, TP_NONE absent */
};

/* An operator's "Sequence number" (autograd's forward/backward pairing).
 * Fewer than a tenth of the rows carry one (186k of 2.1M on a 1 GB
 * ResNet-50 trace), so they are (row, value) records sorted by row, found
 * by binary search (tp_store_seq), not a column of every row: 17 MB less. */
struct tp_seq_rec {
    int64_t row;
    int64_t seq;
};

struct tp_device {
    int32_t id;
    uint32_t name;                 /* strtab */
    int64_t total_mem;
    int32_t major, minor, num_sms, max_threads_per_sm, max_threads_per_block;
    int32_t regs_per_block, regs_per_sm, warp_size;
    int64_t smem_per_block, smem_per_sm, smem_optin;
    int32_t max_blocks_per_sm;     /* 0: unknown (the occupancy calculator's table by capability) */
    int64_t mem_bw;                /* peak memory bandwidth, bytes/s (TARGET_INFO_GPU); 0 unknown */
};

/* A GPU's peak of "Total Allocated" over its memory events ("Device Type"
 * 1), 0 when none says it; GPUs in the order of their first memory event,
 * at most TP_GPU_MEM_PEAKS (tp_store_gpu_memory_peaks). */
#define TP_GPU_MEM_PEAKS 64
struct tp_gpu_mem_peak { int32_t device_id; int64_t peak; };

struct tp_skip {             /* events we could not use, counted by reason */
    char reason[96];
    uint64_t count;
    uint64_t first_offset;         /* byte offset (or row) of the first one */
    int malformed;                 /* bad input (exit status 2), not just unused */
    int at_row;                    /* first_offset is a table row (an SQLite rowid), not a byte */
};

/* One row of prof.py's per-kernel table before the formulas run.  Filled by
 * the linker for kineto traces and by the PyProf decoder for nvprof/nsys
 * dumps; the kernel view reads only this. */
struct tp_kernel_annot {       /* the 8-byte fields first: 72 bytes a row, no padding */
    int64_t tid;                   /* launching thread */
    int64_t  op_event;             /* launching operator row, -1 none */
    uint32_t event;                /* the kernel's row in the store */
    uint32_t seq, altseq;          /* strtab: ",".join(ids); 0 ("") prints as "-" */
    uint32_t layer;                /* ":".join(layers) */
    uint32_t trace;                /* ",".join(full trace entries) */
    uint32_t trace_last;           /* basename of the last trace entry (for -w) */
    int32_t  sub;                  /* sub-sequence id */
    uint32_t mod, op;              /* strtab; "na" when unknown */
    uint32_t marker;               /* PyProf argument marker (a Python dict literal), 0 none */
    uint32_t input_dims, input_types;  /* kineto: the launching op's inputs (raw JSON), 0 none */
    uint32_t concrete_inputs;      /* kineto: the launching op's "Concrete Inputs" (raw JSON), 0 none */
    uint8_t  bprop;                /* direction: 0 fprop, 1 bprop */
};

/* ---- attribution: every GPU activity's launch and operator (attribution.c) ----
 *
 * One model, computed once by tp_store_link, read by every view that charges
 * GPU time to something.  For each device row (kernel, memcpy, memset):
 *   launch  tp_store_launcher(st, row): the runtime or driver call with its correlation
 *           id (a graph launch for every kernel of a replay), -1 none;
 *   kind    how it was launched (enum tp_launch_kind);
 *   op      tp_store_attr_op(st, row): the launching CPU operator (tp_store_launch_op); for a
 *           graph replay no operator encloses, the graph launch call itself
 *           (torch.cuda.CUDAGraph.replay records no operator: the call stands
 *           for the replayed graph); -1 unattributed;
 *   cause   enum tp_attr_cause: attributed, or why not. */
enum tp_launch_kind { TP_LAUNCH_NONE, TP_LAUNCH_RUNTIME, TP_LAUNCH_DRIVER, TP_LAUNCH_GRAPH, TP_LAUNCH_KINDS };

enum tp_attr_cause {
    TP_ATTR_OPERATOR = 0,      /* attributed to the CPU operator around the launch call */
    TP_ATTR_LAUNCH_CALL,       /* attributed to its graph launch call: no operator encloses it */
    TP_ATTR_OUTSIDE_OPERATOR,  /* unattributed: its (non-graph) launch call is inside no CPU operator */
    TP_ATTR_NO_CORRELATION,    /* unattributed: the activity carries no correlation id */
    TP_ATTR_BEFORE_PROFILER,   /* unattributed: no launch record, it started before the first host event */
    TP_ATTR_NO_LAUNCH_RECORD,  /* unattributed: no launch record although the host was traced (lost records) */
    TP_ATTR_CAUSES
};

struct tp_attribution {
    int32_t *dev_op;               /* per device row (st->ndev, tp_store_attr_op): a row, -1 none */
    uint8_t *dev_kind, *dev_cause; /* per device row: enum tp_launch_kind, enum tp_attr_cause
                                      (tp_store_attr_kind, tp_store_attr_cause) */
    /* Totals over kernels (TP_K_KERNEL; copies are not kernel time). */
    int64_t kernel_ns, kernels;
    int64_t cause_ns[TP_ATTR_CAUSES], cause_n[TP_ATTR_CAUSES];
    int64_t kind_ns[TP_LAUNCH_KINDS], kind_n[TP_LAUNCH_KINDS];   /* attributed kernels by launch kind */
    int64_t graph_launches;        /* graph launch calls with at least one replayed activity */
    int64_t host_ops;              /* CPU operators in the store (0: the trace has no CPU activity) */
    int64_t call_example;          /* row of a graph launch call standing in for an operator, -1 none */
    /* Graph replays matched to a capture trace (tp_store_attach_capture):
     * per device row, the captured operator's instance (unique per replay and
     * captured operator; -1 none) and name (strtab of this store). */
    int64_t *cap_inst;
    uint32_t *cap_name;
    int64_t captured_ns, captured_n;    /* replayed kernels matched to captured operators */
    int64_t replays_matched;            /* graph launches matched to a capture */
    int64_t captures_read;              /* captures found in the capture traces given */
    int64_t cap_instances;              /* distinct cap_inst values (0..cap_instances-1) */
    int64_t outside_example;       /* row of a launch call outside any operator, -1 none */
};

/* 1 when name is a graph launch call (cudaGraphLaunch, hipGraphLaunch, cuGraphLaunch). */
int tp_is_graph_launch(const char *name);

/* The share of kernel time attributed (op >= 0), in percent; 100 when the
 * store has no kernel time. */
double tp_attr_share(const struct tp_attribution *a);

/* The i-th `tprof info` row about attribution (keys kernel_time.attributed*):
 * 1 with key and value written, 0 past the last (or nothing to say). */
int tp_attr_info_line(const tp_store *st, size_t i, char *key, size_t kcap, char *val, size_t vcap);

enum tp_source_format { TP_SRC_UNKNOWN, TP_SRC_KINETO_JSON, TP_SRC_NVPROF_SQLITE,
                        TP_SRC_NSYS_SQLITE, TP_SRC_PYPROF_DICT, TP_SRC_ASCEND };

struct tp_store {
    tp_strtab strings;

    /* ---- columns, all of length n ---- */
    size_t n, cap;
    uint8_t  *kind;                /* enum tp_kind */
    char     *ph;                  /* Chrome-trace phase: X, i, s, f, C, M ... */
    int64_t  *ts, *dur;            /* ns; dur 0 for instants */
    uint32_t *name, *cat;          /* strtab */
    int64_t  *pid, *tid;
    int32_t  *device, *stream;     /* -1 absent */
    int64_t  *correlation;         /* runtime<->device id; flow id for TP_K_FLOW */
    /* "External id", read through tp_store_ext and written through
     * tp_store_set_ext: 32 bits a row, unsigned (TP_EXT32_NONE: none), while
     * every id is in [0, 2^32 - 1), else 64 (ext64 set, ext32 NULL): a
     * negative id, a run's merged store (ids kept apart per rank), a store
     * read from a .tprof file.  4 bytes a row less: 8 MB on a 1 GB trace. */
    uint32_t *ext32;
    int64_t  *ext64;
    uint32_t *aux;                 /* index into the side table of this kind, TP_NO_AUX none */

    /* ---- side tables ---- */
    struct tp_kernel_info *kernels; size_t nkernels, capkernels;
    struct tp_op_info     *ops;     size_t nops, capops;
    struct tp_mem_info    *mems;    size_t nmems, capmems;
    struct tp_device      *devices; size_t ndevices;
    struct tp_coll_info   *colls;   size_t ncolls, capcolls;   /* sorted by row */
    struct tp_seq_rec     *seqs;    size_t nseqs, capseqs;     /* sorted by row (tp_store_seq) */
    struct tp_py_info     *pys;     size_t npys, cappys;       /* tp_op_info.py indexes it (tp_store_py) */
    struct tp_py32        *pys32;   /* instead of pys while every id fits 32 bits (npys, cappys its) */
    struct tp_fwd_rec     *fwds;    size_t nfwds, capfwds;     /* sorted by op record (tp_store_fwd_thread) */
    struct tp_pyframes    pyframes;                            /* TP_LEAN_PYGRAPH: the python frames left out */

    /* ---- about the input ---- */
    char path[1024];
    char origin[1024];             /* read from a .tprof store: the input it was imported from, else "" */
    enum tp_source_format format;
    const char *compression;       /* "none", "gzip", "zstd" */
    uint64_t input_bytes;          /* bytes on disk */
    uint64_t text_bytes;           /* bytes after decompression */
    int64_t base_time_ns;          /* baseTimeNanoseconds, TP_NONE absent */
    int64_t rank, world_size;      /* distributedInfo, TP_NONE absent */
    uint32_t dist_backend;         /* strtab */
    int32_t schema_version;
    int truncated;                 /* the input ended early */
    int lean;                      /* tp_store_set_lean: TP_LEAN_FLOWS, a kineto trace kept only
                                      its fwdbwd flows; TP_LEAN_PYGRAPH, those, the rows of
                                      TP_LEAN_PYFUNCS and the pyframes; TP_LEAN_PYFUNCS, those and the
                                      python_function events of module calls or named like
                                      autograd nodes; TP_LEAN_MEMORY_PEAKS, those and the
                                      memory events folded into gpu_peaks; TP_LEAN_TREE, those and no memory
                                      events; TP_LEAN_KERNELS, no flows or memory
                                      events, and only the python_function events named like
                                      autograd nodes */
    size_t left_out;               /* the events it left out */
    int64_t left_out_first_ts;     /* the earliest start of those that are complete ('X'), INT64_MAX none */
    int64_t left_out_lo, left_out_hi;   /* the first start and last end of those that are no flow
                                           (read for TP_LEAN_PYGRAPH to TP_LEAN_TREE), INT64_MAX
                                           and INT64_MIN none */
    size_t left_out_py;            /* of those, the python_function events (TP_LEAN_PYGRAPH to
                                      TP_LEAN_TREE): info counts them as such, not as flows */
    /* TP_LEAN_MEMORY_PEAKS: the memory events' rows are left out, and kept
     * of them is what advice reads (tp_store_gpu_memory_peaks) */
    int gpu_peaks_kept;
    struct tp_gpu_mem_peak gpu_peaks[TP_GPU_MEM_PEAKS]; size_t ngpu_peaks;
    int kernel_scope;              /* loaded for its kernels alone (tp_store_set_kernel_scope): an
                                      nvprof/nsys dump kept only the calls and NVTX ranges PyProf reads */

    struct tp_skip skips[32]; size_t nskips;

    /* ---- derived by link (tp_store_link); views read, never rebuild ---- */
    int linked;
    /* Rows and steps in 32 bits (-1 none): a store links at most
     * TP_STORE_MAX_ROWS events (tp_store_link refuses more by name); int64
     * was 8.5 MB more per column on a 1 GB trace (2.1M rows). */
    int32_t *parent;               /* enclosing CPU op/annotation on the same thread, -1 root */
    /* Per device row (kernel, memcpy, memset: ndev of them, in row order),
     * not per row: an eighth of a 1 GB trace's rows are device rows, and
     * two arrays of every row were 17 MB.  dev_bits has a bit per row (set
     * for a device row), dev_before the device rows before each 64; read
     * them through tp_store_launcher and tp_store_launch_op. */
    size_t ndev;
    int32_t *dev_launcher;         /* -> the runtime/driver call row; -1 none */
    int32_t *dev_launch_op;        /* -> innermost CPU op enclosing the runtime call; -1 none */
    uint64_t *dev_bits;
    uint32_t *dev_before;
    int32_t *step;                 /* NULL but in a run's merged store (run.c): each row's step
                                      index there; read any store's through tp_store_row_step */
    struct tp_kernel_annot *annots; size_t nannots;   /* one per kernel, in kernel time order */
    int annots_from_pyprof;        /* annots came from nvprof/nsys NVTX markers */
    struct tp_step { int64_t number, ts, end, name; } *steps; size_t nsteps;
    struct tp_attribution attr;    /* every GPU activity's launch, operator or cause */

    /* ---- models several views share (model/): built on first use by
     * tp_store_model, freed with the store; never saved in a .tprof ---- */
    struct tp_model_slot { void *p; void (*free)(void *); int tried; } models[5];
    pthread_mutex_t model_lock;    /* first use from several threads builds once */

    /* ---- Ascend NPU folders: tables with no store equivalent (npu.h) ---- */
    struct tp_npu_data *npu;       /* NULL for every other input */

    int lazy;                      /* tp_store_set_lazy: a .tprof's columns inflated on first need
                                      (store_file_lazy.c, tp_store_need) */
};

/* The shared models cached on a store (the `models` slots). */
enum tp_model_id { TP_MODEL_TB_TREE, TP_MODEL_TB_BREAKDOWN,
                   TP_MODEL_FILE /* a .tprof's model sections, still compressed (store_file_model.c) */,
                   TP_MODEL_X_ORDER /* the X rows in time order, between two model builds (tbtree_order.c) */,
                   TP_MODEL_GPU_SUMMARY /* the GPU summary gpu and advice read (gpu_metrics.c) */ };

/* Model `id` of a linked store: built by `build` on first use (NULL when
 * out of memory, and asked again on the next use) and freed by `free_fn` with the
 * store.  Views get the store const: the cache is not its content. */
void *tp_store_model(const tp_store *st, enum tp_model_id id, void *(*build)(const tp_store *st),
                     void (*free_fn)(void *));

/* Append one row with every field at its "absent" value; returns the row
 * index, or -1 on out of memory. */
int64_t tp_store_add(tp_store *st);

/* Append a side-table record and attach it to row `row`. */
struct tp_kernel_info *tp_store_add_kernel_info(tp_store *st, size_t row);
struct tp_op_info     *tp_store_add_op_info(tp_store *st, size_t row);
struct tp_mem_info    *tp_store_add_mem_info(tp_store *st, size_t row);
/* Copy the side-table record of src's row i (its kernel, memory or op info,
 * by the row's kind) to dst's row `row` as it is: its strings are still
 * src's ids, so *op is the op info copied (else NULL) for the caller to
 * re-intern them.  0 (nothing to copy included), or -1 on out of memory. */
int tp_store_copy_info(tp_store *dst, size_t row, const tp_store *src, size_t i, struct tp_op_info **op);
/* Append the collective record of row `row` (rows must come in increasing
 * order; the record is not attached through aux: tp_store_coll finds it). */
struct tp_coll_info   *tp_store_add_coll_info(tp_store *st, size_t row);
/* The collective record of row `row`, or NULL. */
const struct tp_coll_info *tp_store_coll(const tp_store *st, size_t row);
/* Give op record o (of st) python ids; all TP_NONE: nothing.  0, or -1 out
 * of memory. */
int tp_store_set_py(tp_store *st, struct tp_op_info *o, int64_t python_id, int64_t python_parent_id,
                    int64_t module_id);
/* Replace the python ids of record i (< st->npys): 0, or -1 out of memory. */
int tp_store_put_py(tp_store *st, size_t i, struct tp_py_info v);
/* Record i of a 32-bit table as struct tp_py_info, in a record of the calling
 * thread's (tp_store_py). */
const struct tp_py_info *tp_store_py_wide(const tp_store *st, size_t i);
/* The "Fwd thread id" of operator row `row` (a row whose kind has op
 * records: cpu_op, user_annotation, gpu_user_annotation, python_function),
 * TP_NONE when it has none. */
int64_t tp_store_fwd_thread(const tp_store *st, size_t row);
/* Give op record `op` "Fwd thread id" tid (TP_NONE: nothing).  Records come
 * in increasing order; those at or past `op` are dropped first.  0, or -1
 * out of memory. */
int tp_store_set_fwd_thread(tp_store *st, size_t op, int64_t tid);
/* Keep a python frame a TP_LEAN_PYGRAPH load leaves out (struct
 * tp_pyframes; at: st->n now).  0, or -1 out of memory. */
int tp_store_add_pyframe(tp_store *st, int64_t ts, int64_t python_id, int64_t python_parent_id);
/* Python frame i's ids (parent TP_NONE when it has none). */
static inline void tp_store_pyframe_ids(const tp_store *st, size_t i, int64_t *python_id, int64_t *python_parent_id)
{
    const struct tp_pyframes *f = &st->pyframes;
    if (f->ids64) {
        *python_id = f->ids64[2 * i];
        *python_parent_id = f->ids64[2 * i + 1];
    } else {
        *python_id = f->ids32[2 * i];
        *python_parent_id = f->ids32[2 * i + 1] == TP_PY32_NONE ? TP_NONE : (int64_t)f->ids32[2 * i + 1];
    }
}
/* Drop the "Fwd thread id"s of op records at or past st->nops (after op
 * records were dropped). */
void tp_store_trim_fwds(tp_store *st);
/* TP_LEAN_MEMORY_PEAKS: memory row `row`, the last row, folded into the
 * store's GPU peaks (gpu_peaks) and dropped with its memory record. */
void tp_store_fold_memory_row(tp_store *st, size_t row);
/* The GPUs' peaks of "Total Allocated", from the memory rows or what a
 * TP_LEAN_MEMORY_PEAKS load kept of them: how many (at most cap) went
 * into out. */
size_t tp_store_gpu_memory_peaks(const tp_store *st, struct tp_gpu_mem_peak *out, size_t cap);
/* Row `row`'s "Sequence number", TP_NONE when it has none. */
int64_t tp_store_seq(const tp_store *st, size_t row);
/* Give row `row` sequence number `seq` (TP_NONE: nothing).  Rows come in
 * increasing order; records of rows at or past `row` are dropped first (the
 * rows an importer dropped and is filling again).  0, or -1 out of memory. */
int tp_store_set_seq(tp_store *st, size_t row, int64_t seq);
/* Drop the sequence records of rows at or past st->n (after rows were dropped). */
void tp_store_trim_seqs(tp_store *st);

/* Count a skipped event under `reason` (first byte offset kept). */
void tp_store_skip(tp_store *st, const char *reason, uint64_t offset);
/* Count a malformed event (wrong type, number out of range...): it is left
 * out, the rest of the input still counts, and the CLI exits 2. */
void tp_store_bad(tp_store *st, const char *reason, uint64_t offset);
/* The same two for a row of an SQLite table, first rowid kept. */
void tp_store_skip_row(tp_store *st, const char *reason, int64_t rowid);
void tp_store_bad_row(tp_store *st, const char *reason, int64_t rowid);

/* Names are C strings downstream (views, tables, every output format), where
 * a NUL byte would cut them and make two different names print alike: a
 * string with NUL bytes is interned with each one spelled as the four
 * characters \x00 (tp_store_intern_nul). */
uint32_t tp_store_intern_nul(tp_store *st, const char *s, size_t len);

static inline uint32_t tp_store_intern(tp_store *st, const char *s, size_t len)
{
    if (len && memchr(s, 0, len))
        return tp_store_intern_nul(st, s, len);
    return tp_strtab_intern(&st->strings, s, len);
}

#define TP_EXT32_NONE UINT32_MAX

/* Row `row`'s "External id", TP_NONE when it has none. */
static inline int64_t tp_store_ext(const tp_store *st, size_t row)
{
    if (st->ext64)
        return st->ext64[row];
    uint32_t v = st->ext32[row];
    return v == TP_EXT32_NONE ? TP_NONE : (int64_t)v;
}

/* The 32-bit column made 64-bit (a value that does not fit came): 0, or -1
 * out of memory. */
int tp_store_widen_ext(tp_store *st);

/* Give row `row` "External id" v (TP_NONE: none): 0, or -1 out of memory
 * (the column was made 64-bit for it and could not be). */
static inline int tp_store_set_ext(tp_store *st, size_t row, int64_t v)
{
    if (!st->ext64 && (v == TP_NONE || (v >= 0 && v < (int64_t)TP_EXT32_NONE))) {
        st->ext32[row] = v == TP_NONE ? TP_EXT32_NONE : (uint32_t)v;
        return 0;
    }
    if (!st->ext64 && tp_store_widen_ext(st) < 0)
        return -1;
    st->ext64[row] = v;
    return 0;
}

static inline const char *tp_store_str(const tp_store *st, uint32_t id)
{
    return tp_strtab_get(&st->strings, id);
}

static inline const struct tp_kernel_info *tp_store_kernel(const tp_store *st, size_t row)
{
    return st->aux[row] == TP_NO_AUX ? NULL : &st->kernels[st->aux[row]];
}

/* The python ids of op record o (NULL: none): a record of TP_NONE when it
 * has none (or, read from a damaged store, points past the table).  From a
 * 32-bit table (pys32) the record is the calling thread's, which its next
 * call overwrites: read it before asking again. */
static inline const struct tp_py_info *tp_store_py(const tp_store *st, const struct tp_op_info *o)
{
    static const struct tp_py_info none = {TP_NONE, TP_NONE, TP_NONE};
    if (!o || o->py >= st->npys)
        return &none;
    return st->pys ? &st->pys[o->py] : tp_store_py_wide(st, o->py);
}

/* The index among the device rows (kernel, memcpy, memset) of row `row` of
 * a linked store, -1 when it is none (or the store is not linked). */
static inline int64_t tp_store_dev_index(const tp_store *st, size_t row)
{
    if (!st->dev_bits)
        return -1;
    uint64_t w = st->dev_bits[row >> 6], b = UINT64_C(1) << (row & 63);
    return (w & b) ? (int64_t)st->dev_before[row >> 6] + __builtin_popcountll(w & (b - 1)) : -1;
}

/* A device row's launch call (the runtime or driver row with its
 * correlation id), -1 none and for every other row. */
static inline int64_t tp_store_launcher(const tp_store *st, size_t row)
{
    int64_t k = tp_store_dev_index(st, row);
    return k < 0 ? -1 : st->dev_launcher[k];
}

/* A device row's innermost CPU operator around its launch call, -1 none. */
static inline int64_t tp_store_launch_op(const tp_store *st, size_t row)
{
    int64_t k = tp_store_dev_index(st, row);
    return k < 0 ? -1 : st->dev_launch_op[k];
}

/* A device row's operator by the attribution model (st->attr), -1 none. */
static inline int64_t tp_store_attr_op(const tp_store *st, size_t row)
{
    int64_t k = tp_store_dev_index(st, row);
    return k < 0 || !st->attr.dev_op ? -1 : st->attr.dev_op[k];
}

/* A device row's launch kind and cause by the attribution model
 * (TP_LAUNCH_NONE and TP_ATTR_OPERATOR for every other row). */
static inline int tp_store_attr_kind(const tp_store *st, size_t row)
{
    int64_t k = tp_store_dev_index(st, row);
    return k < 0 || !st->attr.dev_kind ? TP_LAUNCH_NONE : st->attr.dev_kind[k];
}

static inline int tp_store_attr_cause(const tp_store *st, size_t row)
{
    int64_t k = tp_store_dev_index(st, row);
    return k < 0 || !st->attr.dev_cause ? TP_ATTR_OPERATOR : st->attr.dev_cause[k];
}

/* The step index (into st->steps) of row `row`: a host row's by its start,
 * a device row's by its launch call's; -1 none.  Found when asked (a binary
 * search of the steps), not kept per row: most views never ask, and the
 * column was 8.5 MB of a 1 GB trace's peak. */
int64_t tp_store_row_step(const tp_store *st, size_t row);

/* Format a tid for printing (numeric or its string). */
const char *tp_store_tid_str(const tp_store *st, int64_t tid, char buf[32]);

#endif
