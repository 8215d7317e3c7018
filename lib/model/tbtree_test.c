/* tbtree_test.c — the operator tree's launch lists (tbtree.c): launch calls
 * attached by External id (filled into one block), a launch without one
 * attached by the attribution model to a node whose list lies in that block
 * (the list moves to the block's end), a launch with two kernels, a kernel
 * without its launch on the step thread's root, a second thread's operator
 * (threads by index, each thread's nodes in a tree of its own), and an id
 * two threads' operators share (the calls go to the first thread's, though
 * the other came first).  All of it twice: with External ids close together
 * (tables indexed by id) and with one far from the others (sorted pairs).
 * And a longer trace whose ids are numbered three ways (one run, two runs
 * far apart, spread out) builds the same tree each way. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "store.h"
#include "tbtree.h"
#include "store_testing.h"
#include "testing.h"

#define OP(name, ts, dur, ext) \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"dur\":" #dur \
    ",\"args\":{\"External id\":" #ext "}},\n"
#define LAUNCH(ts, corr, ext) \
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":" #ts \
    ",\"dur\":5,\"args\":{\"correlation\":" #corr ext "}},\n"
#define KERNEL(name, ts, dur, corr) \
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":7,\"ts\":" #ts ",\"dur\":" #dur \
    ",\"args\":{\"correlation\":" #corr ",\"device\":0,\"stream\":7}},\n"

static const char trace[] =
    "{\"traceEvents\":[\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,"
    "\"dur\":1000,\"args\":{}},\n"
    OP("aten::mm", 10, 100, 5)
    LAUNCH(20, 1, "")   /* no External id: the attribution model's, listed before the later one */
    LAUNCH(60, 2, ",\"External id\":5")
    OP("aten::add", 200, 100, 6)
    LAUNCH(210, 3, ",\"External id\":6")
    LAUNCH(230, 4, ",\"External id\":6")
    LAUNCH(250, 5, ",\"External id\":6")
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::relu\",\"pid\":1,\"tid\":2,\"ts\":150,\"dur\":20,"
    "\"args\":{\"External id\":7}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":2,\"ts\":155,"
    "\"dur\":5,\"args\":{\"correlation\":6,\"External id\":7}},\n"
    KERNEL("k1", 400, 10, 1)
    KERNEL("k1b", 412, 2, 1)   /* (groups of 3, 2, 3, 2 ... entries: a group read off by one mixes them) */
    KERNEL("k2", 420, 20, 2)
    KERNEL("k3b", 460, 5, 3)
    KERNEL("k3a", 450, 5, 3)
    KERNEL("k4", 480, 5, 4)
    KERNEL("k5", 500, 5, 5)
    KERNEL("k6", 520, 8, 6)
    OP("aten::view", 700, 10, 7)   /* thread 1 is listed first: ext 7's call is this one's */
    OP("aten::linear", 800, 50, 20)   /* its one child has its name: it takes the child's launch */
    OP("aten::linear", 810, 20, 21)
    LAUNCH(815, 9, ",\"External id\":21")
    KERNEL("stale", 600, 7, 99)   /* its launch never came */
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"nocorr\",\"pid\":0,\"tid\":7,\"ts\":650,\"dur\":3,"
    "\"args\":{\"device\":0,\"stream\":7}},\n"   /* no correlation at all: stale too */
    "{\"ph\":\"i\",\"cat\":\"trace\",\"name\":\"end\",\"pid\":1,\"tid\":1,\"ts\":1000,\"s\":\"t\"}\n"
    "]}\n";

static const struct tb_node *node_named(const struct tb_model *m, const char *name)
{
    for (size_t i = 0; i < m->nnodes; i++)
        if (!m->nodes[i].dropped && strcmp(m->nodes[i].name, name) == 0)
            return &m->nodes[i];
    return NULL;
}

/* Whether node n's launch calls start at the given µs, in that order. */
static int launches_at(const struct tb_model *m, const struct tb_node *n, const int64_t *us, size_t k)
{
    if (!n || n->nrts != k)
        return 0;
    for (size_t i = 0; i < k; i++)
        if (m->rts[tb_node_rts(m, n)[i]].start != us[i] * 1000)
            return 0;
    return 1;
}

/* An operator with an External id far above the others, its launch and
 * its kernel of a correlation far above the others: put before the
 * trace's last event. */
static const char far_id[] = OP("aten::far", 300, 20, 900000000000)
    LAUNCH(305, 800000000000, ",\"External id\":900000000000") KERNEL("k7", 560, 6, 800000000000);

