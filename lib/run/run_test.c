/* run_test.c — run directories (run.c): ranks from metadata, names and order,
 * spans, a rank claimed twice, an empty directory, a rank that fails to
 * parse, parallel loading, and the merged store. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "store.h"
#include "testing.h"

static char base[64];

static void mk(const char *dir)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", base, dir);
    mkdir(p, 0755);
}

/* base/dir/name, opened for writing (NULL when it cannot be). */
static FILE *create(const char *dir, const char *name)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s/%s", base, dir, name);
    return fopen(p, "w");
}

/* A tiny trace: one ProfilerStep (number step), one runtime launching one
 * kernel of kdur µs with correlation 7; rank < 0: no distributedInfo. */
static void trace(const char *dir, const char *name, int rank, int step, int kdur)
{
    FILE *f = create(dir, name);
    if (!f)
        return;
    fprintf(f, "{");
    if (rank >= 0)
        fprintf(f, "\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":%d,\"world_size\":8},", rank);
    fprintf(f, "\"traceEvents\":[\n"
               "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":1000},\n"
               "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":110,\"dur\":50,\"args\":{\"External id\":3}},\n"
               "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":120,\"dur\":10,\"args\":{\"correlation\":7,\"External id\":3}},\n"
               "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":200,\"dur\":%d,\"args\":{\"stream\":7,\"correlation\":7,\"device\":0,\"External id\":3}}\n"
               "]}\n", step, kdur);
    fclose(f);
}

static void garbage(const char *dir, const char *name)
{
    FILE *f = create(dir, name);
    if (f) {
        fputs("this is not a trace\n", f);
        fclose(f);
    }
}

/* A run folder base/dir of tiny traces (trace()), kernels of 10 µs. */
struct file { const char *name; int rank, step; };

static void mk_run(const char *dir, const struct file *f)   /* up to a NULL name */
{
    mk(dir);
    for (; f->name; f++)
        trace(dir, f->name, f->rank, f->step, 10);
}

static tp_run *open_load(const char *dir, const char *span, int threads, int *rc_open, int *rc_load,
                         tp_error *err)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", base, dir);
    tp_run *r = NULL;
    *rc_open = tp_run_open(&r, p, span, err);
    *rc_load = r ? tp_run_load(r, threads, err) : -1;
    return r;
}

static const struct tp_run_rank *by_worker(const tp_run *r, const char *w)
{
    for (size_t i = 0; i < tp_run_size(r); i++)
        if (strcmp(tp_run_rank(r, i)->worker, w) == 0)
            return tp_run_rank(r, i);
    return NULL;
}

/* ranks from metadata, names, order */
/* A sync's record (the cudaEventRecord it waits for, by correlation) must
 * follow its rank into the merged store: rank 1's sync names rank 1's
 * kernel info with rank 1's correlations kept apart, not the row of rank
 * 0's table its index had in its own store. */
static void sync_trace(const char *dir, const char *name, int rank, int nkernels, int corr)
{
    FILE *f = create(dir, name);
    if (!f)
        return;
    fprintf(f, "{\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":%d,\"world_size\":2},\"traceEvents\":[\n", rank);
    for (int i = 0; i < nkernels; i++)
        fprintf(f, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":5,"
                   "\"args\":{\"stream\":7,\"correlation\":%d,\"device\":0,\"grid\":[%d,1,1]}},\n",
                i, 200 + 10 * i, 100 + i, i + 1);
    fprintf(f, "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Wait Event\",\"pid\":0,\"tid\":8,\"ts\":900,\"dur\":1,"
               "\"args\":{\"stream\":8,\"correlation\":99,\"device\":0,\"wait_on_cuda_event_record_corr_id\":%d,"
               "\"wait_on_stream\":7}}\n]}\n", corr);
    fclose(f);
}

