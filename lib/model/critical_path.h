/* critical_path.h — Holistic Trace Analysis' critical path (peers SPEC §1.3)
 * as a model: the graph of one time window of one rank and its longest
 * path.  Internal to libtprof; view_critical_path.c prints it.
 *
 * Every CPU op and runtime/driver call that starts in the window (and has a
 * duration), and every kernel, memcpy and memset whose launching call is one
 * of them, becomes two nodes, its start and its end, numbered in time order
 * (ties by event order) as HTA numbers them.  Edges, HTA's five types:
 *   operator        an op or kernel's own span, and parent -> child /
 *                   child -> parent steps inside an op tree (weight: time);
 *   dependency      consecutive top-level ops on a thread, and the order
 *                   in which calls holding the CUDA runtime lock finish
 *                   (weight 0);
 *   launch          launch call start -> kernel start, weighted when the
 *                   stream had nothing queued (else weight 0: causality);
 *   kernel_kernel   previous kernel end -> kernel start on a stream, when
 *                   the gap is under 1.5 ms;
 *   sync            kernel end -> end of cudaDeviceSynchronize /
 *                   cudaStreamSynchronize, and -> end of cudaEventSynchronize
 *                   for the kernel its event recorded; recorded kernel end ->
 *                   start of the kernel a cudaStreamWaitEvent held back
 *                   (weight 0).
 * The critical path is the longest path of this DAG, found in one pass over
 * a topological order (O(V+E)) with networkx's tie-breaking. */
#ifndef TPROF_CRITICAL_PATH_H
#define TPROF_CRITICAL_PATH_H

#include <stddef.h>
#include <stdint.h>
#include "hta.h"
#include "store.h"

enum tp_cp_edge_type { TP_CP_OPERATOR, TP_CP_DEPENDENCY, TP_CP_LAUNCH, TP_CP_KERNEL_KERNEL, TP_CP_SYNC };

/* Where the time of a path edge went (HTA's bound_by; TP_CP_BOUND_NONE: "",
 * zero-weight dependency and sync edges). */
enum tp_cp_bound { TP_CP_CPU, TP_CP_DATA_LOADING, TP_CP_GPU_COMPUTE, TP_CP_GPU_COMM,
                   TP_CP_KK_OVERHEAD, TP_CP_LAUNCH_OVERHEAD, TP_CP_BOUND_NONE, TP_CP_NBOUND };

struct tp_cp_node {
    int64_t row;          /* the event's row in the store */
    int64_t ts;           /* ns (HTA's µs rounding with quirks) */
    uint8_t is_start;
};

struct tp_cp_edge {
    uint32_t from, to;    /* node ids */
    uint8_t type;         /* enum tp_cp_edge_type */
    int64_t weight;       /* ns, as HTA reports it (may be -1 µs with quirks) */
    int64_t attr_row;     /* the event the edge's time belongs to (operator and
                             kernel_kernel edges), -1 none */
};

struct tp_cp_graph {
    struct tp_cp_node *nodes; size_t nnodes;
    struct tp_cp_edge *edges; size_t nedges, capedges;
    uint32_t *path;       /* node ids of the longest path, in order */
    size_t npath;
    uint32_t *path_edges; /* edge indices along the path: npath - 1 of them */
    size_t npath_edges;
    size_t npath_events;  /* distinct events on the path */
    int64_t length;       /* sum of the path's edge weights (ns) */
};

/* The window [*start, *end] (ns, in h's time): step `step` (>= 0) of
 * st->steps; else the `instance`-th event (0-based, in time order) whose
 * name contains `annotation` (HTA's match); annotation "" is the whole trace;
 * annotation NULL and step < 0: the first ProfilerStep, else the whole trace.
 * TP_ERR_USAGE when there is no such step or instance. */
int tp_cp_window(const struct tp_hta *h, int64_t step, const char *annotation, int64_t instance,
                 int64_t *start, int64_t *end, tp_error *err);

/* 1 when the critical path (any window but --annotation's, no --path, no
 * HTA quirks) reads nothing of the python frames store st left out
 * (tp_store_set_lean TP_LEAN_PYGRAPH) but their span, which tp_cp_window
 * reads from st->left_out_lo and left_out_hi; 0 when one may bear on it
 * (a host event has a stream), and the view looks at its path itself
 * (view_critical_path.c: path_clear_of_streamed_hosts). */
int tp_cp_lean_serves(const tp_store *st);
/* 1 for a host event the linker nests in its tree (an 'X' cpu_op, user
 * annotation, python frame, runtime or driver call). */
int tp_cp_host_nested(const tp_store *st, size_t r);

/* CUDA event synchronisation (critical_path_sync.c), over the whole trace:
 * cpu_wait maps each Event Sync row to the kernel row its event recorded;
 * gpu_wait maps each kernel row held back by a Stream Wait Event to the
 * kernel row it waited for.  corr maps correlation ids to runtime rows.
 * Both maps are initialised here (free them even on failure); -1 out of memory. */
struct tp_i64map;
int tp_cp_event_syncs(const struct tp_hta *h, const struct tp_i64map *corr, struct tp_i64map *cpu_wait,
                      struct tp_i64map *gpu_wait);

/* Build the graph of the window and find its longest path. */
int tp_cp_build(const struct tp_hta *h, int64_t start, int64_t end, struct tp_cp_graph *g, tp_error *err);
void tp_cp_free(struct tp_cp_graph *g);

/* Bound category of a path edge; names as HTA prints them. */
enum tp_cp_bound tp_cp_bound_by(const struct tp_hta *h, const struct tp_cp_edge *e);
const char *tp_cp_bound_name(enum tp_cp_bound b);
const char *tp_cp_edge_type_name(enum tp_cp_edge_type t);

#endif
