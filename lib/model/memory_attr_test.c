/* memory_attr_test.c — [memory] records and their operators (memory_attr.c):
 * the walk over two threads whose records interleave, records before,
 * between and after the operators, devices the plugin names and one it
 * does not, in time order and out of it (the rows sorted first); the
 * three collections agree: tp_mem_collect's records, tp_mem_collect_stats'
 * narrow ones, and tp_mem_op_sums' per-node sums against the records
 * summed over the tree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "store.h"
#include "tbtree.h"
#include "memory_attr.h"
#include "store_testing.h"
#include "testing.h"

#define OP(name, tid, ts, dur, ext) \
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid ",\"ts\":" #ts \
    ",\"dur\":" #dur ",\"args\":{\"External id\":" #ext "}},\n"
#define MEM(tid, ts, type, id, addr, bytes) \
    "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"[memory]\",\"name\":\"[memory]\",\"pid\":1,\"tid\":" #tid ",\"ts\":" #ts \
    ",\"args\":{\"Device Type\":" #type ",\"Device Id\":" #id ",\"Addr\":" #addr ",\"Bytes\":" #bytes \
    ",\"Total Allocated\":1000,\"Total Reserved\":2000}},\n"

#define HEAD \
    "{\"traceEvents\":[\n" \
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0," \
    "\"dur\":1000,\"args\":{}},\n" \
    OP("aten::outer", 1, 10, 490, 1) OP("aten::inner", 1, 20, 80, 2) OP("aten::empty", 1, 30, 10, 3) \
    OP("aten::inner2", 1, 200, 100, 4) OP("aten::late", 1, 600, 100, 5) OP("aten::t2op", 2, 50, 350, 6)
#define TAIL "{\"ph\":\"i\",\"cat\":\"trace\",\"name\":\"end\",\"pid\":1,\"tid\":1,\"ts\":1000,\"s\":\"t\"}\n]}\n"

/* the records in time order ... */
#define R_5 MEM(1, 5, 0, -1, 500, 7)          /* in the step, before any operator: none */
#define R_35 MEM(1, 35, 0, -1, 100, 100)      /* aten::empty, CPU */
#define R_50 MEM(1, 50, 1, 0, 200, 64)        /* aten::inner, GPU0 */
#define R_60 MEM(2, 60, 1, 0, 300, 1000)      /* the other thread: aten::t2op */
#define R_100 MEM(3, 100, 0, -1, 400, 9)      /* a thread without operators: none */
#define R_150 MEM(1, 150, 0, -1, 600, 8)      /* aten::outer itself */
#define R_250 MEM(1, 250, 1, 0, 200, -64)     /* aten::inner2 frees what aten::inner took */
#define R_450 MEM(2, 450, 0, -1, 700, 5)      /* past aten::t2op: none */
#define R_650 MEM(1, 650, 6, 1, 800, 32)      /* HIP device 1: GPU1, on aten::late */
#define R_660 MEM(1, 660, 15, 0, 900, 3)      /* HPU0, a device */
#define R_670 MEM(1, 670, -1, -1, 950, 11)    /* a device type the plugin does not name: skipped */
static const char sorted[] = HEAD R_5 R_35 R_50 R_60 R_100 R_150 R_250 R_450 R_650 R_660 R_670 TAIL;
/* ... and out of it */
static const char shuffled[] = HEAD R_650 R_35 R_250 R_60 R_670 R_5 R_450 R_150 R_100 R_660 R_50 TAIL;

static int64_t node_named(const struct tb_model *m, const char *name)
{
    for (size_t i = 0; i < m->nnodes; i++)
        if (!m->nodes[i].dropped && m->nodes[i].name && strcmp(m->nodes[i].name, name) == 0)
            return (int64_t)i;
    return -1;
}

/* The records' bytes summed over node ni's subtree, as the operator view
 * summed them before tp_mem_op_sums (records on CPU into *c, else *d). */
