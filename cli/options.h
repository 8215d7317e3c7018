/* options.h — the command line, parsed once into a struct. */
#ifndef TPROF_CLI_OPTIONS_H
#define TPROF_CLI_OPTIONS_H

#include "tprof.h"

struct cli_options {
    const tp_view *view;
    int view_named;           /* the view was given as the first word */
    struct tp_output_opts out;
    struct tp_view_opts vo;
    int format_chosen;        /* --csv, -w, --space or --jsonl given */
    int help, version;
    const char *capture;      /* --capture: capture trace(s) of the graph replays */
    const char *ranks;        /* --rank LIST: the ranks of a run to read */
    int with_file;            /* --with-file: every input's rows in one table under a file column */
    int quiet;                /* --quiet: no notes on stderr (coverage, what a view could not show) */
    char **inputs;
    int ninputs;
};

/* Parse argv; on a usage error print it and return 2, 0 otherwise.  The
 * global options are cli_parse's own; a view option (tp_view_options) is
 * set through tp_view_set_option once the view is known. */
int cli_parse(int argc, char **argv, struct cli_options *o);
/* The usage: commands (the command table), global options, and every view
 * option with the views that honour it. */
void cli_usage(FILE *out);
/* The usage (named 0) or a view's help (named 1), then the view's options
 * and columns. */
void cli_help(const tp_view *v, int named, FILE *out);
/* The names of the command table, for "did you mean"; returns how many. */
size_t cli_command_words(const char **w, size_t cap);

/* getopt_long entries `tprof diff` shares with the views' command line:
 * the output format, and the rows (the includer defines the OPT_ values). */
#define CLI_FORMAT_LONGOPTS                                                                            \
    {"columns", required_argument, NULL, 'c'}, {"width", required_argument, NULL, 'w'},                \
        {"csv", no_argument, NULL, OPT_CSV}, {"space", no_argument, NULL, OPT_SPACE},                  \
        {"jsonl", no_argument, NULL, OPT_JSONL}, {"markdown", no_argument, NULL, OPT_MARKDOWN},        \
        {"tsv", no_argument, NULL, OPT_TSV}
#define CLI_ROWS_LONGOPTS                                                                              \
    {"sort", required_argument, NULL, OPT_SORT}, {"top", required_argument, NULL, OPT_TOP},            \
        {"no-header", no_argument, NULL, OPT_NO_HEADER}

/* Entries of a getopt_long table: an option without an argument, and one
 * that takes one. */
#define CLI_FLAG(name, val) {name, no_argument, NULL, val}
#define CLI_ARG(name, val) {name, required_argument, NULL, val}
/* The end of a subcommand's table: every subcommand takes --help (-h). */
#define CLI_LONGOPTS_END CLI_FLAG("help", 'h'), {NULL, 0, NULL, 0}

/* The options every view takes (getopt_long's table), *n of them. */
struct option;
const struct option *cli_global_options(size_t *n);

/* -w W and --top N, shared with `tprof diff`: 0, or -1 when the value is not
 * a number or out of range (-w above CLI_MAX_WIDTH, --top below 1); the
 * messages to give with the value then are CLI_WIDTH_ERROR / CLI_TOP_ERROR. */
#define CLI_MAX_WIDTH 10000   /* beyond any terminal: a typo, not a layout */
#define CLI_WIDTH_ERROR "-w: '%s' is not a width (a number, at most 10000)"
#define CLI_TOP_ERROR "--top: '%s' is not a positive number"
int cli_parse_width(const char *arg, int *width);
int cli_parse_top(const char *arg, size_t *top);

#endif
