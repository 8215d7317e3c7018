/* tprof.c — the command: parse options, pick a view, load each input, print.
 * No analysis happens here.
 *
 * An input that is a directory (and not an Ascend profiler folder) is a run
 * of ranks (lib/run.c): every view then prints one block of rows per rank
 * under one header, a `rank` column first (unless the view has its own);
 * views that span ranks (build_run, e.g. dist) get every rank at once, and
 * --merge lays the ranks end to end in one store and prints one table. */
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capture.h"
#include "commands.h"
#include "options.h"
#include "report.h"
#include "store.h"
#include "table.h"



/* Write t; 0, or 2 after a message (a reader that went away ends quietly). */
static int write_table(const tp_table *t, const struct tp_output_opts *out)
{
    tp_error werr = {0};
    if (tp_table_write(t, out, stdout, &werr) == TP_OK)
        return 0;
    if (werr.sys_errno == EPIPE)
        exit(0);
    fprintf(stderr, "tprof: %s\n", werr.msg);
    return 2;
}

/* The exit status a view's table calls for (check: 1 warnings, 2 errors). */
static int table_status(const tp_view *v, const tp_table *t)
{
    return v->severity && t ? (int)v->severity(t) : 0;
}

/* One input; *first says whether the header is still to print, and is
 * cleared once a table was written (an input that fails prints nothing, and
 * the next one then carries the header). */
static int run_one(const struct cli_options *o, const char *path, int *first)
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
    int rc = tp_store_load(st, path, &err);
    if (rc != TP_OK) {
        /* A truncated trace still gives the rows of its complete events;
         * so does one that ran out of memory or failed to read midway. */
        if (rc != TP_ERR_TRUNCATED && rc != TP_ERR_FORMAT && st->n == 0) {
            fprintf(stderr, "tprof: %s\n", err.msg);
            tp_store_free(st);
            return 2;
        }
        status = 2;
    }
    tp_error lerr = {0};
    tp_table *t = NULL;
    int linked = tp_store_link(st, &lerr) == TP_OK;
    if (linked && o->capture && cli_attach_capture(st, o->capture))
        status = 2;
    if (!linked || tp_view_build(o->view, st, &o->vo, &t, &lerr) != TP_OK) {
        fprintf(stderr, "tprof: %s\n", lerr.msg);
        status = 2;
    } else if (st->n > 0 || status == 0) {
        struct tp_output_opts out = o->out;
        if (!out.columns) {
            const tp_view *v = tp_view_for_store(o->view, st);
            out.columns = tp_view_default_columns(v, &o->vo);
        }
        if (!*first)
            out.header = 0;
        if (table_status(o->view, t) > status)
            status = table_status(o->view, t);
        *first = 0;
        if (write_table(t, &out)) {
            tp_table_free(t);
            tp_store_free(st);
            return 2;
        }
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

/* The columns a run adds in front of a per-rank view. */
static const struct tp_coldef run_cols[] = {
    {"rank", "Rank", TP_COL_INT, -1, 0, "run: the rank (distributedInfo.rank, else the file name, else the order)"},
    {"worker", "Worker", TP_COL_STR, -1, 0, "run: the worker (trace file name without [.SPAN].pt.trace.json)"},
};
#define NRUNCOLS (sizeof run_cols / sizeof *run_cols)

static int is_run_key(const char *k, size_t n)
{
    for (size_t i = 0; i < NRUNCOLS; i++)
        if (strlen(run_cols[i].key) == n && memcmp(run_cols[i].key, k, n) == 0)
            return 1;
    return 0;
}

/* The -c list without the run's own keys (rank, worker), for checking it
 * against a view before reading input; NULL when nothing is left. */
static char *strip_run_keys(const char *list)
{
    char *o = malloc(strlen(list) + 1);
    if (!o)
        return NULL;
    size_t n = 0;
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (!is_run_key(p, len)) {
            if (n)
                o[n++] = ',';
            memcpy(o + n, p, len);
            n += len;
        }
        p += len + (e ? 1 : 0);
    }
    o[n] = 0;
    if (!n) {
        free(o);
        return NULL;
    }
    return o;
}

static int has_key(const char *list, const char *key)
{
    size_t k = strlen(key);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == k && memcmp(p, key, k) == 0)
            return 1;
        p += len + (e ? 1 : 0);
    }
    return 0;
}

