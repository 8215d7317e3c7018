/* hta_test.c — unit tests of the HTA logic (hta.c) and its views on tiny
 * synthetic stores: kernel classification, HTA's interval merge, sweeps, the
 * step window, µs rounding with TPROF_HTA_QUIRKS, and every view's numbers
 * worked out by hand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hta.h"
#include "table.h"
#include "testing.h"
#include "testing_store.h"
#include "views.h"

static void test_classify(void)
{
    static const struct {
        const char *name, *kernel;
        int quirks, want;
    } cases[] = {
        {"type nccl", "ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)", 0, TP_HTA_COMM},
        {"type ncclKernel inside", "void ncclKernel_AllReduce_RING_LL_Sum_float(x)", 0, TP_HTA_COMM},
        {"type hccl", "hccl_allreduce", 0, TP_HTA_COMM},
        {"type memcpy", "Memcpy DtoD (Device -> Device)", 0, TP_HTA_MEM},
        {"type memset", "Memset (Device)", 0, TP_HTA_MEM},
        {"type dma", "dma_request", 0, TP_HTA_MEM},
        {"type gemm", "volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_stages_32x1_tn", 0, TP_HTA_COMP},
        {"type sync other", "Event Sync", 0, TP_HTA_OTHER},
        {"type stream wait other", "Stream Wait Event", 0, TP_HTA_OTHER},
        {"type Memcpy inside other", "fooMemcpyKernel", 0, TP_HTA_OTHER},
        {"type cuda launch other", "cudaLaunchKernel", 0, TP_HTA_OTHER},
        /* '.' does not match a newline: "Sync" on the second line does not count */
        {"type newline", "kernel\nSync", 0, TP_HTA_COMP},
        /* HTA's ^hip quirk and tprof's fix */
        {"type hipMemcpy quirk", "hipMemcpyDtoD", 1, TP_HTA_COMM},
        {"type hipMemcpy fixed", "hipMemcpyDtoD", 0, TP_HTA_MEM},
        {"type hip kernel quirk", "hipKernelFoo", 1, TP_HTA_COMM},
        {"type hip kernel fixed", "hipKernelFoo", 0, TP_HTA_COMP},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK_INT(cases[i].name, tp_hta_kernel_type(cases[i].kernel, cases[i].quirks), cases[i].want);
    CHECK_STR("label 3", tp_hta_type_label(3), "COMPUTATION overlapping COMMUNICATION");
    CHECK_STR("label 6", tp_hta_type_label(6), "COMMUNICATION overlapping MEMORY");
    CHECK_STR("label 7", tp_hta_type_label(7), "COMPUTATION overlapping COMMUNICATION overlapping MEMORY");
}

static void test_intervals(void)
{
    struct tp_hta_iv v[] = {{10, 20}, {0, 5}, {5, 8}, {15, 30}, {40, 41}, {12, 13}};
    size_t n = tp_hta_merge(v, 6);
    CHECK_INT("merge groups", n, 3);
    CHECK_INT("merge touching", v[0].e, 8);
    CHECK_INT("merge overlap", v[1].s * 100 + v[1].e, 1030);
    CHECK_INT("merge len", tp_hta_len(v, n), 8 + 20 + 1);
    CHECK_INT("merge empty", tp_hta_merge(v, 0), 0);
    /* HTA keeps rounded ranges with end < start: an isolated one counts negative */
    struct tp_hta_iv q[] = {{0, 10}, {12, 11}, {20, 25}};
    n = tp_hta_merge(q, 3);
    CHECK_INT("merge negative groups", n, 3);
    CHECK_INT("merge negative len", tp_hta_len(q, n), 10 - 1 + 5);
    /* but one inside another group vanishes */
    struct tp_hta_iv q2[] = {{0, 10}, {5, 4}};
    CHECK_INT("merge negative inside", tp_hta_merge(q2, 2), 1);
    CHECK_INT("merge negative inside end", q2[0].e, 10);

    struct tp_hta_iv a[] = {{0, 10}, {20, 30}}, b[] = {{5, 25}}, c[] = {{8, 9}};
    CHECK_INT("intersect", tp_hta_intersect_len(a, 2, b, 1), 10);
    const struct tp_hta_iv *sets[3] = {a, b, c};
    size_t ns[3] = {2, 1, 1};
    int w[3] = {1, 2, 4};
    int64_t t[8];
    CHECK("sweep ok", tp_hta_sweep(sets, ns, w, 3, t) == 0);
    CHECK_INT("sweep a only", t[1], 5 + 5);
    CHECK_INT("sweep b only", t[2], 10);
    CHECK_INT("sweep a+b", t[3], 4 + 5);
    CHECK_INT("sweep a+b+c", t[7], 1);
    CHECK_INT("sweep c alone", t[4], 0);
    CHECK_INT("sweep empty", tp_hta_sweep(sets, (size_t[3]){0, 0, 0}, w, 3, t), 0);
    CHECK_INT("sweep empty time", t[1] + t[2] + t[7], 0);
}

