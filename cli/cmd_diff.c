/* cmd_diff.c — `tprof diff A B`: option parsing, loading both inputs (traces,
 * SQLite dumps or run directories), printing the comparison (lib/view_diff.c)
 * and the CI gate's exit status. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "options.h"
#include "report.h"
#include "tprof.h"

enum { OPT_CSV = 256, OPT_SPACE, OPT_JSONL, OPT_MARKDOWN, OPT_SORT, OPT_TOP, OPT_NO_HEADER, OPT_SUMMARY,
       OPT_FAIL_ABOVE, OPT_JUNIT, OPT_CONFIDENCE, OPT_WATERFALL, OPT_NAMES, OPT_STEP, OPT_RANK, OPT_TIMELINE, OPT_DEPTH, OPT_TSV, OPT_PLOT };

static const struct option diff_opts[] = {
    CLI_FORMAT_LONGOPTS,
    CLI_ROWS_LONGOPTS,
    CLI_FLAG("summary", OPT_SUMMARY),
    CLI_ARG("fail-above", OPT_FAIL_ABOVE),
    CLI_ARG("junit", OPT_JUNIT),
    CLI_ARG("confidence", OPT_CONFIDENCE),
    CLI_FLAG("waterfall", OPT_WATERFALL),
    CLI_ARG("names", OPT_NAMES),
    CLI_ARG("step", OPT_STEP),
    CLI_ARG("rank", OPT_RANK),
    CLI_FLAG("timeline", OPT_TIMELINE),
    CLI_FLAG("plot", OPT_PLOT),
    CLI_ARG("depth", OPT_DEPTH),
    CLI_LONGOPTS_END,
};

static void diff_usage(FILE *out)
{
    fprintf(out,
            "usage: tprof diff [OPTIONS] A B\n"
            "\n"
            "Compare two traces, SQLite dumps or run directories: CPU ops and GPU kernels by\n"
            "name (calls, summed time, delta, category as in HTA's ops_diff), or with\n"
            "--summary the step, kernel and op totals.  A run counts every rank: calls and\n"
            "times are summed over the ranks, the average step is over every rank's steps.\n"
            "\n"
            "options:\n"
            "  -c, --columns LIST    columns to print, comma-separated\n"
            "  -w, --width W         columnated output within W characters\n"
            "      --csv | --tsv | --space | --jsonl | --markdown   output format\n"
            "      --sort KEY        sort rows by a column (numbers descending)\n"
            "      --top N           print the first N rows only\n"
            "      --no-header       leave out the header line\n"
            "      --summary         avg_step_time, total_kernel_time, total_op_time only\n"
            "      --fail-above X    exit 1 when the average step time (or, without steps in\n"
            "                        both, the total kernel time) grew by more than X\n"
            "                        (X: 5%%, 250us, 2ms)\n"
            "  -h, --help            this help and the columns\n"
            "\n"
            "      --junit FILE      with --fail-above: a JUnit XML report, one test case per\n"
            "                        quantity (step, kernel and op time), for CI dashboards\n"
            "      --confidence P    with --fail-above: the statistical gate.  Step time and\n"
            "                        its parts (computation, communication, memcpy, host,\n"
            "                        idle) per step, each with a bootstrap interval at level P\n"
            "                        (0.95 or 95%%); exit 1 only when a change exceeds\n"
            "                        --fail-above and is significant.  Prints the gate table,\n"
            "                        then the waterfall of the step-time change\n"
            "      --waterfall       with --confidence: the waterfall table alone (-c its columns)\n"
            "      --names N         with --confidence: names per part in the waterfall (default 3)\n"
            "      --step N|A-B      compare those ProfilerSteps only (in both A and B)\n"
            "      --rank LIST       run directories: only the ranks of LIST (0,2,5-7)\n"
            "      --timeline        the TensorBoard plugin's Diff Run view: the two timelines\n"
            "                        (data loading, modules, optimizer steps, the operators\n"
            "                        between) compared node by node, with the accumulated delta\n"
            "      --depth N         with --timeline: rows down to depth N (default 1)\n"
            "      --plot            a waterfall instead of the table: the biggest changes (20\n"
            "                        unless --top), or with --confidence the step-time change\n"
            "                        by part and name (-w or terminal wide; colour on a terminal)\n"
            "\n"
            "Exit status: 0 ok, 1 regression past --fail-above, 2 bad usage or unreadable input.\n"
            "\ncolumns (-c):\n");
    tp_view_print_columns(tp_diff_view(0), out);
    fprintf(out, "\ncolumns with --summary:\n");
    tp_view_print_columns(tp_diff_view(1), out);
    fprintf(out, "\ncolumns with --timeline:\n");
    tp_view_print_columns(tp_diff_timeline_view(), out);
    fprintf(out, "\ncolumns with --confidence (the gate table):\n");
    tp_view_print_columns(tp_gate_view(0), out);
    fprintf(out, "\ncolumns with --confidence --waterfall:\n");
    tp_view_print_columns(tp_gate_view(1), out);
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "tprof: diff: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'tprof diff --help'.\n");
    return 2;
}



/* A run directory as one store: every rank loaded (in parallel) and laid end
 * to end (tp_run_merge), so ops and kernels sum over the ranks and the
 * average step is over every step of every rank.  NULL (message printed)
 * when no rank can be read; *bad when a rank failed or was malformed. */