/* list without `key` ("rank" when nothing is left); NULL on out of memory. */
static char *remove_key(const char *list, const char *key)
{
    char *o = malloc(strlen(list) + 6);
    if (!o)
        return NULL;
    size_t n = 0, k = strlen(key);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (!(len == k && memcmp(p, key, k) == 0)) {
            if (n)
                o[n++] = ',';
            memcpy(o + n, p, len);
            n += len;
        }
        p += len + (e ? 1 : 0);
    }
    if (!n)
        memcpy(o, "rank", 5);
    else
        o[n] = 0;
    return o;
}

/* One output table for the per-rank blocks that share a column set. */
struct block {
    const struct tp_coldef *vcols;   /* the view's columns (GPU view or NPU twin) */
    size_t nvcols;
    int prepend;                     /* rank/worker columns added in front */
    struct tp_coldef *cols;          /* what the table is made of */
    tp_table *t;
    const tp_view *v;
};

static int block_start(struct block *b, const tp_view *v)
{
    memset(b, 0, sizeof *b);
    b->v = v;
    b->vcols = v->cols;
    b->nvcols = v->ncols;
    b->prepend = tp_table_col_find(v->cols, v->ncols, "rank") < 0;
    size_t extra = b->prepend ? NRUNCOLS : 0;
    b->cols = malloc((b->nvcols + extra) * sizeof *b->cols);
    if (!b->cols)
        return -1;
    if (extra)
        memcpy(b->cols, run_cols, sizeof run_cols);
    memcpy(b->cols + extra, v->cols, b->nvcols * sizeof *b->cols);
    b->t = tp_table_new(b->cols, b->nvcols + extra);
    return b->t ? 0 : -1;
}

/* The keys of a --sort list (each maybe signed) that are columns of the
 * view, as a list in buf; NULL when none is. */
static const char *view_sort_keys(const char *list, const struct tp_coldef *cols, size_t ncols, char *buf,
                                  size_t cap)
{
    size_t n = 0;
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        size_t skip = len && (*p == '-' || *p == '+');
        char key[128];
        if (len - skip < sizeof key) {
            memcpy(key, p + skip, len - skip);
            key[len - skip] = 0;
            if (tp_table_col_find(cols, ncols, key) >= 0 && n + len + 2 < cap) {
                if (n)
                    buf[n++] = ',';
                memcpy(buf + n, p, len);
                n += len;
            }
        }
        p += len + (e ? 1 : 0);
    }
    buf[n] = 0;
    return n ? buf : NULL;
}

/* Append rank k's rows (its --sort order, its --top rows) to the block. */
static int block_add(struct block *b, const struct tp_run_rank *k, const tp_table *t,
                     const struct tp_output_opts *o)
{
    size_t n = 0, *perm = NULL;
    tp_error err = {0};
    struct tp_output_opts ro = *o;
    /* the view's own sort keys; a run column (rank) is the block's order */
    char sortbuf[512];
    ro.sort = view_sort_keys(o->sort, b->vcols, b->nvcols, sortbuf, sizeof sortbuf);
    if (tp_table_order(t, &ro, &perm, &n, &err) != TP_OK)
        return -1;
    size_t off = b->prepend ? NRUNCOLS : 0;
    for (size_t i = 0; i < n; i++) {
        size_t r = perm ? perm[i] : i;
        if (tp_table_add_row(b->t) < 0)
            break;
        if (b->prepend) {
            tp_table_set_int(b->t, 0, k->rank);
            tp_table_set_str(b->t, 1, k->worker);
        }
        for (size_t c = 0; c < b->nvcols; c++) {
            size_t len;
            const char *s;
            switch (tp_table_cell_kind(t, r, c)) {
            case TP_CELL_STR:
                s = tp_table_cell_strn(t, r, c, &len);
                tp_table_set_strn(b->t, off + c, s, len);
                break;
            case TP_CELL_INT: tp_table_set_int(b->t, off + c, tp_table_cell_int(t, r, c)); break;
            case TP_CELL_FLOAT: tp_table_set_float(b->t, off + c, tp_table_cell_float(t, r, c)); break;
            default: break;
            }
        }
    }
    free(perm);
    return tp_table_nomem(b->t) ? -1 : 0;
}