/* ---- tiny stores ---- */

static tp_store *st;

static int64_t add(enum tp_kind k, const char *name, int64_t ts, int64_t dur, int stream, int64_t corr)
{
    int64_t r = tt_event(st, k, name, ts, dur);
    st->tid[r] = stream >= 0 ? stream : 1;
    st->stream[r] = stream;
    st->correlation[r] = corr;
    return r;
}

static tp_table *view(const tp_view *v, int all_steps)
{
    struct tp_view_opts vo;
    memset(&vo, 0, sizeof vo);
    vo.all_steps = all_steps;
    tp_table *t = NULL;
    tp_error err = {0};
    if (tp_view_build(v, st, &vo, &t, &err) != TP_OK)
        return NULL;
    return t;
}

static int64_t cell(tp_table *t, size_t row, const char *key)
{
    long c = tp_table_col_find(tp_table_coldefs(t), tp_table_cols(t), key);
    if (c < 0 || row >= tp_table_rows(t) || tp_table_cell_kind(t, row, (size_t)c) != TP_CELL_INT)
        return INT64_MIN;
    return tp_table_cell_int(t, row, (size_t)c);
}

static double fcell(tp_table *t, size_t row, const char *key)
{
    long c = tp_table_col_find(tp_table_coldefs(t), tp_table_cols(t), key);
    if (c < 0 || row >= tp_table_rows(t) || tp_table_cell_kind(t, row, (size_t)c) != TP_CELL_FLOAT)
        return -1e300;
    return tp_table_cell_float(t, row, (size_t)c);
}

static const char *scell(tp_table *t, size_t row, const char *key)
{
    long c = tp_table_col_find(tp_table_coldefs(t), tp_table_cols(t), key);
    if (c < 0 || row >= tp_table_rows(t))
        return NULL;
    return tp_table_cell_str(t, row, (size_t)c);
}

/* One expected cell of a view of st: an integer, a string, or a float in
 * [lo, hi]; key NULL: the table's row count. */
enum { ALL_STEPS = 1, QUIRKS = 2 };   /* want.opts: --all-steps, TPROF_HTA_QUIRKS=1 */

struct want {
    const tp_view *v;
    int opts;
    const char *name;
    size_t row;
    const char *key;
    char type;                 /* 'i', 's' or 'f' */
    int64_t i;
    const char *s;
    double lo, hi;
};

static void check_wants(const struct want *w, size_t n)
{
    tp_table *t = NULL;
    for (size_t k = 0; k < n; k++) {
        if (k == 0 || w[k].v != w[k - 1].v || w[k].opts != w[k - 1].opts) {
            tp_table_free(t);
            if (w[k].opts & QUIRKS)
                setenv("TPROF_HTA_QUIRKS", "1", 1);
            t = view(w[k].v, w[k].opts & ALL_STEPS);
            unsetenv("TPROF_HTA_QUIRKS");
            if (!t)
                printf("# %s: the view did not build\n", w[k].name);
        }
        if (!t)
            CHECK(w[k].name, 0);
        else if (!w[k].key)
            CHECK_INT(w[k].name, tp_table_rows(t), w[k].i);
        else if (w[k].type == 'i')
            CHECK_INT(w[k].name, cell(t, w[k].row, w[k].key), w[k].i);
        else if (w[k].type == 's')
            CHECK_STR(w[k].name, scell(t, w[k].row, w[k].key), w[k].s);
        else
            CHECK(w[k].name, fcell(t, w[k].row, w[k].key) >= w[k].lo && fcell(t, w[k].row, w[k].key) <= w[k].hi);
    }
    tp_table_free(t);
}

