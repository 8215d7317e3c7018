/* store_file_model_test.c — the models a .tprof store holds
 * (store_file_model.c): read back, they equal the ones built from the
 * trace, field by field; a model whose sections are damaged, of another
 * version or absent is not used (the caller builds it then). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>
#include "breakdown.h"
#include "store_file_int.h"
#include "tbtree.h"
#include "testing.h"
#include "store_testing.h"

/* (the External id follows from the row and no_ext) */
static int same_node(const struct tb_model *ma, const struct tb_node *a, const struct tb_model *mb,
                     const struct tb_node *b)
{
    return a->row == b->row && a->ev == b->ev && a->cl == b->cl && a->start == b->start && a->end == b->end &&
           a->no_ext == b->no_ext && strcmp(a->name, b->name) == 0 && tb_node_tid(ma, a) == tb_node_tid(mb, b) &&
           a->first_child == b->first_child && a->next_sib == b->next_sib && a->last_child == b->last_child &&
           a->nrts == b->nrts &&
           (!a->nrts || memcmp(tb_node_rts(ma, a), tb_node_rts(mb, b), a->nrts * sizeof *ma->rtl) == 0) &&
           a->dropped == b->dropped && a->dev == b->dev && a->self_dev == b->self_dev &&
           a->self_host == b->self_host && a->tc_total == b->tc_total && a->tc_self == b->tc_self &&
           a->tc_elig == b->tc_elig && a->tc_allow == b->tc_allow;
}

static int same_rt(const struct tb_model *ma, const struct tb_rt *a, const struct tb_model *mb, const struct tb_rt *b)
{
    return a->row == b->row && a->start == b->start && a->end == b->end && a->next == b->next &&
           a->ndev == b->ndev &&
           (!a->ndev || memcmp(tb_rt_dev(ma, a), tb_rt_dev(mb, b), a->ndev * sizeof *ma->devl) == 0);
}

static int same_tree(const struct tb_model *a, const struct tb_model *b)
{
    if (a->nnodes != b->nnodes || a->nrts != b->nrts || a->nroots != b->nroots || a->ntids != b->ntids ||
        a->nkern != b->nkern || a->nops != b->nops || a->has_kernel != b->has_kernel ||
        a->has_memcpy_or_memset != b->has_memcpy_or_memset)
        return 0;
    for (size_t i = 0; i < a->nnodes; i++)
        if (!same_node(a, &a->nodes[i], b, &b->nodes[i]))
            return 0;
    for (size_t i = 0; i < a->nrts; i++)
        if (!same_rt(a, &a->rts[i], b, &b->rts[i]))
            return 0;
    for (size_t k = 0; k < a->nkern; k++)
        if (a->kern[k] != b->kern[k] || strcmp(a->kern_op[k], b->kern_op[k]) != 0 ||
            a->kern_elig[k] != b->kern_elig[k] || a->kern_tid[k] != b->kern_tid[k])
            return 0;
    return memcmp(a->roots, b->roots, a->nroots * sizeof *a->roots) == 0 &&
           memcmp(a->tids, b->tids, a->ntids * sizeof *a->tids) == 0 &&
           memcmp(a->ops, b->ops, a->nops * sizeof *a->ops) == 0;
}

/* Change value i of an int64 section (delta-coded or not) to v. */
static int poke(tp_store *st, const char *name, size_t i, int64_t v, int delta)
{
    struct tp_sf_blob *s = tt_sf_blob(st, name);
    if (!s || i >= s->count || s->width != 8)
        return -1;
    size_t raw = (size_t)s->count * 8;
    int64_t *vals = malloc(raw);
    void *z = malloc(ZSTD_compressBound(raw));
    if (!vals || !z || ZSTD_decompress(vals, raw, s->z, s->zlen) != raw) {
        free(vals);
        free(z);
        return -1;
    }
    if (delta) {   /* keep every other value: change this difference and the next */
        int64_t prev = 0;
        for (size_t k = 0; k < i; k++)
            prev += vals[k];
        int64_t old = prev + vals[i];
        vals[i] = v - prev;
        if (i + 1 < s->count)
            vals[i + 1] += old - v;
    } else {
        vals[i] = v;
    }
    size_t zlen = ZSTD_compress(z, ZSTD_compressBound(raw), vals, raw, 1);
    free(vals);
    free(s->z);
    s->z = z;
    s->zlen = zlen;
    return 0;
}