static void check_tree(const char *text, int has_far)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/tprof_tbtree_test.%ld.json", (long)getpid());
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) == EOF || fclose(f) != 0) {
        printf("FAIL tbtree: cannot write %s\n", path);
        tt_failed++;
        return;
    }
    tp_store *st = tt_load_linked(path);
    remove(path);
    const struct tb_model *m = st ? tp_store_tb(st) : NULL;
    CHECK("tbtree.built", m != NULL);
    if (!m) {
        tp_store_free(st);
        return;
    }
    const struct tb_node *mm = node_named(m, "aten::mm"), *add = node_named(m, "aten::add");
    static const int64_t mm_at[] = {20, 60}, add_at[] = {210, 230, 250};
    CHECK("tbtree.ext_and_model_launch", launches_at(m, mm, mm_at, 2));
    CHECK("tbtree.three_ext_launches_in_time_order", launches_at(m, add, add_at, 3));
    CHECK_INT("tbtree.mm_self_dev", mm ? mm->self_dev : -1, 32000);
    CHECK_INT("tbtree.add_self_dev", add ? add->self_dev : -1, 20000);
    /* the launch at 210 ran two kernels, listed by start */
    const struct tb_rt *two = add && add->nrts ? &m->rts[tb_node_rts(m, add)[0]] : NULL;
    CHECK("tbtree.two_kernels_by_start", two && two->ndev == 2 && st->ts[tb_rt_dev(m, two)[0]] == 450000 &&
                                             st->ts[tb_rt_dev(m, two)[1]] == 460000);
    /* the stale kernels (a launch that never came, no correlation): on a
     * runtime without a row, held by the root */
    int stale = 0;
    for (size_t r = 0; r < m->nroots; r++) {
        const struct tb_node *R = &m->nodes[m->roots[r]];
        for (size_t k = 0; k < R->nrts; k++) {
            const struct tb_rt *D = &m->rts[tb_node_rts(m, R)[k]];
            stale |= D->row < 0 && D->ndev == 2 && st->dur[tb_rt_dev(m, D)[0]] == 7000 &&
                     st->dur[tb_rt_dev(m, D)[1]] == 3000;
        }
    }
    CHECK("tbtree.stale_kernels_on_root", stale);
    CHECK_INT("tbtree.kernels_reached", m->nkern, has_far ? 11 : 10);
    /* the second thread: its operator under its own root, the thread by
     * index into the thread list */
    const struct tb_node *relu = node_named(m, "aten::relu");
    CHECK_INT("tbtree.threads", m->ntids, 2);
    CHECK("tbtree.thread_by_index", relu && mm && tb_node_tid(m, relu) == 2 && tb_node_tid(m, mm) == 1);
    CHECK("tbtree.second_root", m->nroots == 2 && relu &&
                                    &m->nodes[m->nodes[m->roots[1]].first_child] == relu && relu->next_sib < 0 &&
                                    m->nodes[m->roots[1]].tix == 1);
    const struct tb_node *view = node_named(m, "aten::view");
    static const int64_t view_at[] = {155};
    CHECK("tbtree.shared_id_first_thread", launches_at(m, view, view_at, 1) && view->self_dev == 8000 && relu &&
                                               relu->nrts == 0 && relu->self_dev == 0);
    const struct tb_node *lin = node_named(m, "aten::linear");
    static const int64_t lin_at[] = {815};
    int absorbed = 0;
    for (size_t i = 0; i < m->nnodes; i++)
        absorbed += m->nodes[i].dropped && strcmp(m->nodes[i].name, "aten::linear") == 0 && m->nodes[i].nrts == 0;
    CHECK("tbtree.remove_dup_nodes", lin && lin->start == 800000 && launches_at(m, lin, lin_at, 1) &&
                                         lin->first_child < 0 && absorbed == 1);
    const struct tb_node *far = node_named(m, "aten::far");
    static const int64_t far_at[] = {305};
    CHECK("tbtree.far_id", has_far ? launches_at(m, far, far_at, 1) && far->self_dev == 6000 : !far);
    tp_store_free(st);
}

/* A trace of n operators on one thread, each with a launch and a kernel
 * of the operator's id (correlation and External id), ids from id_of; a
 * kernel of every third id runs twice.  NULL when out of memory. */