/* Three steps; kernels on stream 7 (compute, comm overlapping it, memcpy)
 * and a kernel of the last step that HTA leaves out. */
static void make_steps_store(void)
{
    st = tp_store_new();
    add(TP_K_USER_ANNOTATION, "ProfilerStep#1", 0, 100000, -1, TP_NONE);
    add(TP_K_USER_ANNOTATION, "ProfilerStep#2", 100000, 100000, -1, TP_NONE);
    add(TP_K_USER_ANNOTATION, "ProfilerStep#3", 200000, 100000, -1, TP_NONE);
    add(TP_K_RUNTIME, "cudaLaunchKernel", 1000, 2000, -1, 1);       /* ends 3000 */
    add(TP_K_KERNEL, "gemm", 10000, 20000, 7, 1);                   /* 10000..30000 */
    add(TP_K_RUNTIME, "cudaLaunchKernel", 4000, 1000, -1, 2);
    add(TP_K_KERNEL, "ncclDevKernel_AllReduce", 25000, 10000, 7, 2);  /* 25000..35000 */
    add(TP_K_RUNTIME, "cudaMemcpyAsync", 150000, 60000, -1, 3);     /* runs 60 us: runtime outlier */
    add(TP_K_MEMCPY, "Memcpy HtoD (Pageable -> Device)", 215000, 5000, 7, 3);  /* gap 180 us after 35000 */
    add(TP_K_RUNTIME, "cudaLaunchKernel", 250000, 1000, -1, 4);     /* in the last step */
    add(TP_K_KERNEL, "gemm", 260000, 1000, 7, 4);
}

