/* store_test.c — the store's narrow rows: sequence numbers as records sorted
 * by row, python ids in their own table, the device rows' link arrays (found
 * through a bit and a count per row), a row's step found when asked, the
 * 2^31 - 1 row limit of the linker, and all of it through a .tprof file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "store.h"
#include "testing.h"

static int64_t row(tp_store *st, enum tp_kind kind, const char *name, int64_t ts, int64_t dur, int64_t corr)
{
    int64_t r = tp_store_add(st);
    if (r < 0)
        return r;
    st->kind[r] = (uint8_t)kind;
    st->ph[r] = kind == TP_K_MEMORY ? 'i' : 'X';
    st->ts[r] = ts;
    st->dur[r] = dur;
    st->name[r] = tp_store_intern(st, name, strlen(name));
    st->pid[r] = 1;
    st->tid[r] = kind == TP_K_KERNEL ? 7 : 1;
    st->correlation[r] = corr;
    return r;
}

/* A step, an operator launching a kernel inside it (the kernel runs after
 * the step ends), a kernel nobody launched, an operator after the step. */
static tp_store *build(void)
{
    tp_store *st = tp_store_new();
    if (!st)
        return NULL;
    row(st, TP_K_CPU_OP, "ProfilerStep#1", 0, 1000, TP_NONE);       /* 0 */
    row(st, TP_K_CPU_OP, "aten::mm", 10, 100, TP_NONE);              /* 1 */
    row(st, TP_K_RUNTIME, "cudaLaunchKernel", 20, 10, 5);            /* 2 */
    row(st, TP_K_MEMORY, "[memory]", 30, 0, TP_NONE);                /* 3 */
    row(st, TP_K_KERNEL, "gemm", 2000, 50, 5);                       /* 4 */
    row(st, TP_K_KERNEL, "lost", 3000, 50, 99);                      /* 5 */
    int64_t last = row(st, TP_K_PYTHON_FUNCTION, "nn.Module: Linear_0", 5000, 10, TP_NONE);   /* 6 */
    /* op records: the step's (no "Fwd thread id"), aten::mm's (one: record 1) */
    if (!tp_store_add_op_info(st, 0) || !tp_store_add_op_info(st, 1) || tp_store_set_fwd_thread(st, 1, 2) < 0) {
        tp_store_free(st);
        return NULL;
    }
    struct tp_op_info *o = last == 6 ? tp_store_add_op_info(st, 6) : NULL;
    if (!o || tp_store_set_py(st, o, 11, TP_NONE, 3) < 0 || tp_store_set_seq(st, 1, 7) < 0) {
        tp_store_free(st);
        return NULL;
    }
    return st;
}

static void check_linked(const char *what, const tp_store *st)
{
    char name[96];
#define NAME(s) (snprintf(name, sizeof name, "%s_%s", what, s), name)
    CHECK_INT(NAME("ndev"), st->ndev, 2);
    CHECK_INT(NAME("dev_index_kernel"), tp_store_dev_index(st, 4), 0);
    CHECK_INT(NAME("dev_index_second"), tp_store_dev_index(st, 5), 1);
    CHECK_INT(NAME("dev_index_host"), tp_store_dev_index(st, 1), -1);
    CHECK_INT(NAME("launcher"), tp_store_launcher(st, 4), 2);
    CHECK_INT(NAME("launcher_none"), tp_store_launcher(st, 5), -1);
    CHECK_INT(NAME("launcher_of_host_row"), tp_store_launcher(st, 2), -1);
    CHECK_INT(NAME("launch_op"), tp_store_launch_op(st, 4), 1);
    CHECK_INT(NAME("attr_op"), tp_store_attr_op(st, 4), 1);
    CHECK_INT(NAME("attr_op_none"), tp_store_attr_op(st, 5), -1);
    CHECK_INT(NAME("attr_kind"), tp_store_attr_kind(st, 4), TP_LAUNCH_RUNTIME);
    CHECK_INT(NAME("attr_kind_host_row"), tp_store_attr_kind(st, 2), TP_LAUNCH_NONE);
    CHECK_INT(NAME("attr_cause"), tp_store_attr_cause(st, 4), TP_ATTR_OPERATOR);
    CHECK_INT(NAME("attr_cause_lost"), tp_store_attr_cause(st, 5), TP_ATTR_NO_LAUNCH_RECORD);
    CHECK_INT(NAME("parent"), st->parent[2], 1);
    CHECK_INT(NAME("nsteps"), st->nsteps, 1);
    CHECK_INT(NAME("step_host"), tp_store_row_step(st, 1), 0);
    CHECK_INT(NAME("step_kernel_by_launch"), tp_store_row_step(st, 4), 0);
    CHECK_INT(NAME("step_kernel_unlaunched"), tp_store_row_step(st, 5), -1);
    CHECK_INT(NAME("step_after"), tp_store_row_step(st, 6), -1);
    CHECK_INT(NAME("step_past_end"), tp_store_row_step(st, 99), -1);
    CHECK_INT(NAME("seq"), tp_store_seq(st, 1), 7);
    CHECK_INT(NAME("seq_none"), tp_store_seq(st, 0), TP_NONE);
    CHECK_INT(NAME("ext"), tp_store_ext(st, 2), 4000000000LL);
    CHECK_INT(NAME("ext_none"), tp_store_ext(st, 0), TP_NONE);
    CHECK_INT(NAME("fwd_thread"), tp_store_fwd_thread(st, 1), 2);
    CHECK_INT(NAME("fwd_thread_none"), tp_store_fwd_thread(st, 0), TP_NONE);
    CHECK_INT(NAME("fwd_thread_python"), tp_store_fwd_thread(st, 6), TP_NONE);
    CHECK_INT(NAME("fwd_thread_no_record"), tp_store_fwd_thread(st, 2), TP_NONE);
    CHECK_INT(NAME("fwd_records"), st->nfwds, 1);
    CHECK_INT(NAME("py_id"), tp_store_py(st, &st->ops[st->aux[6]])->python_id, 11);
    CHECK_INT(NAME("py_parent_absent"), tp_store_py(st, &st->ops[st->aux[6]])->python_parent_id, TP_NONE);
    CHECK_INT(NAME("py_module"), tp_store_py(st, &st->ops[st->aux[6]])->module_id, 3);
#undef NAME
}

