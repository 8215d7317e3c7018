/* tprof.c — the command: parse options, pick a view, load each input, print.
 * No analysis happens here.
 *
 * An input that is a directory (and not an Ascend profiler folder) is a run
 * of ranks (lib/run/): every view then prints one block of rows per rank
 * under one header, a `rank` column first (unless the view has its own;
 * the library builds the blocks, tp_rank_table); views that span ranks
 * (build_run, e.g. dist) get every rank at once, and --merge lays the ranks
 * end to end in one store and prints one table.
 *
 * --with-file gathers the rows of every input (trace, rank, whole-run
 * table) into one block under a file column, written once at the end: one
 * header, whatever the format.
 *
 * The CLI lives on the public header alone: options, input and output, the
 * command table; every table is built by the library. */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "capture.h"
#include "commands.h"
#include "options.h"
#include "progress.h"
#include "report.h"
#include "tprof.h"

/* Let a write say what it left out to keep the -w width (into buf). */
static void collect_note(struct tp_output_opts *o, char *buf, size_t cap)
{
    buf[0] = 0;
    o->note = buf;
    o->note_cap = cap;
}

/* What a write to stdout with options o returned: 0 (after the note of
 * what the width left out, if any), or 2 after a message (a reader that
 * went away ends quietly). */
static int written(int rc, const tp_error *werr, const struct tp_output_opts *o)
{
    if (rc == TP_OK) {
        if (o->note && o->note[0])
            fprintf(stderr, "tprof: width %d: left out %s to fit (choose columns with -c, or a wider -w)\n",
                    o->width, o->note);
        return 0;
    }
    if (werr->sys_errno == EPIPE)
        exit(0);
    fprintf(stderr, "tprof: %s\n", werr->msg);
    return 2;
}

static int write_table(const tp_table *t, const struct tp_output_opts *out)
{
    tp_error werr = {0};
    struct tp_output_opts o = *out;
    char left_out[512];
    collect_note(&o, left_out, sizeof left_out);
    return written(tp_table_write(t, &o, stdout, &werr), &werr, &o);
}

/* The exit status a view's table calls for (check: 1 warnings, 2 errors). */
static int table_status(const tp_view *v, const tp_table *t)
{
    return v->severity && t ? (int)v->severity(t) : 0;
}

/* Where the tables go.  first says whether the header is still to print,
 * and is cleared once a table was written (an input that fails prints
 * nothing, and the next one then carries the header); b is the block of
 * rows being gathered (a run's ranks; with --with-file, every input's). */
struct sink {
    int first;
    tp_rank_table *b;
};

/* The output options of the sink's next table: the header on the first
 * only, the note of what the width left out kept in left_out. */
static struct tp_output_opts sink_out(const struct sink *sk, const struct cli_options *o, char *left_out,
                                      size_t cap)
{
    struct tp_output_opts out = o->out;
    if (!sk->first)
        out.header = 0;
    collect_note(&out, left_out, cap);
    return out;
}

static int block_add(struct sink *sk, const tp_view *sv, const struct tp_run_rank *k, const char *path,
                     const tp_table *t, const struct cli_options *o);

/* A view's closing lines (key_averages' totals) on stderr, each after
 * `prefix` ("" or "PATH: "). */
static void print_footer(const tp_table *t, const char *prefix)
{
    for (const char *f = tp_table_footer(t), *nl; *f; f = nl + 1) {
        nl = strchr(f, '\n');
        fprintf(stderr, "tprof: %s%.*s\n", prefix, (int)(nl - f), f);
    }
}

/* The columns the output will read (-c, else the view's default), so that
 * the view may leave the others out (tp_view_opts.need_columns); NULL when
 * --sort, --name or --with-file may read any. */
static const char *needed_columns(const struct cli_options *o, const tp_view *v)
{
    if (o->with_file || o->out.sort || o->out.name_regex)
        return NULL;
    return o->out.columns ? o->out.columns : tp_view_default_columns(v, &o->vo);
}

/* The leanest load the view's output can come from (tp_store_set_lean); a
 * capture trace's replays are matched in full, and --step and --window cut
 * the trace by every event's time. */
static int lean_level(const struct cli_options *o)
{
    struct tp_view_opts vo = o->vo;
    vo.need_columns = needed_columns(o, o->view);
    return o->capture || o->vo.filter_steps || o->vo.filter_window ? TP_LEAN_NONE : tp_view_lean_level(o->view, &vo);
}

/* One input (a trace): its table printed, or with --with-file added to the
 * block. */