static void subtree(const struct tb_model *m, const struct tp_mem *mem, int64_t ni, int64_t *c, int64_t *d)
{
    for (size_t k = 0; k < mem->n; k++) {
        const struct tp_memrec *r = &mem->recs[k];
        if (r->node != ni || r->dev < 0)
            continue;
        if (mem->devs[r->dev].type == 0)
            *c += r->bytes;
        else
            *d += r->bytes;
    }
    for (int64_t ch = m->nodes[ni].first_child; ch >= 0; ch = m->nodes[ch].next_sib)
        subtree(m, mem, ch, c, d);
}

static void check_trace(const char *label, const char *text)
{
    char path[64], name[128];
    snprintf(path, sizeof path, "/tmp/tprof_memory_attr_test.%ld.json", (long)getpid());
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) == EOF || fclose(f) != 0) {
        printf("FAIL memory_attr.%s: cannot write %s\n", label, path);
        tt_failed++;
        return;
    }
    tp_store *st = tt_load_linked(path);
    remove(path);
    const struct tb_model *m = st ? tp_store_tb(st) : NULL;
    snprintf(name, sizeof name, "memory_attr.%s.tree", label);
    CHECK(name, m != NULL);
    if (!m) {
        tp_store_free(st);
        return;
    }
    struct tp_mem full, lean;
    int rf = tp_mem_collect(st, m, &full), rl = tp_mem_collect_stats(st, m, &lean);
    snprintf(name, sizeof name, "memory_attr.%s.collected", label);
    CHECK(name, rf == 0 && rl == 0 && full.n == 11 && lean.n == 11);
    if (rf || rl) {
        tp_store_free(st);
        return;
    }
    /* devices: CPU, GPU0, GPU1, HPU0 in that order in both */
    snprintf(name, sizeof name, "memory_attr.%s.devices", label);
    CHECK(name, full.ndevs == 4 && lean.ndevs == 4 && strcmp(full.devs[0].name, "CPU") == 0 &&
                strcmp(full.devs[1].name, "GPU0") == 0 && strcmp(full.devs[2].name, "GPU1") == 0 &&
                strcmp(full.devs[3].name, "HPU0") == 0 && strcmp(lean.devs[3].name, "HPU0") == 0);
    int same = 1, sorted_ts = 1;
    for (size_t k = 0; k < full.n && k < lean.n; k++) {
        same &= full.recs[k].bytes == lean.stats[k].bytes && full.recs[k].node == lean.stats[k].node &&
                full.recs[k].dev == lean.stats[k].dev;
        sorted_ts &= k == 0 || full.recs[k - 1].ts <= full.recs[k].ts;
    }
    snprintf(name, sizeof name, "memory_attr.%s.stats_match_records", label);
    CHECK(name, same && sorted_ts);
    same = 1;
    for (size_t i = 0; i < m->nnodes; i++)
        same &= full.visited[i] == lean.visited[i];
    snprintf(name, sizeof name, "memory_attr.%s.visited_match", label);
    CHECK(name, same);

    int64_t outer = node_named(m, "aten::outer"), inner = node_named(m, "aten::inner"),
            empty = node_named(m, "aten::empty"), inner2 = node_named(m, "aten::inner2"),
            late = node_named(m, "aten::late"), t2op = node_named(m, "aten::t2op");
    snprintf(name, sizeof name, "memory_attr.%s.nodes", label);
    CHECK(name, outer >= 0 && inner >= 0 && empty >= 0 && inner2 >= 0 && late >= 0 && t2op >= 0);
    /* attribution, record by record (time order) */
    int64_t want_node[11] = {-1, empty, inner, t2op, -1, outer, inner2, -1, late, late, late};
    /* allocations: the node above on the walk (a thread's root, the step);
     * a free has none */
    int64_t step = node_named(m, "ProfilerStep#1"), root2 = -1;
    for (size_t t = 0; t < m->ntids; t++)
        if (m->tids[t] == 2 && root2 < 0)
            root2 = m->roots[t];
    int64_t want_parent[11] = {-1, inner, outer, root2, -1, step, -1, -1, step, step, step};
    same = 1;
    for (size_t k = 0; k < 11; k++)
        same &= full.recs[k].node == want_node[k] && full.recs[k].parent == want_parent[k];
    snprintf(name, sizeof name, "memory_attr.%s.attributed", label);
    CHECK(name, same && step >= 0 && root2 >= 0);

    /* tp_mem_op_sums: one slot per node, against the records summed over
     * the tree from each root (the nodes a root reaches) */
    int64_t *slot = malloc(m->nnodes * sizeof *slot), *stack = malloc(m->nnodes * sizeof *stack);
    struct tp_mem_sums *sums = calloc(m->nnodes, sizeof *sums);
    int64_t n = slot && sums && stack ? 0 : -1;
    for (size_t i = 0; n == 0 && i < m->nnodes; i++)
        slot[i] = (int64_t)i;
    if (n == 0)
        n = tp_mem_op_sums(st, m, slot, sums);
    snprintf(name, sizeof name, "memory_attr.%s.op_sums_count", label);
    CHECK_INT(name, n, 11);
    same = n == 11;
    size_t reached = 0;
    for (size_t r = 0; same && r < m->nroots; r++) {
        size_t sp = 0;
        stack[sp++] = m->roots[r];
        while (sp > 0) {
            int64_t ni = stack[--sp], c = 0, d = 0, sc = 0, sd = 0;
            reached++;
            subtree(m, &full, ni, &c, &d);
            for (size_t k = 0; k < full.n; k++)
                if (full.recs[k].node == ni && full.recs[k].dev >= 0)
                    *(full.devs[full.recs[k].dev].type == 0 ? &sc : &sd) += full.recs[k].bytes;
            same &= sums[ni].cpu == c && sums[ni].dev == d && sums[ni].self_cpu == sc && sums[ni].self_dev == sd;
            for (int64_t ch = m->nodes[ni].first_child; ch >= 0; ch = m->nodes[ch].next_sib)
                stack[sp++] = ch;
        }
    }
    snprintf(name, sizeof name, "memory_attr.%s.op_sums_match_tree", label);
    CHECK(name, same && reached > 6);
    /* and the numbers themselves */
    snprintf(name, sizeof name, "memory_attr.%s.op_sums_values", label);
    CHECK(name, n == 11 && sums[outer].cpu == 108 && sums[outer].self_cpu == 8 && sums[outer].dev == 0 &&
                sums[outer].self_dev == 0 && sums[inner].cpu == 100 && sums[inner].dev == 64 &&
                sums[inner].self_dev == 64 && sums[inner].self_cpu == 0 && sums[empty].self_cpu == 100 &&
                sums[inner2].dev == -64 && sums[inner2].self_dev == -64 && sums[late].dev == 35 &&
                sums[late].self_dev == 35 && sums[t2op].dev == 1000 && sums[t2op].cpu == 0);
    /* a slot of -1 gets nothing, and its bytes still count above it */
    memset(sums, 0, m->nnodes * sizeof *sums);
    slot[inner] = -1;
    n = tp_mem_op_sums(st, m, slot, sums);
    snprintf(name, sizeof name, "memory_attr.%s.op_sums_unslotted", label);
    CHECK(name, n == 11 && sums[inner].cpu == 0 && sums[inner].self_dev == 0 && sums[outer].cpu == 108 &&
                sums[empty].self_cpu == 100);
    free(stack);
    free(slot);
    free(sums);
    tp_mem_free(&full);
    tp_mem_free(&lean);
    tp_store_free(st);
}

int main(void)
{
    check_trace("sorted", sorted);
    check_trace("shuffled", shuffled);
    TEST_EXIT();
}

