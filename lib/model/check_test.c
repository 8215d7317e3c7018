/* check_test.c — `tprof check`'s classifications on tiny stores: what one
 * stream can overlap (rounding limit, a dur covering the next event, plain
 * overlap, an event still running when later ones start), the rounding limit
 * of whole-µs traces, clocks of two ranks, and the exit severity. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "table.h"
#include "testing.h"
#include "testing_store.h"
#include "views.h"

static int64_t add(tp_store *st, enum tp_kind k, const char *name, int64_t ts, int64_t dur, int stream)
{
    int64_t r = tt_event(st, k, name, ts, dur);
    st->device[r] = 0;
    st->stream[r] = stream;
    return r;
}

static const struct tp_finding *find(const struct tp_findings *f, const char *key)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->v[i].key, key) == 0)
            return &f->v[i];
    return NULL;
}

static uint64_t count(const struct tp_findings *f, const char *key)
{
    const struct tp_finding *x = find(f, key);
    return x ? x->count : 0;
}

static void streams_ns(void)
{
    tp_store *st = tp_store_new();
    add(st, TP_K_KERNEL, "a", 0, 10000, 7);
    add(st, TP_K_KERNEL, "b", 9500, 400, 7);        /* 0.5 µs into a: rounding */
    add(st, TP_K_KERNEL, "c", 20000, 10000, 7);
    add(st, TP_K_KERNEL, "d", 25000, 15000, 7);     /* 5 µs into c, ends after: overlap */
    add(st, TP_K_MEMCPY, "e", 50000, 30000, 7);
    add(st, TP_K_KERNEL, "f", 60000, 10000, 7);     /* inside e: e's dur runs past f */
    add(st, TP_K_KERNEL, "g", 75000, 15000, 7);     /* e still runs: overlap with e */
    add(st, TP_K_KERNEL, "other", 0, 90000, 8);     /* another stream: nothing */
    struct tp_findings f = {0};
    CHECK_INT("check.streams.ok", tp_check_streams(st, &f), TP_OK);
    CHECK_INT("check.streams.rounding", count(&f, "rounding_overlap"), 1);
    CHECK_INT("check.streams.overlap", count(&f, "stream_overlap"), 2);
    CHECK_INT("check.streams.past", count(&f, "dur_past_next"), 1);
    CHECK_INT("check.streams.ns_precision", count(&f, "us_timestamps"), 0);
    const struct tp_finding *p = find(&f, "dur_past_next");
    CHECK_STR("check.streams.past_first", p ? p->first_event : NULL, "e");
    CHECK("check.streams.past_worst", p && strstr(p->detail, "worst 10.000 us"));
    const struct tp_finding *o = find(&f, "stream_overlap");
    CHECK("check.streams.overlap_worst", o && strstr(o->detail, "worst 5.000 us"));
    CHECK_INT("check.streams.severity", o ? (long long)o->severity : -1, TP_SEV_WARNING);
    free(f.v);
    tp_store_free(st);
}

static void streams_whole_us(void)
{
    tp_store *st = tp_store_new();
    add(st, TP_K_KERNEL, "a", 0, 10000, 1);
    add(st, TP_K_KERNEL, "b", 9000, 3000, 1);       /* 1 µs: rounding on a whole-µs trace */
    add(st, TP_K_KERNEL, "c", 20000, 10000, 1);
    add(st, TP_K_KERNEL, "d", 28000, 5000, 1);      /* 2 µs: beyond it */
    struct tp_findings f = {0};
    tp_check_streams(st, &f);
    CHECK_INT("check.whole_us.rounding", count(&f, "rounding_overlap"), 1);
    CHECK_INT("check.whole_us.overlap", count(&f, "stream_overlap"), 1);
    CHECK_INT("check.whole_us.flagged", count(&f, "us_timestamps"), 4);
    free(f.v);
    tp_store_free(st);
}

/* A store with one ProfilerStep#5 at ts (ns) lasting dur, rank r. */
static tp_store *ranked(int64_t r, int64_t base, int64_t ts, int64_t dur)
{
    tp_store *st = tp_store_new();
    st->rank = r;
    st->base_time_ns = base;
    int64_t row = add(st, TP_K_USER_ANNOTATION, "ProfilerStep#5", ts, dur, -1);
    st->steps = calloc(1, sizeof *st->steps);
    st->steps[0] = (struct tp_step){5, ts, ts + dur, row};
    st->nsteps = 1;
    return st;
}