static void test_views(void)
{
    make_steps_store();
    tp_error err = {0};
    CHECK("link", tp_store_link(st, &err) == TP_OK);

    /* each view built once, its cells checked in the order listed */
    static const struct want views[] = {
        /* kept: 10000..35000 (union 25000) and 215000..220000 */
        {&tp_view_temporal, 0, "temporal kernel_time", 0, "kernel_time", 'i', 210000, NULL, 0, 0},
        {&tp_view_temporal, 0, "temporal idle", 0, "idle", 'i', 210000 - 30000, NULL, 0, 0},
        {&tp_view_temporal, 0, "temporal compute", 0, "compute", 'i', 20000, NULL, 0, 0},
        {&tp_view_temporal, 0, "temporal non_compute", 0, "non_compute", 'i', 10000, NULL, 0, 0},
        {&tp_view_temporal, 0, "temporal rank absent is 0", 0, "rank", 'i', 0, NULL, 0, 0},
        {&tp_view_temporal, 0, "temporal pct", 0, "compute_pct", 'f', 0, NULL, 9.52, 9.53},
        {&tp_view_temporal, ALL_STEPS, "temporal all-steps kernel_time", 0, "kernel_time", 'i', 251000, NULL, 0, 0},
        {&tp_view_temporal, ALL_STEPS, "temporal all-steps compute", 0, "compute", 'i', 21000, NULL, 0, 0},
        {&tp_view_kernel_types, 0, "kernel-types rows", 0, NULL, 'i', 4, NULL, 0, 0},
        {&tp_view_kernel_types, 0, "kernel-types first", 0, "kernel_type", 's', 0, "COMPUTATION", 0, 0},
        {&tp_view_kernel_types, 0, "kernel-types comp only", 0, "time", 'i', 15000, NULL, 0, 0},
        /* three rows of 5000: ties in HTA's label order */
        {&tp_view_kernel_types, 0, "kernel-types comm only", 1, "kernel_type", 's', 0, "COMMUNICATION", 0, 0},
        {&tp_view_kernel_types, 0, "kernel-types comp+comm", 2, "time", 'i', 5000, NULL, 0, 0},
        {&tp_view_kernel_types, 0, "kernel-types comp+comm label", 2, "kernel_type", 's', 0,
         "COMPUTATION overlapping COMMUNICATION", 0, 0},
        {&tp_view_kernel_types, 0, "kernel-types memory", 3, "kernel_type", 's', 0, "MEMORY", 0, 0},
        {&tp_view_overlap, 0, "overlap time", 0, "overlap", 'i', 5000, NULL, 0, 0},
        {&tp_view_overlap, 0, "overlap comm", 0, "comm", 'i', 10000, NULL, 0, 0},
        {&tp_view_overlap, 0, "overlap pct", 0, "comm_comp_overlap_pct", 'f', 0, NULL, 50.0, 50.0},
        {&tp_view_idle, 0, "idle rows", 0, NULL, 'i', 3, NULL, 0, 0},
        /* gap 1: 25000 - 30000 < 0: no idle (HTA: -5000 kernel_wait);
         * gap 2: 215000 - 35000, its runtime started at 150000 > 35000: host_wait */
        {&tp_view_idle, 0, "idle host_wait", 0, "time", 'i', 180000, NULL, 0, 0},
        {&tp_view_idle, 0, "idle kernel_wait", 1, "time", 'i', 0, NULL, 0, 0},
        {&tp_view_idle, 0, "idle ratio", 0, "ratio", 'f', 0, NULL, 1.0, 1.0},
        {&tp_view_launches, 0, "launches rows", 0, NULL, 'i', 3, NULL, 0, 0},
        {&tp_view_launches, 0, "launches delay", 0, "launch_delay", 'i', 7000, NULL, 0, 0},
        {&tp_view_launches, 0, "launches delay 2", 1, "launch_delay", 'i', 20000, NULL, 0, 0},
        {&tp_view_launches, 0, "launches outlier", 2, "outlier", 's', 0, "runtime", 0, 0},
        {&tp_view_launches, 0, "launches cpu_dur", 2, "cpu_dur", 'i', 60000, NULL, 0, 0},
        {&tp_view_queue, 0, "queue rows", 0, NULL, 'i', 1, NULL, 0, 0},
        /* series: 1 2 1 0 1 0 */
        {&tp_view_queue, 0, "queue count", 0, "count", 'i', 6, NULL, 0, 0},
        {&tp_view_queue, 0, "queue max", 0, "max", 'i', 2, NULL, 0, 0},
        {&tp_view_queue, 0, "queue mean", 0, "mean", 'f', 0, NULL, 0.833, 0.834},
        {&tp_view_queue, 0, "queue p50", 0, "p50", 'f', 0, NULL, 1.0, 1.0},
        {&tp_view_queue, 0, "queue p25", 0, "p25", 'f', 0, NULL, 0.25, 0.25},
    };
    check_wants(views, sizeof views / sizeof views[0]);

    /* HTA's own way: µs rounding, negative gaps summed */
    static const struct want quirky[] = {
        {&tp_view_idle, QUIRKS, "idle quirks kernel_wait negative", 1, "time", 'i', -5000, NULL, 0, 0},
    };
    check_wants(quirky, sizeof quirky / sizeof quirky[0]);
    tp_store_free(st);

    /* Sub-µs kernels: HTA's ceil/floor gives them negative durations */
    st = tp_store_new();
    add(TP_K_RUNTIME, "cudaLaunchKernel", 0, 500, -1, 1);
    add(TP_K_KERNEL, "k1", 1000, 3000, 0, 1);               /* 1..4 us */
    add(TP_K_RUNTIME, "cudaLaunchKernel", 600, 300, -1, 2);
    add(TP_K_KERNEL, "k2", 10200, 600, 0, 2);               /* 10.2..10.8 us: [11, 10] */
    add(TP_K_RUNTIME, "cudaLaunchKernel", 950, 30, -1, 3);
    add(TP_K_KERNEL, "k3", 20000, 1000, 0, 3);              /* 20..21 us */
    CHECK("link 2", tp_store_link(st, &err) == TP_OK);
    static const struct want sub_us[] = {
        {&tp_view_temporal, 0, "sub-us compute exact", 0, "compute", 'i', 3000 + 600 + 1000, NULL, 0, 0},
        {&tp_view_temporal, 0, "sub-us kernel_time exact", 0, "kernel_time", 'i', 20000, NULL, 0, 0},
        {&tp_view_launches, 0, "sub-us gpu_dur exact", 1, "gpu_dur", 'i', 600, NULL, 0, 0},
        {&tp_view_temporal, QUIRKS, "sub-us compute quirks", 0, "compute", 'i', 3000 - 1000 + 1000, NULL, 0, 0},
        {&tp_view_launches, QUIRKS, "sub-us gpu_dur quirks", 1, "gpu_dur", 'i', -1000, NULL, 0, 0},
    };
    check_wants(sub_us, sizeof sub_us / sizeof sub_us[0]);
    tp_store_free(st);

    /* No GPU events: one row of zeros, no division by zero */
    st = tp_store_new();
    add(TP_K_CPU_OP, "aten::add", 0, 100, -1, TP_NONE);
    st->rank = 3;
    CHECK("link 3", tp_store_link(st, &err) == TP_OK);
    static const struct want empty[] = {   /* fcell's -1e300: a NULL cell */
        {&tp_view_temporal, 0, "empty temporal rows", 0, NULL, 'i', 1, NULL, 0, 0},
        {&tp_view_temporal, 0, "empty temporal rank", 0, "rank", 'i', 3, NULL, 0, 0},
        {&tp_view_temporal, 0, "empty temporal kernel_time", 0, "kernel_time", 'i', 0, NULL, 0, 0},
        {&tp_view_temporal, 0, "empty temporal pct null", 0, "idle_pct", 'f', 0, NULL, -1e300, -1e300},
        {&tp_view_kernel_types, 0, "kernel-types", 0, NULL, 'i', 0, NULL, 0, 0},
        {&tp_view_idle, 0, "idle", 0, NULL, 'i', 0, NULL, 0, 0},
        {&tp_view_launches, 0, "launches", 0, NULL, 'i', 0, NULL, 0, 0},
        {&tp_view_queue, 0, "queue", 0, NULL, 'i', 0, NULL, 0, 0},
        {&tp_view_overlap, 0, "empty overlap pct null", 0, "comm_comp_overlap_pct", 'f', 0, NULL, -1e300, -1e300},
    };
    check_wants(empty, sizeof empty / sizeof empty[0]);
    tp_store_free(st);
}

