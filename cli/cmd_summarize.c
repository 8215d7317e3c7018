/* cmd_summarize.c — `tprof summarize FILE|RUNDIR -o OUTDIR`: one summary
 * file per rank (lib/summary/), which `VIEW --merge OUTDIR` and `tprof diff`
 * read in place of the traces: a Slurm job array summarizes its ranks where
 * they were written, and one process merges the small files. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "commands.h"
#include "options.h"
#include "report.h"
#include "tprof.h"

static void summarize_usage(FILE *out)
{
    fprintf(out,
            "usage: tprof summarize FILE|RUNDIR -o OUTDIR [--rank LIST] [--span S]\n"
            "\n"
            "Write one summary file per rank into OUTDIR (NAME.tpsum for each trace NAME):\n"
            "an SQLite database with the rank, world size, host, source file, its size and\n"
            "CRC-32, the tprof and format versions, and the exact mergeable summaries of\n"
            "the kernels (--group name, props), ops (--group name, shape), steps, api,\n"
            "labels, memops and nvtx views, and of diff's per-name totals.\n"
            "`tprof VIEW --merge OUTDIR` (or the .tpsum files given one by one) prints\n"
            "what `tprof VIEW --merge RUNDIR` prints; `tprof diff` compares two such sets.\n"
            "\n"
            "options:\n"
            "  -o, --output OUTDIR  the directory to write into (made when absent)\n"
            "      --rank LIST      only the ranks of LIST (0,2,5-7)\n"
            "      --span S         only span S of the run (the plugin's worker.span files)\n"
            "  -h, --help           this help\n"
            "\n"
            "Exit status: 0 ok, 2 bad usage, an unreadable or malformed input or a write error.\n");
}

/* What a rank left once its summary file was written: whether it was, the
 * rank written into it, and why not. */
struct summarized {
    char out[4200];            /* the file written */
    int kept;                  /* the run kept the rank: its file stays */
    int saved;
    int64_t rank;              /* written in the file: the trace's or its name's; INT64_MIN none */
    tp_error err;
    int malformed;
};

struct summarize_ctx {
    const char *run, *outdir;
};

/* A rank the run leaves out (claimed twice, or not in --rank) keeps no
 * file; tp_run_free drops the kept ones too. */
static void drop(void *p)
{
    struct summarized *x = p;
    if (x && x->saved && !x->kept)
        unlink(x->out);
    free(x);
}

/* An Ascend folder's views are its NPU twins, built from the folder's own
 * tables: no summary holds them.  1 (err set) for such a store. */
static int refuse_ascend(const tp_store *st, const char *path, tp_error *err)
{
    if (!tp_store_is_ascend(st))
        return 0;
    tp_error_set(err, TP_ERR_USAGE, "%s: an Ascend profiler folder is not summarized (its NPU views read the "
                 "folder's own tables): give the views the folder itself", path);
    return 1;
}

/* In a loading thread: the summary of every summarized view of one rank,
 * written at once and freed, so memory is that of the ranks in flight
 * whatever the number of ranks.  The rank written is the trace's or its
 * name's; summarize() corrects it where the run settles on another. */
static void *reduce(const struct tp_run_rank *k, void *ctx)
{
    const struct summarize_ctx *c = ctx;
    struct summarized *x = calloc(1, sizeof *x);
    tp_summary *s = NULL;
    if (!x)
        return NULL;
    x->malformed = cli_report_skips(k->store);
    if (refuse_ascend(k->store, k->path, &x->err) || tp_summary_build(k->store, NULL, NULL, &s, &x->err) != TP_OK)
        return x;
    int64_t rank = tp_store_rank(k->store);
    if (rank < 0)
        rank = tp_run_name_rank(k);
    x->rank = rank >= 0 ? rank : INT64_MIN;
    tp_summary_meta(s)->rank = x->rank;
    cli_out_name(x->out, sizeof x->out, c->outdir, k->path, "tpsum");
    x->saved = tp_summary_save(s, k->path, c->run, x->out, &x->err) == TP_OK;
    tp_summary_free(s);
    return x;
}

