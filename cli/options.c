/* options.c — getopt_long over tprof's options; no analysis here.
 *
 * The global options (output, inputs, runs) are listed here; the options a
 * view honours are declared by the view in the library (tp_view_options)
 * and reach getopt from there, so a new view option touches no file of the
 * CLI.  A view option is checked against the view once it is known: the
 * view may stand after the options (`tprof --group props kernels F`). */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <regex.h>
#include <sys/stat.h>
#include "commands.h"
#include "options.h"
#include "suggest.h"

enum { OPT_CSV = 256, OPT_SPACE, OPT_JSONL, OPT_MARKDOWN, OPT_TSV, OPT_HEADER, OPT_NAME, OPT_TIMEUNIT, OPT_SORT,
       OPT_TOP, OPT_NO_HEADER, OPT_VERSION, OPT_MERGE, OPT_SPAN, OPT_QUIET, OPT_CAPTURE, OPT_RANK,
       OPT_HUMAN, OPT_WITH_FILE,
       OPT_VIEW = 512 /* + the index of a view option in view_opt_names */ };

static const struct option global_opts[] = {
    CLI_FORMAT_LONGOPTS,
    CLI_ARG("name", OPT_NAME),
    CLI_ARG("timeunit", OPT_TIMEUNIT),
    CLI_ARG("header", OPT_HEADER),
    CLI_ROWS_LONGOPTS,
    CLI_FLAG("merge", OPT_MERGE),
    CLI_ARG("span", OPT_SPAN),
    CLI_FLAG("quiet", OPT_QUIET),
    CLI_ARG("capture", OPT_CAPTURE),
    CLI_ARG("rank", OPT_RANK),
    CLI_FLAG("human", OPT_HUMAN),
    CLI_FLAG("with-file", OPT_WITH_FILE),
    CLI_FLAG("help", 'h'),
    CLI_FLAG("version", OPT_VERSION),
};
#define NGLOBAL (sizeof global_opts / sizeof *global_opts)

/* The options of every view, each name once (the first view declaring it
 * says whether it takes an argument: views agree, api_test checks it). */
#define MAX_VIEW_OPTS 128
static const struct tp_view_option *view_opts[MAX_VIEW_OPTS];
static size_t nview_opts;
static struct option long_opts[NGLOBAL + MAX_VIEW_OPTS + 1];

static int is_global(const char *name)
{
    for (size_t i = 0; i < NGLOBAL; i++)
        if (strcmp(global_opts[i].name, name) == 0)
            return 1;
    return 0;
}

static void collect_view_options(void)
{
    if (nview_opts)
        return;
    for (const tp_view *const *v = tp_views(); *v; v++) {
        size_t n;
        const struct tp_view_option *o = tp_view_options(*v, &n);
        for (size_t i = 0; i < n && nview_opts < MAX_VIEW_OPTS; i++) {
            size_t k = 0;
            while (k < nview_opts && strcmp(view_opts[k]->name, o[i].name) != 0)
                k++;
            if (k == nview_opts && !is_global(o[i].name))
                view_opts[nview_opts++] = &o[i];
        }
    }
    memcpy(long_opts, global_opts, sizeof global_opts);
    for (size_t k = 0; k < nview_opts; k++)
        long_opts[NGLOBAL + k] = (struct option){view_opts[k]->name,
                                                 view_opts[k]->kind == TP_OPT_OPTIONAL ? optional_argument
                                                 : view_opts[k]->arg                 ? required_argument
                                                                                     : no_argument,
                                                 NULL, OPT_VIEW + (int)k};
    long_opts[NGLOBAL + nview_opts] = (struct option){NULL, 0, NULL, 0};
}

/* "      --group G      kernels, ops, memory": each view option once, with
 * the views that honour it (what it does there: `tprof help VIEW`). */