/* Print a block under its header (the first block of the output only); 0 or 2. */
static int block_flush(struct block *b, const struct cli_options *o, int *first)
{
    if (!b->t)
        return 0;
    struct tp_output_opts out = o->out;
    out.sort = NULL;   /* applied per rank in block_add, as --name and --top */
    out.top = 0;
    out.name_regex = NULL;
    char *cols = NULL;
    const char *list = out.columns ? out.columns : tp_view_default_columns(b->v, &o->vo);
    if (b->prepend && !has_key(list, "rank") && !has_key(list, "worker")) {
        cols = malloc(strlen(list) + 6);
        if (cols)
            sprintf(cols, "rank,%s", list);
    } else if (!b->prepend && has_key(list, "worker") &&
               tp_table_col_find(b->vcols, b->nvcols, "worker") < 0) {
        /* the view has its own rank column but no worker: leave worker out */
        cols = remove_key(list, "worker");
    }
    if (cols)
        out.columns = cols;
    else
        out.columns = list;
    if (!*first)
        out.header = 0;
    int rc = write_table(b->t, &out);
    *first = 0;
    free(cols);
    tp_table_free(b->t);
    free(b->cols);
    b->t = NULL;
    b->cols = NULL;
    return rc;
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
};

static void drop_rank(void *p)
{
    struct rank_out *ro = p;
    if (!ro)
        return;
    tp_table_free(ro->t);
    free(ro->skips);
    free(ro->coverage);
    free(ro);
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
    ro->sv = tp_view_for_store(o->view, k->store);
    if (tp_view_build(o->view, k->store, &o->vo, &ro->t, &ro->err) != TP_OK)
        ro->t = NULL;
    char line[2048];
    if (tp_view_attributes(o->view, &o->vo) && tp_store_coverage(k->store, line, sizeof line))
        ro->coverage = strdup(line);
    return ro;
}

/* A view that is built rank by rank, without --merge: each rank is loaded,
 * its table built and its store freed, `threads` at a time, so a run of
 * any number of ranks needs the memory of the ranks in flight plus their
 * tables.  Prints what run_dir prints, in the same order. */
static int run_dir_stream(const struct cli_options *o, tp_run *r, const char *path, int *first)
{
    tp_error err = {0};
#ifdef M_MMAP_THRESHOLD
    /* glibc raises its mmap threshold each time a big block is freed, so the
     * columns of the second rank onwards come from the heap and stay there
     * when their store is freed: 16 ranks of a 35 MB trace peaked at 70 MB
     * (4.1 times one rank) instead of 44 MB (2.6 times) with a fixed one. */
    mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
    int status = tp_run_reduce(r, cli_threads(), reduce_rank, drop_rank, (void *)o, &err) != TP_OK ? 2 : 0;
    size_t n = tp_run_size(r), nuse = 0;
    for (size_t i = 0; i < n; i++) {
        const struct tp_run_rank *k = tp_run_rank(r, i);
        if (k->status != TP_OK)
            fprintf(stderr, "tprof: %s (rank %lld)\n", k->err.msg, (long long)k->rank);
        if (!k->usable)
            continue;
        const struct rank_out *ro = k->result;
        if (!ro) {
            fprintf(stderr, "tprof: %s: out of memory (rank %lld)\n", k->path, (long long)k->rank);
            status = 2;
            continue;
        }
        if (ro->nskips)
            fwrite(ro->skips, 1, ro->nskips, stderr);
        if (ro->malformed)
            status = 2;
        nuse++;
    }
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
    struct block b = {0};
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
        if (b.t && b.v != ro->sv && block_flush(&b, o, first))
            status = 2;
        if (!b.t && block_start(&b, ro->sv) < 0) {
            fprintf(stderr, "tprof: out of memory\n");
            status = 2;
            break;
        }
        if (block_add(&b, k, ro->t, &o->out) < 0) {
            fprintf(stderr, "tprof: out of memory\n");
            status = 2;
        }
    }
    if (block_flush(&b, o, first))
        status = 2;
    fflush(stdout);
    return status;
}