static int run_one(const struct cli_options *o, const char *path, struct sink *sk)
{
    int status = 0;
    tp_error err = {0};
    tp_store *st = tp_store_new();
    if (!st) {
        fprintf(stderr, "tprof: out of memory\n");
        return 2;
    }
    if (o->view->kernel_scope)
        tp_store_set_kernel_scope(st);   /* the prof view reads no other rows of a dump */
    tp_store_set_lean(st, lean_level(o));   /* nor the events the view does not read */
    if (!o->capture && !o->vo.filter_steps && !o->vo.filter_window)
        tp_store_set_lazy(st);   /* the view alone reads it: a .tprof inflates what the view reads */
    cli_progress_begin(path, cli_input_size(path, NULL), NULL, o->quiet);
    int rc = tp_store_load(st, path, &err);
    if (rc != TP_OK) {
        /* A truncated trace still gives the rows of its complete events;
         * so does one that ran out of memory or failed to read midway. */
        if (rc != TP_ERR_TRUNCATED && rc != TP_ERR_FORMAT && tp_store_event_count(st) == 0) {
            cli_progress_end();
            fprintf(stderr, "tprof: %s\n", err.msg);
            tp_store_free(st);
            return 2;
        }
        status = 2;
    }
    tp_error lerr = {0};
    tp_table *t = NULL;
    int linked = tp_store_link(st, &lerr) == TP_OK;
    cli_progress_end();
    if (linked && o->capture && cli_attach_capture(st, o->capture))
        status = 2;
    if (linked && (o->vo.filter_steps || o->vo.filter_window)) {
        /* --step / --window: the view reads the slice as a whole trace */
        tp_store *slice = NULL;
        if (tp_store_filter(st, o->vo.filter_steps, o->vo.filter_window, &slice, &lerr) != TP_OK) {
            fprintf(stderr, "tprof: %s\n", lerr.msg);
            tp_store_free(st);
            return 2;
        }
        tp_store_free(st);
        st = slice;
    }
    /* the columns the output will read (-c, else the view's default), so
     * that the view may leave the others out; --sort and --name read
     * their own */
    struct tp_view_opts vo = o->vo;
    vo.need_columns = needed_columns(o, tp_view_for_store(o->view, st));
    if (!linked || tp_view_build(o->view, st, &vo, &t, &lerr) != TP_OK) {
        fprintf(stderr, "tprof: %s\n", lerr.msg);
        status = 2;
    } else if ((tp_store_event_count(st) > 0 || status == 0) && o->with_file) {
        if (table_status(o->view, t) > status)
            status = table_status(o->view, t);
        if (block_add(sk, tp_view_for_store(o->view, st), NULL, path, t, o))
            status = 2;
        if (!o->quiet) {   /* the block prints no footer: each input's, named */
            char prefix[1100];
            snprintf(prefix, sizeof prefix, "%s: ", path);
            print_footer(t, prefix);
        }
    } else if (tp_store_event_count(st) > 0 || status == 0) {
        struct tp_output_opts out = o->out;
        if (!out.columns)
            out.columns = tp_table_default_columns(t);
        if (!out.columns) {
            const tp_view *v = tp_view_for_store(o->view, st);
            out.columns = tp_view_default_columns(v, &o->vo);
        }
        if (!sk->first)
            out.header = 0;
        if (table_status(o->view, t) > status)
            status = table_status(o->view, t);
        sk->first = 0;
        if (write_table(t, &out)) {
            tp_table_free(t);
            tp_store_free(st);
            return 2;
        }
        /* a view's closing lines (key_averages' totals): under the table in
         * the -w format, which printed them; on stderr for the others, so
         * that CSV, JSON and awk input stay one table */
        if (!o->quiet && !(out.format == TP_FMT_COLUMNS && out.width > 0))
            print_footer(t, "");
    }
    fflush(stdout);
    /* the load's own error first (a view's failure was said above): a note
     * such as "file not found" may only be its consequence */
    if (status && err.msg[0] && lerr.status == TP_OK)
        fprintf(stderr, "tprof: %s\n", err.msg);
    if (lerr.status == TP_OK && lerr.msg[0] && !o->quiet)   /* a view's note: what it could not show */
        fprintf(stderr, "tprof: %s\n", lerr.msg);
    if (status && err.msg[0] && lerr.status != TP_OK)
        fprintf(stderr, "tprof: %s\n", err.msg);
    if (cli_report_skips(st))
        status = 2;
    /* the attribution line last: what went wrong with the input comes first */
    if (t && !o->quiet && tp_view_attributes(o->view, &o->vo))
        cli_report_coverage(st);
    tp_table_free(t);
    tp_store_free(st);
    return status;
}

/* ---- run directories ---- */

/* Write the block of rows and free it; 0 or 2. */
static int block_flush(struct sink *sk, const struct cli_options *o)
{
    if (!sk->b)
        return 0;
    tp_error werr = {0};
    char left_out[512];
    struct tp_output_opts out = sink_out(sk, o, left_out, sizeof left_out);
    int rc = written(tp_rank_table_write(sk->b, &out, &o->vo, stdout, &werr), &werr, &out);
    sk->first = 0;
    tp_rank_table_free(sk->b);
    sk->b = NULL;
    return rc;
}

/* The block for the tables of view sv, writing the block first when it
 * holds another view's rows; 0, or 2 after a message. */
static int block_for(struct sink *sk, const tp_view *sv, const struct cli_options *o)
{
    int status = 0;
    tp_error err = {0};
    if (sk->b && tp_rank_table_view(sk->b) != sv) {
        if (block_flush(sk, o))
            status = 2;
        if (o->with_file)   /* other columns: they need their own header */
            sk->first = 1;
    }
    int rc = sk->b ? TP_OK : o->with_file ? tp_rank_table_new_files(sv, &sk->b, &err)
                                          : tp_rank_table_new(sv, &sk->b, &err);
    if (rc != TP_OK) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        return 2;
    }
    return status;
}

