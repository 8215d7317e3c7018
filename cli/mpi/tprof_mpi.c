/* tprof_mpi.c — `mpirun -n P tprof-mpi VIEW [OPTIONS] --merge RUN`: the
 * ranks' traces of a run spread over P processes, each summarized where it
 * is read, the summaries gathered to process 0, which prints exactly what
 * `tprof VIEW [OPTIONS] --merge RUN` prints.
 *
 * Why summaries and not tables: a merged table is not the merge of per-rank
 * tables (a median, a standard deviation, a share of the whole), but the
 * exact mergeable summaries (tprof(1), SUMMARIES) are: integer sums,
 * min/max, 128-bit sums of squares and run-length duration multisets merge
 * associatively, so any split of the ranks over processes gives the same
 * bytes.  Each process sends its summary files (SQLite, a few kB to a few
 * MB) to process 0; process 0 writes them into a temporary directory and
 * runs `tprof VIEW [OPTIONS] --merge DIR` (the tprof beside tprof-mpi, or
 * $TPROF), whose output for a directory of summary files is that of the
 * run itself.
 *
 * A file's rank is its trace's distributedInfo rank, else the rank its
 * name gives (rank-N, workerN): the numbers `tprof --merge RUN` settles on.
 * A trace with neither is refused (its rank would depend on files other
 * processes read). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "tprof.h"

enum { TAG_COUNT = 1, TAG_HEAD, TAG_BODY };

/* What one file became: its index in the run, its bytes (NULL: failed). */
struct part {
    uint64_t index;
    unsigned char *bytes;
    uint64_t len;
};

static void usage(FILE *out)
{
    fprintf(out, "usage: mpirun -n P tprof-mpi VIEW [OPTIONS] --merge RUNDIR\n"
                 "\n"
                 "The ranks of RUNDIR are read by P processes, summarized where they are read,\n"
                 "and merged on process 0, which prints what `tprof VIEW [OPTIONS] --merge RUNDIR`\n"
                 "prints.  VIEW is one whose --merge is built from summaries (kernels, ops,\n"
                 "steps: `tprof help VIEW`).  OPTIONS are tprof's; --span S picks a span.\n"
                 "Environment: TPROF, the tprof program to print with (default: beside tprof-mpi).\n");
}

static int read_file(const char *path, unsigned char **out, uint64_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t cap = 1 << 16, n = 0;
    unsigned char *b = malloc(cap);
    for (size_t k; b && (k = fread(b + n, 1, cap - n, f)) > 0;) {
        n += k;
        if (n == cap) {
            unsigned char *nb = realloc(b, cap *= 2);
            if (!nb) {
                free(b);
                b = NULL;
            }
            b = nb;
        }
    }
    int bad = ferror(f) || !b;
    fclose(f);
    if (bad) {
        free(b);
        return -1;
    }
    *out = b, *len = n;
    return 0;
}

static int write_file(const char *path, const unsigned char *b, uint64_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int bad = fwrite(b, 1, len, f) != len;
    bad |= fclose(f) != 0;
    return bad ? -1 : 0;
}

/* Load, link and summarize rank i of the run into bytes (part->bytes
 * NULL and the reason on stderr when it cannot). */
