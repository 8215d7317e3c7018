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
       OPT_FAIL_ABOVE, OPT_JUNIT };

static const struct option diff_opts[] = {
    {"columns", required_argument, NULL, 'c'},
    {"width", required_argument, NULL, 'w'},
    {"csv", no_argument, NULL, OPT_CSV},
    {"space", no_argument, NULL, OPT_SPACE},
    {"jsonl", no_argument, NULL, OPT_JSONL},
    {"markdown", no_argument, NULL, OPT_MARKDOWN},
    {"sort", required_argument, NULL, OPT_SORT},
    {"top", required_argument, NULL, OPT_TOP},
    {"no-header", no_argument, NULL, OPT_NO_HEADER},
    {"summary", no_argument, NULL, OPT_SUMMARY},
    {"fail-above", required_argument, NULL, OPT_FAIL_ABOVE},
    {"junit", required_argument, NULL, OPT_JUNIT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
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
            "      --csv | --space | --jsonl | --markdown   output format\n"
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
            "\n"
            "Exit status: 0 ok, 1 regression past --fail-above, 2 bad usage or unreadable input.\n"
            "\ncolumns (-c):\n");
    tp_view_print_columns(tp_diff_view(0), out);
    fprintf(out, "\ncolumns with --summary:\n");
    tp_view_print_columns(tp_diff_view(1), out);
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
static tp_store *load_run(const char *path, int *bad)
{
    tp_error err = {0};
    tp_run *r = NULL;
    if (tp_run_open(&r, path, NULL, &err) != TP_OK) {
        fprintf(stderr, "tprof: %s\n", err.msg);
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
static tp_store *load(const char *path, int *bad)
{
    if (tp_path_is_run(path))
        return load_run(path, bad);
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

int cmd_diff(int argc, char **argv)
{
    struct tp_output_opts out;
    tp_output_opts_init(&out);
    int summary = 0, format_chosen = 0, csv = 0, width_given = 0, gate_on = 0;
    const char *junit = NULL;
    struct tp_diff_gate gate;
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
        case 'h': diff_usage(stdout); return 0;
        case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (csv && width_given)
        return usage_error("%s", "--csv and -w cannot be used together");
    if (junit && !gate_on)
        return usage_error("%s", "--junit reports the gate: give --fail-above too");
    if (argc - optind != 2)
        return usage_error("%s", argc - optind < 2 ? "two inputs needed: A B"
                                                   : "only two inputs can be compared: A B");
    const tp_view *dv = tp_diff_view(summary);
    if (!out.columns)
        out.columns = tp_view_default_columns(dv, NULL);
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

    int bad = 0;
    tp_store *a = load(argv[optind], &bad);
    if (!a)
        return 2;
    tp_store *b = load(argv[optind + 1], &bad);
    if (!b) {
        tp_store_free(a);
        return 2;
    }
    struct tp_diff_summary s;
    tp_diff_summarize(a, b, &s);
    if (!summary && isatty(STDOUT_FILENO))
        print_headline(&s);
    tp_table *t = NULL;
    int rc = summary ? tp_diff_summary_table(&s, &t, &err) : tp_diff_build(a, b, &t, &err);
    int status = bad ? 2 : 0;
    if (rc != TP_OK) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        status = 2;
    } else if (tp_table_write(t, &out, stdout, &err) != TP_OK) {
        if (err.sys_errno != EPIPE) {   /* a reader that went away is not an error */
            fprintf(stderr, "tprof: %s\n", err.msg);
            status = 2;
        }
    }
    fflush(stdout);
    tp_table_free(t);
    tp_store_free(a);
    tp_store_free(b);
    if (status == 0 && gate_on) {
        char msg[256];
        if (tp_diff_check(&s, &gate, msg, sizeof msg)) {
            fprintf(stderr, "tprof: regression: %s\n", msg);
            status = 1;
        }
        if (junit) {
            FILE *f = fopen(junit, "w");
            int bad_write = !f;
            if (f) {
                bad_write = tp_diff_junit(&s, &gate, argv[optind], argv[optind + 1], f) < 0;
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