static void test_merge_sync(void)
{
    mk("sync");
    sync_trace("sync", "rank0.json", 0, 3, 41);
    sync_trace("sync", "rank1.json", 1, 1, 42);
    int ro, rl;
    tp_error err = {0};
    tp_run *r = open_load("sync", NULL, 1, &ro, &rl, &err);
    tp_store *m = NULL;
    CHECK_INT("run.merge_sync.ok", r ? tp_run_merge(r, &m, &err) : -1, TP_OK);
    int nsync = 0, ok = 1;
    int64_t want[2] = {41, 42 + ((int64_t)1 << 40)};   /* rank 1's correlations are kept apart */
    for (size_t i = 0; m && i < m->n; i++) {
        if (m->kind[i] != TP_K_SYNC)
            continue;
        const struct tp_kernel_info *k = tp_store_kernel(m, i);
        ok &= nsync < 2 && k && k->sync_record_corr == want[nsync] && k->sync_wait_stream == 7 &&
              k->grid[0] == -1;
        nsync++;
    }
    CHECK("run.merge_sync.records_follow_rank", m && nsync == 2 && ok);
    tp_store_free(m);
    tp_run_free(r);
}

static void test_names(void)
{
    tp_error err = {0};
    int ro, rl;
    mk_run("names", (const struct file[]){{"rank-3.json", -1, 1}, {"worker1.pt.trace.json", -1, 1},
                                          {"host_rank_2.json", -1, 1}, {"meta.json", 5, 1}, {"zzz.json", -1, 1},
                                          {"notes.txt", -1, 1} /* not a trace name: ignored */, {NULL, 0, 0}});
    tp_run *r = open_load("names", NULL, 0, &ro, &rl, &err);
    CHECK_INT("run.names.open", ro, TP_OK);
    CHECK_INT("run.names.load", rl, TP_OK);
    CHECK_INT("run.names.count", tp_run_size(r), 5);
    const struct tp_run_rank *k = by_worker(r, "rank-3");
    CHECK("run.names.rank-N", k && k->rank == 3 && strcmp(k->rank_from, "file name") == 0);
    k = by_worker(r, "worker1");
    CHECK("run.names.workerN", k && k->rank == 1 && strcmp(k->rank_from, "file name") == 0);
    k = by_worker(r, "host_rank_2");
    CHECK("run.names.rank_N", k && k->rank == 2);
    k = by_worker(r, "meta");
    CHECK("run.names.distributedInfo", k && k->rank == 5 && strcmp(k->rank_from, "distributedInfo") == 0);
    k = by_worker(r, "zzz");
    CHECK("run.names.order_lowest_free", k && k->rank == 0 && strcmp(k->rank_from, "order") == 0);
    int sorted = 1;
    for (size_t i = 1; i < tp_run_size(r); i++)
        sorted &= tp_run_rank(r, i - 1)->rank < tp_run_rank(r, i)->rank;
    CHECK("run.names.sorted_by_rank", sorted);
    int set = 1;
    for (size_t i = 0; i < tp_run_size(r); i++)
        set &= tp_run_rank(r, i)->store && tp_run_rank(r, i)->store->rank == tp_run_rank(r, i)->rank &&
               tp_run_rank(r, i)->store->linked;
    CHECK("run.names.store_rank_set_and_linked", set);
    CHECK_STR("run.names.no_notes", tp_run_notes(r), "");

    /* the merged store: ranks end to end, correlations kept apart */
    tp_store *m = NULL;
    CHECK_INT("run.merge.ok", tp_run_merge(r, &m, &err), TP_OK);
    if (m) {
        size_t kernels = 0, linked = 0;
        for (size_t i = 0; i < m->n; i++)
            if (m->kind[i] == TP_K_KERNEL) {
                kernels++;
                int64_t l = tp_store_launcher(m, i);
                /* each kernel's launcher is the runtime just before it, in its own rank */
                linked += l >= 0 && m->ts[l] == m->ts[i] - 80000;
            }
        CHECK_INT("run.merge.kernels", kernels, 5);
        CHECK_INT("run.merge.launchers_within_rank", linked, 5);
        CHECK_INT("run.merge.steps", m->nsteps, 5);
        int disjoint = 1;
        for (size_t s = 1; s < m->nsteps; s++)
            disjoint &= m->steps[s].ts >= m->steps[s - 1].end;
        CHECK("run.merge.steps_end_to_end", disjoint);
        tp_store_free(m);
    }
    tp_run_free(r);

    /* one thread gives the same ranks */
    r = open_load("names", NULL, 1, &ro, &rl, &err);
    CHECK("run.one_thread", rl == TP_OK && tp_run_size(r) == 5 && tp_run_rank(r, 4)->rank == 5);
    tp_run_free(r);
}