/* --group kernel: 12 names, the cut into "others" */
static void test_kernel_table(void)
{
    st = tp_store_new();
    char name[16];
    int64_t ts = 0;
    for (int i = 0; i < 12; i++) {
        snprintf(name, sizeof name, "k%02d", i);
        if (i == 0) {
            add(TP_K_KERNEL, name, ts, 8000, 0, TP_NONE);
            ts += 10000;
            add(TP_K_KERNEL, name, ts, 4000, 0, TP_NONE);
        } else {
            add(TP_K_KERNEL, name, ts, (12 - i) * 1000, 0, TP_NONE);
        }
        ts += 20000;
    }
    add(TP_K_MEMCPY, "Memcpy DtoH (Device -> Pinned)", ts, 500, 0, TP_NONE);
    tp_error err = {0};
    CHECK("link 4", tp_store_link(st, &err) == TP_OK);
    struct tp_view_opts vo;
    memset(&vo, 0, sizeof vo);
    vo.group = "kernel";
    tp_table *t = NULL;
    CHECK("kernel table built", tp_view_build(&tp_view_kernel_types, st, &vo, &t, &err) == TP_OK);
    /* cumsum 12,23,33,42,50,57,63,68,72,75,77,78 (ms); its 80% quantile is
     * 74.4: k09..k11 are "others" (k10, k11 also by the 10-name limit) */
    CHECK_INT("kernel table rows", tp_table_rows(t), 11);
    CHECK_STR("kernel table row 0", scell(t, 0, "name"), "k00");
    CHECK_INT("kernel table k00 calls", cell(t, 0, "calls"), 2);
    CHECK_INT("kernel table k00 max", cell(t, 0, "max"), 8000);
    CHECK("kernel table k00 mean", fcell(t, 0, "mean") == 6.0);
    CHECK_STR("kernel table others", scell(t, 9, "name"), "others");
    CHECK_INT("kernel table others sum", cell(t, 9, "time"), 6000);
    CHECK_INT("kernel table others calls", cell(t, 9, "calls"), 3);
    CHECK("kernel table others std", fcell(t, 9, "std") == 1.0);
    CHECK_STR("kernel table memory", scell(t, 10, "kernel_type"), "MEMORY");
    CHECK("kernel table single std none", fcell(t, 10, "std") == -1e300);
    tp_table_free(t);
    setenv("TPROF_HTA_QUIRKS", "1", 1);
    CHECK("kernel table quirks", tp_view_build(&tp_view_kernel_types, st, &vo, &t, &err) == TP_OK);
    CHECK_INT("kernel table quirks k00 max = sum", cell(t, 0, "max"), 12000);
    CHECK("kernel table quirks k00 std 0", fcell(t, 0, "std") == 0.0);
    CHECK("kernel table quirks memory std 0", fcell(t, 10, "std") == 0.0);
    tp_table_free(t);
    unsetenv("TPROF_HTA_QUIRKS");
    vo.group = "bogus";
    t = NULL;
    CHECK("kernel table bad group", tp_view_build(&tp_view_kernel_types, st, &vo, &t, &err) == TP_ERR_USAGE);
    tp_table_free(t);
    tp_store_free(st);
}

