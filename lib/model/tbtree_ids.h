/* tbtree_ids.h — correlation and External ids to small slots, for the
 * operator tree's tables indexed by id (internal to libtprof).
 *
 * Kineto numbers its ids from 1 up, so a trace's ids lie close together;
 * a trace merged or grown from parts keeps each part's ids in a run of its
 * own, far from the others.  An id maps through its block (id >> 12), by
 * a small hash of the blocks seen, to slot = the block's place * 4096 +
 * the id's place in its block: runs far apart take slots side by side. */
#ifndef TPROF_TBTREE_IDS_H
#define TPROF_TBTREE_IDS_H

#include <stddef.h>
#include <stdint.h>

#define TB_IDS_BITS 12

struct tb_ids {
    int64_t *key;         /* block ids, open addressing (INT64_MIN: empty; no block is) */
    uint32_t *at;         /* each block's place */
    size_t cap, n;        /* n blocks */
    int64_t last;         /* the last block asked for, and its place (ids come in runs) */
    uint32_t last_at;
};

/* id's slot, its block added when new: the slot, -1 out of memory, -2
 * when 2^31 slots would not hold it. */
int64_t tb_ids_put(struct tb_ids *x, int64_t id);
/* id's slot, -1 when its block was never added. */
int64_t tb_ids_get(struct tb_ids *x, int64_t id);
/* Slots so far (blocks * 4096). */
static inline size_t tb_ids_nslots(const struct tb_ids *x)
{
    return x->n << TB_IDS_BITS;
}
void tb_ids_free(struct tb_ids *x);

#endif
