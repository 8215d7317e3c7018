/* cmd_report.c — `tprof report FILE -o OUTDIR`: one load and link, then every
 * view that applies, each into its own file, and summary.txt saying what each
 * view wrote or why it wrote nothing.  The views share the loaded store, so
 * the trace is parsed once instead of once per view. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include "commands.h"
#include "options.h"
#include "tprof.h"

static void report_usage(FILE *out)
{
    fprintf(out,
            "usage: tprof report [OPTIONS] FILE -o OUTDIR\n"
            "\n"
            "Load FILE once (a trace, an SQLite dump, a PyProf dict, an Ascend folder or a\n"
            ".tprof store) and write every view that applies as OUTDIR/VIEW.EXT, plus\n"
            "OUTDIR/summary.txt: one line per view with its rows, or why it has none.\n"
            "\n"
            "options:\n"
            "  -o, --output DIR   the folder to write (created if missing)\n"
            "      --csv          CSV files (VIEW.csv)\n"
            "      --jsonl        JSON lines (VIEW.jsonl)\n"
            "      --markdown     GitHub-flavoured Markdown tables (VIEW.md)\n"
            "      --space        space-separated text (VIEW.txt; the default)\n"
            "  -w, --width W      columnated text within W characters (VIEW.txt)\n"
            "  -h, --help         this help\n"
            "\n"
            "Exit status: 0 ok, 2 bad usage or an unreadable input (views that do not\n"
            "apply to FILE are named in summary.txt, not errors).\n");
}

struct report {
    const char *dir;
    struct tp_output_opts out;
    const char *ext;
    FILE *summary;
};

struct pool;

/* The options view v is built with (st NULL: before the load, for a
 * kineto trace, whose views are no NPU twins). */
static void report_opts(const struct report *R, const tp_view *v, const tp_store *st, struct tp_view_opts *vo)
{
    memset(vo, 0, sizeof *vo);
    vo->columnated = R->out.format == TP_FMT_COLUMNS;
    /* the columns written below, as `tprof VIEW` asks: a view may leave the
     * others out (prof: 8 of its 22 on 245K rows of a 1 GB trace) */
    vo->need_columns = tp_view_default_columns(tp_view_for_store(v, st), vo);
}

/* Build view v and write it; its summary line goes to `line` either way.
 * Returns 2 on a write error, 0 otherwise (a view that does not apply is not
 * an error).  Thread-safe: views only read the store. */
static int report_view(const struct report *R, const tp_view *v, const tp_store *st, char *line, size_t cap)
{
    struct tp_view_opts vo;
    report_opts(R, v, st, &vo);
    tp_table *t = NULL;
    tp_error err = {0};
    if (tp_view_build(v, st, &vo, &t, &err) != TP_OK) {
        snprintf(line, cap, "%-13s not written: %s\n", v->name, err.msg);
        return 0;
    }
    size_t rows = tp_table_rows(t);
    if (rows == 0) {
        snprintf(line, cap, "%-13s not written: no rows%s%s\n", v->name, err.msg[0] ? ": " : "", err.msg);
        tp_table_free(t);
        return 0;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s", R->dir, v->name, R->ext);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "tprof: %s: %s\n", path, strerror(errno));
        tp_table_free(t);
        return 2;
    }
    struct tp_output_opts o = R->out;
    o.columns = tp_table_default_columns(t);
    if (!o.columns)
        o.columns = tp_view_default_columns(tp_view_for_store(v, st), &vo);
    tp_error werr = {0};
    int rc = tp_table_write(t, &o, f, &werr);
    if (fclose(f) != 0 && rc == TP_OK)
        rc = tp_error_set(&werr, TP_ERR_IO, "%s: %s", path, strerror(errno));
    tp_table_free(t);
    if (rc != TP_OK) {
        fprintf(stderr, "tprof: %s\n", werr.msg);
        return 2;
    }
    snprintf(line, cap, "%-13s %zu row%s in %s.%s%s%s\n", v->name, rows, rows == 1 ? "" : "s", v->name, R->ext,
             err.msg[0] ? "; " : "", err.msg);
    return 0;
}

/* The views that cost the most on a big trace, most first (CPU seconds of
 * each alone, on the 995 MB ResNet-50 and 977 MB OWLv2 traces of README
 * "Speed"): taken first, the longest ones do not end up alone at the end
 * while the other threads idle.  ops comes first for another reason too:
 * it builds the operator tree that modules, kernels, memory, gpu, steps
 * and advice read, and a view asking for a model waits while another
 * builds one; critical-path and launches use none, so the other threads
 * stay busy meanwhile.  modules follows them: the longest view of a trace
 * with python_function events (OWLv2), it asks for the tree once its
 * module tree is made, by when the tree is there; it costs nothing
 * without them (ResNet).  Views not named here follow in registry order;
 * a name no view has is skipped. */
