/* commands.h — the command table: every word a command line may start with
 * (each view of the library, then diff, import, report and help), with its
 * one-line summary for `tprof --help`.  Subcommands take their own argument
 * list (git-style); a view's command line is parsed by cli_parse. */
#ifndef TPROF_CLI_COMMANDS_H
#define TPROF_CLI_COMMANDS_H

#include <stddef.h>
#include <stdio.h>
#include "tprof.h"

struct cli_command {
    const char *name;
    const char *summary;                  /* one line for `tprof --help` */
    const tp_view *view;                  /* a view: run by main() over its inputs */
    int (*run)(int argc, char **argv);    /* a subcommand: argv[0] is its name */
};

/* Every command, views first (tp_views() order: the first is the default),
 * *n of them. */
const struct cli_command *cli_commands(size_t *n);

/* The command named `name`, or NULL. */
const struct cli_command *cli_command_find(const char *name);

/* `tprof diff [OPTIONS] A B`.  Exit status: 0 ok, 1 a regression past
 * --fail-above, 2 bad usage or unreadable input. */
int cmd_diff(int argc, char **argv);

/* `tprof import FILE -o OUT.tprof`: the persistent store of one input. */
int cmd_import(int argc, char **argv);

/* `tprof summarize FILE|RUNDIR -o OUTDIR`: a summary file per rank. */
int cmd_summarize(int argc, char **argv);

/* `tprof report FILE -o OUTDIR`: load once, write every view that applies. */
int cmd_report(int argc, char **argv);

/* `tprof cut FILE --step N[-M] | --window T0..T1 -o OUT`: a slice of a
 * kineto trace, as a kineto trace. */
int cmd_cut(int argc, char **argv);

/* For the subcommands of one input and -o (import, summarize, report):
 * after getopt, argv[optind]; or NULL once "tprof: CMD: no input file" (as
 * `none` says), "one input at a time" or "no -o OUT" (`out_what` names OUT)
 * and the --help hint are on stderr, out being NULL when -o was not given. */
const char *cli_one_input(const char *cmd, int argc, char **argv, const char *out, const char *none,
                          const char *out_what);

/* The end of a subcommand's getopt switch: -h (c == 'h') prints the usage
 * on stdout and gives 0; anything else says "Try 'tprof CMD --help'." on
 * stderr and gives 2, the exit status of bad usage. */
int cli_help_or_hint(int c, const char *cmd, void (*usage)(FILE *out));

/* `tprof help [VIEW|COMMAND]`: the usage, a view's options and columns, or
 * a subcommand's own --help. */
int cmd_help(int argc, char **argv);

/* `tprof completion bash|zsh`: a completion script generated from this
 * table, the views' options and their column keys. */
int cmd_completion(int argc, char **argv);

#endif