/* Add the table t (built by view sv) of rank k, or with --with-file of
 * input `path` (k NULL: a trace, or a whole run), to the block; 0, or 2
 * after a message. */
static int block_add(struct sink *sk, const tp_view *sv, const struct tp_run_rank *k, const char *path,
                     const tp_table *t, const struct cli_options *o)
{
    int status = block_for(sk, sv, o);
    tp_error err = {0};
    if (!sk->b)
        return 2;
    int rc = k ? tp_rank_table_add(sk->b, k, t, &o->out, &err) : tp_rank_table_add_file(sk->b, path, t, &o->out, &err);
    if (rc != TP_OK) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        status = 2;
    }
    return status;
}

/* ---- per-rank views in bounded memory ---- */

/* What a per-rank view keeps of one rank once its store is freed. */
struct rank_out {
    tp_table *t;              /* the rank's table, NULL when the view failed */
    const tp_view *sv;        /* the view whose columns t has (an NPU twin, or the view) */
    tp_error err;             /* the view's failure, or its note */
    char *skips;              /* the malformed-input lines of the rank's load */
    size_t nskips;
    int malformed;
    char *coverage;           /* the attribution line (tp_store_coverage), NULL none */
    void *sum;                /* a view with rank_summary: the rank's summary instead of t */
    void (*sum_free)(void *);
    tp_summary *s;            /* --merge of a summarized view: the rank's exact summary (NULL: failed) */
    int eager;                /* s was merged as it came (struct eager) */
};

/* --merge by summaries merges each rank's summary as soon as every lower
 * rank's is merged, so memory holds the merge and the ranks that came early
 * instead of every rank's summary (1,024 DLRM ranks: 104 MB).  Ranks go by
 * the number their trace or name gives, which is what the run settles on
 * unless two files claim one rank: the left-out file's summary may already
 * be merged then, and the run is read again without merging early. */
static struct eager {
    pthread_mutex_t lock;
    int on, broken, failed;
    int64_t next;             /* the rank the merge waits for */
    tp_summary *m;            /* ranks 0 .. next-1 */
    struct pending { int64_t rank; struct rank_out *ro; } *p;
    size_t np, cap;
    tp_error err;
} g_eager = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void eager_reset(int on)
{
    tp_summary_free(g_eager.m);
    free(g_eager.p);
    g_eager.m = NULL, g_eager.p = NULL, g_eager.np = g_eager.cap = 0;
    g_eager.on = on, g_eager.broken = g_eager.failed = 0, g_eager.next = 0;
}

