/* commands.h — subcommands that take their own argument list (git-style),
 * dispatched from main() before the view options are parsed. */
#ifndef TPROF_CLI_COMMANDS_H
#define TPROF_CLI_COMMANDS_H

/* `tprof diff [OPTIONS] A B`; argv[0] is "diff".  Exit status: 0 ok, 1 a
 * regression past --fail-above, 2 bad usage or unreadable input. */
int cmd_diff(int argc, char **argv);

/* `tprof import FILE -o OUT.tprof`: the persistent store of one input. */
int cmd_import(int argc, char **argv);

/* `tprof report FILE -o OUTDIR`: load once, write every view that applies. */
int cmd_report(int argc, char **argv);

#endif