static int run_dir(const struct cli_options *o, const char *path, int *first)
{
    tp_error err = {0};
    tp_run *r = NULL;
    if (o->capture)
        fprintf(stderr, "tprof: %s: --capture applies to a single trace, not to a run directory: left out\n", path);
    if (tp_run_open(&r, path, o->vo.span, &err) != TP_OK) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        return 2;
    }
    if (!o->view->build_run && !o->vo.merge) {
        int rc = run_dir_stream(o, r, path, first);
        tp_run_free(r);
        return rc;
    }
    int status = tp_run_load(r, cli_threads(), &err) != TP_OK ? 2 : 0;
    size_t n = tp_run_size(r), nuse = 0;
    const tp_store **stores = calloc(n ? n : 1, sizeof *stores);
    const struct tp_run_rank **ranks = calloc(n ? n : 1, sizeof *ranks);
    if (!stores || !ranks) {
        fprintf(stderr, "tprof: out of memory\n");
        free(stores);
        free(ranks);
        tp_run_free(r);
        return 2;
    }
    int any_ascend = 0;
    for (size_t i = 0; i < n; i++) {
        const struct tp_run_rank *k = tp_run_rank(r, i);
        if (k->status != TP_OK)
            fprintf(stderr, "tprof: %s (rank %lld)\n", k->err.msg, (long long)k->rank);
        if (!k->store || !k->store->linked || (k->status != TP_OK && k->store->n == 0))
            continue;
        if (cli_report_skips(k->store))
            status = 2;
        any_ascend |= k->store->format == TP_SRC_ASCEND;
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
    int npu = any_ascend && tp_view_npu_twin(v);
    tp_table *t = NULL;
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
        if (v->timeline)
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
        struct tp_output_opts out = o->out;
        if (!out.columns)
            out.columns = tp_view_default_columns(v, &o->vo);
        else if (tp_table_col_find(v->cols, v->ncols, "rank") < 0)
            out.columns = NULL;   /* replaced below when it names run keys */
        char *cols = NULL;
        if (!out.columns) {
            cols = strip_run_keys(o->out.columns);
            out.columns = cols ? cols : tp_view_default_columns(v, &o->vo);
        }
        if (!*first)
            out.header = 0;
        if (table_status(v, t) > status)
            status = table_status(v, t);
        int wr = write_table(t, &out);
        *first = 0;
        free(cols);
        tp_table_free(t);
        if (wr)
            status = 2;
        goto done;
    }
    /* one block of rows per rank */
    struct block b = {0};
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
        if (b.t && b.v != sv && block_flush(&b, o, first))
            status = 2;
        if (!b.t && block_start(&b, sv) < 0) {
            fprintf(stderr, "tprof: out of memory\n");
            tp_table_free(rt);
            status = 2;
            break;
        }
        if (block_add(&b, ranks[i], rt, &o->out) < 0) {
            fprintf(stderr, "tprof: out of memory\n");
            status = 2;
        }
        tp_table_free(rt);
    }
    if (block_flush(&b, o, first))
        status = 2;
done:
    fflush(stdout);
    free(stores);
    free(ranks);
    tp_run_free(r);
    return status;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);   /* a closed pipe is a write error we end on quietly */
    if (argc > 1 && strcmp(argv[1], "diff") == 0)
        return cmd_diff(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "import") == 0)
        return cmd_import(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "report") == 0)
        return cmd_report(argc - 1, argv + 1);
    struct cli_options o;
    int rc = cli_parse(argc, argv, &o);
    if (rc)
        return rc;
    if (o.version) {
        printf("tprof %s (%s)\n", tp_version(), tp_library_versions());
        return 0;
    }
    if (o.help) {
        if (!o.view_named)
            cli_usage(stdout);
        printf("%stprof %s: %s\n\ncolumns (-c):\n", o.view_named ? "" : "\n", o.view->name, o.view->summary);
        tp_view_print_columns(o.view, stdout);
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
        o.out.width = cli_terminal_width();
        o.vo.columnated = 1;
    }
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
        char *check = runs ? strip_run_keys(o.out.columns) : NULL;
        int bad = (!runs || check) &&
                  tp_view_check_columns(o.view, check ? check : o.out.columns, &err) != TP_OK;
        free(check);
        if (bad) {
            fprintf(stderr, "tprof: argument -c: %s\n", err.msg);
            return 2;
        }
    }
    /* One header per output; a run's rows have a rank column a single
     * trace's lack, so a switch between the two starts a new header. */
    int status = 0, first = 1, prev_run = -1;
    int adds_rank = !o.view->build_run && !o.vo.merge &&
                    tp_table_col_find(o.view->cols, o.view->ncols, "rank") < 0;
    for (int i = 0; i < o.ninputs; i++) {
        int is_run = adds_rank && tp_path_is_run(o.inputs[i]);
        if (prev_run >= 0 && is_run != prev_run)
            first = 1;
        prev_run = is_run;
        int r = tp_path_is_run(o.inputs[i]) ? run_dir(&o, o.inputs[i], &first)
                                             : run_one(&o, o.inputs[i], &first);
        if (r > status)
            status = r;
    }
    return status;
}