/* In a loading thread: offer rank k's summary to the merge. */
static void eager_offer(const struct tp_run_rank *k, struct rank_out *ro)
{
    int64_t rank = tp_store_rank(k->store);
    if (rank < 0)
        rank = tp_run_name_rank(k);
    if (rank < 0 || !ro->s)
        return;
    pthread_mutex_lock(&g_eager.lock);
    if (g_eager.np == g_eager.cap) {
        size_t cap = g_eager.cap ? 2 * g_eager.cap : 16;
        struct pending *q = realloc(g_eager.p, cap * sizeof *q);
        if (!q) {
            pthread_mutex_unlock(&g_eager.lock);
            return;   /* kept by the rank: merged at the end */
        }
        g_eager.p = q, g_eager.cap = cap;
    }
    tp_summary_meta(ro->s)->rank = rank;   /* the rank the run settles for it (dist's notes) */
    g_eager.p[g_eager.np++] = (struct pending){rank, ro};
    for (int found = 1; found && !g_eager.failed;) {
        found = 0;
        for (size_t i = 0; i < g_eager.np; i++) {
            if (g_eager.p[i].rank != g_eager.next)
                continue;
            struct rank_out *x = g_eager.p[i].ro;
            g_eager.p[i] = g_eager.p[--g_eager.np];
            tp_summary *s = x->s;
            x->s = NULL;
            x->eager = 1;
            if (!g_eager.m)
                g_eager.m = s;
            else if (tp_summary_merge(g_eager.m, s, &g_eager.err) != TP_OK)
                g_eager.failed = 1;
            g_eager.next++;
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&g_eager.lock);
}

static void drop_rank(void *p)
{
    struct rank_out *ro = p;
    if (!ro)
        return;
    if (ro->eager && g_eager.on)
        g_eager.broken = 1;   /* a rank the run left out was merged already */
    tp_table_free(ro->t);
    if (ro->sum && ro->sum_free)
        ro->sum_free(ro->sum);
    free(ro->skips);
    free(ro->coverage);
    tp_summary_free(ro->s);
    free(ro);
}

/* 1 when --merge of this view merges the ranks' exact summaries (tp_summary)
 * rather than laying them end to end or reading them all (build_run: dist),
 * which TPROF_MERGE_CONCAT=1 keeps and the golden tests compare them with. */
static int merges_summaries(const struct cli_options *o)
{
    const char *concat = getenv("TPROF_MERGE_CONCAT");
    return o->vo.merge && !o->view->rank_summary && tp_view_mergeable(o->view, &o->vo) &&
           !(concat && *concat == '1');
}

/* In a loading thread: the view's table of one rank (views only read the
 * store and keep their sort context thread-local, so ranks build in
 * parallel). */
static void *reduce_rank(const struct tp_run_rank *k, void *ctx)
{
    const struct cli_options *o = ctx;
    struct rank_out *ro = calloc(1, sizeof *ro);
    if (!ro)
        return NULL;
    FILE *f = open_memstream(&ro->skips, &ro->nskips);
    if (f) {
        ro->malformed = cli_report_skips_to(k->store, f);
        fclose(f);
    }
    const tp_store *st = k->store;
    tp_store *slice = NULL;
    if ((o->vo.filter_steps || o->vo.filter_window) &&
        tp_store_filter(st, o->vo.filter_steps, o->vo.filter_window, &slice, &ro->err) != TP_OK)
        return ro;   /* ro->t NULL: the rank's message is ro->err */
    if (slice)
        st = slice;
    if (merges_summaries(o)) {   /* run_dir_summ: the summary, merged in rank order */
        if (tp_summary_build(st, o->view, &o->vo, &ro->s, &ro->err) != TP_OK)
            ro->s = NULL;
        tp_store_free(slice);
        if (g_eager.on)
            eager_offer(k, ro);
        return ro;
    }
    ro->sv = tp_view_for_store(o->view, st);
    if (o->view->rank_summary) {   /* a view of the whole run: the rank's summary alone */
        ro->sum = o->view->rank_summary(st, &o->vo, &ro->err);
        ro->sum_free = o->view->summary_free;
    } else if (tp_view_build(o->view, st, &o->vo, &ro->t, &ro->err) != TP_OK) {
        ro->t = NULL;
    }
    char line[2048];
    if (tp_view_attributes(o->view, &o->vo) && tp_store_coverage(st, line, sizeof line))
        ro->coverage = strdup(line);
    tp_store_free(slice);
    return ro;
}

/* The one table of a whole run (build_run, --merge, build_summaries): added
 * to the --with-file block under the run's path, or written.  Frees t;
 * returns status, raised by the table's severity or a write error. */
static int put_run_table(const struct cli_options *o, const tp_view *v, const char *path, tp_table *t,
                         struct sink *sk, int status)
{
    if (table_status(v, t) > status)
        status = table_status(v, t);
    if (o->with_file) {
        if (block_add(sk, v, NULL, path, t, o))
            status = 2;
        tp_table_free(t);
        return status;
    }
    tp_error werr = {0};
    char left_out[512];
    struct tp_output_opts out = sink_out(sk, o, left_out, sizeof left_out);
    if (written(tp_run_write_table(v, t, &out, &o->vo, stdout, &werr), &werr, &out))
        status = 2;
    sk->first = 0;
    tp_table_free(t);
    return status;
}

/* A view of the whole run from its ranks' summaries (rank_summary): one
 * table, written as run_dir writes a build_run table. */
static int run_summaries(const struct cli_options *o, tp_run *r, const char *path, struct sink *sk, int status)
{
    size_t n = tp_run_size(r), nsum = 0;
    void **sums = calloc(n ? n : 1, sizeof *sums);
    int64_t *ranks = calloc(n ? n : 1, sizeof *ranks);
    if (!sums || !ranks) {
        free(sums);
        free(ranks);
        fprintf(stderr, "tprof: out of memory\n");
        return 2;
    }
    for (size_t i = 0; i < n; i++) {
        const struct tp_run_rank *k = tp_run_rank(r, i);
        const struct rank_out *ro = k->usable ? k->result : NULL;
        if (ro && !ro->sum) {
            fprintf(stderr, "tprof: %s (rank %lld)\n", ro->err.msg, (long long)k->rank);
            status = 2;
        } else if (ro) {
            sums[nsum] = ro->sum;
            ranks[nsum++] = k->rank;
        }
    }
    tp_table *t = NULL;
    tp_error err = {0};
    if (o->view->build_summaries(sums, ranks, nsum, &o->vo, &t, &err) != TP_OK) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        status = 2;
    } else {
        if (err.msg[0] && !o->quiet)
            fprintf(stderr, "tprof: %s\n", err.msg);   /* a view's note */
        status = put_run_table(o, o->view, path, t, sk, status);
    }
    fflush(stdout);
    free(sums);
    free(ranks);
    return status;
}

/* What a reduced rank k left (NULL when it is not usable or ran out of
 * memory), after its messages: its load's failure, its malformed input;
 * *status is raised to 2 for those. */
static const struct rank_out *rank_result(const struct tp_run_rank *k, int *status)
{
    if (k->status != TP_OK)
        fprintf(stderr, "tprof: %s (rank %lld)\n", k->err.msg, (long long)k->rank);
    if (!k->usable)
        return NULL;
    const struct rank_out *ro = k->result;
    if (!ro) {
        fprintf(stderr, "tprof: %s: out of memory (rank %lld)\n", k->path, (long long)k->rank);
        *status = 2;
        return NULL;
    }
    if (ro->nskips)
        fwrite(ro->skips, 1, ro->nskips, stderr);
    if (ro->malformed)
        *status = 2;
    return ro;
}