static const char *const heavy_first[] = {
    "ops",            /* ResNet 0.19 s, OWLv2 0.18: the operator tree (0.14) included */
    "critical-path",  /* 0.03 and 0.04 */
    "launches",       /* 0.07 and 0.03: 253K rows on ResNet */
    "modules",        /* 0.001 and 0.23 */
    "prof",           /* 0.05 and 0.02: 245K rows on ResNet */
    "advice",         /* 0.05 and 0.03 (0.09 and 0.06 with the step breakdown, which steps reads too) */
    "steps",
    "api", "dist", "roofline", "memory", "check",   /* 0.03-0.04 and 0.01-0.03 */
};

/* The order the workers take the views in: heavy_first, then the rest in
 * registry order.  order[] holds n registry indexes. */
static void pick_order(const tp_view *const *views, size_t n, size_t *order)
{
    size_t k = 0;
    unsigned char *taken = calloc(n ? n : 1, 1);
    for (size_t h = 0; taken && h < sizeof heavy_first / sizeof *heavy_first; h++)
        for (size_t i = 0; i < n; i++)
            if (!taken[i] && strcmp(views[i]->name, heavy_first[h]) == 0) {
                taken[i] = 1;
                order[k++] = i;
            }
    for (size_t i = 0; i < n; i++)
        if (!taken || !taken[i])
            order[k++] = i;
    free(taken);
}

/* The views share one store and build independently, so they run on every
 * core: each worker takes the next view in pick_order's order; the summary
 * keeps registry order. */
struct pool {
    const struct report *R;
    const tp_store *st;
    const tp_store *full;      /* loaded again for the views st does not serve (report_relean), or NULL */
    const unsigned char *from_full;
    const tp_view *const *views;
    const size_t *order;
    size_t n;
    char (*lines)[1024];
    int *status;
};

/* The k-th view to build (tp_parallel's job k). */
static void report_nth(void *arg, size_t k)
{
    struct pool *P = arg;
    size_t i = P->order[k];
    const tp_store *st = P->full && P->from_full[i] ? P->full : P->st;
    P->status[i] = report_view(P->R, P->views[i], st, P->lines[i], sizeof P->lines[i]);
}

static int report_all(const struct report *R, const tp_store *st, const tp_store *full,
                      const unsigned char *from_full, int threads)
{
    struct pool P = {.R = R, .st = st, .full = full, .from_full = from_full, .views = tp_views()};
    while (P.views[P.n])
        P.n++;
    P.lines = calloc(P.n ? P.n : 1, sizeof *P.lines);
    P.status = calloc(P.n ? P.n : 1, sizeof *P.status);
    size_t *order = calloc(P.n ? P.n : 1, sizeof *order);
    if (!P.lines || !P.status || !order) {
        free(P.lines);
        free(P.status);
        free(order);
        fprintf(stderr, "tprof: out of memory\n");
        return 2;
    }
    pick_order(P.views, P.n, order);
    P.order = order;
    tp_parallel(P.n, threads, report_nth, &P);
    int status = 0;
    for (size_t i = 0; i < P.n; i++) {
        fputs(P.lines[i], R->summary);
        if (P.status[i])
            status = 2;
    }
    free(P.lines);
    free(P.status);
    free(order);
    return status;
}

/* The leanest load (tp_store_set_lean) worth trying for every view, as
 * report_view builds it: a kineto trace's events that none of them reads
 * are skipped (the flows but fwdbwd ones: a quarter of a ResNet-50 trace's
 * events; the python frames of no module call: half an OWLv2 trace's).
 * Other inputs load whole whatever it says. */
static int report_lean(const struct report *R)
{
    const tp_view *const *views = tp_views();
    int lean = TP_LEAN_KERNELS;
    for (size_t i = 0; views[i]; i++) {
        struct tp_view_opts vo;
        report_opts(R, views[i], NULL, &vo);
        int l = tp_view_lean_try(views[i], &vo);
        if (l < lean)
            lean = l;
    }
    return lean;
}

/* The views store st, loaded at report_lean's level, does not serve
 * (tp_view_serves: critical-path on a trace whose python frames bear on
 * its path), marked in from_full, and the level to load the input again
 * at for them; -1 when st serves every view. */
static int report_relean(const struct report *R, const tp_store *st, unsigned char *from_full)
{
    const tp_view *const *views = tp_views();
    int lean = -1;
    for (size_t i = 0; views[i]; i++) {
        struct tp_view_opts vo;
        report_opts(R, views[i], st, &vo);
        from_full[i] = !tp_view_serves(views[i], st, &vo);
        int l = tp_view_lean_level(views[i], &vo);
        if (from_full[i] && (lean < 0 || l < lean))
            lean = l;
    }
    return lean;
}

/* The input loaded and linked again at level `lean` (report_relean): the
 * same input, so a load error it reports was reported by the first load. */
