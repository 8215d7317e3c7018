/* modtree_pl.c — the Lightning view's hierarchy (SPEC §10.2, the plugin's
 * _build_module_hierarchy_from_name): PyTorch Lightning's profiler wraps
 * every named submodule's forward in a record_function
 * "[pl][module]TYPE: NAME", NAME its dotted path from named_modules()
 * ("layer1.0.conv1").  A module per NAME, in order of first appearance (by
 * start time); its parent is the module named as NAME up to its last '.',
 * where there is one; the others are the top level, sorted by name.  The
 * plugin reads these events as cpu_op only; tprof as user_annotation too
 * (how PyTorch >= 1.10 writes a record_function), as the op trees do
 * (tbtree.c). */
#include <stdlib.h>
#include <string.h>
#include "modtree.h"
#include "tbtree_order.h"

static uint64_t hash_str(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;   /* FNV-1a */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

/* The module named s[0..n): its node, -1 absent (add 0), -2 out of memory. */
static int64_t by_name(struct tp_modtree *T, struct tp_i64map *idx, const char *s, size_t n, int add)
{
    int64_t key = (int64_t)(tp_i64_mix(hash_str(s, n)) >> 1) | 1;
    for (;;) {
        int64_t v = tp_i64map_get(idx, key);
        if (v < 0) {
            if (!add)
                return -1;
            int64_t *sl = tp_i64map_slot(idx, key);
            if (!sl || (*sl = tp_modtree_add(T, s, 0)) < 0)
                return -2;
            return *sl;
        }
        if (strlen(T->n[v].name) == n && memcmp(T->n[v].name, s, n) == 0)
            return v;
        key = (int64_t)((tp_i64_mix((uint64_t)key) >> 1) | 1);   /* probe on */
    }
}

static int cmp_ts(const void *a, const void *b, void *ctx)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    const tp_store *st = ctx;
    if (st->ts[x] != st->ts[y]) return st->ts[x] < st->ts[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The X rows of CPU ops and user annotations that are Lightning's module
 * calls (hooks: its [pl][profile] hook calls instead), in (ts, row) order,
 * into rows (room for st->n rows): their count. */
static size_t pl_rows(const tp_store *st, int hooks, int64_t *rows)
{
    size_t n = 0;
    for (size_t i = 0; i < st->n; i++) {
        if (st->ph[i] != 'X' || (st->kind[i] != TP_K_CPU_OP && st->kind[i] != TP_K_USER_ANNOTATION))
            continue;
        const char *name = tp_store_str(st, st->name[i]);
        if (hooks ? tp_tb_is_pl_profile(name) : tp_tb_pl_module_name(name) != NULL)
            rows[n++] = (int64_t)i;
    }
    if (n)
        qsort_r(rows, n, sizeof *rows, cmp_ts, (void *)st);
    return n;
}

static _Thread_local const struct tp_modtree *g_T;
static int cmp_roots(const void *a, const void *b)   /* Python's sorted(): stable */
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    int c = strcmp(g_T->n[x].name, g_T->n[y].name);
    return c ? c : (x < y ? -1 : x > y);
}

int tp_modtree_from_lightning(struct tp_modtree *T, const tp_store *st)
{
    int64_t *rows = NULL;
    size_t n = 0;
    unsigned char *child = NULL;
    struct tp_i64map idx = {0};
    int rc = -1;
    rows = malloc((st->n ? st->n : 1) * sizeof *rows);
    if (!rows) goto out;
    n = pl_rows(st, 0, rows);
    for (size_t k = 0; k < n; k++) {
        const char *name = tp_tb_pl_module_name(tp_store_str(st, st->name[rows[k]]));
        if (by_name(T, &idx, name, strlen(name), 1) == -2) goto out;
    }
    child = calloc(T->nn + 1, 1);
    if (!child) goto out;
    for (size_t i = 0; i < T->nn; i++) {
        const char *name = T->n[i].name, *dot = strrchr(name, '.');
        int64_t p = dot ? by_name(T, &idx, name, (size_t)(dot - name), 0) : -1;
        if (p >= 0) {
            tp_modtree_link(T, p, (int64_t)i);
            child[i] = 1;
        }
    }
    for (size_t i = 0; i < T->nn; i++)
        if (!child[i] && tp_modtree_add_root(T, (int64_t)i) < 0) goto out;
    g_T = T;
    if (T->nroots)
        qsort(T->roots, T->nroots, sizeof *T->roots, cmp_roots);
    rc = 0;
out:
    free(rows);
    free(child);
    tp_i64map_free(&idx);
    return rc;
}

/* ---- the hooks ---- */

/* One thread's calls (rows[0..n), sorted by tp_sort_rows_nested): nested with a stack
 * as the op trees nest (tbtree.c's build_thread_tree). */
static int nest(struct tp_modtree *T, const tp_store *st, const int64_t *rows, size_t n, int64_t *stack,
                int64_t *dropped)
{
    static const char pre[] = "[pl][profile]";
    size_t sp = 0;
    for (size_t k = 0; k < n; k++) {
        int64_t r = rows[k], end = st->ts[r] + st->dur[r];
        while (sp && st->ts[r] >= st->ts[T->n[stack[sp - 1]].id] + st->dur[T->n[stack[sp - 1]].id])
            sp--;
        if (sp && end > st->ts[T->n[stack[sp - 1]].id] + st->dur[T->n[stack[sp - 1]].id]) {
            (*dropped)++;   /* partly inside its caller: the plugin leaves it out too */
            continue;
        }
        int64_t ni = tp_modtree_add(T, tp_store_str(st, st->name[r]) + sizeof pre - 1, r);
        if (ni < 0)
            return -1;
        if (sp)
            tp_modtree_link(T, stack[sp - 1], ni);
        else if (tp_modtree_add_root(T, ni) < 0)
            return -1;
        stack[sp++] = ni;
    }
    return 0;
}

int tp_modtree_from_hooks(struct tp_modtree *T, const tp_store *st, int64_t *dropped)
{
    size_t n = 0, nt = 0;
    int64_t *rows = malloc((st->n ? st->n : 1) * sizeof *rows), *by = NULL, *stack = NULL, *tix = NULL;
    size_t *start = NULL;
    struct tp_i64map tids = {0};
    int rc = -1;
    *dropped = 0;
    if (!rows) goto out;
    n = pl_rows(st, 1, rows);
    by = malloc((n ? n : 1) * sizeof *by);
    stack = malloc((n ? n : 1) * sizeof *stack);
    tix = malloc((n ? n : 1) * sizeof *tix);
    start = calloc(n + 2, sizeof *start);
    if (!by || !stack || !tix || !start) goto out;
    for (size_t k = 0; k < n; k++) {   /* threads in order of their first call */
        int64_t *t = tp_i64map_slot(&tids, st->tid[rows[k]] == TP_I64MAP_EMPTY ? INT64_MIN + 3 : st->tid[rows[k]]);
        if (!t) goto out;
        if (*t < 0)
            *t = (int64_t)nt++;
        tix[k] = *t;
        start[*t + 1]++;
    }
    for (size_t t = 0; t < nt; t++)   /* the calls grouped by thread, in order of time */
        start[t + 1] += start[t];
    for (size_t k = 0; k < n; k++)
        by[start[tix[k]]++] = rows[k];
    for (size_t t = 0, lo = 0; t < nt; t++) {
        size_t hi = start[t];
        tp_sort_rows_nested(st, by + lo, hi - lo);
        if (nest(T, st, by + lo, hi - lo, stack, dropped) < 0) goto out;
        lo = hi;
    }
    rc = 0;
out:
    free(rows); free(by); free(stack); free(tix); free(start);
    tp_i64map_free(&tids);
    return rc;
}
