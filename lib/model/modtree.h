/* modtree.h — the module tree of the TensorBoard plugin's Module and
 * Lightning views (internal to libtprof; SPEC §10.1, §10.2).
 *
 * Both views show one table: a hierarchy of modules, and per (name, module
 * id) statistics summed over the module nodes of the plugin's op trees
 * (tbtree.h).  They differ in where the hierarchy comes from (the
 * python_function call graph for nn.Module calls, modtree_py.c; the dotted
 * names of Lightning's "[pl][module]" record_functions, modtree_pl.c) and in
 * which class of tree node they count (CL_MOD, CL_PLMOD).  The rest — the
 * statistics, the table, and `--tree`, its drawing with box characters and
 * time bars — is here, shared. */
#ifndef TPROF_MODTREE_H
#define TPROF_MODTREE_H

#include <stddef.h>
#include <stdint.h>
#include "store.h"
#include "i64map.h"
#include "table.h"
#include "tbtree.h"

struct tp_view_opts;

/* One module of the hierarchy: children in the plugin's order. */
struct tp_modnode {
    const char *name;        /* as in the events ("nn.Module: Linear_0", "layer1.0") */
    int64_t id;              /* Python module id (0 for Lightning) */
    int64_t first, next, last;
};

/* Statistics of one (name, module id), over its module nodes. */
struct tp_modstat {
    const char *name;
    int64_t id, occ, ops, htot, hself, dtot, dself;
};

struct tp_modtree {
    struct tp_modnode *n; size_t nn, capn;
    int64_t *roots; size_t nroots, caproots;     /* top level, in the order shown */
    struct tp_modstat *s; size_t ns, caps;
    struct tp_i64map sidx;                        /* hash(name, id) -> stat, probed on */
    /* runtime calls without External id outside the module charged with
     * them: attributed to no module (view_modules' note) */
    int64_t orph_n, orph_host, orph_dev;
    const char *orph_name;
};

/* A new module (-1 on out of memory), and its link under parent. */
int64_t tp_modtree_add(struct tp_modtree *T, const char *name, int64_t id);
void tp_modtree_link(struct tp_modtree *T, int64_t parent, int64_t child);
int tp_modtree_add_root(struct tp_modtree *T, int64_t node);

/* The python_function hierarchy (the plugin's _build_module_hierarchy):
 * equal top-level trees once, top level sorted by name.  -1 on out of
 * memory; no modules leaves T empty. */
int tp_modtree_from_python(struct tp_modtree *T, const tp_store *st);
/* Lightning's: a module's parent is the module named as its name up to the
 * last '.', top level sorted by name (_build_module_hierarchy_from_name). */
int tp_modtree_from_lightning(struct tp_modtree *T, const tp_store *st);

/* Sum the statistics of the tree's nodes of class cl (CL_MOD or CL_PLMOD);
 * nodes of the other module class are looked through (see modtree.c). */
int tp_modtree_stats(struct tp_modtree *T, const tp_store *st, const struct tb_model *m, int cl);

/* The Module view's tree and numbers: the python_function hierarchy and,
 * when it has modules, the statistics of the store's op tree (CL_MOD).
 * -1 on out of memory.  What a .tprof store holds of them
 * (tp_store_file_modtree) is this, written at import. */
int tp_modtree_modules(struct tp_modtree *T, const tp_store *st);

/* The statistics record of (name, id), zeroed when new: its index, -1 on
 * out of memory (a tree read back from a store puts its numbers here). */
int64_t tp_modtree_stat_add(struct tp_modtree *T, const char *name, int64_t id);

/* The name as the plugin shows it: "nn.Module: " taken out (Python's
 * str.replace), in buf (cut at cap). */
void tp_modtree_display_name(const char *name, char *buf, size_t cap);

/* The statistics of (name, id), NULL when no node had them. */
const struct tp_modstat *tp_modtree_stat(const struct tp_modtree *T, const char *name, int64_t id);

/* The view's table (columns tp_modtree_cols): a row per module, depth
 * first; the tree, share and bar columns drawn for vo->width (0: 80) with
 * box-drawing characters, or ASCII when vo->ascii. */
#define TP_MODTREE_NCOLS 12       /* the modules view's */
#define TP_MODTREE_NCOLS_PL 16    /* the lightning view's: its hooks' columns too */
extern const struct tp_coldef tp_modtree_cols[TP_MODTREE_NCOLS_PL];
#define TP_MODTREE_COLUMNS "module,occurrences,operators,host_total,host_self,dev_total,dev_self"
#define TP_MODTREE_TREE_COLUMNS "tree,host_total,dev_total,share,bar"
#define TP_MODTREE_HOOK_COLUMNS "hook,tid,start,duration"
#define TP_MODTREE_HOOK_TREE_COLUMNS "hook,start,duration,share,bar"
/* ncols: TP_MODTREE_NCOLS or TP_MODTREE_NCOLS_PL, the view's columns. */
tp_table *tp_modtree_table(const struct tp_modtree *T, const struct tp_view_opts *vo, size_t ncols);

/* Lightning's hooks ("[pl][profile]HOOK" record_functions, cpu_op or
 * user_annotation), the plugin's pl_tid2tree: per thread (in order of
 * first appearance), calls nested by time as the op trees nest operators
 * (one that partially overlaps the call around it is left out and counted
 * in *dropped).  Each node: name = HOOK, id = its event's row; the top
 * level in order of time.  -1 on out of memory. */
int tp_modtree_from_hooks(struct tp_modtree *T, const tp_store *st, int64_t *dropped);
/* Their table (TP_MODTREE_NCOLS_PL columns): a row per call, depth first:
 * hook (indented, or drawn with vo->tree), depth, tid, start (since the
 * trace's first event), duration, share of its top-level call and bar. */
tp_table *tp_modtree_hooks_table(const struct tp_modtree *T, const tp_store *st, const struct tp_view_opts *vo);

/* The view's end: *out = the table (of ncols columns), T freed;
 * TP_ERR_NOMEM on out of memory. */
int tp_modtree_finish(struct tp_modtree *T, const struct tp_view_opts *vo, size_t ncols, tp_table **out,
                      tp_error *err);
/* The views' columns_for: the drawn tree's columns with --tree, the hooks'
 * with --hooks. */
const char *tp_modtree_columns_for(const struct tp_view_opts *vo);

void tp_modtree_free(struct tp_modtree *T);

#endif