/* Read and reduce every rank (reduce_rank: its table, its rank_summary, or
 * with --merge its exact summary), `threads` at a time, each store freed
 * once reduced.  The status so far (0 or 2), or -1 after the message when
 * --rank named a rank the run does not have. */
static int reduce_run(const struct cli_options *o, tp_run *r, const char *path)
{
    tp_error err = {0};
#ifdef M_MMAP_THRESHOLD
    /* glibc raises its mmap threshold each time a big block is freed, so the
     * columns of the second rank onwards come from the heap and stay there
     * when their store is freed: 16 ranks of a 35 MB trace peaked at 70 MB
     * (4.1 times one rank) instead of 44 MB (2.6 times) with a fixed one. */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
    cli_progress_begin(path, cli_input_size(path, r), r, o->quiet);
    int lrc = tp_run_reduce(r, cli_threads(), reduce_rank, drop_rank, (void *)o, &err);
    cli_progress_end();
    if (lrc == TP_ERR_USAGE) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        return -1;
    }
    return lrc != TP_OK ? 2 : 0;
}

/* A view that is built rank by rank, without --merge: each rank is loaded,
 * its table built and its store freed, `threads` at a time, so a run of
 * any number of ranks needs the memory of the ranks in flight plus their
 * tables.  Prints what run_dir prints, in the same order. */
static int run_dir_stream(const struct cli_options *o, tp_run *r, const char *path, struct sink *sk)
{
    int status = reduce_run(o, r, path);
    if (status < 0)
        return 2;
    size_t n = tp_run_size(r), nuse = 0;
    for (size_t i = 0; i < n; i++)
        if (rank_result(tp_run_rank(r, i), &status))
            nuse++;
    if (!o->quiet) {
        cli_report_notes(tp_run_notes(r));
        for (size_t i = 0; i < n; i++) {
            const struct tp_run_rank *k = tp_run_rank(r, i);
            const struct rank_out *ro = k->usable ? k->result : NULL;
            if (ro && ro->coverage)
                fprintf(stderr, "tprof: %s\n", ro->coverage);
        }
    }
    if (!nuse) {
        fprintf(stderr, "tprof: %s: no rank could be read\n", path);
        return 2;
    }
    if (o->view->rank_summary)
        return run_summaries(o, r, path, sk, status);
    for (size_t i = 0; i < n; i++) {
        const struct tp_run_rank *k = tp_run_rank(r, i);
        const struct rank_out *ro = k->usable ? k->result : NULL;
        if (!ro)
            continue;
        if (!ro->t) {
            fprintf(stderr, "tprof: %s (rank %lld)\n", ro->err.msg, (long long)k->rank);
            status = 2;
            continue;
        }
        if (table_status(o->view, ro->t) > status)
            status = table_status(o->view, ro->t);
        if (ro->err.msg[0] && !o->quiet)   /* a view's note: the rank's table is still printed */
            fprintf(stderr, "tprof: %s (rank %lld)\n", ro->err.msg, (long long)k->rank);
        if (block_add(sk, ro->sv, k, NULL, ro->t, o))
            status = 2;
    }
    if (!o->with_file && block_flush(sk, o))   /* --with-file: main writes the block once */
        status = 2;
    fflush(stdout);
    return status;
}

/* ---- --merge through exact summaries ---- */

/* Print the table of a merged summary (the coverage lines of its ranks
 * first, then the view's note); `label` (NULL: the first rank's trace)
 * names the run in the notes and in --with-file's file column.  0 or 2. */
static int write_merged(const struct cli_options *o, tp_summary *m, const char *label, struct sink *sk)
{
    tp_error err = {0};
    tp_table *t = NULL;
    if (!o->quiet && tp_view_attributes(o->view, &o->vo))
        cli_report_notes(tp_summary_meta(m)->coverage);
    if (tp_summary_table(m, o->view, &o->vo, label, &t, &err) != TP_OK) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        return 2;
    }
    if (err.msg[0] && !o->quiet)
        fprintf(stderr, "tprof: %s\n", err.msg);   /* a view's note */
    int status = put_run_table(o, o->view, label ? label : tp_summary_meta(m)->source, t, sk, 0);
    fflush(stdout);
    return status;
}

/* 1 when a rank of the run is a folder (Ascend: its NPU views read the
 * folder's own tables, per rank). */
static int has_folders(const tp_run *r)
{
    for (size_t i = 0; i < tp_run_size(r); i++) {
        struct stat sb;
        if (stat(tp_run_rank(r, i)->path, &sb) == 0 && S_ISDIR(sb.st_mode))
            return 1;
    }
    return 0;
}

/* --merge of a run by summaries: each rank is loaded, summarized and freed,
 * `threads` at a time, and the summaries merged in rank order: memory is
 * that of the ranks in flight plus the summaries.  Prints what the
 * concatenated store (run_dir below, TPROF_MERGE_CONCAT=1) prints. */