static void summarize_rank(const tp_run *r, size_t i, const char *run, const char *tmpdir, int me,
                           struct part *p)
{
    const struct tp_run_rank *k = tp_run_rank(r, i);
    tp_error err = {0};
    p->index = i, p->bytes = NULL, p->len = 0;
    tp_store *st = tp_store_new();
    tp_summary *s = NULL;
    if (!st) {
        fprintf(stderr, "tprof-mpi: out of memory\n");
        return;
    }
    int rc = tp_store_load(st, k->path, &err);
    if (rc != TP_OK && (rc != TP_ERR_TRUNCATED || tp_store_event_count(st) == 0)) {
        fprintf(stderr, "tprof-mpi: %s\n", err.msg);
        goto out;
    }
    if (rc != TP_OK)
        fprintf(stderr, "tprof-mpi: %s\n", err.msg);
    if (tp_store_link(st, &err) != TP_OK || tp_summary_build(st, NULL, NULL, &s, &err) != TP_OK) {
        fprintf(stderr, "tprof-mpi: %s\n", err.msg);
        goto out;
    }
    int64_t rank = tp_store_rank(st);
    if (rank < 0)
        rank = tp_run_name_rank(k);
    if (rank < 0) {
        fprintf(stderr,
                "tprof-mpi: %s: no rank in the trace (distributedInfo) or its name (rank-N, workerN): "
                "use tprof --merge\n",
                k->path);
        goto out;
    }
    tp_summary_meta(s)->rank = rank;
    char path[PATH_MAX + 64];   /* tmpdir (PATH_MAX) and the file name */
    snprintf(path, sizeof path, "%s/p%d-%zu.tpsum", tmpdir, me, i);
    if (tp_summary_save(s, k->path, run, path, &err) != TP_OK) {
        fprintf(stderr, "tprof-mpi: %s\n", err.msg);
        goto out;
    }
    if (read_file(path, &p->bytes, &p->len) < 0)
        fprintf(stderr, "tprof-mpi: %s: %s\n", path, strerror(errno));
    unlink(path);
out:
    tp_summary_free(s);
    tp_store_free(st);
}

/* Send this process's parts to process 0: their count, then per part its
 * index and length (0: failed) and its bytes. */
static void send_parts(const struct part *v, uint64_t n)
{
    MPI_Send(&n, 1, MPI_UINT64_T, 0, TAG_COUNT, MPI_COMM_WORLD);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t head[2] = {v[i].index, v[i].bytes ? v[i].len : 0};
        MPI_Send(head, 2, MPI_UINT64_T, 0, TAG_HEAD, MPI_COMM_WORLD);
        for (uint64_t off = 0; off < head[1]; off += INT_MAX) {
            uint64_t chunk = head[1] - off < INT_MAX ? head[1] - off : INT_MAX;
            MPI_Send(v[i].bytes + off, (int)chunk, MPI_BYTE, 0, TAG_BODY, MPI_COMM_WORLD);
        }
    }
}

/* On process 0: a part into DIR/INDEX.tpsum (index zero-padded, so the
 * directory lists in run order).  -1 when it failed anywhere. */
static int store_part(const char *dir, uint64_t index, const unsigned char *b, uint64_t len)
{
    if (!b || len == 0)
        return -1;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%09llu.tpsum", dir, (unsigned long long)index);
    if (write_file(path, b, len) < 0) {
        fprintf(stderr, "tprof-mpi: %s: %s\n", path, strerror(errno));
        return -1;
    }
    return 0;
}