static void print_view_options(FILE *out)
{
    collect_view_options();
    size_t w = 0;
    for (size_t k = 0; k < nview_opts; k++) {
        size_t len = strlen(view_opts[k]->name) + (view_opts[k]->arg ? strlen(view_opts[k]->arg) + 1 : 0);
        if (len > w)
            w = len;
    }
    for (size_t k = 0; k < nview_opts; k++) {
        const struct tp_view_option *o = view_opts[k];
        char head[128];
        snprintf(head, sizeof head, "%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(out, "      --%-*s  ", (int)w, head);
        int first = 1;
        for (const tp_view *const *v = tp_views(); *v; v++)
            if (tp_view_option_find(*v, o->name)) {
                fprintf(out, "%s%s", first ? "" : ", ", (*v)->name);
                first = 0;
            }
        fprintf(out, "\n");
    }
}

void cli_usage(FILE *out)
{
    fprintf(out,
            "usage: tprof [VIEW] [OPTIONS] FILE|DIR... | -\n"
            "\n"
            "Tables from PyTorch profiler traces (JSON, .gz, .zst), nvprof / Nsight Systems\n"
            "SQLite dumps and PyProf dict files.  A directory is a run: one trace per rank,\n"
            "read in parallel, printed as one block per rank (--merge: one table).\n"
            "\n"
            "views:\n");
    size_t ncmd;
    const struct cli_command *cmd = cli_commands(&ncmd);
    for (size_t i = 0; i < ncmd; i++)
        fprintf(out, "  %-10s %s%s\n", cmd[i].name, cmd[i].summary, i == 0 && cmd[i].view ? " (default)" : "");
    fprintf(out,
            "\n"
            "options:\n"
            "  -c, --columns LIST  columns to print, comma-separated (see `tprof VIEW -h`)\n"
            "  -w, --width W       columnated output within W characters (W <= 0: space-separated; at most 10000)\n"
            "      --csv           quoted CSV\n"
            "      --space         space-separated text (the default into a pipe)\n"
            "      --jsonl         one JSON object per row\n"
            "      --markdown      a GitHub-flavoured Markdown table (for PR comments)\n"
            "      --tsv           tab-separated values\n"
            "      --name REGEX    only rows whose name (kernel, op) matches REGEX (POSIX extended)\n"
            "      --timeunit U    time columns in ns, us, ms or s (exact; headers and keys say the unit)\n"
            "      --human         times and bytes with units as torch's key_averages prints them\n"
            "                      (1.234ms, 12.50 MB); columns, space and Markdown output only\n"
            "      --header names|keys|none   header of column names (default), of column keys\n"
            "                      with NULL cells empty (typed CSV/TSV for pandas, DuckDB), or none\n"
            "      --sort KEYS     sort rows by columns: KEY[,KEY...], numbers descending and text\n"
            "                      ascending unless -KEY (descending) or +KEY (ascending)\n"
            "      --top N         print the first N rows only (N >= 1)\n"
            "      --no-header     leave out the header line\n"
            "      --merge         a run directory as one table instead of one block per rank\n"
            "                      (the ranks laid end to end: calls and times summed over ranks)\n"
            "      --span S        a run directory: only span S (the plugin's worker.span files)\n"
            "      --rank LIST     a run directory: only the ranks of LIST (0,2,5-7)\n"
            "      --with-file     one table for every input, a file column (the input's path) first\n"
            "      --capture PATH  graph replays charged to the operators of a capture trace\n"
            "                      (a file, or a folder such as TraceLens' capture_traces/)\n"
            "      --quiet         no notes on stderr (the coverage line, what a view left out); errors stay\n"
            "  -h, --help          this help; with a VIEW, its options and columns\n"
            "      --version       print the version\n"
            "\n"
            "view options (what each does in a view: `tprof help VIEW`):\n");
    print_view_options(out);
    fprintf(out,
            "\n"
            "On a terminal the default is columnated to the terminal width; into a pipe it is\n"
            "prof.py's space-separated text.  Exit status: 0 ok, 2 bad usage or unreadable input\n"
            "(check: 1 when it found warnings, 2 errors).\n");
}

/* Range-checked before the cast: -w 2147483648 wrapped to a negative width,
 * -w 2147483647 padded every line to 2 GB.  W <= 0 is space-separated (0). */
int cli_parse_width(const char *arg, int *width)
{
    char *end;
    errno = 0;
    long w = strtol(arg, &end, 10);
    if (*end || end == arg || errno == ERANGE || w > CLI_MAX_WIDTH)
        return -1;
    *width = w > 0 ? (int)w : 0;
    return 0;
}

/* strtoul took "-1" for ULONG_MAX, every row; 0 is refused too. */
int cli_parse_top(const char *arg, size_t *top)
{
    char *end;
    errno = 0;
    long long n = strtoll(arg, &end, 10);
    if (*end || end == arg || errno == ERANGE || n <= 0)
        return -1;
    *top = (size_t)n;
    return 0;
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "tprof: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\nTry 'tprof --help'.\n");
    return 2;
}

size_t cli_command_words(const char **w, size_t cap)
{
    size_t n, k = 0;
    const struct cli_command *c = cli_commands(&n);
    for (size_t i = 0; i < n && k < cap; i++)
        w[k++] = c[i].name;
    return k;
}

/* A first word that is neither a view nor a file but is a view's name
 * mistyped: say so (exit 2, nothing on stdout) instead of reading it as a
 * missing file after printing the other inputs' tables. */
