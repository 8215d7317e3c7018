/* commands.c — the one command table: the library's views and the
 * subcommands, for dispatch (main), usage (--help) and "did you mean". */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"

static const struct cli_command subcommands[] = {
    {"diff", "compare two traces: tprof diff A B [--summary] [--fail-above 5%]", NULL, cmd_diff},
    {"import", "keep a loaded trace as a .tprof store: tprof import FILE|RUNDIR -o OUT", NULL, cmd_import},
    {"summarize", "exact mergeable summaries, one SQLite file per rank: tprof summarize FILE|RUNDIR -o OUTDIR", NULL,
     cmd_summarize},
    {"report", "every view from one load, one file each: tprof report FILE -o OUTDIR", NULL, cmd_report},
    {"cut", "a slice of a trace for Perfetto: tprof cut FILE --step N | --window T0..T1 -o OUT", NULL, cmd_cut},
    {"help", "tprof help VIEW: a view's options and columns", NULL, cmd_help},
    {"completion", "shell completion: tprof completion bash|zsh (installed by make install)", NULL, cmd_completion},
};
#define NSUB (sizeof subcommands / sizeof *subcommands)

const struct cli_command *cli_commands(size_t *n)
{
    /* Built once from the view registry: the library owns the views, the
     * CLI only names them beside its subcommands. */
    static struct cli_command *table;
    static size_t count;
    if (!table) {
        size_t nviews = 0;
        while (tp_views()[nviews])
            nviews++;
        struct cli_command *t = malloc((nviews + NSUB) * sizeof *t);
        if (!t) {
            *n = NSUB;   /* out of memory: the subcommands still work */
            return subcommands;
        }
        for (size_t i = 0; i < nviews; i++)
            t[i] = (struct cli_command){tp_views()[i]->name, tp_views()[i]->summary, tp_views()[i], NULL};
        memcpy(t + nviews, subcommands, sizeof subcommands);
        table = t;
        count = nviews + NSUB;
    }
    *n = count;
    return table;
}

const struct cli_command *cli_command_find(const char *name)
{
    size_t n;
    const struct cli_command *c = cli_commands(&n);
    for (size_t i = 0; name && i < n; i++)
        if (strcmp(c[i].name, name) == 0)
            return &c[i];
    return NULL;
}

const char *cli_one_input(const char *cmd, int argc, char **argv, const char *out, const char *none,
                          const char *out_what)
{
    if (optind == argc - 1 && out)
        return argv[optind];
    fprintf(stderr, "tprof: %s: ", cmd);
    if (optind >= argc)
        fputs(none, stderr);
    else if (optind < argc - 1)
        fputs("one input at a time", stderr);
    else
        fprintf(stderr, "no -o %s", out_what);
    fprintf(stderr, "\nTry 'tprof %s --help'.\n", cmd);
    return NULL;
}

int cli_help_or_hint(int c, const char *cmd, void (*usage)(FILE *out))
{
    if (c == 'h') {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "Try 'tprof %s --help'.\n", cmd);
    return 2;
}
