/* tbtree_bwd.h — the plugin's operator trees with backward modules
 * (internal to libtprof; the Diff Run view, diff --timeline, reads it).
 *
 * When a trace has nn.Module nodes and forward-backward flows (cat
 * "fwdbwd"), the TensorBoard plugin (op_tree.py, OpTreeBuilder.build_tree)
 * takes the backward roots ("autograd::engine::evaluate_function: ...")
 * out of the trees and rebuilds them as "<module>.backward" nodes: each
 * module's forward operators lead, by their flows, to the backward roots
 * that hold their gradients, and those roots become the children of the
 * module's backward node, nested as the modules are.  The backward nodes
 * are then inserted by time into the main thread's tree.  The plugin's
 * other views never see this tree; tb_model (tbtree.h) stays as it is, and
 * this is a copy with the backward modules in place.  Without modules or
 * flows it is a plain copy. */
#ifndef TPROF_TBTREE_BWD_H
#define TPROF_TBTREE_BWD_H

#include <stddef.h>
#include <stdint.h>
#include "store.h"
#include "tbtree.h"

enum { CL_BWD = CL_ROOT + 1 };   /* a backward module (beside tbtree.h's classes) */

struct tb_bnode {
    const char *name;
    int cl;                   /* CL_* of tbtree.h, or CL_BWD */
    int is_op;                /* the plugin's is_operator_node */
    int64_t start, end, tid;
    int64_t dev, self_host, self_dev;
    size_t *kids;             /* children, in the plugin's order */
    size_t nkids, capkids;
    char *owned_name;         /* a backward node's "<module>.backward" */
};

struct tb_btree {
    struct tb_bnode *v;
    size_t n, cap;
    size_t *roots;            /* one per thread with children, in the plugin's order */
    size_t nroots;
};

/* Copy the trees of m (the store's) and rebuild the backward modules.
 * 0, or -1 when out of memory (*t is then empty). */
int tb_btree_build(const tp_store *st, const struct tb_model *m, struct tb_btree *t);
void tb_btree_free(struct tb_btree *t);

#endif
