/* tbtree.h — the TensorBoard plugin's operator tree (internal to libtprof).
 *
 * model/tbtree.c builds it (SPEC §2.2, §3.1, §6.1): host nodes per thread by the
 * plugin's rules (runtime calls attach by External id, non-NCCL user
 * annotations are not nodes, partially overlapping nodes are dropped,
 * remove_dup_nodes), with the plugin's self/total host and device times.
 * Departures, from the attribution model (st->attr, attribution.c): driver
 * calls are launches like runtime calls; a launch call no node holds goes to
 * the operator around it, a graph launch no operator encloses to a stand-in
 * node of its own, and replays matched to a capture trace to stand-in nodes
 * of the captured operators.  The
 * operator, memory and module views read the same tree, so an operator means
 * the same thing in each of them. */
#ifndef TPROF_TBTREE_H
#define TPROF_TBTREE_H

#include <stddef.h>
#include <stdint.h>
#include "store.h"

/* What event a node came from, and what class of node the plugin makes of it. */
enum { EV_NONE, EV_OPERATOR, EV_USER_ANNOT, EV_PYTHON, EV_STEP, EV_MODULE, EV_PLMODULE, EV_ROOT };
/* CL_PLMOD: PyTorch Lightning's "[pl][module]TYPE: NAME" record_function
 * (the plugin's PLModuleNode); its name is NAME. */
enum { CL_OP, CL_DL, CL_OPT, CL_STEP, CL_MOD, CL_PLMOD, CL_ROOT };

struct tb_rt {
    int64_t row;              /* -1: the dummy runtime of staled kernels */
    int64_t start, end;
    int64_t *dev; size_t ndev, capdev;
    int64_t next;             /* next runtime of the same owner list */
};

struct tb_node {
    int64_t row;              /* -1 root */
    int64_t start, end, ext;  /* a root spans INT64_MIN..INT64_MAX */
    const char *name;
    int64_t tid;
    int64_t first_child, next_sib, last_child;   /* children sorted by (start, -end) */
    int64_t *rts; size_t nrts, caprts;
    /* stats */
    int64_t dev, self_dev, self_host, tc_total, tc_self;
    /* the small ones together, in bytes: 144 bytes a node instead of 160
     * (0.66M nodes on a 1 GB trace) */
    uint8_t ev, cl;           /* EV_*, CL_* */
    uint8_t dropped;          /* not in any tree (overlap, or absorbed by remove_dup_nodes) */
    uint8_t tc_elig, tc_allow;
};

struct tb_model {
    struct tb_node *nodes; size_t nnodes;
    struct tb_rt *rts; size_t nrts;
    int64_t *roots; size_t nroots;      /* root node per thread, in thread order */
    int64_t *tids; size_t ntids, captids;
    int has_kernel, has_memcpy_or_memset;
    /* kernel traversal (SPEC §3.3): the kernels reachable from the trees, in
     * traversal order, with the name of the node whose runtime launched each,
     * that node's Tensor-Core allowlist eligibility and its thread */
    int64_t *kern; const char **kern_op; int *kern_elig; int64_t *kern_tid; size_t nkern, capkern;   /* kern_tid: the launching node's thread */
    int64_t *ops; size_t nops, capops;  /* operator nodes, post-order */
    int64_t *pool;            /* read from a .tprof: every node's rts and runtime's dev
                                 lie in this one block (NULL: each is its own) */
    /* built here (pool NULL): the runtimes' device rows (devpool) and the
     * nodes' launch calls by External id (rtpool), each counted, then
     * filled into one block instead of 0.5M small mallocs; a list outside
     * both (stand-in nodes, roots, the stale kernels) is its own. */
    int64_t *devpool, *rtpool;
    size_t ndevpool, nrtpool;
    size_t nown;              /* lists of their own, for tb_free to stop at */
};

/* What a .tprof store keeps of the tree (store_file_model.c) is what this
 * tprof's tbtree.c computes: bump this whenever tbtree.c (or what it reads)
 * changes a result, and stores written before are rebuilt, not trusted. */
#define TP_TB_MODEL_VERSION 1

/* Free a tree (the model slot's free function; a tree read from a store
 * is freed by it too). */
void tp_tb_model_delete(void *p);

/* The plugin's trees of a linked store, built on first use and kept with
 * the store (tp_store_model); NULL on out of memory.  Read-only. */
const struct tb_model *tp_store_tb(const tp_store *st);
/* The plugin's is_operator_node: rows of the operator and memory tables. */
int  tp_tb_is_op(const struct tb_node *n);
/* The plugin's TC_Allowlist: 1 when a kernel of this name uses Tensor Cores. */
int tp_tb_kernel_tc(const char *name);
/* The kernels the trees reach, with their launching operator's name and
 * Tensor Core eligibility (kernels --group props): copies the caller frees;
 * 0, or -1 when out of memory. */
int tp_tb_kernel_ops(const tp_store *st, int64_t **rows, const char ***ops, int **elig, size_t *n);
/* Lightning's record_function names: "[pl][module]TYPE: NAME" is a module
 * call (NAME, the dotted name of named_modules(), after it; NULL when s is
 * not one), "[pl][profile]HOOK" a hook (1, else 0). */
const char *tp_tb_pl_module_name(const char *s);
int tp_tb_is_pl_profile(const char *s);

#endif