static int recv_parts(int from, const char *dir)
{
    uint64_t n, head[2];
    int bad = 0;
    MPI_Recv(&n, 1, MPI_UINT64_T, from, TAG_COUNT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (uint64_t i = 0; i < n; i++) {
        MPI_Recv(head, 2, MPI_UINT64_T, from, TAG_HEAD, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        unsigned char *b = head[1] ? malloc(head[1]) : NULL;
        for (uint64_t off = 0; off < head[1]; off += INT_MAX) {
            uint64_t chunk = head[1] - off < INT_MAX ? head[1] - off : INT_MAX;
            /* receive into a scratch byte when out of memory, to keep the protocol */
            static unsigned char sink[1];
            MPI_Recv(b ? b + off : sink, b ? (int)chunk : 0, MPI_BYTE, from, TAG_BODY, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        }
        bad |= store_part(dir, head[0], b, head[1]) < 0;
        free(b);
    }
    return bad;
}

/* tprof beside this program (or $TPROF). */
static void tprof_path(const char *argv0, char *out, size_t cap)
{
    const char *env = getenv("TPROF");
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return;
    }
    const char *slash = strrchr(argv0, '/');
    if (slash)
        snprintf(out, cap, "%.*s/tprof", (int)(slash - argv0), argv0);
    else
        snprintf(out, cap, "tprof");
}

static void remove_dir(const char *dir)
{
    char cmd[PATH_MAX + 16];
    /* our own mkdtemp directory of *.tpsum files */
    snprintf(cmd, sizeof cmd, "%s", dir);
    pid_t pid = fork();
    if (pid == 0) {
        execlp("rm", "rm", "-rf", "--", cmd, (char *)NULL);
        _exit(127);
    }
    if (pid > 0)
        waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, procs;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &procs);
    if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        if (me == 0)
            usage(stdout);
        MPI_Finalize();
        return 0;
    }
    int merge = 0;
    const char *span = NULL;
    for (int i = 2; i + 1 < argc; i++) {
        merge |= strcmp(argv[i], "--merge") == 0;
        if (strcmp(argv[i], "--span") == 0 && i + 2 < argc)
            span = argv[i + 1];
    }
    if (argc < 4 || !merge || !tp_view_find(argv[1]) || !tp_path_is_run(argv[argc - 1])) {
        if (me == 0) {
            fprintf(stderr, "tprof-mpi: %s\n",
                    argc < 4 || !merge       ? "give a view, --merge and a run directory"
                    : !tp_view_find(argv[1]) ? "the first argument is not a view (tprof help)"
                                             : "the last argument is not a run directory");
            usage(stderr);
        }
        MPI_Finalize();
        return 2;
    }
    const char *run = argv[argc - 1];
    tp_error err = {0};
    tp_run *r = NULL;
    if (tp_run_open(&r, run, span, &err) != TP_OK) {
        if (me == 0)
            fprintf(stderr, "tprof-mpi: %s\n", err.msg);
        MPI_Finalize();
        return 2;
    }
    const char *tmpbase = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    char scratch[PATH_MAX];
    snprintf(scratch, sizeof scratch, "%s/tprof-mpi.XXXXXX", tmpbase);
    int status = 0;
    if (!mkdtemp(scratch)) {
        fprintf(stderr, "tprof-mpi: %s: %s\n", scratch, strerror(errno));
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* this process's share: the files i with i % procs == me */
    size_t n = tp_run_size(r), mine = 0;
    struct part *parts = calloc(n / (size_t)procs + 1, sizeof *parts);
    if (!parts)
        MPI_Abort(MPI_COMM_WORLD, 2);
    for (size_t i = (size_t)me; i < n; i += (size_t)procs)
        summarize_rank(r, i, run, scratch, me, &parts[mine++]);
    if (me != 0) {
        send_parts(parts, mine);
    } else {
        for (size_t i = 0; i < mine; i++)
            status |= store_part(scratch, parts[i].index, parts[i].bytes, parts[i].len) < 0;
        for (int p = 1; p < procs; p++)
            status |= recv_parts(p, scratch);
    }
    for (size_t i = 0; i < mine; i++)
        free(parts[i].bytes);
    free(parts);
    tp_run_free(r);
    MPI_Finalize();
    if (me != 0) {
        remove_dir(scratch);
        return 0;
    }
    /* process 0: tprof VIEW OPTIONS... SCRATCH, the run's argument replaced */
    char tprof[PATH_MAX];
    tprof_path(argv[0], tprof, sizeof tprof);
    char **args = calloc((size_t)argc + 2, sizeof *args);
    if (!args) {
        remove_dir(scratch);
        return 2;
    }
    /* mpirun gives its processes a pseudo-terminal for stdout whatever the
     * user's stdout is, so tprof would columnate: the pipe's default format
     * (--space) goes first, and a format the user gives after it wins */
    args[0] = tprof;
    args[1] = argv[1];
    args[2] = "--space";
    for (int i = 2; i < argc - 1; i++)
        args[i + 1] = argv[i];
    args[argc] = scratch;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execvp(tprof, args);
        fprintf(stderr, "tprof-mpi: %s: %s\n", tprof, strerror(errno));
        _exit(2);
    }
    int ws = 0;
    if (pid < 0 || waitpid(pid, &ws, 0) < 0)
        ws = 2 << 8;
    free(args);
    remove_dir(scratch);
    int rc = WIFEXITED(ws) ? WEXITSTATUS(ws) : 2;
    return status && rc == 0 ? 2 : rc;
}