/* spans: the plugin's worker.span naming, numbered per worker */
static void test_spans(void)
{
    tp_error err = {0};
    int ro, rl;
    mk_run("spans", (const struct file[]){{"worker0.100.pt.trace.json", -1, 1}, {"worker0.200.pt.trace.json", -1, 2},
                                          {"worker1.150.pt.trace.json", -1, 1}, {NULL, 0, 0}});
    tp_run *r = open_load("spans", NULL, 0, &ro, &rl, &err);
    CHECK("run.spans.default_first", rl == TP_OK && tp_run_size(r) == 2 && by_worker(r, "worker0") &&
                                         strcmp(by_worker(r, "worker0")->span, "100") == 0);
    CHECK("run.spans.note", strstr(tp_run_notes(r), "more than one span") != NULL);
    tp_run_free(r);
    r = open_load("spans", "2", 0, &ro, &rl, &err);
    CHECK("run.spans.index", rl == TP_OK && tp_run_size(r) == 1 &&
                                 strcmp(tp_run_rank(r, 0)->span, "200") == 0);
    CHECK("run.spans.missing_noted", strstr(tp_run_notes(r), "worker worker1 has no span 2; left out") != NULL);
    tp_run_free(r);
    r = open_load("spans", "150", 0, &ro, &rl, &err);
    CHECK("run.spans.by_name", rl == TP_OK && tp_run_size(r) == 1 &&
                                   strcmp(tp_run_rank(r, 0)->worker, "worker1") == 0);
    tp_run_free(r);
    r = open_load("spans", "999", 0, &ro, &rl, &err);
    CHECK("run.spans.unknown", ro == TP_ERR_USAGE && !r && strstr(err.msg, "--span 999"));
}

/* a rank claimed twice: never merged silently */
static void test_dup(void)
{
    tp_error err = {0};
    int ro, rl;
    const struct tp_run_rank *k;
    mk_run("dup", (const struct file[]){{"a.json", 0, 1}, {"b.json", 0, 1}, {NULL, 0, 0}});
    tp_run *r = open_load("dup", NULL, 0, &ro, &rl, &err);
    CHECK("run.dup.fails", rl != TP_OK);
    k = by_worker(r, "b");
    CHECK("run.dup.second_named", k && k->status != TP_OK && !k->store && strstr(k->err.msg, "a.json") &&
                                      strstr(k->err.msg, "rank 0"));
    k = by_worker(r, "a");
    CHECK("run.dup.first_kept", k && k->status == TP_OK && k->store);
    tp_run_free(r);
}

/* unranked files fill the gaps in order; a rank claimed three times
 * keeps the first file, the others name it */
