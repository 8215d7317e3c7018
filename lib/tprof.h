/* tprof.h — the one public header of libtprof.
 *
 * libtprof turns GPU/accelerator profiles (PyTorch profiler / kineto Chrome-trace
 * JSON, nvprof and Nsight Systems SQLite dumps, Ascend profiler folders) into
 * tables.  Data flows one way:
 *
 *     source -> importer -> store -> link -> view -> table -> writer
 *
 * The library never prints and never exits: every failure comes back as a
 * tp_error whose message names the input and the byte offset or row. */
#ifndef TPROF_H
#define TPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors -------------------------------------------------------------- */

enum tp_status {
    TP_OK = 0,
    TP_ERR_IO,        /* cannot open or read the input */
    TP_ERR_FORMAT,    /* the input is not what we expected (bad JSON, not a trace...) */
    TP_ERR_TRUNCATED, /* the input ends early; what was read before is kept */
    TP_ERR_USAGE,     /* bad option or column name */
    TP_ERR_NOMEM,
};

typedef struct tp_error {
    enum tp_status status;
    char msg[512];    /* "FILE: byte 1234: what went wrong" */
    int sys_errno;    /* the errno of an I/O failure (EPIPE: the reader went away), else 0 */
} tp_error;

/* Set *err (if not NULL) and return status.  printf-style message. */
int tp_error_set(tp_error *err, enum tp_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- the event store ----------------------------------------------------- */

typedef struct tp_store tp_store;

tp_store *tp_store_new(void);
void      tp_store_free(tp_store *st);

/* Read one input (file, directory, or "-" for stdin) into the store.
 * The format and compression are sniffed from the content.  On error the
 * events read before the error stay in the store (a truncated trace still
 * gives the rows of its complete events). */
int tp_store_load(tp_store *st, const char *path, tp_error *err);
/* Bytes read from input files so far by every load of the process (on disk:
 * compressed bytes for compressed files; SQLite reads are not counted).
 * Safe from any thread: a progress line polls it while a load runs. */
uint64_t tp_input_bytes_read(void);

/* Before tp_store_load: the caller reads only the kernels and their prof.py
 * annotations (the prof view, tp_view.kernel_scope).  An nvprof or Nsight
 * Systems dump then keeps, of its runtime and driver calls, only those with
 * a kernel's correlation id, and of its NVTX ranges only those enclosing
 * such a call on its thread (what PyProf's decoding reads), and no NVTX
 * marks: every row is still read and checked, and malformed rows counted.
 * Such a store cannot be saved (tp_store_save).  Other inputs load whole. */
void tp_store_set_kernel_scope(tp_store *st);

/* Before tp_store_load: the caller reads only part of a kineto trace's
 * events (a view's tp_view_lean_level).  TP_LEAN_FLOWS: no flow event but
 * the forward-backward ones (category "fwdbwd", which link backward
 * operators to forward ones).  TP_LEAN_PYFUNCS: those flows, and of the
 * python_function events only those of an nn.Module call ("Python module
 * id") or named like autograd nodes; these events are read whole (the
 * module id comes last), so only their rows are saved.
 * TP_LEAN_MEMORY_PEAKS: those, and no memory event as a row: each is read
 * and checked whole, and only the peak of "Total Allocated" per GPU stays
 * (what `advice` reads of them).  TP_LEAN_TREE: those, and no memory event
 * at all (read up to their start: the trace's span is theirs too).  TP_LEAN_KERNELS: no flow event at all, no
 * memory event, and of the python_function events (half the events of a
 * PyTorch 2.x trace with the Python tracer on) only those named like
 * autograd nodes (they make a kernel's direction bprop); nor the layer or
 * trace of the prof.py rows.  The events TP_LEAN_KERNELS leaves out are
 * read for their JSON grammar only, up to what tells their kind (and a
 * python_function event's start), and skipped; the flows and python frames
 * the other levels leave out are read whole and checked as in a whole
 * load.  Such a store cannot be saved (tp_store_save).
 * Other inputs, and an Ascend folder's trace, load whole.
 * TP_LEAN_PYGRAPH, between TP_LEAN_FLOWS and TP_LEAN_PYFUNCS: the events
 * of TP_LEAN_PYFUNCS, and of each python_function event it leaves out that
 * has a "Python id" a compact record (its start, ids, and where it sat
 * among the rows), from which the module hierarchy is built as from a
 * whole load; such an event is checked as a whole load checks it.  A
 * frame named like a step ("ProfilerStep#") or with a "stream" stays a
 * row (HTA's quirks and the critical path read those). */
enum { TP_LEAN_NONE, TP_LEAN_FLOWS, TP_LEAN_PYGRAPH, TP_LEAN_PYFUNCS, TP_LEAN_MEMORY_PEAKS, TP_LEAN_TREE, TP_LEAN_KERNELS };
void tp_store_set_lean(tp_store *st, int level);

/* Before tp_store_load: the caller gives the store to tp_view_build and to
 * the queries below alone (not to tp_store_filter, tp_store_save, diff,
 * run or capture functions).  A .tprof store then keeps its per-event
 * columns compressed, and each view inflates the ones it reads when it is
 * built; a damaged column is reported by tp_view_build then.  Other inputs
 * load whole.  The first lazy store installs a SIGSEGV handler: a fault in
 * a column not yet inflated names it and aborts; any other fault goes to
 * the handler installed before. */
void tp_store_set_lazy(tp_store *st);

/* After every load: build the derived structure (correlation, op trees,
 * steps...) that the views share. */
int tp_store_link(tp_store *st, tp_error *err);

/* Charge the kernels of st's graph replays to the operators captured into
 * the graph, from the capture trace `cap` (both linked): each capture
 * (StreamBeginCapture..StreamEndCapture) lists its launch calls in order, and
 * a replay whose activity count equals a capture's is matched to it
 * position by position (the next such capture after the last one matched, as
 * piecewise graphs replay in capture order).  Fills the store's attribution; replays
 * matching no capture keep their graph launcher.  TP_OK, or an error. */
int tp_store_attach_capture(tp_store *st, const tp_store *cap, tp_error *err);

/* The coverage line of a linked kineto store: "PATH: 99.2% of kernel time
 * attributed to operators (driver launches ..., graph replays ..., no launch
 * record ...)" with what the user can do when under 95%.  Writes it (no
 * newline) into buf and returns 1; 0 (buf "") when the store has nothing to
 * say (no kernels, or not a kineto trace). */
int tp_store_coverage(const tp_store *st, char *buf, size_t cap);

/* Write a loaded store, linked first if it is not, as a .tprof file: the
 * persistent columnar form (zstd-compressed columns, checksummed, versioned;
 * layout in tprof(1), FILES) that tp_store_load reads back, sniffed by its
 * magic bytes, many times faster than the trace it came from.  `load_status`
 * is what tp_store_load said of the trace (NULL: it loaded cleanly); a
 * truncated trace's status and message are stored and returned again by
 * every load of the .tprof.  The file is written under a temporary name and
 * renamed, so a failure leaves nothing under `path`. */
int tp_store_save(tp_store *st, const tp_error *load_status, const char *path, tp_error *err);

/* How many events the store holds (0 for NULL): a load that failed midway
 * still has the rows of the events read before the failure.  The events a
 * lean load (tp_store_set_lean) left out count as held: they were read. */
size_t tp_store_event_count(const tp_store *st);
/* The trace's distributedInfo rank, or -1 when it has none (or st is NULL). */
int64_t tp_store_rank(const tp_store *st);

/* 1 when the store was read from an Ascend profiler folder (its views are
 * the NPU twins, tp_view_for_store), 0 otherwise or for NULL. */
int tp_store_is_ascend(const tp_store *st);

/* The i-th note (0-based) on malformed input the load met, as "PATH: byte N:
 * what (K events left out)" ("row N" for SQLite), into buf (no newline).
 * Returns 1 when there is an i-th note, 0 past the last one or on NULL
 * arguments.  A caller that finds any should exit non-zero: the input is
 * broken, not just partly unused. */
int tp_store_malformed(const tp_store *st, size_t i, char *buf, size_t cap);

/* ---- tables -------------------------------------------------------------- */

typedef struct tp_table tp_table;

enum tp_format {
    TP_FMT_SPACE,   /* prof.py's space-separated text (the default into a pipe) */
    TP_FMT_CSV,     /* every field quoted, written with libcsv */
    TP_FMT_COLUMNS, /* columnated within a width */
    TP_FMT_JSONL,   /* one JSON object per row */
    TP_FMT_MARKDOWN, /* a GitHub-flavoured Markdown table (PR comments) */
    TP_FMT_TSV,     /* tab-separated values (tabs and newlines in names escaped as \xNN) */
};

/* --timeunit: the unit of the time columns (TP_COL_US, kept in ns). */
enum tp_timeunit { TP_UNIT_DEFAULT = 0, TP_UNIT_NS, TP_UNIT_US, TP_UNIT_MS, TP_UNIT_S };

struct tp_output_opts {
    enum tp_format format;
    int width;              /* TP_FMT_COLUMNS: total line width */
    const char *columns;    /* "-c" list, comma-separated keys; NULL: the view's default */
    const char *sort;       /* column key to sort by (descending for numbers); NULL: view order */
    size_t top;             /* keep only the first N rows; 0: all */
    int header;             /* print the header line (default 1) */
    int timeunit;           /* enum tp_timeunit: time columns in ns, us, ms or s, exactly, with the
                               unit in their header (`Total(ms)`) and key (`total_ms`);
                               TP_UNIT_DEFAULT: microseconds, headers and keys as declared */
    const char *name_regex; /* --name: keep the rows whose name (else kernel, else op) column
                               matches this POSIX extended regular expression */
    int keys;               /* the header names columns by key (`total_us`, not `Total(us)`) and
                               NULL cells are empty, not "-": CSV/TSV that load as typed
                               columns in pandas, DuckDB and spreadsheets */
    int human;              /* --human: in the text formats (columns, space, Markdown), times and
                               bytes with units as torch's key_averages().table() prints them
                               ("1.234ms", "12.50 MB"), headers without "(us)"; the typed formats
                               (CSV, TSV, JSON lines) ignore it.  With timeunit: every time in
                               that unit ("1234.567ms"), as key_averages' time_unit= */
    char *note;             /* where tp_table_write says what it left out to keep the -w width
                               (comma-separated column keys; "" when nothing); NULL: not told */
    size_t note_cap;
    int color;              /* a chart (--plot) may colour its bars with ANSI SGR sequences; the
                               caller decides (tprof: stdout a terminal and NO_COLOR unset) */
};

void tp_output_opts_init(struct tp_output_opts *o);

int  tp_table_write(const tp_table *t, const struct tp_output_opts *o, FILE *out, tp_error *err);
void tp_table_free(tp_table *t);
size_t tp_table_rows(const tp_table *t);
/* The lines a view adds after its table (key_averages' "Self CPU time
 * total: ..."), each ending in a newline; "" when none.  The -w format
 * prints them itself; callers of the other formats decide where they go. */
const char *tp_table_footer(const tp_table *t);
/* The default columns of this table when they depend on the input (an
 * Ascend kernels --group all table shows the PMU columns its
 * kernel_details.csv carries, in the file's order), else NULL: then
 * tp_view_default_columns gives them.  Callers printing a view's table
 * without -c ask this first. */
const char *tp_table_default_columns(const tp_table *t);

/* Reading a table's cells (a table belongs to the caller once built).
 * Every reader takes out-of-range rows and columns and a NULL table, and
 * answers as for a NULL cell. */
enum tp_cellkind { TP_CELL_NULL, TP_CELL_STR, TP_CELL_INT, TP_CELL_FLOAT };

size_t tp_table_cols(const tp_table *t);
/* The key of column col ("total_us" is "total"), NULL out of range; its
 * index by key, -1 when the table has none. */
const char *tp_table_col_key(const tp_table *t, size_t col);
long tp_table_col_index(const tp_table *t, const char *key);
enum tp_cellkind tp_table_cell_kind(const tp_table *t, size_t row, size_t col);
/* A string cell, NUL-terminated (NULL when the cell is not a string); the
 * _strn form also gives its length, as names may hold NUL bytes.  The
 * pointer is valid while the table is. */
const char *tp_table_cell_str(const tp_table *t, size_t row, size_t col);
const char *tp_table_cell_strn(const tp_table *t, size_t row, size_t col, size_t *len);
/* A number cell: _int truncates a float cell toward zero (saturated, NaN
 * as 0), _float widens an int cell; both give 0 for a NULL or string cell.
 * Time columns hold nanoseconds whatever the --timeunit of the writers. */
int64_t tp_table_cell_int(const tp_table *t, size_t row, size_t col);
double tp_table_cell_float(const tp_table *t, size_t row, size_t col);

/* A new, linked store of the events of ProfilerStep#N (`steps` "N" or
 * "A-B") or of the window `window` ("T0..T1" after the trace's first event,
 * tp_parse_window) of a linked store, as `tprof cut` keeps them (host
 * events of the steps, and the GPU work they launched; or what overlaps the
 * window): every view reads it as a whole trace.  Exactly one of steps and
 * window; TP_ERR_USAGE naming the steps there are when none matches, or
 * for a store a lean load (tp_store_set_lean) left events out of. */
int tp_store_filter(const tp_store *st, const char *steps, const char *window, tp_store **out, tp_error *err);

/* ---- cutting a trace ----------------------------------------------------- */

/* Which part of a kineto trace tp_trace_cut keeps: ProfilerStep#first to
 * #last (step_first >= 0), else the window [from_ns, to_ns] relative to the
 * trace's first event (to_ns INT64_MAX: to the end). */
struct tp_cut_opts {
    int64_t step_first, step_last;
    int64_t window_from_ns, window_to_ns;
};

struct tp_cut_result {
    int64_t from_ns, to_ns;     /* the window kept, in the trace's own time (ns) */
    uint64_t events_in, events_out;
};

/* Write to `out` (gzip when it ends in .gz) a kineto trace holding only the
 * chosen part of `in`: its top-level keys, metadata events, the events that
 * overlap the window, whole, as they were written.  `out` appears only when
 * complete (written beside it, then renamed). */
int tp_trace_cut(const char *in, const char *out, const struct tp_cut_opts *o, struct tp_cut_result *res,
                 tp_error *err);

/* Parse "T0..T1" (each a number with an optional unit ns, us, ms or s;
 * microseconds without one; either side may be empty: the trace's start or
 * end) into ns.  TP_ERR_USAGE with what is wrong. */
int tp_parse_window(const char *text, int64_t *from_ns, int64_t *to_ns, tp_error *err);
/* Parse "N" or "A-B" (ProfilerStep numbers, A <= B) into first and last.
 * TP_ERR_USAGE "--step: 'TEXT' is not N or A-B ...". */
int tp_parse_steps(const char *text, int64_t *first, int64_t *last, tp_error *err);

/* ---- views --------------------------------------------------------------- */

struct tp_coldef;
struct tp_view_opts;

/* How bad a finding of `tprof check` is; the CLI exits with 0, 1 or 2. */
enum tp_severity {
    TP_SEV_INFO = 0,     /* worth knowing; the numbers hold */
    TP_SEV_WARNING = 1,  /* some numbers are off: read them knowing why */
    TP_SEV_ERROR = 2,    /* the trace cannot be trusted */
};

/* An option a view honours (its own, beside the output options of
 * tp_output_opts that every view takes): declared once in the view's file,
 * it gives the command line its long option, `tprof help VIEW` its usage
 * line, and tp_view_set_option the field of struct tp_view_opts it sets. */
enum tp_optkind {
    TP_OPT_FLAG,          /* no argument: an int field set to 1 */
    TP_OPT_STRING,        /* a const char * field pointing at the argument */
    TP_OPT_COUNT,         /* an integer >= 0 into an int64_t field */
    TP_OPT_POSITIVE,      /* an integer > 0 into an int64_t field */
    TP_OPT_MICROSECONDS,  /* a number > 0 (microseconds) into a double field */
    TP_OPT_OPTIONAL,      /* a const char * field pointing at the argument, which may be left
                             out (--series, --series=10ms): the field is then "" */
};

struct tp_view_option {
    const char *name;     /* the long option without its dashes: "group" */
    const char *arg;      /* the argument's name in usage ("G", "N"); NULL for a flag */
    const char *help;     /* one line for `tprof help VIEW` */
    enum tp_optkind kind;
    size_t field;         /* offsetof(struct tp_view_opts, the field it sets) */
    long given;           /* offsetof an int field also set to 1 when the option is
                             given (--step N: step_given, as step 0 is a step); -1: none */
};

typedef struct tp_view {
    const char *name;        /* "kernel", "ops", "steps", ... (the CLI subcommand) */
    const char *summary;     /* one line for `tprof --help` */
    const struct tp_coldef *cols;
    size_t ncols;
    const char *default_columns;   /* comma-separated keys */
    /* Build the table from a linked store. */
    int (*build)(const tp_store *st, const struct tp_view_opts *vo, tp_table **out, tp_error *err);
    /* Optional: the default columns for these options (e.g. --group shape
     * adds the shape column); NULL or a NULL result: default_columns. */
    const char *(*columns_for)(const struct tp_view_opts *vo);
    /* Optional: build one table from every rank of a run at once (views
     * whose meaning spans ranks, e.g. dist).  NULL: the view is built per
     * rank with build(). */
    int (*build_run)(const tp_store *const *stores, size_t nstores, const struct tp_view_opts *vo,
                     tp_table **out, tp_error *err);
    /* 1: the view measures along the timeline (busy, idle, overlap), so
     * --merge, which lays ranks end to end, distorts it (the CLI says so). */
    int timeline;
    /* The view charges GPU time to operators (or kernels to their launches):
     * the CLI prints the store's coverage line (tp_store_coverage) with it.
     * TP_ATTRIBUTES_ALWAYS, or TP_ATTRIBUTES_GROUPED: only with --group. */
    int attributes;
    /* Optional: the worst severity among the rows of a table this view
     * built (check); the CLI exits with it.  NULL: TP_SEV_INFO. */
    enum tp_severity (*severity)(const tp_table *t);
    /* The options the view honours (its NPU twin honours the same); an
     * option it does not declare is refused by tp_view_set_option. */
    const struct tp_view_option *options;
    size_t noptions;
    /* 1: build reads only kernels and st->annots (with the kernel side
     * table), so the store may be loaded with tp_store_set_kernel_scope. */
    int kernel_scope;
    /* The events of a trace build reads (tp_view_lean_level): lean, the
     * leanest store it reads with any options (TP_LEAN_NONE, TP_LEAN_FLOWS,
     * TP_LEAN_PYGRAPH, TP_LEAN_PYFUNCS, TP_LEAN_MEMORY_PEAKS or TP_LEAN_TREE);
     * lean_load when it reads none of a
     * TP_LEAN_KERNELS store's: never (TP_LEAN_NEVER, 0), without its layer
     * and trace columns (TP_LEAN_WITHOUT_LAYER_TRACE: prof.py's), or with
     * its default options (TP_LEAN_WITHOUT_OPTIONS). */
    int lean;
    int lean_load;
    /* Optional, with build_run: the view needs only a small summary of
     * each rank, so a run is read in bounded memory (tp_run_reduce): each
     * rank's summary is made in a loading thread (rank_summary: NULL and a
     * message in err on failure) and its store freed; build_summaries then
     * builds the table from the summaries of every usable rank, in rank
     * order, with their settled ranks; summary_free frees one. */
    void *(*rank_summary)(const tp_store *st, const struct tp_view_opts *vo, tp_error *err);
    void (*summary_free)(void *summary);
    int (*build_summaries)(void *const *summaries, const int64_t *ranks, size_t n,
                           const struct tp_view_opts *vo, tp_table **out, tp_error *err);
    /* Optional: the keys --group takes, written into buf for the usage
     * line (views built on the aggregation engine); the length needed. */
    size_t (*group_keys)(char *buf, size_t cap);
    /* Optional: a load leaner than lean that builds the same table on most
     * traces (lean_try), and which stores it does so for: lean_serves(st,
     * vo) 1 when st, loaded at lean_try or leaner than lean, does (st NULL:
     * whether any may, with these options).  tp_view_lean_try. */
    int lean_try;
    int (*lean_serves)(const tp_store *st, const struct tp_view_opts *vo);
} tp_view;
enum { TP_ATTRIBUTES_NONE, TP_ATTRIBUTES_ALWAYS, TP_ATTRIBUTES_GROUPED };

/* 1 when view v built with these options attributes GPU time (see above). */
int tp_view_attributes(const tp_view *v, const struct tp_view_opts *vo);

/* Options a view may read; zero means "default". */
struct tp_view_opts {
    const char *group;       /* --group */
    const char *device;      /* --device */
    int events;              /* --events */
    int curve;               /* --curve */
    int all_steps;           /* --all-steps */
    int columnated;          /* output is the -w mode (prof.py prints the trace basename then) */
    int plot;                /* --plot: draw the table as a chart (steps, kernels, ops, gpu --series;
                                the table carries it and the -w format draws it) or the curve
                                (memory --curve) */
    int width;               /* -w W or the terminal's width, for views that draw (--plot); 0: 80 */
    int comm;                /* --comm: the communication ops table (dist) */
    int merge;               /* --merge: one table for all ranks of a run */
    const char *span;        /* --span: which span of a run */
    double runtime_cutoff_us;      /* launches: HTA runtime_cutoff (0: HTA's default) */
    double launch_delay_cutoff_us; /* launches: HTA launch_delay_cutoff (0: HTA's default) */
    int hta_quirks;          /* --hta-quirks: HTA's own numbers, µs rounding and bugs included */
    int64_t max_queue;       /* queue: --max-queue, HTA's max_queue_length (0: 1024) */
    int path;                /* critical-path: --path, the path edge by edge */
    int step_given;          /* critical-path: --step given (ProfilerStep#0 is a step) */
    int64_t step;            /* critical-path: --step N */
    const char *annotation;  /* critical-path: --annotation NAME (HTA's substring match) */
    int64_t instance;        /* critical-path: --instance K, 0-based (0: the first) */
    double short_us;         /* kernels: --short US, the kernels shorter than US µs (0: off) */
    int per_step;            /* stragglers: --per-step, one row per step instead of per rank */
    const char *filter_steps;  /* --step N|A-B: the view reads those steps alone (tp_store_filter) */
    const char *filter_window; /* --window T0..T1: the view reads that window alone */
    const char *series;      /* gpu: --series [INTERVAL], utilization per interval: "" (100
                                intervals), a count ("50") or a length with a unit ("10ms") */
    int tree;                /* modules, lightning: --tree, the hierarchy drawn with time bars */
    int hooks;               /* lightning: --hooks, the call tree of Lightning's hooks */
    int ascii;               /* --ascii (the CLI also sets it when the locale is not UTF-8):
                                drawings in ASCII, no box-drawing or block characters */
    int summary;             /* launches: --summary, statistics per runtime call and kernel */
    const char *need_columns;  /* the columns of the table the caller will read (a -c list), so
                                  that a view may leave the others out (NULL cells, no memory):
                                  the default view does; NULL: every column.  A view that
                                  builds another view's table for itself passes NULL on */
};

/* The registry of views, NULL-terminated. */
const tp_view *const *tp_views(void);
const tp_view *tp_view_find(const char *name);

/* Build view `v` from one linked store.  An Ascend store is built by the
 * view's NPU twin of the same name (views_npu.c) where there is one. */
int tp_view_build(const tp_view *v, const tp_store *st, const struct tp_view_opts *vo,
                  tp_table **out, tp_error *err);

/* The NPU twin of a view (same name, Ascend columns), or NULL. */
const tp_view *tp_view_npu_twin(const tp_view *v);

/* The view that tp_view_build really builds for this store: its NPU twin
 * for an Ascend store where it has one, else v itself (for its columns). */
const tp_view *tp_view_for_store(const tp_view *v, const tp_store *st);

/* Check a -c list against a view (or its NPU twin) before reading input. */
int tp_view_check_columns(const tp_view *v, const char *columns, tp_error *err);

/* The default column list for these options. */
const char *tp_view_default_columns(const tp_view *v, const struct tp_view_opts *vo);

/* The leanest load (tp_store_set_lean) the view can be built from, with
 * these options and the columns vo->need_columns (NULL: any):
 * TP_LEAN_NONE to TP_LEAN_KERNELS, leanest last.  tp_view_build refuses
 * (TP_ERR_USAGE) a store loaded leaner that left events out. */
enum { TP_LEAN_NEVER, TP_LEAN_WITHOUT_LAYER_TRACE, TP_LEAN_WITHOUT_OPTIONS };
int tp_view_lean_level(const tp_view *v, const struct tp_view_opts *vo);
/* The leanest load worth trying for the view with these options:
 * tp_view_lean_level's, or tp_view.lean_try's where it may build the same
 * table from it.  tp_view_serves says whether a store loaded so does; where
 * it does not, tp_view_build refuses it, and a caller loads the input
 * again at tp_view_lean_level (report does). */
int tp_view_lean_try(const tp_view *v, const struct tp_view_opts *vo);
/* 1 when tp_view_build builds view v from store st, as loaded, with these
 * options; 0 when st was loaded too lean for it. */
int tp_view_serves(const tp_view *v, const tp_store *st, const struct tp_view_opts *vo);

/* Print "key  Header  description" for every column of a view. */
void tp_view_print_columns(const tp_view *v, FILE *out);

/* 1 when view v has a column of this key, 0 otherwise (or on NULL). */
int tp_view_has_column(const tp_view *v, const char *key);
/* The key of view v's i-th column (0 <= i < v->ncols), or NULL. */
const char *tp_view_column_key(const tp_view *v, size_t i);

/* The options view v declares, *n of them (NULL and 0 for none or NULL);
 * for an NPU twin, those of the view of its name. */
const struct tp_view_option *tp_view_options(const tp_view *v, size_t *n);

/* The option `name` (without dashes) of view v, or NULL when v does not
 * declare it. */
const struct tp_view_option *tp_view_option_find(const tp_view *v, const char *name);

/* Set option `name` of view v in *vo from its argument (NULL for a flag):
 * TP_ERR_USAGE with "--comm: not an option of the kernels view (its options:
 * --group)" when v does not declare it, or "--max-queue: 'x' is not a
 * positive number" when the argument is not what the option takes. */
int tp_view_set_option(const tp_view *v, struct tp_view_opts *vo, const char *name, const char *arg,
                       tp_error *err);

/* Print "  --name ARG  help" for every option of a view (nothing when it
 * has none). */
void tp_view_print_options(const tp_view *v, FILE *out);

typedef struct tp_summ tp_summary;   /* exact mergeable summaries (below) */

/* ---- diff: two linked stores compared (tprof diff) ------------------------ */

/* The per-name table aggregates CPU ops (kind "op") and GPU kernels (kind
 * "kernel") of each store by name: calls and summed duration, joined on
 * (kind, name).  The category is HTA's ops_diff meaning, decided by the call
 * counts: added (only in B), deleted (only in A), increased / decreased (B is
 * called more / fewer times), unchanged (same count; the time may still
 * differ: see delta).  Rows are sorted by |delta| descending, then kind, name.
 *
 * The summary compares three totals, and the CI gate (--fail-above) compares
 * the average ProfilerStep time when both stores have steps, else the total
 * kernel time. */

/* The columns of the diff tables, as a view descriptor (name "diff"; no
 * build: the tables come from tp_diff_build and tp_diff_summary_table) for
 * tp_view_check_columns, tp_view_has_column, tp_view_default_columns and
 * tp_view_print_columns.  summary: 0 the per-name table, 1 the summary. */
const tp_view *tp_diff_view(int summary);

struct tp_diff_summary {
    int a_has_steps, b_has_steps;
    double a_step_ns, b_step_ns;     /* average ProfilerStep duration; 0 without steps */
    int64_t a_kernel_ns, b_kernel_ns;   /* sum of GPU kernel durations */
    int64_t a_op_ns, b_op_ns;        /* sum of top-level CPU op durations (ProfilerStep#N
                                        ops are not ops here; nested ops are not counted twice) */
};

/* --plot: draw t (a tp_diff_build table: its rows as a waterfall of the
 * biggest changes; or a tp_gate_waterfall table: parts, names under them,
 * the step time from zero) instead of printing it in the -w format.
 * TP_ERR_USAGE for any other table. */
int tp_diff_attach_plot(tp_table *t, tp_error *err);

/* The per-name comparison of two linked stores. */
int tp_diff_build(const tp_store *a, const tp_store *b, tp_table **out, tp_error *err);

/* The totals of two linked stores: TP_OK, or TP_ERR_USAGE on NULL (*s zeroed). */
int tp_diff_summarize(const tp_store *a, const tp_store *b, struct tp_diff_summary *s);

/* The same two from summaries (tp_summary_load_set: summary files of two
 * runs), so a CI gate needs no trace: the per-name table and the totals
 * are those of the runs' traces (each run as --merge sees it: the sums over
 * its ranks, the average over every step of every rank).  TP_ERR_FORMAT /
 * TP_ERR_USAGE when a summary lacks its diff section. */
int tp_diff_build_summaries(const tp_summary *a, const tp_summary *b, tp_table **out, tp_error *err);
int tp_diff_summarize_summaries(const tp_summary *a, const tp_summary *b, struct tp_diff_summary *s);

/* The summary as a table: avg_step_time (NULL cells when a store has no
 * steps), total_kernel_time, total_op_time. */
int tp_diff_summary_table(const struct tp_diff_summary *s, tp_table **out, tp_error *err);

/* The --fail-above threshold: "5%" (relative growth), "250us" / "1.5ms"
 * (absolute growth). */
struct tp_diff_gate {
    int percent;        /* 1: limit is a percentage; 0: limit is nanoseconds */
    double limit;
    char text[32];      /* as given, for the message */
};

/* Parse a threshold; TP_ERR_USAGE with a message when it is not one. */
int tp_diff_parse_gate(const char *s, struct tp_diff_gate *g, tp_error *err);

/* 1 when B regressed past the gate (msg then holds "avg step time 1234.5 us ->
 * 1400.0 us (+13.4%) exceeds 5%"), 0 otherwise (msg holds the same numbers
 * without the verdict, "" on NULL arguments). */
int tp_diff_check(const struct tp_diff_summary *s, const struct tp_diff_gate *g, char *msg,
                  size_t cap);

/* A JUnit XML report of the gate: one test case per quantity (the average
 * step time when both sides have steps, the total kernel time, the total op
 * time).  The gated one (the step time, else the kernel time: the one the
 * exit status is decided on) fails when it grew past the gate; the others
 * are named "(reported, not gated)" and carry their numbers only.  0, or -1
 * on a write error or NULL arguments. */
int tp_diff_junit(const struct tp_diff_summary *s, const struct tp_diff_gate *g, const char *a_name,
                  const char *b_name, FILE *out);

/* The TensorBoard plugin's Diff Run view (tprof diff --timeline): the two
 * first-thread operator trees walked side by side, run nodes (data loader,
 * module, optimizer step, ProfilerStep) matched in order by kind and name,
 * one row per node pair down to `depth` (0: the root alone) with host,
 * device and total time on each side, the delta and the running sum of the
 * delta over siblings.  TP_ERR_FORMAT when a store has no CPU operator. */
int tp_diff_timeline(const tp_store *a, const tp_store *b, int depth, tp_table **out, tp_error *err);
/* Its columns, as a view descriptor (for -c checks and help). */
const tp_view *tp_diff_timeline_view(void);

/* ---- the statistical regression gate: tprof diff --confidence P ----------- */

/* Each step's wall time is cut into parts -- computation, communication,
 * memcpy, host, idle -- and into pieces owned by events (kernels, copies,
 * operators, idle gaps); the change of the time per step and of each part
 * gets a bootstrap interval that redraws each name's pieces (a stratified
 * bootstrap: see diff_gate.c for why not a rank-sum test on step times).  A
 * quantity fails when its change exceeds the --fail-above gate and the
 * interval's lower end is above zero. */
typedef struct tp_gate tp_gate;

struct tp_gate_opts {
    double confidence;       /* 0 < P < 1: the interval's level (0.95) */
    int iterations;          /* bootstrap replicates; 0: 2000 */
    uint64_t seed;           /* 0: tprof's fixed seed (same inputs, same bytes) */
    size_t top;              /* names per part in the waterfall; 0: 3 */
};

/* "0.95" or "95%" into *p; TP_ERR_USAGE when it is not strictly between 0 and 1. */
int tp_gate_parse_confidence(const char *s, double *p, tp_error *err);

/* Compare two linked stores (their steps; a store without steps is one
 * step).  TP_ERR_USAGE on NULL or a bad level, TP_ERR_FORMAT when a store
 * has nothing to measure, TP_ERR_NOMEM. */
int tp_gate_compare(const tp_store *a, const tp_store *b, const struct tp_diff_gate *g,
                    const struct tp_gate_opts *o, tp_gate **out, tp_error *err);

/* One row per quantity: step_time, then the parts; A and B per step, the
 * delta, the interval and the verdict (regressed, within noise, improved, ok). */
int tp_gate_table(const tp_gate *gt, tp_table **out, tp_error *err);

/* The waterfall: per part its delta, the running sum (ending at the step-
 * time delta: the parts partition each step) and share, and under each part
 * the names that moved most. */
int tp_gate_waterfall(const tp_gate *gt, tp_table **out, tp_error *err);

/* 1 and msg ("host 12.0 us -> 541.0 us per step (+4408.3%; 95% interval
 * ...) exceeds 5%") when the i-th regressed quantity exists; 0 past the last. */
int tp_gate_failed(const tp_gate *gt, size_t i, char *msg, size_t cap);

/* JUnit XML: one test case per quantity.  0, or -1 on a write error or NULL. */
int tp_gate_junit(const tp_gate *gt, const char *a_name, const char *b_name, FILE *out);

/* The columns of the gate table (0) and of the waterfall (1), as view
 * descriptors for the column checks and help; the gate's default columns
 * show the interval in % for a % gate, in us for an absolute one. */
const tp_view *tp_gate_view(int waterfall);
const char *tp_gate_default_columns(const struct tp_diff_gate *g);

void tp_gate_free(tp_gate *gt);

/* ---- runs: a directory of ranks (lib/run.c) ------------------------------ */

/* A run directory holds one trace per rank: kineto files (*.pt.trace.json,
 * *.json, each optionally .gz or .zst; the TensorBoard plugin's
 * WORKER[.SPAN].pt.trace.json naming) and Ascend profiler folders (one folder
 * = one rank).  Other files and subdirectories are not ranks. */
typedef struct tp_run tp_run;

struct tp_run_rank {
    const char *path;        /* the trace file or Ascend folder */
    const char *worker;      /* the plugin's worker name (file name before [.SPAN].pt.trace.json) */
    const char *span;        /* the span (timestamp) of the file name; "" when none */
    int64_t rank;            /* distributedInfo.rank, else from the name (rank-N, rank_N,
                                workerN), else the lowest rank no other file claims */
    const char *rank_from;   /* "distributedInfo", "file name" or "order" */
    tp_store *store;         /* loaded and linked by tp_run_load; its rank is set */
    int status;              /* TP_OK, or why this rank failed (err); a failed rank whose
                                store holds events (a truncated trace) is still usable */
    tp_error err;
    int usable;              /* the store was linked and held events (or loaded cleanly):
                                set by tp_run_load and tp_run_reduce */
    /* tp_run_reduce only (the store is freed once reduced): */
    void *result;            /* what `reduce` made of the store; NULL when it did not run */
    /* what the run itself needs of a rank after its store is gone */
    int64_t declared_rank;   /* distributedInfo.rank, TP_NONE (INT64_MIN) when absent */
    int64_t *step_numbers;   /* its ProfilerStep numbers, in order */
    size_t nsteps;
};

/* 1 when path is a directory that is not itself an Ascend profiler folder. */
int tp_path_is_run(const char *path);

/* Find the ranks of a run directory; nothing is parsed yet.  span: NULL for
 * the first span of each worker (a note says so when a worker has several),
 * else a span as written in the file names or its 1-based index per worker
 * (the plugin's numbering).  TP_ERR_FORMAT when the directory holds no trace. */
int tp_run_open(tp_run **out, const char *dir, const char *span, tp_error *err);

/* Load and link every rank, up to `threads` at once (0: one per core), then
 * settle the ranks (ordered by rank; a second file claiming a taken rank
 * fails with a message naming both).  Returns TP_OK, or the status of the
 * first failed rank (every rank's own status is in tp_run_rank). */
int tp_run_load(tp_run *r, int threads, tp_error *err);

/* A run in bounded memory: load, link and reduce every rank, `threads` at
 * a time (0: one per core), then settle the ranks as tp_run_load does.
 * `reduce` runs in a loading thread (so it must be thread-safe) on each rank
 * whose store could be read: k->store is loaded and linked, k->status says
 * how the load went.  What it returns is kept as k->result, and the store is
 * freed at once, so memory is that of the ranks in flight plus the results,
 * whatever the number of ranks.  `drop` frees the result of a rank left out
 * while settling (a rank claimed twice).  Returns as tp_run_load. */
int tp_run_reduce(tp_run *r, int threads, void *(*reduce)(const struct tp_run_rank *k, void *ctx),
                  void (*drop)(void *result), void *ctx, tp_error *err);

size_t tp_run_size(const tp_run *r);
/* The rank a rank's file name gives (rank-N, rank_N, rankN, workerN, ...;
 * the first one in the name), -1 when it gives none: what tp_run_load
 * takes when the trace has no distributedInfo (tprof-mpi numbers the files
 * each process reads this way). */
int64_t tp_run_name_rank(const struct tp_run_rank *k);
/* Keep only the ranks of `list` ("0,2,5-7"): --rank.  Ranks are known once
 * their traces are read (distributedInfo), so tp_run_load / tp_run_reduce
 * drop the others after reading and fail with TP_ERR_USAGE on a rank the
 * run does not have; here, TP_ERR_USAGE for a malformed list. */
int tp_run_keep_ranks(tp_run *r, const char *list, tp_error *err);
/* Ranks whose load (and reduce) finished so far: safe to call from another
 * thread while tp_run_load or tp_run_reduce runs, for a progress line. */
size_t tp_run_ranks_done(const tp_run *r);
const struct tp_run_rank *tp_run_rank(const tp_run *r, size_t i);

/* Warnings about the run as "DIR: what\n" lines ("" when none): spans left
 * out, ranks that disagree on steps. */
const char *tp_run_notes(const tp_run *r);

/* Every usable rank in one linked store, for --merge and diff of runs: the
 * ranks are laid end to end in rank order (each rank's timeline shifted to
 * start where the previous one ended; correlation and external ids kept
 * apart), so per-name aggregates sum over ranks and the steps of every rank
 * are steps of the merged store.  Ascend ranks contribute their events, not
 * their NPU tables (the merged store is not an Ascend store). */
int tp_run_merge(const tp_run *r, tp_store **out, tp_error *err);

void tp_run_free(tp_run *r);

/* ---- a run's tables (lib/run/run_table.c) ---------------------------------- */

/* The file, rank and worker columns are columns of every view shown over a
 * run or with --with-file (rank and worker unless the view has its own rank
 * column): check a -c list against view v (or its NPU twin) with those
 * allowed.  TP_OK, or TP_ERR_USAGE. */
int tp_run_check_columns(const tp_view *v, const char *columns, tp_error *err);

/* Write the one table view v built of a whole run (build_run, or a --merge
 * store): o's columns without the run's own keys (rank, worker) when v has
 * no rank column, the view's default for vo when nothing else is left. */
int tp_run_write_table(const tp_view *v, const tp_table *t, const struct tp_output_opts *o,
                       const struct tp_view_opts *vo, FILE *out, tp_error *err);

/* The per-rank tables of a run as one table: one block of rows per rank,
 * the rank and worker columns in front unless the view has its own rank
 * column.  A block holds the tables of one view (that is, one column set);
 * ranks whose tables come from another view (an Ascend rank's NPU twin)
 * start a new block once this one is written. */
typedef struct tp_rank_table tp_rank_table;

/* A block for the tables of view v: the view they were built by, that is
 * tp_view_for_store(view, rank's store).  TP_OK, or TP_ERR_NOMEM/USAGE. */
int tp_rank_table_new(const tp_view *v, tp_rank_table **out, tp_error *err);

/* The view whose tables the block holds (NULL for NULL). */
const tp_view *tp_rank_table_view(const tp_rank_table *b);

/* --with-file: a block whose rows are those of several inputs (traces,
 * ranks of run directories, whole-run tables), each under its file: a
 * `file` column first (the input's path as given; a rank's trace path in
 * its run directory), then the rank (NULL for a trace's rows) when rows
 * came from ranks.  Every column key of the rank blocks, file included, is
 * also a column of a block made by tp_rank_table_new. */
int tp_rank_table_new_files(const tp_view *v, tp_rank_table **out, tp_error *err);

/* Append rank k's table t: its rows in the order o gives them one table
 * (the --sort keys that are columns of the view, then --name, then --top),
 * under k's rank, worker and trace path (file). */
int tp_rank_table_add(tp_rank_table *b, const struct tp_run_rank *k, const tp_table *t,
                      const struct tp_output_opts *o, tp_error *err);
/* The same for the table of one input that is not a rank (a trace, or the
 * one table of a whole run), under file `path`; its rank and worker NULL. */
int tp_rank_table_add_file(tp_rank_table *b, const char *path, const tp_table *t, const struct tp_output_opts *o,
                           tp_error *err);

/* Write the block: o's columns (else the view's default for vo), with rank
 * in front when the list names neither rank nor worker (worker left out
 * when the view has its own rank column but no worker), and for a
 * --with-file block the file before all (the rank only when rows came from
 * ranks), neither when the list names the file; --sort, --name and --top were applied
 * per rank (per input) by tp_rank_table_add. */
int tp_rank_table_write(const tp_rank_table *b, const struct tp_output_opts *o,
                        const struct tp_view_opts *vo, FILE *out, tp_error *err);

void tp_rank_table_free(tp_rank_table *b);

/* ---- exact mergeable summaries (lib/summary/) ------------------------------ */

/* What a view keeps of one trace, to be merged with other ranks' and read
 * back as the view's table: groups by key with integer counts and ns sums,
 * min, max, 128-bit sums of squares (the std merges exactly) and the sorted
 * run-length multiset of the durations (the exact median).  Merging is
 * associative and exact, so a run's table is the same bytes whichever way
 * its ranks are grouped (one process, a Slurm array, MPI).  Summarized:
 * kernels (--group name, props), ops (--group name, shape), steps, api,
 * labels, memops, nvtx, and diff's per-name totals. */
/* Where a summary (file) came from. */
struct tp_summary_meta {
    int64_t rank, world_size;      /* distributedInfo; INT64_MIN when absent */
    char host[256];                /* the machine that wrote the summary file */
    char source[4096];             /* the trace (file or folder) as it was named */
    int64_t source_size;           /* its bytes on disk (-1: a folder) */
    uint32_t source_crc32;         /* CRC-32 (zlib) of those bytes (0: a folder) */
    char tprof_version[32];        /* tprof that wrote it */
    int format_version;            /* of the summary file (TP_SUMMARY_FORMAT) */
    char run[1024];                /* the run directory the rank was read from ("" alone) */
    char *coverage;                /* the coverage lines (tp_store_coverage) of its ranks, one a
                                      line in rank order, NULL none */
};
#define TP_SUMMARY_FORMAT 1

/* 1 when view v with options vo is built from a mergeable summary (a
 * --merge of a run then merges the ranks' summaries), 0 otherwise. */
int tp_view_mergeable(const tp_view *v, const struct tp_view_opts *vo);

/* Summarize a linked store: every summarized view and variant when v is
 * NULL (a summary file), else what v with vo reads (TP_ERR_USAGE when it
 * has no summary). */
int tp_summary_build(const tp_store *st, const tp_view *v, const struct tp_view_opts *vo, tp_summary **out,
                     tp_error *err);

/* Merge `from` (the later ranks) into `into`; `from` is freed, whatever
 * the outcome.  Exact and associative: (a+b)+c and a+(b+c) are the same. */
int tp_summary_merge(tp_summary *into, tp_summary *from, tp_error *err);

/* View v's table (with options vo) of a summary; `path` (NULL: the first
 * rank's) names the input in the view's notes.  TP_ERR_FORMAT when the
 * summary lacks that view's section. */
int tp_summary_table(tp_summary *s, const tp_view *v, const struct tp_view_opts *vo, const char *path,
                     tp_table **out, tp_error *err);

/* The summary's metadata (its first rank's): rank, world_size, host and
 * run may be set before tp_summary_save (a run's settled rank numbers). */
struct tp_summary_meta *tp_summary_meta(tp_summary *s);

/* Write s as a summary file (SQLite; layout in tprof(1), SUMMARY FILES):
 * `source` is the trace it came from (its size and CRC-32 are taken now),
 * `run` the run directory it belongs to (NULL: none; the merged tables'
 * notes name it).  Written under a temporary name and renamed: a failure
 * leaves nothing. */
int tp_summary_save(tp_summary *s, const char *source, const char *run, const char *path, tp_error *err);

/* Set the rank a summary file says it holds (tprof summarize of a run
 * writes each file as its rank is read, with the rank its trace or name
 * gives, and corrects it once the run's ranks are settled). */
int tp_summary_file_set_rank(const char *path, int64_t rank, tp_error *err);

/* Read a summary file (opened read-only, immutable: nothing is written
 * beside it).  TP_ERR_FORMAT when it is not one or its version is newer. */
int tp_summary_load(const char *path, tp_summary **out, tp_error *err);

/* 1 when path is a summary file (an SQLite file named *.tpsum); 2 when it
 * is a directory whose files are all summary files (at least one); 0
 * otherwise. */
int tp_path_is_summary(const char *path);

/* Load summary files (a path may be a directory of them) and merge them in
 * rank order (files without a rank after, in the order given): the run
 * they summarize, as one summary. */
int tp_summary_load_set(const char *const *paths, size_t n, tp_summary **out, tp_error *err);
/* The same with the sections of one view alone ("kernels", "ops", "steps",
 * "diff", ...; NULL: all): what a --merge of that view needs, read in
 * memory bounded by one file and the merge. */
int tp_summary_load_set_view(const char *const *paths, size_t n, const char *view, tp_summary **out,
                             tp_error *err);

void tp_summary_free(tp_summary *s);

/* fn(ctx, i) for every i in [0, n), on up to `threads` threads (<= 0: one
 * per online CPU; never more than n), the calling thread one of them: each
 * takes the next i not yet taken, so they start in order.  Returns when all
 * have returned; where no thread starts, the calling thread runs them all. */
void tp_parallel(size_t n, int threads, void (*fn)(void *ctx, size_t i), void *ctx);

const char *tp_version(void);
/* "zstd 1.5.4, zlib 1.2.13, SQLite 3.40.1, libcsv 3.0.3": the libraries in use. */
const char *tp_library_versions(void);

#ifdef __cplusplus
}
#endif
#endif
