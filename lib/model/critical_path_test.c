/* critical_path_test.c — the critical path graph: a hand-made trace whose
 * path is computed by hand, and the graph HTA's test asserts on
 * critical_path/simple_add (node ids, edge weights and types, path size). */
#include <stdlib.h>
#include <string.h>
#include "critical_path.h"
#include "testing.h"
#include "testing_store.h"

static int64_t add(tp_store *st, enum tp_kind k, const char *name, int64_t ts, int64_t dur, int32_t stream,
                   int64_t corr)
{
    int64_t r = tt_event(st, k, name, ts * 1000, dur * 1000);
    st->ph[r] = 'X';
    st->tid[r] = k == TP_K_KERNEL ? 7 : 1;
    st->stream[r] = stream;
    st->correlation[r] = corr;
    return r;
}

/* op A [0,100] launches kernel K [30,93] (call L [10,20]) and waits for it
 * in cudaDeviceSynchronize S [85,95]: the path runs A -> L -> K -> S -> A:
 * 10 µs CPU, 20 launch delay, 63 kernel, 0 sync, 5 CPU = 98 µs (the CPU-only
 * path is 90: the wait inside S weighs nothing). */
static void test_hand_made(void)
{
    tp_store *st = tp_store_new();
    tp_error err = {0};
    add(st, TP_K_CPU_OP, "A", 0, 100, -1, TP_NONE);
    int64_t l = add(st, TP_K_RUNTIME, "cudaLaunchKernel", 10, 10, -1, 5);
    int64_t k = add(st, TP_K_KERNEL, "gemm", 30, 63, 7, 5);
    add(st, TP_K_RUNTIME, "cudaDeviceSynchronize", 85, 10, -1, 6);
    add(st, TP_K_SYNC, "Context Sync", 86, 8, -1, 6);
    CHECK_INT("cp link", tp_store_link(st, &err), TP_OK);
    CHECK_INT("cp launcher", tp_store_launcher(st, k), l);
    struct tp_hta h;
    tp_hta_init(&h, st, NULL);
    int64_t s, e;
    CHECK_INT("cp window whole trace", tp_cp_window(&h, -1, NULL, 0, &s, &e, &err), TP_OK);
    CHECK_INT("cp window start", s, 0);
    CHECK_INT("cp window end", e, 100000);
    struct tp_cp_graph g;
    CHECK_INT("cp build", tp_cp_build(&h, s, e, &g, &err), TP_OK);
    CHECK_INT("cp nodes", g.nnodes, 10);   /* 4 events with nodes + Context Sync */
    CHECK_INT("cp length", g.length, 98000);
    CHECK_INT("cp path nodes", g.npath, 6);
    CHECK_INT("cp path events", g.npath_events, 4);
    int64_t by[TP_CP_NBOUND] = {0};
    for (size_t i = 0; i < g.npath_edges; i++)
        by[tp_cp_bound_by(&h, &g.edges[g.path_edges[i]])] += g.edges[g.path_edges[i]].weight;
    CHECK_INT("cp cpu_bound", by[TP_CP_CPU], 15000);
    CHECK_INT("cp launch overhead", by[TP_CP_LAUNCH_OVERHEAD], 20000);
    CHECK_INT("cp compute", by[TP_CP_GPU_COMPUTE], 63000);
    CHECK_INT("cp sync none", by[TP_CP_BOUND_NONE], 0);
    CHECK_INT("cp sync edge on path", g.edges[g.path_edges[3]].type, TP_CP_SYNC);
    tp_cp_free(&g);
    CHECK_INT("cp no step", tp_cp_window(&h, 3, NULL, 0, &s, &e, &err), TP_ERR_USAGE);
    CHECK_INT("cp no instance", tp_cp_window(&h, -1, "A", 1, &s, &e, &err), TP_ERR_USAGE);
    tp_hta_free(&h);
    tp_store_free(st);
}