/* ---- the radix sorts (hta_order.c) against qsort ---- */

static int cmp_iv_test(const void *x, const void *y)
{
    const struct tp_hta_iv *p = x, *q = y;
    if (p->s != q->s) return p->s < q->s ? -1 : 1;
    return p->e < q->e ? -1 : p->e > q->e;
}

/* A small deterministic generator (xorshift): the same cases every run. */
static uint64_t rng = 88172645463325252ULL;
static int64_t rnd(int64_t lo, int64_t hi)   /* in [lo, hi) */
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return lo + (int64_t)(rng % (uint64_t)(hi - lo));
}

struct el { int64_t a, b; int32_t c; uint32_t at; };

/* c, then b, then a, then the place before sorting */
static int cmp_el(const void *x, const void *y)
{
    const struct el *p = x, *q = y;
    if (p->c != q->c) return p->c < q->c ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return p->at < q->at ? -1 : p->at > q->at;
}

static int64_t el_key(const void *x, int pass)
{
    const struct el *p = x;
    return pass == 0 ? p->a : pass == 1 ? p->b : p->c;
}

/* n elements with keys in the given spans: tp_hta_sort's order is qsort's
 * with the full comparator. */
static void sort_case(const char *name, size_t n, int64_t alo, int64_t ahi, int64_t blo, int64_t bhi)
{
    struct el *v = malloc((n + 1) * sizeof *v), *w = malloc((n + 1) * sizeof *w);
    for (size_t i = 0; i < n; i++) {
        v[i] = (struct el){rnd(alo, ahi), rnd(blo, bhi), (int32_t)rnd(-3, 3), (uint32_t)i};
        if (ahi - alo > INT64_C(1) << 62 && i % 5 == 0)   /* the extremes too */
            v[i].a = i % 10 ? INT64_MIN : INT64_MAX;
    }
    memcpy(w, v, n * sizeof *v);
    qsort(w, n, sizeof *w, cmp_el);
    int rc = tp_hta_sort(v, n, sizeof *v, 3, el_key, cmp_el);
    char key[64];
    snprintf(key, sizeof key, "hta_sort %s ok", name);
    CHECK_INT(key, rc, 0);
    snprintf(key, sizeof key, "hta_sort %s order", name);
    CHECK(key, n == 0 || memcmp(v, w, n * sizeof *v) == 0);
    free(v);
    free(w);
}

