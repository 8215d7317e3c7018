/* tprof.c — the command: parse options, pick a view, load each input, print.
 * No analysis happens here. */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "commands.h"
#include "options.h"
#include "store.h"
#include "table.h"

/* Tell the user what was left out of an input; returns 1 if any of it was
 * malformed (exit status 2). */
static int report_skips(const tp_store *st)
{
    int malformed = 0;
    for (size_t i = 0; i < st->nskips; i++) {
        const struct tp_skip *s = &st->skips[i];
        if (!s->malformed)
            continue;
        malformed = 1;
        fprintf(stderr, "tprof: %s: byte %llu: %s (%llu event%s left out)\n", st->path,
                (unsigned long long)s->first_offset, s->reason, (unsigned long long)s->count,
                s->count == 1 ? "" : "s");
    }
    return malformed;
}

static int terminal_width(void)
{
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    const char *c = getenv("COLUMNS");
    return c && atoi(c) > 0 ? atoi(c) : 80;
}

static int run_one(const struct cli_options *o, const char *path, int first)
{
    int status = 0;
    tp_error err = {0};
    tp_store *st = tp_store_new();
    if (!st) {
        fprintf(stderr, "tprof: out of memory\n");
        return 2;
    }
    int rc = tp_store_load(st, path, &err);
    if (rc != TP_OK) {
        /* A truncated trace still gives the rows of its complete events. */
        if (rc != TP_ERR_TRUNCATED && rc != TP_ERR_FORMAT) {
            fprintf(stderr, "tprof: %s\n", err.msg);
            tp_store_free(st);
            return 2;
        }
        status = 2;
    }
    tp_error lerr = {0};
    tp_table *t = NULL;
    if (tp_store_link(st, &lerr) != TP_OK || tp_view_build(o->view, st, &o->vo, &t, &lerr) != TP_OK) {
        fprintf(stderr, "tprof: %s\n", lerr.msg);
        status = 2;
    } else if (st->n > 0 || status == 0) {
        struct tp_output_opts out = o->out;
        if (!out.columns) {
            const tp_view *v = st->format == TP_SRC_ASCEND && tp_view_npu_twin(o->view)
                                   ? tp_view_npu_twin(o->view) : o->view;
            out.columns = tp_view_default_columns(v, &o->vo);
        }
        if (!first)
            out.header = 0;
        tp_error werr = {0};
        if (tp_table_write(t, &out, stdout, &werr) != TP_OK) {
            /* A reader that went away (head, less) is not an error. */
            if (werr.sys_errno == EPIPE) {
                tp_table_free(t);
                tp_store_free(st);
                exit(0);
            }
            fprintf(stderr, "tprof: %s\n", werr.msg);
            tp_table_free(t);
            tp_store_free(st);
            return 2;
        }
    }
    fflush(stdout);
    if (status)
        fprintf(stderr, "tprof: %s\n", err.msg);
    if (report_skips(st))
        status = 2;
    tp_table_free(t);
    tp_store_free(st);
    return status;
}

int main(int argc, char **argv)
{
    signal(SIGPIPE, SIG_IGN);   /* a closed pipe is a write error we end on quietly */
    if (argc > 1 && strcmp(argv[1], "diff") == 0)
        return cmd_diff(argc - 1, argv + 1);
    struct cli_options o;
    int rc = cli_parse(argc, argv, &o);
    if (rc)
        return rc;
    if (o.version) {
        printf("tprof %s\n", tp_version());
        return 0;
    }
    if (o.help) {
        if (!o.view_named)
            cli_usage(stdout);
        printf("%stprof %s: %s\n\ncolumns (-c):\n", o.view_named ? "" : "\n", o.view->name, o.view->summary);
        tp_view_print_columns(o.view, stdout);
        return 0;
    }
    if (o.ninputs == 0) {
        fprintf(stderr, "tprof: no input file (use - for stdin)\nTry 'tprof --help'.\n");
        return 2;
    }
    if (!o.format_chosen && isatty(STDOUT_FILENO)) {
        o.out.format = TP_FMT_COLUMNS;
        o.out.width = terminal_width();
        o.vo.columnated = 1;
    }
    /* Check the column list before reading anything. */
    tp_error err = {0};
    if (o.out.columns && tp_view_check_columns(o.view, o.out.columns, &err) != TP_OK) {
        fprintf(stderr, "tprof: argument -c: %s\n", err.msg);
        return 2;
    }
    int status = 0;
    for (int i = 0; i < o.ninputs; i++) {
        int r = run_one(&o, o.inputs[i], i == 0);
        if (r > status)
            status = r;
    }
    return status;
}