/* A reference trace of ../shared (HTA's test data), loaded and linked; NULL
 * (after a skip line) when ../shared is absent. */
static tp_store *load_reference(const char *rel, const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "../shared/reference/peers/hta_data/tests/data/%s", rel);
    FILE *f = fopen(path, "rb");
    if (!f) {
        SKIP(name, "../shared not found");
        return NULL;
    }
    fclose(f);
    tp_store *st = tp_store_new();
    tp_error err = {0};
    CHECK_INT(name, tp_store_load(st, path, &err) || tp_store_link(st, &err), TP_OK);
    return st;
}

/* tp_hta_init of st with --hta-quirks (quirks 1) or without. */
static void hta_init_quirks(struct tp_hta *h, const tp_store *st, int quirks)
{
    struct tp_view_opts vo = {0};
    vo.hta_quirks = quirks;
    tp_hta_init(h, st, &vo);
}

/* The graph of h's window (step, or annotation's instance): 0, or -1. */
static int build_graph(struct tp_hta *h, int64_t step, const char *annotation, int64_t instance,
                       struct tp_cp_graph *g)
{
    tp_error err = {0};
    int64_t s, e;
    if (tp_cp_window(h, step, annotation, instance, &s, &e, &err) == TP_OK && tp_cp_build(h, s, e, g, &err) == TP_OK)
        return 0;
    printf("# %s\n", err.msg);
    return -1;
}

/* A reference trace (load_reference) and the graph of an annotation's
 * instance in it, checked as "NAME graph"; NULL when either is missing
 * (nothing to free then). */
static tp_store *load_graph(const char *rel, const char *name, const char *annotation, int64_t instance,
                            struct tp_hta *h, struct tp_cp_graph *g)
{
    tp_store *st = load_reference(rel, name);
    if (!st)
        return NULL;
    tp_hta_init(h, st, NULL);
    char n[300];
    snprintf(n, sizeof n, "%s graph", name);
    int built = build_graph(h, -1, annotation, instance, g);
    CHECK(n, built == 0);
    if (built == 0)
        return st;
    tp_hta_free(h);
    tp_store_free(st);
    return NULL;
}

/* ---- HTA's test_critical_path_basic_add ---- */

static const struct tp_cp_edge *edge(const struct tp_cp_graph *g, uint32_t from, uint32_t to)
{
    for (size_t i = 0; i < g->nedges; i++)
        if (g->edges[i].from == from && g->edges[i].to == to)
            return &g->edges[i];
    return NULL;
}

/* the first node at or after `after` of an event named `prefix`... */
static int64_t node_of(const tp_store *st, const struct tp_cp_graph *g, const char *prefix, int is_start,
                       int64_t after)
{
    for (size_t i = (size_t)(after + 1); i < g->nnodes; i++)
        if (g->nodes[i].is_start == is_start && !strncmp(tp_store_str(st, st->name[g->nodes[i].row]), prefix, strlen(prefix)))
            return (int64_t)i;
    return -1;
}

static int64_t end_of(const struct tp_cp_graph *g, int64_t start)
{
    for (size_t i = 0; i < g->nnodes; i++)
        if (!g->nodes[i].is_start && g->nodes[i].row == g->nodes[start].row)
            return (int64_t)i;
    return -1;
}

#define W(g, a, b) (edge((g), (uint32_t)(a), (uint32_t)(b)) ? edge((g), (uint32_t)(a), (uint32_t)(b))->weight / 1000 : -1)
#define T(g, a, b) (edge((g), (uint32_t)(a), (uint32_t)(b)) ? (int)edge((g), (uint32_t)(a), (uint32_t)(b))->type : -1)

