/* cmd_import.c — `tprof import FILE -o OUT.tprof`: load and link a trace once
 * and keep the result as a .tprof store (lib/store_file.c), which every view
 * then reads many times faster than the trace. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "report.h"
#include "tprof.h"

static void import_usage(FILE *out)
{
    fprintf(out,
            "usage: tprof import FILE -o OUT.tprof\n"
            "\n"
            "Load and link FILE (a kineto trace, an nvprof/nsys SQLite dump, a PyProf dict\n"
            "or an Ascend profiler folder) and write it as a .tprof store: compressed\n"
            "columns that every view and `tprof report` read in place of FILE, printing\n"
            "exactly what they print for FILE.  A truncated input is stored with what\n"
            "could be read, and every view of the store says so again.\n"
            "\n"
            "options:\n"
            "  -o, --output OUT   the .tprof file to write (replaced atomically)\n"
            "  -h, --help         this help\n"
            "\n"
            "Exit status: 0 ok, 2 bad usage, an unreadable input or a write error.\n");
}

int cmd_import(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *out = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'h': import_usage(stdout); return 0;
        default: fprintf(stderr, "Try 'tprof import --help'.\n"); return 2;
        }
    }
    if (optind != argc - 1 || !out) {
        fprintf(stderr, "tprof: import: %s\nTry 'tprof import --help'.\n",
                optind >= argc ? "no input file" : optind < argc - 1 ? "one input at a time" : "no -o OUT.tprof");
        return 2;
    }
    const char *in = argv[optind];
    if (tp_path_is_run(in)) {
        fprintf(stderr, "tprof: %s: import takes one trace; import each rank of a run on its own\n", in);
        return 2;
    }
    tp_store *st = tp_store_new();
    if (!st) {
        fprintf(stderr, "tprof: out of memory\n");
        return 2;
    }
    tp_error lerr = {0}, err = {0};
    int rc = tp_store_load(st, in, &lerr);
    int status = 0;
    if (rc != TP_OK && rc != TP_ERR_TRUNCATED && rc != TP_ERR_FORMAT) {
        fprintf(stderr, "tprof: %s\n", lerr.msg);
        tp_store_free(st);
        return 2;
    }
    if (rc != TP_OK) {
        fprintf(stderr, "tprof: %s\n", lerr.msg);   /* stored too: every view says it again */
        status = 2;
    }
    if (tp_store_save(st, rc == TP_OK ? NULL : &lerr, out, &err) != TP_OK) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        status = 2;
    }
    tp_store_free(st);
    return status;
}
