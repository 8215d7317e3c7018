/* cmd_help.c — `tprof help [VIEW|COMMAND]` and `tprof [VIEW] --help`: the
 * usage, and a view's own options and columns, all generated from what the
 * library declares (tp_view_options, the view's columns). */
#include <stdio.h>
#include "commands.h"
#include "options.h"
#include "suggest.h"

void cli_help(const tp_view *v, int named, FILE *out)
{
    if (!named)
        cli_usage(out);
    fprintf(out, "%stprof %s: %s\n\n", named ? "" : "\n", v->name, v->summary);
    size_t nopts;
    if (tp_view_options(v, &nopts) && nopts) {
        fprintf(out, "options (besides the global ones of `tprof --help`):\n");
        tp_view_print_options(v, out);
        fprintf(out, "\n");
    }
    fprintf(out, "columns (-c):\n");
    tp_view_print_columns(v, out);
}

int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        cli_help(tp_views()[0], 0, stdout);
        return 0;
    }
    const struct cli_command *c = cli_command_find(argv[1]);
    if (!c) {
        const char *w[64];
        const char *pick = cli_suggest(argv[1], w, cli_command_words(w, 64));
        fprintf(stderr, "tprof: help: '%s' is not a view or a command%s%s%s\nTry 'tprof --help'.\n", argv[1],
                pick ? "; did you mean '" : "", pick ? pick : "", pick ? "'?" : "");
        return 2;
    }
    if (c->view) {
        cli_help(c->view, 1, stdout);
        return 0;
    }
    if (c->run == cmd_help) {
        cli_help(tp_views()[0], 0, stdout);
        return 0;
    }
    char *args[] = {argv[1], "--help", NULL};   /* `tprof help diff` is `tprof diff --help` */
    return c->run(2, args);
}
