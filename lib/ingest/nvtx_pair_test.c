/* nvtx_pair_test.c — marker rows paired as they stream by: the k-th start
 * of an id with its k-th end (either may come first), what is left waiting
 * in the order the skip counts need, the map through growth and thousands
 * of removals, the kept ranges back in start-row order. */
#include <stdlib.h>
#include "nvtx_pair.h"
#include "testing.h"

static int add(struct tp_nvtx_pairs *p, int is_end, int64_t id, int64_t ts, int64_t row, struct tp_nvtx_range *r)
{
    struct tp_nvtx_mark m = { .id = id, .ts = ts, .pid = 7, .tid = 8, .row = row, .name = (uint32_t)row,
                              .is_end = (unsigned char)is_end };
    return tp_nvtx_pairs_add(p, &m, r);
}

int main(void)
{
    struct tp_nvtx_pairs p = {0};
    struct tp_nvtx_range r = {0};

    /* two ranges with one id: first start with first end */
    CHECK_INT("nvtx_pair.start_waits", add(&p, 0, 1, 100, 1, &r), 0);
    CHECK_INT("nvtx_pair.start2_waits", add(&p, 0, 1, 110, 2, &r), 0);
    CHECK_INT("nvtx_pair.end_pairs", add(&p, 1, 1, 200, 3, &r), 1);
    CHECK("nvtx_pair.first_with_first", r.row == 1 && r.ts == 100 && r.end == 200 && r.name == 1 && r.pid == 7);
    CHECK_INT("nvtx_pair.end2_pairs", add(&p, 1, 1, 210, 4, &r), 1);
    CHECK("nvtx_pair.second_with_second", r.row == 2 && r.ts == 110 && r.end == 210);

    /* an end row before its start row */
    CHECK_INT("nvtx_pair.end_first_waits", add(&p, 1, 2, 300, 5, &r), 0);
    CHECK_INT("nvtx_pair.start_after_pairs", add(&p, 0, 2, 250, 6, &r), 1);
    CHECK("nvtx_pair.start_row_kept", r.row == 6 && r.ts == 250 && r.end == 300 && r.name == 6);

    /* left waiting: starts by row, then ends by (id, row) */
    add(&p, 0, 9, 1, 20, &r);
    add(&p, 1, 4, 1, 11, &r);
    add(&p, 0, 3, 1, 10, &r);
    add(&p, 1, 0, 1, 12, &r);
    add(&p, 1, 4, 1, 9, &r);
    struct tp_nvtx_mark *left;
    size_t n, ns;
    CHECK_INT("nvtx_pair.left", tp_nvtx_pairs_left(&p, &left, &n, &ns), 0);
    CHECK("nvtx_pair.left_counts", n == 5 && ns == 2);
    CHECK("nvtx_pair.left_starts_by_row", left && left[0].row == 10 && left[1].row == 20);
    CHECK("nvtx_pair.left_ends_by_id_row", left && left[2].id == 0 && left[3].row == 9 && left[4].row == 11);
    free(left);
    tp_nvtx_pairs_free(&p);

    /* 5000 ranges open at once, closed in a scrambled order: the map grows
     * and loses entries out of order, and every end finds its own start */
    int ok = 1, waits = 1;
    for (int i = 0; i < 5000; i++)
        waits &= add(&p, 0, 1000 + i * 13, i, i, &r) == 0;
    for (int k = 0; k < 5000; k++) {
        int i = (k * 761) % 5000;     /* 761 and 5000 are coprime: a permutation */
        int t = add(&p, 1, 1000 + i * 13, 100000 + i, 5000 + k, &r);
        ok &= t == 1 && r.row == i && r.ts == i && r.end == 100000 + i;
        if (t == 1 && (k % 3) == 0)
            ok &= tp_nvtx_pairs_keep(&p, &r) == 0;
    }
    CHECK("nvtx_pair.many_wait", waits);
    CHECK("nvtx_pair.many_pair_right", ok);
    CHECK_INT("nvtx_pair.many_nothing_left", (tp_nvtx_pairs_left(&p, &left, &n, &ns), (long long)n), 0);
    free(left);
    CHECK_INT("nvtx_pair.map_empty", p.n, 0);

    /* kept ranges back in start-row order */
    CHECK_INT("nvtx_pair.sort", tp_nvtx_pairs_sort_kept(&p), 0);
    int sorted = p.nkept == 1667;
    for (size_t i = 1; i < p.nkept; i++)
        sorted &= p.kept[i - 1].row < p.kept[i].row && p.kept[i].end == 100000 + p.kept[i].row;
    CHECK("nvtx_pair.kept_sorted", sorted);
    tp_nvtx_pairs_free(&p);

    /* rows too far apart for the radix sort: sorted all the same */
    struct tp_nvtx_range far[3] = { { .row = INT64_MAX - 1 }, { .row = -5 }, { .row = 0 } };
    for (int i = 0; i < 3; i++)
        tp_nvtx_pairs_keep(&p, &far[i]);
    tp_nvtx_pairs_sort_kept(&p);
    CHECK("nvtx_pair.far_sorted", p.nkept == 3 && p.kept[0].row == -5 && p.kept[1].row == 0 &&
                                      p.kept[2].row == INT64_MAX - 1);
    tp_nvtx_pairs_free(&p);
    TEST_EXIT();
}