static int summarize(tp_run *r, const char *run, const char *outdir)
{
    tp_error err = {0};
    struct summarize_ctx ctx = {run, outdir};
    int status = tp_run_reduce(r, cli_threads(), reduce, drop, &ctx, &err) == TP_OK ? 0 : 2;
    if (err.status == TP_ERR_USAGE) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        return 2;
    }
    for (size_t i = 0; i < tp_run_size(r); i++) {
        const struct tp_run_rank *k = tp_run_rank(r, i);
        if (k->status != TP_OK)
            fprintf(stderr, "tprof: %s (rank %lld)\n", k->err.msg, (long long)k->rank);
        struct summarized *x = k->result;
        if (x)
            x->kept = k->usable;
        if (!k->usable)
            continue;   /* its file goes with it (drop) */
        if (!x || !x->saved) {
            fprintf(stderr, "tprof: %s (rank %lld)\n", x ? x->err.msg : "out of memory", (long long)k->rank);
            status = 2;
            continue;
        }
        if (x->malformed)
            status = 2;
        /* settled: distributedInfo, the name, or the order */
        if (k->rank != x->rank && tp_summary_file_set_rank(x->out, k->rank, &err) != TP_OK) {
            fprintf(stderr, "tprof: %s\n", err.msg);
            status = 2;
        }
    }
    cli_report_notes(tp_run_notes(r));
    return status;
}

/* One trace (a file, or an Ascend folder): loaded, linked, summarized. */
static int summarize_one(const char *in, const char *outdir)
{
    tp_store *st = tp_store_new();
    tp_error lerr = {0}, err = {0};
    if (!st) {
        fprintf(stderr, "tprof: out of memory\n");
        return 2;
    }
    int rc = tp_store_load(st, in, &lerr), status = 0;
    if (rc != TP_OK) {
        fprintf(stderr, "tprof: %s\n", lerr.msg);
        status = 2;
        if (rc != TP_ERR_TRUNCATED && rc != TP_ERR_FORMAT && tp_store_event_count(st) == 0) {
            tp_store_free(st);
            return 2;   /* nothing read: nothing to summarize */
        }
    }
    tp_summary *s = NULL;
    if (cli_report_skips(st))
        status = 2;
    char out[4200];
    cli_out_name(out, sizeof out, outdir, in, "tpsum");
    if (tp_store_link(st, &err) != TP_OK || refuse_ascend(st, in, &err) ||
        tp_summary_build(st, NULL, NULL, &s, &err) != TP_OK ||
        tp_summary_save(s, in, NULL, out, &err) != TP_OK) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        status = 2;
    }
    tp_summary_free(s);
    tp_store_free(st);
    return status;
}

int cmd_summarize(int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_ARG("output", 'o'),
        CLI_ARG("rank", 'r'),
        CLI_ARG("span", 's'),
        CLI_LONGOPTS_END,
    };
    const char *out = NULL, *ranks = NULL, *span = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'r': ranks = optarg; break;
        case 's': span = optarg; break;
        default: return cli_help_or_hint(c, "summarize", summarize_usage);
        }
    }
    const char *in = cli_one_input("summarize", argc, argv, out, "no input", "OUTDIR");
    if (!in)
        return 2;
    int is_run = tp_path_is_run(in);
    if (span && !is_run) {
        fprintf(stderr, "tprof: --span %s: --span selects a span of a run directory\n", span);
        return 2;
    }
    if (ranks && !is_run) {
        fprintf(stderr, "tprof: --rank %s: --rank selects ranks of a run directory\n", ranks);
        return 2;
    }
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "tprof: %s: %s\n", out, strerror(errno));
        return 2;
    }
    if (!is_run)
        return summarize_one(in, out);
    tp_run *r = NULL;
    tp_error err = {0};
    if (tp_run_open(&r, in, span, &err) != TP_OK || (ranks && tp_run_keep_ranks(r, ranks, &err) != TP_OK)) {
        fprintf(stderr, "tprof: %s\n", err.msg);
        tp_run_free(r);
        return 2;
    }
    char run[1024];   /* the run as tp_run_merge names it: no trailing slash */
    snprintf(run, sizeof run, "%s", in);
    for (size_t l = strlen(run); l > 1 && run[l - 1] == '/';)
        run[--l] = 0;
    int status = summarize(r, run, out);
    tp_run_free(r);
    return status;
}