static tp_store *load_run(const char *path, const char *ranks, int *bad)
{
    tp_error err = {0};
    tp_run *r = NULL;
    if (tp_run_open(&r, path, NULL, &err) != TP_OK ||
        (ranks && tp_run_keep_ranks(r, ranks, &err) != TP_OK)) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        tp_run_free(r);
        return NULL;
    }
    if (tp_run_load(r, cli_threads(), &err) != TP_OK)
        *bad = 1;
    for (size_t i = 0; i < tp_run_size(r); i++) {
        const struct tp_run_rank *k = tp_run_rank(r, i);
        if (k->status != TP_OK)
            fprintf(stderr, "tprof: %s (rank %lld)\n", k->err.msg, (long long)k->rank);
        else if (k->store && cli_report_skips(k->store))
            *bad = 1;
    }
    cli_report_notes(tp_run_notes(r));
    tp_store *st = NULL;
    if (tp_run_merge(r, &st, &err) != TP_OK) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        st = NULL;
    } else if (tp_store_event_count(st) == 0) {
        fprintf(stderr, "tprof: %s: no rank could be read\n", path);
        tp_store_free(st);
        st = NULL;
    }
    tp_run_free(r);
    return st;
}

/* Load and link one input (a trace, a SQLite dump or a run directory); NULL
 * (message printed) when it cannot be read.  *bad is set when part of it was
 * malformed or truncated. */
static tp_store *load_one(const char *path, const char *ranks, int *bad)
{
    if (tp_path_is_run(path))
        return load_run(path, ranks, bad);
    tp_error err = {0};
    tp_store *st = tp_store_new();
    if (!st) {
        fprintf(stderr, "tprof: out of memory\n");
        return NULL;
    }
    int rc = tp_store_load(st, path, &err);
    if (rc != TP_OK) {
        if (rc != TP_ERR_TRUNCATED && rc != TP_ERR_FORMAT) {
            fprintf(stderr, "tprof: %s\n", err.msg);
            tp_store_free(st);
            return NULL;
        }
        fprintf(stderr, "tprof: %s\n", err.msg);
        /* not a trace, or broken before its first event: nothing to compare.
         * Diffing it printed a table in which everything was "added" (a
         * 100 % regression to a CI step reading stdout) before exit 2. */
        if (tp_store_event_count(st) == 0) {
            tp_store_free(st);
            return NULL;
        }
        *bad = 1;
    }
    if (cli_report_skips(st))
        *bad = 1;
    if (tp_store_link(st, &err) != TP_OK) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        tp_store_free(st);
        return NULL;
    }
    return st;
}

/* load_one, then the steps of --step alone (tp_store_filter). */
static tp_store *load(const char *path, const char *ranks, const char *steps, int *bad)
{
    tp_store *st = load_one(path, ranks, bad);
    if (!st || !steps)
        return st;
    tp_error err = {0};
    tp_store *f = NULL;
    if (tp_store_filter(st, steps, NULL, &f, &err) != TP_OK) {
        fprintf(stderr, "tprof: %s: %s\n", path, err.msg);
        f = NULL;
    }
    tp_store_free(st);
    return f;
}

static void change(const char *what, int has, double a, double b)
{
    if (!has) {
        fprintf(stderr, "%s -", what);
        return;
    }
    fprintf(stderr, "%s %.1f us -> %.1f us", what, a / 1e3, b / 1e3);
    if (a > 0)
        fprintf(stderr, " (%+.1f%%)", (b - a) / a * 100.0);
}