static int run_dir_summ(const struct cli_options *o, tp_run *r, const char *path, struct sink *sk, int early)
{
    tp_error err = {0};
    eager_reset(early);
    int status = reduce_run(o, r, path);
    if (status < 0) {
        eager_reset(0);
        return 2;
    }
    if (g_eager.broken || g_eager.failed)
        return -3;   /* read again, merging at the end (run_dir) */
    size_t n = tp_run_size(r);
    tp_summary *m = g_eager.m;   /* the ranks merged as they came, the lowest */
    g_eager.m = NULL;
    eager_reset(0);
    for (size_t i = 0; i < n; i++) {
        const struct tp_run_rank *k = tp_run_rank(r, i);
        struct rank_out *ro = (struct rank_out *)rank_result(k, &status);
        if (ro && ro->eager)
            continue;
        if (ro && !ro->s) {
            fprintf(stderr, "tprof: %s (rank %lld)\n", ro->err.msg, (long long)k->rank);
            status = 2;
        }
        if (!ro || !ro->s)
            continue;
        tp_summary *s = ro->s;   /* merged into m: the rank's result no longer holds it */
        ro->s = NULL;
        tp_summary_meta(s)->rank = k->rank;   /* settled now */
        if (!m)
            m = s;
        else if (tp_summary_merge(m, s, &err) != TP_OK) {
            fprintf(stderr, "tprof: %s\n", err.msg);
            tp_summary_free(m);
            return 2;
        }
    }
    if (!o->quiet)
        cli_report_notes(tp_run_notes(r));
    if (!m) {
        fprintf(stderr, "tprof: %s: no rank could be read\n", path);
        return 2;
    }
    char label[1024];
    snprintf(label, sizeof label, "%s", path);   /* the run as tp_run_merge names it */
    for (size_t l = strlen(label); l > 1 && label[l - 1] == '/';)
        label[--l] = 0;
    int rc = write_merged(o, m, label, sk);
    tp_summary_free(m);
    return rc > status ? rc : status;
}

/* --merge of summary files (tprof summarize): a directory of them, or the
 * files given; merged in rank order, printed as the run's --merge. */
static int run_summary_files(const struct cli_options *o, char **paths, size_t n, struct sink *sk)
{
    tp_error err = {0};
    tp_summary *m = NULL;
    if (!tp_view_mergeable(o->view, &o->vo)) {
        fprintf(stderr, "tprof: %s: summary files hold the kernels, ops, steps, api, labels, memops, nvtx, "
                "temporal, kernel-types, overlap, idle, memory, dist and launches --summary tables (kernels --short, ops --group category, "
                "memory --events/--curve read traces): read the traces\n", paths[0]);
        return 2;
    }
    if (o->vo.filter_steps || o->vo.filter_window) {
        fprintf(stderr, "tprof: %s: --step and --window slice traces; a summary file holds its whole trace\n",
                paths[0]);
        return 2;
    }
    if (tp_summary_load_set_view((const char *const *)paths, n, o->view->name, &m, &err) != TP_OK) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        return 2;
    }
    const char *run = tp_summary_meta(m)->run;
    int rc = write_merged(o, m, run[0] ? run : NULL, sk);
    tp_summary_free(m);
    return rc;
}

