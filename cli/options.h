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
    int quiet;                /* --quiet: no notes on stderr (coverage, what a view could not show) */
    char **inputs;
    int ninputs;
};

/* Parse argv; on a usage error print it and return 2, 0 otherwise. */
int cli_parse(int argc, char **argv, struct cli_options *o);
void cli_usage(FILE *out);

#endif