/* Save `trace` as a store, read it back, compare; then damage the copy. */
static void check_trace(const char *trace, int damage)
{
    char path[64];
    if (tt_tmpfile(path, sizeof path, "store_model") < 0)
        return;
    tp_store *js = tt_load_linked(trace);
    tp_error err = {0};
    CHECK("store_model.saved", js && tp_store_save(js, NULL, path, &err) == TP_OK);
    tp_store *fs = tt_load_linked(path);
    CHECK("store_model.loaded", fs != NULL);
    if (!js || !fs) {
        tp_store_free(js);
        tp_store_free(fs);
        unlink(path);
        return;
    }
    CHECK("store_model.kept_compressed", fs->models[TP_MODEL_FILE].p != NULL);
    const struct tb_model *built = tp_store_tb(js);
    struct tb_model *read = tp_store_file_tree(fs);
    CHECK("store_model.tree_read", read != NULL);
    CHECK("store_model.tree_nonempty", built && built->nnodes > 5 && built->nkern > 0);
    CHECK("store_model.tree_equal", built && read && same_tree(built, read));
    if (read)
        tp_tb_model_delete(read);
    const struct tp_tb_breakdown *bb = tp_store_breakdown(js);
    struct tp_tb_breakdown *rb = tp_store_file_breakdown(fs);
    CHECK("store_model.breakdown_equal",
          bb && rb && bb->nsteps == rb->nsteps && memcmp(bb->sum, rb->sum, sizeof bb->sum) == 0 &&
              (!bb->nsteps || memcmp(bb->steps, rb->steps, bb->nsteps * sizeof *bb->steps) == 0));
    if (rb)
        tp_tb_breakdown_delete(rb);

    if (!damage) {
        tp_store_free(js);
        tp_store_free(fs);
        unlink(path);
        return;
    }
    /* damage: each is refused (NULL: the caller builds the tree) */
    size_t root = built->roots[0];
    CHECK("store_model.cycle_refused",
          poke(fs, "opt.model.tb.node.next_sib", root, (int64_t)root, 1) == 0 && !tp_store_file_tree(fs));
    poke(fs, "opt.model.tb.node.next_sib", root, built->nodes[root].next_sib, 1);
    struct tb_model *again = tp_store_file_tree(fs);
    CHECK("store_model.repaired_reads", again && same_tree(built, again));
    if (again)
        tp_tb_model_delete(again);
    /* a link or row that only fits 32 bits after wrapping is refused, not
     * wrapped into one that looks right */
    int64_t wrap = (int64_t)1 << 32;
    CHECK("store_model.wrapping_link_refused",
          poke(fs, "opt.model.tb.node.first_child", root, built->nodes[root].first_child + wrap, 1) == 0 &&
              !tp_store_file_tree(fs));
    poke(fs, "opt.model.tb.node.first_child", root, built->nodes[root].first_child, 1);
    CHECK("store_model.wrapping_row_refused",
          poke(fs, "opt.model.tb.rt.row", 0, built->rts[0].row + wrap, 1) == 0 && !tp_store_file_tree(fs));
    poke(fs, "opt.model.tb.rt.row", 0, built->rts[0].row, 1);
    again = tp_store_file_tree(fs);
    CHECK("store_model.repaired_again", again && same_tree(built, again));
    if (again)
        tp_tb_model_delete(again);
    CHECK("store_model.row_past_end_refused",
          poke(fs, "opt.model.tb.rt.dev", 0, (int64_t)fs->n, 1) == 0 && !tp_store_file_tree(fs));
    CHECK("store_model.name_past_end_refused",
          poke(fs, "opt.model.tb.node.name", 0, (int64_t)fs->strings.nbytes, 0) == 0 && !tp_store_file_tree(fs));
    struct tp_sf_blob *v = tt_sf_blob(fs, "opt.model.version");
    uint32_t other[2] = {TP_TB_MODEL_VERSION + 1, TP_TB_BREAKDOWN_VERSION + 1};
    if (v) {
        free(v->z);
        v->z = malloc(ZSTD_compressBound(sizeof other));
        v->zlen = v->z ? ZSTD_compress(v->z, ZSTD_compressBound(sizeof other), other, sizeof other, 1) : 0;
    }
    CHECK("store_model.other_version_refused", v && !tp_store_file_breakdown(fs));
    CHECK("store_model.json_store_has_none", !tp_store_file_tree(js) && !tp_store_file_breakdown(js));
    tp_store_free(js);
    tp_store_free(fs);
    unlink(path);
}

/* A trace of operators on 12 threads, each with a launch and a kernel,
 * the threads taking turns (a node's thread is found by a map past 8
 * threads); 0, or -1 when it cannot be written. */
static int write_threads_trace(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "{\"traceEvents\":[\n");
    for (int i = 0; i < 60; i++) {
        int tid = 100 + i % 12, ts = 10 * i;
        fprintf(f,
                "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op%d\",\"pid\":1,\"tid\":%d,\"ts\":%d,"
                "\"dur\":8,\"args\":{\"External id\":%d}},\n"
                "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":%d,"
                "\"ts\":%d,\"dur\":2,\"args\":{\"correlation\":%d,\"External id\":%d}},\n"
                "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":3,"
                "\"args\":{\"correlation\":%d,\"device\":0,\"stream\":7}},\n",
                i % 5, tid, ts, i + 1, tid, ts + 1, i + 1, i + 1, 1000 + ts, i + 1);
    }
    fprintf(f, "{\"ph\":\"i\",\"cat\":\"trace\",\"name\":\"end\",\"pid\":1,\"tid\":100,\"ts\":5000,"
               "\"s\":\"t\"}\n]}\n");
    return fclose(f) == 0 ? 0 : -1;
}

int main(void)
{
    check_trace("testdata/sample.pt.trace.json", 1);
    /* Lightning's module nodes are named by the end of their event's name */
    tt_prefix = "lightning.";
    check_trace("testdata/lightning.pt.trace.json", 0);
    char path[64];
    snprintf(path, sizeof path, "/tmp/tprof-model-threads.%ld.json", (long)getpid());
    tt_prefix = "threads.";
    CHECK("store_model.threads_trace_written", write_threads_trace(path) == 0);
    check_trace(path, 0);
    remove(path);
    TEST_EXIT();
}
