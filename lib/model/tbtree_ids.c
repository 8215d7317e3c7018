/* tbtree_ids.c — ids to slots by block (see tbtree_ids.h). */
#include <stdlib.h>
#include "tbtree_ids.h"

#define EMPTY INT64_MIN   /* id >> 12 is never INT64_MIN */

static size_t hash(int64_t k, size_t cap)
{
    return (size_t)(((uint64_t)k * UINT64_C(0x9E3779B97F4A7C15)) >> 17) & (cap - 1);
}

static int grow(struct tb_ids *x)
{
    size_t cap = x->cap ? 2 * x->cap : 64;
    int64_t *key = malloc(cap * sizeof *key);
    uint32_t *at = malloc(cap * sizeof *at);
    if (!key || !at) {
        free(key);
        free(at);
        return -1;
    }
    for (size_t i = 0; i < cap; i++) key[i] = EMPTY;
    for (size_t i = 0; i < x->cap; i++) {
        if (x->key[i] == EMPTY) continue;
        size_t h = hash(x->key[i], cap);
        while (key[h] != EMPTY) h = (h + 1) & (cap - 1);
        key[h] = x->key[i];
        at[h] = x->at[i];
    }
    free(x->key);
    free(x->at);
    x->key = key;
    x->at = at;
    x->cap = cap;
    return 0;
}

static int64_t slot(uint32_t at, int64_t id)
{
    return ((int64_t)at << TB_IDS_BITS) | (int64_t)((uint64_t)id & ((1u << TB_IDS_BITS) - 1));
}

static int64_t find(struct tb_ids *x, int64_t id, int add)
{
    int64_t blk = id >> TB_IDS_BITS;   /* (an arithmetic shift in gcc and clang) */
    if (x->n && blk == x->last) return slot(x->last_at, id);
    if (add && 2 * (x->n + 1) > x->cap && grow(x) < 0) return -1;
    if (!x->cap) return -1;
    size_t h = hash(blk, x->cap);
    while (x->key[h] != EMPTY && x->key[h] != blk) h = (h + 1) & (x->cap - 1);
    if (x->key[h] == EMPTY) {
        if (!add) return -1;
        if (x->n >= ((uint32_t)INT32_MAX >> TB_IDS_BITS)) return -2;
        x->key[h] = blk;
        x->at[h] = (uint32_t)x->n++;
    }
    x->last = blk;
    x->last_at = x->at[h];
    return slot(x->at[h], id);
}

int64_t tb_ids_put(struct tb_ids *x, int64_t id)
{
    return find(x, id, 1);
}

int64_t tb_ids_get(struct tb_ids *x, int64_t id)
{
    return find(x, id, 0);
}

void tb_ids_free(struct tb_ids *x)
{
    free(x->key);
    free(x->at);
    x->key = NULL;
    x->at = NULL;
    x->cap = x->n = 0;
}