static int check_typo(const char *word)
{
    struct stat sb;
    if (strcmp(word, "-") == 0 || stat(word, &sb) == 0)
        return 0;
    const char *w[64];
    const char *pick = cli_suggest(word, w, cli_command_words(w, 64));
    if (!pick)
        return 0;
    fprintf(stderr, "tprof: '%s' is not a view or a file; did you mean '%s'?\nTry 'tprof --help'.\n", word, pick);
    return 2;
}

/* "unknown option '--csvv'; did you mean '--csv'?" */
static int unknown_option(const char *arg)
{
    if (arg[0] == '-' && arg[1] == '-') {
        char name[64];
        size_t n = strcspn(arg + 2, "=");
        if (n < sizeof name) {
            memcpy(name, arg + 2, n);
            name[n] = 0;
            const char *w[NGLOBAL + MAX_VIEW_OPTS];
            size_t nw = 0;
            for (const struct option *lo = long_opts; lo->name; lo++)
                w[nw++] = lo->name;
            const char *pick = cli_suggest(name, w, nw);
            if (pick) {
                fprintf(stderr, "tprof: unknown option '%s'; did you mean '--%s'?\nTry 'tprof --help'.\n", arg, pick);
                return 2;
            }
        }
    }
    return usage_error("unknown option '%s'", arg);
}

/* An option whose argument may be left out (--series [INTERVAL]): getopt
 * takes it only as --series=10ms, so the next word is its argument too
 * when it starts with a digit and is not a file (`--series 10ms F`). */
static const char *optional_word(const struct tp_view_option *vo, int argc, char **argv)
{
    struct stat sb;
    if (vo->kind != TP_OPT_OPTIONAL || optind >= argc || !argv[optind] || argv[optind][0] < '0' ||
        argv[optind][0] > '9' || stat(argv[optind], &sb) == 0)
        return NULL;
    return argv[optind++];
}

