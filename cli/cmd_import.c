/* cmd_import.c — `tprof import FILE -o OUT.tprof`: load and link a trace once
 * and keep the result as a .tprof store (lib/store_file.c), which every view
 * then reads many times faster than the trace. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "commands.h"
#include "options.h"
#include "report.h"
#include "tprof.h"

static void import_usage(FILE *out)
{
    fprintf(out,
            "usage: tprof import FILE -o OUT.tprof\n"
            "       tprof import RUNDIR -o OUTDIR\n"
            "\n"
            "Load and link FILE (a kineto trace, an nvprof/nsys SQLite dump, a PyProf dict\n"
            "or an Ascend profiler folder) and write it as a .tprof store: compressed\n"
            "columns that every view and `tprof report` read in place of FILE, printing\n"
            "exactly what they print for FILE.  A truncated input is stored with what\n"
            "could be read, and every view of the store says so again.  A run directory\n"
            "becomes a directory of stores, one per rank (NAME.tprof for each trace or\n"
            "Ascend folder NAME), which is itself a run that every view accepts.\n"
            "\n"
            "options:\n"
            "  -o, --output OUT   the .tprof file to write (replaced atomically)\n"
            "  -h, --help         this help\n"
            "\n"
            "Exit status: 0 ok, 2 bad usage, an unreadable input or a write error.\n");
}

/* Load `in` and store it as `out`; 0, or 2 after a message. */
static int import_one(const char *in, const char *out)
{
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

/* Every rank of a run, one at a time (memory stays that of one rank), into
 * OUTDIR/NAME.tprof. */
static int import_run(const char *dir, const char *outdir)
{
    tp_run *r = NULL;
    tp_error err = {0};
    if (tp_run_open(&r, dir, NULL, &err) != TP_OK) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        return 2;
    }
    if (mkdir(outdir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "tprof: %s: %s\n", outdir, strerror(errno));
        tp_run_free(r);
        return 2;
    }
    int status = 0;
    for (size_t i = 0; i < tp_run_size(r); i++) {
        const char *path = tp_run_rank(r, i)->path;
        char out[4096];
        cli_out_name(out, sizeof out, outdir, path, "tprof");
        int s = import_one(path, out);
        if (s > status)
            status = s;
    }
    const char *notes = tp_run_notes(r);
    for (const char *p = notes; p && *p;) {   /* spans left out, disagreeing ranks */
        const char *e = strchr(p, '\n');
        int len = e ? (int)(e - p) : (int)strlen(p);
        fprintf(stderr, "tprof: %.*s\n", len, p);
        p += len + (e ? 1 : 0);
    }
    tp_run_free(r);
    return status;
}

int cmd_import(int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_ARG("output", 'o'),
        CLI_LONGOPTS_END,
    };
    const char *out = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        default: return cli_help_or_hint(c, "import", import_usage);
        }
    }
    const char *in = cli_one_input("import", argc, argv, out, "no input file", "OUT.tprof");
    if (!in)
        return 2;
    if (tp_path_is_run(in))
        return import_run(in, out);
    return import_one(in, out);
}