static int run_dir(const struct cli_options *o, const char *path, struct sink *sk)
{
    tp_error err = {0};
    tp_run *r = NULL;
    if (o->capture)
        fprintf(stderr, "tprof: %s: --capture applies to a single trace, not to a run directory: left out\n", path);
    if (tp_run_open(&r, path, o->vo.span, &err) != TP_OK ||
        (o->ranks && tp_run_keep_ranks(r, o->ranks, &err) != TP_OK)) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        tp_run_free(r);
        return 2;
    }
    /* per-rank views, and views of the run made of per-rank summaries,
     * read the run in bounded memory */
    if ((!o->view->build_run && !o->vo.merge) || o->view->rank_summary) {
        int rc = run_dir_stream(o, r, path, sk);
        tp_run_free(r);
        return rc;
    }
    /* --merge of a view that summarizes: merged summaries, in bounded memory
     * (Ascend folders: their NPU views, per rank) */
    if (merges_summaries(o) && !has_folders(r)) {
        /* --rank drops ranks once read: merged early, they would stay */
        int rc = run_dir_summ(o, r, path, sk, !o->ranks);
        tp_run_free(r);
        if (rc == -3) {   /* a rank claimed twice: again, merging at the end */
            eager_reset(0);
            if (tp_run_open(&r, path, o->vo.span, &err) != TP_OK) {
                fprintf(stderr, "tprof: %s\n", err.msg);
                return 2;
            }
            rc = run_dir_summ(o, r, path, sk, 0);
            tp_run_free(r);
        }
        return rc;
    }
    cli_progress_begin(path, cli_input_size(path, r), r, o->quiet);
    int lrc = tp_run_load(r, cli_threads(), &err);
    cli_progress_end();
    if (lrc == TP_ERR_USAGE) {   /* --rank named a rank the run does not have */
        fprintf(stderr, "tprof: %s\n", err.msg);
        tp_run_free(r);
        return 2;
    }
    int status = lrc != TP_OK ? 2 : 0;
    size_t n = tp_run_size(r), nuse = 0;
    const tp_store **stores = calloc(n ? n : 1, sizeof *stores);
    const struct tp_run_rank **ranks = calloc(n ? n : 1, sizeof *ranks);
    tp_store **slices = NULL;   /* --step / --window of a view that spans ranks */
    if (!stores || !ranks) {
        fprintf(stderr, "tprof: out of memory\n");
        free(stores);
        free(ranks);
        tp_run_free(r);
        return 2;
    }
    int any_ascend = 0, npu = 0;   /* an Ascend rank; one whose view is an NPU twin */
    for (size_t i = 0; i < n; i++) {
        const struct tp_run_rank *k = tp_run_rank(r, i);
        if (k->status != TP_OK)
            fprintf(stderr, "tprof: %s (rank %lld)\n", k->err.msg, (long long)k->rank);
        if (!k->usable || !k->store)
            continue;
        if (cli_report_skips(k->store))
            status = 2;
        any_ascend |= tp_store_is_ascend(k->store);
        npu |= tp_view_for_store(o->view, k->store) != o->view;
        stores[nuse] = k->store;
        ranks[nuse++] = k;
    }
    if (!o->quiet) {
        cli_report_notes(tp_run_notes(r));
        for (size_t i = 0; i < nuse && tp_view_attributes(o->view, &o->vo); i++)
            cli_report_coverage(stores[i]);
    }
    if (!nuse) {
        fprintf(stderr, "tprof: %s: no rank could be read\n", path);
        status = 2;
        goto done;
    }
    const tp_view *v = o->view;
    tp_table *t = NULL;
    if (v->build_run && !npu && (o->vo.filter_steps || o->vo.filter_window)) {
        /* --step / --window: every rank's slice, as a view of one trace reads it */
        slices = calloc(nuse, sizeof *slices);
        for (size_t i = 0; slices && i < nuse; i++) {
            err = (tp_error){0};
            if (tp_store_filter(stores[i], o->vo.filter_steps, o->vo.filter_window, &slices[i], &err) != TP_OK) {
                fprintf(stderr, "tprof: %s (rank %lld)\n", err.msg, (long long)ranks[i]->rank);
                status = 2;
                goto done;
            }
            stores[i] = slices[i];
        }
        if (!slices) {
            fprintf(stderr, "tprof: out of memory\n");
            status = 2;
            goto done;
        }
    }
    if (v->build_run && !npu) {
        /* a view that spans ranks: one table from every rank */
        err = (tp_error){0};
        if (v->build_run(stores, nuse, &o->vo, &t, &err) != TP_OK) {
            fprintf(stderr, "tprof: %s\n", err.msg);
            status = 2;
            goto done;
        }
        if (err.msg[0] && !o->quiet)
            fprintf(stderr, "tprof: %s\n", err.msg);   /* a view's note */
    } else if (o->vo.merge && any_ascend) {
        /* the NPU views read each folder's own tables: per rank after all */
        fprintf(stderr, "tprof: %s: Ascend ranks are not merged into one table; shown per rank\n", path);
    } else if (o->vo.merge) {
        /* Ranks laid end to end add up for counting views; a timeline view
         * (busy, idle, overlap) would see each GPU idle while the other
         * ranks run. */
        if (v->timeline && tp_view_mergeable(v, &o->vo))   /* TPROF_MERGE_CONCAT=1 asked for it */
            fprintf(stderr, "tprof: %s: TPROF_MERGE_CONCAT=1 lays the ranks end to end: %s's times are a "
                    "timeline measure; without it --merge sums each rank's own\n", path, v->name);
        else if (v->timeline)
            fprintf(stderr, "tprof: %s: --merge lays the ranks end to end: %s's times are a timeline "
                    "measure; read them per rank (without --merge)\n", path, v->name);
        tp_store *m = NULL;
        int rc = tp_run_merge(r, &m, &err);
        if (rc == TP_OK) {
            rc = tp_view_build(v, m, &o->vo, &t, &err);
            tp_store_free(m);
            if (rc == TP_OK && err.msg[0] && !o->quiet)
                fprintf(stderr, "tprof: %s\n", err.msg);   /* a view's note */
        }
        if (rc != TP_OK) {
            fprintf(stderr, "tprof: %s\n", err.msg);
            status = 2;
            goto done;
        }
    }
    if (t) {
        status = put_run_table(o, v, path, t, sk, status);
        goto done;
    }
    /* one block of rows per rank */
    for (size_t i = 0; i < nuse; i++) {
        const tp_store *st = stores[i];
        const tp_view *sv = tp_view_for_store(v, st);
        tp_table *rt = NULL;
        err = (tp_error){0};
        if (tp_view_build(v, st, &o->vo, &rt, &err) != TP_OK) {
            fprintf(stderr, "tprof: %s (rank %lld)\n", err.msg, (long long)ranks[i]->rank);
            status = 2;
            continue;
        }
        if (table_status(v, rt) > status)
            status = table_status(v, rt);
        if (err.msg[0] && !o->quiet)   /* a view's note: the rank's table is still printed */
            fprintf(stderr, "tprof: %s (rank %lld)\n", err.msg, (long long)ranks[i]->rank);
        if (block_add(sk, sv, ranks[i], NULL, rt, o))
            status = 2;
        tp_table_free(rt);
    }
    if (!o->with_file && block_flush(sk, o))
        status = 2;