/* On a terminal, the totals before the table (--summary has them as rows). */
static void print_headline(const struct tp_diff_summary *s)
{
    fprintf(stderr, "tprof: ");
    change("avg step time", s->a_has_steps && s->b_has_steps, s->a_step_ns, s->b_step_ns);
    fprintf(stderr, "; ");
    change("total kernel time", 1, (double)s->a_kernel_ns, (double)s->b_kernel_ns);
    fprintf(stderr, "\n");
}

/* --confidence: the gate table (or with --waterfall the waterfall alone);
 * in text formats the waterfall follows the gate table after a blank line.
 * Returns the exit status: 1 when a quantity regressed. */
static int print_gate(const tp_store *a, const tp_store *b, const struct tp_diff_gate *gate,
                      const struct tp_gate_opts *go, struct tp_output_opts *out, int waterfall,
                      const char *junit, const char *a_name, const char *b_name, int columns_given, int plot)
{
    tp_error err = {0};
    tp_gate *gt = NULL;
    if (tp_gate_compare(a, b, gate, go, &gt, &err) != TP_OK) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        return 2;
    }
    int status = 0, both = !waterfall && !columns_given && !plot &&
                           (out->format == TP_FMT_COLUMNS || out->format == TP_FMT_SPACE ||
                            out->format == TP_FMT_MARKDOWN);
    tp_table *t = NULL;
    int rc = waterfall ? tp_gate_waterfall(gt, &t, &err) : tp_gate_table(gt, &t, &err);
    if (rc == TP_OK && plot)
        rc = tp_diff_attach_plot(t, &err);
    if (rc == TP_OK)
        rc = tp_table_write(t, out, stdout, &err);
    tp_table_free(t);
    t = NULL;
    if (rc == TP_OK && both) {
        struct tp_output_opts wo = *out;
        wo.columns = tp_gate_view(1)->default_columns;
        wo.sort = NULL;
        fputc('\n', stdout);
        rc = tp_gate_waterfall(gt, &t, &err);
        if (rc == TP_OK)
            rc = tp_table_write(t, &wo, stdout, &err);
        tp_table_free(t);
    }
    if (rc != TP_OK && err.sys_errno != EPIPE) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        status = 2;
    }
    fflush(stdout);
    char msg[320];
    for (size_t i = 0; status != 2 && tp_gate_failed(gt, i, msg, sizeof msg); i++) {
        fprintf(stderr, "tprof: regression: %s\n", msg);
        status = 1;
    }
    if (junit && status != 2) {
        FILE *f = fopen(junit, "w");
        int bad_write = !f;
        if (f) {
            bad_write = tp_gate_junit(gt, a_name, b_name, f) < 0;
            bad_write |= fclose(f) != 0;
        }
        if (bad_write) {
            fprintf(stderr, "tprof: %s: %s\n", junit, strerror(errno));
            status = 2;
        }
    }
    tp_gate_free(gt);
    return status;
}

/* Write the table (rc: how building it went), then the gate and its JUnit
 * report; the exit status.  Frees t. */
static int finish(int rc, const tp_error *berr, tp_table *t, const struct tp_diff_summary *s,
                  const struct tp_output_opts *out, const struct tp_diff_gate *gate, const char *junit,
                  const char *a_name, const char *b_name, int bad)
{
    tp_error err = {0};
    int status = bad ? 2 : 0;
    if (rc != TP_OK) {
        fprintf(stderr, "tprof: %s\n", berr->msg);
        status = 2;
    } else if (tp_table_write(t, out, stdout, &err) != TP_OK) {
        if (err.sys_errno != EPIPE) {   /* a reader that went away is not an error */
            fprintf(stderr, "tprof: %s\n", err.msg);
            status = 2;
        }
    }
    fflush(stdout);
    tp_table_free(t);
    if (status == 0 && gate) {
        char msg[256];
        if (tp_diff_check(s, gate, msg, sizeof msg)) {
            fprintf(stderr, "tprof: regression: %s\n", msg);
            status = 1;
        }
        if (junit) {
            FILE *f = fopen(junit, "w");
            int bad_write = !f;
            if (f) {
                bad_write = tp_diff_junit(s, gate, a_name, b_name, f) < 0;
                bad_write |= fclose(f) != 0;
            }
            if (bad_write) {
                fprintf(stderr, "tprof: %s: %s\n", junit, strerror(errno));
                status = 2;
            }
        }
    }
    return status;
}

