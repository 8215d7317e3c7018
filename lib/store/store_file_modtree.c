/* store_file_modtree.c — the Module view's tree and numbers in a .tprof
 * store.
 *
 * `modules` builds its hierarchy from every python_function frame (2.3M on
 * a 1 GB OWLv2 trace: half of what the view cost on a store) and its
 * statistics from the op tree, after inflating eight event and side-table
 * columns for them; the table it prints has a few hundred rows.  Both
 * depend on the store alone, so `tprof import` computes them once
 * (tp_modtree_modules) and writes them as sections of their own, and the
 * view on the store reads those (a few kilobytes) and the string table.
 *
 * The sections (native byte order, as the columns):
 *   opt.model.mod.version  uint32: TP_SF_MODTREE_VERSION of the writer
 *   opt.model.mod.nodes    32 bytes a module: uint32 name (a string id),
 *                          uint32 0, int64 module id, first child, next
 *                          sibling (a node index, -1 none)
 *   opt.model.mod.roots    int64 node indices: the top level, in order
 *   opt.model.mod.stats    64 bytes per (name, module id): uint32 name,
 *                          uint32 0, int64 id, occurrences, operators,
 *                          host total, host self, device total, device self
 *   opt.model.mod.orphans  4 int64: the runtime calls attributed to no
 *                          module, their host and device time, the first's
 *                          name (a string id, -1 none)
 * A store of another version, or whose sections do not fit it (a string id
 * past the table, an index out of range, a node reached twice or nested
 * deeper than the table is drawn, a (name, id) twice), is not used: the
 * view computes the tree from the columns, as on a JSON trace. */
#include <stdlib.h>
#include <string.h>
#include "modtree.h"
#include "store_file_int.h"

/* Bump when modtree_py.c or modtree.c change what they compute, or the
 * layout above changes: stores written before have theirs computed again. */
#define TP_SF_MODTREE_VERSION 1
#define MAX_DEPTH 10000   /* deeper is computed (the table's walk recurses) */

struct node_rec { uint32_t name, zero; int64_t id, first, next; };
struct stat_rec { uint32_t name, zero; int64_t id, occ, ops, htot, hself, dtot, dself; };
_Static_assert(sizeof(struct node_rec) == 32 && sizeof(struct stat_rec) == 64, "the file's record sizes");

/* The string id of a name of the store's table; 0 when it is none. */
static int sid_of(const tp_store *st, const char *s, uint32_t *id)
{
    *id = s ? tp_strtab_find(&st->strings, s, strlen(s)) : UINT32_MAX;
    return *id != UINT32_MAX;
}

/* The sections of T: TP_OK, also when a name is not in the string table
 * (nothing written: computed on use), TP_ERR_IO the writer failed. */
static int put_tree(struct tp_sf_writer *w, const tp_store *st, const struct tp_modtree *T)
{
    struct node_rec *n = calloc(T->nn + 1, sizeof *n);
    struct stat_rec *s = calloc(T->ns + 1, sizeof *s);
    int ok = n && s, rc = TP_OK;
    for (size_t i = 0; ok && i < T->nn; i++) {
        ok = sid_of(st, T->n[i].name, &n[i].name);
        n[i].id = T->n[i].id;
        n[i].first = T->n[i].first;
        n[i].next = T->n[i].next;
    }
    for (size_t i = 0; ok && i < T->ns; i++) {
        const struct tp_modstat *M = &T->s[i];
        ok = sid_of(st, M->name, &s[i].name);
        s[i] = (struct stat_rec){s[i].name, 0, M->id, M->occ, M->ops, M->htot, M->hself, M->dtot, M->dself};
    }
    uint32_t oname = 0;
    ok = ok && (!T->orph_n || sid_of(st, T->orph_name, &oname));
    int64_t orph[4] = {T->orph_n, T->orph_host, T->orph_dev, T->orph_n ? (int64_t)oname : -1};
    uint32_t version = TP_SF_MODTREE_VERSION;
    if (ok && (tp_sf_put(w, "opt.model.mod.version", &version, 1, 4) ||
               tp_sf_put(w, "opt.model.mod.nodes", n, T->nn, sizeof *n) ||
               tp_sf_put(w, "opt.model.mod.roots", T->roots, T->nroots, 8) ||
               tp_sf_put(w, "opt.model.mod.stats", s, T->ns, sizeof *s) ||
               tp_sf_put(w, "opt.model.mod.orphans", orph, 4, 8)))
        rc = TP_ERR_IO;   /* the writer's message says what */
    free(n);
    free(s);
    return rc;
}

int tp_sf_write_modtree(struct tp_sf_writer *w, const tp_store *st)
{
    struct tp_modtree T = {0};
    /* (out of memory: the store is whole without them) */
    int rc = tp_modtree_modules(&T, st) < 0 ? TP_OK : put_tree(w, st, &T);
    tp_modtree_free(&T);
    return rc;
}

/* ---- reading ---------------------------------------------------------------- */

/* 1 when the nodes and roots make a forest the table can walk: string ids
 * and indices in range, each node reached once at most (a root never), no
 * deeper than MAX_DEPTH; each node's last child set on the way. */