static void clocks(void)
{
    /* 1 ms apart with 100 ms steps: in step */
    tp_store *a = ranked(0, 1000000000, 5000000, 100000000), *b = ranked(1, 1000000000, 6000000, 100000000);
    const tp_store *run[2] = {a, b};
    struct tp_findings f = {0};
    tp_check_clocks(run, 2, &f);
    CHECK_INT("check.clocks.agree", count(&f, "clock_skew"), 0);
    /* the same ts, but rank 1's baseTimeNanoseconds is 2 s later */
    b->base_time_ns += 2000000000;
    tp_check_clocks(run, 2, &f);
    const struct tp_finding *x = find(&f, "clock_skew");
    CHECK_INT("check.clocks.skew", x ? (long long)x->count : 0, 2);
    CHECK_INT("check.clocks.skew_rank", x ? x->rank : -1, 1);
    CHECK("check.clocks.skew_detail", x && strstr(x->detail, "2001.000 ms apart"));
    free(f.v);
    /* one rank without baseTimeNanoseconds: ts compared as they are */
    f = (struct tp_findings){0};
    a->base_time_ns = TP_NONE;
    tp_check_clocks(run, 2, &f);
    CHECK_INT("check.clocks.no_base", count(&f, "clock_skew"), 0);
    free(f.v);
    /* no common step: first events compared; a rank without events is left out */
    tp_store *e = tp_store_new();
    e->base_time_ns = 1000000000;
    a->base_time_ns = 1000000000;
    a->nsteps = 0;
    const tp_store *run2[2] = {a, e};
    f = (struct tp_findings){0};
    CHECK_INT("check.clocks.empty_rank", tp_check_clocks(run2, 2, &f), TP_OK);
    CHECK_INT("check.clocks.empty_rank_none", count(&f, "clock_skew"), 0);
    b->base_time_ns += INT64_C(60) * 1000000000;   /* 62 s later and no common step: skew */
    b->nsteps = 0;
    tp_check_clocks(run, 2, &f);
    CHECK_INT("check.clocks.first_events", count(&f, "clock_skew"), 2);
    free(f.v);
    tp_store_free(e);
    tp_store_free(a);
    tp_store_free(b);
}

/* The view: the severity the CLI exits with. */
static void severity(void)
{
    tp_store *st = tp_store_new();
    add(st, TP_K_KERNEL, "a", 0, 10000, 7);
    tp_error err = {0};
    tp_table *t = NULL;
    CHECK_INT("check.view.link", tp_store_link(st, &err), TP_OK);
    CHECK_INT("check.view.build", tp_view_build(&tp_view_check, st, NULL, &t, &err), TP_OK);
    CHECK_INT("check.view.clean_info", t ? (long long)tp_view_check.severity(t) : -1, TP_SEV_INFO);
    tp_table_free(t);
    st->truncated = 1;
    t = NULL;
    tp_view_build(&tp_view_check, st, NULL, &t, &err);
    CHECK_INT("check.view.truncated_error", t ? (long long)tp_view_check.severity(t) : -1, TP_SEV_ERROR);
    tp_table_free(t);
    tp_store_free(st);
}

/* Launch calls without GPU work (kernel_missing, copy_missing,
 * launch_at_end) with correlation ids id(i): the same findings whether the
 * ids fill pages (a counter, or two runs far apart) or are too sparse for
 * them (the hash map). */
static void lost_ids(const char *name, int64_t (*id)(int64_t i))
{
    tp_store *st = tp_store_new();
    /* 600 kernel launches: every 7th one lost, the last 10 after the last
     * recorded kernel; 60 memcpy launches, every 3rd one lost */
    for (int64_t i = 0; i < 600; i++) {
        int64_t c = id(i), r = add(st, TP_K_RUNTIME, "cudaLaunchKernel", 1000 * i, 100, -1);
        st->correlation[r] = c;
        if (i % 7 != 3 && i < 590)
            st->correlation[add(st, TP_K_KERNEL, "k", 1000 * i + 500, 200, 7)] = c;
        if (i < 60) {
            int64_t m = id(100000 + i), q = add(st, TP_K_RUNTIME, "cudaMemcpyAsync", 1000 * i + 50, 10, -1);
            st->correlation[q] = m;
            if (i % 3)
                st->correlation[add(st, TP_K_MEMCPY, "Memcpy HtoD", 1000 * i + 600, 50, 7)] = m;
        }
    }
    struct tp_findings f = {0};
    char key[96];
    CHECK_INT((snprintf(key, sizeof key, "check.lost_ids.%s.ok", name), key), tp_check_launches(st, &f), TP_OK);
    /* i % 7 == 3 below 590: 84 of 590 */
    CHECK_INT((snprintf(key, sizeof key, "check.lost_ids.%s.kernels", name), key), count(&f, "kernel_missing"), 84);
    CHECK_INT((snprintf(key, sizeof key, "check.lost_ids.%s.copies", name), key), count(&f, "copy_missing"), 20);
    CHECK_INT((snprintf(key, sizeof key, "check.lost_ids.%s.at_end", name), key), count(&f, "launch_at_end"), 10);
    free(f.v);
    tp_store_free(st);
}

static int64_t ids_counter(int64_t i) { return 1 + i; }
static int64_t ids_two_runs(int64_t i) { return i % 2 ? (INT64_C(1) << 40) + i : i; }
static int64_t ids_sparse(int64_t i) { return (i + 1) * (INT64_C(1) << 30) - 5; }
static int64_t ids_negative(int64_t i) { return -1 - i; }

int main(void)
{
    streams_ns();
    streams_whole_us();
    clocks();
    severity();
    lost_ids("counter", ids_counter);
    lost_ids("two_runs", ids_two_runs);
    lost_ids("sparse", ids_sparse);
    lost_ids("negative", ids_negative);
    TEST_EXIT();
}