static void test_simple_add(void)
{
    struct tp_hta h;
    struct tp_cp_graph g;
    tp_store *st = load_graph("critical_path/simple_add/benchmark_result_493459_1694039959_trace.json.gz",
                              "cp simple_add", "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1, &h, &g);
    if (!st)
        return;
    /* node ids (57, 62), (58, 61), (59, 60) */
    int64_t relu = node_of(st, &g, "aten::relu_", 1, -1), clamp = node_of(st, &g, "aten::clamp_min_", 1, -1);
    int64_t launch = node_of(st, &g, "cudaLaunchKernel", 1, clamp);
    CHECK_INT("cp relu start", relu, 57);
    CHECK_INT("cp relu end", end_of(&g, relu), 62);
    CHECK_INT("cp clamp_min start", clamp, 58);
    CHECK_INT("cp clamp_min end", end_of(&g, clamp), 61);
    CHECK_INT("cp launch start", launch, 59);
    CHECK_INT("cp launch end", end_of(&g, launch), 60);
    /* edge weights 15/14/17/15/32, attributed relu, clamp, launch, clamp, relu */
    CHECK_INT("cp e1", W(&g, 57, 58), 15);
    CHECK_INT("cp e2", W(&g, 58, 59), 14);
    CHECK_INT("cp e3", W(&g, 59, 60), 17);
    CHECK_INT("cp e4", W(&g, 60, 61), 15);
    CHECK_INT("cp e5", W(&g, 61, 62), 32);
    CHECK("cp e1 attributed to relu", edge(&g, 57, 58) && edge(&g, 57, 58)->attr_row == g.nodes[57].row);
    CHECK("cp e4 attributed to clamp_min", edge(&g, 60, 61) && edge(&g, 60, 61)->attr_row == g.nodes[58].row);
    CHECK("cp e5 attributed to relu", edge(&g, 61, 62) && edge(&g, 61, 62)->attr_row == g.nodes[57].row);
    /* launch delay 27 into the first fft kernel, kernel-kernel 7 from it into
     * the next ampere kernel, which also gets a zero-weight launch edge */
    int64_t fft = node_of(st, &g, "void fft2d_r2c_32x32<float, false, 0u, false>", 1, -1);
    int64_t fft_rt = -1, amp = node_of(st, &g, "ampere_gcgemm_64x64_nt", 1, fft), amp_rt = -1;
    for (size_t i = 0; i < g.nedges; i++) {
        if (g.edges[i].type != TP_CP_LAUNCH)
            continue;
        if (g.edges[i].to == (uint32_t)fft) fft_rt = g.edges[i].from;
        if (g.edges[i].to == (uint32_t)amp) amp_rt = g.edges[i].from;
    }
    CHECK_INT("cp launch delay edge", W(&g, fft_rt, fft), 27);
    CHECK_INT("cp kernel-kernel edge type", T(&g, end_of(&g, fft), amp), TP_CP_KERNEL_KERNEL);
    CHECK_INT("cp kernel-kernel edge", W(&g, end_of(&g, fft), amp), 7);
    CHECK_INT("cp zero-weight launch edge", W(&g, amp_rt, amp), 0);
    CHECK_INT("cp zero-weight launch edge type", T(&g, amp_rt, amp), TP_CP_LAUNCH);
    /* the last epilogue kernel -> cudaDeviceSynchronize end: sync, weight 0 */
    int64_t epi = -1, sync = -1;
    for (int64_t i = -1; (i = node_of(st, &g, "void epilogue::impl::globalKernel", 1, i)) >= 0;)
        epi = i;
    for (int64_t i = epi; (i = node_of(st, &g, "cudaDeviceSynchronize", 1, i)) >= 0;)
        if (sync < 0) sync = i;
    CHECK_INT("cp device sync edge type", T(&g, end_of(&g, epi), end_of(&g, sync)), TP_CP_SYNC);
    CHECK_INT("cp device sync edge", W(&g, end_of(&g, epi), end_of(&g, sync)), 0);
    int attributed_ok = 1;
    for (size_t i = 0; i < g.nedges; i++) {
        int needs = g.edges[i].type == TP_CP_OPERATOR || g.edges[i].type == TP_CP_KERNEL_KERNEL;
        if (needs != (g.edges[i].attr_row >= 0))
            attributed_ok = 0;
    }
    CHECK("cp operator and kernel-kernel edges attributed, no others", attributed_ok);
    CHECK_INT("cp simple_add path nodes", g.npath, 315);
    CHECK_INT("cp simple_add path events", g.npath_events, 159);
    CHECK_INT("cp simple_add path edges", g.npath_edges, 314);
    tp_cp_free(&g);
    tp_hta_free(&h);
    tp_store_free(st);
}

/* HTA's inter-stream / event sync tests: the graph has sync edges, all of
 * weight 0 (tprof links cudaDeviceSynchronize and cudaStreamSynchronize;
 * cudaEventSynchronize and cudaStreamWaitEvent need the event-record ids,
 * which the store does not keep). */
static void test_sync_edges(const char *dir, const char *annotation, int64_t instance)
{
    char rel[512], name[256];
    snprintf(rel, sizeof rel, "critical_path/%s", dir);
    snprintf(name, sizeof name, "cp %s", dir);
    struct tp_hta h;
    struct tp_cp_graph g;
    tp_store *st = load_graph(rel, name, annotation, instance, &h, &g);
    if (!st)
        return;
    size_t nsync = 0, heavy = 0;
    for (size_t i = 0; i < g.nedges; i++)
        if (g.edges[i].type == TP_CP_SYNC) {
            nsync++;
            heavy += g.edges[i].weight != 0;
        }
    snprintf(name, sizeof name, "cp %s sync edges", dir);
    CHECK(name, nsync > 0 && heavy == 0);
    snprintf(name, sizeof name, "cp %s path", dir);
    CHECK(name, g.npath >= 2 && g.npath_edges == g.npath - 1);
    tp_cp_free(&g);
    tp_hta_free(&h);
    tp_store_free(st);
}

/* CUDA graphs on a real trace (step 552 has some): every graph kernel and
 * memset is linked to its cudaGraphLaunch; with --hta-quirks none gets a
 * weighted launch edge (HTA's queue test never gives graph kernels one). */
static void test_graph_launches(void)
{
    tp_store *st = load_reference("negative_queue_length_values_check/rank0.json.gz", "cp graph trace");
    if (!st)
        return;
    size_t total[2] = {0, 0};
    for (int quirks = 0; quirks < 2; quirks++) {
        struct tp_hta h;
        hta_init_quirks(&h, st, quirks);
        struct tp_cp_graph g;
        size_t weighted = 0, zero = 0;
        if (build_graph(&h, 552, NULL, 0, &g) == 0) {
            for (size_t i = 0; i < g.nedges; i++) {
                const struct tp_cp_edge *x = &g.edges[i];
                if (x->type != TP_CP_LAUNCH || strcmp(tp_store_str(st, st->name[g.nodes[x->from].row]), "cudaGraphLaunch"))
                    continue;
                if (x->weight > 0) weighted++;
                else zero++;
            }
            tp_cp_free(&g);
        }
        total[quirks] = weighted + zero;
        if (quirks)   /* (without quirks none is weighted either: ~900 launches queued) */
            CHECK_INT("cp graph kernels: HTA weights none", weighted, 0);
        tp_hta_free(&h);
    }
    /* every graph kernel and memset of step 552 has its launch edge, either way */
    CHECK("cp graph kernels all linked to their launch", total[0] > 0 && total[0] == total[1]);
    tp_store_free(st);
}

/* A hand-made CUDA graph: cudaGraphLaunch [10,20] puts K1 [30,40] and K2
 * [41,60] on an idle stream: K1 waited 20 µs for the launch, K2 1 µs after K1
 * (HTA, --hta-quirks: no launch delay for graph kernels). */
static void test_graph_hand_made(void)
{
    tp_store *st = tp_store_new();
    tp_error err = {0};
    add(st, TP_K_CPU_OP, "step", 0, 100, -1, TP_NONE);
    add(st, TP_K_RUNTIME, "cudaGraphLaunch", 10, 10, -1, 9);
    add(st, TP_K_KERNEL, "k1", 30, 10, 7, 9);
    add(st, TP_K_KERNEL, "k2", 41, 19, 7, 9);
    CHECK_INT("cp graph link", tp_store_link(st, &err), TP_OK);
    for (int quirks = 0; quirks < 2; quirks++) {
        struct tp_hta h;
        hta_init_quirks(&h, st, quirks);
        struct tp_cp_graph g;
        int64_t by[TP_CP_NBOUND] = {0};
        if (tp_cp_build(&h, 0, 100000, &g, &err) == TP_OK) {
            for (size_t i = 0; i < g.nedges; i++)
                by[g.edges[i].type == TP_CP_LAUNCH ? TP_CP_LAUNCH_OVERHEAD
                   : g.edges[i].type == TP_CP_KERNEL_KERNEL ? TP_CP_KK_OVERHEAD : TP_CP_CPU] += g.edges[i].weight;
            tp_cp_free(&g);
        }
        CHECK_INT(quirks ? "cp graph launch delay (quirks: none)" : "cp graph launch delay", by[TP_CP_LAUNCH_OVERHEAD],
                  quirks ? 0 : 20000);
        CHECK_INT(quirks ? "cp graph kernel-kernel (quirks)" : "cp graph kernel-kernel", by[TP_CP_KK_OVERHEAD],
                  1000);
        tp_hta_free(&h);
    }
    tp_store_free(st);
}

/* The queue lengths of a window's kernels count the whole trace: kernel K1,
 * launched before the window [200, 400] and starting (at 320) after K2
 * (launched in it at 210, starting at 300), is still queued when K2 is
 * launched and starts, so the launch edge into K2 weighs nothing (the GPU
 * was busy).  Without K1 the stream is idle and the edge weighs 90 µs. */
static int64_t launch_weight(int with_k1)
{
    tp_store *st = tp_store_new();
    tp_error err = {0};
    add(st, TP_K_CPU_OP, "A", 0, 100, -1, TP_NONE);
    if (with_k1) {
        add(st, TP_K_RUNTIME, "cudaLaunchKernel", 10, 2, -1, 1);
        add(st, TP_K_KERNEL, "k1", 320, 50, 7, 1);
    }
    add(st, TP_K_CPU_OP, "B", 200, 200, -1, TP_NONE);
    add(st, TP_K_RUNTIME, "cudaLaunchKernel", 210, 2, -1, 2);
    add(st, TP_K_KERNEL, "k2", 300, 10, 7, 2);
    struct tp_hta h;
    struct tp_cp_graph g;
    int64_t w = -1;
    if (tp_store_link(st, &err) == TP_OK && tp_hta_init(&h, st, NULL) == 0) {
        if (tp_cp_build(&h, 200000, 400000, &g, &err) == TP_OK) {
            for (size_t i = 0; i < g.nedges; i++)
                if (g.edges[i].type == TP_CP_LAUNCH)
                    w = g.edges[i].weight;
            tp_cp_free(&g);
        }
        tp_hta_free(&h);
    }
    tp_store_free(st);
    return w;
}

static void test_queue_before_window(void)
{
    CHECK_INT("cp queue before the window: busy", launch_weight(1), 0);
    CHECK_INT("cp queue before the window: idle", launch_weight(0), 90000);
}

int main(void)
{
    test_queue_before_window();
    test_graph_hand_made();
    test_graph_launches();
    test_hand_made();
    test_simple_add();
    test_sync_edges("alexnet/benchmark_result_2869224_1695835535_trace.json.gz",
                    "[param|pytorch.model.alex_net|0|0|0|measure|forward]", 1);
    test_sync_edges("cuda_event_sync/event_sync_trace.json.gz", "ProfilerStep", 0);
    test_sync_edges("cuda_event_sync_multi_stream/event_sync_trace.json.gz", "", 0);
    TEST_EXIT();
}
