/* tbtree_ids_test.c — ids to slots by block (tbtree_ids.c): ids of one
 * block take its slots in id order, runs far apart take blocks side by
 * side, an id of a block never added has none, and the map holds through
 * its growth and alternating runs (the last-block shortcut). */
#include <stdio.h>
#include <string.h>
#include "tbtree_ids.h"
#include "testing.h"

int main(void)
{
    struct tb_ids x = {0};
    enum { B = 1 << TB_IDS_BITS };
    CHECK("ids.empty_get", tb_ids_get(&x, 5) == -1 && tb_ids_nslots(&x) == 0);
    int64_t a = tb_ids_put(&x, 5), b = tb_ids_put(&x, 6);
    CHECK("ids.same_block_in_order", a >= 0 && b == a + 1 && tb_ids_nslots(&x) == B);
    int64_t far = tb_ids_put(&x, 900000000000);
    CHECK("ids.far_run_next_block", far >= B && far < 2 * B && tb_ids_nslots(&x) == 2 * B);
    CHECK("ids.get_seen", tb_ids_get(&x, 6) == b && tb_ids_get(&x, 900000000000) == far &&
                              tb_ids_get(&x, 900000000001) == far + 1);
    CHECK("ids.get_unseen_block", tb_ids_get(&x, 3 * (int64_t)B + 1) == -1 && tb_ids_nslots(&x) == 2 * B);
    CHECK("ids.negative", tb_ids_put(&x, -1) >= 2 * B && tb_ids_get(&x, -1) != tb_ids_get(&x, 4095));
    /* 300 blocks, alternating between two runs: every slot distinct and
     * stable after the table grew */
    int ok = 1;
    static int64_t slot[600];
    for (int i = 0; i < 600 && ok; i++) {
        int64_t id = (i & 1 ? 5000000000 : 0) + (int64_t)(i / 2) * B + 7;
        slot[i] = tb_ids_put(&x, id);
        ok = slot[i] >= 0;
    }
    for (int i = 0; i < 600 && ok; i++) {
        int64_t id = (i & 1 ? 5000000000 : 0) + (int64_t)(i / 2) * B + 7;
        ok = tb_ids_get(&x, id) == slot[i] && (slot[i] & (B - 1)) == (id & (B - 1));
        for (int j = 0; j < i && ok; j++) ok = slot[j] != slot[i];
    }
    CHECK("ids.grown_alternating", ok && tb_ids_nslots(&x) <= (size_t)603 * B);
    tb_ids_free(&x);
    CHECK("ids.freed", x.key == NULL && tb_ids_nslots(&x) == 0);
    TEST_EXIT();
}