done:
    fflush(stdout);
    for (size_t i = 0; slices && i < nuse; i++)
        tp_store_free(slices[i]);
    free(slices);
    free(stores);
    free(ranks);
    tp_run_free(r);
    return status;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);   /* a closed pipe is a write error we end on quietly */
    const struct cli_command *cmd = argc > 1 ? cli_command_find(argv[1]) : NULL;
    if (cmd && cmd->run)   /* a subcommand (diff, import, report, help) parses its own options */
        return cmd->run(argc - 1, argv + 1);
    struct cli_options o;
    int rc = cli_parse(argc, argv, &o);
    if (rc)
        return rc;
    if (o.version) {
        printf("tprof %s (%s)\n", tp_version(), tp_library_versions());
        return 0;
    }
    if (o.help) {
        cli_help(o.view, o.view_named, stdout);
        return 0;
    }
    static char *stdin_only[] = {"-", NULL};
    if (o.ninputs == 0 && !isatty(STDIN_FILENO)) {
        o.inputs = stdin_only;   /* `tprof < net.dict`, as prof.py reads its stdin */
        o.ninputs = 1;
    }
    if (o.ninputs == 0) {
        fprintf(stderr, "tprof: no input file (use - for stdin)\nTry 'tprof --help'.\n");
        return 2;
    }
    if (!o.format_chosen && isatty(STDOUT_FILENO)) {
        o.out.format = TP_FMT_COLUMNS;
        o.out.width = o.vo.width = cli_terminal_width();   /* what views that draw (--tree, --plot) fill */
        o.vo.columnated = 1;
    } else if (!o.format_chosen && o.vo.plot) {
        o.out.format = TP_FMT_COLUMNS;   /* --plot into a pipe: drawn 80 wide, without colour */
        o.out.width = o.vo.width = 80;
        o.vo.columnated = 1;
    }
    /* https://no-color.org: NO_COLOR set and not empty turns colour off */
    const char *no_color = getenv("NO_COLOR");
    o.out.color = o.vo.plot && isatty(STDOUT_FILENO) && !(no_color && *no_color);
    if (!cli_locale_utf8())
        o.vo.ascii = 1;   /* no box-drawing or block characters a terminal cannot show */
    /* Check the column list before reading anything (rank and worker are
     * columns of every view of a run). */
    int runs = 0;
    for (int i = 0; i < o.ninputs; i++)
        runs |= tp_path_is_run(o.inputs[i]);
    /* --span picks one span of a run directory; on a single trace it was
     * silently ignored */
    if (o.vo.span && !runs) {
        fprintf(stderr, "tprof: --span %s: --span selects a span of a run directory; "
                "no input is one\nTry 'tprof --help'.\n", o.vo.span);
        return 2;
    }
    tp_error err = {0};
    if (o.out.columns) {
        int bad = (runs || o.with_file ? tp_run_check_columns(o.view, o.out.columns, &err)
                        : tp_view_check_columns(o.view, o.out.columns, &err)) != TP_OK;
        if (bad) {
            /* file is a column of every table once --with-file is given */
            int file = !o.with_file && !runs && tp_run_check_columns(o.view, o.out.columns, NULL) == TP_OK;
            fprintf(stderr, "tprof: argument -c: %s%s\n", err.msg, file ? " (file: with --with-file)" : "");
            return 2;
        }
    }
    /* One header per output; a run's rows have a rank column a single
     * trace's lack, so a switch between the two starts a new header. */
    int status = 0, prev_run = -1;
    struct sink sk = {.first = 1};
    int adds_rank = !o.view->build_run && !o.vo.merge && !tp_view_has_column(o.view, "rank");
    for (int i = 0; i < o.ninputs; i++) {
        int is_run = adds_rank && tp_path_is_run(o.inputs[i]);
        if (prev_run >= 0 && is_run != prev_run && !o.with_file)
            sk.first = 1;
        prev_run = is_run;
        int sum = tp_path_is_summary(o.inputs[i]), r;
        if (sum == 1 && o.vo.merge) {   /* summary files given one by one: merged together */
            int j = i;
            while (j + 1 < o.ninputs && tp_path_is_summary(o.inputs[j + 1]) == 1)
                j++;
            r = run_summary_files(&o, o.inputs + i, (size_t)(j - i + 1), &sk);
            i = j;
        } else if (sum) {
            r = o.vo.merge ? run_summary_files(&o, o.inputs + i, 1, &sk) : 2;
            if (!o.vo.merge)
                fprintf(stderr, "tprof: %s: summary files are read with --merge (they hold no per-rank "
                        "events)\n", o.inputs[i]);
        } else {
            r = tp_path_is_run(o.inputs[i]) ? run_dir(&o, o.inputs[i], &sk) : run_one(&o, o.inputs[i], &sk);
        }
        if (r > status)
            status = r;
    }
    if (block_flush(&sk, &o))   /* --with-file: every input's rows, one table */
        status = 2;
    fflush(stdout);
    return status;
}