static void test_sort(void)
{
    sort_case("empty", 0, 0, 1, 0, 1);
    sort_case("one", 1, 0, 1, 0, 1);
    static const char *const few[] = {"few 3a", "few 2a", "few 3b", "few 2b", "few 3c", "few 2c"};
    for (int i = 0; i < 6; i++)   /* two or three elements wider than their keys' array: qsort */
        sort_case(few[i], 2 + (size_t)(i % 2 == 0), -100, 100, -5, 5);
    sort_case("ties", 5000, 0, 4, 0, 3);                        /* every key ties often */
    sort_case("times", 20000, 0, INT64_C(1) << 35, -50, 50);    /* two keys in one word */
    sort_case("wide", 3000, -(INT64_C(1) << 50), INT64_C(1) << 50, 0, INT64_C(1) << 40);   /* a pass each */
    sort_case("too wide", 3000, INT64_MIN / 2, INT64_MAX / 2, 0, 10);   /* qsort */
    uint32_t perm[3] = {2, 0, 1};
    int64_t k[3] = {INT64_MIN, 0, INT64_MAX};
    CHECK_INT("order_by too wide", tp_hta_order_by(perm, 3, k), 1);
    CHECK("order_by too wide unchanged", perm[0] == 2 && perm[1] == 0 && perm[2] == 1);
    int64_t k2[3] = {5, -7, 5};
    CHECK_INT("order_by", tp_hta_order_by(perm, 3, k2), 0);
    /* entries 2, 0, 1 have keys 5, 5, -7: 1 first, then 2 and 0 as they were */
    CHECK("order_by stable", perm[0] == 1 && perm[1] == 2 && perm[2] == 0);
}

/* Merges and sweeps of random ranges: sorted input and shuffled input
 * merge alike, and a sweep's times match a count over every nanosecond. */
static void test_merge_sweep(void)
{
    enum { N = 400, SPAN = 3000 };
    struct tp_hta_iv *v = malloc(N * sizeof *v), *u = malloc(N * sizeof *u);
    int same = 1;
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < N; i++) {
            int64_t s0 = rnd(0, SPAN);
            v[i] = (struct tp_hta_iv){s0, s0 + rnd(round % 4 ? 0 : -3, 40)};   /* some end before they start */
        }
        memcpy(u, v, N * sizeof *v);
        qsort(u, N, sizeof *u, cmp_iv_test);
        size_t nv = tp_hta_merge(v, N), nu = tp_hta_merge(u, N);
        same = same && nv == nu && memcmp(v, u, nv * sizeof *v) == 0;
    }
    CHECK("merge shuffled = merge sorted", same);
    /* three merged sets, weights 1, 2, 4: time[r] is the count of
     * nanoseconds whose running sum is r */
    struct tp_hta_iv *set[3];
    size_t n[3];
    int w[3] = {1, 2, 4}, ok = 1;
    for (int k = 0; k < 3; k++) {
        set[k] = malloc(N * sizeof *set[k]);
        for (int i = 0; i < N; i++) {
            int64_t s0 = rnd(0, SPAN);
            set[k][i] = (struct tp_hta_iv){s0, s0 + rnd(1, 30)};
        }
        n[k] = tp_hta_merge(set[k], N);
    }
    int64_t t[8], want[8] = {0};
    const struct tp_hta_iv *sets[3] = {set[0], set[1], set[2]};
    ok = tp_hta_sweep(sets, n, w, 3, t) == 0;
    for (int64_t x = 0; x < SPAN + 40; x++) {
        int sum = 0;
        for (int k = 0; k < 3; k++)
            for (size_t i = 0; i < n[k]; i++)
                if (set[k][i].s <= x && x < set[k][i].e)
                    sum += w[k];
        want[sum] += sum ? 1 : 0;
    }
    for (int r = 1; r < 8; r++)
        ok = ok && t[r] == want[r];
    CHECK("sweep = count per ns", ok);
    for (int k = 0; k < 3; k++)
        free(set[k]);
    free(v);
    free(u);
}

int main(void)
{
    unsetenv("TPROF_HTA_QUIRKS");
    test_classify();
    test_intervals();
    test_views();
    test_kernel_table();
    test_sort();
    test_merge_sweep();
    TEST_EXIT();
}