static int forest_fits(const tp_store *st, struct tp_modtree *T, const struct node_rec *r, size_t nn,
                       const int64_t *roots, size_t nroots)
{
    int64_t nnn = (int64_t)nn;
    unsigned char *in = calloc(nn + 1, 1);   /* pointed to by a first or next */
    int64_t *stack = malloc((nn + 1) * sizeof *stack);
    int32_t *depth = malloc((nn + 1) * sizeof *depth);
    int ok = in && stack && depth;
    for (size_t i = 0; ok && i < nn; i++) {
        ok = r[i].name < st->strings.count && r[i].zero == 0 && r[i].first >= -1 && r[i].first < nnn &&
             r[i].next >= -1 && r[i].next < nnn;
        const int64_t to[2] = {r[i].first, r[i].next};
        for (int k = 0; ok && k < 2; k++)
            if (to[k] >= 0)
                ok = !in[to[k]]++;
    }
    for (size_t i = 0; ok && i < nroots; i++)
        ok = roots[i] >= 0 && roots[i] < nnn && !in[roots[i]]++;   /* (a root twice: reached twice) */
    /* depth first from the roots: a node reached twice would be one with
     * two pointers to it, so the walk ends */
    for (size_t i = 0; ok && i < nroots; i++) {
        size_t sp = 0;
        stack[sp++] = roots[i];
        depth[roots[i]] = 0;
        while (ok && sp) {
            int64_t v = stack[--sp];
            for (int64_t c = r[v].first; ok && c >= 0; c = r[c].next) {
                T->n[v].last = c;
                depth[c] = depth[v] + 1;
                ok = depth[c] <= MAX_DEPTH && sp < nn;
                if (ok)
                    stack[sp++] = c;
            }
        }
    }
    free(in);
    free(stack);
    free(depth);
    return ok;
}

/* The statistics into T: 1, 0 when they do not fit the store, -1 out of
 * memory. */
static int put_stats(const tp_store *st, struct tp_modtree *T, const struct stat_rec *s, size_t ns)
{
    for (size_t i = 0; i < ns; i++) {
        if (s[i].name >= st->strings.count || s[i].zero || s[i].occ < 0 || s[i].ops < 0)
            return 0;
        size_t before = T->ns;
        int64_t k = tp_modtree_stat_add(T, tp_store_str(st, s[i].name), s[i].id);
        if (k < 0)
            return -1;
        if (T->ns == before)
            return 0;   /* the same (name, id) twice */
        struct tp_modstat *M = &T->s[k];
        M->occ = s[i].occ, M->ops = s[i].ops, M->htot = s[i].htot, M->hself = s[i].hself;
        M->dtot = s[i].dtot, M->dself = s[i].dself;
    }
    return 1;
}

/* T (empty) from the sections: 1, 0 they do not fit, -1 out of memory. */
static int get_tree(const tp_store *st, struct tp_modtree *T, const struct node_rec *n, size_t nn,
                    const int64_t *roots, size_t nroots, const struct stat_rec *s, size_t ns, const int64_t *orph)
{
    if (orph[0] < 0 || (orph[0] == 0) != (orph[3] == -1) || orph[3] < -1 || orph[3] >= (int64_t)st->strings.count)
        return 0;
    for (size_t i = 0; i < nn; i++)
        if (tp_modtree_add(T, n[i].name < st->strings.count ? tp_store_str(st, n[i].name) : "", n[i].id) < 0)
            return -1;
    if (!forest_fits(st, T, n, nn, roots, nroots))
        return 0;   /* (or out of memory for its checks: computed then) */
    for (size_t i = 0; i < nn; i++) {
        T->n[i].first = n[i].first;
        T->n[i].next = n[i].next;
    }
    for (size_t i = 0; i < nroots; i++)
        if (tp_modtree_add_root(T, roots[i]) < 0)
            return -1;
    int rc = put_stats(st, T, s, ns);
    if (rc <= 0)
        return rc;
    T->orph_n = orph[0];
    T->orph_host = orph[1];
    T->orph_dev = orph[2];
    T->orph_name = orph[0] ? tp_store_str(st, (uint32_t)orph[3]) : NULL;
    return 1;
}

int tp_store_file_modtree(const tp_store *st, struct tp_modtree *T)
{
    /* (a capture trace changes the op tree the numbers come from) */
    const struct tp_sf_blobs *b = st->attr.cap_inst ? NULL : tp_sf_file_models(st);
    size_t one = 1, four = 4, nn = SIZE_MAX, nroots = SIZE_MAX, ns = SIZE_MAX;
    uint32_t *version = b ? tp_sf_blob_inflate(b, "opt.model.mod.version", 4, &one) : NULL;
    int ok = version && *version == TP_SF_MODTREE_VERSION;
    free(version);
    if (!ok)
        return 0;
    struct node_rec *n = tp_sf_blob_inflate(b, "opt.model.mod.nodes", sizeof *n, &nn);
    int64_t *roots = tp_sf_blob_inflate(b, "opt.model.mod.roots", 8, &nroots);
    struct stat_rec *s = tp_sf_blob_inflate(b, "opt.model.mod.stats", sizeof *s, &ns);
    int64_t *orph = tp_sf_blob_inflate(b, "opt.model.mod.orphans", 8, &four);
    int got = n && roots && s && orph ? get_tree(st, T, n, nn, roots, nroots, s, ns, orph) : 0;
    free(n);
    free(roots);
    free(s);
    free(orph);
    if (got <= 0)
        tp_modtree_free(T);   /* (computed from the columns: from empty) */
    return got;
}
