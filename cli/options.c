/* options.c — getopt_long over tprof's options; no analysis here. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <regex.h>
#include <sys/stat.h>
#include "options.h"
#include "suggest.h"

enum { OPT_CSV = 256, OPT_SPACE, OPT_JSONL, OPT_MARKDOWN, OPT_TSV, OPT_HEADER, OPT_NAME, OPT_TIMEUNIT, OPT_SORT, OPT_TOP, OPT_GROUP, OPT_DEVICE, OPT_EVENTS,
       OPT_CURVE, OPT_ALL_STEPS, OPT_NO_HEADER, OPT_VERSION, OPT_PLOT, OPT_COMM, OPT_MERGE,
       OPT_SPAN, OPT_HTA_QUIRKS, OPT_MAX_QUEUE, OPT_RUNTIME_CUTOFF, OPT_LAUNCH_DELAY_CUTOFF,
       OPT_QUIET, OPT_CAPTURE, OPT_PATH, OPT_STEP, OPT_ANNOTATION, OPT_INSTANCE, OPT_SHORT };

static const struct option long_opts[] = {
    {"columns", required_argument, NULL, 'c'},
    {"width", required_argument, NULL, 'w'},
    {"csv", no_argument, NULL, OPT_CSV},
    {"space", no_argument, NULL, OPT_SPACE},
    {"jsonl", no_argument, NULL, OPT_JSONL},
    {"markdown", no_argument, NULL, OPT_MARKDOWN},
    {"tsv", no_argument, NULL, OPT_TSV},
    {"name", required_argument, NULL, OPT_NAME},
    {"timeunit", required_argument, NULL, OPT_TIMEUNIT},
    {"header", required_argument, NULL, OPT_HEADER},
    {"sort", required_argument, NULL, OPT_SORT},
    {"top", required_argument, NULL, OPT_TOP},
    {"group", required_argument, NULL, OPT_GROUP},
    {"device", required_argument, NULL, OPT_DEVICE},
    {"events", no_argument, NULL, OPT_EVENTS},
    {"curve", no_argument, NULL, OPT_CURVE},
    {"all-steps", no_argument, NULL, OPT_ALL_STEPS},
    {"no-header", no_argument, NULL, OPT_NO_HEADER},
    {"plot", no_argument, NULL, OPT_PLOT},
    {"comm", no_argument, NULL, OPT_COMM},
    {"merge", no_argument, NULL, OPT_MERGE},
    {"span", required_argument, NULL, OPT_SPAN},
    {"hta-quirks", no_argument, NULL, OPT_HTA_QUIRKS},
    {"max-queue", required_argument, NULL, OPT_MAX_QUEUE},
    {"runtime-cutoff", required_argument, NULL, OPT_RUNTIME_CUTOFF},
    {"launch-delay-cutoff", required_argument, NULL, OPT_LAUNCH_DELAY_CUTOFF},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"capture", required_argument, NULL, OPT_CAPTURE},
    {"path", no_argument, NULL, OPT_PATH},
    {"step", required_argument, NULL, OPT_STEP},
    {"annotation", required_argument, NULL, OPT_ANNOTATION},
    {"instance", required_argument, NULL, OPT_INSTANCE},
    {"short", optional_argument, NULL, OPT_SHORT},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

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
    for (const tp_view *const *v = tp_views(); *v; v++)
        fprintf(out, "  %-10s %s%s\n", (*v)->name, (*v)->summary, v == tp_views() ? " (default)" : "");
    fprintf(out, "  %-10s %s\n", "diff", "compare two traces: tprof diff A B [--summary] [--fail-above 5%]");
    fprintf(out, "  %-10s %s\n", "import", "keep a loaded trace as a .tprof store: tprof import FILE|RUNDIR -o OUT");
    fprintf(out, "  %-10s %s\n", "report", "every view from one load, one file each: tprof report FILE -o OUTDIR");
    fprintf(out, "  %-10s %s\n", "help", "tprof help VIEW: a view's columns");
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
            "      --header names|keys|none   header of column names (default), of column keys\n"
            "                      with NULL cells empty (typed CSV/TSV for pandas, DuckDB), or none\n"
            "      --sort KEYS     sort rows by columns: KEY[,KEY...], numbers descending and text\n"
            "                      ascending unless -KEY (descending) or +KEY (ascending)\n"
            "      --top N         print the first N rows only (N >= 1)\n"
            "      --no-header     leave out the header line\n"
            "      --group G       view-specific grouping\n"
            "      --device D      memory: one device (GPU0, CPU ...)\n"
            "      --events        memory: list allocations; --curve: the memory curve (--plot: draw it)\n"
            "      --all-steps     keep the last ProfilerStep (HTA leaves it out)\n"
            "      --merge         a run directory as one table instead of one block per rank\n"
            "                      (the ranks laid end to end: calls and times summed over ranks)\n"
            "      --span S        a run directory: only span S (the plugin's worker.span files)\n"
            "      --comm          dist: the communication ops table\n"
            "      --hta-quirks    HTA views: HTA's own numbers (µs rounding, its bugs; also TPROF_HTA_QUIRKS=1)\n"
            "      --max-queue N   queue: time with N or more launches queued (HTA: 1024)\n"
            "      --runtime-cutoff US, --launch-delay-cutoff US   launches: HTA's outlier cut-offs\n"
            "      --capture PATH  graph replays charged to the operators of a capture trace\n"
            "                      (a file, or a folder such as TraceLens' capture_traces/)\n"
            "      --quiet         no notes on stderr (the coverage line, what a view left out); errors stay\n"
            "      --short [US]    kernels: the kernels under US microseconds (default 10, TraceLens');\n"
            "                      --group histogram: their durations in 100 bins\n"
            "      --step N, --annotation NAME [--instance K], --path\n"
            "                      critical-path: the window (ProfilerStep#N, or the K-th event\n"
            "                      named ..NAME..) and the path edge by edge\n"
            "  -h, --help          this help; with a VIEW, its columns\n"
            "      --version       print the version\n"
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

/* The words a command line may start with: the views and the subcommands. */
static size_t command_words(const char **w, size_t cap)
{
    static const char *const subs[] = {"diff", "import", "report", "help"};
    size_t n = 0;
    for (const tp_view *const *v = tp_views(); *v && n < cap; v++)
        w[n++] = (*v)->name;
    for (size_t i = 0; i < sizeof subs / sizeof *subs && n < cap; i++)
        w[n++] = subs[i];
    return n;
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
    const char *pick = cli_suggest(word, w, command_words(w, 64));
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
            const char *w[64];
            size_t nw = 0;
            for (const struct option *lo = long_opts; lo->name && nw < 64; lo++)
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

int cli_parse(int argc, char **argv, struct cli_options *o)
{
    memset(o, 0, sizeof *o);
    tp_output_opts_init(&o->out);
    o->view = tp_views()[0];
    int first = 1;
    /* `tprof help [VIEW]` is `tprof [VIEW] --help`. */
    if (argc > 1 && strcmp(argv[1], "help") == 0) {
        o->help = 1;
        if (argc > 2) {
            const tp_view *v = tp_view_find(argv[2]);
            if (!v) {
                const char *w[64];
                const char *pick = cli_suggest(argv[2], w, command_words(w, 64));
                fprintf(stderr, "tprof: help: '%s' is not a view%s%s%s\nTry 'tprof --help'.\n", argv[2],
                        pick ? "; did you mean '" : "", pick ? pick : "", pick ? "'?" : "");
                return 2;
            }
            o->view = v;
            o->view_named = 1;
        }
        return 0;
    }
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
    while ((c = getopt_long(argc, argv, ":c:w:h", long_opts, NULL)) != -1) {
        char *end;
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
        case OPT_GROUP: o->vo.group = optarg; break;
        case OPT_DEVICE: o->vo.device = optarg; break;
        case OPT_EVENTS: o->vo.events = 1; break;
        case OPT_CURVE: o->vo.curve = 1; break;
        case OPT_ALL_STEPS: o->vo.all_steps = 1; break;
        case OPT_NO_HEADER: o->out.header = 0; break;
        case OPT_PLOT: o->vo.plot = 1; break;
        case OPT_COMM: o->vo.comm = 1; break;
        case OPT_MERGE: o->vo.merge = 1; break;
        case OPT_SPAN: o->vo.span = optarg; break;
        case OPT_HTA_QUIRKS: o->vo.hta_quirks = 1; break;
        case OPT_MAX_QUEUE:
            o->vo.max_queue = (int64_t)strtoll(optarg, &end, 10);
            if (*end || end == optarg || o->vo.max_queue <= 0)
                return usage_error("--max-queue: '%s' is not a positive number", optarg);
            break;
        case OPT_RUNTIME_CUTOFF:
        case OPT_LAUNCH_DELAY_CUTOFF: {
            double v = strtod(optarg, &end);
            if (*end || end == optarg || !(v > 0))
                return usage_error("'%s' is not a positive number of microseconds", optarg);
            if (c == OPT_RUNTIME_CUTOFF)
                o->vo.runtime_cutoff_us = v;
            else
                o->vo.launch_delay_cutoff_us = v;
            break;
        }
        case OPT_QUIET: o->quiet = 1; break;
        case OPT_CAPTURE: o->capture = optarg; break;
        case OPT_PATH: o->vo.path = 1; break;
        case OPT_ANNOTATION: o->vo.annotation = optarg; break;
        case OPT_STEP:
        case OPT_INSTANCE: {
            long long v = strtoll(optarg, &end, 10);
            if (*end || end == optarg || v < 0)
                return usage_error("'%s' is not a number >= 0", optarg);
            if (c == OPT_STEP) {
                o->vo.step = v;
                o->vo.step_given = 1;
            } else {
                o->vo.instance = v;
            }
            break;
        }
        case OPT_SHORT: {
            /* --short, --short=US or --short US (a number as the next word) */
            const char *arg = optarg;
            if (!arg && optind < argc && argv[optind][0] >= '0' && argv[optind][0] <= '9') {
                strtod(argv[optind], &end);
                if (!*end)   /* a number, not a file named 2024_trace.json */
                    arg = argv[optind++];
            }
            double v = arg ? strtod(arg, &end) : 10.0;   /* TraceLens' short_kernel_threshold_us */
            if (arg && (*end || end == arg || !(v > 0)))
                return usage_error("--short: '%s' is not a positive number of microseconds", arg);
            o->vo.short_us = v;
            break;
        }
        case 'h': o->help = 1; break;
        case OPT_VERSION: o->version = 1; break;
        case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
        default: return unknown_option(argv[optind - 1]);
        }
    }
    if (csv && width_given)
        return usage_error("%s", "--csv and -w cannot be used together");
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
    return 0;
}