int cli_parse(int argc, char **argv, struct cli_options *o)
{
    memset(o, 0, sizeof *o);
    tp_output_opts_init(&o->out);
    o->view = tp_views()[0];
    int first = 1;
    collect_view_options();
    /* The first word may name a view (git-style subcommand). */
    if (argc > 1 && argv[1][0] != '-') {
        const tp_view *v = tp_view_find(argv[1]);
        if (v) {
            o->view = v;
            o->view_named = 1;
            first = 2;
        }
    }
    optind = first;
    opterr = 0;
    int c, csv = 0, width_given = 0;
    /* view options wait for the view, which may come after them */
    struct { const char *name, *arg; } given[64];
    size_t ngiven = 0;
    while ((c = getopt_long(argc, argv, ":c:w:h", long_opts, NULL)) != -1) {
        if (c >= OPT_VIEW && c < OPT_VIEW + (int)nview_opts) {
            if (ngiven == sizeof given / sizeof *given)
                return usage_error("%s", "too many view options");
            given[ngiven].name = view_opts[c - OPT_VIEW]->name;
            given[ngiven++].arg = optarg ? optarg : optional_word(view_opts[c - OPT_VIEW], argc, argv);
            continue;
        }
        switch (c) {
        case 'c': o->out.columns = optarg; break;
        case 'w':
            if (cli_parse_width(optarg, &o->out.width) < 0)
                return usage_error(CLI_WIDTH_ERROR, optarg);
            width_given = 1;
            o->vo.width = o->out.width > 0 ? o->out.width : 0;
            o->format_chosen = 1;
            o->out.format = o->out.width > 0 ? TP_FMT_COLUMNS : TP_FMT_SPACE;
            break;
        case OPT_CSV: csv = 1; o->out.format = TP_FMT_CSV; o->format_chosen = 1; break;
        case OPT_SPACE: o->out.format = TP_FMT_SPACE; o->format_chosen = 1; break;
        case OPT_JSONL: o->out.format = TP_FMT_JSONL; o->format_chosen = 1; break;
        case OPT_MARKDOWN: o->out.format = TP_FMT_MARKDOWN; o->format_chosen = 1; break;
        case OPT_TSV: o->out.format = TP_FMT_TSV; o->format_chosen = 1; break;
        case OPT_TIMEUNIT: {
            static const char *const units[] = {"ns", "us", "ms", "s"};
            o->out.timeunit = 0;
            for (int u = 0; u < 4; u++)
                if (strcmp(optarg, units[u]) == 0)
                    o->out.timeunit = TP_UNIT_NS + u;
            if (!o->out.timeunit)
                return usage_error("--timeunit takes ns, us, ms or s, not '%s'", optarg);
            break;
        }
        case OPT_NAME: {
            regex_t re;   /* checked now, so a bad pattern fails before any input is read */
            if (regcomp(&re, optarg, REG_EXTENDED | REG_NOSUB) != 0)
                return usage_error("--name: '%s' is not a regular expression", optarg);
            regfree(&re);
            o->out.name_regex = optarg;
            break;
        }
        case OPT_HEADER:
            if (strcmp(optarg, "names") == 0) { o->out.header = 1; o->out.keys = 0; }
            else if (strcmp(optarg, "keys") == 0) { o->out.header = 1; o->out.keys = 1; }
            else if (strcmp(optarg, "none") == 0) o->out.header = 0;
            else return usage_error("--header takes names, keys or none, not '%s'", optarg);
            break;
        case OPT_SORT: o->out.sort = optarg; break;
        case OPT_TOP:
            if (cli_parse_top(optarg, &o->out.top) < 0)
                return usage_error(CLI_TOP_ERROR, optarg);
            break;
        case OPT_NO_HEADER: o->out.header = 0; break;
        case OPT_MERGE: o->vo.merge = 1; break;
        case OPT_SPAN: o->vo.span = optarg; break;
        case OPT_QUIET: o->quiet = 1; break;
        case OPT_CAPTURE: o->capture = optarg; break;
        case OPT_RANK: o->ranks = optarg; break;
        case OPT_HUMAN: o->out.human = 1; break;
        case OPT_WITH_FILE: o->with_file = 1; break;
        case 'h': o->help = 1; break;
        case OPT_VERSION: o->version = 1; break;
        case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
        default: return unknown_option(argv[optind - 1]);
        }
    }
    if (csv && width_given)
        return usage_error("%s", "--csv and -w cannot be used together");
    /* --human is for reading: a typed format's cells must stay numbers */
    if (o->out.human && (o->out.format == TP_FMT_CSV || o->out.format == TP_FMT_TSV || o->out.format == TP_FMT_JSONL))
        return usage_error("--human prints units for a reader; %s keeps plain numbers (use --timeunit for a unit)",
                           o->out.format == TP_FMT_CSV ? "--csv" : o->out.format == TP_FMT_TSV ? "--tsv" : "--jsonl");
    o->vo.columnated = o->out.format == TP_FMT_COLUMNS;
    o->inputs = argv + optind;
    o->ninputs = argc - optind;
    /* The view may stand anywhere before the inputs (`tprof --csv kernels
     * F`): getopt has moved the words that are not options to the end, in
     * order, so it is the first of them.  A file named like a view is read
     * as ./NAME. */
    if (!o->view_named && o->ninputs > 0) {
        const tp_view *v = tp_view_find(o->inputs[0]);
        if (v) {
            o->view = v;
            o->view_named = 1;
            o->inputs++;
            o->ninputs--;
        } else if (!o->help) {
            int rc = check_typo(o->inputs[0]);
            if (rc)
                return rc;
        }
    }
    /* prof.py has no such mode: its columns are prof.py's, byte for byte */
    if (o->out.human && strcmp(o->view->name, "prof") == 0 && !o->help)
        return usage_error("--human: the %s view prints prof.py's columns as prof.py does (Sil in ns); "
                           "it has no --human", o->view->name);
    /* Now that the view is known: the options it declares, and a clear
     * error for one it does not (it used to be ignored in silence).  With
     * --help the help is all that is asked for. */
    for (size_t k = 0; k < ngiven && !o->help; k++) {
        tp_error err = {0};
        if (tp_view_set_option(o->view, &o->vo, given[k].name, given[k].arg, &err) != TP_OK) {
            fprintf(stderr, "tprof: %s\nTry 'tprof help %s'.\n", err.msg, o->view->name);
            return 2;
        }
    }
    /* A chart is drawn text: it has no CSV, JSON or awk form.  Refused
     * rather than ignored, so a script never gets a picture it cannot read
     * nor a table it did not ask for. */
    if (o->vo.plot && o->format_chosen && o->out.format != TP_FMT_COLUMNS && !o->help) {
        static const char *const names[] = {[TP_FMT_SPACE] = "space-separated text (--space, -w 0)",
                                            [TP_FMT_CSV] = "--csv", [TP_FMT_JSONL] = "--jsonl",
                                            [TP_FMT_MARKDOWN] = "--markdown", [TP_FMT_TSV] = "--tsv"};
        fprintf(stderr, "tprof: --plot draws the table and cannot be written as %s; leave out --plot for the "
                "table\nTry 'tprof help %s'.\n", names[o->out.format], o->view->name);
        return 2;
    }
    return 0;
}

const struct option *cli_global_options(size_t *n)
{
    *n = NGLOBAL;
    return global_opts;
}