/* Two summary sets (tprof summarize): the table and the gate from them. */
static int diff_summaries(const char *pa, const char *pb, int summary, const struct tp_output_opts *out,
                          const struct tp_diff_gate *gate, const char *junit)
{
    tp_error err = {0};
    tp_summary *a = NULL, *b = NULL;
    if (tp_summary_load_set_view(&pa, 1, "diff", &a, &err) != TP_OK || tp_summary_load_set_view(&pb, 1, "diff", &b, &err) != TP_OK) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        tp_summary_free(a);
        return 2;
    }
    struct tp_diff_summary s;
    int rc = tp_diff_summarize_summaries(a, b, &s) == TP_OK ? TP_OK
             : tp_error_set(&err, TP_ERR_FORMAT, "%s: a summary without its diff table", pa);
    if (!summary && rc == TP_OK && isatty(STDOUT_FILENO))
        print_headline(&s);
    tp_table *t = NULL;
    if (rc == TP_OK)
        rc = summary ? tp_diff_summary_table(&s, &t, &err) : tp_diff_build_summaries(a, b, &t, &err);
    tp_summary_free(a);
    tp_summary_free(b);
    return finish(rc, &err, t, &s, out, gate, junit, pa, pb, 0);
}

int cmd_diff(int argc, char **argv)
{
    struct tp_output_opts out;
    tp_output_opts_init(&out);
    int summary = 0, format_chosen = 0, csv = 0, width_given = 0, gate_on = 0;
    const char *junit = NULL, *steps = NULL, *ranks = NULL;
    struct tp_diff_gate gate;
    struct tp_gate_opts go = {0};
    int waterfall = 0, timeline = 0, depth = -1, plot = 0;
    tp_error err = {0};
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":c:w:h", diff_opts, NULL)) != -1) {
        switch (c) {
        case 'c': out.columns = optarg; break;
        case 'w':
            if (cli_parse_width(optarg, &out.width) < 0)
                return usage_error(CLI_WIDTH_ERROR, optarg);
            width_given = format_chosen = 1;
            out.format = out.width > 0 ? TP_FMT_COLUMNS : TP_FMT_SPACE;
            break;
        case OPT_CSV: csv = format_chosen = 1; out.format = TP_FMT_CSV; break;
        case OPT_SPACE: format_chosen = 1; out.format = TP_FMT_SPACE; break;
        case OPT_JSONL: format_chosen = 1; out.format = TP_FMT_JSONL; break;
        case OPT_TSV: format_chosen = 1; out.format = TP_FMT_TSV; break;
        case OPT_MARKDOWN: format_chosen = 1; out.format = TP_FMT_MARKDOWN; break;
        case OPT_SORT: out.sort = optarg; break;
        case OPT_TOP:
            if (cli_parse_top(optarg, &out.top) < 0)
                return usage_error(CLI_TOP_ERROR, optarg);
            break;
        case OPT_NO_HEADER: out.header = 0; break;
        case OPT_SUMMARY: summary = 1; break;
        case OPT_FAIL_ABOVE:
            if (tp_diff_parse_gate(optarg, &gate, &err) != TP_OK)
                return usage_error("%s", err.msg);
            gate_on = 1;
            break;
        case OPT_JUNIT: junit = optarg; break;
        case OPT_CONFIDENCE:
            if (tp_gate_parse_confidence(optarg, &go.confidence, &err) != TP_OK)
                return usage_error("%s", err.msg);
            break;
        case OPT_WATERFALL: waterfall = 1; break;
        case OPT_NAMES: {
            size_t n;
            if (cli_parse_top(optarg, &n) < 0)
                return usage_error("--names: '%s' is not a positive number", optarg);
            go.top = (size_t)n;
            break;
        }
        case OPT_STEP: steps = optarg; break;
        case OPT_TIMELINE: timeline = 1; break;
        case OPT_PLOT: plot = 1; break;
        case OPT_DEPTH: {
            size_t n;
            if (strcmp(optarg, "0") == 0)
                n = 0;
            else if (cli_parse_top(optarg, &n) < 0 || n > 1000)
                return usage_error("--depth: '%s' is not a depth from 0 to 1000", optarg);
            depth = (int)n;
            break;
        }
        case OPT_RANK: ranks = optarg; break;
        case 'h': diff_usage(stdout); return 0;
        case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (csv && width_given)
        return usage_error("%s", "--csv and -w cannot be used together");
    if (junit && !gate_on)
        return usage_error("%s", "--junit reports the gate: give --fail-above too");
    if (go.confidence > 0 && !gate_on)
        return usage_error("%s", "--confidence tests the gate: give --fail-above too");
    if ((waterfall || go.top) && go.confidence == 0)
        return usage_error("%s", "--waterfall and --names show the statistical gate: give --confidence too");
    if (plot && (summary || timeline))
        return usage_error("%s", "--plot draws the per-name diff or the gate's waterfall: not with --summary or --timeline");
    if (plot && format_chosen && out.format != TP_FMT_COLUMNS)
        return usage_error("%s", "--plot is a picture in the -w format: not with --csv, --tsv, --space, --jsonl or --markdown");
    if (plot) {
        if (!width_given)
            out.width = isatty(STDOUT_FILENO) ? cli_terminal_width() : 80;
        out.format = TP_FMT_COLUMNS;
        format_chosen = 1;
        const char *no_color = getenv("NO_COLOR");   /* https://no-color.org */
        out.color = isatty(STDOUT_FILENO) && !(no_color && *no_color);
        if (!out.top && go.confidence == 0)
            out.top = 20;
        if (go.confidence > 0)
            waterfall = 1;
    }
    if (depth >= 0 && !timeline)
        return usage_error("%s", "--depth is the depth of --timeline: give --timeline too");
    if (timeline && (summary || go.confidence > 0 || gate_on))
        return usage_error("%s", "--timeline is a table of its own: not with --summary, --fail-above or --confidence");
    if (go.confidence > 0 && summary)
        return usage_error("%s", "--summary and --confidence are two different tables: choose one");
    if (argc - optind != 2)
        return usage_error("%s", argc - optind < 2 ? "two inputs needed: A B"
                                                   : "only two inputs can be compared: A B");
    const tp_view *dv = timeline ? tp_diff_timeline_view()
                        : go.confidence > 0 ? tp_gate_view(waterfall) : tp_diff_view(summary);
    int columns_given = out.columns != NULL;
    if (!out.columns)
        out.columns = go.confidence > 0 && !waterfall ? tp_gate_default_columns(&gate)
                                                      : tp_view_default_columns(dv, NULL);
    if (tp_view_check_columns(dv, out.columns, &err) != TP_OK) {
        fprintf(stderr, "tprof: argument -c: %s\n", err.msg);
        return 2;
    }
    if (out.sort && !tp_view_has_column(dv, out.sort)) {
        fprintf(stderr, "tprof: argument --sort: %s is not a valid column name\n", out.sort);
        return 2;
    }
    if (!format_chosen && isatty(STDOUT_FILENO)) {
        out.format = TP_FMT_COLUMNS;
        out.width = cli_terminal_width();
    }

    int sums = (tp_path_is_summary(argv[optind]) != 0) + (tp_path_is_summary(argv[optind + 1]) != 0);
    if (sums == 1)
        return usage_error("%s", "compare two summary sets (tprof summarize), or two traces or runs");
    if (sums == 2) {
        if (timeline || go.confidence > 0 || steps || ranks)
            return usage_error("%s", "summary files keep totals per name: --timeline, --confidence, --step "
                               "and --rank read traces");
        return diff_summaries(argv[optind], argv[optind + 1], summary, &out, gate_on ? &gate : NULL, junit);
    }
    int bad = 0;
    tp_store *a = load(argv[optind], ranks, steps, &bad);
    if (!a)
        return 2;
    tp_store *b = load(argv[optind + 1], ranks, steps, &bad);
    if (!b) {
        tp_store_free(a);
        return 2;
    }
    if (go.confidence > 0) {
        int st = print_gate(a, b, &gate, &go, &out, waterfall, junit, argv[optind], argv[optind + 1],
                            columns_given, plot);
        tp_store_free(a);
        tp_store_free(b);
        return bad ? 2 : st;
    }
    struct tp_diff_summary s;
    tp_diff_summarize(a, b, &s);
    if (!summary && !timeline && isatty(STDOUT_FILENO))
        print_headline(&s);
    tp_table *t = NULL;
    int rc = timeline ? tp_diff_timeline(a, b, depth < 0 ? 1 : depth, &t, &err)
             : summary ? tp_diff_summary_table(&s, &t, &err) : tp_diff_build(a, b, &t, &err);
    if (rc == TP_OK && plot)
        rc = tp_diff_attach_plot(t, &err);
    tp_store_free(a);
    tp_store_free(b);
    return finish(rc, &err, t, &s, &out, gate_on ? &gate : NULL, junit, argv[optind], argv[optind + 1], bad);
}
