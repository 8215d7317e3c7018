/* store_file.h — the persistent form of a loaded and linked store (.tprof).
 *
 * A .tprof file holds everything tp_store_load and tp_store_link produced
 * for one input: the event columns, the string table, the side tables, the
 * link results and the Ascend tables, each as one zstd-compressed column, so
 * that a second look at a trace costs decompression instead of parsing.
 * The layout is documented in tprof(1), FILES, so other tools can read it. */
#ifndef TPROF_STORE_FILE_H
#define TPROF_STORE_FILE_H

#include "store.h"

/* "TPROFST" and a newline: a text-mode transfer that changes line ends is
 * caught by the magic itself. */
#define TP_STORE_MAGIC "TPROFST\n"
#define TP_STORE_MAGIC_LEN 8
/* The format this tprof writes.  Readers refuse newer versions by name. */
#define TP_STORE_FORMAT 3

/* Read a .tprof file into an empty store.  The load status that the original
 * import saw (a truncated trace: TP_ERR_TRUNCATED and its message) is
 * returned again, so every view says what it said for the trace. */
struct tp_source;
int tp_store_read_file(tp_store *st, struct tp_source *src, tp_error *err);

/* The parts of a store read lazily (tp_store_set_lazy), one bit each: the
 * event columns, the linker's (link.parent per event; dlink.* per device
 * row), the attribution's per-device-row arrays (st->attr.dev_op,
 * .dev_kind, .dev_cause) and the big side tables.  Everything else of a
 * store (strings, devices, steps, skips, counts, Ascend tables) is read
 * with it. */
enum {
    TP_NEED_KIND = 1u << 0, TP_NEED_PH = 1u << 1, TP_NEED_TS = 1u << 2, TP_NEED_DUR = 1u << 3,
    TP_NEED_NAME = 1u << 4, TP_NEED_CAT = 1u << 5, TP_NEED_PID = 1u << 6, TP_NEED_TID = 1u << 7,
    TP_NEED_DEVICE = 1u << 8, TP_NEED_STREAM = 1u << 9, TP_NEED_CORRELATION = 1u << 10,
    TP_NEED_EXTERNAL_ID = 1u << 11, TP_NEED_AUX = 1u << 12,
    TP_NEED_PARENT = 1u << 13, TP_NEED_LAUNCHER = 1u << 14, TP_NEED_LAUNCH_OP = 1u << 15,
    TP_NEED_ATTR_OP = 1u << 16, TP_NEED_ATTR_KIND = 1u << 17, TP_NEED_ATTR_CAUSE = 1u << 18,
    /* the side tables: st->kernels (tp_store_kernel), st->ops, st->mems,
     * st->annots, st->colls (tp_store_coll), st->seqs (tp_store_seq),
     * st->pys (an operator's python ids) */
    TP_NEED_KERNEL_INFO = 1u << 19, TP_NEED_OP_INFO = 1u << 20, TP_NEED_MEM_INFO = 1u << 21,
    TP_NEED_ANNOTS = 1u << 22, TP_NEED_COLLS = 1u << 23, TP_NEED_SEQ = 1u << 24, TP_NEED_PY = 1u << 25,
    /* a row's step (tp_store_row_step): its start, or its launch's */
    TP_NEED_STEP = TP_NEED_TS | TP_NEED_LAUNCHER,
};
#define TP_NEED_ALL 0xffffffffu
/* Make sure the columns in `want` are in memory (checked and inflated on
 * first need); a store not read lazily has them all.  TP_OK, or the error
 * of a damaged section (naming the file and the section).  Safe from
 * several threads at once. */
int tp_store_need(const tp_store *st, uint32_t want, tp_error *err);

/* The operator tree and the step breakdown a .tprof store holds, read
 * from its model sections (store_file_model.c) when a view first asks for
 * them; NULL when the store has none of this tprof's version, they do not
 * fit the store, or out of memory: the caller builds them then. */
struct tb_model;
struct tp_tb_breakdown;
struct tb_model *tp_store_file_tree(const tp_store *st);
struct tp_tb_breakdown *tp_store_file_breakdown(const tp_store *st);
/* The GPU summary (gpu_metrics.h) a .tprof store holds
 * (store_file_results.c): 1 when *out was filled from it, 0 when the store
 * has none of this tprof's version or it does not fit the store, -1 out of
 * memory. */
struct tp_gpu_summary;
int tp_store_file_gpu(const tp_store *st, struct tp_gpu_summary *out);
/* What the default view (view_prof.c) reads of each kernel annotation:
 * the annotation and what it reads of its event row, in annotation order.
 * A .tprof store holds them (store_file_results.c) so that the view
 * inflates none of the event columns, the annotations nor the kernel
 * records.  opname: the launching operator's name (a string id), -1 none;
 * has_kernel: the row has a kernel record, whose grid and block follow. */
struct tp_prof_row {
    struct tp_kernel_annot a;
    int64_t dur, opname;
    int32_t device, stream;
    uint32_t kname;
    int32_t has_kernel;
    int32_t grid[3], block[3];
};
/* The rows (st->nannots of them, malloc'd) a store read from a file
 * holds; NULL when it has none of this tprof's version, they do not fit
 * the store, or out of memory (the view reads the columns then). */
struct tp_prof_row *tp_store_file_prof_rows(const tp_store *st);
/* The row of annotation a as a store holds it (padding zeroed). */
void tp_prof_row_of(const tp_store *st, const struct tp_kernel_annot *a, struct tp_prof_row *r);

/* The Module view's tree and numbers (modtree.h: tp_modtree_modules) a
 * .tprof store holds (store_file_modtree.c): 1 when T (empty) was filled
 * from it, 0 when the store has none of this tprof's version or they do not
 * fit the store (T left empty), -1 out of memory. */
struct tp_modtree;
int tp_store_file_modtree(const tp_store *st, struct tp_modtree *T);

/* A view's table through summary view sv (summ.h): from the section a
 * .tprof store holds (ops by name, memory; store_file_results.c), else
 * summarized from the columns `needs` names (asked for first). */
struct tp_summ_view;
struct tp_view_opts;
int tp_store_summ_view_build(const struct tp_summ_view *sv, uint32_t needs, const tp_store *st,
                             const struct tp_view_opts *vo, tp_table **out, tp_error *err);

#endif
