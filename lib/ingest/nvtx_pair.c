/* nvtx_pair.c — nvprof's NVTX range rows paired as they stream by (see
 * nvtx_pair.h).  The waiting rows of an id form a queue (all starts or all
 * ends: a row of the other half would have paired); an open-addressing map
 * with backward-shift deletion finds the queue by id. */
#include <stdlib.h>
#include <string.h>
#include "grow.h"
#include "i64map.h"
#include "nvtx_pair.h"
#include "radix.h"

struct tp_nvtx_slot {
    int64_t id;
    uint32_t head, tail;        /* pool indices; head 0: an empty slot */
};

static size_t home(const struct tp_nvtx_pairs *p, int64_t id)
{
    return tp_i64_mix((uint64_t)id) & (p->cap - 1);
}

static struct tp_nvtx_slot *find(const struct tp_nvtx_pairs *p, int64_t id)
{
    if (!p->cap)
        return NULL;
    for (size_t i = home(p, id);; i = (i + 1) & (p->cap - 1)) {
        if (!p->map[i].head)
            return NULL;
        if (p->map[i].id == id)
            return &p->map[i];
    }
}

static int grow_map(struct tp_nvtx_pairs *p)
{
    size_t cap = p->cap ? p->cap * 2 : 1024;
    struct tp_nvtx_slot *m = calloc(cap, sizeof *m), *old = p->map;
    if (!m)
        return -1;
    size_t oldcap = p->cap;
    p->map = m;
    p->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].head) {
            size_t j = home(p, old[i].id);
            while (m[j].head)
                j = (j + 1) & (cap - 1);
            m[j] = old[i];
        }
    free(old);
    return 0;
}

/* A new queue for id: its slot, or NULL out of memory. */
static struct tp_nvtx_slot *insert(struct tp_nvtx_pairs *p, int64_t id)
{
    if ((p->n + 1) * 2 > p->cap && grow_map(p) < 0)
        return NULL;
    size_t i = home(p, id);
    while (p->map[i].head)
        i = (i + 1) & (p->cap - 1);
    p->n++;
    p->map[i].id = id;
    return &p->map[i];
}

/* Removes a slot, moving the ones after it back so no probe chain breaks. */
static void erase(struct tp_nvtx_pairs *p, struct tp_nvtx_slot *s)
{
    size_t mask = p->cap - 1, i = (size_t)(s - p->map), j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!p->map[j].head)
            break;
        size_t k = home(p, p->map[j].id);
        /* the entry at j may move to i unless its home lies in (i, j] */
        if (i <= j ? (k <= i || k > j) : (k <= i && k > j)) {
            p->map[i] = p->map[j];
            i = j;
        }
    }
    p->map[i].head = 0;
    p->n--;
}

static uint32_t take_slot(struct tp_nvtx_pairs *p)
{
    if (p->free_at) {
        uint32_t w = p->free_at;
        p->free_at = p->pool[w].next;
        return w;
    }
    if (!p->npool)
        p->npool = 1;                 /* index 0 means "none" */
    if (p->npool >= UINT32_MAX || tp_grow((void **)&p->pool, &p->cpool, p->npool + 1, sizeof *p->pool) < 0)
        return 0;
    return (uint32_t)p->npool++;
}

int tp_nvtx_pairs_add(struct tp_nvtx_pairs *p, const struct tp_nvtx_mark *m, struct tp_nvtx_range *out)
{
    struct tp_nvtx_slot *s = find(p, m->id);
    if (s && p->pool[s->head].is_end != m->is_end) {
        uint32_t w = s->head;
        const struct tp_nvtx_mark *start = m->is_end ? &p->pool[w] : m, *end = m->is_end ? m : &p->pool[w];
        *out = (struct tp_nvtx_range){ start->row, start->ts, end->ts, start->pid, start->tid, start->name };
        s->head = p->pool[w].next;
        if (!s->head)
            erase(p, s);
        p->pool[w].live = 0;
        p->pool[w].next = p->free_at;
        p->free_at = w;
        return 1;
    }
    uint32_t w = take_slot(p);
    if (!w)
        return -1;
    if (!s) {
        s = insert(p, m->id);
        if (!s) {
            p->pool[w].live = 0;
            p->pool[w].next = p->free_at;
            p->free_at = w;
            return -1;
        }
        s->head = w;
    } else {
        p->pool[s->tail].next = w;
    }
    s->tail = w;
    p->pool[w] = *m;
    p->pool[w].next = 0;
    p->pool[w].live = 1;
    return 0;
}