int main(void)
{
    tp_error err = {0};
    tp_store *st = build();
    CHECK("store_build", st != NULL);
    if (!st)
        TEST_EXIT();

    /* sequence numbers: a row dropped and filled again loses its record */
    CHECK_INT("seq_set", tp_store_seq(st, 1), 7);
    CHECK_INT("seq_set_more", tp_store_set_seq(st, 3, 9), 0);
    CHECK_INT("seq_records", st->nseqs, 2);
    size_t n = st->n;
    st->n = 3;   /* rows 3.. dropped, as an importer drops a bad event */
    tp_store_trim_seqs(st);
    CHECK_INT("seq_trimmed", st->nseqs, 1);
    st->n = n;
    CHECK_INT("seq_refilled_row_has_none", tp_store_seq(st, 3), TP_NONE);
    CHECK_INT("seq_none_value_adds_nothing", tp_store_set_seq(st, 4, TP_NONE) == 0 && st->nseqs == 1, 1);

    /* "Fwd thread id": op records dropped and filled again lose theirs */
    CHECK_INT("fwd_set_more", tp_store_set_fwd_thread(st, 2, 5), 0);
    CHECK_INT("fwd_records", st->nfwds, 2);
    CHECK_INT("fwd_of_row", tp_store_fwd_thread(st, 6), 5);
    size_t nops = st->nops;
    st->nops = 2;   /* op records 2.. dropped, as a repeated "traceEvents" drops them */
    tp_store_trim_fwds(st);
    CHECK_INT("fwd_trimmed", st->nfwds, 1);
    st->nops = nops;
    CHECK_INT("fwd_refilled_has_none", tp_store_fwd_thread(st, 6), TP_NONE);
    CHECK_INT("fwd_reset_drops_later", tp_store_set_fwd_thread(st, 0, TP_NONE) == 0 && st->nfwds == 0, 1);
    CHECK_INT("fwd_set_again", tp_store_set_fwd_thread(st, 1, 2), 0);

    /* "External id": 32 bits while every id fits, 64 from the first that
     * does not (every id kept) */
    CHECK_INT("ext_none", tp_store_ext(st, 0), TP_NONE);
    CHECK_INT("ext_set", tp_store_set_ext(st, 1, 0) == 0 && tp_store_set_ext(st, 2, 4000000000LL) == 0, 1);
    CHECK_INT("ext_zero", tp_store_ext(st, 1), 0);
    CHECK_INT("ext_past_int32", tp_store_ext(st, 2), 4000000000LL);
    CHECK("ext_narrow", st->ext32 && !st->ext64);
    CHECK_INT("ext_negative_widens", tp_store_set_ext(st, 3, -5), 0);
    CHECK("ext_wide", !st->ext32 && st->ext64);
    CHECK_INT("ext_kept_negative", tp_store_ext(st, 3), -5);
    CHECK_INT("ext_kept_zero", tp_store_ext(st, 1), 0);
    CHECK_INT("ext_kept_big", tp_store_ext(st, 2), 4000000000LL);
    CHECK_INT("ext_kept_none", tp_store_ext(st, 0), TP_NONE);
    CHECK_INT("ext_past_32_bits", tp_store_set_ext(st, 4, INT64_C(1) << 41) == 0 && tp_store_ext(st, 4) == INT64_C(1) << 41, 1);
    int64_t r7 = tp_store_add(st);   /* a row added to the 64-bit column */
    CHECK_INT("ext_new_row_none", r7 >= 0 ? tp_store_ext(st, (size_t)r7) : 0, TP_NONE);
    if (r7 >= 0)
        st->n--;

    /* python ids: 32 bits each while every id fits, struct tp_py_info's
     * from the first that does not (every id kept) */
    CHECK("py_narrow", st->pys32 && !st->pys);
    CHECK_INT("py_put", tp_store_put_py(st, 0, (struct tp_py_info){12, 4294967294LL, TP_NONE}), 0);
    CHECK("py_still_narrow", st->pys32 && !st->pys);
    CHECK_INT("py_put_read", tp_store_py(st, &st->ops[st->aux[6]])->python_parent_id, 4294967294LL);
    CHECK_INT("py_put_none", tp_store_py(st, &st->ops[st->aux[6]])->module_id, TP_NONE);
    CHECK_INT("py_put_wide", tp_store_put_py(st, 0, (struct tp_py_info){INT64_C(1) << 40, -1, 3}), 0);
    CHECK("py_wide", !st->pys32 && st->pys);
    CHECK_INT("py_wide_read", tp_store_py(st, &st->ops[st->aux[6]])->python_id, INT64_C(1) << 40);
    CHECK_INT("py_wide_negative", tp_store_py(st, &st->ops[st->aux[6]])->python_parent_id, -1);
    CHECK_INT("py_put_back", tp_store_put_py(st, 0, (struct tp_py_info){11, TP_NONE, 3}), 0);

    /* python ids: an op record without them, or with an index past the table */
    struct tp_op_info plain = {.py = TP_NO_AUX}, bad = {.py = 5};
    CHECK_INT("py_none", tp_store_py(st, &plain)->python_id, TP_NONE);
    CHECK_INT("py_null", tp_store_py(st, NULL)->module_id, TP_NONE);
    CHECK_INT("py_past_table", tp_store_py(st, &bad)->python_id, TP_NONE);
    CHECK_INT("py_all_absent_adds_nothing",
              tp_store_set_py(st, &plain, TP_NONE, TP_NONE, TP_NONE) == 0 && plain.py == TP_NO_AUX && st->npys == 1, 1);

    CHECK_INT("store_unlinked_launcher", tp_store_launcher(st, 4), -1);
    CHECK_INT("store_link", tp_store_link(st, &err), TP_OK);
    check_linked("linked", st);

    /* the same through a .tprof file */
    char path[] = "/tmp/tprof-store-test-XXXXXX";
    int fd = mkstemp(path);
    CHECK("store_tmp", fd >= 0);
    if (fd >= 0) {
        close(fd);
        CHECK_INT("store_save", tp_store_save(st, NULL, path, &err), TP_OK);
        tp_store *back = tp_store_new();
        CHECK_INT("store_load", tp_store_load(back, path, &err), TP_OK);
        CHECK_INT("store_load_link", tp_store_link(back, &err), TP_OK);
        check_linked("tprof", back);
        tp_store_free(back);
        unlink(path);
    }
    tp_store_free(st);

    /* a store whose ids all fit 32 bits is written as 64 and read back */
    tp_store *narrow = tp_store_new();
    char npath[] = "/tmp/tprof-store-test-XXXXXX";
    int nfd = mkstemp(npath);
    if (narrow && nfd >= 0) {
        close(nfd);
        int ok = row(narrow, TP_K_CPU_OP, "a", 0, 10, TP_NONE) == 0 && row(narrow, TP_K_CPU_OP, "b", 20, 10, TP_NONE) == 1 &&
                 tp_store_set_ext(narrow, 0, 4294967294LL) == 0;
        struct tp_op_info *no = ok ? tp_store_add_op_info(narrow, 1) : NULL;
        ok = no && tp_store_set_py(narrow, no, 5, 4, TP_NONE) == 0 && narrow->pys32 && !narrow->pys;
        CHECK("ext_narrow_store", ok && narrow->ext32 && !narrow->ext64);
        CHECK_INT("ext_narrow_link", tp_store_link(narrow, &err), TP_OK);
        CHECK_INT("ext_narrow_save", tp_store_save(narrow, NULL, npath, &err), TP_OK);
        tp_store *back = tp_store_new();
        CHECK_INT("ext_narrow_load", back ? tp_store_load(back, npath, &err) : -1, TP_OK);
        CHECK_INT("ext_narrow_back", back && back->n == 2 ? tp_store_ext(back, 0) : 0, 4294967294LL);
        CHECK_INT("ext_narrow_back_none", back && back->n == 2 ? tp_store_ext(back, 1) : 0, TP_NONE);
        const struct tp_py_info *bp = back && back->n == 2 && back->aux[1] < back->nops ? tp_store_py(back, &back->ops[back->aux[1]]) : NULL;
        CHECK("py_narrow_back", bp && bp->python_id == 5 && bp->python_parent_id == 4 && bp->module_id == TP_NONE);
        tp_store_free(back);
        unlink(npath);
    }
    tp_store_free(narrow);

    /* rows past 2^31 - 1: the linker refuses them by name (n is set by
     * hand: a store that big does not fit a test) */
    tp_store *big = tp_store_new();
    if (big) {
        big->n = (size_t)TP_STORE_MAX_ROWS + 1;
        CHECK_INT("link_row_limit", tp_store_link(big, &err), TP_ERR_FORMAT);
        CHECK("link_row_limit_message", strstr(err.msg, "2147483648 events; tprof links at most 2147483647") != NULL);
        big->n = 0;
        tp_store_free(big);
    }
    TEST_EXIT();
}
