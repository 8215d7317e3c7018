/* memory_attr.h — [memory] records and the operators they belong to
 * (internal to libtprof; SPEC §8).
 *
 * The memory view (statistics, events, curve) and the operator view's memory
 * columns read the same records: every [memory] instant of a store, in time
 * order, with its device, and — when a plugin op tree is given — the tree
 * node the TensorBoard plugin attributes it to (MemoryParser.find_memory_nodes:
 * per thread, the deepest node whose [start, end) holds the record, if that
 * node is an operator). */
#ifndef TPROF_MEMORY_ATTR_H
#define TPROF_MEMORY_ATTR_H

#include <stddef.h>
#include <stdint.h>
#include "store.h"
#include "tbtree.h"

struct tp_memrec {
    int64_t row;              /* the store row of the instant */
    int64_t ts;               /* ns */
    int64_t bytes;            /* > 0 allocation, < 0 free ("Bytes", 0 when absent) */
    int64_t addr;             /* TP_NONE when absent (traces before PyTorch 1.10) */
    int64_t total_allocated, total_reserved;   /* TP_NONE when absent */
    int64_t tid;
    int32_t dev;              /* index into tp_mem.devs; -1: a device type the plugin does not name */
    int64_t node;             /* tree node it is attributed to (an operator), -1 none */
    int64_t parent;           /* allocations: the node above that one on the walk, -1 none */
};

/* A record as the memory view's statistics read it (tp_mem_collect_stats):
 * 24 bytes instead of 80 (0.36M records on a 1 GB trace). */
struct tp_memstat {
    int64_t bytes;            /* as tp_memrec's */
    int64_t node;             /* as tp_memrec's */
    int32_t dev;              /* as tp_memrec's */
};

struct tp_memdev {
    int32_t type, id;         /* c10 DeviceType (0 CPU, 1 CUDA and HIP, ...) and Device Id */
    char name[24];            /* "CPU", "GPU0" */
};

struct tp_mem {
    struct tp_memrec *recs; size_t n;   /* time order (stable) */
    struct tp_memstat *stats;           /* tp_mem_collect_stats: instead of recs, the same order */
    struct tp_memdev *devs; size_t ndevs;   /* CPU first, then GPUs by id */
    int64_t start_ts;         /* the plugin's profiler_start_ts (ns): first ts of any event it reads */
    unsigned char *visited;   /* per tree node: the record walk entered it (NULL without a tree) */
};

/* Collect the records of st; with m (a tree of the same store), attribute
 * them.  0, or -1 on out of memory. */
int  tp_mem_collect(const tp_store *st, const struct tb_model *m, struct tp_mem *out);
void tp_mem_free(struct tp_mem *mem);
/* The same collection and attribution for the statistics: stats instead of
 * recs, no start_ts (TP_NONE).  0, or -1 on out of memory. */
int  tp_mem_collect_stats(const tp_store *st, const struct tb_model *m, struct tp_mem *out);

/* The operator view's memory columns without keeping the records: the
 * bytes of the records the walk attributes to each operator node (self)
 * and to its subtree (inclusive), CPU and devices apart, added into
 * sums[slot[node]] (slot -1: none).  The same attribution and the same
 * integer sums as tp_mem_collect's records summed over the tree.  Returns
 * the number of [memory] records (0: none), or -1 on out of memory. */
struct tp_mem_sums { int64_t self_cpu, self_dev, cpu, dev; };
int64_t tp_mem_op_sums(const tp_store *st, const struct tb_model *m, const int64_t *slot, struct tp_mem_sums *sums);

#endif