int tp_nvtx_pairs_keep(struct tp_nvtx_pairs *p, const struct tp_nvtx_range *r)
{
    if (tp_grow((void **)&p->kept, &p->ckept, p->nkept + 1, sizeof *p->kept) < 0)
        return -1;
    p->kept[p->nkept++] = *r;
    return 0;
}

static int by_row(const void *a, const void *b)
{
    int64_t x = ((const struct tp_nvtx_range *)a)->row, y = ((const struct tp_nvtx_range *)b)->row;
    return (x > y) - (x < y);
}

int tp_nvtx_pairs_sort_kept(struct tp_nvtx_pairs *p)
{
    size_t n = p->nkept;
    int sorted = 1;
    int64_t lo = n ? p->kept[0].row : 0, hi = lo;
    for (size_t i = 1; i < n; i++) {
        sorted &= p->kept[i - 1].row < p->kept[i].row;
        if (p->kept[i].row < lo) lo = p->kept[i].row;
        if (p->kept[i].row > hi) hi = p->kept[i].row;
    }
    if (sorted)
        return 0;
    if ((uint64_t)hi - (uint64_t)lo >= UINT32_MAX || n >= UINT32_MAX) {
        qsort(p->kept, n, sizeof *p->kept, by_row);   /* rows are rowids: no ties */
        return 0;
    }
    /* ranges close mostly in order, a few million of them: a radix sort of
     * (row, position), then the ranges moved along its cycles in place */
    uint64_t *key = malloc(n * sizeof *key), *tmp = malloc(n * sizeof *tmp);
    if (!key || !tmp) {
        free(key);
        free(tmp);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        key[i] = (uint64_t)(p->kept[i].row - lo) << 32 | i;
    tp_radix_sort(key, tmp, n, 32);
    for (size_t i = 0; i < n; i++)
        key[i] &= UINT32_MAX;          /* the position each place takes from */
    for (size_t k = 0; k < n; k++) {
        if (key[k] == k)
            continue;
        struct tp_nvtx_range t = p->kept[k];
        size_t j = k;
        while (key[j] != k) {
            size_t from = (size_t)key[j];
            p->kept[j] = p->kept[from];
            key[j] = j;
            j = from;
        }
        p->kept[j] = t;
        key[j] = j;
    }
    free(key);
    free(tmp);
    return 0;
}

static int left_order(const void *a, const void *b)
{
    const struct tp_nvtx_mark *x = a, *y = b;
    if (x->is_end != y->is_end)
        return x->is_end - y->is_end;
    if (x->is_end && x->id != y->id)
        return (x->id > y->id) - (x->id < y->id);
    return (x->row > y->row) - (x->row < y->row);
}

int tp_nvtx_pairs_left(const struct tp_nvtx_pairs *p, struct tp_nvtx_mark **out, size_t *n, size_t *nstarts)
{
    size_t k = 0, s = 0;
    *out = NULL;
    *n = *nstarts = 0;
    for (size_t i = 1; i < p->npool; i++)
        k += p->pool[i].live;
    if (!k)
        return 0;
    struct tp_nvtx_mark *v = malloc(k * sizeof *v);
    if (!v)
        return -1;
    k = 0;
    for (size_t i = 1; i < p->npool; i++)
        if (p->pool[i].live) {
            v[k++] = p->pool[i];
            s += !p->pool[i].is_end;
        }
    qsort(v, k, sizeof *v, left_order);
    *out = v;
    *n = k;
    *nstarts = s;
    return 0;
}

void tp_nvtx_pairs_free(struct tp_nvtx_pairs *p)
{
    free(p->map);
    free(p->pool);
    free(p->kept);
    memset(p, 0, sizeof *p);
}
