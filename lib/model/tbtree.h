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

/* Rows, node and runtime indices are 32 bits: a linked store holds at most
 * TP_STORE_MAX_ROWS (2^31 - 1) events, and tb_build refuses a tree of more
 * nodes or runtimes than that (it never wraps).  A node's launch calls and
 * a call's device rows are a count and an offset into one list of the
 * model each (m->rtl, m->devl; tb_node_rts, tb_rt_dev): no pointer, size and
 * capacity per list.  A node is 96 bytes instead of 144, a runtime 32
 * instead of 56 (0.66M nodes and 0.33M runtimes on a 1 GB trace, written
 * once: fewer fresh pages for the kernel to zero). */
struct tb_rt {
    int64_t start, end;
    int32_t row;              /* -1: the dummy runtime of staled kernels */
    int32_t next;             /* next runtime of the same owner list, -1 none */
    uint32_t dev, ndev;       /* device rows: m->devl[dev .. dev + ndev) */
};

struct tb_node {
    int64_t start, end;       /* a root spans INT64_MIN..INT64_MAX */
    const char *name;
    /* stats */
    int64_t dev, self_dev, self_host, tc_total, tc_self;
    int32_t row;              /* -1 root */
    int32_t first_child, next_sib, last_child;   /* children sorted by (start, -end); -1 none */
    uint32_t tix;             /* thread: m->tids[tix] (tb_node_tid) */
    uint32_t rts, nrts;       /* launch calls: m->rtl[rts .. rts + nrts) */
    uint8_t ev, cl;           /* EV_*, CL_* */
    uint8_t dropped : 1;      /* not in any tree (overlap, or absorbed by remove_dup_nodes) */
    uint8_t tc_elig : 1, tc_allow : 1;
    /* the External id is the row's (tp_store_ext), or none: a module
     * node's, a root's and a stand-in node's (tb_node_ext) */
    uint8_t no_ext : 1;
};

struct tb_model {
    struct tb_node *nodes; size_t nnodes;
    struct tb_rt *rts; size_t nrts;
    uint32_t *rtl; size_t nrtl, caprtl;  /* the nodes' launch calls (indices into rts) */
    uint32_t *devl; size_t ndevl, capdevl;  /* the runtimes' device rows */
    int64_t *roots; size_t nroots;      /* root node per thread, in thread order */
    int64_t *tids; size_t ntids, captids;
    int has_kernel, has_memcpy_or_memset;
    /* kernel traversal (SPEC §3.3): the kernels reachable from the trees, in
     * traversal order, with the name of the node whose runtime launched each,
     * that node's Tensor-Core allowlist eligibility and its thread */
    int64_t *kern; const char **kern_op; int *kern_elig; int64_t *kern_tid; size_t nkern, capkern;   /* kern_tid: the launching node's thread */
    int64_t *ops; size_t nops, capops;  /* operator nodes, post-order */
};

/* A node's launch calls (indices into m->rts), a call's device rows, a
 * node's thread. */
static inline const uint32_t *tb_node_rts(const struct tb_model *m, const struct tb_node *n)
{
    return m->rtl + n->rts;
}
static inline const uint32_t *tb_rt_dev(const struct tb_model *m, const struct tb_rt *r)
{
    return m->devl + r->dev;
}
static inline int64_t tb_node_tid(const struct tb_model *m, const struct tb_node *n)
{
    return m->tids[n->tix];
}
/* A node's External id (TP_NONE: none). */
static inline int64_t tb_node_ext(const tp_store *st, const struct tb_node *n)
{
    return n->no_ext || n->row < 0 ? TP_NONE : tp_store_ext(st, n->row);
}

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