static tp_store *load_again(const char *in, int lean, int first_rc)
{
    tp_store *st = tp_store_new();
    if (!st) {
        fprintf(stderr, "tprof: out of memory\n");
        return NULL;
    }
    tp_store_set_lean(st, lean);
    tp_error lerr = {0}, err = {0};
    int rc = tp_store_load(st, in, &lerr);
    if (rc != first_rc && rc != TP_OK)
        fprintf(stderr, "tprof: %s\n", lerr.msg);
    if ((rc != TP_OK && rc != first_rc) || tp_store_link(st, &err) != TP_OK) {
        if (err.msg[0])
            fprintf(stderr, "tprof: %s\n", err.msg);
        tp_store_free(st);
        return NULL;
    }
    return st;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int cmd_report(int argc, char **argv)
{
    enum { OPT_CSV = 256, OPT_JSONL, OPT_SPACE, OPT_MARKDOWN };
    static const struct option opts[] = {
        CLI_ARG("output", 'o'),
        CLI_FLAG("csv", OPT_CSV),
        CLI_FLAG("jsonl", OPT_JSONL),
        CLI_FLAG("markdown", OPT_MARKDOWN),
        CLI_FLAG("space", OPT_SPACE),
        CLI_ARG("width", 'w'),
        CLI_LONGOPTS_END,
    };
    struct report R = {.ext = "txt"};
    tp_output_opts_init(&R.out);
    R.out.format = TP_FMT_SPACE;
    int c;
    char *end;
    long w;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:w:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': R.dir = optarg; break;
        case OPT_CSV: R.out.format = TP_FMT_CSV; R.ext = "csv"; break;
        case OPT_JSONL: R.out.format = TP_FMT_JSONL; R.ext = "jsonl"; break;
        case OPT_MARKDOWN: R.out.format = TP_FMT_MARKDOWN; R.ext = "md"; break;
        case OPT_SPACE: R.out.format = TP_FMT_SPACE; R.ext = "txt"; break;
        case 'w':
            errno = 0;
            w = strtol(optarg, &end, 10);
            if (errno || *end || w < 1 || w > 10000) {
                fprintf(stderr, "tprof: report: -w takes a width from 1 to 10000, not '%s'\n", optarg);
                return 2;
            }
            R.out.format = TP_FMT_COLUMNS;
            R.out.width = (int)w;
            R.ext = "txt";
            break;
        default: return cli_help_or_hint(c, "report", report_usage);
        }
    }
    const char *in = cli_one_input("report", argc, argv, R.dir, "no input file", "OUTDIR");
    if (!in)
        return 2;
    if (tp_path_is_run(in)) {
        fprintf(stderr, "tprof: %s: report takes one trace; report each rank of a run on its own\n", in);
        return 2;
    }
    if (mkdir(R.dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "tprof: %s: %s\n", R.dir, strerror(errno));
        return 2;
    }
    tp_store *st = tp_store_new();
    if (!st) {
        fprintf(stderr, "tprof: out of memory\n");
        return 2;
    }
    tp_store_set_lean(st, report_lean(&R));
    double t0 = now_s();
    tp_error lerr = {0}, err = {0};
    int rc = tp_store_load(st, in, &lerr), status = 0;
    if (rc != TP_OK) {
        fprintf(stderr, "tprof: %s\n", lerr.msg);
        status = 2;
        if (rc != TP_ERR_TRUNCATED && rc != TP_ERR_FORMAT) {
            tp_store_free(st);
            return 2;
        }
    }
    if (tp_store_link(st, &err) != TP_OK) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        tp_store_free(st);
        return 2;
    }
    size_t nviews = 0;
    while (tp_views()[nviews])
        nviews++;
    unsigned char *from_full = calloc(nviews ? nviews : 1, 1);
    int relean = from_full ? report_relean(&R, st, from_full) : -1;
    tp_store *full = relean >= 0 ? load_again(in, relean, rc) : NULL;
    if (!from_full || (relean >= 0 && !full)) {
        free(from_full);
        tp_store_free(st);
        return 2;
    }
    double t1 = now_s();
    char spath[4096];
    snprintf(spath, sizeof spath, "%s/summary.txt", R.dir);
    R.summary = fopen(spath, "w");
    if (!R.summary) {
        fprintf(stderr, "tprof: %s: %s\n", spath, strerror(errno));
        tp_store_free(full);
        free(from_full);
        tp_store_free(st);
        return 2;
    }
    fprintf(R.summary, "tprof %s report of %s\n", tp_version(), in);
    if (rc != TP_OK)
        fprintf(R.summary, "input: %s\n", lerr.msg);
    fprintf(R.summary, "load and link: %.3f s\n\n", t1 - t0);
    const char *env = getenv("TPROF_THREADS");
    if (report_all(&R, st, full, from_full, env ? atoi(env) : 0))
        status = 2;
    fprintf(R.summary, "\nviews: %.3f s\n", now_s() - t1);
    if (fclose(R.summary) != 0) {
        fprintf(stderr, "tprof: %s: %s\n", spath, strerror(errno));
        status = 2;
    }
    tp_store_free(full);
    free(from_full);
    tp_store_free(st);
    return status;
}