static void test_fill(void)
{
    tp_error err = {0};
    int ro, rl;
    const struct tp_run_rank *k;
    mk_run("fill", (const struct file[]){{"a.json", 0, 1}, {"b.json", -1, 1}, {"c.json", 2, 1}, {"d.json", -1, 1},
                                         {"e.json", -1, 1}, {NULL, 0, 0}});
    tp_run *r = open_load("fill", NULL, 0, &ro, &rl, &err);
    CHECK("run.fill.gaps", by_worker(r, "b") && by_worker(r, "b")->rank == 1 && by_worker(r, "d") &&
                               by_worker(r, "d")->rank == 3 && by_worker(r, "e")->rank == 4);
    tp_run_free(r);
    mk_run("dup3", (const struct file[]){{"x.json", 4, 1}, {"y.json", 4, 1}, {"z.json", 4, 1}, {NULL, 0, 0}});
    r = open_load("dup3", NULL, 0, &ro, &rl, &err);
    k = by_worker(r, "z");
    CHECK("run.dup3.names_first", k && k->status != TP_OK && strstr(k->err.msg, "x.json"));
    k = by_worker(r, "x");
    CHECK("run.dup3.first_kept", k && k->status == TP_OK && k->store && k->store->rank == 4);
    tp_run_free(r);
}

/* an empty directory, and one with no trace names */
static void test_empty_and_no_traces(void)
{
    tp_error err = {0};
    int ro, rl;
    mk("empty");
    tp_run *r = open_load("empty", NULL, 0, &ro, &rl, &err);
    CHECK("run.empty.error", ro == TP_ERR_FORMAT && !r && strstr(err.msg, "no traces"));
    mk("other");
    trace("other", "README.txt", -1, 1, 10);
    mk("other/sub");
    r = open_load("other", NULL, 0, &ro, &rl, &err);
    CHECK("run.no_trace_names.error", ro == TP_ERR_FORMAT && !r);

    mk("parent");
    mk("parent/child");
    trace("parent/child", "rank-0.json", -1, 1, 10);
    r = open_load("parent", NULL, 0, &ro, &rl, &err);
    CHECK("run.dir_of_runs.hint", ro == TP_ERR_FORMAT && !r && strstr(err.msg, "subdirectory child"));
}

/* a rank that fails to parse: named, the others still there */
static void test_bad_rank(void)
{
    tp_error err = {0};
    int ro, rl;
    mk_run("bad", (const struct file[]){{"rank-0.json", -1, 1}, {"rank-2.json", -1, 1}, {NULL, 0, 0}});
    garbage("bad", "rank-1.json");
    tp_run *r = open_load("bad", NULL, 0, &ro, &rl, &err);
    CHECK("run.bad.status", rl == TP_ERR_FORMAT && strstr(err.msg, "rank-1.json"));
    CHECK("run.bad.others_ok", tp_run_size(r) == 3 && tp_run_rank(r, 0)->status == TP_OK &&
                                   tp_run_rank(r, 2)->status == TP_OK && tp_run_rank(r, 2)->store->n > 0);
    CHECK("run.bad.failed_rank", tp_run_rank(r, 1)->status != TP_OK && tp_run_rank(r, 1)->rank == 1);
    tp_run_free(r);
}

/* ranks that disagree on steps */
static void test_steps_disagree(void)
{
    tp_error err = {0};
    int ro, rl;
    mk_run("steps", (const struct file[]){{"rank-0.json", -1, 1}, {"rank-1.json", -1, 2}, {NULL, 0, 0}});
    tp_run *r = open_load("steps", NULL, 0, &ro, &rl, &err);
    CHECK("run.steps.disagree_note", rl == TP_OK && strstr(tp_run_notes(r), "disagree on steps"));
    tp_run_free(r);
}

int main(void)
{
    snprintf(base, sizeof base, "/tmp/tprof_run_test.%d", (int)getpid());
    mkdir(base, 0755);
    test_names();
    test_merge_sync();
    test_spans();
    test_dup();
    test_fill();
    test_empty_and_no_traces();
    test_bad_rank();
    test_steps_disagree();

    CHECK("run.is_run.dir", tp_path_is_run(base) == 1);
    CHECK("run.is_run.file", tp_path_is_run("/etc/hostname") == 0);
    CHECK("run.is_run.stdin", tp_path_is_run("-") == 0);

    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
    if (system(cmd) != 0)
        printf("# could not remove %s\n", base);
    TEST_EXIT();
}
