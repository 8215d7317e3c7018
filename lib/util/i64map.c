/* i64map.c — the int64 hash map (see i64map.h). */
#include <stdlib.h>
#include "i64map.h"

/* splitmix64's finalizer: ids are often sequential, so spread them. */
uint64_t tp_i64_mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static size_t find(const struct tp_i64map *m, int64_t key)
{
    size_t i = tp_i64_mix((uint64_t)key) & (m->cap - 1);
    while (m->keys[i] != TP_I64MAP_EMPTY && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    return i;
}

static int alloc_table(struct tp_i64map *m, size_t cap)
{
    m->keys = malloc(cap * sizeof *m->keys);
    m->vals = malloc(cap * sizeof *m->vals);
    if (!m->keys || !m->vals) {
        free(m->keys);
        free(m->vals);
        m->keys = m->vals = NULL;
        m->cap = 0;
        return -1;
    }
    m->cap = cap;
    for (size_t i = 0; i < cap; i++) {
        m->keys[i] = TP_I64MAP_EMPTY;
        m->vals[i] = -1;
    }
    return 0;
}

int tp_i64map_init(struct tp_i64map *m, size_t expect)
{
    size_t cap = 64;
    while (cap < expect * 2)
        cap *= 2;
    m->n = 0;
    return alloc_table(m, cap);
}

void tp_i64map_free(struct tp_i64map *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = m->vals = NULL;
    m->cap = m->n = 0;
}

static int grow(struct tp_i64map *m)
{
    struct tp_i64map g = {0};
    if (alloc_table(&g, m->cap ? m->cap * 2 : 64) < 0)
        return -1;
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i] != TP_I64MAP_EMPTY) {
            size_t j = find(&g, m->keys[i]);
            g.keys[j] = m->keys[i];
            g.vals[j] = m->vals[i];
        }
    g.n = m->n;
    free(m->keys);
    free(m->vals);
    *m = g;
    return 0;
}

int64_t *tp_i64map_slot(struct tp_i64map *m, int64_t key)
{
    if (m->cap) {
        size_t i = find(m, key);
        if (m->keys[i] == key)
            return &m->vals[i];
    }
    if ((m->n + 1) * 2 > m->cap && grow(m) < 0)
        return NULL;
    size_t i = find(m, key);
    m->keys[i] = key;
    m->n++;
    return &m->vals[i];
}

int64_t tp_i64map_get(const struct tp_i64map *m, int64_t key)
{
    if (!m->cap)
        return -1;
    size_t i = find(m, key);
    return m->keys[i] == key ? m->vals[i] : -1;
}
