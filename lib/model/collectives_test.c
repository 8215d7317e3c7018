/* collectives_test.c — op names, NCCL's bus bandwidth factors, dtype sizes,
 * and the records and matching of the three-rank fixture
 * (testdata/collectives/meta: rank 2's kernels carry no metadata, its
 * record_param_comms operators do). */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include "collectives.h"
#include "testing.h"

static const char *op(const char *name)
{
    return tp_coll_op_name(tp_coll_op_of(name));
}

static tp_store *load(const char *path)
{
    tp_store *st = tp_store_new();
    tp_error err = {0};
    if (!st || tp_store_load(st, path, &err) != TP_OK || tp_store_link(st, &err) != TP_OK) {
        printf("  %s: %s\n", path, err.msg);
        tp_store_free(st);
        return NULL;
    }
    return st;
}

int main(void)
{
    CHECK_STR("op_allreduce", op("allreduce"), "all_reduce");
    CHECK_STR("op_allgather_base", op("_allgather_base"), "all_gather");
    CHECK_STR("op_allgather_coalesced", op("allgather_into_tensor_coalesced"), "all_gather");
    CHECK_STR("op_reduce_scatter_tensor", op("reduce_scatter_tensor"), "reduce_scatter");
    CHECK_STR("op_reduce", op("reduce"), "reduce");
    CHECK_STR("op_c10d_alltoall", op("c10d::alltoall_base_"), "all_to_all");
    CHECK_STR("op_nccl_all_to_all", op("nccl:all_to_all"), "all_to_all");
    CHECK_STR("op_kernel_allreduce", op("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"),
              "all_reduce");
    CHECK_STR("op_devkernel_rs", op("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL"), "reduce_scatter");
    CHECK_STR("op_sendrecv", op("ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t"), "send_recv");
    CHECK_STR("op_send", op("send"), "send");
    CHECK_STR("op_generic", op("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"), "other");
    CHECK_STR("op_null", op(NULL), "other");

    CHECK("busbw_allreduce_8", fabs(tp_coll_busbw_factor(TP_COLL_ALL_REDUCE, 8) - 1.75) < 1e-12);
    CHECK("busbw_allgather_8", fabs(tp_coll_busbw_factor(TP_COLL_ALL_GATHER, 8) - 0.875) < 1e-12);
    CHECK("busbw_rs_2", fabs(tp_coll_busbw_factor(TP_COLL_REDUCE_SCATTER, 2) - 0.5) < 1e-12);
    CHECK("busbw_a2a_4", fabs(tp_coll_busbw_factor(TP_COLL_ALL_TO_ALL, 4) - 0.75) < 1e-12);
    CHECK("busbw_bcast", tp_coll_busbw_factor(TP_COLL_BROADCAST, 16) == 1.0);
    CHECK("busbw_barrier", tp_coll_busbw_factor(TP_COLL_BARRIER, 16) == 0);
    CHECK("busbw_n0", tp_coll_busbw_factor(TP_COLL_ALL_REDUCE, 0) == 0);

    CHECK_INT("dtype_float", tp_coll_dtype_size("Float"), 4);
    CHECK_INT("dtype_bf16", tp_coll_dtype_size("BFloat16"), 2);
    CHECK_INT("dtype_long_int", tp_coll_dtype_size("long int"), 8);
    CHECK_INT("dtype_fp8", tp_coll_dtype_size("Float8_e4m3fn"), 1);
    CHECK_INT("dtype_unknown", tp_coll_dtype_size("TensorList"), 0);

    /* records made by hand: a send meets its recv; an all_reduce meets a send */
    struct tp_coll_rec a0[2] = {{.start = 0, .end = 10, .seq = 1, .op = TP_COLL_SEND, .group_id = 5},
                                {.start = 20, .end = 30, .seq = 2, .op = TP_COLL_ALL_REDUCE, .group_id = 5}};
    struct tp_coll_rec a1[2] = {{.start = 4, .end = 10, .seq = 1, .op = TP_COLL_RECV, .group_id = 5},
                                {.start = 25, .end = 30, .seq = 2, .op = TP_COLL_SEND, .group_id = 5}};
    struct tp_coll_list hand[2] = {{0, TP_NONE, a0, 2}, {1, TP_NONE, a1, 2}};
    struct tp_coll_match hm;
    CHECK("hand_match", tp_coll_match(hand, 2, &hm) == 0 && hm.ninst == 2);
    if (hm.ninst == 2) {
        CHECK_STR("p2p_pair_is_send_recv", tp_coll_op_name(hm.inst[0].op), "send_recv");
        CHECK_INT("p2p_pair_not_mixed", hm.inst[0].mixed, 0);
        CHECK_INT("p2p_pair_wait", hm.inst[0].wait, 4);
        CHECK_INT("p2p_pair_transfer", hm.inst[0].transfer, 6);
        CHECK_INT("allreduce_vs_send_mixed", hm.inst[1].mixed, 1);
        CHECK_INT("no_group_size_is_ranks", hm.inst[1].group_size, 2);
    }
    tp_coll_match_free(&hm);

    /* record_param_comms that does not enclose the launch (cut at a step's
     * edge) is still found by the External id it shares with the kernel */
    {
        static const char trace[] =
            "{\"traceEvents\": ["
            "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 100, \"dur\": 100},"
            "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 1, \"tid\": 1, \"ts\": 95, "
            "\"dur\": 10, \"args\": {\"External id\": 7, \"Collective name\": \"allreduce\", \"Seq\": 42, "
            "\"dtype\": \"Float\", \"In msg nelems\": 10, \"Out msg nelems\": 10}},"
            "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, \"ts\": 101, "
            "\"dur\": 2, \"args\": {\"correlation\": 3, \"External id\": 7}},"
            "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_Generic\", \"pid\": 0, \"tid\": 7, \"ts\": 110, "
            "\"dur\": 5, \"args\": {\"correlation\": 3, \"External id\": 7}}]}";
        char tmpl[] = "/tmp/tprof-coll-ext-XXXXXX";
        int fd = mkstemp(tmpl);
        int wrote = fd >= 0 && write(fd, trace, sizeof trace - 1) == (ssize_t)(sizeof trace - 1);
        tp_store *one = wrote ? load(tmpl) : NULL;
        struct tp_coll_list el = {0};
        CHECK("ext_fallback_loads", one && tp_coll_extract(one, &el) == 0 && el.n == 1);
        if (el.n == 1) {
            CHECK_INT("ext_fallback_seq", el.v[0].seq, 42);
            CHECK_INT("ext_fallback_op", el.v[0].op, TP_COLL_ALL_REDUCE);
            CHECK_INT("ext_fallback_bytes", el.v[0].bytes, 40);
            CHECK_INT("ext_fallback_step", el.v[0].step, 1);
        }
        tp_coll_list_free(&el);
        tp_store_free(one);
        if (fd >= 0) {
            close(fd);
            unlink(tmpl);
        }
    }

    tp_store *st[3] = {0};
    struct tp_coll_list l[3] = {{0}};
    int loaded = 1;
    for (int r = 0; r < 3; r++) {
        char path[64];
        snprintf(path, sizeof path, "testdata/collectives/meta/rank%d.pt.trace.json", r);
        st[r] = load(path);
        loaded &= st[r] && tp_coll_extract(st[r], &l[r]) == 0;
    }
    CHECK("fixture_loads", loaded);
    if (loaded) {
        CHECK_INT("rank0_records", l[0].n, 4);
        CHECK_INT("rank2_records", l[2].n, 4);
        CHECK_INT("rank1_records", l[1].n, 3);
        /* rank 2: everything from record_param_comms */
        const struct tp_coll_rec *a = &l[2].v[1];
        CHECK_INT("rank2_gather_seq", a->seq, 2);
        CHECK_INT("rank2_gather_op", a->op, TP_COLL_ALL_GATHER);
        CHECK_INT("rank2_gather_bytes", a->bytes, 750 * 2);
        CHECK_INT("rank2_gather_n", a->group_size, 3);
        CHECK_STR("rank2_gather_group", a->group, "0");
        CHECK_INT("rank2_gather_step", a->step, 1);
        const struct tp_coll_rec *rs = &l[0].v[3];
        CHECK_STR("rank0_rs_group", rs->group, "1");
        CHECK_INT("rank0_rs_n", rs->group_size, 2);
        CHECK_INT("rank0_rs_bytes", rs->bytes, 2000 * 4);
        CHECK("groups_differ", rs->group_id != a->group_id && rs->group_id != 0);
        struct tp_coll_match m;
        CHECK("match", tp_coll_match(l, 3, &m) == 0);
        CHECK_INT("instances", m.ninst, 4);
        CHECK_INT("parts", m.nparts, 11);
        const struct tp_coll_inst *in = &m.inst[0];   /* the first all_reduce */
        CHECK_INT("first_nranks", in->nranks, 3);
        CHECK_INT("first_skew", in->last_start - in->first_start, 60000);
        CHECK_INT("first_wait", in->wait, 90000);
        CHECK_INT("first_transfer", in->transfer, 40000);
        CHECK_INT("first_last", l[in->last].rank, 2);
        CHECK_INT("rs_nranks", m.inst[3].nranks, 2);
        CHECK_INT("rs_last", l[m.inst[3].last].rank, 2);
        CHECK("no_mixed", !m.inst[0].mixed && !m.inst[1].mixed && !m.inst[2].mixed && !m.inst[3].mixed);
        tp_coll_match_free(&m);
        /* both views: built from the stores (build_run) and from the ranks'
         * summaries (build_summaries, the CLI's bounded-memory path), one table */
        const char *names[] = {"collectives", "stragglers"};
        for (int vi = 0; vi < 2; vi++) {
            const tp_view *v = tp_view_find(names[vi]);
            const tp_store *cst[3] = {st[0], st[1], st[2]};
            void *sums[3];
            int64_t ranks[3] = {0, 1, 2};
            tp_error e1 = {0}, e2 = {0};
            tp_table *t1 = NULL, *t2 = NULL;
            for (int r = 0; r < 3; r++)
                sums[r] = v->rank_summary(st[r], NULL, &e2);
            int built = v->build_run(cst, 3, NULL, &t1, &e1) == TP_OK &&
                        v->build_summaries(sums, ranks, 3, NULL, &t2, &e2) == TP_OK;
            int same = built && tp_table_rows(t1) == tp_table_rows(t2) && tp_table_rows(t1) == 3 &&
                       tp_table_cols(t1) == tp_table_cols(t2);
            for (size_t row = 0; same && row < tp_table_rows(t1); row++)
                for (size_t c = 0; c < tp_table_cols(t1); c++)
                    same &= tp_table_cell_kind(t1, row, c) == tp_table_cell_kind(t2, row, c) &&
                            tp_table_cell_float(t1, row, c) == tp_table_cell_float(t2, row, c);
            char label[64];
            snprintf(label, sizeof label, "%s_run_equals_summaries", names[vi]);
            CHECK(label, same);
            for (int r = 0; r < 3; r++)
                v->summary_free(sums[r]);
            tp_table_free(t1);
            tp_table_free(t2);
        }
        /* the records survive a .tprof round trip (opt.coll sections) */
        char tmpl[] = "/tmp/tprof-coll-XXXXXX";
        int fd = mkstemp(tmpl);
        tp_error err = {0};
        int saved = fd >= 0 && tp_store_save(st[2], NULL, tmpl, &err) == TP_OK;
        tp_store *back = saved ? load(tmpl) : NULL;
        struct tp_coll_list lb = {0};
        CHECK("tprof_round_trip", back && tp_coll_extract(back, &lb) == 0 && lb.n == l[2].n &&
                                      memcmp(lb.v, l[2].v, lb.n * sizeof *lb.v) == 0);
        tp_coll_list_free(&lb);
        tp_store_free(back);
        if (fd >= 0) {
            close(fd);
            unlink(tmpl);
        }
    }
    for (int r = 0; r < 3; r++) {
        tp_coll_list_free(&l[r]);
        tp_store_free(st[r]);
    }
    TEST_EXIT();
}