static char *ids_trace(size_t n, int64_t (*id_of)(size_t i))
{
    size_t cap = 512 * (n + 4), len = 0;
    char *t = malloc(cap);
    if (!t) return NULL;
    len += (size_t)snprintf(t + len, cap - len, "{\"traceEvents\":[\n");
    for (size_t i = 0; i < n; i++) {
        long long id = (long long)id_of(i), ts = 10 * (long long)i;
        len += (size_t)snprintf(t + len, cap - len,
                                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op%zu\",\"pid\":1,\"tid\":1,\"ts\":%lld,"
                                "\"dur\":8,\"args\":{\"External id\":%lld}},\n"
                                "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
                                "\"tid\":1,\"ts\":%lld,\"dur\":2,\"args\":{\"correlation\":%lld,\"External id\":%lld}},\n",
                                i % 7, ts, id, ts + 1, id, id);
        for (size_t k = 0; k < 1 + (i % 3 == 0); k++)
            len += (size_t)snprintf(t + len, cap - len,
                                    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%lld,"
                                    "\"dur\":%zu,\"args\":{\"correlation\":%lld,\"device\":0,\"stream\":7}},\n",
                                    100000 + ts + 3 * (long long)k, 1 + i % 5 + k, id);
    }
    snprintf(t + len, cap - len, "{\"ph\":\"i\",\"cat\":\"trace\",\"name\":\"end\",\"pid\":1,\"tid\":1,"
                                 "\"ts\":200000,\"s\":\"t\"}\n]}\n");
    return t;
}

enum { IDS_N = 3000 };
static int64_t id_one_run(size_t i) { return 1 + (int64_t)i; }
static int64_t id_two_runs(size_t i) { return i < IDS_N / 2 ? 1 + (int64_t)i : 700000000000 + (int64_t)i; }
static int64_t id_spread(size_t i) { return 1 + (int64_t)i * 1000003; }

/* Each node's launch calls (by row) and device self time, and the kernels
 * reached, written into out (NULL when the trace does not load). */
static char *tree_print(const char *text)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/tprof_tbtree_ids.%ld.json", (long)getpid());
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) == EOF || fclose(f) != 0) return NULL;
    tp_store *st = tt_load_linked(path);
    remove(path);
    const struct tb_model *m = st ? tp_store_tb(st) : NULL;
    char *out = NULL;
    size_t len = 0;
    FILE *o = m ? open_memstream(&out, &len) : NULL;
    for (size_t i = 0; o && i < m->nnodes; i++) {
        const struct tb_node *N = &m->nodes[i];
        fprintf(o, "%zu %d %lld %lld:", i, N->row, (long long)N->self_dev, (long long)N->dev);
        for (size_t k = 0; k < N->nrts; k++) {
            const struct tb_rt *R = &m->rts[tb_node_rts(m, N)[k]];
            fprintf(o, " %d/%u", R->row, R->ndev);
        }
        fputc('\n', o);
    }
    if (o) fprintf(o, "kernels %zu ops %zu\n", m->nkern, m->nops);
    if (o) fclose(o);
    tp_store_free(st);
    return out;
}

static void check_numbering(void)
{
    char *t1 = ids_trace(IDS_N, id_one_run), *t2 = ids_trace(IDS_N, id_two_runs), *t3 = ids_trace(IDS_N, id_spread);
    char *p1 = t1 ? tree_print(t1) : NULL, *p2 = t2 ? tree_print(t2) : NULL, *p3 = t3 ? tree_print(t3) : NULL;
    /* every operator holds its launch, which holds its kernels */
    char want[64];
    snprintf(want, sizeof want, "kernels %d ops %d\n", IDS_N + IDS_N / 3, IDS_N);
    CHECK("ids.one_run_built", p1 && strstr(p1, want) && strstr(p1, "/2\n") && !strstr(p1, "/0\n"));
    CHECK("ids.two_runs_same_tree", p1 && p2 && strcmp(p1, p2) == 0);
    CHECK("ids.spread_same_tree", p1 && p3 && strcmp(p1, p3) == 0);
    free(t1); free(t2); free(t3);
    free(p1); free(p2); free(p3);
}

int main(void)
{
    check_numbering();
    check_tree(trace, 0);
    const char *end = strstr(trace, "{\"ph\":\"i\"");
    size_t at = end ? (size_t)(end - trace) : 0;
    char *t = malloc(sizeof trace + sizeof far_id);
    CHECK("tbtree.far_trace", end && t);
    if (end && t) {
        memcpy(t, trace, at);
        strcpy(t + at, far_id);
        strcat(t, end);
        tt_prefix = "far.";
        check_tree(t, 1);
        tt_prefix = "";
    }
    free(t);
    /* what tb_build writes per node and per launch call */
    CHECK("tbtree.node_at_most_96_bytes", sizeof(struct tb_node) <= 96 && sizeof(struct tb_rt) <= 32);
    TEST_EXIT();
}
